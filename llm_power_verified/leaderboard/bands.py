"""The row bands of the rank-order upper triangle: the grid of the tiled all-pairs audit.

A band is the ranks [r0, r1) with every lower-ranked model: the pairs (i, j), r0 <= i < r1, i < j, in the order of
:func:`~llm_power_verified.leaderboard.pairs.pair_indices` (mode "all"), so the bands' rows one after the other are
the local pair table (:mod:`~llm_power_verified.leaderboard.tiles` computes a band).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.results import Result

__all__ = ["PAIRS_PER_BAND", "Band", "plan_bands"]

#: Pairs per band (about): a band's counts are at most twice that many int64 (8 MB), its rows go out in blocks.
PAIRS_PER_BAND = 500_000


@dataclass(frozen=True, repr=False)
class Band(Result):
    """Ranks [first_row, stop_row) against every lower-ranked model: pairs [start, stop) of the pair table.

    Attributes
    ----------
    index : int
        The band's number (its file is ``band-{index:05d}.parquet``).
    first_row, stop_row : int
        The 0-based rank positions of its rows.
    start, stop : int
        Its pairs' positions in the local pair table.
    """

    index: int
    first_row: int
    stop_row: int
    start: int
    stop: int


def _row_start(row: int | np.ndarray, size: int) -> int | np.ndarray:
    """The pair-table position of row ``row``'s first pair (rows of K - 1 - row pairs)."""
    return row * size - row * (row + 1) // 2


def plan_bands(size: int, pairs_per_band: int = PAIRS_PER_BAND) -> list[Band]:
    """Consecutive rows of the upper triangle, each band about ``pairs_per_band`` pairs (a row is never split).

    Parameters
    ----------
    size : int
        K, the models.
    pairs_per_band : int, default ``PAIRS_PER_BAND``
        The pairs a band holds at least (the last one fewer), unless one row holds more.

    Returns
    -------
    list of Band
        The bands in pair-table order.

    Examples
    --------
    >>> [(band.first_row, band.stop_row, band.start, band.stop) for band in plan_bands(5, 4)]
    [(0, 1, 0, 4), (1, 3, 4, 9), (3, 4, 9, 10)]
    """
    for name, value in (("size", size), ("pairs_per_band", pairs_per_band)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < (0 if name == "size" else 1):
            raise ArgumentError(f"{name} must be a whole number >= {0 if name == 'size' else 1}; got {value!r}")
    bands, row = [], 0
    ends = _row_start(np.arange(1, size), size)  # pairs through each row
    while row < size - 1:
        start = int(_row_start(row, size))
        stop_row = int(np.searchsorted(ends, start + pairs_per_band, side="left")) + 1
        stop_row = min(max(stop_row, row + 1), size - 1)
        bands.append(Band(len(bands), row, stop_row, start, int(_row_start(stop_row, size))))
        row = stop_row
    return bands
