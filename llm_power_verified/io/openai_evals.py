"""OpenAI ``evals`` logs: the JSON Lines file ``oaieval --record_path`` writes, one model per file.

A log (``evals.record.LocalRecorder``) is a ``{"spec": {...}}`` line, a ``{"final_report": {...}}`` line
once the eval has run (anywhere after the spec: events are flushed in batches, the last ones after it), and
one line per event: ``run_id``, ``event_id`` (the order of recording), ``sample_id``, ``type``, ``data``.

* Model: ``spec.completion_fns`` joined with ``+`` (a solver and a model grader are one model named by both);
  two logs of one model, of two ``spec.eval_name`` values, or of one run (one ``spec.run_id``, or the same events
  line for line) are refused naming both files.
* Items: ``sample_id``.  Score: ``data.correct`` of the ``match`` events, or the field named by
  ``metric="TYPE.FIELD"`` (``--metric metrics.score``: events of type ``metrics``, data field ``score``; the
  type ends at the first dot): true/false (1/0) or a finite number in [0, 1].
* Several events of that type for one sample (n > 1 answers, retries): ``epochs`` (read_openai_evals).
* ``final_report.accuracy`` is evals' mean of ``correct`` over every ``match`` event of the log
  (``evals.metrics.get_accuracy``), recomputed and compared (``REPORT_TOLERANCE``); a disagreement is refused:
  the log does not hold the events the harness reported on (edited, cut or spliced).  Naming ``--metric match.correct``
  (an eval that computes its accuracy otherwise) makes it a note.  No final report (an unfinished run): a note.
* A ``match`` event's ``data.expected`` must agree between logs (sample ids are positions in the samples file).

Each line goes through :func:`~llm_power_verified.io.json_input.parse_json`, reduced at once to the fields read
(other event types are dropped once their type is known).  A blank, non-JSON or non-object line (a cut last
line says so), a spec without ``run_id``, a second spec or final report, a final report that is no object, an event
without ``sample_id``, ``type``, ``data`` or ``run_id`` (evals writes them on every event) or of another run, is
refused naming the file and line.
"""

from __future__ import annotations

import gzip
import math
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.openai_evals_events import MISSING, Event, Log, read_log
from llm_power_verified.io.repeat_choice import CHOOSE, EPOCHS, choose_repeats, kept_scores
from llm_power_verified.io.repeated_tables import from_long_repeated
from llm_power_verified.io.tables import from_long

__all__ = ["REPORT_TOLERANCE", "SNIFF_BYTES", "is_openai_evals_log", "read_openai_evals"]

#: Most bytes :func:`is_openai_evals_log` reads (1 MiB): an oaieval spec line is a few kilobytes.
SNIFF_BYTES = 1 << 20
#: Largest difference allowed between ``final_report.accuracy`` and the mean of the ``match`` events read.
#: evals writes ``correct / total`` as a double (exact to 1e-16); one event more or less correct moves the mean
#: by 1 / total, more than 1e-9 for any log of fewer than 10^9 events.
REPORT_TOLERANCE = 1e-9


def is_openai_evals_log(path: str | Path) -> bool:
    r"""Whether a file looks like an oaieval log: its first line is a JSON object whose only key is ``spec``.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.jsonl`` file (or ``.jsonl.gz``).

    Returns
    -------
    bool
        True when the first line (within the first ``SNIFF_BYTES`` bytes, inflated for ``.gz``) parses as an
        object ``{"spec": {...}}``; False for anything else, a folder or a device included.  Never reads more.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "run.jsonl"
    ...     _ = path.write_text('{"spec": {"eval_name": "e"}}\n{"final_report": {}}\n')
    ...     is_openai_evals_log(path), is_openai_evals_log(folder)
    (True, False)
    """
    path = Path(path)
    name = path.name.lower()
    if not (name.endswith(".jsonl") or name.endswith(".jsonl.gz")):
        return False
    try:
        if not path.is_file():
            return False
        opener = gzip.open if name.endswith(".gz") else open
        with opener(path, "rb") as stream:
            head = stream.read(SNIFF_BYTES + 1)
    except (OSError, EOFError, ValueError, zlib.error):
        return False
    first = re.split(rb"\r|\n", head, maxsplit=1)
    if len(first) == 1 and len(head) > SNIFF_BYTES:
        return False
    try:
        record = parse_json(first[0].removeprefix(b"\xef\xbb\xbf"), str(path))
    except InputError:
        return False
    return isinstance(record, dict) and list(record) == ["spec"] and isinstance(record["spec"], dict)


def _metric(metric: str | None) -> tuple[str, str]:
    if metric is None:
        return "match", "correct"
    kind, _, name = metric.partition(".") if isinstance(metric, str) else ("", "", "")
    if not kind or not name:
        raise ArgumentError(
            f"--metric for an OpenAI evals log is TYPE.FIELD, an event type and a field of its data "
            f"(match.correct, metrics.score); got {describe_value(metric)}"
        )
    return kind, name


def _by_sample(log: Log, epochs: str, metric: str) -> tuple[dict[str, list[Event]], str | None]:
    """{sample_id: its events kept under ``epochs``, by event_id}, and the note on samples with several."""
    table: dict[str, list[Event]] = {}
    for event in log.events:
        table.setdefault(event.sample_id, []).append(event)
    for events in table.values():
        events.sort(key=lambda event: event.event_id)

    def noted(several: dict[str, list[Event]], samples: int) -> str:
        counts = sorted({len(events) for events in several.values()})
        each = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        done = {
            "first": "kept the one of lowest event_id of each (--epochs mean or all read every one)",
            "mean": "averaged them (scores are graded)",
            "all": "kept each as a generation of its sample",
        }[epochs]
        return (
            f"{log.model}: {len(several):,} of {samples:,} samples have several {metric} events ({each} each); {done}"
        )

    return choose_repeats(
        table,
        epochs,
        refuse_several=lambda sample, events: (
            f"{log.path}, line {events[1].line}: sample {sample!r} has {len(events)} {metric} events (lines "
            f"{', '.join(str(event.line) for event in events[:5])}); {CHOOSE}"
        ),
        refuse_single=lambda: (
            f"{log.path}: one {metric} event per sample; --epochs all keeps each as a generation and needs "
            "at least 2 to see the within-item variance: read it without --epochs"
        ),
        note_several=noted,
    )


def _check_report(log: Log, explicit: bool) -> str | None:
    """Compare the final report's accuracy with the mean of every match event's correct; a note or a refusal."""
    line, accuracy = log.report or (0, None)
    if accuracy is None or accuracy is MISSING:
        where = f"the final_report (line {line}) has no accuracy" if line else "no final_report (an unfinished run?)"
        return f"{log.path.name}: {where}: its means are not checked against the harness's"
    where = f"{log.path}, line {line}"
    if isinstance(accuracy, bool) or not isinstance(accuracy, (int, float)):
        raise InputError(f"{where}: final_report accuracy is {describe_value(accuracy)}; evals writes a number")
    mean = math.fsum(event.score for event in log.events) / len(log.events)
    if abs(mean - accuracy) <= REPORT_TOLERANCE:
        return None
    said = (
        f"{where}: final_report accuracy {accuracy!r} but the {len(log.events):,} match events' correct "
        f"average {mean!r} (evals computes the accuracy as that mean)"
    )
    if explicit:
        return f"{said}; read as asked (--metric match.correct)"
    raise AlignmentError(
        f"{said}: the log does not hold the events the harness reported on (edited, cut or spliced); if this "
        "eval computes its accuracy otherwise, read the events with --metric match.correct"
    )


@dataclass
class _Seen:
    """What the logs read so far hold: each next one must be another model's run of one eval on the same samples."""

    models: dict = field(default_factory=dict)  # model -> file name
    runs: dict = field(default_factory=dict)  # run_id, and digest of the events -> file name
    eval_name: tuple[str, Path] | None = None
    expected: dict = field(default_factory=dict)  # sample_id -> (digest, shown, where)

    def another(self, log: Log) -> None:
        if log.model in self.models:
            raise AlignmentError(
                f"{log.path} and {self.models[log.model]} are both logs of completion function {log.model!r} "
                "(spec.completion_fns); keep one of them"
            )
        self.models[log.model] = log.path
        for key, what in ((log.run_id, f"spec.run_id {log.run_id!r}"), (log.digest.hexdigest(), "")):
            if key in self.runs:
                what = what or "the same events, line for line (the run id aside)"
                raise AlignmentError(
                    f"{log.path} and {self.runs[key]} are one run given twice ({what}) under two completion "
                    f"functions ({log.model!r}, spec.completion_fns); oaieval gives each run its own id: keep one"
                )
            self.runs[key] = log.path
        self.eval_name = self.eval_name or (log.eval_name, log.path)
        if log.eval_name != self.eval_name[0]:
            raise AlignmentError(
                f"{log.path} is a log of eval {log.eval_name!r} but {self.eval_name[1]} of "
                f"{self.eval_name[0]!r} (spec.eval_name): different evals score different samples; audit logs "
                "of one eval"
            )

    def same_sample(self, log: Log, event: Event) -> None:
        where = f"{log.path}, line {event.line}"
        first = self.expected.setdefault(event.sample_id, (*event.expected, where)) if event.expected else None
        if first and first[0] != event.expected[0]:
            raise AlignmentError(
                f"{where}: sample {event.sample_id!r} expects {event.expected[1]} but at "
                f"{first[2]} it expects {first[1]}: the logs did not score the same samples (another version of "
                "the samples file); re-run the models on one"
            )


@docfill("on_missing", "score_kind", returns="score_matrix")
def read_openai_evals(
    paths: Iterable[str | Path],
    *,
    metric: str | None = None,
    epochs: str = "error",
    on_missing: str = "error",
    score_kind: str = "auto",
) -> ScoreMatrix:
    r"""Read OpenAI ``evals`` logs (``oaieval --record_path``), one model per file.

    Parameters
    ----------
    paths : iterable of str or pathlib.Path
        The logs (``.jsonl``, or ``.jsonl.gz``).
    metric : str, optional
        ``TYPE.FIELD``: the events of type TYPE, their data field FIELD (``--metric metrics.score``); default
        ``match.correct``, checked against the ``final_report``'s accuracy (module notes).
    epochs : {"first", "mean", "all", "error"}, default "error"
        For samples with several events of that type: "first" keeps the one of lowest ``event_id`` (a note says
        how many samples had several), "mean" averages them (graded scores), "all" keeps each as a generation
        (item means with ``matrix.generations``), "error" refuses (``--epochs``).
    %(on_missing)s
    %(score_kind)s

    Raises
    ------
    ArgumentError
        An unknown ``epochs``, or a ``metric`` that is not TYPE.FIELD.
    InputError
        What the module notes refuse, naming the file and line (a repeated ``event_id`` too); a log with no event
        of the type read; then the matrix rules.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = [pathlib.Path(folder) / f"{model}.jsonl" for model in ("m1", "m2")]
    ...     for path, correct in zip(paths, ([True, False, True], [False, False, True])):
    ...         spec = {"completion_fns": [path.stem], "eval_name": "e.dev.v0", "run_id": path.stem}
    ...         lines = [{"spec": spec}] + [
    ...             {"run_id": path.stem, "event_id": i, "sample_id": f"e.dev.{i}", "type": "match",
    ...              "data": {"correct": c}}
    ...             for i, c in enumerate(correct)]
    ...         _ = path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    ...     matrix = read_openai_evals(paths)
    >>> matrix.models, matrix.item_ids, matrix.scores.tolist()
    (('m1', 'm2'), ('e.dev.0', 'e.dev.1', 'e.dev.2'), [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    """
    if epochs not in EPOCHS:
        raise ArgumentError(f"epochs must be 'first', 'mean', 'all' or 'error'; got {epochs!r}")
    kind, name = _metric(metric)
    read, matched = f"{kind}.{name}", (kind, name) == ("match", "correct")
    rows: list[tuple] = []
    notes, seen, averaged = [], _Seen(), False
    for path in map(Path, paths):
        log = read_log(path, kind, name)
        seen.another(log)
        if not log.events:
            types = ", ".join(sorted(log.types)) or "none"
            trap = " (an eval that grades by model writes 'metrics' events)" if matched else ""
            raise AlignmentError(
                f"{path}: no {kind!r} events (event types in the log: {types}): nothing per sample to read"
                f"{trap}; name the event type and data field that hold each sample's score with --metric TYPE.FIELD"
            )
        table, note = _by_sample(log, epochs, kind)
        notes.extend([note] if note else [])
        notes.extend([checked] if matched and (checked := _check_report(log, metric is not None)) else [])
        for sample, kept in table.items():
            seen.same_sample(log, kept[0])
            averaged |= epochs == "mean" and len(kept) > 1
            rows.extend(
                (sample, log.model, score, f"{path}, line {event.line}", position)
                for position, (event, score) in enumerate(
                    kept_scores(kept, [event.score for event in kept], epochs), start=1
                )
            )
    if not rows:
        raise ArgumentError("read_openai_evals: no log given")
    notes.insert(0, f"OpenAI evals eval {seen.eval_name[0]!r}, {read} per sample; items keyed by sample_id")
    long = pd.DataFrame(rows, columns=["item", "model", "score", "line", "repeat"])
    lines = long.pop("line").to_numpy(dtype=object)
    common = dict(item_column="item", on_missing=on_missing, source="OpenAI evals logs", lines=lines, notes=notes)
    common["exact_ids"] = True  # a sample_id is an exact string: "x " and "x" are two samples
    if epochs == "all":
        return from_long_repeated(long, repeat_column="repeat", score_kind=score_kind, **common)
    long = long.drop(columns="repeat")
    # Averaging was asked for: the scores are graded by request, not by a silent switch.
    return from_long(long, score_kind="graded" if averaged and score_kind == "auto" else score_kind, **common)
