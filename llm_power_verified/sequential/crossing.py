"""The anytime-valid required N: the first N at which the monitored test reaches the target power, found exactly.

See :func:`required_n_anytime` for the definition and :class:`Envelope` for the
bounds that make the search exact.
"""

from __future__ import annotations

import functools
import math
import threading
from typing import Any

import numpy as np
from scipy.special import ndtri

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._validation import check_count, finish
from llm_power_verified.errors import ArgumentError, LlmPowerError
from llm_power_verified.sequential.e_process import GRID, TWO_POINT, log_e_real, log_e_value
from llm_power_verified.sequential.thresholds import ThresholdTable, exact_counts, threshold_table

__all__ = ["LARGEST_N", "Envelope", "envelope", "required_n_anytime"]


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


#: Largest N_av reported: a pair whose first crossing lies beyond (proven by the envelope) gets inf.
LARGEST_N = 1e12
#: Consecutive discordant counts checked at once near the crossing.
_WINDOW = 32
_MAX_ROUNDS = 10_000


def _first_meeting(bounds: Envelope, window: np.ndarray, bound: np.ndarray, possible: np.ndarray) -> np.ndarray:
    """Marks, in each row, the first count where u <= bound, checking only the ``possible`` ones, in order."""
    meets = np.zeros(window.shape, dtype=bool)
    pending = possible.copy()
    rows = np.flatnonzero(pending.any(axis=1))
    for _ in range(8):  # next to the crossing the first possible count almost always meets it
        if rows.size == 0:
            return meets
        column = np.argmax(pending[rows], axis=1)
        found = bounds.meets(window[rows, column], bound[rows, column])
        meets[rows[found], column[found]] = True
        pending[rows, column] = False
        rows = rows[~found & pending[rows].any(axis=1)]
    if rows.size:
        block = pending[rows]
        checked = np.zeros(block.shape, dtype=bool)
        checked[block] = bounds.meets(window[rows][block], bound[rows][block])
        meets[rows] = checked
    return meets


def _leap(bounds: Envelope, m: np.ndarray, psi: np.ndarray, slope: np.ndarray, z: float) -> np.ndarray:
    """The smallest count >= m that the lower bounds on u do not rule out, by repeated leaps.

    A leap from m uses bounds valid for every M' >= m, so no count between m and
    where it lands can meet the condition a sqrt(N) >= u(M) + z for any N of that count.
    """
    m = m.copy()
    moving = np.arange(m.size)
    for _ in range(60):
        if moving.size == 0:
            break
        here, p, a = m[moving], psi[moving], slope[moving]
        target = here.copy()
        small = here < bounds.m0
        if small.any():
            # u(M') >= the table's suffix minimum for M' >= here: meeting needs (M' + 1/2)/psi > ((floor + z)/a)^2.
            floor = bounds.suffix[here[small].astype(np.int64) - 1]
            target[small] = np.floor(p[small] * ((floor + z) / a[small]) ** 2 * (1 - 1e-12) - 0.5) + 1
        # u(M') >= gamma s + D / s (s = sqrt(M') >= sqrt(here)) and a sqrt(N) < A sqrt(M' + 1/2) with A = a / sqrt(psi);
        # as s sqrt(s^2 + 1/2) < s^2 + 1/4, meeting needs (A - gamma) s^2 - z s + A/4 - D > 0, false between the roots.
        excess = bounds.excess(here)
        steep = a / np.sqrt(p)
        spread = steep - bounds.gamma
        disc = z**2 - 4 * spread * (steep / 4 - excess)
        root = np.sqrt(np.maximum(disc, 0.0))
        inside = (disc > 0) & (np.sqrt(here) >= (z - root) / (2 * spread))
        jump = np.where(inside, np.floor(((z + root) / (2 * spread)) ** 2 * (1 - 1e-9)), 0.0)
        target = np.maximum(np.maximum(here, target), jump)
        m[moving] = target
        moving = moving[(target - here > _WINDOW) & (target <= p * LARGEST_N + 1)]
    return m


@docfill("counts", "n_table", "alpha_float", "prior")
def required_n_anytime(
    b: Any,
    c: Any,
    n: Any,
    alpha: float = 0.05,
    power: float = 0.8,
    mixture: str = "grid",
    prior=(1.0, 1.0),
    table: ThresholdTable | None = None,
) -> float | np.ndarray:
    """Anytime-valid required N at an observed table: the first N at which the monitored test reaches the power.

    Plug-in discordance psi = (b + c)/n, gap delta = (b - c)/n, sigma_D^2 = psi - delta^2
    and a = abs(delta) / sigma_D.  N_av is the smallest whole N with

        a sqrt(N) >= u(M(N)) + z_{1-beta},   M(N) = max(1, floor(psi N + 1/2)),

    u(M) being the exact threshold after M discordant pairs (the smallest abs(b - c) /
    sqrt(M) with e >= 1/alpha).  u is saw-toothed, so the condition is not monotone
    in N; the search is exact all the same (see :class:`Envelope`): it steps over
    discordant counts M, skipping only counts that a proven lower bound on u rules
    out, and checks the condition itself everywhere else.  inf when b = c, when
    a <= gamma sqrt(psi) (the grid has no theta within 0.01 of 1/2, so the threshold
    grows like gamma sqrt(M) and is never met), or when the first crossing is proven
    to lie beyond 10^12 items.

    Parameters
    ----------
    %(counts)s
    %(n_table)s
    %(alpha_float)s
    power : float, default 0.8
        Target power 1 - beta, in (0.5, 1).
    mixture : {"grid", "two-point"}, default "grid"
        The e-process's discrete mixture over theta (``log_e_value``);
        "beta" is refused: its threshold has no proven lower envelope (use ``required_n_anytime_simulated``).
    %(prior)s
    table : ThresholdTable, optional
        The threshold table to use (default: ``threshold_table(alpha, mixture, prior)``; its alpha, mixture
        and prior then take precedence).

    Returns
    -------
    float or numpy.ndarray
        N_av, a whole number of items (as float), or inf.

    Notes
    -----
    Within the items whose expected discordant count is M, the condition is
    monotone in N, so the first crossing is the first M whose last item satisfies it,
    and within that M the first item that does.  Tested against a brute-force
    scan over every N.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Appendix C;
    Howard, Ramdas, McAuliffe and Sekhon (2021), Ann. Statist. 49(2), 1055-1080.

    Examples
    --------
    >>> from llm_power_verified import required_n_from_counts
    >>> anytime = required_n_anytime(1680, 1454, 12032)
    >>> round(anytime / required_n_from_counts(1680, 1454, 12032), 2)
    2.65
    """
    shape = np.broadcast(np.asarray(b), np.asarray(c), np.asarray(n)).shape
    b = np.atleast_1d(check_count("b", b)).astype(np.float64)
    c = np.atleast_1d(check_count("c", c)).astype(np.float64)
    n = np.atleast_1d(check_count("n", n, minimum=1)).astype(np.float64)
    b, c, n = np.broadcast_arrays(b, c, n)
    if not 0.5 < power < 1:
        raise ArgumentError(f"power must lie in (0.5, 1) for the anytime-valid required N; got {power!r}")
    table = table or threshold_table(float(alpha), mixture, tuple(prior))
    bounds = envelope(table.alpha, table.mixture, table.prior)
    psi = ((b + c) / n).ravel()
    gap = (np.abs(b - c) / n).ravel()
    sd = np.sqrt(_variance.paired_difference_variance_from_cells(b / n, c / n)).ravel()
    z_power = -float(ndtri(1 - power))
    result = np.full(psi.shape, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(sd > 0, gap / sd, 0.0)
    # u(M) > gamma sqrt(M) for every M, and a sqrt(N) <= a sqrt((M + 1/2) / psi); with a <= gamma sqrt(psi) the
    # condition would need gamma (sqrt(M + 1/2) - sqrt(M)) <= gamma / 4 >= z_{1-beta}, false for power > 0.5.
    live = np.flatnonzero((gap > 0) & (a > bounds.gamma * np.sqrt(psi)))
    m = np.ones(live.size)
    for _ in range(_MAX_ROUNDS):
        m = _leap(bounds, m, psi[live], a[live], z_power)
        beyond = m > psi[live] * LARGEST_N + 1
        live, m = live[~beyond], m[~beyond]
        if live.size == 0:
            break
        # Few pairs are left after the first rounds; wider windows for them end the walk through the saw-tooth sooner.
        width = int(max(_WINDOW, min(1 << 16, (1 << 20) // live.size)))
        p, slope = psi[live], a[live]
        window = m[:, None] + np.arange(width, dtype=np.float64)[None, :]
        last = np.ceil((window + 0.5) / p[:, None]) - 1  # the last N with M(N) = M
        bound = slope[:, None] * np.sqrt(last) - z_power
        counts = np.minimum(np.floor((window + np.sqrt(window) * np.maximum(bound, 0.0)) / 2), window)
        # Beyond the table, only counts where K can reach the lower bound on k(M) need an e-value.
        possible = (bound > 0) & (
            (window <= bounds.m0) | (counts >= bounds.smallest_counts(window, m[:, None], bounds.excess(m)[:, None]))
        )
        meets = _first_meeting(bounds, window, bound, possible)
        hit = meets.any(axis=1)
        end = window[:, -1].copy()
        if hit.any():
            rows = np.flatnonzero(hit)
            at = window[rows, np.argmax(meets[hit], axis=1)]
            tops = bounds.u(at) + z_power
            # The screen redone with u itself; a count where the two disagree in the last bit is passed over.
            confirmed = slope[rows] * np.sqrt(np.ceil((at + 0.5) / p[rows]) - 1) >= tops
            hit[rows[~confirmed]] = False
            end[rows[~confirmed]] = at[~confirmed]
            rows, at, tops = rows[confirmed], at[confirmed], tops[confirmed]
            first = np.where(at == 1, 1.0, np.ceil((at - 0.5) / p[rows]))
            start = np.maximum(first, np.ceil(((tops / slope[rows]) ** 2) * (1 - 1e-15)))
            while True:  # the first N of that M with a sqrt(N) >= u + z, safe against rounding in the square
                short = slope[rows] * np.sqrt(start) < tops
                if not short.any():
                    break
                start = start + short
            result[live[rows]] = start
        live, m = live[~hit], end[~hit] + 1
    else:
        raise LlmPowerError(
            f"the anytime-valid required N search did not finish in {_MAX_ROUNDS} rounds "
            f"for {live.size} pairs (b, c, n) such as {b.ravel()[live[0]]:.0f}, {c.ravel()[live[0]]:.0f}, "
            f"{n.ravel()[live[0]]:.0f}"
        )
    result[result > LARGEST_N] = np.inf
    return finish(result.reshape(shape))
