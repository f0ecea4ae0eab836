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
import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
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
            raise InputError(
                f"{folder}: group {task!r} lists its subtasks as {describe_value(subtasks)}, not a list of names"
            )
        if not subtasks:
            available = ", ".join(sorted(by_task)) or "none"
            raise AlignmentError(
                f"{folder}: no samples file for task {task!r} (tasks with samples: {available}); check --task"
            )
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
    """What is read of one samples line: number, filter, doc_id, metric (``missing`` if absent), doc_hash or None."""

    number: int
    filter: str
    doc_id: Any
    value: Any
    metrics: str
    doc_hash: str | None


_MISSING = object()


def _records(path: Path, metric: str) -> tuple[list[_Line], str]:
    """Every line, reduced to the fields read, and the file's SHA-256; any malformed line is an error naming it."""
    text = read_text(path)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
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
        if not isinstance(record, dict):
            raise InputError(f"{path}, line {number}: a JSON {type(record).__name__} where a sample object is expected")
        value, doc_hash = record.get(metric, _MISSING), record.get("doc_hash")
        if doc_hash is not None and not (isinstance(doc_hash, str) and 0 < len(doc_hash) <= 128):
            raise InputError(
                f"{path}, line {number}: doc_hash is {describe_value(doc_hash)}; lm-eval writes a hex digest"
            )
        records.append(
            _Line(
                number,
                str(record.get("filter", "none")),
                kept_value(record.get("doc_id")),
                value if value is _MISSING else kept_value(value),
                "" if value is not _MISSING else describe_value(record.get("metrics"), 200),
                doc_hash,
            )
        )
        lines[number - 1] = ""  # the line's text is no longer needed
    return records, digest


def _metric_value(value: object, path: Path, number: int, metric: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    raise InputError(
        f"{path}, line {number}: metric {metric!r} is {describe_value(value)}; a per-item metric is a finite number"
    )


def _short(digest: str) -> str:
    return digest[:12] + ("..." if len(digest) > 12 else "")


def _run_identity(folder: Path, files: list[tuple[str, Path]]) -> tuple[str, str] | None:
    """(model as printed, key of model, model_args and settings) from the run's results file, or None.

    None when there is no results file, no model in it, or a results file this reader does not parse (lm-eval writes
    NaN for a metric it could not compute): the file is evidence of which run this is, never a source of scores, so
    it cannot stop a read.  The settings include the tasks' configurations and versions, so that a prompt variant of
    the same model is a run of its own.
    """
    stamp = _SAMPLES.match(files[0][1].name)["stamp"]
    results = folder / f"results_{stamp}.json"
    try:
        document = _load_json(results) if results.is_file() else None
    except InputError:
        return None
    if not isinstance(document, dict):
        return None
    config = document.get("config") if isinstance(document.get("config"), dict) else {}
    model, arguments = config.get("model"), config.get("model_args")
    if model is None and document.get("model_name") is None:
        return None
    shots = document.get("n-shot") if isinstance(document.get("n-shot"), dict) else {}
    settings = {
        "model": model,
        "model_args": arguments,
        "model_name": document.get("model_name"),
        "n-shot": {name: shots.get(name) for name, _ in files},
        **{key: config.get(key) for key in ("gen_kwargs", "random_seed", "numpy_seed", "torch_seed", "fewshot_seed")},
        **{key: document.get(key) for key in ("system_instruction", "chat_template", "fewshot_as_multiturn")},
        **{
            part: {name: (document.get(part) or {}).get(name) for name, _ in files}
            for part in ("configs", "versions")
            if isinstance(document.get(part), dict)
        },
    }
    shown = f"{model}" + (f" ({describe_value(arguments, 120)})" if arguments not in (None, "", {}) else "")
    return (shown if model is not None else str(document.get("model_name"))), json.dumps(
        settings, sort_keys=True, default=str
    )


@dataclass
class _Seen:
    """What the folders read so far hold: each next one must be another model's run, same items, same filter."""

    items: dict = field(default_factory=dict)  # (subtask, doc_id) -> (doc_hash, model, file name, line)
    filters: dict = field(default_factory=dict)  # subtask -> (filter, file)
    runs: dict = field(default_factory=dict)  # run key -> folder
    copies: dict = field(default_factory=dict)  # digests of the samples files -> folder
    unhashed: list = field(default_factory=list)  # files without doc_hash
    files: int = 0
    unnamed: list = field(default_factory=list)  # folders whose results file names no model

    def same_filter(self, subtask: str, chosen: str, path: Path) -> None:
        first = self.filters.setdefault(subtask, (chosen, path))
        if first[0] != chosen:
            raise AlignmentError(
                f"{path} holds task {subtask!r} under filter {chosen!r} but {first[1]} under filter "
                f"{first[0]!r}: the models were scored differently; re-run them under one filter, or "
                "choose one both files hold with --filter"
            )

    def same_item(self, subtask: str, doc_id: int, doc_hash: str | None, model: str, path: Path, number: int) -> None:
        first = self.items.setdefault((subtask, doc_id), (doc_hash, model, path.name, number))
        if first[0] is None:
            self.items[(subtask, doc_id)] = (doc_hash, model, path.name, number)
        elif doc_hash is not None and doc_hash != first[0]:
            raise AlignmentError(
                f"{path}, line {number}: task {subtask!r} doc_id {doc_id} has doc_hash {_short(doc_hash)} "
                f"but {first[1]}'s doc_id {doc_id} ({first[2]}, line {first[3]}) has {_short(first[0])}: "
                "the runs did not score the same items (another dataset version, order or subset); "
                "re-run the models on one dataset"
            )

    def hashed(self, path: Path, present: bool) -> None:
        self.files += 1
        if not present:
            self.unhashed.append(f"{path.parent.name}/{path.name}")

    def another_run(self, folder: Path, files: list[tuple[str, Path]], digests: tuple[str, ...]) -> None:
        identity = _run_identity(folder, files)
        if identity is None:
            self.unnamed.append(folder.name)
        elif identity[1] in self.runs:
            raise AlignmentError(
                f"{folder.name} and {self.runs[identity[1]]} are both runs of model {identity[0]} with the "
                "same settings (their results files say so); keep one of them"
            )
        else:
            self.runs[identity[1]] = folder.name
        if digests in self.copies:
            raise AlignmentError(
                f"{folder} and {self.copies[digests]} hold byte-identical samples files: both are the "
                "same run; keep one of them"
            )
        self.copies[digests] = folder

    def notes(self) -> list[str]:
        notes = []
        if self.unhashed:
            listed = ", ".join(self.unhashed[:3]) + (
                f" and {len(self.unhashed) - 3:,} more" if len(self.unhashed) > 3 else ""
            )
            which = (
                "no samples file"
                if len(self.unhashed) == self.files
                else f"{len(self.unhashed):,} of {self.files:,} samples files ({listed})"
            )
            notes.append(
                f"{which} carr{'ies' if which.startswith('no') else 'y no'} doc_hash (older lm-eval): "
                "those items are matched by doc_id alone, not checked to be the same documents"
            )
        if self.unnamed:
            notes.append(
                f"no results file naming the model beside the samples of {', '.join(self.unnamed)}: "
                "not checked to be runs of different models"
            )
        return notes


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
    folders = [Path(folder) for folder in folders]
    names = list(names) if names is not None else [folder.name for folder in folders]
    if len(names) != len(folders):
        raise InputError(f"{len(names)} model names for {len(folders)} folders")
    if len(set(names)) != len(names):
        duplicate = next(name for name, count in Counter(names).items() if count > 1)
        raise AlignmentError(f"two folders are named {duplicate!r}; pass distinct model names")
    rows: dict[str, list] = {"item": [], "model": [], "score": [], "cluster": [], "line": []}
    grouped, seen = False, _Seen()
    for folder, model in zip(folders, names, strict=True):
        if not folder.is_dir():
            raise AlignmentError(f"{folder}: not a folder")
        files = _lm_eval_files(folder, task)
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
            for record in records:
                if record.filter != wanted:
                    continue
                number, doc_id = record.number, record.doc_id
                if isinstance(doc_id, bool) or not isinstance(doc_id, int):
                    raise InputError(
                        f"{path}, line {number}: doc_id is {describe_value(doc_id)}; lm-eval writes a whole number"
                    )
                if record.value is _MISSING:
                    raise AlignmentError(
                        f"{path}, line {number}: no per-item metric {metric!r} (metrics: {record.metrics}); check "
                        "--metric"
                    )
                if doc_id in lines:
                    raise AlignmentError(
                        f"{path}: doc_id {doc_id} appears twice for filter {wanted!r} (lines {lines[doc_id]} and "
                        f"{number})"
                    )
                lines[doc_id] = number
                seen.same_item(subtask, doc_id, record.doc_hash, model, path, number)
                rows["item"].append(f"{subtask}:{doc_id}")
                rows["model"].append(model)
                rows["score"].append(_metric_value(record.value, path, number, metric))
                rows["cluster"].append(subtask)
                rows["line"].append(f"{path}, line {number}")
            seen.hashed(path, any(record.doc_hash is not None for record in records if record.filter == wanted))
        seen.another_run(folder, files, tuple(digests))
    long = pd.DataFrame(rows)
    used = sorted({chosen for chosen, _ in seen.filters.values()})
    notes = [
        f"lm-eval task {task!r}, metric {metric!r}, filter{'s' if len(used) > 1 else ''} {', '.join(map(repr, used))}"
        + ("" if filter else " (the only one in the samples files)")
        + "; items keyed by (task, doc_id)",
        *seen.notes(),
    ]
    if grouped:
        notes.append("group task: subtasks are the item clusters")
    return _from_rows(long, grouped, on_missing, score_kind, missing_cluster, f"lm-eval {task}", notes)


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
