"""A long table's rows as codes: one row per (item, model), or per (item, model, generation).

:func:`long_codes` checks the columns of a long table and turns its item, model and cluster columns into codes and
its score column into numbers, for :func:`~llm_power_verified.io.tables.from_long` and, with a repeat column,
:func:`~llm_power_verified.io.repeated_tables.from_long_repeated`.  Line numbers count the header as line 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from llm_power_verified.io.cells import is_missing_label, item_text, label_codes, number_matrix, row_place
from llm_power_verified.io.errors import AlignmentError, InputError
from llm_power_verified.io.table_alignment import same_name_repeat

__all__ = ["LongCodes", "check_long_columns", "long_codes", "required_codes"]


def required_codes(
    values: pd.Series,
    source: str,
    lines: np.ndarray,
    column: str,
    what: str,
    empty: str,
    text: Callable[[object], str] = item_text,
) -> tuple[np.ndarray, list[str]]:
    """The codes and names of a column every row must fill (a missing value refused with ``empty``, naming the line)."""
    codes, names = label_codes(values, source, lines, column, what, text=text)
    if (codes < 0).any():
        raise InputError(f"{source}: {row_place(lines, int(np.argmax(codes < 0)))}, column {column!r}: {empty}")
    return codes, names


def check_long_columns(frame: pd.DataFrame, flags: dict[str, str], source: str) -> None:
    """Refuse a long table that lacks one of its columns (naming the flag that names it) or has no row."""
    for name, flag in flags.items():
        if name not in frame.columns:
            raise InputError(f"{source}: no column {name!r} (columns: {', '.join(frame.columns)}); check {flag}")
    if frame.empty:
        raise AlignmentError(f"{source}: no per-item results found")


@dataclass(frozen=True)
class LongCodes:
    """A long table's rows as codes: per row its item, model and score, the names, and the cluster label codes."""

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    item_names: list[str]
    model_names: list[str]
    lines: np.ndarray
    label_code: np.ndarray | None = None
    label_names: list[str] | None = None


def long_codes(
    frame: pd.DataFrame,
    item_column: str,
    model_column: str,
    score_column: str,
    cluster_column: str | None,
    source: str,
    lines: np.ndarray | None,
) -> LongCodes:
    """The rows of a long table (columns checked) as item, model and cluster codes with their scores.

    Refuses an empty item id or model name, two model names that are one once normalised, a cell that is not a
    number and a row without a score, naming the line.
    """
    lines = np.arange(2, len(frame) + 2) if lines is None else lines
    rows, item_names = required_codes(
        frame[item_column], source, lines, item_column, "an item id", "the item id is empty; every item needs an id"
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
