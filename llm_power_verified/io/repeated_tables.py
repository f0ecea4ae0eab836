"""Score tables with several generations per item: a long table with a repeat column, a wide one named by pattern.

Long (``repeat_column``, ``--repeat-column NAME``): one row per (item, model, repeat), the repeat a label (an epoch,
sample, seed or run: text or whole numbers).  Wide (``repeat_pattern``, ``--repeat-pattern PATTERN``): one row per
item, one column per (model, repeat), each header spelled by the pattern (``{model}@{repeat}``); every cell filled
(a blank one refused, or its item left out under ``on_missing="intersect"``: unequal counts go in a long table).

Both follow :mod:`llm_power_verified.io.generations`: a repeat once per (item, model), spelled one way ("1" and
"1.0" refused), never missing; a cell without generations is an item the model lacks (``on_missing``), a cell with
one is refused (no within-item variance), counts may differ (noted).  Each score is range-checked on its line; a few
fractional generations among 0/1 ones are damage under ``score_kind="auto"`` (as without repeats).  The matrix
holds the item means (graded), :class:`~llm_power_verified.io.generations.Generations` the counts and variances.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.cells import is_missing_label, label_codes, number_matrix, row_place
from llm_power_verified.io.errors import AlignmentError, InputError
from llm_power_verified.io.generations import Generations, cell_summaries, means_kind, refuse_respelled
from llm_power_verified.io.matrix import ScoreMatrix, build_matrix
from llm_power_verified.io.score_kind import resolve_score_kind, shown_score
from llm_power_verified.io.table_alignment import common_items, item_clusters, refuse_unlabelled_items, same_name_repeat
from llm_power_verified.io.table_columns import (
    DEFAULT_ITEM_COLUMN,
    check_long_columns,
    duplicate_items,
    long_codes,
    required_codes,
    split_headers,
    wide_columns,
)
from llm_power_verified.io.tables import check_columns, check_on_missing

__all__ = ["from_long_repeated", "from_wide_repeated"]

_SINGLE_HINT = "leave that item's rows out, or add its missing generations"


def _check_generations(values, score_range, source: str, place: Callable[[int], str]) -> None:
    """Refuse a generation whose score is not finite or lies outside ``score_range``, naming its place."""
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(f"{source}: {place(row)} has score {shown_score(values[row])}; scores must be finite numbers")
    if score_range is None:
        return
    low, high = score_range
    bad = (values < low) | (values > high)
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(
            f"{source}: {place(row)} has score {shown_score(values[row])}, outside [{low:g}, {high:g}] "
            f"({int(bad.sum()):,} of {values.size:,} generations outside it); scores are accuracies or partial "
            "credit in [0, 1]"
        )


def _repeated_matrix(
    rows: np.ndarray,
    cols: np.ndarray,
    repeats: np.ndarray,
    values: np.ndarray,
    item_names: Sequence[str],
    model_names: Sequence[str],
    place: Callable[[int], str],
    *,
    label: str,
    clusters: Callable[[np.ndarray, list[str]], list[str | None] | None],
    options: dict,
    single_hint: str,
) -> ScoreMatrix:
    """The matrix of item means with its :class:`Generations`, from one entry per generation.

    ``place(position)`` names where a generation came from (without the source); ``clusters(keep, kept_names)``
    gives the kept items' cluster labels (refusing what the cluster rules refuse) or None.
    """
    source, on_missing = options["source"], options["on_missing"]
    means_kind(options["score_kind"], source)
    _check_generations(values, options["score_range"], source, place)
    shape = (len(item_names), len(model_names))
    means, counts, within = cell_summaries(
        rows, cols, repeats, values, shape, describe=lambda position: f"{source}, {place(position)}", label=label
    )
    # The first generation of each cell names the cell in messages (-1: the model has no generation of the item).
    position = np.full(shape, -1, dtype=np.int64)
    position[rows[::-1], cols[::-1]] = np.arange(rows.size)[::-1]
    keep, note = common_items(position, item_names, model_names, on_missing, source)
    single = (counts == 1) & keep[:, None]
    if single.any():
        item, model = (int(i) for i in np.argwhere(single)[0])
        raise InputError(
            f"{source}: {place(int(position[item, model]))}: the only {label} of this item and model (1 of "
            f"{int(single.sum()):,} such cells); within-item variance needs >= 2 generations per (item, model); "
            f"{single_hint}"
        )
    kept_names = [name for name, kept in zip(item_names, keep, strict=True) if kept]
    counts, within, kept_rows = counts[keep], within[keep], position[keep]
    low, high = int(counts.min()), int(counts.max())
    used = np.flatnonzero(keep[rows])
    # The generations' kind by the rule of one score per cell (a few stray fractions among 0/1 are damage).
    binary = bool(np.isin(values[used], (0.0, 1.0)).all())
    if options["score_kind"] == "auto":
        per_model = (max(used.size // len(model_names), 1), "generations per model")
        resolve_score_kind(
            values[used, None],
            "auto",
            lambda row, _: place(int(used[row])),
            source,
            per_model=per_model,
            binary_flag=False,
        )
    generations = Generations(counts, within, binary=binary, label=label)
    notes = [*options.get("notes", ()), *([note] if note else [])]
    if low != high:
        notes.append(f"{low} to {high} generations per (item, model): the within part uses each cell's own count")
    notes.append(
        f"item means over {low if low == high else f'{low} to {high}'} generations ({label}) analysed as graded scores"
    )

    def locate(item: int, model: int) -> str:
        return f"{place(int(kept_rows[item, model]))} (the first {label} of the cell)"

    return build_matrix(
        means[keep],
        model_names,
        kept_names,
        clusters=clusters(keep, kept_names),
        score_kind=options["score_kind"],
        score_range=options["score_range"],
        missing_cluster=options["missing_cluster"],
        source=source,
        notes=notes,
        locate=locate,
        generations=generations,
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
def from_long_repeated(
    frame: pd.DataFrame,
    *,
    repeat_column: str,
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
    single_hint: str = _SINGLE_HINT,
    exact_ids: bool = False,
) -> ScoreMatrix:
    """Item means and their generations from a long table: one row per (item, model, repeat).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    repeat_column : str
        The column naming each row's repeat (epoch, sample, seed, run: text or whole numbers; ``--repeat-column``).
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
    single_hint : str, optional
        What a refusal of a cell with one generation suggests (default: read without ``--repeat-column``).
    %(exact_ids)s

    Raises
    ------
    InputError
        What :func:`~llm_power_verified.io.tables.from_long` refuses, and: a missing repeat label (NA), one repeat
        spelled two ways or given twice for an (item, model), a cell with one generation, a stray or out-of-range
        generation score, an item with two cluster labels across its generations, naming the line.
    ArgumentError
        ``score_kind="binary"`` (the item means are graded); a repeat column that is the item, model, score or
        cluster column.

    Notes
    -----
    The matrix holds the item means ybar_im (graded); ``matrix.generations`` the count K_im and the sample variance
    s2_im (divisor K_im - 1) of every cell, from which :mod:`llm_power_verified.repeats` splits the variance.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"item_id": ["q1"] * 4 + ["q2"] * 4, "model": ["a", "a", "b", "b"] * 2,
    ...                       "seed": [1, 2, 1, 2] * 2, "score": [1, 0, 1, 1, 0, 0, 1, 0]})
    >>> matrix = from_long_repeated(table, repeat_column="seed")
    >>> matrix.scores.tolist(), matrix.generations.counts.tolist(), matrix.generations.within.tolist()
    ([[0.5, 1.0], [0.0, 0.5]], [[2, 2], [2, 2]], [[0.5, 0.0], [0.0, 0.5]])
    """
    check_on_missing(on_missing)
    frame = check_columns(frame, source).rename(columns=str)
    named = {item_column: "--item-column", model_column: "--model-column", score_column: "--score-column"}
    named.update({cluster_column: "--cluster-column"} if cluster_column else {})
    if repeat_column in named:
        raise ArgumentError(
            f"--repeat-column {repeat_column!r} is the column {named[repeat_column]} names; the repeat column tells "
            "the generations of one (item, model) apart: name another column"
        )
    check_long_columns(frame, {**named, repeat_column: "--repeat-column"}, source)
    codes = long_codes(frame, item_column, model_column, score_column, cluster_column, source, lines, exact_ids)
    lines = codes.lines
    empty = (
        f"the {repeat_column} is missing (empty, or a missing-value text such as NA, null, None); every generation "
        f"names its {repeat_column} (--repeat-column)"
    )
    repeat_code, repeat_names = required_codes(
        frame[repeat_column], source, lines, repeat_column, f"a {repeat_column}", empty, missing=is_missing_label
    )
    spellings = list(frame[repeat_column].unique())  # 1 and "1" of JSON Lines are two

    def first_line(position: int) -> str:
        value = spellings[position]
        column = frame[repeat_column].tolist()
        return row_place(
            lines, next(row for row, cell in enumerate(column) if type(cell) is type(value) and cell == value)
        )

    refuse_respelled(spellings, first_line, source, repeat_column)

    def place(row: int) -> str:
        model, item = codes.model_names[codes.cols[row]], codes.item_names[codes.rows[row]]
        return f"{row_place(lines, row)} (model {model!r}, item {item!r})"

    def clusters(keep: np.ndarray, kept_names: list[str]) -> list[str | None] | None:
        if not cluster_column:
            return None
        labels, first_row = item_clusters(
            frame[cluster_column], codes.rows, codes.label_code, codes.label_names, codes.item_names, source, lines
        )
        kept = [label for label, wanted in zip(labels, keep, strict=True) if wanted]
        places = [row_place(lines, row) for row, wanted in zip(first_row, keep, strict=True) if wanted]
        refuse_unlabelled_items(kept, missing_cluster, kept_names, places, cluster_column, source)
        return kept

    options = dict(
        source=source,
        on_missing=on_missing,
        score_kind=score_kind,
        score_range=score_range,
        missing_cluster=missing_cluster,
        notes=notes,
    )
    return _repeated_matrix(
        codes.rows,
        codes.cols,
        np.asarray(repeat_names, dtype=object)[repeat_code],
        codes.values,
        codes.item_names,
        codes.model_names,
        place,
        label=repeat_column,
        clusters=clusters,
        options=options,
        single_hint=single_hint,
    )


def _respelled_headers(columns: Sequence[str], repeats: Sequence[str], source: str) -> None:
    """Refuse a repeat written two ways in the headers (``A@1`` and ``A@1.0``), naming the first column of each."""
    first = {label: position for position, label in reversed(list(enumerate(repeats)))}
    labels = list(dict.fromkeys(repeats))
    refuse_respelled(labels, lambda at: f"column {columns[first[labels[at]]]!r}", source, "repeat")


def _without_blank_rows(scores, frame, items, lines, columns, on_missing: str, source: str) -> tuple:
    """A wide table's rows without a blank generation: refused under "error", dropped (with a note) under "intersect".

    Returns the scores, frame, item ids and lines of the kept rows, and the notes.
    """
    blank = np.isnan(scores)
    if not blank.any():
        return scores, frame, items, lines, []
    row, at = (int(i) for i in np.argwhere(blank)[0])
    where = f"{row_place(lines, row)}, column {columns[at]!r} (item {items[row]!r})"
    count = int(blank.sum())
    if on_missing == "error":
        raise InputError(
            f"{source}: {where} has no score ({count:,} blank cell{'s' if count != 1 else ''}); every generation of "
            "a wide table has a score: use --on-missing intersect (on_missing='intersect') to leave out the items "
            "with a blank cell, or a long table for unequal generations"
        )
    full = ~blank.any(axis=1)
    if not full.any():
        raise AlignmentError(f"{source}: every item has a blank cell (the first: {where}); no item is left")
    dropped = int((~full).sum())
    note = (
        f"dropped {dropped:,} item{'s' if dropped != 1 else ''} with a blank cell (--on-missing intersect; the "
        f"first: {where})"
    )
    kept = [item for item, wanted in zip(items, full, strict=True) if wanted]
    return scores[full], frame[full], kept, lines[full], [note]


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
def from_wide_repeated(
    frame: pd.DataFrame,
    *,
    repeat_pattern: str,
    item_column: str | None = DEFAULT_ITEM_COLUMN,
    cluster_column: str | None = None,
    on_missing: str = "error",
    score_kind: str = "auto",
    score_range=(0.0, 1.0),
    missing_cluster: str = "error",
    source: str = "wide table",
    lines: np.ndarray | None = None,
) -> ScoreMatrix:
    """Item means and their generations from a wide table: one row per item, one column per (model, repeat).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    repeat_pattern : str
        How a header names its model and repeat, e.g. ``{model}@{repeat}`` (``--repeat-pattern``;
        :func:`~llm_power_verified.io.table_columns.header_splits`).
    item_column : str or None, default "item_id"
        The item-id column (absent default: items numbered by row, as in
        :func:`~llm_power_verified.io.tables.from_wide`).
    %(cluster_column)s
    %(on_missing)s
    %(score_kind)s
    %(score_range)s
    %(missing_cluster)s
    %(source_name)s
    %(lines)s

    Raises
    ------
    InputError
        What :func:`~llm_power_verified.io.tables.from_wide` refuses, and: a column that does not match the pattern
        or splits two ways, a missing or respelled repeat (naming it), a blank cell, a cell with one generation, a
        stray or out-of-range generation score, naming the line and column.
    ArgumentError
        A pattern without ``{model}`` and ``{repeat}`` once each; ``score_kind="binary"``.

    Notes
    -----
    A blank cell is refused naming it (``on_missing="error"``), or its item left out with a note
    (``on_missing="intersect"``); every kept cell then has one generation per column of its model.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"item_id": ["q1", "q2"], "a@1": [1, 0], "a@2": [0, 0], "b@1": [1, 1], "b@2": [1, 0]})
    >>> matrix = from_wide_repeated(table, repeat_pattern="{model}@{repeat}")
    >>> matrix.models, matrix.scores.tolist(), matrix.generations.label
    (('a', 'b'), [[0.5, 1.0], [0.0, 0.5]], 'repeat')
    """
    check_on_missing(on_missing)
    frame = check_columns(frame, source).rename(columns=str)
    lines = np.arange(2, len(frame) + 2) if lines is None else np.asarray(lines)
    items, item_column, columns = wide_columns(frame, item_column, cluster_column, None, source, lines)
    duplicate_items(items, source, lines)
    column_models, column_repeats = split_headers(columns, repeat_pattern, source)
    model_names = list(dict.fromkeys(column_models))
    alike = same_name_repeat(model_names)
    if alike is not None:
        raise InputError(
            f"{source}: models {model_names[alike[0]]!r} and {model_names[alike[1]]!r} are the same name once "
            f"{alike[2]}; spell each model one way"
        )
    _respelled_headers(columns, column_repeats, source)
    scores = number_matrix(frame[columns], source, lines, columns)
    scores, frame, items, lines, notes = _without_blank_rows(scores, frame, items, lines, columns, on_missing, source)
    rows, column = np.nonzero(~np.isnan(scores))
    code = {model: position for position, model in enumerate(model_names)}
    model_code = np.asarray([code[model] for model in column_models], dtype=np.int64)

    def place(position: int) -> str:
        row = int(rows[position])
        return f"{row_place(lines, row)}, column {columns[column[position]]!r} (item {items[row]!r})"

    def clusters(keep: np.ndarray, kept_names: list[str]) -> list[str | None] | None:
        if cluster_column is None:
            return None
        codes, labels = label_codes(
            frame[cluster_column], source, lines, cluster_column, "a cluster label", missing=is_missing_label
        )
        kept = [labels[code] if code >= 0 else None for code, wanted in zip(codes, keep, strict=True) if wanted]
        refuse_unlabelled_items(kept, missing_cluster, kept_names, lines[keep], cluster_column, source)
        return kept

    if item_column is None and len(frame):
        notes.append(
            f"no {DEFAULT_ITEM_COLUMN!r} column: items are numbered by row (each row is one item for every model)"
        )
    options = dict(
        source=source,
        on_missing=on_missing,
        score_kind=score_kind,
        score_range=score_range,
        missing_cluster=missing_cluster,
        notes=notes,
    )
    return _repeated_matrix(
        rows,
        model_code[column],
        np.asarray(column_repeats, dtype=object)[column],
        scores[rows, column],
        items,
        model_names,
        place,
        label="repeat",
        clusters=clusters,
        options=options,
        single_hint="leave that item's row out, or fill its missing generations",
    )
