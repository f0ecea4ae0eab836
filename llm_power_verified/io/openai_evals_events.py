"""The lines of one OpenAI ``evals`` log, each reduced at once to what :mod:`.openai_evals` reads.

evals (``evals/record.py``) writes every event as its ``Event`` dataclass: ``run_id`` (the spec's), ``event_id``,
``sample_id``, ``type``, ``data``, ``created_by``, ``created_at``; the final report is what ``Eval.run`` returns, a
dict of metrics.  An event without ``run_id`` or of another run, and a final report that is no object, are
refused naming the file and line.  Each log's events are digested (SHA-256 of their lines, the run id taken out),
so that one run given twice under two names is known even when its run id was rewritten.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llm_power_verified.io.errors import InputError, describe_value
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.text import kept_value, read_text

__all__ = ["MISSING", "read_log"]

_MAX_ID_CHARACTERS = 4096
_MAX_TYPES = 50  # event type names kept for a message
#: A final report without an accuracy.
MISSING = object()


@dataclass(frozen=True)
class Event:
    """What is kept of one event of the type read.

    Parameters
    ----------
    line : int
        Its line in the log, from 1.
    event_id : int
        evals' number of the event (the order of recording).
    sample_id : str
        The sample (the item).
    score : float
        The field read, as a number in [0, 1].
    expected : tuple of (str, str) or None
        A ``match`` event's ``data.expected``: its digest and how it is shown; None for other types.
    """

    line: int
    event_id: int
    sample_id: str
    score: float
    expected: tuple[str, str] | None  # (digest, shown) of a match event's data.expected


@dataclass
class Log:
    """What is kept of one log.

    Parameters
    ----------
    path : pathlib.Path
        The log.
    model : str
        ``spec.completion_fns`` joined with ``+``.
    eval_name : str
        ``spec.eval_name``.
    run_id : str
        ``spec.run_id``, which every event and the final report carry.
    events : list of Event
        The events of the type read.
    report : tuple of (int, object) or None
        The final report's line and accuracy (``MISSING`` when it has none); None without a final report.
    types : set of str
        The event types met (the first 50), for a message.
    digest : hashlib sha256 object
        Of every event line, the run id taken out: two logs of one run have the same.
    """

    path: Path
    model: str = ""
    eval_name: str = ""
    run_id: Any = None
    events: list[Event] = field(default_factory=list)
    report: tuple[int, Any] | None = None  # (line, the final_report's accuracy or MISSING)
    types: set[str] = field(default_factory=set)
    digest: Any = field(default_factory=hashlib.sha256)  # of every event line, the run id taken out


def _spec(record: Any, path: Path, log: Log) -> None:
    where = f"{path}, line 1"
    if not isinstance(record, dict) or list(record) != ["spec"] or not isinstance(record["spec"], dict):
        shown = describe_value(list(record)) if isinstance(record, dict) else f"a JSON {type(record).__name__}"
        raise InputError(
            f"{where}: {shown} where an oaieval log starts with its spec line, an object whose only key is 'spec' "
            "(was the log cut at its start, or is it another format? --input-format chooses the reader)"
        )
    spec = record["spec"]
    functions, name = spec.get("completion_fns"), spec.get("eval_name")
    named = isinstance(functions, list) and all(isinstance(one, str) and one.strip() for one in functions)
    if not named or not functions:
        raise InputError(f"{where}: spec.completion_fns is {describe_value(functions)}; evals writes a list of names")
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{where}: spec.eval_name is {describe_value(name)}; evals writes the eval's name")
    run_id = spec.get("run_id")
    if not isinstance(run_id, str) or not run_id.strip():
        raise InputError(f"{where}: spec.run_id is {describe_value(run_id)}; evals writes the run's id")
    log.model, log.eval_name, log.run_id = "+".join(functions), name, run_id


def _parse(path: Path, number: int, line: str, last: bool) -> dict:
    where = f"{path}, line {number}"
    if not line.strip():
        raise InputError(f"{where}: blank line in an oaieval log (evals writes one JSON object per line)")
    try:
        record = parse_json(line, where, line_numbers=False)
    except InputError as error:
        hints = {
            " (the last line is cut short: was the run interrupted?)": last and ": not valid JSON" in str(error),
            " (evals writes NaN as the accuracy of an eval that recorded no match events)": line.startswith(
                '{"final_report"'
            )
            and "NaN" in str(error),
        }
        raise InputError(f"{error}{''.join(hint for hint, applies in hints.items() if applies)}") from None
    if not isinstance(record, dict):
        raise InputError(f"{where}: a JSON {type(record).__name__} where an oaieval event object is expected")
    return record


def _expected(data: dict) -> tuple[str, str] | None:
    if "expected" not in data:
        return None
    text = json.dumps(data["expected"], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16], describe_value(data["expected"])


def _score(value: Any, where: str, metric: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value) and 0 <= value <= 1:
        return float(value)
    raise InputError(
        f"{where}: {metric} is {describe_value(value)}; a per-sample score is true/false or a finite number in "
        "[0, 1] (choose another event field with --metric TYPE.FIELD)"
    )


def _event(record: dict, number: int, log: Log, kind: str, name: str) -> Event | None:
    """The event reduced to what is read, or None when it is of another type; a malformed event is refused."""
    where = f"{log.path}, line {number}"
    lacking = [key for key in ("sample_id", "type", "data", "run_id") if key not in record]
    if lacking:
        raise InputError(
            f"{where}: an object without {lacking[0]!r} (keys: {describe_value(list(record), 80)}); an oaieval "
            "event holds sample_id, type, data and run_id (and the spec and final_report lines their own key)"
        )
    sample_id, event_type, run_id = record["sample_id"], record["type"], record["run_id"]
    if not isinstance(event_type, str) or not event_type:
        raise InputError(f"{where}: event type is {describe_value(event_type)}; evals writes a name")
    if not isinstance(sample_id, str) or not sample_id or len(sample_id) > _MAX_ID_CHARACTERS:
        raise InputError(f"{where}: sample_id is {describe_value(sample_id)}; evals writes a non-empty name")
    if run_id != log.run_id:
        raise InputError(
            f"{where}: an event of run {describe_value(run_id)} in the log of run {describe_value(log.run_id)} "
            "(line 1): lines of two runs in one file; keep one run per file"
        )
    if len(log.types) < _MAX_TYPES:
        log.types.add(event_type)
    if event_type != kind:
        return None
    event_id, data = record.get("event_id"), record["data"]
    if isinstance(event_id, bool) or not isinstance(event_id, int) or event_id < 0:
        raise InputError(f"{where}: event_id is {describe_value(event_id)}; evals writes a whole number >= 0")
    if not isinstance(data, dict):
        raise InputError(f"{where}: {kind} event data is {describe_value(data)}, not an object")
    if name not in data:
        raise InputError(
            f"{where}: {kind} event of sample {sample_id!r} has no data field {name!r} (fields: "
            f"{describe_value(list(data), 80)}); check --metric"
        )
    score = _score(kept_value(data[name]), where, f"{kind}.{name}")
    return Event(number, event_id, sample_id, score, _expected(data) if kind == "match" else None)


def _report(record: dict, number: int, log: Log) -> tuple[int, Any]:
    """(line, the final report's accuracy or MISSING); a second report, one of another run or no object is refused."""
    where = f"{log.path}, line {number}"
    if log.report is not None:
        raise InputError(f"{where}: a second final_report (the first is line {log.report[0]}); one per run")
    report, run_id = record["final_report"], record.get("run_id", log.run_id)
    if not isinstance(report, dict):
        raise InputError(
            f"{where}: final_report is {describe_value(report)}; evals writes an object (the eval's metrics)"
        )
    if run_id != log.run_id:
        raise InputError(
            f"{where}: the final_report of run {describe_value(run_id)} in the log of run "
            f"{describe_value(log.run_id)} (line 1): lines of two runs in one file; keep one run per file"
        )
    return number, report.get("accuracy", MISSING)


def read_log(path: Path, kind: str, name: str) -> Log:
    """One log, line by line, each record reduced at once to what is read.

    Parameters
    ----------
    path : pathlib.Path
        The log (``.jsonl`` or ``.jsonl.gz``).
    kind : str
        The event type read (``match``).
    name : str
        The field of its data read (``correct``).

    Returns
    -------
    Log
        What is kept of the log.

    Raises
    ------
    InputError
        A damaged line, naming the file and the line (module notes).
    """
    text = read_text(path)
    lines = re.split(r"\r\n|\r|\n", text)  # a raw CR cannot occur inside a JSON string
    del text
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise InputError(f"{path}: empty file; an oaieval log starts with a spec line (was the run started?)")
    log, event_ids = Log(path), {}
    for number, line in enumerate(lines, start=1):
        record = _parse(path, number, line, number == len(lines))
        if number > 1 and "final_report" not in record:
            log.digest.update(line.replace(json.dumps(log.run_id), "").encode("utf-8", "surrogatepass") + b"\n")
        lines[number - 1] = ""  # the line's text is no longer needed
        where = f"{path}, line {number}"
        if number == 1:
            _spec(record, path, log)
        elif "spec" in record:
            raise InputError(
                f"{where}: a second spec line (the first is line 1): two runs written to one file; keep one run "
                "per file"
            )
        elif "final_report" in record:
            log.report = _report(record, number, log)
        elif (event := _event(record, number, log, kind, name)) is not None:
            if event.event_id in event_ids:
                raise InputError(
                    f"{where}: event_id {event.event_id} is also line {event_ids[event.event_id]}'s; "
                    "evals numbers each event once"
                )
            event_ids[event.event_id] = number
            log.events.append(event)
    return log
