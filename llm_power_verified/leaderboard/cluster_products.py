"""Products ``weights @ sums`` over the clusters in blocks of pairs, each pair's value as in the all-pairs product.

A per-pair quantity summed over the clusters with one weight vector (the
given labels, a leave-one-cluster-out drop) is a matrix-vector product of the
weights and a clusters x pairs array.  OpenBLAS's kernel (``dgemv_n``) computes
a pair in the interior of a run of four rows by fused multiply-adds over the
clusters in groups of four, and the last ``rows mod 4`` pairs of each range it
gives a thread by a plain running sum: the same pair can end in different last
bits in a shorter product.  :func:`product_pieces` cuts the pairs into pieces
that reproduce the all-pairs product's layout: the ranges of its threads (split
as OpenBLAS splits them), each range's interior in pieces whose threads again
get whole runs of four rows, and each range's last ``rows mod 4`` pairs as one
piece of their own; a block of pairs is a run of whole pieces and its product
is formed piece by piece (:func:`piecewise_product`).

The thread count is found once by calibration (``_threads``): a product of
the shape that splits differently under each candidate count is formed whole
and in pieces; when no candidate reproduces it (another BLAS), the pairs form
one piece: the all-pairs product, exact but not bounded in memory.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

import numpy as np

__all__ = ["block_pieces", "piecewise_product", "product_pieces"]

#: OpenBLAS forms a matrix-vector product of m x n on one thread when m n is below this (115200 x 4).
THREADED_FROM = 460_800
#: Pairs per interior piece (rounded down to a multiple of four per thread).
PIECE = 8192


def _thread_ranges(size: int, groups: int, threads: int) -> list[tuple[int, int]]:
    """The rows each thread takes in OpenBLAS's ``gemv_thread`` (widths ceil(rest / threads left), at least 4)."""
    if threads < 2 or size * groups < THREADED_FROM:
        return [(0, size)]
    ranges, start, rest = [], 0, size
    for taken in range(threads):
        if rest <= 0:
            break
        width = min(max(-(-rest // (threads - taken)), 4), rest)
        ranges.append((start, start + width))
        start, rest = start + width, rest - width
    return ranges


def product_pieces(size: int, groups: int, threads: int | None = None) -> list[tuple[int, int]]:
    """Consecutive pieces of ``range(size)`` whose products ``weights @ sums[:, piece]`` equal the whole product's.

    Parameters
    ----------
    size : int
        The pairs (columns of the clusters x pairs array).
    groups : int
        The clusters (its rows).
    threads : int, optional
        BLAS threads (found by calibration by default).

    Returns
    -------
    list of tuple of int
        (start, stop) pieces covering ``range(size)`` in order.

    Examples
    --------
    >>> product_pieces(10, 3, threads=1)  # the whole runs of four rows, then the last 10 mod 4 rows
    [(0, 8), (8, 10)]
    """
    threads = _threads() if threads is None else threads
    if threads == 0:
        return [(0, size)]
    piece = max(4 * threads, PIECE // (4 * threads) * 4 * threads)
    pieces = []
    for start, stop in _thread_ranges(size, groups, threads):
        interior = start + (stop - start) // 4 * 4
        # One pair left over: NumPy forms a one-column product by a dot product, so it goes with the four before it.
        if stop - interior == 1 and interior - start >= 4:
            interior -= 4
        whole = start + (interior - start) // piece * piece
        pieces += [(lower, lower + piece) for lower in range(start, whole, piece)]
        # The rest of the interior in runs of four rows: one thread takes all four (OpenBLAS's width is at least 4).
        even = whole + (interior - whole) // (4 * threads) * 4 * threads
        if even > whole:
            pieces.append((whole, even))
        pieces += [(lower, lower + 4) for lower in range(even, interior, 4)]
        if stop > interior:
            pieces.append((interior, stop))
    return pieces


def block_pieces(pieces: list[tuple[int, int]], width: int) -> list[list[tuple[int, int]]]:
    """Runs of whole pieces of about ``width`` pairs each (a piece longer than ``width`` alone).

    Parameters
    ----------
    pieces : list of tuple of int
        :func:`product_pieces`' pieces, in order.
    width : int
        The pairs a block should hold at most.

    Returns
    -------
    list of list of tuple of int
        The blocks, each a run of consecutive pieces.
    """
    blocks, current, length = [], [], 0
    for piece in pieces:
        if current and length + piece[1] - piece[0] > width:
            blocks.append(current)
            current, length = [], 0
        current.append(piece)
        length += piece[1] - piece[0]
    return [*blocks, current] if current else blocks


def piecewise_product(pieces: list[tuple[int, int]], size: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``weights @ values`` of a block's clusters x pairs ``values``, formed piece by piece (a 2-D ``weights`` whole).

    The pieces are those of the block (:func:`block_pieces`) of ``size`` pairs in all; their offsets are taken from
    the block's start.  A block narrower than four pairs is widened first: OpenBLAS's kernel takes another path for
    a last run of m < 4 rows whose leading dimension is m, which the all-pairs product (of ``size`` > 3 pairs) never
    takes.

    Parameters
    ----------
    pieces : list of tuple of int
        The block's pieces (one of :func:`block_pieces`' blocks).
    size : int
        The pairs of the all-pairs product.

    Returns
    -------
    callable
        ``product(weights, values)``: ``weights @ values`` formed piece by piece (a 2-D ``weights``: whole).
    """
    offset = pieces[0][0]

    def product(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
        if np.ndim(weights) != 1:
            return weights @ values
        if values.shape[1] < 4 < size + 1:
            wide = np.zeros((values.shape[0], 4))
            wide[:, : values.shape[1]] = values
            values = wide
        return np.concatenate([weights @ values[:, start - offset : stop - offset] for start, stop in pieces])

    return product


def _calibration_sizes(groups: int) -> list[int]:
    """Pair counts at which the candidate thread counts give different pieces (threaded, ragged halves)."""
    smallest = -(-THREADED_FROM // groups)
    return [smallest + extra for extra in (1, 2, 3, 5, 6, 7, 4099, 8195)]


@functools.cache
def _threads() -> int:
    """The thread count whose pieces reproduce this BLAS's products (0: none does; use one piece)."""
    rng = np.random.default_rng(20261124)
    candidates = sorted({1, 2, os.cpu_count() or 1})
    groups = 14
    matching = []
    for threads in candidates:
        ok = True
        for size in _calibration_sizes(groups):
            values = rng.random((groups, size)) ** 2 / 7
            weights = np.ones(groups)
            whole = weights @ values
            blocked = np.concatenate(
                [weights @ values[:, start:stop] for start, stop in product_pieces(size, groups, threads)]
            )
            ok = ok and np.array_equal(whole, blocked)
        if ok:
            matching.append(threads)
    return matching[-1] if matching else 0
