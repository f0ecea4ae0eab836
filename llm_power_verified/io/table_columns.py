"""The columns of a score table checked and read into codes, for the readers of one score and of several per cell.

Long tables (one row per (item, model), or per (item, model, generation)): :func:`check_long_columns` and
:func:`long_codes` turn the item, model and cluster columns into codes and the score column into numbers.  Wide
tables (one row per item): :func:`wide_columns` checks the header and reads the item ids, :func:`duplicate_items`
refuses an id on two rows, :func:`split_headers` reads a (model, repeat) from each header under a
``--repeat-pattern``.  Used by :mod:`.tables` and :mod:`.repeated_tables`; line numbers count the header as
line 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.cells import exact_text, is_missing_label, item_text, label_codes, number_matrix, row_place
from llm_power_verified.io.errors import AlignmentError, InputError
from llm_power_verified.io.table_alignment import same_name_repeat
from llm_power_verified.io.text import first_repeat
from llm_power_verified.results import Result

__all__ = [
    "DEFAULT_ITEM_COLUMN",
    "LongCodes",
    "check_long_columns",
    "duplicate_items",
    "header_splits",
    "long_codes",
    "required_codes",
    "split_headers",
    "wide_columns",
]

DEFAULT_ITEM_COLUMN = "item_id"


@docfill("source_name", "lines")
def required_codes(
    values: pd.Series,
    source: str,
    lines: np.ndarray,
    column: str,
    what: str,
    empty: str,
    text: Callable[[object], str] = item_text,
    missing: Callable[[object], bool] | None = None,
) -> tuple[np.ndarray, list[str]]:
    """The codes and names of a column every row must fill.

    Parameters
    ----------
    values : pandas.Series
        The column.
    %(source_name)s
    %(lines)s
    column : str
        The column's name, for messages.
    what : str
        What a value is, for messages ("an item id").
    empty : str
        What the refusal of a missing value says.
    text : callable, default item_text
        Turns a value into its text.
    missing : callable, optional
        Says which further values are missing (``is_missing_label``: NA, null, ...); empty and NaN always are.

    Returns
    -------
    codes : numpy.ndarray
        int64 per row: the index of its text.
    names : list of str
        The distinct texts.

    Raises
    ------
    InputError
        A missing value (``empty``, naming the line) or what :func:`~llm_power_verified.io.cells.label_codes`
        refuses.
    """
    codes, names = label_codes(values, source, lines, column, what, text=text, missing=missing)
    if (codes < 0).any():
        raise InputError(f"{source}: {row_place(lines, int(np.argmax(codes < 0)))}, column {column!r}: {empty}")
    return codes, names


@docfill("source_name")
def check_long_columns(frame: pd.DataFrame, flags: dict[str, str], source: str) -> None:
    """Refuse a long table that lacks one of its columns (naming the flag that names it) or has no row.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    flags : dict of str to str
        Each column the table needs, with the option that names it (``{"model": "--model-column"}``).
    %(source_name)s

    Raises
    ------
    InputError
        A missing column.
    AlignmentError
        A table without rows.
    """
    for name, flag in flags.items():
        if name not in frame.columns:
            raise InputError(f"{source}: no column {name!r} (columns: {', '.join(frame.columns)}); check {flag}")
    if frame.empty:
        raise AlignmentError(f"{source}: no per-item results found")


@dataclass(frozen=True, repr=False)
class LongCodes(Result):
    """A long table's rows as codes: per row its item, model and score, the names, and the cluster label codes.

    Attributes
    ----------
    rows, cols : numpy.ndarray
        int64 per row: the index of its item in ``item_names`` and of its model in ``model_names``.
    values : numpy.ndarray
        float64 per row: its score (finite or not, as written; never missing).
    item_names, model_names : list of str
        The distinct item ids and model names, in order of first appearance.
    lines : numpy.ndarray
        Per row, where it came from (line numbers or places).
    label_code : numpy.ndarray or None
        int64 per row: the index of its cluster label in ``label_names``, -1 without one; None without a cluster
        column.
    label_names : list of str or None
        The distinct cluster labels.
    """

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    item_names: list[str]
    model_names: list[str]
    lines: np.ndarray
    label_code: np.ndarray | None = None
    label_names: list[str] | None = None


@docfill("source_name", "lines", "exact_ids")
def long_codes(
    frame: pd.DataFrame,
    item_column: str,
    model_column: str,
    score_column: str,
    cluster_column: str | None,
    source: str,
    lines: np.ndarray | None,
    exact_ids: bool = False,
) -> LongCodes:
    """The rows of a long table (its columns checked by :func:`check_long_columns`) as codes with their scores.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    item_column, model_column, score_column : str
        Its item, model and score columns.
    cluster_column : str or None
        Its cluster column, if any.
    %(source_name)s
    %(lines)s
    %(exact_ids)s

    Returns
    -------
    LongCodes
        The rows as item, model and cluster codes, with the names and the scores.

    Raises
    ------
    InputError
        An empty item id or model name, two model names that are one once normalised, a cell that is not a number,
        a row without a score, naming the line.
    """
    lines = np.arange(2, len(frame) + 2) if lines is None else lines
    rows, item_names = required_codes(
        frame[item_column],
        source,
        lines,
        item_column,
        "an item id",
        "the item id is empty; every item needs an id",
        exact_text if exact_ids else item_text,
    )
    # Blanks around a model name dropped, as around a wide table's header names ('m1 ' is 'm1').
    cols, model_names = required_codes(
        frame[model_column],
        source,
        lines,
        model_column,
        "a model name",
        "the model name is empty",
        lambda value: str(value).strip(),
    )
    alike = same_name_repeat(model_names)
    if alike is not None:
        first, second, how = (int(np.argmax(cols == alike[0])), int(np.argmax(cols == alike[1])), alike[2])
        raise InputError(
            f"{source}: {row_place(lines, second)}, column {model_column!r}: model {model_names[alike[1]]!r} and "
            f"{model_names[alike[0]]!r} ({row_place(lines, first)}) are the same name once {how}; spell each model "
            "one way"
        )
    label_code = label_names = None
    if cluster_column:
        label_code, label_names = label_codes(
            frame[cluster_column], source, lines, cluster_column, "a cluster label", missing=is_missing_label
        )
    values = number_matrix(frame[[score_column]], source, lines, [score_column])[:, 0]
    missing_score = np.isnan(values)
    if missing_score.any():
        row = int(np.argmax(missing_score))
        raise InputError(
            f"{source}: {row_place(lines, row)}: model {model_names[cols[row]]!r} has no score for item "
            f"{item_names[rows[row]]!r}; in a long table leave the row out instead"
        )
    return LongCodes(rows, cols, values, item_names, model_names, lines, label_code, label_names)


def _item_ids(values: pd.Series, source: str, lines: np.ndarray, column: str) -> list[str]:
    codes, names = required_codes(
        values, source, lines, column, "an item id", "the item id is empty; every item needs an id"
    )
    return [names[code] for code in codes]


@docfill("source_name", "lines")
def duplicate_items(ids: Sequence[str], source: str, lines: np.ndarray) -> None:
    """Refuse an item id given on two rows of a wide table, naming both lines.

    Parameters
    ----------
    ids : sequence of str
        The item id of each row.
    %(source_name)s
    %(lines)s

    Raises
    ------
    InputError
        An id on two rows.
    """
    repeat = first_repeat(ids)
    if repeat is not None:
        raise InputError(
            f"{source}: item id {ids[repeat[0]]!r} appears twice ({row_place(lines, repeat[0])} and "
            f"{row_place(lines, repeat[1])}); "
            "item ids must be unique"
        )


@docfill("source_name", "lines")
def wide_columns(
    frame: pd.DataFrame,
    item_column: str | None,
    cluster_column: str | None,
    models: Iterable[str] | None,
    source: str,
    lines: np.ndarray,
) -> tuple[list[str], str | None, list[str]]:
    """A wide table's header checked: its item ids (by row number without an item column), item and model columns.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    item_column : str or None
        The item-id column; the default ``"item_id"`` may be absent (then, and with None, rows are numbered).
    cluster_column : str or None
        The cluster column, if any.
    models : iterable of str, optional
        The model columns; default: every column but the item and cluster columns.
    %(source_name)s
    %(lines)s

    Returns
    -------
    items : list of str
        The item id of each row.
    item_column : str or None
        The item column read (None: rows numbered).
    model_columns : list of str
        The model columns.

    Raises
    ------
    InputError
        A missing item, cluster or model column, or an empty or non-text item id.
    AlignmentError
        Fewer than two model columns.
    """
    if cluster_column is not None and cluster_column not in frame.columns:
        raise InputError(
            f"{source}: no cluster column {cluster_column!r} (columns: {', '.join(frame.columns)}); check "
            "--cluster-column"
        )
    if item_column is not None and item_column in frame.columns:
        items = _item_ids(frame[item_column], source, lines, item_column)
    elif item_column is not None and item_column != DEFAULT_ITEM_COLUMN:
        raise InputError(
            f"{source}: no item column {item_column!r} (columns: {', '.join(frame.columns)}); check --item-column"
        )
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
    return items, item_column, model_columns


def header_splits(name: str, pattern: str) -> list[tuple[str, str]]:
    """The ways a header splits into (model, repeat) under a ``--repeat-pattern``, at most two.

    Parameters
    ----------
    name : str
        The column header.
    pattern : str
        A header spelling holding ``{model}`` and ``{repeat}`` once each, with text between them; every other
        character is literal.

    Returns
    -------
    list of (str, str)
        No split: the header does not match; one: its model and repeat; two: it splits more than one way (the
        separator also occurs inside a name), the first two.  The search takes time linear in the header's length.

    Raises
    ------
    ArgumentError
        A pattern without both fields once each, or with nothing between them.

    Examples
    --------
    >>> header_splits("gpt-4o_seed3", "{model}_seed{repeat}"), header_splits("a_seed_seed3", "{model}_seed{repeat}")
    ([('gpt-4o', '3')], [('a', '_seed3'), ('a_seed', '3')])
    """
    if any(pattern.count(field) != 1 for field in ("{model}", "{repeat}")):
        raise ArgumentError(
            f"--repeat-pattern {pattern!r} must hold {{model}} and {{repeat}} once each, e.g. '{{model}}@{{repeat}}' "
            "or '{model}_seed{repeat}'"
        )
    model_first = pattern.index("{model}") < pattern.index("{repeat}")
    prefix, rest = pattern.split("{model}" if model_first else "{repeat}")
    separator, suffix = rest.split("{repeat}" if model_first else "{model}")
    if not separator:
        raise ArgumentError(
            f"--repeat-pattern {pattern!r}: {{model}} and {{repeat}} need text between them (a separator such as @), "
            "or no header splits one way"
        )
    if len(name) < len(prefix) + len(separator) + len(suffix) + 2 or not name.startswith(prefix):
        return []
    if not name.endswith(suffix):
        return []
    middle, splits = name[len(prefix) : len(name) - len(suffix)], []
    # Each occurrence of the separator with a non-empty field either side is a split; two are enough to refuse.
    at = middle.find(separator, 1)
    while at != -1 and at + len(separator) < len(middle) and len(splits) < 2:
        first, second = middle[:at], middle[at + len(separator) :]
        splits.append((first, second) if model_first else (second, first))
        at = middle.find(separator, at + 1)
    return splits


@docfill("source_name")
def split_headers(columns: Sequence[str], pattern: str, source: str) -> tuple[list[str], list[str]]:
    """Each column's model and repeat under a ``--repeat-pattern`` (:func:`header_splits`).

    Parameters
    ----------
    columns : sequence of str
        The headers of the score columns.
    pattern : str
        The pattern.
    %(source_name)s

    Returns
    -------
    models, repeats : list of str
        Per column, its model name and repeat label (blanks around each dropped).

    Raises
    ------
    InputError
        A header that does not match the pattern, splits two ways, or names a missing repeat (NA), naming it.
    """
    models, repeats = [], []
    for name in columns:
        splits = header_splits(name, pattern)
        if not splits:
            raise InputError(
                f"{source}: column {name!r} does not match --repeat-pattern {pattern!r}; every column but the item "
                "and cluster columns holds one generation of one model (name those with --item-column and "
                "--cluster-column)"
            )
        if len(splits) > 1:
            (model, repeat), (other, other_repeat) = splits
            raise InputError(
                f"{source}: column {name!r} splits two ways under --repeat-pattern {pattern!r} (model {model!r}, "
                f"repeat {repeat!r}; or model {other!r}, repeat {other_repeat!r}); use a separator that no model "
                "name or repeat label contains"
            )
        if is_missing_label(splits[0][1]):
            raise InputError(
                f"{source}: column {name!r} has the repeat {splits[0][1]!r} under --repeat-pattern {pattern!r}, a "
                "missing-value text (empty, NA, NaN, null, None); name every repeat (an epoch, seed or run number)"
            )
        models.append(splits[0][0].strip())
        repeats.append(splits[0][1].strip())
    return models, repeats
