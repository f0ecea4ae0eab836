"""The hedged betting e-value after the last item, for many pairs of models at once (the audit's graded column).

:func:`~llm_power_verified.sequential.betting.betting_log_e` returns log e_t at every item of a few paths; the
leaderboard audit reports only log e_N, the value after the last item, for every pair of models.
:func:`betting_log_e_at_n` computes that one value for each pair, with the pairs as the columns of
(items x pairs) arrays, a chunk of pairs at a time and a block of items at a time, so one numpy call serves thousands
of pairs and no array holds more than a block of items.

It performs, per pair, the same floating-point operations in the same order as ``betting_log_e(d)[:, -1]``, so the
two are equal bit for bit:

* the running sums of the plug-in (the mean and the variance estimates) are advanced item by item, each step one
  vectorised addition across the pairs, which is the sequential order of numpy's ``cumsum`` along the items;
* the sums of the log factors restart at the same multiples of
  ``ITEM_BLOCK`` (sequential/betting.py) items as the reference's blocks, and each block's sum is
  added to the carried total as there;
* every elementwise expression keeps the reference's operands and their order (``(pv * t) * log1p(t)``, then
  ``c / .``, then ``sqrt``; the truncation ``min(bet, 1)`` of the hedged capital at m = 1/2).
"""

from __future__ import annotations

import itertools
import math
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.sequential.betting import ITEM_BLOCK, TRUNCATION, check_alpha

__all__ = ["betting_log_e_at_n"]

#: Items per block: divides ITEM_BLOCK, so a block never straddles one of the reference's sums.
ROWS = 16
#: Pairs per chunk: a block's arrays are ROWS x PAIRS (1 MB each); the Python overhead of a step is shared by them all.
PAIRS = 8192
#: Chunks computed at once, on threads (numpy's loops release the GIL), each holding about 8 MB.
WORKERS = max(1, min(2, os.cpu_count() or 1))
#: Pairs below which a second thread is not worth starting.
MIN_THREAD_PAIRS = 1024


def _model_indices(name: str, index: Any) -> np.ndarray:
    """Whole model indices, refused (never truncated: 1.9 is no model) when not whole numbers."""
    given = np.asarray(index).reshape(-1)
    if given.dtype.kind in "iu":
        return given.astype(np.intp)
    if given.dtype.kind != "f":
        raise ArgumentError(f"{name} must hold whole model indices; got dtype {given.dtype}")
    whole = np.isfinite(given) & (given == np.floor(given)) & (np.abs(given) < 2**62)
    if not whole.all():
        raise ArgumentError(f"{name} must hold whole model indices; got {float(given[~whole][0])!r}")
    return given.astype(np.intp)


def _check_pairs(scores: Any, first: Any, second: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values = np.asarray(scores)
    if values.dtype.kind not in "fiub":
        raise ArgumentError(f"scores must be real numbers; got dtype {values.dtype}")
    values = values.astype(np.float64, copy=False)
    if values.ndim != 2 or values.shape[0] == 0:
        raise ArgumentError(f"scores must be a non-empty 2-D array (items x models); got shape {values.shape}")
    first, second = _model_indices("first", first), _model_indices("second", second)
    if first.shape != second.shape:
        raise ArgumentError(f"first and second must name as many models; got {first.size} and {second.size}")
    for name, index in (("first", first), ("second", second)):
        if index.size and not (index.min() >= 0 and index.max() < values.shape[1]):
            raise ArgumentError(f"{name} must hold model columns 0..{values.shape[1] - 1}")
    if first.size and not (np.isfinite(values).all() and values.max() - values.min() <= 1):
        # Some difference may leave [-1, 1]: find the first one, pair by pair, as betting_log_e would refuse it.
        for start in range(0, first.size, PAIRS):
            chunk = slice(start, start + PAIRS)
            differences = values[:, first[chunk]] - values[:, second[chunk]]
            bad = ~(np.abs(differences) <= 1)
            if bad.any():
                item, pair = np.unravel_index(int(np.argmax(bad)), bad.shape)
                raise ArgumentError(
                    f"differences must lie in [-1, 1]; got {float(differences[item, pair])!r} for pair "
                    f"{start + int(pair)} (models {int(first[start + pair])} and {int(second[start + pair])}) at item "
                    f"{int(item)}"
                )
    return values, first, second


class _Chunk:
    """One chunk of pairs: the buffers of a block of items (allocated once) and the totals carried between blocks."""

    def __init__(self, pairs: int) -> None:
        # Row 0 of the running buffers carries the value after the previous block's last item.
        self.sums = np.zeros((ROWS + 1, pairs))
        self.squares = np.zeros((ROWS + 1, pairs))
        self.variance = np.empty((ROWS + 1, pairs))
        self.variance[0] = 0.25
        self.x = np.empty((ROWS, pairs))
        self.work = np.empty((ROWS, pairs))
        self.logs = np.empty((ROWS, 2, pairs))
        self.block_logs = np.zeros((2, pairs))
        self.log_capital = np.zeros((2, pairs))

    def load(self, block: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """X = (D + 1) / 2 of a block of items (rows of ``block``), D the pairs' differences."""
        x, other = self.x[: block.shape[0]], self.work[: block.shape[0]]
        np.take(block, first, axis=1, out=x, mode="clip")
        np.take(block, second, axis=1, out=other, mode="clip")
        x -= other
        x += 1
        x /= 2
        return x

    def bets(self, x: np.ndarray, t: np.ndarray, log1p_t: np.ndarray, c: float) -> np.ndarray:
        """The truncated predictable bets of a block of items (rows of x): ``_plug_in`` and the truncation."""
        rows = x.shape[0]
        sums, squares, variance, work = self.sums, self.squares, self.variance, self.work[:rows]
        for i in range(rows):
            np.add(sums[i], x[i], out=sums[i + 1])
        np.add(0.5, sums[1 : rows + 1], out=work)
        work /= t + 1
        np.subtract(x, work, out=work)
        np.square(work, out=work)
        for i in range(rows):
            np.add(squares[i], work[i], out=squares[i + 1])
        np.add(0.25, squares[1 : rows + 1], out=variance[1 : rows + 1])
        variance[1 : rows + 1] /= t + 1
        np.multiply(variance[:rows], t, out=work)
        work *= log1p_t
        np.divide(c, work, out=work)
        np.sqrt(work, out=work)
        # The truncation c/m = c/(1 - m) = 1 at m = 1/2, for the upward and the downward bets alike.
        np.minimum(work, TRUNCATION / 0.5, out=work)
        sums[0], squares[0], variance[0] = sums[rows], squares[rows], variance[rows]
        return work

    def add_logs(self, steps: np.ndarray, start: int, stop: int, n: int) -> None:
        """Add log(1 + s) and log(1 - s) of the block's steps s = bet (X - 1/2) to the running sums.

        The sums restart, as the reference's do, at multiples of ITEM_BLOCK items.
        """
        logs = self.logs[: steps.shape[0]]
        np.log1p(steps, out=logs[:, 0])
        np.negative(steps, out=steps)
        np.log1p(steps, out=logs[:, 1])
        total = self.block_logs
        if start % ITEM_BLOCK == 0:
            total[...] = logs[0]
        else:
            total += logs[0]
        for i in range(1, logs.shape[0]):
            total += logs[i]
        if stop % ITEM_BLOCK == 0 or stop == n:
            np.add(self.log_capital, total, out=self.log_capital)


def _chunk_log_e(scores: np.ndarray, first: np.ndarray, second: np.ndarray, c: float) -> np.ndarray:
    n = scores.shape[0]
    t_all = np.arange(1, n + 1, dtype=np.float64)[:, None]
    log1p_all = np.log1p(t_all)
    state = _Chunk(first.size)
    for start in range(0, n, ROWS):
        stop = min(start + ROWS, n)
        x = state.load(scores[start:stop], first, second)
        bets = state.bets(x, t_all[start:stop], log1p_all[start:stop], c)
        x -= 0.5
        bets *= x
        state.add_logs(bets, start, stop, n)
    return np.logaddexp(state.log_capital[0], state.log_capital[1]) + math.log(0.5)


def _chunks(size: int, pairs_per_chunk: int, workers: int) -> list[tuple[int, int]]:
    """(start, stop) of chunks of (nearly) equal size, a multiple of ``workers`` of them when there are enough pairs.

    Equal sizes: a small last chunk would pay the per-call overhead for few pairs.
    """
    count = -(-size // pairs_per_chunk)
    if workers > 1 and size >= 2 * MIN_THREAD_PAIRS:
        count = -(-max(count, workers) // workers) * workers
    return list(itertools.pairwise(np.linspace(0, size, count + 1).round().astype(np.intp).tolist()))


def betting_log_e_at_n(
    scores: Any, first: Any, second: Any, alpha: float = 0.05, pairs_per_chunk: int = PAIRS, workers: int = WORKERS
) -> np.ndarray:
    """Log e_N of the hedged betting e-process for 'mean difference 0' of each pair, over the items in row order.

    Parameters
    ----------
    scores : array_like
        Items x models, graded scores (as float64: a ScoreMatrix's are): every paired difference must lie in [-1, 1].
    first, second : array_like of int
        The model columns of each pair; the pair's differences are ``scores[:, first] - scores[:, second]``.
    alpha : float, default 0.05
        Tunes the bets (the plug-in's log(2/alpha)), in (0, 1).
    pairs_per_chunk : int, default 8192
        Pairs computed together; the arrays of a chunk are about ``16 x pairs_per_chunk`` floats each, and the
        result does not depend on it.
    workers : int, default 2 (1 on a one-core machine)
        Chunks computed at once, on threads (numpy's loops release the GIL); the result does not depend on it.

    Returns
    -------
    numpy.ndarray
        One log e_N per pair, equal bit for bit to
        ``betting_log_e((scores[:, first] - scores[:, second]).T, alpha)[:, -1]``.

    Notes
    -----
    The hedged capital K_N(1/2) of :mod:`.betting` (Waudby-Smith and Ramdas 2024, Section 4), computed with the
    same operations in the same order per pair (module notes).

    References
    ----------
    Waudby-Smith, I. and Ramdas, A. (2024). Estimating means of bounded random
    variables by betting. J. R. Statist. Soc. B 86(1), 1-27.

    Examples
    --------
    >>> from llm_power_verified.sequential.betting import betting_log_e
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.uniform(0, 1, (300, 4))
    >>> fast = betting_log_e_at_n(scores, [0, 0, 2], [1, 3, 1])
    >>> reference = betting_log_e((scores[:, [0, 0, 2]] - scores[:, [1, 3, 1]]).T)[:, -1]
    >>> bool(np.array_equal(fast, reference))
    True
    """
    check_alpha(alpha)
    for name, value in (("pairs_per_chunk", pairs_per_chunk), ("workers", workers)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ArgumentError(f"{name} must be a whole number >= 1; got {value!r}")
    values, first, second = _check_pairs(scores, first, second)
    c = 2 * math.log(2 / alpha)
    out = np.empty(first.size)
    chunks = _chunks(first.size, int(pairs_per_chunk), int(workers))

    def compute(chunk: tuple[int, int]) -> np.ndarray:
        return _chunk_log_e(values, first[chunk[0] : chunk[1]], second[chunk[0] : chunk[1]], c)

    if int(workers) > 1 and len(chunks) > 1:
        with ThreadPoolExecutor(int(workers)) as pool:
            results = list(pool.map(compute, chunks))
    else:
        results = [compute(chunk) for chunk in chunks]
    for (start, stop), result in zip(chunks, results, strict=True):
        out[start:stop] = result
    return out
