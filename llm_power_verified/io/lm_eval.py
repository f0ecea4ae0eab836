"""EleutherAI lm-evaluation-harness output folders written with ``--log_samples``.

One folder per model, ``samples_<task>_<timestamp>.jsonl`` per task.  Items are
keyed by (task, doc_id).  A group task (``group_subtasks`` in the results
file) reads every subtask and uses the subtask as the item's cluster.  A task
with several filters needs ``filter``; a metric must be named.

The folders must be runs of different models on the same items, under one
filter.  lm-eval (recent versions) writes ``doc_hash`` on each line, a hash
of the document itself: an item whose ``doc_hash`` differs between two
models under the same (task, doc_id) is refused, since the runs did not
score the same items (another dataset version, order or subset) and pairing
them by id would build wrong 2x2 tables.  Files without ``doc_hash`` (older
lm-eval) are matched by doc_id alone, and the notes say so.  A subtask read
under different filters in two folders is refused (``--filter`` picks one),
and so are two folders holding the same run: byte-identical samples files,
or results files naming the same model, ``model_args`` and settings
(n-shot, chat template, system instruction, ``gen_kwargs``, seeds); a folder
whose results file names no model is noted.

The samples files are JSON Lines read line by line with
:func:`~llm_power_verified.io.json_input.parse_json` (no library parses
lm-eval's records and reports the line of a bad one; that function bounds
depth, integer length, constants, repeated keys and the memory a line
builds); every malformed line (not JSON, not an object, a blank line, a
truncated last line, a missing ``doc_id`` or metric, a metric that is not a
number) is an error naming the file and line.  Each record is reduced at
once to the fields read (filter, doc_id, the metric), so that memory kept
is a few hundred bytes per line, not the whole record (prompts, responses).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.lm_eval_runs import Seen, at, lm_eval_files, short
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.tables import from_long
from llm_power_verified.io.text import kept_value, read_text

__all__ = ["read_lm_eval"]


@dataclass(frozen=True)
class _Line:
    """What is read of one samples line: number, filter, doc_id, metric (``missing`` if absent), doc_hash or None."""

    number: int
    filter: str
    doc_id: Any
    value: Any
    metrics: str
    doc_hash: str | None


_MISSING = object()
#: The fields of every samples line that are not per-item metrics (lm-eval 0.4).
_SAMPLE_FIELDS = frozenset(
    [
        "doc_id",
        "doc",
        "target",
        "arguments",
        "resps",
        "filtered_resps",
        "filter",
        "metrics",
        "doc_hash",
        "prompt_hash",
        "target_hash",
    ]
)


def _records(path: Path, metric: str) -> tuple[list[_Line], str]:
    """Every line, reduced to the fields read, and the file's SHA-256; any malformed line is an error naming it.

    lm-eval from May to mid-June 2024 (0.4.2 to 0.4.3, and the Open LLM Leaderboard v2 details of that time) wrote the
    samples as one JSON array in ``samples_TASK_STAMP.json``; those are read as records numbered from 1.
    """
    text = read_text(path)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if path.suffix == ".json":
        document = parse_json(text, str(path))
        del text
        if not isinstance(document, list):
            raise InputError(
                f"{path}: a JSON {type(document).__name__} where lm-eval's samples file holds an array of samples"
            )
        if not document:
            raise InputError(f"{path}: the samples file is empty")
        return [_line(record, path, number, metric) for number, record in enumerate(document, start=1)], digest
    # Any line end (CR LF, LF, or CR alone); a raw CR cannot occur inside a JSON string.
    lines = re.split(r"\r\n|\r|\n", text)
    del text
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise InputError(f"{path}: the samples file is empty")
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise InputError(f"{path}, line {number}: blank line in a samples file")
        try:
            record = parse_json(line, f"{path}, line {number}", line_numbers=False)
        except InputError as error:
            cut = number == len(lines) and ": not valid JSON" in str(error)
            raise InputError(
                f"{error}{' (the last line is cut short: was the run interrupted?)' if cut else ''}"
            ) from None
        records.append(_line(record, path, number, metric))
        lines[number - 1] = ""  # the line's text is no longer needed
    return records, digest


def _line(record: Any, path: Path, number: int, metric: str) -> _Line:
    """One sample reduced to the fields read."""
    if not isinstance(record, dict):
        raise InputError(f"{at(path, number)}: a JSON {type(record).__name__} where a sample object is expected")
    value, doc_hash = record.get(metric, _MISSING), record.get("doc_hash")
    if doc_hash is not None and not (isinstance(doc_hash, str) and 0 < len(doc_hash) <= 128):
        raise InputError(f"{at(path, number)}: doc_hash is {describe_value(doc_hash)}; lm-eval writes a hex digest")
    return _Line(
        number,
        str(record.get("filter", "none")),
        kept_value(record.get("doc_id")),
        value if value is _MISSING else kept_value(value),
        "" if value is not _MISSING else describe_value(record.get("metrics"), 200),
        doc_hash,
    )


def _metric_value(value: object, path: Path, number: int, metric: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    raise InputError(
        f"{at(path, number)}: metric {metric!r} is {describe_value(value)}; a per-item metric is a finite number"
    )


@docfill("on_missing", "score_kind", "missing_cluster", returns="score_matrix")
def read_lm_eval(
    folders: Iterable[str | Path],
    *,
    task: str,
    metric: str,
    filter: str | None = None,
    on_missing: str = "error",
    names: Iterable[str] | None = None,
    score_kind: str = "auto",
    missing_cluster: str = "error",
    run: str | None = None,
    align_on: str = "id",
) -> ScoreMatrix:
    r"""Read lm-evaluation-harness ``--log_samples`` folders, one per model.

    Parameters
    ----------
    folders : iterable of str or pathlib.Path
        One output folder per model, holding ``samples_<task>_<timestamp>.jsonl``.
    task : str
        Task name, or a group name whose subtasks are read (the subtask becomes the cluster; ``--task``).
    metric : str
        Per-item metric, e.g. ``acc``, ``acc_norm``, ``exact_match`` (``--metric``).
    filter : str, optional
        Filter name (``strict-match``, ...); required when the task has more than one (``--filter``).
    %(on_missing)s
    names : iterable of str, optional
        Model names; default: the folder names.
    %(score_kind)s
    %(missing_cluster)s
    run : str, optional
        Which run, when a folder holds several samples files of one task (re-runs; the Open LLM Leaderboard's details
        datasets keep every run): "latest" or a time stamp as the file names write it (``--run``).
    align_on : {"id", "hash"}, default "id"
        "id" pairs items by (task, doc_id) and refuses a ``doc_hash`` that differs under one id; "hash" pairs them by
        (task, doc_hash), whatever their doc_id (runs over one dataset in another order or subset), and refuses a line
        without ``doc_hash`` and two lines of one file with the same one (``--align-on``).

    Raises
    ------
    InputError
        Names that do not fit the folders or repeat, a path that is not a folder, no samples file for the task (or two:
        a re-run), a group whose subtasks lack files, several filters and none chosen or an unknown one, and per line
        (naming file and line) what the module notes refuse: not JSON, not an object, blank or cut short, a ``doc_id``
        that is not a whole number or repeats, a missing or non-numeric metric, a ``doc_hash`` that is not text; across
        folders: a (task, doc_id) whose ``doc_hash`` differs, a subtask read under different filters, two folders of
        one run (byte-identical samples files, or results files naming the same model and settings); then the matrix
        rules.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     for model, scores in (("m1", [1, 0, 1]), ("m2", [0, 0, 1])):
    ...         run = pathlib.Path(folder) / model
    ...         run.mkdir()
    ...         records = [json.dumps({"doc_id": i, "filter": "none", "acc": s}) + "\n" for i, s in enumerate(scores)]
    ...         _ = (run / "samples_arc_easy_2024-05-01T12-00-00.jsonl").write_text("".join(records))
    ...     runs = [pathlib.Path(folder) / "m1", pathlib.Path(folder) / "m2"]
    ...     matrix = read_lm_eval(runs, task="arc_easy", metric="acc")
    >>> matrix.models, matrix.item_ids, matrix.scores.tolist()
    (('m1', 'm2'), ('arc_easy:0', 'arc_easy:1', 'arc_easy:2'), [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    """
    _check_options(align_on, metric)
    folders = [Path(folder) for folder in folders]
    names = list(names) if names is not None else [folder.name for folder in folders]
    if len(names) != len(folders):
        raise InputError(f"{len(names)} model names for {len(folders)} folders")
    if len(set(names)) != len(names):
        duplicate = next(name for name, count in Counter(names).items() if count > 1)
        raise AlignmentError(f"two folders are named {duplicate!r}; pass distinct model names")
    rows: dict[str, list] = {"item": [], "model": [], "score": [], "cluster": [], "line": []}
    grouped, seen = False, Seen()
    for folder, model in zip(folders, names, strict=True):
        if not folder.is_dir():
            raise AlignmentError(f"{folder}: not a folder")
        files = lm_eval_files(folder, task, run)
        grouped |= len(files) > 1 or files[0][0] != task
        digests = []
        for subtask, path in files:
            records, digest = _records(path, metric)
            digests.append(digest)
            filters = sorted({record.filter for record in records})
            if filter is None and len(filters) > 1:
                raise AlignmentError(f"{path}: task {subtask!r} has filters {filters}; choose one with --filter")
            wanted = filter if filter is not None else filters[0]
            if wanted not in filters:
                raise AlignmentError(f"{path}: no filter {wanted!r} (filters: {filters}); check --filter")
            seen.same_filter(subtask, wanted, path)
            lines: dict[int, int] = {}
            hashes: dict[str, int] = {}
            for record in records:
                if record.filter != wanted:
                    continue
                number, doc_id = record.number, record.doc_id
                if isinstance(doc_id, bool) or not isinstance(doc_id, int):
                    raise InputError(
                        f"{at(path, number)}: doc_id is {describe_value(doc_id)}; lm-eval writes a whole number"
                    )
                if record.value is _MISSING:
                    raise AlignmentError(
                        f"{at(path, number)}: no per-item metric {metric!r} (metrics: {record.metrics}); check --metric"
                    )
                if doc_id in lines:
                    raise AlignmentError(
                        f"{path}: doc_id {doc_id} appears twice for filter {wanted!r} (lines {lines[doc_id]} and "
                        f"{number})"
                    )
                lines[doc_id] = number
                if align_on == "hash":
                    key = _hash_key(record, path, hashes)
                else:
                    seen.same_item(subtask, doc_id, record.doc_hash, model, path, number)
                    key = doc_id
                rows["item"].append(f"{subtask}:{key}")
                rows["model"].append(model)
                rows["score"].append(_metric_value(record.value, path, number, metric))
                rows["cluster"].append(subtask)
                rows["line"].append(at(path, number))
            seen.hashed(path, any(record.doc_hash is not None for record in records if record.filter == wanted))
        seen.another_run(folder, files, tuple(digests))
    long = pd.DataFrame(rows)
    used = sorted({chosen for chosen, _ in seen.filters.values()})
    notes = [
        f"lm-eval task {task!r}, metric {metric!r}, filter{'s' if len(used) > 1 else ''} {', '.join(map(repr, used))}"
        + ("" if filter else " (the only one in the samples files)")
        + (
            "; items keyed by (task, doc_hash): documents paired by their content, whatever their doc_id"
            if align_on == "hash"
            else "; items keyed by (task, doc_id)"
        ),
        *seen.notes(),
        *[note for note in [seen.runs_note(run)] if note],
    ]
    if grouped:
        notes.append("group task: subtasks are the item clusters")
    return _from_rows(long, grouped, on_missing, score_kind, missing_cluster, f"lm-eval {task}", notes)


def _check_options(align_on: str, metric: str) -> None:
    if align_on not in ("id", "hash"):
        raise ArgumentError(f"--align-on {align_on!r} (align_on): choose id or hash")
    if metric in _SAMPLE_FIELDS:
        raise ArgumentError(
            f"--metric {metric!r} is a field every lm-eval sample has, not a metric: name one of the task's metrics "
            "(each sample's 'metrics' lists them)"
        )


def _hash_key(record: _Line, path: Path, hashes: dict[str, int]) -> str:
    """The line's doc_hash, the item's key when aligning on content; a line without one, or a repeated one, refused."""
    if record.doc_hash is None:
        raise AlignmentError(
            f"{at(path, record.number)}: no doc_hash, which --align-on hash pairs the items by (lm-eval writes it "
            "from version 0.4.3 on): align on the doc_id with --align-on id"
        )
    earlier = hashes.setdefault(record.doc_hash, record.number)
    if earlier != record.number:
        raise AlignmentError(
            f"{path}, lines {earlier} and {record.number}: one doc_hash ({short(record.doc_hash)}) for two documents "
            "with the same content, which a hash cannot tell apart: align on the doc_id with --align-on id"
        )
    return record.doc_hash


def _from_rows(
    long: pd.DataFrame,
    grouped: bool,
    on_missing: str,
    score_kind: str,
    missing_cluster: str,
    source: str,
    notes: list[str],
) -> ScoreMatrix:
    """A long frame of (item, model, score, cluster, line) rows from a harness, through the common checks."""
    if long.empty:
        raise AlignmentError(f"{source}: no per-item results found")
    lines = long.pop("line").to_numpy(dtype=object)
    if not grouped:
        long = long.drop(columns="cluster")
    return from_long(
        long,
        item_column="item",
        model_column="model",
        score_column="score",
        cluster_column="cluster" if grouped else None,
        on_missing=on_missing,
        score_kind=score_kind,
        missing_cluster=missing_cluster,
        source=source,
        lines=lines,
        notes=notes,
    )
