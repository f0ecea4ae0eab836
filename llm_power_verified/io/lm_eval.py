"""EleutherAI lm-evaluation-harness output folders written with ``--log_samples``.

One folder per model, ``samples_<task>_<timestamp>.jsonl`` per task.  Items are
keyed by (task, doc_id).  A group task (``group_subtasks`` in the results
file) reads every subtask and uses the subtask as the item's cluster.  A task
with several filters needs ``filter``; a metric must be named.

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

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.tables import from_long
from llm_power_verified.io.text import kept_value, read_text

__all__ = ["read_lm_eval"]

_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[0-9:.\-]+)\.jsonl$")


def _load_json(path: Path) -> object:
    return parse_json(read_text(path), str(path))


def _lm_eval_files(folder: Path, task: str) -> list[tuple[str, Path]]:
    """(task, samples file) for the task, or for each subtask of a group task."""
    by_task: dict[str, list[Path]] = {}
    for path in sorted(folder.glob("samples_*.jsonl")):
        match = _SAMPLES.match(path.name)
        if match:
            by_task.setdefault(match["task"], []).append(path)
    tasks = [task]
    if task not in by_task:
        subtasks: list = []
        for results in sorted(folder.glob("results_*.json")):
            document = _load_json(results)
            groups = document.get("group_subtasks", {}) if isinstance(document, dict) else {}
            if not isinstance(groups, dict):
                raise InputError(f"{results}: 'group_subtasks' is not an object")
            subtasks = groups.get(task, subtasks)
        if not isinstance(subtasks, list) or not all(isinstance(name, str) for name in subtasks):
            raise InputError(f"{folder}: group {task!r} lists its subtasks as {describe_value(subtasks)}, not a list of names")
        if not subtasks:
            available = ", ".join(sorted(by_task)) or "none"
            raise AlignmentError(f"{folder}: no samples file for task {task!r} (tasks with samples: {available}); check --task")
        tasks = list(subtasks)
    files = []
    for name in tasks:
        paths = by_task.get(name, [])
        if not paths:
            raise AlignmentError(f"{folder}: group {task!r} lists subtask {name!r} but it has no samples file")
        if len(paths) > 1:
            raise AlignmentError(
                f"{folder}: {len(paths)} samples files for task {name!r} ({', '.join(p.name for p in paths)}): "
                "re-runs append new files; keep the one to audit"
            )
        files.append((name, paths[0]))
    return files


@dataclass(frozen=True)
class _Line:
    """What is read of one samples line: its number, filter, doc_id and the metric (``missing`` when absent)."""

    number: int
    filter: str
    doc_id: Any
    value: Any
    metrics: str


_MISSING = object()


def _records(path: Path, metric: str) -> list[_Line]:
    """Every line, reduced to the fields read; any malformed line is an error naming it."""
    # Any line end (CR LF, LF, or CR alone); a raw CR cannot occur inside a JSON string.
    lines = re.split(r"\r\n|\r|\n", read_text(path))
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
            raise InputError(f"{error}{' (the last line is cut short: was the run interrupted?)' if cut else ''}") from None
        if not isinstance(record, dict):
            raise InputError(f"{path}, line {number}: a JSON {type(record).__name__} where a sample object is expected")
        value = record.get(metric, _MISSING)
        records.append(_Line(number, str(record.get("filter", "none")), kept_value(record.get("doc_id")),
                             value if value is _MISSING else kept_value(value),
                             "" if value is not _MISSING else describe_value(record.get("metrics"), 200)))
        lines[number - 1] = ""  # the line's text is no longer needed
    return records


def _metric_value(value: object, path: Path, number: int, metric: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    raise InputError(f"{path}, line {number}: metric {metric!r} is {describe_value(value)}; a per-item metric is a finite number")


@docfill("on_missing", "score_kind", "missing_cluster", returns="score_matrix")
def read_lm_eval(folders: Iterable[str | Path], *, task: str, metric: str, filter: str | None = None,
                 on_missing: str = "error", names: Iterable[str] | None = None, score_kind: str = "auto",
                 missing_cluster: str = "error") -> ScoreMatrix:
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

    Raises
    ------
    InputError
        Names that do not fit the folders or repeat, a path that is not a folder, no samples file for the task (or two:
        a re-run), a group whose subtasks lack files, several filters and none chosen or an unknown one, and per line
        (naming file and line) what the module notes refuse: not JSON, not an object, blank or cut short, a ``doc_id``
        that is not a whole number or repeats, a missing or non-numeric metric; then the matrix rules.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     for model, scores in (("m1", [1, 0, 1]), ("m2", [0, 0, 1])):
    ...         run = pathlib.Path(folder) / model
    ...         run.mkdir()
    ...         records = [json.dumps({"doc_id": i, "filter": "none", "acc": s}) + "\n" for i, s in enumerate(scores)]
    ...         _ = (run / "samples_arc_easy_2024-05-01T12-00-00.jsonl").write_text("".join(records))
    ...     matrix = read_lm_eval([pathlib.Path(folder) / "m1", pathlib.Path(folder) / "m2"], task="arc_easy", metric="acc")
    >>> matrix.models, matrix.item_ids, matrix.scores.tolist()
    (('m1', 'm2'), ('arc_easy:0', 'arc_easy:1', 'arc_easy:2'), [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    """
    folders = [Path(folder) for folder in folders]
    names = list(names) if names is not None else [folder.name for folder in folders]
    if len(names) != len(folders):
        raise InputError(f"{len(names)} model names for {len(folders)} folders")
    if len(set(names)) != len(names):
        duplicate = next(name for name, count in Counter(names).items() if count > 1)
        raise AlignmentError(f"two folders are named {duplicate!r}; pass distinct model names")
    rows: dict[str, list] = {"item": [], "model": [], "score": [], "cluster": [], "line": []}
    grouped = False
    for folder, model in zip(folders, names, strict=True):
        if not folder.is_dir():
            raise AlignmentError(f"{folder}: not a folder")
        files = _lm_eval_files(folder, task)
        grouped |= len(files) > 1 or files[0][0] != task
        for subtask, path in files:
            records = _records(path, metric)
            filters = sorted({record.filter for record in records})
            if filter is None and len(filters) > 1:
                raise AlignmentError(f"{path}: task {subtask!r} has filters {filters}; choose one with --filter")
            wanted = filter if filter is not None else filters[0]
            if wanted not in filters:
                raise AlignmentError(f"{path}: no filter {wanted!r} (filters: {filters}); check --filter")
            seen: dict[int, int] = {}
            for record in records:
                if record.filter != wanted:
                    continue
                number, doc_id = record.number, record.doc_id
                if isinstance(doc_id, bool) or not isinstance(doc_id, int):
                    raise InputError(f"{path}, line {number}: doc_id is {describe_value(doc_id)}; lm-eval writes a whole number")
                if record.value is _MISSING:
                    raise AlignmentError(f"{path}, line {number}: no per-item metric {metric!r} (metrics: {record.metrics}); check --metric")
                if doc_id in seen:
                    raise AlignmentError(f"{path}: doc_id {doc_id} appears twice for filter {wanted!r} (lines {seen[doc_id]} and {number})")
                seen[doc_id] = number
                rows["item"].append(f"{subtask}:{doc_id}")
                rows["model"].append(model)
                rows["score"].append(_metric_value(record.value, path, number, metric))
                rows["cluster"].append(subtask)
                rows["line"].append(f"{path}, line {number}")
    long = pd.DataFrame(rows)
    notes = [f"lm-eval task {task!r}, metric {metric!r}" + (f", filter {filter!r}" if filter else "") + "; items keyed by (task, doc_id)"]
    if grouped:
        notes.append("group task: subtasks are the item clusters")
    return _from_rows(long, grouped, on_missing, score_kind, missing_cluster, f"lm-eval {task}", notes)


def _from_rows(long: pd.DataFrame, grouped: bool, on_missing: str, score_kind: str, missing_cluster: str, source: str,
               notes: list[str]) -> ScoreMatrix:
    """A long frame of (item, model, score, cluster, line) rows from a harness, through the common checks."""
    if long.empty:
        raise AlignmentError(f"{source}: no per-item results found")
    lines = long.pop("line").to_numpy(dtype=object)
    if not grouped:
        long = long.drop(columns="cluster")
    return from_long(long, item_column="item", model_column="model", score_column="score",
                     cluster_column="cluster" if grouped else None, on_missing=on_missing, score_kind=score_kind,
                     missing_cluster=missing_cluster, source=source, lines=lines, notes=notes)
