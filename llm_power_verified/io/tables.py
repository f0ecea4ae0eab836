"""Wide and long score tables: CSV/TSV (optionally gzipped), Parquet, JSON Lines, pandas DataFrames.

Wide: one row per item, one column per model, optional item-id and cluster
columns.  Long: one row per (item, model) with item, model and score columns
(and an optional cluster column).  A table that has both the model and the
score column is read as long, otherwise as wide.

Text files are read with pandas (CSV) and the standard ``json`` module (JSON
Lines, one object per line, so that a bad line is reported by number and a
repeated key is caught); every cell is kept as text first so that the error
for a bad cell can quote it and give its line.  Line numbers count the header
as line 1.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.matrix import ScoreMatrix, build_matrix, is_missing_label
from llm_power_verified.io.text import first_repeat

__all__ = ["DEFAULT_ITEM_COLUMN", "EXACT_FLOATS", "MISSING_TEXT", "check_columns", "from_long", "from_wide"]

DEFAULT_ITEM_COLUMN = "item_id"
#: Cell texts read as a missing score (besides an empty cell).
MISSING_TEXT = frozenset({"", "na", "nan", "null", "none", "n/a"})
ON_MISSING = ("error", "intersect")
#: pandas 3 parses floats correctly rounded by default (and deprecates the option); pandas 2's default
#: "high" parser can be one ulp off, so it is asked for the round-trip parser.
EXACT_FLOATS = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def _at(lines, row) -> str:
    """Where a row came from: "line N" for a table, the harness's "file, line N" otherwise."""
    value = lines[row]
    return f"line {value}" if isinstance(value, (int, np.integer)) else str(value)


def _check_on_missing(on_missing: str) -> None:
    if on_missing not in ON_MISSING:
        raise ArgumentError(f"on_missing must be 'error' or 'intersect'; got {on_missing!r}")


def check_columns(frame: object, source: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        hint = "; for an array use from_array(scores, models=...)" if isinstance(frame, np.ndarray) else ""
        raise InputError(f"{source}: expected a pandas DataFrame, got {type(frame).__name__}{hint}")
    columns = [str(column) for column in frame.columns]
    repeat = first_repeat(columns)
    if repeat is not None:
        raise InputError(f"{source}: column {columns[repeat[0]]!r} appears twice (columns {repeat[0] + 1} and {repeat[1] + 1}); "
                         "every model (and the item and cluster columns) must have one column")
    return frame


def _numbers(raw: pd.DataFrame, source: str, lines: np.ndarray, columns: Sequence[str],
             text_hint: Callable[[str, object], str] | None = None) -> np.ndarray:
    """Parse every cell as a float: missing texts become NaN, anything else that is not a number is an error.

    Vectorised per column (``pd.to_numeric``); only the cells that do not parse are looked at one by one.
    A column where most non-missing cells are text gets ``text_hint(column, example)`` as its message.
    """
    result = np.empty(raw.shape, dtype=np.float64)
    for k, column in enumerate(columns):
        values = raw.iloc[:, k]
        if values.dtype == bool:
            result[:, k] = values.to_numpy(dtype=np.float64)
            continue
        if pd.api.types.is_numeric_dtype(values.dtype):
            result[:, k] = values.to_numpy(dtype=np.float64, na_value=np.nan)
            continue
        parsed = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        unparsed = np.flatnonzero(np.isnan(parsed))
        if unparsed.size:
            cells = values.iloc[unparsed].tolist()
            missing = np.fromiter((is_missing_label(v) or str(v).strip().lower() in MISSING_TEXT for v in cells), dtype=bool, count=len(cells))
            bad = unparsed[~missing]
            if bad.size:
                example = values.iloc[int(bad[0])]
                if text_hint is not None and bad.size > (len(values) - int(missing.sum())) / 2:
                    raise InputError(f"{source}: {text_hint(column, example)}")
                raise InputError(f"{source}: {_at(lines, int(bad[0]))}, column {column!r}: {describe_value(example)} is not a number; "
                                 "scores are numbers in [0, 1] (an empty cell is a missing score)")
        result[:, k] = parsed
    return result


def _item_text(value: object) -> str:
    """An item id as text: 12.0 read from a float column is "12"; surrounding blanks dropped."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


def _item_ids(values: pd.Series, source: str, lines: np.ndarray, column: str) -> list[str]:
    codes, names = _codes(values, source, lines, column, "the item id is empty; every item needs an id", _item_text)
    return [names[code] for code in codes]


def _codes(values: pd.Series, source: str, lines: np.ndarray, column: str, empty: str, text) -> tuple[np.ndarray, list[str]]:
    """(code per row, names): ``text`` applied once per distinct value, not per row; an empty value is an error."""
    raw_codes, uniques = pd.factorize(values, use_na_sentinel=True)
    names = [text(value) for value in uniques]
    blank = np.array([not name.strip() for name in names] + [True])  # the last entry stands for NaN (code -1)
    bad = blank[np.where(raw_codes < 0, len(names), raw_codes)]
    if bad.any():
        raise InputError(f"{source}: {_at(lines, int(np.argmax(bad)))}, column {column!r}: {empty}")
    codes, distinct = pd.factorize(np.asarray(names, dtype=object)[raw_codes])
    return codes.astype(np.int64), [str(name) for name in distinct]


def _duplicate_items(ids: Sequence[str], source: str, lines: np.ndarray) -> None:
    repeat = first_repeat(ids)
    if repeat is not None:
        raise InputError(f"{source}: item id {ids[repeat[0]]!r} appears twice ({_at(lines, repeat[0])} and {_at(lines, repeat[1])}); "
                         "item ids must be unique")


def from_wide(frame: pd.DataFrame, *, item_column: str | None = DEFAULT_ITEM_COLUMN, cluster_column: str | None = None,
              models: Iterable[str] | None = None, on_missing: str = "error", score_kind: str = "auto",
              score_range=(0.0, 1.0), missing_cluster: str = "error", source: str = "wide table",
              lines: np.ndarray | None = None) -> ScoreMatrix:
    """Score matrix from a wide table: one row per item, one column per model.

    ``item_column`` names the item-id column.  When the default ``"item_id"``
    is absent and every other column holds numbers, items are numbered by row
    (each row is one item for every model); a column of text then is an error
    that suggests ``--item-column``.  ``item_column=None`` numbers the rows.
    A missing score is an empty cell; ``on_missing`` decides what happens.
    """
    _check_on_missing(on_missing)
    frame = check_columns(frame, source)
    frame = frame.rename(columns=str)
    lines = np.arange(2, len(frame) + 2) if lines is None else np.asarray(lines)
    if cluster_column is not None and cluster_column not in frame.columns:
        raise InputError(f"{source}: no cluster column {cluster_column!r} (columns: {', '.join(frame.columns)}); check --cluster-column")
    notes = []
    if item_column is not None and item_column in frame.columns:
        items = _item_ids(frame[item_column], source, lines, item_column)
    elif item_column is not None and item_column != DEFAULT_ITEM_COLUMN:
        raise InputError(f"{source}: no item column {item_column!r} (columns: {', '.join(frame.columns)}); check --item-column")
    else:
        items = [str(i) for i in range(len(frame))]
        item_column = None
    exclude = {item_column, cluster_column}
    model_columns = [str(m) for m in models] if models is not None else [c for c in frame.columns if c not in exclude]
    for name in model_columns:
        if name not in frame.columns:
            raise InputError(f"{source}: no model column {name!r}")
    if len(model_columns) < 2:
        raise AlignmentError(f"{source}: {len(model_columns)} model column(s); a paired comparison needs at least two")
    def text_hint(name: str, example: object) -> str:
        hint = (f"if it names the items, pass --item-column {name}; " if item_column is None else "") + \
            f"if it holds cluster labels, pass --cluster-column {name}"
        return f"column {name!r} holds text (e.g. {describe_value(example)}), not scores; {hint}"

    if models is None:
        if item_column is None and len(frame):
            notes.append(f"no {DEFAULT_ITEM_COLUMN!r} column: items are numbered by row (each row is one item for every model)")
    _duplicate_items(items, source, lines)
    scores = _numbers(frame[model_columns], source, lines, model_columns, text_hint if models is None else None)
    empty = np.isnan(scores)
    items_array = np.asarray(items, dtype=object)
    clusters = frame[cluster_column].tolist() if cluster_column is not None else None
    if empty.any():
        blank = empty.all(axis=1)
        row, column = (int(i) for i in np.argwhere(empty)[0])
        if on_missing == "error":
            where = "is blank" if blank[row] else f"has no score for model {model_columns[column]!r}"
            raise AlignmentError(f"{source}: {_at(lines, row)} (item {items[row]!r}) {where}; "
                                 "use --on-missing intersect (on_missing='intersect') to keep the items every model has")
        keep = ~empty.any(axis=1)
        if not keep.any():
            raise AlignmentError(f"{source}: the models have no item in common")
        lacking = ", ".join(f"{model_columns[k]!r} lacks {int(empty[:, k].sum())}" for k in range(len(model_columns)) if empty[:, k].any())
        notes.append(f"kept the {int(keep.sum())} items every model has; dropped {int((~keep).sum())} ({lacking}) (--on-missing intersect)")
        scores, items_array, lines = scores[keep], items_array[keep], lines[keep]
        if clusters is not None:
            clusters = [label for label, kept in zip(clusters, keep) if kept]
    names = list(items_array)

    def locate(item: int, model: int) -> str:
        return f"{_at(lines, item)}, column {model_columns[model]!r} (item {names[item]!r})"

    return build_matrix(scores, model_columns, names, clusters=clusters, score_kind=score_kind, score_range=score_range,
                        missing_cluster=missing_cluster, source=source, notes=notes, locate=locate)


def from_long(frame: pd.DataFrame, *, item_column: str = DEFAULT_ITEM_COLUMN, model_column: str = "model",
              score_column: str = "score", cluster_column: str | None = None, on_missing: str = "error",
              score_kind: str = "auto", score_range=(0.0, 1.0), missing_cluster: str = "error",
              source: str = "long table", lines: np.ndarray | None = None, notes: Sequence[str] = ()) -> ScoreMatrix:
    """Score matrix from a long table: one row per (item, model)."""
    _check_on_missing(on_missing)
    frame = check_columns(frame, source).rename(columns=str)
    flags = {item_column: "--item-column", model_column: "--model-column", score_column: "--score-column"}
    if cluster_column:
        flags[cluster_column] = "--cluster-column"
    for name, flag in flags.items():
        if name not in frame.columns:
            raise InputError(f"{source}: no column {name!r} (columns: {', '.join(frame.columns)}); check {flag}")
    if frame.empty:
        raise AlignmentError(f"{source}: no per-item results found")
    lines = np.arange(2, len(frame) + 2) if lines is None else lines
    rows, item_names = _codes(frame[item_column], source, lines, item_column, "the item id is empty; every item needs an id", _item_text)
    cols, model_names = _codes(frame[model_column], source, lines, model_column, "the model name is empty", str)
    values = _numbers(frame[[score_column]], source, lines, [score_column])[:, 0]
    missing_score = np.isnan(values)
    if missing_score.any():
        row = int(np.argmax(missing_score))
        raise InputError(f"{source}: {_at(lines, row)}: model {model_names[cols[row]]!r} has no score for item "
                         f"{item_names[rows[row]]!r}; in a long table leave the row out instead")
    position = np.full((len(item_names), len(model_names)), -1, dtype=np.int64)
    flat = rows * len(model_names) + cols
    order = np.argsort(flat, kind="stable")
    repeated = np.flatnonzero(flat[order][1:] == flat[order][:-1])
    if repeated.size:
        first, second = sorted((int(order[repeated[0]]), int(order[repeated[0] + 1])))
        raise AlignmentError(f"{source}: model {model_names[cols[first]]!r} has two results for item {item_names[rows[first]]!r} "
                             f"({_at(lines, first)} and {_at(lines, second)}); item ids must be unique per model")
    position[rows, cols] = np.arange(rows.size)
    scores = np.full(position.shape, np.nan)
    scores[rows, cols] = values
    notes = list(notes)
    absent = position < 0
    keep_items = np.ones(len(item_names), dtype=bool)
    if absent.any():
        description = ", ".join(f"{model_names[k]!r} lacks {int(absent[:, k].sum())}" for k in range(len(model_names)) if absent[:, k].any())
        keep_items = ~absent.any(axis=1)
        if not keep_items.any():
            raise AlignmentError(f"{source}: the models have no item in common ({description})")
        if on_missing == "error":
            item, model = (int(i) for i in np.argwhere(absent)[0])
            raise AlignmentError(f"{source}: items missing for some models ({description} of {len(item_names)}; e.g. "
                                 f"{model_names[model]!r} has no item {item_names[item]!r}); use --on-missing intersect "
                                 f"(on_missing='intersect') to keep the {int(keep_items.sum())} common items")
        notes.append(f"kept the {int(keep_items.sum())} items every model has; dropped {int((~keep_items).sum())} ({description}) (--on-missing intersect)")
    clusters = None
    if cluster_column:
        raw = frame[cluster_column]
        missing = raw.isna().to_numpy() | (raw.astype(str).str.strip() == "").to_numpy()
        text = raw.astype(str).str.strip().where(~missing, None)
        # One label per item: compare every row with the item's first row (a missing label counts as a value).
        first_row = np.full(len(item_names), -1, dtype=np.int64)
        first_row[rows[::-1]] = np.arange(rows.size)[::-1]
        comparable = text.fillna("\x00missing").to_numpy(dtype=object)
        conflict = np.flatnonzero(comparable != comparable[first_row[rows]])
        if conflict.size:
            row = int(conflict[0])
            earlier = int(first_row[rows[row]])
            raise AlignmentError(f"{source}: {_at(lines, row)}: item {item_names[rows[row]]!r} has cluster {describe_value(raw.iloc[row])} "
                                 f"here and {describe_value(text.iloc[earlier])} in an earlier row; an item has one cluster")
        labels = text.to_numpy(dtype=object)[first_row].tolist()
        clusters = [label for label, kept in zip(labels, keep_items) if kept]
    kept_rows = position[keep_items]
    kept_names = [name for name, kept in zip(item_names, keep_items) if kept]

    def locate(item: int, model: int) -> str:
        return f"{_at(lines, kept_rows[item, model])} (model {model_names[model]!r}, item {kept_names[item]!r})"

    return build_matrix(scores[keep_items], model_names, kept_names, clusters=clusters, score_kind=score_kind,
                        score_range=score_range, missing_cluster=missing_cluster, source=source, notes=notes, locate=locate)
