"""A family's corrections from the table of its distinct p-values (or e-values) and their counts.

Holm's and Benjamini-Hochberg's adjusted p-values, Holm's per-pair levels and the e-BH decisions need the whole
family's order, but only through each value's rank: the number of values below it, and for ties their order.  When
the family's values take few distinct values (the exact McNemar p-value is a function of (min(b, c), b + c), so a
leaderboard of N items has at most about N^2 / 4 of them, whatever the number of pairs), the table of distinct
values with their counts is a small summary that blocks of pairs computed anywhere can send to one place, and
from which every pair's adjusted value follows exactly.

Exactly means bit for bit: ``FamilyTable.adjusted`` performs, for each distinct value, the same floating-point
operations :func:`~llm_power_verified.inference.multiplicity.adjust_pvalues` performs on the sorted family (a tie
run of Holm takes the product of its first rank, which the running maximum carries over the run; a tie run of BH
takes the quotient of its last rank, which the running minimum carries back), and ``FamilyTable.holm_levels``
gives the level of :func:`~llm_power_verified.inference.multiplicity.holm_levels` (ties ranked in family order) from
each block's count of ties in the blocks before it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.results import Result

__all__ = ["FamilyTable", "family_table", "value_counts"]


def value_counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of one block of a family, ascending, and how often each occurs.

    Parameters
    ----------
    values : numpy.ndarray
        The block's p-values (or log e-values), without NaN.

    Returns
    -------
    distinct, counts : numpy.ndarray
        The sorted distinct values and their counts (int64).

    Examples
    --------
    >>> [part.tolist() for part in value_counts(np.array([0.5, 0.1, 0.5]))]
    [[0.1, 0.5], [1, 2]]
    """
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if np.isnan(values).any():
        raise ArgumentError(f"the family's values hold NaN at position {int(np.flatnonzero(np.isnan(values))[0])}")
    distinct, counts = np.unique(values, return_counts=True)
    return distinct, counts.astype(np.int64)


@dataclass(frozen=True, repr=False)
class FamilyTable(Result):
    """The distinct values of a family (ascending), their counts, and how many values lie below each.

    Attributes
    ----------
    values : numpy.ndarray
        The distinct values, ascending.
    counts : numpy.ndarray
        How often each occurs (int64).
    below : numpy.ndarray
        How many of the family's values are smaller than each (int64).
    size : int
        m, the family's size.
    """

    values: np.ndarray
    counts: np.ndarray
    below: np.ndarray
    size: int

    def locate(self, values: np.ndarray) -> np.ndarray:
        """Each value's index in the table; a value the table does not hold is an error, never a neighbour."""
        values = np.asarray(values, dtype=np.float64)
        at = np.searchsorted(self.values, values)
        inside = at < self.values.size
        found = np.zeros(values.shape, dtype=bool)
        found[inside] = self.values[at[inside]] == values[inside]
        if not found.all():
            missing = values[~found].reshape(-1)[0]
            raise ArgumentError(f"the value {missing!r} is not in the family's table (a block the table did not count)")
        return at

    def adjusted(self, correction: str) -> np.ndarray:
        """Holm's or BH's adjusted p-value of each distinct value (the family's values being p-values).

        Parameters
        ----------
        correction : {"holm", "bh"}
            The correction.

        Returns
        -------
        numpy.ndarray
            One adjusted p-value per distinct value, equal bit for bit to what
            :func:`~llm_power_verified.inference.multiplicity.adjust_pvalues` gives each occurrence.
        """
        m, p = self.size, self.values
        if p.size and not (p[0] >= 0 and p[-1] <= 1):
            raise ArgumentError(f"adjusted p-values need values in [0, 1]; the table holds {p[0]!r} to {p[-1]!r}")
        if correction == "holm":
            # The first rank of a tie run is below + 1: the factor (m - steps + 1) there is m - below.
            return np.maximum.accumulate(np.minimum(1.0, (m - self.below) * p))
        if correction == "bh":
            # The last rank of a tie run is below + count; the running minimum from the top carries it back.
            last = self.below + self.counts
            return np.minimum.accumulate(np.minimum(1.0, m * p / last)[::-1])[::-1]
        raise ArgumentError(f"correction must be 'holm' or 'bh' (the step procedures); got {correction!r}")

    def holm_levels(self, values: np.ndarray, earlier: np.ndarray, alpha: float) -> np.ndarray:
        """Holm's level alpha / (m - k + 1) of each value of one block, the k-th smallest with ties in family order.

        Parameters
        ----------
        values : numpy.ndarray
            The block's values, in family order.
        earlier : numpy.ndarray
            For each distinct value of the table, its occurrences in the blocks before this one (int64;
            :func:`numpy.cumsum` of the blocks' counts on the table, exclusive).
        alpha : float
            Family-wise level, in (0, 1).

        Returns
        -------
        numpy.ndarray
            Each value's level, equal bit for bit to
            :func:`~llm_power_verified.inference.multiplicity.holm_levels` on the whole family.
        """
        _check_level(alpha)
        earlier = np.asarray(earlier)
        if earlier.shape != self.values.shape or not np.issubdtype(earlier.dtype, np.integer) or (earlier < 0).any():
            raise ArgumentError(
                f"earlier must hold a whole number >= 0 per distinct value ({self.values.size}); got shape "
                f"{earlier.shape}, dtype {earlier.dtype}"
            )
        at = self.locate(values)
        # Within the block, ties keep their order: the j-th occurrence of a value is j places after its first.
        order = np.argsort(at, kind="stable")
        sorted_at = at[order]
        starts = np.flatnonzero(np.r_[True, sorted_at[1:] != sorted_at[:-1]])
        within = np.arange(at.size) - np.repeat(starts, np.diff(np.r_[starts, at.size]))
        ranks = np.empty(at.size, dtype=np.int64)
        ranks[order] = self.below[sorted_at] + earlier[sorted_at] + within
        return alpha / (self.size - ranks)

    def e_bh_cut(self, alpha: float) -> float:
        """The smallest log e-value e-BH rejects (the family's values being log e-values); +inf when none is.

        With e_(1) >= ... >= e_(m), e-BH rejects the k* largest, k* = max{k : e_(k) >= m / (alpha k)}; a tie run
        is never split (a later member of the run faces a lower threshold), so rejected = log e >= the cut.

        Parameters
        ----------
        alpha : float
            The false discovery rate, in (0, 1).

        Returns
        -------
        float
            The cut, or inf.
        """
        _check_level(alpha)
        m = self.size
        # The last (largest k) member of each run in descending order: k = m - below.
        k = m - self.below
        passes = self.values >= np.log(m / (alpha * k))
        return float(self.values[np.flatnonzero(passes)[0]]) if passes.any() else float("inf")


def _check_level(alpha: float) -> None:
    if not 0 < alpha < 1:  # NaN fails too
        raise ArgumentError(f"alpha must lie in (0, 1); got {alpha!r}")


def family_table(parts: Iterable[tuple[np.ndarray, np.ndarray]]) -> FamilyTable:
    """Combine the blocks' :func:`value_counts` into the family's table.

    Parameters
    ----------
    parts : iterable of (numpy.ndarray, numpy.ndarray)
        Each block's distinct values and counts.

    Returns
    -------
    FamilyTable
        The family's distinct values, counts, the number below each, and m.

    Examples
    --------
    >>> from llm_power_verified.inference.multiplicity import adjust_pvalues
    >>> p = np.array([0.01, 0.04, 0.03, 0.04])
    >>> table = family_table([value_counts(p[:2]), value_counts(p[2:])])
    >>> table.adjusted("holm")[table.locate(p)].tolist() == adjust_pvalues(p, "holm").tolist()
    True
    """
    parts = list(parts)
    if not parts:
        return FamilyTable(values=np.empty(0), counts=np.empty(0, np.int64), below=np.empty(0, np.int64), size=0)
    for index, (values, counts) in enumerate(parts):
        values, counts = np.asarray(values), np.asarray(counts)
        if values.ndim != 1 or values.shape != counts.shape:
            raise ArgumentError(f"part {index}: values and counts must be one-dimensional and of one length")
        if np.isnan(values.astype(np.float64)).any():
            raise ArgumentError(f"part {index}: a value is NaN")
        if not np.issubdtype(counts.dtype, np.integer) or (counts < 1).any():
            raise ArgumentError(f"part {index}: counts must be whole numbers >= 1 (value_counts gives them)")
    values = np.concatenate([np.asarray(part[0], dtype=np.float64) for part in parts])
    counts = np.concatenate([np.asarray(part[1], dtype=np.int64) for part in parts])
    distinct, where = np.unique(values, return_inverse=True)
    total = np.zeros(distinct.size, dtype=np.int64)
    np.add.at(total, where.reshape(-1), counts)
    below = np.concatenate([[0], np.cumsum(total)[:-1]]).astype(np.int64)
    return FamilyTable(values=distinct, counts=total, below=below, size=int(total.sum()))
