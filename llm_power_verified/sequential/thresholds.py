"""The time-uniform threshold u(m) of the mixture e-process: exact by bisection, and a process-wide table.

It also gives exact counts anywhere (:func:`exact_counts`, for any whole m), and the proven lower bounds on u that
make the anytime-valid required N's search exact (:class:`Envelope`).

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
from llm_power_verified.sequential.e_process import GRID, TWO_POINT, log_e_real, log_e_value

__all__ = ["Envelope", "ThresholdTable", "envelope", "exact_counts", "threshold", "threshold_table"]


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


class Envelope:
    """What makes the first-crossing search over discordant counts exact: the threshold u(m) and proven lower bounds.

    For a symmetric discrete mixture (grid, two-point) write, for each mixture
    point theta > 1/2, L = log(theta / (1 - theta)) and g(theta) = -log(4 theta (1 - theta)) / L,
    and gamma = min g (at the point closest to 1/2; 0.0100007 for the grid).  With
    j = 2b - m, the e-value of b wins in m pairs is

        e = (1/K) sum_{theta > 1/2} exp((j - g m) L / 2) + exp(-(j + g m) L / 2),

    the second term being the mirror point 1 - theta.  Hence, at real-valued counts:

    1. e is increasing in j >= 0, so the lattice threshold is the ceiling of the real one:
       u(m) = (2 ceil(b~) - m) / sqrt(m), and u~(m) <= u(m) < u~(m) + 2 / sqrt(m);
    2. at j = gamma m every term is at most 1, one is below, so e < 1 < 1/alpha:
       u(m) > gamma sqrt(m) for every m;
    3. at fixed D = j - gamma m every term decreases with m, so the real threshold's
       excess D(m) = u~(m) sqrt(m) - gamma m is nondecreasing in m.

    From 1 and 3, for every m' >= m:  u(m') >= gamma sqrt(m') + D / sqrt(m') with
    D = max(0, u(m) sqrt(m) - gamma m - 2).  Up to ``EXACT`` the exact u is tabulated
    with its suffix minimum, closed beyond the table by that bound.  The Beta
    mixture has mass arbitrarily close to 1/2 (no gamma > 0); it is refused.

    Parameters
    ----------
    table : ThresholdTable
        The threshold table of a discrete mixture ("grid" or "two-point").
    """

    def __init__(self, table: ThresholdTable) -> None:
        if table.mixture not in ("grid", "two-point"):
            raise ArgumentError(
                f"the anytime-valid required N is computed for the discrete mixtures 'grid' and 'two-point'; "
                f"got mixture={table.mixture!r}, whose threshold has no proven lower envelope here "
                "(use required_n_anytime_simulated)"
            )
        self.table = table
        thetas = GRID if table.mixture == "grid" else TWO_POINT
        upper = thetas[thetas > 0.5]
        self.gamma = float(np.min(-np.log(4 * upper * (1 - upper)) / np.log(upper / (1 - upper))))
        size = table.EXACT
        self.m0 = size
        self.exact = table.nodes[1][:size].copy()
        excess = max(0.0, self.exact[-1] * math.sqrt(size) - self.gamma * size - 2)
        # min over m' >= size of gamma sqrt(m') + excess / sqrt(m'): at m' = size, or at sqrt(m') = sqrt(excess / gamma)
        tail = (
            self.gamma * math.sqrt(size) + excess / math.sqrt(size)
            if self.gamma * size >= excess
            else 2 * math.sqrt(self.gamma * excess)
        )
        self.suffix = np.minimum(np.minimum.accumulate(self.exact[::-1])[::-1], tail)
        self._excess_table = self._excess(np.arange(1, size + 1, dtype=np.float64))
        # (grid, values) swapped as one tuple; nodes are never re-spaced, so a bound does not depend on earlier calls.
        self._excess_nodes = (np.array([float(size)]), self._excess_table[-1:].copy())
        self._lock = threading.Lock()

    def u(self, m: np.ndarray) -> np.ndarray:
        """Exact u(m) (a table read up to m0)."""
        out = np.empty(m.shape)
        small = m <= self.m0
        out[small] = self.exact[m[small].astype(np.int64) - 1]
        if (~small).any():
            big = m[~small]
            counts = exact_counts(big, self.table)
            out[~small] = np.where(counts > big, np.inf, (2 * counts - big) / np.sqrt(big))
        return out

    def _log_e(self, wins: np.ndarray, total: np.ndarray) -> np.ndarray:
        """Log e at real-valued counts (the mixture sum is defined for any b, c >= 0)."""
        return log_e_real(wins, total - wins, self.table.mixture)

    def excess(self, m: np.ndarray) -> np.ndarray:
        """D <= D(m') for every m' >= m (point 3): the real threshold's excess, from below.

        The real threshold b~ lies in (k(m) - 1, k(m)] (point 1); the bracket is narrowed
        keeping e < 1/alpha at its lower end, and that end is used, so D never exceeds
        the true D(m) (:meth:`slack` is taken off for rounding in e).  Exact up to m0;
        beyond, D at the largest node m_k <= m of the fixed grid m0 x 10^(k/400), a lower
        bound by point 3 that needs no root per query (D barely moves between nodes).
        """
        out = np.empty(m.shape)
        small = m <= self.m0
        out[small] = self._excess_table[m[small].astype(np.int64) - 1]
        if (~small).any():
            big = m[~small]
            self._extend(float(big.max()))
            grid, values = self._excess_nodes
            out[~small] = values[np.searchsorted(grid, big, side="right") - 1]
        return out

    def _extend(self, largest: float) -> None:
        grid, values = self._excess_nodes
        if grid[-1] >= largest:
            return
        with self._lock:
            grid, values = self._excess_nodes
            steps = math.ceil(400 * math.log10(largest / self.m0)) + 1
            if steps >= grid.size:
                extra = np.floor(self.m0 * 10.0 ** (np.arange(grid.size, steps + 1) / 400))
                self._excess_nodes = (np.concatenate([grid, extra]), np.concatenate([values, self._excess(extra)]))

    @staticmethod
    def slack(m: np.ndarray) -> np.ndarray:
        """What is taken off D for rounding.

        log e's terms are of size m, so its rounding error is about 1e-16 m, or 1e-16 m / log(0.51/0.49) = 3e-15 m
        in counts; 1e-9 + 1e-14 m covers it three times over.
        """
        return 1e-9 + 1e-14 * m

    def _excess(self, m: np.ndarray) -> np.ndarray:
        counts = exact_counts(m, self.table)
        finite = counts <= m
        out = np.zeros(m.shape)
        if finite.any():
            total = m[finite]
            hi = counts[finite]
            lo = np.maximum(hi - 1, total / 2)
            target = math.log(1 / self.table.alpha)
            # False position (Illinois) on the unit bracket, keeping f(lo) < 0 <= f(hi) at every step: log e is
            # smooth and nearly linear over one count, so 5 steps pin the root far below the slack taken off.
            f_lo, f_hi = self._log_e(lo, total) - target, self._log_e(hi, total) - target
            side = np.zeros(total.shape)
            for _ in range(5):
                middle = np.clip(hi - f_hi * (hi - lo) / (f_hi - f_lo), lo, hi)
                # a root within rounding of an end: try the point four doubles inside it
                middle = np.where(
                    middle >= hi, hi - 4 * np.spacing(hi), np.where(middle <= lo, lo + 4 * np.spacing(lo), middle)
                )
                middle = np.where((middle <= lo) | (middle >= hi) | ~np.isfinite(middle), (lo + hi) / 2, middle)
                f_mid = self._log_e(middle, total) - target
                up = f_mid >= 0
                lo, f_lo = np.where(up, lo, middle), np.where(up, np.where(side == 1, f_lo / 2, f_lo), f_mid)
                hi, f_hi = np.where(up, middle, hi), np.where(up, f_mid, np.where(side == -1, f_hi / 2, f_hi))
                side = np.where(up, 1, -1)
            out[finite] = np.maximum(0.0, 2 * lo - total - self.gamma * total - self.slack(total))
        return out

    def smallest_counts(self, m: np.ndarray, start: np.ndarray, excess: np.ndarray) -> np.ndarray:
        """A lower bound on k(m) for m >= start, from D(m) >= D(start) >= excess: ceil((m (1 + gamma) + excess) / 2)."""
        return np.ceil((m * (1 + self.gamma) + excess) / 2)

    def meets(self, m: np.ndarray, bound: np.ndarray) -> np.ndarray:
        """u(m) <= bound, elementwise, with one e-value per m beyond the table.

        u(m) = (2 k(m) - m) / sqrt(m) <= bound exactly when k(m) <= K = floor((m + sqrt(m)
        bound) / 2), and (e being increasing in the count) that is when e(K, m - K) >= 1/alpha.
        """
        out = np.zeros(m.shape, dtype=bool)
        small = m <= self.m0
        out[small] = self.exact[m[small].astype(np.int64) - 1] <= bound[small]
        big = ~small & (bound > 0)
        if big.any():
            total = m[big]
            count = np.minimum(np.floor((total + np.sqrt(total) * bound[big]) / 2), total)
            ahead = count > np.floor(total / 2)
            reached = np.zeros(total.shape, dtype=bool)
            reached[ahead] = np.asarray(
                log_e_value(count[ahead], total[ahead] - count[ahead], self.table.mixture, self.table.prior)
            ) >= math.log(1 / self.table.alpha)
            out[big] = reached
        return out


@functools.lru_cache(maxsize=16)
@docfill("prior")
def envelope(alpha: float, mixture: str = "grid", prior: tuple[float, float] = (1.0, 1.0)) -> Envelope:
    """The process's one :class:`Envelope` per (alpha, mixture).

    Parameters
    ----------
    alpha : float
        Significance level, in (0, 1).
    mixture : {"grid", "two-point"}, default "grid"
        The e-process's discrete mixture over theta (``log_e_value``);
        "beta" is refused: its threshold has no proven lower envelope (use ``required_n_anytime_simulated``).
    %(prior)s

    Returns
    -------
    Envelope
        The bounds of the threshold of ``threshold_table(alpha, mixture, prior)``, cached like it.

    Examples
    --------
    >>> round(envelope(0.05).gamma, 7)   # the grid's gamma, at theta = 0.51
    0.0100007
    """
    return Envelope(threshold_table(alpha, mixture, prior))
