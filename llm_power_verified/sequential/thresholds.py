"""The time-uniform threshold u(m) of the mixture e-process: exact by bisection, and a process-wide table.

It also gives exact counts anywhere (:func:`exact_counts`, for any whole m).

u(m) is the smallest abs(b - c) / sqrt(m) at which e reaches 1/alpha after m discordant pairs.
"""

from __future__ import annotations

import functools
import math
import threading
from typing import Any

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified._validation import check_count, finish
from llm_power_verified.errors import ArgumentError
from llm_power_verified.sequential.e_process import log_e_value

__all__ = ["ThresholdTable", "exact_counts", "threshold", "threshold_table"]


def _threshold_counts(m: np.ndarray, alpha: float, mixture: str, prior) -> np.ndarray:
    """Smallest b >= m/2 with log e(b, m - b) >= log(1/alpha); m + 1 (never) if none."""
    target = math.log(1 / alpha)
    low = np.floor(m / 2)  # e is smallest near the centre for symmetric mixtures
    high = m.copy()
    never = np.asarray(log_e_value(high, m - high, mixture, prior)) < target
    result = np.full(m.shape, np.nan)
    result[never] = m[never] + 1
    active = ~never
    lo, hi = low[active], high[active]
    mm = m[active]
    while True:
        open_ = hi - lo > 1
        if not open_.any():
            break
        middle = np.floor((lo + hi) / 2)
        reaches = np.asarray(log_e_value(middle, mm - middle, mixture, prior)) >= target
        hi = np.where(open_ & reaches, middle, hi)
        lo = np.where(open_ & ~reaches, middle, lo)
    at_low = np.asarray(log_e_value(lo, mm - lo, mixture, prior)) >= target
    result[active] = np.where(at_low, lo, hi)
    return result


@docfill("alpha_float", "mixture", "prior")
def threshold(n: Any, alpha: float = 0.05, mixture: str = "grid", prior=(1.0, 1.0)) -> float | np.ndarray:
    """u(n): the smallest abs(z) = abs(b - c) / sqrt(n) at which e reaches 1/alpha with n discordant pairs.

    Parameters
    ----------
    n : array_like
        Number of discordant pairs b + c, a whole number >= 1.
    %(alpha_float)s
    %(mixture)s
    %(prior)s

    Returns
    -------
    float or numpy.ndarray
        u(n); inf where no split of n pairs reaches 1/alpha.  For the symmetric mixtures (grid, two-point,
        Beta(a, a)) it is the same in both directions.

    Notes
    -----
    With k(n) the smallest b >= n/2 whose e-value log e(b, n - b) (``log_e_value``) reaches log(1/alpha), found
    by bisection over b, u(n) = (2 k(n) - n) / sqrt(n).

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Appendix C, Equation 24 (the e-value
    whose threshold this is).

    Examples
    --------
    >>> round(float(threshold(1000)), 3)
    3.542
    """
    n = check_count("n", n, minimum=1)
    if not 0 < alpha < 1:
        raise ArgumentError(f"alpha must lie in (0, 1); got {alpha!r}")
    counts = _threshold_counts(np.atleast_1d(n).astype(np.float64), alpha, mixture, prior)
    m = np.atleast_1d(n).astype(np.float64)
    u = np.where(counts > m, np.inf, (2 * counts - m) / np.sqrt(m))
    return finish(u.reshape(np.shape(n)))


class ThresholdTable:
    """u(m), exact for m <= 4096 and at fixed points above, linearly interpolated in log m between them.

    The fixed points are 4096 x 10^(k/400); u varies like sqrt(log m) there.

    The grid above 4096 is the same whatever m are asked for (it is extended
    point by point, never re-spaced), so u(m) does not depend on which other m
    were asked for before or in the same call: a pair's anytime-valid N does
    not change with the other pairs of the audit.  One table per (alpha,
    mixture, prior) is kept for the process (:func:`threshold_table`).  Calling the table with an array of m
    returns u(m).

    Parameters
    ----------
    alpha : float
        Significance level, in (0, 1).
    mixture : {"grid", "beta", "two-point"}
        The e-process's mixture over theta (see ``log_e_value``).
    prior : tuple of two floats
        (a, a'), the Beta prior of the "beta" mixture; the other mixtures ignore it.

    Examples
    --------
    >>> table = ThresholdTable(0.05, "grid", (1.0, 1.0))
    >>> round(float(table(np.array([1000.0]))[0]), 3)
    3.542
    """

    EXACT = 4096
    PER_DECADE = 400

    def __init__(self, alpha: float, mixture: str, prior) -> None:
        self.alpha, self.mixture, self.prior = alpha, mixture, prior
        grid = np.arange(1, self.EXACT + 1, dtype=np.float64)
        # (grid, values, log grid) swapped as one tuple, so a reader never pairs a longer grid with shorter values.
        self.nodes = (grid, self._exact(grid), np.log(grid))
        self._lock = threading.Lock()

    def _exact(self, m: np.ndarray) -> np.ndarray:
        counts = _threshold_counts(m, self.alpha, self.mixture, self.prior)
        return np.where(counts > m, np.inf, (2 * counts - m) / np.sqrt(m))

    def _extend(self, largest: float) -> None:
        grid, values, _ = self.nodes
        steps = math.ceil(self.PER_DECADE * math.log10(largest / self.EXACT)) + 1
        have = grid.size - self.EXACT
        if steps > have:
            extra = np.rint(self.EXACT * 10.0 ** (np.arange(have + 1, steps + 1) / self.PER_DECADE))
            grid = np.concatenate([grid, extra])
            self.nodes = (grid, np.concatenate([values, self._exact(extra)]), np.log(grid))

    def __call__(self, m: np.ndarray) -> np.ndarray:
        """The threshold u at each of ``m`` (values below 1 are taken as 1)."""
        m = np.maximum(np.asarray(m, dtype=np.float64), 1.0)
        largest = float(m.max(initial=1.0))
        if largest > self.nodes[0][-1]:
            with self._lock:
                self._extend(largest)
        _, values, log_grid = self.nodes
        small = m <= self.EXACT
        out = np.empty(m.shape)
        out[small] = values[np.rint(m[small]).astype(np.int64) - 1]
        if (~small).any():
            out[~small] = np.interp(np.log(m[~small]), log_grid, values)
        return out


@functools.lru_cache(maxsize=16)
@docfill("mixture", "prior")
def threshold_table(alpha: float, mixture: str = "grid", prior: tuple[float, float] = (1.0, 1.0)) -> ThresholdTable:
    """The process's one :class:`ThresholdTable` for (alpha, mixture, prior): built on first use (0.16 s), then reused.

    Parameters
    ----------
    alpha : float
        Significance level, in (0, 1).
    %(mixture)s
    %(prior)s

    Returns
    -------
    ThresholdTable
        The same object for the same call (an LRU cache of 16 tables, keyed on the arguments as written:
        ``threshold_table(0.05)`` and ``threshold_table(0.05, "grid")`` build two equal tables).

    Examples
    --------
    >>> threshold_table(0.05) is threshold_table(0.05)
    True
    """
    return ThresholdTable(alpha, mixture, tuple(prior))


def exact_counts(m: np.ndarray, table: ThresholdTable) -> np.ndarray:
    """k(m), the smallest count b > m/2 with e(b, m - b) >= 1/alpha (m + 1 if none), exact for any whole m.

    Parameters
    ----------
    m : numpy.ndarray
        Numbers of discordant pairs, whole numbers >= 1 (a float array).
    table : ThresholdTable
        The threshold table of the (alpha, mixture, prior) in question.

    Returns
    -------
    numpy.ndarray
        k(m) as floats, the shape of ``m``.

    Notes
    -----
    The table's (interpolated) u gives a guess; a bracket of 8 + 6e-8 m counts around it is
    kept only where its ends are checked (e < 1/alpha at the low end or the low end
    at the centre, e >= 1/alpha at the high end), and bisected; the rest are found by
    the full bisection, so the result never depends on the interpolation.  u(m) = (2 k(m) - m) / sqrt(m).

    Examples
    --------
    >>> exact_counts(np.array([1000.0]), threshold_table(0.05)).tolist()
    [556.0]
    """
    m = np.asarray(m, dtype=np.float64)
    if table.alpha > 0.25:  # 1/alpha < 4: a split at the centre may reach it; leave those to the plain bisection
        return _threshold_counts(m, table.alpha, table.mixture, table.prior)
    target = math.log(1 / table.alpha)
    centre = np.floor(m / 2)

    def reaches(count: np.ndarray, total: np.ndarray) -> np.ndarray:
        return np.asarray(log_e_value(count, total - count, table.mixture, table.prior)) >= target

    u = table(m)
    finite = np.isfinite(u)
    guess = np.ceil((m + np.where(finite, u, 0.0) * np.sqrt(m)) / 2)
    spread = 4 + np.ceil(3e-8 * m)  # the interpolation's error in counts grows like 1e-8 m (curvature of u in log m)
    low = np.clip(guess - spread, centre, m)
    high = np.clip(guess + spread, centre, m)
    good = finite & (high > low)
    good[good] &= reaches(high[good], m[good])
    inner = good & (low > centre)
    good[inner] &= ~reaches(low[inner], m[inner])
    out = np.empty(m.shape)
    lo, hi, mm = low[good], high[good], m[good]
    while True:
        open_ = hi - lo > 1
        if not open_.any():
            break
        middle = np.floor((lo + hi) / 2)
        hit = np.zeros(mm.shape, dtype=bool)
        hit[open_] = reaches(middle[open_], mm[open_])
        hi = np.where(open_ & hit, middle, hi)
        lo = np.where(open_ & ~hit, middle, lo)
    out[good] = hi
    if not good.all():
        out[~good] = _threshold_counts(m[~good], table.alpha, table.mixture, table.prior)
    return out
