"""Aligning a long table's rows into one item-by-model grid, and the cluster labels of a table's items.

A long table holds one row per (item, model); :func:`score_grid` places each
row's score in the grid (refusing two results of one model for one item),
:func:`common_items` keeps or refuses the items some model lacks, and
:func:`item_clusters` takes one cluster label per item from its rows.
:func:`refuse_unlabelled_items` is the ``missing_cluster="error"`` rule that
wide and long tables share.  :func:`same_name_repeat` finds two names that
print alike (Unicode normalisation, format characters), for every table that
names models.  Line numbers count the header as line 1.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np
import pandas as pd

from llm_power_verified.io.cells import row_place
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value

__all__ = [
    "common_items",
    "item_clusters",
    "lacking_per_model",
    "refuse_unlabelled_items",
    "same_name_repeat",
    "score_grid",
]


def lacking_per_model(absent: np.ndarray, models: Sequence[str]) -> str:
    """How many items each model lacks, for the models that lack any.

    Parameters
    ----------
    absent : numpy.ndarray
        Boolean, items by models: True where the model has no score for the item.
    models : sequence of str
        The model names, one per column of ``absent``.

    Returns
    -------
    str
        For example ``'b' lacks 1, 'c' lacks 2``.
    """
    return ", ".join(f"{models[k]!r} lacks {int(absent[:, k].sum())}" for k in range(len(models)) if absent[:, k].any())


#: What a long table's "two results for item" refusal adds: the rows may be generations the reader was not told of.
_REPEAT_HINT = (
    "; if these rows are repeated generations (epochs, seeds, runs), name their column with --repeat-column NAME"
)


def score_grid(
    rows: np.ndarray,
    cols: np.ndarray,
    values: np.ndarray,
    item_names: Sequence[str],
    model_names: Sequence[str],
    source: str,
    lines: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The items-by-models grid of a long table's scores, and the table row each score came from.

    Parameters
    ----------
    rows, cols : numpy.ndarray
        Per table row, the code of its item and of its model.
    values : numpy.ndarray
        Per table row, its score.
    item_names, model_names : sequence of str
        The names the codes stand for.
    source : str
        What messages call the table.
    lines : numpy.ndarray
        Per table row, its line in the file.

    Returns
    -------
    position : numpy.ndarray
        Items by models: the table row of each score, -1 where the model has none for the item.
    scores : numpy.ndarray
        Items by models: the scores, NaN where the model has none for the item.

    Raises
    ------
    AlignmentError
        A model with two results for one item, naming both lines.
    """
    position = np.full((len(item_names), len(model_names)), -1, dtype=np.int64)
    flat = rows * len(model_names) + cols
    order = np.argsort(flat, kind="stable")
    repeated = np.flatnonzero(flat[order][1:] == flat[order][:-1])
    if repeated.size:
        first, second = sorted((int(order[repeated[0]]), int(order[repeated[0] + 1])))
        raise AlignmentError(
            f"{source}: model {model_names[cols[first]]!r} has two results for item {item_names[rows[first]]!r} "
            f"({row_place(lines, first)} and {row_place(lines, second)}); item ids must be unique per model"
            + ("" if source == "inspect logs" else _REPEAT_HINT)
        )
    position[rows, cols] = np.arange(rows.size)
    scores = np.full(position.shape, np.nan)
    scores[rows, cols] = values
    return position, scores


def common_items(
    position: np.ndarray, item_names: Sequence[str], model_names: Sequence[str], on_missing: str, source: str
) -> tuple[np.ndarray, str | None]:
    """The items every model has, with the note saying what was dropped (``on_missing="intersect"``).

    Parameters
    ----------
    position : numpy.ndarray
        Items by models, as :func:`score_grid` returns it: -1 where the model has no score for the item.
    item_names, model_names : sequence of str
        The names of the grid's rows and columns.
    on_missing : {"error", "intersect"}
        What to do with items some models lack.
    source : str
        What messages call the table.

    Returns
    -------
    keep : numpy.ndarray
        Boolean, one per item: whether every model has it.
    note : str or None
        What was dropped, or None when no item was.

    Raises
    ------
    AlignmentError
        No item every model has, or (``on_missing="error"``) an item some model lacks.
    """
    absent = position < 0
    keep = np.ones(len(item_names), dtype=bool)
    if not absent.any():
        return keep, None
    description = lacking_per_model(absent, model_names)
    keep = ~absent.any(axis=1)
    if not keep.any():
        raise AlignmentError(f"{source}: the models have no item in common ({description})")
    if on_missing == "error":
        item, model = (int(i) for i in np.argwhere(absent)[0])
        raise AlignmentError(
            f"{source}: items missing for some models ({description} of {len(item_names)}; e.g. "
            f"{model_names[model]!r} has no item {item_names[item]!r}); use --on-missing intersect "
            f"(on_missing='intersect') to keep the {int(keep.sum())} common items"
        )
    dropped = int((~keep).sum())
    return (
        keep,
        f"kept the {int(keep.sum())} items every model has; dropped {dropped} ({description}) (--on-missing intersect)",
    )


def item_clusters(
    raw: pd.Series,
    rows: np.ndarray,
    label_code: np.ndarray,
    label_names: Sequence[str],
    item_names: Sequence[str],
    source: str,
    lines: np.ndarray,
) -> tuple[list[str | None], np.ndarray]:
    """One cluster label per item of a long table, from the rows of that item.

    Parameters
    ----------
    raw : pandas.Series
        The cluster column as read, to show a conflicting cell.
    rows : numpy.ndarray
        Per table row, the code of its item.
    label_code : numpy.ndarray
        Per table row, the code of its cluster label, negative where it has none.
    label_names : sequence of str
        The labels the codes stand for.
    item_names : sequence of str
        The item names the item codes stand for.
    source : str
        What messages call the table.
    lines : numpy.ndarray
        Per table row, its line in the file.

    Returns
    -------
    labels : list of str or None
        Per item, its label (None: it has none).
    first_row : numpy.ndarray
        Per item, the table row it first appears in.

    Raises
    ------
    AlignmentError
        An item whose rows name two cluster labels (a missing label counts as one), naming the line.
    """
    # One label per item: compare every row with the item's first row (a missing label counts as a value).
    first_row = np.full(len(item_names), -1, dtype=np.int64)
    first_row[rows[::-1]] = np.arange(rows.size)[::-1]
    conflict = np.flatnonzero(label_code != label_code[first_row[rows]])
    if conflict.size:
        row = int(conflict[0])
        earlier = int(label_code[first_row[rows[row]]])
        shown = describe_value(label_names[earlier]) if earlier >= 0 else "no label"
        raise AlignmentError(
            f"{source}: {row_place(lines, row)}: item {item_names[rows[row]]!r} has cluster "
            f"{describe_value(raw.iloc[row])} here and {shown} in an earlier row; an item has one cluster"
        )
    return [label_names[code] if code >= 0 else None for code in label_code[first_row]], first_row


def refuse_unlabelled_items(
    clusters: list[str | None] | None,
    missing_cluster: str,
    names: Sequence[str],
    lines,
    column: str | None,
    source: str,
) -> None:
    """With ``missing_cluster="error"``, refuse the first item without a cluster label, naming its line.

    Parameters
    ----------
    clusters : list of str or None, or None
        Per item, its cluster label (None: it has none); None when the table has no cluster column.
    missing_cluster : str
        The ``missing_cluster`` argument; only "error" refuses.
    names : sequence of str
        The item names.
    lines : numpy.ndarray or sequence of str
        Per item, its line (or a text naming its place) in the file.
    column : str or None
        The cluster column.
    source : str
        What messages call the table.

    Raises
    ------
    InputError
        An item without a cluster label, with the flags that keep or drop such items.
    """
    if clusters is None or missing_cluster != "error" or all(label is not None for label in clusters):
        return
    row = next(row for row, label in enumerate(clusters) if label is None)
    lacking = sum(label is None for label in clusters)
    raise InputError(
        f"{source}: {row_place(lines, row)}, column {column!r}: item {names[row]!r} has no cluster label (empty, or a "
        f"missing-value text such as NA; {lacking} items lack one); pass --missing-cluster drop to leave those "
        "items out, or --missing-cluster own to make each its own cluster"
    )


def _name_key(name: str) -> str:
    """A name as :func:`same_name_repeat` compares it: NFC-normalised, without format characters (category Cf)."""
    return "".join(char for char in unicodedata.normalize("NFC", name) if unicodedata.category(char) != "Cf")


def same_name_repeat(names: Sequence[str]) -> tuple[int, int, str] | None:
    r"""Where two different names first become one once Unicode-normalised (NFC) with format characters dropped.

    ``café`` with a composed or a decomposed accent, or ``m0`` and ``m0`` + U+200B (zero width space), print alike but
    are different strings; case is kept (``GPT-4`` and ``gpt-4`` may be two models).

    Parameters
    ----------
    names : sequence of str
        Distinct names (an exact repeat is :func:`~llm_power_verified.io.text.first_repeat`'s).

    Returns
    -------
    tuple of (int, int, str) or None
        (first position, second position, what makes them one: "Unicode-normalised (NFC)" or "format characters
        (U+200B) are dropped"), or None.

    Examples
    --------
    >>> same_name_repeat(["caf\u00e9", "b", "cafe\u0301"]), same_name_repeat(["m0", "m0\u200b"])
    ((0, 2, 'Unicode-normalised (NFC)'), (0, 1, 'format characters (U+200B) are dropped'))
    """
    seen: dict[str, int] = {}
    for position, name in enumerate(names):
        # An ASCII name is its own key (NFC and the format characters are outside ASCII), but it is still compared:
        # "m0\u200b" before "m0" is the same repeat as after it.
        key = name if name.isascii() else _name_key(name)
        first = seen.setdefault(key, position)
        if first != position and names[first] != name:
            pair = (names[first], name)
            if unicodedata.normalize("NFC", pair[0]) == unicodedata.normalize("NFC", pair[1]):
                return first, position, "Unicode-normalised (NFC)"
            marks = sorted({f"U+{ord(char):04X}" for char in "".join(pair) if unicodedata.category(char) == "Cf"})
            return first, position, f"format characters ({', '.join(marks)}) are dropped"
    return None
