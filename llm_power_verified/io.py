"""Read per-item results of K models into one aligned score matrix.

Sources
-------
* Wide tables (rows = items, one column per model, optional item-id and
  cluster columns) and long tables (item, model, score[, cluster]) from CSV,
  Parquet or JSON Lines, or a pandas DataFrame.
* EleutherAI lm-evaluation-harness output folders written with
  ``--log_samples``: one folder per model, ``samples_<task>_<timestamp>.jsonl``.
  Items are keyed by (task, doc_id).  A group task (``group_subtasks`` in the
  results file) reads every subtask and uses the subtask as the item's cluster.
  A task with several filters needs ``filter``; a metric must be named.
* UK AISI Inspect logs, ``.eval`` (a zip whose members are zstd-compressed,
  read here with the ``zstandard`` package) or ``.json``.  Items are keyed by
  sample id.  Repeated epochs: ``epochs="first"`` (default) keeps epoch 1 and
  says so in the notes; ``"mean"`` averages the epochs (scores become graded);
  ``"error"`` refuses files with repeats.

Every alignment problem is an :class:`AlignmentError` whose message names the
model and the item: missing items (``on_missing="error"``, the default, or
``"intersect"``, which keeps the common items and reports the counts),
duplicate item ids, NaN or out-of-range scores, a single model, no common
item, and a constant model (its correlation with any other is undefined).
"""

from __future__ import annotations

import json
import re
import struct
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import pandas as pd

__all__ = [
    "AlignmentError",
    "ScoreMatrix",
    "from_long",
    "from_wide",
    "read_inspect",
    "read_lm_eval",
    "read_table",
]


class AlignmentError(ValueError):
    """Per-item results that cannot be aligned into a valid score matrix."""


@dataclass(frozen=True)
class ScoreMatrix:
    """Aligned per-item scores: ``scores[i, k]`` is model k's score on item i.

    Attributes
    ----------
    scores : ndarray (items x models), float64
    models : tuple of str
    item_ids : tuple of str
    clusters : tuple of str or None
        A cluster label per item, when known.
    binary : bool
        Every score is 0 or 1.
    source : str
        Where the data came from.
    notes : tuple of str
        What the reader decided (items dropped, epochs used, ...).
    """

    scores: np.ndarray
    models: tuple[str, ...]
    item_ids: tuple[str, ...]
    clusters: tuple[str, ...] | None = None
    binary: bool = True
    source: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def n_items(self) -> int:
        return self.scores.shape[0]

    @property
    def n_models(self) -> int:
        return self.scores.shape[1]


def _check_scores(models: list[str], item_ids: list[str], scores: np.ndarray, score_range: tuple[float, float] | None) -> None:
    bad = np.isnan(scores)
    if bad.any():
        item, model = np.argwhere(bad)[0]
        raise AlignmentError(f"score of model {models[model]!r} on item {item_ids[item]!r} is missing or NaN")
    if score_range is not None:
        low, high = score_range
        bad = (scores < low) | (scores > high)
        if bad.any():
            item, model = np.argwhere(bad)[0]
            raise AlignmentError(
                f"score {scores[item, model]:g} of model {models[model]!r} on item {item_ids[item]!r} "
                f"is outside [{low:g}, {high:g}] (pass score_range=None for real-valued scores)"
            )


def _finish(long: pd.DataFrame, *, on_missing: str, score_range, source: str, notes: list[str]) -> ScoreMatrix:
    """Validate a long frame with columns item, model, score[, cluster] and pivot it."""
    if on_missing not in ("error", "intersect"):
        raise ValueError(f"on_missing must be 'error' or 'intersect'; got {on_missing!r}")
    if long.empty:
        raise AlignmentError(f"{source}: no per-item results found")
    long = long.astype({"item": str, "model": str})
    duplicated = long.duplicated(["model", "item"], keep=False)
    if duplicated.any():
        row = long[duplicated].iloc[0]
        count = int(((long["model"] == row["model"]) & (long["item"] == row["item"])).sum())
        raise AlignmentError(f"model {row['model']!r} has {count} results for item {row['item']!r}; item ids must be unique per model")
    models = list(dict.fromkeys(long["model"]))
    if len(models) < 2:
        raise AlignmentError(f"{source}: only one model ({models[0]!r}); a paired comparison needs at least two")
    items_per_model = {model: set(group["item"]) for model, group in long.groupby("model", sort=False)}
    common = set.intersection(*items_per_model.values())
    all_items = set.union(*items_per_model.values())
    if len(common) < len(all_items):
        missing = {model: len(all_items - items) for model, items in items_per_model.items() if len(items) < len(all_items)}
        description = ", ".join(f"{model!r} lacks {count}" for model, count in missing.items())
        if not common:
            raise AlignmentError(f"{source}: the models have no item in common ({description})")
        if on_missing == "error":
            model = next(iter(missing))
            example = sorted(all_items - items_per_model[model])[0]
            raise AlignmentError(
                f"{source}: items missing for some models ({description} of {len(all_items)}; e.g. {model!r} has no "
                f"item {example!r}); use on_missing='intersect' (--on-missing intersect) to keep the {len(common)} common items"
            )
        notes.append(f"kept the {len(common)} items every model has; dropped {len(all_items) - len(common)} ({description})")
        long = long[long["item"].isin(common)]
    order = list(dict.fromkeys(long["item"]))
    wide = long.pivot(index="item", columns="model", values="score").reindex(index=order, columns=models)
    scores = wide.to_numpy(dtype=np.float64)
    clusters = None
    if "cluster" in long.columns:
        labels = long.drop_duplicates("item").set_index("item")["cluster"].reindex(order)
        conflicting = long.groupby("item")["cluster"].nunique()
        if (conflicting > 1).any():
            item = conflicting[conflicting > 1].index[0]
            raise AlignmentError(f"item {item!r} has different cluster labels for different models")
        if labels.isna().any():
            raise AlignmentError(f"item {labels[labels.isna()].index[0]!r} has no cluster label")
        clusters = tuple(str(label) for label in labels)
    return _matrix(scores, models, order, clusters, score_range, source, notes)


def _matrix(scores, models, order, clusters, score_range, source, notes) -> ScoreMatrix:
    """Validate an aligned matrix (NaN, range, constant models) and wrap it."""
    _check_scores(models, order, scores, score_range)
    binary = bool(np.all((scores == 0) | (scores == 1)))
    spread = scores.max(axis=0) - scores.min(axis=0)
    constant = np.flatnonzero(spread == 0)
    if constant.size:
        model = models[constant[0]]
        raise AlignmentError(
            f"model {model!r} scores {scores[0, constant[0]]:g} on every item; its correlation with any other "
            "model is undefined, so no paired diagnostic can be computed"
        )
    return ScoreMatrix(scores, tuple(models), tuple(order), clusters, binary, source, tuple(notes))


def from_long(frame: pd.DataFrame, *, item_column: str = "item_id", model_column: str = "model", score_column: str = "score",
              cluster_column: str | None = None, on_missing: str = "error", score_range=(0.0, 1.0), source: str = "long table") -> ScoreMatrix:
    """Score matrix from a long table: one row per (item, model)."""
    for name in (item_column, model_column, score_column) + ((cluster_column,) if cluster_column else ()):
        if name not in frame.columns:
            raise AlignmentError(f"{source}: no column {name!r} (columns: {', '.join(map(str, frame.columns))})")
    long = pd.DataFrame({"item": frame[item_column], "model": frame[model_column], "score": pd.to_numeric(frame[score_column], errors="coerce")})
    if cluster_column:
        long["cluster"] = frame[cluster_column].astype(str)
    return _finish(long, on_missing=on_missing, score_range=score_range, source=source, notes=[])


def from_wide(frame: pd.DataFrame, *, item_column: str | None = "item_id", cluster_column: str | None = None,
              models: Iterable[str] | None = None, on_missing: str = "error", score_range=(0.0, 1.0), source: str = "wide table") -> ScoreMatrix:
    """Score matrix from a wide table: one row per item, one column per model.

    Without the item column, items are numbered by row.  Every column other
    than the item and cluster columns is a model unless ``models`` is given.
    A missing score is an empty cell (NaN); ``on_missing`` decides what happens.
    """
    if on_missing not in ("error", "intersect"):
        raise ValueError(f"on_missing must be 'error' or 'intersect'; got {on_missing!r}")
    if item_column is not None and item_column in frame.columns:
        items = frame[item_column].astype(str).to_numpy()
    elif item_column is not None and item_column != "item_id":
        raise AlignmentError(f"{source}: no item column {item_column!r}")
    else:
        items = np.array([str(i) for i in range(len(frame))])
    if cluster_column is not None and cluster_column not in frame.columns:
        raise AlignmentError(f"{source}: no cluster column {cluster_column!r}")
    exclude = {item_column, cluster_column}
    model_columns = list(models) if models is not None else [c for c in frame.columns if c not in exclude]
    if len(model_columns) < 2:
        raise AlignmentError(f"{source}: {len(model_columns)} model column(s); a paired comparison needs at least two")
    duplicated = pd.Index(items).duplicated()
    if duplicated.any():
        item = items[np.argmax(duplicated)]
        raise AlignmentError(f"{source}: item id {item!r} appears {int(np.sum(items == item))} times; item ids must be unique")
    raw = frame[model_columns]
    numeric = raw.apply(pd.to_numeric, errors="coerce")
    scores = numeric.to_numpy(dtype=np.float64)
    text = np.isnan(scores) & raw.notna().to_numpy()
    if text.any():
        row, column = np.argwhere(text)[0]
        raise AlignmentError(f"model {model_columns[column]!r}: score {raw.iat[row, column]!r} on item {items[row]!r} is not a number")
    notes = []
    empty = np.isnan(scores)
    if empty.any():
        row, column = np.argwhere(empty)[0]
        if on_missing == "error":
            raise AlignmentError(
                f"{source}: model {model_columns[column]!r} has no score for item {items[row]!r}; "
                "use on_missing='intersect' (--on-missing intersect) to keep items every model has"
            )
        keep = ~empty.any(axis=1)
        if not keep.any():
            raise AlignmentError(f"{source}: the models have no item in common")
        lacking = ", ".join(f"{model_columns[k]!r} lacks {int(empty[:, k].sum())}" for k in range(len(model_columns)) if empty[:, k].any())
        notes.append(f"kept the {int(keep.sum())} items every model has; dropped {int((~keep).sum())} ({lacking})")
        scores, items = scores[keep], items[keep]
        frame = frame[keep]
    clusters = tuple(frame[cluster_column].astype(str)) if cluster_column is not None else None
    return _matrix(scores, [str(m) for m in model_columns], list(items), clusters, score_range, source, notes)


def _load_frame(path: Path) -> pd.DataFrame:
    suffixes = "".join(path.suffixes).lower()
    if not path.exists():
        raise AlignmentError(f"{path}: no such file")
    if suffixes.endswith((".parquet", ".pq")):
        try:
            return pd.read_parquet(path)
        except ImportError as error:
            raise AlignmentError(f"{path}: reading Parquet needs pyarrow ({error}); pip install 'llm-power-verified[parquet]'") from None
    if suffixes.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
        return pd.read_json(path, lines=True, dtype=False)
    if suffixes.endswith((".csv", ".csv.gz", ".tsv")):
        return pd.read_csv(path, sep="\t" if suffixes.endswith(".tsv") else ",", dtype={"item_id": str})
    raise AlignmentError(f"{path}: unknown format (expected .csv, .tsv, .parquet or .jsonl)")


def read_table(path: str | Path, *, item_column: str = "item_id", cluster_column: str | None = None, on_missing: str = "error",
               score_range=(0.0, 1.0), model_column: str = "model", score_column: str = "score") -> ScoreMatrix:
    """Read a wide or long table from CSV, Parquet or JSON Lines.

    A table with both ``model_column`` and ``score_column`` is read as long,
    otherwise as wide.
    """
    path = Path(path)
    frame = _load_frame(path)
    if model_column in frame.columns and score_column in frame.columns:
        return from_long(frame, item_column=item_column, model_column=model_column, score_column=score_column,
                         cluster_column=cluster_column, on_missing=on_missing, score_range=score_range, source=str(path))
    return from_wide(frame, item_column=item_column, cluster_column=cluster_column, on_missing=on_missing,
                     score_range=score_range, source=str(path))


# ---------------------------------------------------------------------------- lm-evaluation-harness

_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[0-9:.\-]+)\.jsonl$")


def _lm_eval_files(folder: Path, task: str) -> list[tuple[str, Path]]:
    """(task, samples file) for the task, or for each subtask of a group task."""
    by_task: dict[str, list[Path]] = {}
    for path in sorted(folder.glob("samples_*.jsonl")):
        match = _SAMPLES.match(path.name)
        if match:
            by_task.setdefault(match["task"], []).append(path)
    tasks = [task]
    if task not in by_task:
        subtasks = []
        for results in sorted(folder.glob("results_*.json")):
            groups = json.loads(results.read_text()).get("group_subtasks", {})
            subtasks = groups.get(task, subtasks)
        if not subtasks:
            available = ", ".join(sorted(by_task)) or "none"
            raise AlignmentError(f"{folder}: no samples file for task {task!r} (tasks with samples: {available})")
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


def read_lm_eval(folders: Iterable[str | Path], *, task: str, metric: str, filter: str | None = None,
                 on_missing: str = "error", names: Iterable[str] | None = None) -> ScoreMatrix:
    """Read lm-evaluation-harness ``--log_samples`` folders, one per model.

    Parameters
    ----------
    task : str
        Task name, or a group name whose subtasks are read (the subtask becomes the cluster).
    metric : str
        Per-item metric, e.g. ``acc``, ``acc_norm``, ``exact_match``.
    filter : str, optional
        Filter name (``strict-match``, ...); required when the task has more than one.
    names : iterable of str, optional
        Model names; default: the folder names.
    """
    folders = [Path(folder) for folder in folders]
    names = list(names) if names is not None else [folder.name for folder in folders]
    if len(set(names)) != len(names):
        duplicate = next(name for name, count in Counter(names).items() if count > 1)
        raise AlignmentError(f"two folders are named {duplicate!r}; pass distinct model names")
    rows = []
    grouped = False
    for folder, model in zip(folders, names):
        if not folder.is_dir():
            raise AlignmentError(f"{folder}: not a folder")
        files = _lm_eval_files(folder, task)
        grouped |= len(files) > 1 or files[0][0] != task
        for subtask, path in files:
            lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            filters = sorted({line.get("filter", "none") for line in lines})
            if filter is None and len(filters) > 1:
                raise AlignmentError(f"{path.name}: task {subtask!r} has filters {filters}; choose one with --filter")
            wanted = filter if filter is not None else filters[0]
            if wanted not in filters:
                raise AlignmentError(f"{path.name}: no filter {wanted!r} (filters: {filters})")
            seen = set()
            for line in lines:
                if line.get("filter", "none") != wanted:
                    continue
                if metric not in line.get("metrics", []):
                    raise AlignmentError(f"{path.name}: no per-item metric {metric!r} (metrics: {line.get('metrics')})")
                key = (subtask, line["doc_id"])
                if key in seen:
                    raise AlignmentError(f"{path.name}: doc_id {line['doc_id']} appears twice for filter {wanted!r}")
                seen.add(key)
                rows.append({"item": f"{subtask}:{line['doc_id']}", "model": model, "score": float(line[metric]), "cluster": subtask})
    long = pd.DataFrame(rows)
    if not grouped and not long.empty:
        long = long.drop(columns="cluster")
    notes = [f"lm-eval task {task!r}, metric {metric!r}" + (f", filter {filter!r}" if filter else "") + "; items keyed by (task, doc_id)"]
    if grouped:
        notes.append("group task: subtasks are the item clusters")
    return _finish(long, on_missing=on_missing, score_range=(0.0, 1.0), source=f"lm-eval {task}", notes=notes)


# ---------------------------------------------------------------------------- Inspect

def _zip_member(archive: zipfile.ZipFile, path: Path, name: str) -> bytes:
    """A member's bytes; zstd members (method 93) are decompressed with zstandard."""
    info = archive.getinfo(name)
    if info.compress_type != 93:
        return archive.read(name)
    import zstandard

    with open(path, "rb") as stream:
        stream.seek(info.header_offset)
        header = stream.read(30)
        signature, *_, name_length, extra_length = struct.unpack("<IHHHHHIIIHH", header)
        if signature != 0x04034B50:
            raise AlignmentError(f"{path}: damaged zip member {name!r}")
        stream.seek(info.header_offset + 30 + name_length + extra_length)
        raw = stream.read(info.compress_size)
    return zstandard.ZstdDecompressor().decompress(raw, max_output_size=max(info.file_size, 1))


def _score_value(value: Any, path: Path, sample: Any) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    letters = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
    if isinstance(value, str) and value in letters:
        return letters[value]
    raise AlignmentError(f"{path.name}: sample {sample!r} has a score {value!r} that is not a number or C/I/P/N")


def _inspect_records(path: Path) -> tuple[str, list[dict]]:
    if path.suffix == ".json":
        log = json.loads(path.read_text())
        return log["eval"]["model"], log.get("samples") or []
    with zipfile.ZipFile(path) as archive:
        header = json.loads(_zip_member(archive, path, "header.json"))
        names = archive.namelist()
        if "summaries.json" in names:
            records = json.loads(_zip_member(archive, path, "summaries.json"))
        else:
            records = [json.loads(_zip_member(archive, path, name)) for name in names if name.startswith("samples/")]
    return header["eval"]["model"], records


def read_inspect(paths: Iterable[str | Path], *, scorer: str | None = None, epochs: str = "first", on_missing: str = "error") -> ScoreMatrix:
    """Read Inspect ``.eval`` or ``.json`` logs, one model per file (``eval.model``)."""
    if epochs not in ("first", "mean", "error"):
        raise ValueError(f"epochs must be 'first', 'mean' or 'error'; got {epochs!r}")
    rows, notes, seen_models = [], [], {}
    for path in map(Path, paths):
        if not path.exists():
            raise AlignmentError(f"{path}: no such file")
        try:
            model, records = _inspect_records(path)
        except (zipfile.BadZipFile, KeyError, json.JSONDecodeError) as error:
            raise AlignmentError(f"{path}: not a readable Inspect log ({error})") from None
        if model in seen_models:
            raise AlignmentError(f"{path.name} and {seen_models[model]} are both logs of model {model!r}")
        seen_models[model] = path.name
        scorers = sorted({name for record in records for name in (record.get("scores") or {})})
        if scorer is None and len(scorers) > 1:
            raise AlignmentError(f"{path.name}: several scorers {scorers}; choose one with --scorer")
        chosen = scorer or (scorers[0] if scorers else None)
        if chosen not in scorers:
            raise AlignmentError(f"{path.name}: no scorer {chosen!r} (scorers: {scorers})")
        epochs_present = sorted({int(record.get("epoch", 1)) for record in records})
        if len(epochs_present) > 1:
            if epochs == "error":
                raise AlignmentError(f"{path.name}: {len(epochs_present)} epochs per sample; choose --epochs first or mean")
            notes.append(f"{model}: {len(epochs_present)} epochs per sample; " + ("kept epoch 1" if epochs == "first" else "averaged the epochs (scores are graded)"))
        values: dict[str, list[float]] = {}
        for record in records:
            epoch = int(record.get("epoch", 1))
            if epochs == "first" and epoch != epochs_present[0]:
                continue
            score = (record.get("scores") or {}).get(chosen)
            if score is None:
                raise AlignmentError(f"{path.name}: sample {record.get('id')!r} has no {chosen!r} score")
            values.setdefault(str(record["id"]), []).append(_score_value(score.get("value") if isinstance(score, dict) else score, path, record.get("id")))
        for item, scores in values.items():
            if epochs == "first" and len(scores) > 1:
                raise AlignmentError(f"{path.name}: sample id {item!r} appears {len(scores)} times in one epoch")
            rows.append({"item": item, "model": model, "score": float(np.mean(scores))})
    return _finish(pd.DataFrame(rows), on_missing=on_missing, score_range=(0.0, 1.0), source="inspect logs", notes=notes)



