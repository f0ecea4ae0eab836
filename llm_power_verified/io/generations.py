"""Several generations per item: what a reader keeps of the repeats besides their means.

When each model answers each item several times (Inspect epochs, samples, seeds, runs), the score matrix holds
the item means and :class:`Generations` holds, per (item, model) cell, the number of generations and their
sample variance.  That is all the two-level analysis needs (:mod:`llm_power_verified.repeats`): the means for
every test (the item is the unit that is resampled; its generations stay inside it), the counts and variances
for the within/between split.

Rules (README, "Several generations per item"):

* a repeat index appears once per (item, model): a second one is refused naming both places;
* every (item, model) cell has at least two generations, or its within-item variance does not exist: a cell
  with one is refused naming it (leave the item out, or add its missing generations);
* a repeat is spelled one way (:func:`refuse_respelled`: "1" and "1.0" are one repeat written two ways);
* counts may differ between cells: the estimators use each cell's own count (the within part of the variance
  of an item mean is the mean of s_i^2 / K_i, unbiased for unequal K_i), and the notes say the range.

:func:`cell_summaries` turns the long rows of a reader (one per generation) into the means, counts and
variances, with a two-pass variance (each cell's sum of squared deviations from its own mean) so that a
variance is exact to a few ulps whatever the size of the scores.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import numpy as np
import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import InputError
from llm_power_verified.results import Result

__all__ = ["Generations", "cell_summaries", "means_kind", "refuse_respelled"]


@dataclass(frozen=True, repr=False)
class Generations(Result):
    """Per (item, model) cell: how many generations, and their sample variance.

    Attributes
    ----------
    counts : numpy.ndarray
        int64, items x models, each >= 2: the generations of the cell.
    within : numpy.ndarray
        float64, items x models: the cell's sample variance over its generations (divisor K - 1).
    binary : bool
        Every generation scored 0 or 1 (then ``within`` is K / (K - 1) p-hat (1 - p-hat)).
    label : str
        What one repeat is called in the input ("epoch", a repeat column's name, ...).

    Examples
    --------
    >>> import numpy as np
    >>> generations = Generations(np.array([[2, 3]]), np.array([[0.5, 0.0]]), binary=True, label="epoch")
    >>> generations.count_range
    (2, 3)
    >>> generations
    Generations(counts=array([[2, 3]]), within=array([[0.5, 0. ]]), binary=True, label='epoch')
    """

    counts: np.ndarray
    within: np.ndarray
    binary: bool
    label: str

    def __post_init__(self) -> None:
        """Structural checks: shapes, dtypes, at least two generations per cell, finite non-negative variances."""
        counts, within = self.counts, self.within
        if not isinstance(counts, np.ndarray) or counts.ndim != 2 or counts.dtype.kind not in "iu":
            raise TypeError("Generations.counts must be a 2-D integer ndarray")
        if not isinstance(within, np.ndarray) or within.shape != counts.shape or within.dtype != np.float64:
            raise TypeError("Generations.within must be a float64 ndarray of the shape of counts")
        if counts.size and int(counts.min()) < 2:
            raise InputError("Generations: every (item, model) cell needs at least 2 generations")
        if not np.isfinite(within).all() or (within < 0).any():
            raise InputError("Generations: within-item variances must be finite and >= 0")

    @property
    def count_range(self) -> tuple[int, int]:
        """The fewest and the most generations of a cell."""
        return int(self.counts.min()), int(self.counts.max())

    def subset(self, rows: np.ndarray | None = None, columns: np.ndarray | None = None) -> Generations:
        """The cells of the given item rows and model columns (an index array or boolean mask each; None: all)."""
        counts, within = self.counts, self.within
        if rows is not None:
            counts, within = counts[rows], within[rows]
        if columns is not None:
            counts, within = counts[:, columns], within[:, columns]
        return Generations(
            np.ascontiguousarray(counts), np.ascontiguousarray(within), binary=self.binary, label=self.label
        )


def cell_summaries(
    rows: np.ndarray,
    cols: np.ndarray,
    repeats: np.ndarray,
    values: np.ndarray,
    shape: tuple[int, int],
    *,
    describe: Callable[[int], str],
    label: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means, counts and sample variances per (item, model) cell from one row per generation.

    Parameters
    ----------
    rows, cols : numpy.ndarray
        Per generation, the code of its item and of its model.
    repeats : numpy.ndarray
        Per generation, the code of its repeat (epoch, sample, seed, ...): equal codes are the same repeat.
    values : numpy.ndarray
        Per generation, its finite score.
    shape : tuple of int
        (items, models).
    describe : callable
        ``describe(position) -> str``: where the generation at that position came from (file, line, member),
        for the messages.
    label : str
        What a repeat is called, for the messages ("epoch", the repeat column's name).

    Returns
    -------
    means, counts, within : numpy.ndarray
        Items x models: the mean (NaN where the cell has no generation), the count (0 there) and the sample
        variance (divisor count - 1; NaN where the count is below 2).

    Raises
    ------
    InputError
        One repeat of one (item, model) cell given twice, naming both places.

    Examples
    --------
    >>> import numpy as np
    >>> means, counts, within = cell_summaries(
    ...     np.array([0, 0, 0, 1]), np.array([0, 0, 0, 0]), np.array([0, 1, 2, 0]),
    ...     np.array([1.0, 0.0, 1.0, 1.0]), (2, 1), describe=str, label="epoch")
    >>> means.ravel().tolist(), counts.ravel().tolist(), bool(np.isnan(within[1, 0]))
    ([0.6666666666666666, 1.0], [3, 1], True)
    """
    n_items, n_models = shape
    cell = rows.astype(np.int64) * n_models + cols.astype(np.int64)
    repeat_code = pd.factorize(repeats)[0]  # by hashing: an argsort of a million text labels takes seconds
    order = np.lexsort((repeat_code, cell))
    same = (cell[order][1:] == cell[order][:-1]) & (repeat_code[order][1:] == repeat_code[order][:-1])
    if same.any():
        first, second = sorted((int(order[np.argmax(same)]), int(order[np.argmax(same) + 1])))
        raise InputError(
            f"{describe(second)}: {label} {repeats[second]!r} of this item and model is also at {describe(first)}; "
            f"each {label} appears once per (item, model)"
        )
    size = n_items * n_models
    counts = np.bincount(cell, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):  # empty cells: NaN, filled below by the caller's rules
        means = np.bincount(cell, weights=values, minlength=size) / counts
        # Two-pass: deviations from each cell's own mean, so the variance keeps its digits for any offset.
        squares = np.bincount(cell, weights=(values - means[cell]) ** 2, minlength=size)
        within = np.where(counts >= 2, squares / np.maximum(counts - 1, 1), np.nan)
    return means.reshape(shape), counts.reshape(shape), within.reshape(shape)


def means_kind(score_kind: str, source: str) -> str:
    """The score kind of item means over generations: "graded", whatever "auto" would decide; "binary" is refused.

    Parameters
    ----------
    score_kind : {"auto", "binary", "graded"}
        The kind asked for (``--scores``).
    source : str
        What messages call the input.

    Returns
    -------
    str
        "graded".

    Raises
    ------
    ArgumentError
        ``score_kind`` "binary".

    Examples
    --------
    >>> means_kind("auto", "t.csv")
    'graded'
    """
    if score_kind == "binary":
        raise ArgumentError(
            f"{source}: the item means over several generations are graded scores; --scores binary "
            "(score_kind='binary') does not apply: leave --scores out (a stray non-0/1 generation is still refused) "
            "or pass --scores graded"
        )
    return "graded"


def _repeat_key(label: str) -> object:
    """A repeat label as the check for one repeat spelled two ways compares it (:func:`refuse_respelled`).

    NFKC-normalised (full-width digits are digits), format characters (U+200B) and blanks dropped; a finite number
    (in any Unicode digits, without ``_``) by its exact value, so "1", "1.0", "01" and "1e0" are one key.
    """
    if label.isascii():  # NFKC and the format characters leave ASCII alone; plain digits are an int (fast)
        text = label.strip()
        if text.isdigit() and len(text) < 4000:  # int() takes at most 4300 digits; Decimal the longer ones
            return int(text)  # equal (and hashed alike) to the Decimal of "1.0" or "1e0"
    else:
        text = unicodedata.normalize("NFKC", label)
        text = "".join(char for char in text if unicodedata.category(char) != "Cf").strip()
    if "_" not in text:
        try:
            number = Decimal(text)
        except (InvalidOperation, ValueError):
            return text
        if number.is_finite():
            return number
    return text


def refuse_respelled(labels: Sequence[object], where: Callable[[int], str], source: str, label: str) -> None:
    """Refuse two distinct repeat labels that are one repeat written two ways, naming both and where they are.

    Parameters
    ----------
    labels : sequence
        The distinct labels as read (1 and "1" from JSON Lines are two).
    where : callable
        ``where(position) -> str``: where a label first occurs.
    source : str
        What messages call the input.
    label : str
        What a repeat is called ("epoch", the repeat column's name).

    Raises
    ------
    InputError
        Two labels that are one once NFKC-normalised with blanks and format characters dropped, or one number
        ("1", "1.0", "01", "1e0", full-width digits).

    Examples
    --------
    >>> refuse_respelled(["0", "1", "1.0"], lambda at: f"label {at}", "t.csv", "epoch")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: t.csv: epoch '1' (label 1) and '1.0' (label 2) are the same number...
    """
    seen: dict[object, int] = {}
    for position, value in enumerate(labels):
        first = seen.setdefault(_repeat_key(str(value)), position)
        if first != position:
            how = (
                "the same number"
                if isinstance(_repeat_key(str(value)), (int, Decimal))
                else "one label once Unicode-normalised (NFKC) with blanks and format characters dropped"
            )
            raise InputError(
                f"{source}: {label} {labels[first]!r} ({where(first)}) and {value!r} ({where(position)}) are {how}; "
                "write each repeat one way"
            )
