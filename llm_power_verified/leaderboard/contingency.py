"""Exact 2x2 counts of every pair of models from a 0/1 score matrix.

``both_correct_counts(scores)[j, k]`` is the number of items that models j and
k both solve.  It is computed as X'X in float32 over blocks of at most
``BLOCK_ROWS`` = 2^24 items, each block's result converted to int64 and
summed.  Why exact: within a block every partial sum of the product is a whole
number between 0 and the block's row count <= 2^24, and float32 represents
every whole number up to 2^24 exactly, so no rounding can occur whatever the
summation order (BLAS blocking, FMA).  The int64 sum of the blocks is exact up
to 2^63.  float32 is used because it is twice as fast as float64 here; the
blocks keep that speed at any N.
"""

from __future__ import annotations

import numpy as np

from llm_power_verified.errors import ArgumentError

__all__ = ["BLOCK_ROWS", "both_correct_between", "both_correct_counts", "correct_counts"]

BLOCK_ROWS = 2**24


def both_correct_counts(scores: np.ndarray, *, block_rows: int = BLOCK_ROWS) -> np.ndarray:
    """The K x K matrix of items both models solve, exact at any number of items.

    Parameters
    ----------
    scores : numpy.ndarray
        0/1 scores, items x models.
    block_rows : int, default ``BLOCK_ROWS``
        Items per float64 matrix product (each exact below 2^53).

    Returns
    -------
    numpy.ndarray
        int64 counts; the diagonal holds each model's solved items.

    Examples
    --------
    >>> both_correct_counts(np.array([[1, 1], [1, 0], [0, 1]])).tolist()
    [[2, 1], [1, 2]]
    """
    if not 1 <= block_rows <= BLOCK_ROWS:
        raise ArgumentError(f"block_rows must lie in [1, {BLOCK_ROWS}]; got {block_rows!r}")
    return _both_correct(np.asarray(scores), block_rows)


def _both_correct(scores: np.ndarray, block_rows: int) -> np.ndarray:
    total = np.zeros((scores.shape[1], scores.shape[1]), dtype=np.int64)
    for start in range(0, scores.shape[0], block_rows):
        block = scores[start : start + block_rows].astype(np.float32)
        total += (block.T @ block).astype(np.int64)
    return total


def both_correct_between(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Items both models solve for every (row, column) pair of two sets of models, exact as :func:`both_correct_counts`.

    Parameters
    ----------
    first, second : numpy.ndarray
        0/1 scores, models x items (float32 avoids a copy per block), one row per model of each set.

    Returns
    -------
    numpy.ndarray
        int64 counts, len(first) x len(second).

    Examples
    --------
    >>> both_correct_between(np.array([[1, 1, 0]]), np.array([[1, 0, 1], [1, 1, 1]])).tolist()
    [[1, 2]]
    """
    total = np.zeros((first.shape[0], second.shape[0]), dtype=np.int64)
    for start in range(0, first.shape[1], BLOCK_ROWS):
        items = slice(start, start + BLOCK_ROWS)
        rows, columns = (part[:, items].astype(np.float32, copy=False) for part in (first, second))
        total += (rows @ columns.T).astype(np.int64)
    return total


def correct_counts(scores: np.ndarray) -> np.ndarray:
    """Items each model solves, as int64 (exact).

    Parameters
    ----------
    scores : numpy.ndarray
        0/1 scores, items x models.

    Returns
    -------
    numpy.ndarray
        One count per model.

    Examples
    --------
    >>> correct_counts(np.array([[1, 1], [1, 0], [0, 1]])).tolist()
    [2, 2]
    """
    return np.count_nonzero(np.asarray(scores) == 1, axis=0).astype(np.int64)
