"""Wide and long score tables: CSV/TSV (optionally gzipped), Parquet, JSON Lines, pandas DataFrames.

Wide: one row per item, one column per model, optional item-id and cluster
columns.  Long: one row per (item, model) with item, model and score columns
(and an optional cluster column).  A table that has both the model and the
score column is read as long, otherwise as wide.  The files are parsed in
:mod:`.table_files`; line numbers count the header as line 1.  What a cell may hold
(the one number rule, ids, names and labels) is in :mod:`llm_power_verified.io.cells`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.cells import is_missing_label, label_codes, number_matrix, row_place, text_problem
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.matrix import ScoreMatrix, build_matrix
from llm_power_verified.io.table_alignment import (
    common_items,
    item_clusters,
    lacking_per_model,
    refuse_unlabelled_items,
    same_name_repeat,
    score_grid,
)
from llm_power_verified.io.table_columns import (
    DEFAULT_ITEM_COLUMN,
    check_long_columns,
    duplicate_items,
    long_codes,
    wide_columns,
)
from llm_power_verified.io.text import first_repeat

__all__ = ["DEFAULT_ITEM_COLUMN", "ON_MISSING", "check_columns", "check_on_missing", "from_long", "from_wide"]

ON_MISSING = ("error", "intersect")


def check_on_missing(on_missing: str) -> None:
    """Refuse an ``on_missing`` other than "error" or "intersect".

    Parameters
    ----------
    on_missing : str
        The value given.

    Raises
    ------
    ArgumentError
        Another value.
    """
    if on_missing not in ON_MISSING:
        raise ArgumentError(f"on_missing must be 'error' or 'intersect'; got {on_missing!r}")


def check_columns(frame: object, source: str) -> pd.DataFrame:
    """A frame, after checking that its column names are distinct texts.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    source : str
        What messages call it.

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself.

    Raises
    ------
    InputError
        Not a DataFrame (an array is pointed to ``from_array``), a column name holding a NUL character or a lone
        surrogate, or a repeated column name.

    Examples
    --------
    >>> import pandas as pd
    >>> check_columns(pd.DataFrame([[1, 0]], columns=["a", "a"]), "t.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: t.csv: column 'a' appears twice (columns 1 and 2); every model ...
    """
    if not isinstance(frame, pd.DataFrame):
        hint = "; for an array use from_array(scores, models=...)" if isinstance(frame, np.ndarray) else ""
        raise InputError(f"{source}: expected a pandas DataFrame, got {type(frame).__name__}{hint}")
    columns = [str(column) for column in frame.columns]
    for position, name in enumerate(columns):
        problem = text_problem(name)
        if problem is not None:
            raise InputError(
                f"{source}: column {position + 1} of the header ({describe_value(name)}) {problem}; "
                "names, item ids and cluster labels must be text"
            )
    repeat = first_repeat(columns)
    if repeat is not None:
        raise InputError(
            f"{source}: column {columns[repeat[0]]!r} appears twice (columns {repeat[0] + 1} and {repeat[1] + 1}); "
            "every model (and the item and cluster columns) must have one column"
        )
    alike = same_name_repeat(columns)
    if alike is not None:
        first, second, how = alike
        raise InputError(
            f"{source}: columns {first + 1} ({columns[first]!r}) and {second + 1} ({columns[second]!r}) are the same "
            f"name once {how}; every model (and the item and cluster columns) must have one column, spelled one way"
        )
    return frame


def _complete_rows(
    empty: np.ndarray,
    items: Sequence[str],
    model_columns: Sequence[str],
    on_missing: str,
    source: str,
    lines: np.ndarray,
) -> np.ndarray:
    """The rows of a wide table with a score for every model; a blank cell is refused with ``on_missing="error"``."""
    blank_columns = np.flatnonzero(empty.all(axis=0)) if len(empty) else np.array([], dtype=int)
    if len(blank_columns):
        # A column with no score at all is not a missing cell: --on-missing intersect would keep no item.
        name = model_columns[int(blank_columns[0])]
        raise AlignmentError(
            f"{source}: column {name!r} has no score in any of the {len(empty):,} rows; "
            "remove the column (or fill it) and run again"
        )
    row, column = (int(i) for i in np.argwhere(empty)[0])
    if on_missing == "error":
        where = "is blank" if empty[row].all() else f"has no score for model {model_columns[column]!r}"
        raise AlignmentError(
            f"{source}: {row_place(lines, row)} (item {items[row]!r}) {where}; "
            "use --on-missing intersect (on_missing='intersect') to keep the items every model has"
        )
    keep = ~empty.any(axis=1)
    if not keep.any():
        raise AlignmentError(f"{source}: the models have no item in common")
    return keep


@docfill(
    "cluster_column",
    "on_missing",
    "score_kind",
    "score_range",
    "missing_cluster",
    "source_name",
    "lines",
    returns="score_matrix",
)
def from_wide(
    frame: pd.DataFrame,
    *,
    item_column: str | None = DEFAULT_ITEM_COLUMN,
    cluster_column: str | None = None,
    models: Iterable[str] | None = None,
    on_missing: str = "error",
    score_kind: str = "auto",
    score_range=(0.0, 1.0),
    missing_cluster: str = "error",
    source: str = "wide table",
    lines: np.ndarray | None = None,
) -> ScoreMatrix:
    """Score matrix from a wide table: one row per item, one column per model.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    item_column : str or None, default "item_id"
        The item-id column.  When the default is absent and every other column holds numbers, items are numbered by
        row (each row is one item for every model); a column of text is then refused with a hint at
        ``--item-column`` or ``--cluster-column``.  None numbers the rows.
    %(cluster_column)s
    models : iterable of str, optional
        The model columns; default: every column but the item and cluster columns.
    %(on_missing)s
    %(score_kind)s
    %(score_range)s
    %(missing_cluster)s
    %(source_name)s
    %(lines)s

    Raises
    ------
    InputError
        A missing item, cluster or model column, fewer than two models, an empty or repeated item id, a cell that is
        not a number, a missing score (``on_missing="error"``), a missing cluster label (``missing_cluster="error"``),
        or what :func:`~llm_power_verified.io.matrix.build_matrix` refuses, naming the line and column.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"item_id": ["q1", "q2", "q3"], "topic": ["x", "x", "y"], "a": [1, 0, 1], "b": [0, 0, 1]})
    >>> matrix = from_wide(table, cluster_column="topic")
    >>> matrix.models, matrix.clusters, matrix.scores.tolist()
    (('a', 'b'), ('x', 'x', 'y'), [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    """
    check_on_missing(on_missing)
    frame = check_columns(frame, source)
    frame = frame.rename(columns=str)
    lines = np.arange(2, len(frame) + 2) if lines is None else np.asarray(lines)
    items, item_column, model_columns = wide_columns(frame, item_column, cluster_column, models, source, lines)
    notes = []

    def text_hint(name: str, example: object) -> str:
        """Why a text column is not scores, and the flags that would read it as ids or labels."""
        hint = (
            f"if it names the items, pass --item-column {name}; " if item_column is None else ""
        ) + f"if it holds cluster labels, pass --cluster-column {name}"
        return f"column {name!r} holds text (e.g. {describe_value(example)}), not scores; {hint}"

    if models is None and item_column is None and len(frame):
        notes.append(
            f"no {DEFAULT_ITEM_COLUMN!r} column: items are numbered by row (each row is one item for every model)"
        )
    duplicate_items(items, source, lines)
    scores = number_matrix(frame[model_columns], source, lines, model_columns, text_hint if models is None else None)
    empty = np.isnan(scores)
    items_array = np.asarray(items, dtype=object)
    clusters = None
    if cluster_column is not None:
        codes, labels = label_codes(
            frame[cluster_column], source, lines, cluster_column, "a cluster label", missing=is_missing_label
        )
        clusters = [labels[code] if code >= 0 else None for code in codes]
    if empty.any():
        keep = _complete_rows(empty, items, model_columns, on_missing, source, lines)
        notes.append(
            f"kept the {int(keep.sum())} items every model has; dropped {int((~keep).sum())} "
            f"({lacking_per_model(empty, model_columns)}) (--on-missing intersect)"
        )
        scores, items_array, lines = scores[keep], items_array[keep], lines[keep]
        if clusters is not None:
            clusters = [label for label, kept in zip(clusters, keep, strict=True) if kept]
    names = list(items_array)
    refuse_unlabelled_items(clusters, missing_cluster, names, lines, cluster_column, source)

    def locate(item: int, model: int) -> str:
        return f"{row_place(lines, item)}, column {model_columns[model]!r} (item {names[item]!r})"

    return build_matrix(
        scores,
        model_columns,
        names,
        clusters=clusters,
        score_kind=score_kind,
        score_range=score_range,
        missing_cluster=missing_cluster,
        source=source,
        notes=notes,
        locate=locate,
    )


@docfill(
    "item_column",
    "long_columns",
    "cluster_column",
    "on_missing",
    "score_kind",
    "score_range",
    "missing_cluster",
    "source_name",
    "lines",
    "exact_ids",
    returns="score_matrix",
)
def from_long(
    frame: pd.DataFrame,
    *,
    item_column: str = DEFAULT_ITEM_COLUMN,
    model_column: str = "model",
    score_column: str = "score",
    cluster_column: str | None = None,
    on_missing: str = "error",
    score_kind: str = "auto",
    score_range=(0.0, 1.0),
    missing_cluster: str = "error",
    source: str = "long table",
    lines: np.ndarray | None = None,
    notes: Sequence[str] = (),
    exact_ids: bool = False,
) -> ScoreMatrix:
    """Score matrix from a long table: one row per (item, model).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    %(item_column)s
    %(long_columns)s
    %(cluster_column)s
    %(on_missing)s
    %(score_kind)s
    %(score_range)s
    %(missing_cluster)s
    %(source_name)s
    %(lines)s
    notes : sequence of str, default ()
        Notes of the caller (a harness reader's), kept before the matrix's own.
    %(exact_ids)s

    Raises
    ------
    InputError
        A missing column, an empty table, an empty item id or model name, two model names that are one once
        Unicode-normalised or without format characters (blanks around a name are dropped, as in a wide header),
        a row without a score (leave the row out),
        two results of one model for one item, an item with two cluster labels, items some models lack
        (``on_missing="error"``), or what :func:`~llm_power_verified.io.matrix.build_matrix` refuses, naming the line.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"item_id": ["q1", "q1", "q2", "q2", "q3"], "model": ["a", "b", "a", "b", "a"],
    ...                       "score": [1, 0, 0.5, 1, 1]})
    >>> matrix = from_long(table, on_missing="intersect", score_kind="graded")
    >>> matrix.item_ids, matrix.notes
    (('q1', 'q2'), ("kept the 2 items every model has; dropped 1 ('b' lacks 1) (--on-missing intersect)",))
    """
    check_on_missing(on_missing)
    frame = check_columns(frame, source).rename(columns=str)
    check_long_columns(
        frame,
        {
            item_column: "--item-column",
            model_column: "--model-column",
            score_column: "--score-column",
            **({cluster_column: "--cluster-column"} if cluster_column else {}),
        },
        source,
    )
    codes = long_codes(frame, item_column, model_column, score_column, cluster_column, source, lines, exact_ids)
    rows, item_names, model_names, lines = codes.rows, codes.item_names, codes.model_names, codes.lines
    position, scores = score_grid(rows, codes.cols, codes.values, item_names, model_names, source, lines)
    keep_items, note = common_items(position, item_names, model_names, on_missing, source)
    notes = list(notes) if note is None else [*notes, note]
    kept_names = [name for name, kept in zip(item_names, keep_items, strict=True) if kept]
    clusters = None
    if cluster_column:
        labels, first_row = item_clusters(
            frame[cluster_column], rows, codes.label_code, codes.label_names, item_names, source, lines
        )
        clusters = [label for label, kept in zip(labels, keep_items, strict=True) if kept]
        kept_places = [row_place(lines, row) for row, kept in zip(first_row, keep_items, strict=True) if kept]
        refuse_unlabelled_items(clusters, missing_cluster, kept_names, kept_places, cluster_column, source)
    kept_rows = position[keep_items]

    def locate(item: int, model: int) -> str:
        return f"{row_place(lines, kept_rows[item, model])} (model {model_names[model]!r}, item {kept_names[item]!r})"

    return build_matrix(
        scores[keep_items],
        model_names,
        kept_names,
        clusters=clusters,
        score_kind=score_kind,
        score_range=score_range,
        missing_cluster=missing_cluster,
        source=source,
        notes=notes,
        locate=locate,
    )
