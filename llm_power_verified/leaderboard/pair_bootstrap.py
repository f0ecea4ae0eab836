"""The paired bootstrap of 0/1 scores from the 2x2 cells: the gap's percentile interval and p-value, and N*'s 5-95%.

Multinomial resampling of the four cells of every pair at once (a chain of binomials), with one generator for
all pairs (simulations) or the audit's per-pair streams
(:func:`~llm_power_verified.leaderboard.streams.pair_streams`).
"""

from __future__ import annotations

import numpy as np

from llm_power_verified.inference.bootstrap import percentile_pvalue
from llm_power_verified.numeric import quantiles
from llm_power_verified.power.sample_size import required_n_from_counts

__all__ = ["bootstrap_pair_cells"]


def bootstrap_pair_cells(
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    n: int,
    n_resamples: int,
    confidence: float,
    rng: np.random.Generator | tuple[list[np.random.Generator], np.ndarray],
    required: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval of D-bar, its percentile p-value and the 5-95% interval of N*.

    All three come from multinomial cell resampling.

    The four cells are drawn as a chain of binomials: a* ~ Bin(n, p11), b* ~ Bin(n - a*, p10 / (1 - p11)),
    c* ~ Bin(n - a* - b*, p01 / (1 - p11 - p10)).

    Parameters
    ----------
    a, b, c : numpy.ndarray
        Each pair's both-right, only-A and only-B counts (the glossary's cells).
    n : int
        Items.
    n_resamples : int
        Resamples.
    confidence : float
        The interval's level, 1 - alpha.
    rng : numpy.random.Generator or tuple
        One generator for every pair (simulations: vectorised over pairs), or the per-pair streams of
        :func:`~llm_power_verified.leaderboard.streams.pair_streams` (the audit: a pair's draws depend on its names
        only; each is drawn in sorted-name orientation and its discordant cells swapped back).
    required : bool, default True
        Compute the N* percentiles (else NaN).

    Returns
    -------
    low, high : numpy.ndarray
        The percentile interval of D-bar.
    p_value : numpy.ndarray
        Its percentile p-value.
    required_p05, required_p95 : numpy.ndarray
        The 5th and 95th percentiles of N* (NaN unless ``required``).
    """
    pairs = a.size
    low, high, pvalue = np.empty(pairs), np.empty(pairs), np.empty(pairs)
    n_star_low, n_star_high = np.full(pairs, np.nan), np.full(pairs, np.nan)
    tails = [(1 - confidence) / 2, (1 + confidence) / 2]
    chunk = max(1, 2_000_000 // max(n_resamples, 1))
    for start in range(0, pairs, chunk):
        sl = slice(start, min(start + chunk, pairs))
        if isinstance(rng, np.random.Generator):
            d10, d01 = _draw_cells(rng, n, a[sl], b[sl], c[sl], (n_resamples, a[sl].size))
        else:
            d10, d01 = _draw_cells_per_pair(rng, sl, n, a, b, c, n_resamples)
        gap = (d10 - d01) / n
        low[sl], high[sl] = np.quantile(gap, tails, axis=0)
        pvalue[sl] = percentile_pvalue(gap, axis=0)
        if required:
            resampled = np.asarray(required_n_from_counts(d10, d01, n))
            n_star_low[sl], n_star_high[sl] = quantiles(resampled, [0.05, 0.95])
    return low, high, pvalue, n_star_low, n_star_high


def _draw_cells(rng: np.random.Generator, n: int, a, b, c, shape) -> tuple[np.ndarray, np.ndarray]:
    """(b*, c*) resampled: the chain of binomials of :func:`bootstrap_pair_cells`."""
    p11, p10, p01 = a / n, b / n, c / n
    with np.errstate(divide="ignore", invalid="ignore"):
        d11 = rng.binomial(n, np.broadcast_to(p11, shape))
        rest = n - d11
        d10 = rng.binomial(rest, np.clip(np.nan_to_num(p10 / (1 - p11)), 0, 1))
        d01 = rng.binomial(rest - d10, np.clip(np.nan_to_num(p01 / (1 - p11 - p10)), 0, 1))
    return d10, d01


def _draw_cells_per_pair(streams, sl: slice, n: int, a, b, c, n_resamples: int) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's (b*, c*) from its own stream, in sorted-name orientation, swapped back where reversed.

    A loop over pairs (not items): one generator per pair is what makes a
    pair's interval independent of which other pairs are in the audit.  The
    chain's three probabilities are computed for the whole slice first (the
    same element-wise operations as :func:`_draw_cells`, so the same draws);
    the loop makes only the three binomial calls.
    """
    generators, reversed_order = streams
    flip = np.asarray(reversed_order[sl], dtype=bool)
    first = np.where(flip, c[sl], b[sl])
    second = np.where(flip, b[sl], c[sl])
    p11, p10, p01 = a[sl] / n, first / n, second / n
    with np.errstate(divide="ignore", invalid="ignore"):
        q10 = np.clip(np.nan_to_num(p10 / (1 - p11)), 0, 1)
        q01 = np.clip(np.nan_to_num(p01 / (1 - p11 - p10)), 0, 1)
    width = sl.stop - sl.start
    drawn_first = np.empty((n_resamples, width), dtype=np.int64)
    drawn_second = np.empty((n_resamples, width), dtype=np.int64)
    for column, index in enumerate(range(sl.start, sl.stop)):
        generator = generators[index]
        # A scalar p with size= draws exactly what the broadcast array did, three times faster (no per-element checks).
        d11 = generator.binomial(n, float(p11[column]), size=n_resamples)
        rest = n - d11
        d10 = generator.binomial(rest, q10[column])
        drawn_first[:, column] = d10
        drawn_second[:, column] = generator.binomial(rest - d10, q01[column])
    d10 = np.where(flip, drawn_second, drawn_first)
    d01 = np.where(flip, drawn_first, drawn_second)
    return d10, d01
