"""Wide and long score tables: CSV/TSV (optionally gzipped), Parquet, JSON Lines, pandas DataFrames.

Wide: one row per item, one column per model, optional item-id and cluster
columns.  Long: one row per (item, model) with item, model and score columns
(and an optional cluster column).  A table that has both the model and the
score column is read as long, otherwise as wide.  The files are parsed in
:mod:`.table_files`; line numbers count the header as line 1.

What is a number
----------------
One rule for every number read from text (score cells of every table, plain
score files, the accuracies and ``n`` of an accuracy table):

* a number is written in ASCII: an optional sign, digits with an optional
  decimal point (``1.`` and ``.5`` included), an optional exponent
  (``1e-3``, ``2E+1``); spaces and tabs around it are ignored (``" 1"``);
* ``inf``/``infinity`` in any case, with a sign or not, reads as infinite,
  and an infinite score is then refused as not finite (so is ``1e400``);
* missing, in table cells only: empty, or one of ``NA``, ``NaN``, ``null``,
  ``None``, ``n/a`` in any case (:data:`MISSING_TEXT`); a plain score file
  has no missing values;
* not numbers, refused naming the line, cell and value: Python's underscore
  literals (``1_000``, ``0_1``), hexadecimal (``0x1``), digits outside ASCII
  (``١``, which ``float`` would accept), other blanks (a no-break space),
  ``TRUE``/``FALSE``, decimal commas, thousands separators and units;
* typed values keep their type: integers and floats in Parquet and JSON are
  numbers as they are (NaN, which only Parquet can hold, is missing), typed
  booleans (a Parquet bool column, JSON ``true``/``false``) are 1 and 0; a
  text value goes through the rule above.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.matrix import MISSING_TEXT, ScoreMatrix, build_matrix, is_missing_label, text_problem
from llm_power_verified.io.text import first_repeat

__all__ = ["DEFAULT_ITEM_COLUMN", "EXACT_FLOATS", "FINITE_NUMBER", "MISSING_TEXT", "check_columns", "from_long", "from_wide",
           "label_codes", "number_cells", "read_number"]

DEFAULT_ITEM_COLUMN = "item_id"
#: A finite number as text (module notes: what is a number).
FINITE_NUMBER = re.compile(r"[ \t]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t]*")
_INFINITE = re.compile(r"[ \t]*[+-]?inf(?:inity)?[ \t]*", re.IGNORECASE)
_NUMBER = re.compile(f"{FINITE_NUMBER.pattern}|{_INFINITE.pattern}", re.IGNORECASE)
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
    """The frame, after checking that its column names are distinct texts (no NUL, no lone surrogate)."""
    if not isinstance(frame, pd.DataFrame):
        hint = "; for an array use from_array(scores, models=...)" if isinstance(frame, np.ndarray) else ""
        raise InputError(f"{source}: expected a pandas DataFrame, got {type(frame).__name__}{hint}")
    columns = [str(column) for column in frame.columns]
    for position, name in enumerate(columns):
        problem = text_problem(name)
        if problem is not None:
            raise InputError(f"{source}: column {position + 1} of the header ({describe_value(name)}) {problem}; "
                             "names, item ids and cluster labels must be text")
    repeat = first_repeat(columns)
    if repeat is not None:
        raise InputError(f"{source}: column {columns[repeat[0]]!r} appears twice (columns {repeat[0] + 1} and {repeat[1] + 1}); "
                         "every model (and the item and cluster columns) must have one column")
    return frame


def read_number(text: str) -> float | None:
    """The number ``text`` spells under the module rule (infinite included), or None.

    >>> [read_number(text) for text in (" 1", "1.", ".5", "+1", "1e-3", "0_1", "0x1", "\u0661", "TRUE")]
    [1.0, 1.0, 0.5, 1.0, 0.001, None, None, None, None]
    """
    return float(text) if _NUMBER.fullmatch(text) else None


def number_cells(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(numbers, not-a-number mask) of one column under the module rule; a missing cell is NaN and not flagged."""
    if pd.api.types.is_bool_dtype(values.dtype):
        return values.to_numpy(dtype=np.float64, na_value=np.nan), np.zeros(len(values), dtype=bool)
    if pd.api.types.is_numeric_dtype(values.dtype):
        return values.to_numpy(dtype=np.float64, na_value=np.nan), np.zeros(len(values), dtype=bool)
    cells = values.to_numpy(dtype=object)
    result = np.full(cells.size, np.nan)
    bad = np.zeros(cells.size, dtype=bool)
    if pd.api.types.infer_dtype(cells, skipna=True) in ("string", "empty"):
        present = np.flatnonzero(~pd.isna(cells))
        texts = pd.Series(cells[present], dtype=object)
        number = texts.str.fullmatch(_NUMBER).to_numpy(dtype=bool)
        result[present[number]] = texts[number].to_numpy(dtype=object).astype(np.float64)
        missing = texts.str.strip().str.lower().isin(MISSING_TEXT).to_numpy(dtype=bool)
        bad[present[~number & ~missing]] = True
        return result, bad
    for index, value in enumerate(cells):
        if isinstance(value, str):
            number = read_number(value)
            if number is not None:
                result[index] = number
            elif not is_missing_label(value):
                bad[index] = True
        elif isinstance(value, (bool, np.bool_, int, np.integer, float, np.floating)):
            try:
                result[index] = float(value)
            except OverflowError:  # an integer beyond the float range
                result[index] = np.inf if value > 0 else -np.inf
        elif not is_missing_label(value):
            bad[index] = True
    return result, bad


def _numbers(raw: pd.DataFrame, source: str, lines: np.ndarray, columns: Sequence[str],
             text_hint: Callable[[str, object], str] | None = None) -> np.ndarray:
    """Every cell as a float under the module rule: missing cells become NaN, anything else not a number is an error.

    A column where most non-missing cells are text gets ``text_hint(column, example)`` as its message.
    """
    result = np.empty(raw.shape, dtype=np.float64)
    for k, column in enumerate(columns):
        values = raw.iloc[:, k]
        parsed, bad = number_cells(values)
        if bad.any():
            row = int(np.argmax(bad))
            example = values.iloc[row]
            if not isinstance(example, str):
                raise InputError(f"{source}: {_at(lines, row)}, column {column!r}: {_shown(example)} is {_kind(example)}, not a "
                                 "number; scores are numbers in [0, 1]")
            if text_hint is not None and bad.sum() > (len(values) - int((np.isnan(parsed) & ~bad).sum())) / 2:
                raise InputError(f"{source}: {text_hint(column, example)}")
            raise InputError(f"{source}: {_at(lines, row)}, column {column!r}: {describe_value(example)} is not a number; "
                             "scores are numbers in [0, 1] written like 0, 1 or 0.25 (an empty cell is a missing score)")
        result[:, k] = parsed
    return result


def _item_text(value: object) -> str:
    """An id or label as text: 12.0 read from a float column is "12"; surrounding blanks dropped."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    return str(value).strip()


_SCALARS = (str, int, float, bool, np.generic)


def _kind(value: object) -> str:
    """What a non-scalar cell is, in JSON's words: "a list", "an object", or its type."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return "a list"
    return "an object" if isinstance(value, dict) else f"a {type(value).__name__}"


def _shown(value: object) -> str:
    return describe_value(value.tolist() if isinstance(value, np.ndarray) else value)


def label_codes(values: pd.Series, source: str, lines: np.ndarray, column: str, what: str, *,
                text: Callable[[object], str] = _item_text, missing: Callable[[object], bool] | None = None) -> tuple[np.ndarray, list[str]]:
    """(code per row, distinct texts) of an id, name or label column; code -1 marks a missing value.

    ``text`` turns a value into its text once per distinct value, not per row; an empty text, NaN or
    None is missing, and so is a value ``missing`` says is.  A value that is not a scalar (a JSON list
    or object), or whose text holds a control character or a lone surrogate, is refused naming its line.
    """
    def refuse(code_row: int, value: object, problem: str) -> None:
        raise InputError(f"{source}: {_at(lines, code_row)}, column {column!r}: {_shown(value)} {problem}; "
                         "item ids, model names and cluster labels are text or numbers")

    try:
        raw_codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError:  # an unhashable value: a JSON list or object
        row, value = next(((row, value) for row, value in enumerate(values.tolist()) if not isinstance(value, _SCALARS + (type(None),))),
                          (0, values.iloc[0]))
        refuse(row, value, f"is {_kind(value)}, not {what}")
    names: list[str | None] = []
    for code, value in enumerate(uniques):
        if not isinstance(value, _SCALARS):
            refuse(int(np.argmax(raw_codes == code)), value, f"is {_kind(value)}, not {what}")
        name = text(value)
        if not name.strip() or (missing is not None and missing(value)):
            names.append(None)
            continue
        problem = text_problem(name)
        if problem is not None:
            refuse(int(np.argmax(raw_codes == code)), value, problem)
        names.append(name)
    # Distinct values may share a text (1 and "1"): codes are renumbered per text, through the small table of values.
    per_value, distinct = pd.factorize(np.asarray(names, dtype=object), use_na_sentinel=True)
    return np.append(per_value, -1).astype(np.int64)[raw_codes], [str(name) for name in distinct]


def _required_codes(values: pd.Series, source: str, lines: np.ndarray, column: str, what: str, empty: str,
                    text: Callable[[object], str] = _item_text) -> tuple[np.ndarray, list[str]]:
    codes, names = label_codes(values, source, lines, column, what, text=text)
    if (codes < 0).any():
        raise InputError(f"{source}: {_at(lines, int(np.argmax(codes < 0)))}, column {column!r}: {empty}")
    return codes, names


def _item_ids(values: pd.Series, source: str, lines: np.ndarray, column: str) -> list[str]:
    codes, names = _required_codes(values, source, lines, column, "an item id", "the item id is empty; every item needs an id")
    return [names[code] for code in codes]


def _duplicate_items(ids: Sequence[str], source: str, lines: np.ndarray) -> None:
    repeat = first_repeat(ids)
    if repeat is not None:
        raise InputError(f"{source}: item id {ids[repeat[0]]!r} appears twice ({_at(lines, repeat[0])} and {_at(lines, repeat[1])}); "
                         "item ids must be unique")


def _no_cluster_label(clusters: list[str | None] | None, missing_cluster: str, names: Sequence[str], lines, column: str | None,
                      source: str) -> None:
    """With ``missing_cluster="error"``, refuse the first item without a cluster label, naming its line."""
    if clusters is None or missing_cluster != "error" or all(label is not None for label in clusters):
        return
    row = next(row for row, label in enumerate(clusters) if label is None)
    lacking = sum(label is None for label in clusters)
    raise InputError(f"{source}: {_at(lines, row)}, column {column!r}: item {names[row]!r} has no cluster label (empty, or a "
                     f"missing-value text such as NA; {lacking} items lack one); pass --missing-cluster drop to leave those "
                     "items out, or --missing-cluster own to make each its own cluster")


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
    clusters = None
    if cluster_column is not None:
        codes, labels = label_codes(frame[cluster_column], source, lines, cluster_column, "a cluster label", missing=is_missing_label)
        clusters = [labels[code] if code >= 0 else None for code in codes]
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
    _no_cluster_label(clusters, missing_cluster, names, lines, cluster_column, source)

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
    rows, item_names = _required_codes(frame[item_column], source, lines, item_column, "an item id",
                                       "the item id is empty; every item needs an id")
    cols, model_names = _required_codes(frame[model_column], source, lines, model_column, "a model name", "the model name is empty", str)
    if cluster_column:
        label_code, label_names = label_codes(frame[cluster_column], source, lines, cluster_column, "a cluster label",
                                              missing=is_missing_label)
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
        # One label per item: compare every row with the item's first row (a missing label counts as a value).
        first_row = np.full(len(item_names), -1, dtype=np.int64)
        first_row[rows[::-1]] = np.arange(rows.size)[::-1]
        conflict = np.flatnonzero(label_code != label_code[first_row[rows]])
        if conflict.size:
            row = int(conflict[0])
            earlier = int(label_code[first_row[rows[row]]])
            shown = describe_value(label_names[earlier]) if earlier >= 0 else "no label"
            raise AlignmentError(f"{source}: {_at(lines, row)}: item {item_names[rows[row]]!r} has cluster {describe_value(raw.iloc[row])} "
                                 f"here and {shown} in an earlier row; an item has one cluster")
        labels = [label_names[code] if code >= 0 else None for code in label_code[first_row]]
        clusters = [label for label, kept in zip(labels, keep_items) if kept]
        _no_cluster_label(clusters, missing_cluster, [name for name, kept in zip(item_names, keep_items) if kept],
                          [_at(lines, row) for row, kept in zip(first_row, keep_items) if kept], cluster_column, source)
    kept_rows = position[keep_items]
    kept_names = [name for name, kept in zip(item_names, keep_items) if kept]

    def locate(item: int, model: int) -> str:
        return f"{_at(lines, kept_rows[item, model])} (model {model_names[model]!r}, item {kept_names[item]!r})"

    return build_matrix(scores[keep_items], model_names, kept_names, clusters=clusters, score_kind=score_kind,
                        score_range=score_range, missing_cluster=missing_cluster, source=source, notes=notes, locate=locate)
