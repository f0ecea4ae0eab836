"""The cluster bootstrap of a leaderboard audit in blocks of pairs, with memory bounded by the block.

The bootstrap draws R weight vectors over the clusters once; each block of
pairs then gives its R x block ICCs, design effects and clustered N*, their
per-pair 5% and 95% quantiles and the per-resample count of its unresolved
pairs, which the blocks add up.  No array of R x all pairs is formed.

Bit for bit the all-pairs computation: every element goes through the same
operations (``ClusterStatistics.icc_from_sums``), and
the products ``weights @ sums`` are formed on blocks laid out so that OpenBLAS
computes each of their columns as it does in the all-pairs product: blocks
start at multiples of 64 pairs (a column in the kernels' interior is one
fused multiply-add chain over the clusters, whatever the block), and the last
block, whose trailing columns the kernels' edge code computes with a
partition of the resamples that depends on the product's shape, keeps at
least ``max(TAIL_PAIRS, TAIL_PER_RESAMPLE x R)`` pairs (measured: from about R
pairs on it matches the all-pairs product; fewer than ``MIN_BLOCKED_RESAMPLES``
resamples are computed in one block).  ``tests/leaderboard/test_cluster_blocks.py``
checks blocked against one-block results.
"""

from __future__ import annotations

import functools
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from llm_power_verified.leaderboard import blocks as _blocks
from llm_power_verified.numeric import quantiles
from llm_power_verified.power.clustering import ClusterStatistics, ClusterWeighting

__all__ = ["bootstrap_blocks", "cluster_bootstrap_columns", "column_quantiles"]

#: Bytes the arrays of one block may hold (R x block x 8 bytes x ``ALIVE`` arrays).
BLOCK_BYTES = 100_000_000
#: R x block arrays alive at once in a block.
ALIVE = 6
#: Pairs per block are a multiple of this (the product's kernels work on columns in groups of 8 and 16).
ALIGN = 64
#: The last block keeps at least this many pairs, and ``TAIL_PER_RESAMPLE`` per resample.
TAIL_PAIRS = 4096
TAIL_PER_RESAMPLE = 4
#: Fewer resamples than this: one block (the product's layout for a handful of rows is not reproducible in parts).
MIN_BLOCKED_RESAMPLES = 16

_LARGEST = sys.float_info.max
_LEVELS = (0.05, 0.95)
_COLUMNS = (
    *(f"{name}_{level}" for name in ("icc", "design_effect", "required_n_cluster") for level in ("p05", "p95")),
    "probability_unresolved_cluster",
)
#: Blocks computed at once (threads), each within BLOCK_BYTES / _WORKERS.
_WORKERS = max(1, min(2, os.cpu_count() or 1))


def _part_width(n_resamples: int, workers: int = 1) -> int:
    """Pairs per block: <= ``PAIR_BLOCK`` and ``BLOCK_BYTES / workers`` of R x block arrays, a multiple of ALIGN."""
    block = min(_blocks.PAIR_BLOCK, BLOCK_BYTES // (workers * n_resamples * 8 * ALIVE))
    return max(ALIGN, block // ALIGN * ALIGN)


def bootstrap_blocks(size: int, n_resamples: int, workers: int = 1) -> list[slice]:
    """The blocks of pairs of a cluster bootstrap of ``n_resamples`` resamples over ``size`` pairs.

    Parameters
    ----------
    size : int
        The pairs.
    n_resamples : int
        The resamples R.
    workers : int, default 1
        Blocks held at once.

    Returns
    -------
    list of slice
        Consecutive slices covering ``range(size)``: at most ``PAIR_BLOCK`` pairs and about ``BLOCK_BYTES`` of
        R x block arrays each, starting at multiples of ``ALIGN``; the last one at least
        ``max(TAIL_PAIRS, TAIL_PER_RESAMPLE x R)`` pairs long.

    Examples
    --------
    >>> bootstrap_blocks(10_000, 1000)
    [slice(0, 2048, None), slice(2048, 4096, None), slice(4096, 10000, None)]
    """
    if n_resamples < MIN_BLOCKED_RESAMPLES:
        return [slice(0, size)]
    block = _part_width(n_resamples, workers)
    tail = max(TAIL_PAIRS, TAIL_PER_RESAMPLE * n_resamples)
    stop = max(size - tail, 0) // block * block
    return [slice(start, start + block) for start in range(0, stop, block)] + [slice(stop, size)]


def _virtual(count: int, levels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NumPy's ``method="linear"`` order statistics and weights of ``levels`` among ``count`` values."""
    virtual = (count - 1) * np.asarray(levels, dtype=np.float64)
    previous = np.floor(virtual)
    following = previous + 1
    above = virtual >= count - 1
    previous[above], following[above] = -1, -1
    previous, following = previous.astype(np.intp), following.astype(np.intp)
    gamma = np.asarray(virtual - previous, dtype=np.float64)[:, None]
    return previous, following, gamma


def _lerp(lower: np.ndarray, upper: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """NumPy's interpolation between neighbouring order statistics (``numpy.lib._function_base_impl._lerp``)."""
    difference = upper - lower
    result = np.add(lower, difference * gamma)
    np.subtract(upper, difference * (1 - gamma), out=result, where=np.broadcast_to(gamma >= 0.5, result.shape))
    return result


def _order_statistics(values: np.ndarray, previous: np.ndarray, following: np.ndarray):
    """Each row of ``values`` (pairs x R) partitioned as ``np.quantile`` partitions it; the rows' min and max."""
    kth = np.unique(np.concatenate(([0, -1], previous, following)))
    values.partition(kth, axis=1)
    return values[:, previous].T, values[:, following].T, values[:, 0], values[:, -1]


def column_quantiles(
    values: np.ndarray, levels=_LEVELS, scale: np.ndarray | None = None
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """:func:`~llm_power_verified.numeric.quantiles` over axis 0, bit for bit, by one partition per column.

    Parameters
    ----------
    values : numpy.ndarray
        R x pairs, float64.
    levels : sequence of float
        The levels.
    scale : numpy.ndarray, optional
        Also the quantiles of ``scale[None, :] * values`` (a non-negative factor per pair).

    Returns
    -------
    numpy.ndarray or tuple of numpy.ndarray
        levels x pairs (and the scaled ones).

    Notes
    -----
    ``np.quantile`` partitions each column at the order statistics it needs (and the first and last) and
    interpolates x_(j) + g (x_(j+1) - x_(j)) (from the upper one when g >= 0.5); this does the same, once per
    column instead of the three passes of :func:`~llm_power_verified.numeric.quantiles`.  A factor s >= 0 keeps the
    order (rounding s x is monotone), so the scaled order statistics are s x_(j).  Columns holding a value beyond
    the largest finite float (infinities, NaN) go through :func:`~llm_power_verified.numeric.quantiles` itself.

    Examples
    --------
    >>> import numpy as np
    >>> values = np.arange(20.0).reshape(10, 2)
    >>> column_quantiles(values, [0.05, 0.95]).round(3).tolist()
    [[0.9, 1.9], [17.1, 18.1]]
    >>> bool(np.array_equal(column_quantiles(values, [0.05, 0.95]), np.quantile(values, [0.05, 0.95], axis=0)))
    True
    """
    previous, following, gamma = _virtual(values.shape[0], levels)
    lower, upper, smallest, largest = _order_statistics(values.T.copy(), previous, following)
    # Columns with a value beyond the largest float (whose interpolation may overflow) are replaced below.
    with np.errstate(over="ignore", invalid="ignore"):
        result = _lerp(lower, upper, gamma)
        special = ~((smallest > -_LARGEST) & (largest < _LARGEST))
        if special.any():
            result[:, special] = quantiles(values[:, special], levels, axis=0)
        if scale is None:
            return result
        scaled = _lerp(scale * lower, scale * upper, gamma)
        special |= ~((scale >= 0) & (scale * largest < _LARGEST))
        if special.any():
            scaled[:, special] = quantiles(scale[special] * values[:, special], levels, axis=0)
    return result, scaled


def _design_effect(icc: np.ndarray, weighted_size: np.ndarray) -> np.ndarray:
    """1 + (m_w - 1) max(ICC, 0) per resample and pair, as the generated ``icc*(cluster_size - 1) + 1``."""
    effect = np.maximum(icc, 0.0)
    np.multiply(effect, weighted_size[:, None] - 1, out=effect)
    np.add(effect, 1, out=effect)
    return effect


def cluster_bootstrap_columns(
    statistics: ClusterStatistics,
    weighting: ClusterWeighting,
    first: np.ndarray,
    second: np.ndarray,
    required: np.ndarray,
    n_items: int,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The per-pair bootstrap columns and each resample's unresolved-pair count, block by block.

    Parameters
    ----------
    statistics : ClusterStatistics
        The per-cluster sums.
    weighting : ClusterWeighting
        The resamples' weights (R x clusters) and what follows from them.
    first, second : numpy.ndarray
        Model indices of each pair.
    required : numpy.ndarray
        Each pair's IID N*.
    n_items : int
        N.

    Returns
    -------
    columns : dict of str to numpy.ndarray
        ``icc_p05`` ... ``required_n_cluster_p95`` and ``probability_unresolved_cluster``.
    unresolved : numpy.ndarray
        Per resample, the pairs with N*_cluster > N (int64).
    """
    n_resamples, size = weighting.weights.shape[0], first.size
    columns = {name: np.empty(size) for name in _COLUMNS}
    slices = bootstrap_blocks(size, n_resamples, _WORKERS)
    columns["unresolved"] = np.zeros(n_resamples, dtype=np.int64)
    block_columns = functools.partial(_block_columns, statistics, weighting, first, second, required, n_items)
    # The blocks before the last in threads (NumPy's loops, partitions and BLAS release the GIL); the last, whose
    # product must be formed as in the all-pairs one (BLAS's own threads: the module notes), alone afterwards.
    if len(slices) > 1:
        with ThreadPoolExecutor(_WORKERS) as pool:
            for block, values in zip(slices[:-1], pool.map(block_columns, slices[:-1]), strict=True):
                _store(columns, block, values)
    _store(columns, slices[-1], block_columns(slices[-1]))
    return columns, columns.pop("unresolved")


def _store(columns: dict[str, np.ndarray], block: slice, values: dict[str, np.ndarray]) -> None:
    """Write a block's columns in place and add its unresolved counts."""
    columns["unresolved"] += values.pop("unresolved")
    for name, column in values.items():
        columns[name][block] = column


def _block_columns(statistics, weighting, first, second, required, n_items, block: slice) -> dict[str, np.ndarray]:
    """One block's bootstrap columns and per-resample unresolved counts (its R x block arrays live only here)."""
    width = block.stop - block.start
    values = {name: np.empty(width) for name in _COLUMNS}
    values["unresolved"] = np.zeros(weighting.weights.shape[0], dtype=np.int64)
    block_icc = statistics.icc_from_sums(*statistics.pair_sums(first[block], second[block]), weighting)
    # The last block can be longer than the others: what follows the product runs on parts of a block's length.
    for part in _blocks.blocks(width, _part_width(weighting.weights.shape[0])):
        icc = block_icc[:, part]
        effect = _design_effect(icc, weighting.weighted_size)
        scale = required[block][part]
        exceeds = np.multiply(scale[None, :], effect) > n_items
        values["unresolved"] += exceeds.sum(axis=1)
        values["probability_unresolved_cluster"][part] = np.mean(exceeds, axis=0)
        del exceeds
        values["icc_p05"][part], values["icc_p95"][part] = column_quantiles(icc)
        effect_quantiles, required_quantiles = column_quantiles(effect, scale=scale)
        values["design_effect_p05"][part], values["design_effect_p95"][part] = effect_quantiles
        values["required_n_cluster_p05"][part], values["required_n_cluster_p95"][part] = required_quantiles
    return values
