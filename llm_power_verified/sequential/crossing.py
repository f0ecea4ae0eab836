"""The anytime-valid required N: the first N at which the monitored test reaches the target power, found exactly.

See :func:`required_n_anytime` for the definition and
:class:`~llm_power_verified.sequential.thresholds.Envelope` for the bounds that make the search exact.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from scipy.special import ndtri

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._validation import finish
from llm_power_verified.errors import ArgumentError, LlmPowerError
from llm_power_verified.power.sample_size import validate_table
from llm_power_verified.sequential.thresholds import Envelope, ThresholdTable, envelope, threshold_table

__all__ = ["LARGEST_N", "Envelope", "envelope", "required_n_anytime"]


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
    out, and checks the condition itself everywhere else.  When every item differs the same way (b = n or c = n,
    sigma_D = 0) the crossing is certain: N_av is the first M whose threshold any count reaches.  inf when b = c, when
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
    scan over every N.  A pair's search does not depend on the other pairs asked for
    with it, so each distinct (b, c) of one n is searched once per process and its
    value reused (an all-pairs audit of 5,000 models on 12,000 items asks for 0.56 M
    distinct tables among 12.5 M pairs).

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
    b, c, n = (np.atleast_1d(x).astype(np.float64) for x in validate_table(b, c, n))  # b + c <= n, named if not
    b, c, n = (x.ravel() for x in np.broadcast_arrays(b, c, n))
    if not 0.5 < power < 1:
        raise ArgumentError(f"power must lie in (0.5, 1) for the anytime-valid required N; got {power!r}")
    if table is None and not 0 < alpha < 1:  # NaN fails the comparison too
        raise ArgumentError(f"alpha must lie in (0, 1) for the anytime-valid required N; got {alpha!r}")
    table = table or threshold_table(float(alpha), mixture, tuple(prior))
    bounds = envelope(table.alpha, table.mixture, table.prior)
    z_power = -float(ndtri(1 - power))
    result = np.full(b.shape, np.inf)
    # N_av is a function of (b, c, n): each distinct (b, c) of one n is searched once, and once per process (_FOUND).
    size = n[0] if n.size else 1.0
    keyed = np.isfinite(b + c) & (n == size) & (b <= size) & (c <= size) & (size < 2**31)
    if keyed.any():
        keys, inverse = np.unique(
            b[keyed].astype(np.int64) * int(size + 1) + c[keyed].astype(np.int64), return_inverse=True
        )
        config = (float(size), table.alpha, table.mixture, tuple(table.prior), float(power))
        known, values = _FOUND.look_up(config, keys)
        if not known.all():
            wins, losses = (x.astype(np.float64) for x in np.divmod(keys[~known], int(size + 1)))
            values[~known] = _search(wins, losses, np.full(wins.size, size), bounds, z_power)
            _FOUND.store(config, keys[~known], values[~known])
        result[keyed] = values[inverse.reshape(-1)]
    searched = ~keyed & np.isfinite(b + c + n)
    if searched.any():
        result[searched] = _search(b[searched], c[searched], n[searched], bounds, z_power)
    result[np.isnan(b + c + n)] = np.nan  # a missing count: N_av unknown, not inf
    return finish(result.reshape(shape))


class _Found:
    """N_av already found in this process: sorted keys b (n + 1) + c and their N_av, per (n, alpha, mixture, power).

    An all-pairs audit asks for the same (b, c) many times (12.5 M pairs of 5,000 models on 12,000 items hold 0.56 M
    distinct ones), in blocks of pairs.  N_av is a function of (b, c, n) and the settings alone (its search does not
    depend on the other pairs asked for with it), so a value found once is reused as is.  At most ``LIMIT`` values
    per setting are kept (16 bytes each), for the last ``SETTINGS`` settings.
    """

    LIMIT = 1 << 22
    SETTINGS = 4

    def __init__(self) -> None:
        self._tables: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._lock = threading.Lock()

    def look_up(self, config: tuple, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(known, values) of sorted unique ``keys``: values where known, NaN elsewhere."""
        stored, found = self._tables.get(config, _EMPTY)
        at, known = _present(stored, keys)
        return known, np.where(known, found[np.minimum(at, found.size - 1)] if found.size else np.nan, np.nan)

    def store(self, config: tuple, keys: np.ndarray, values: np.ndarray) -> None:
        """Add sorted unique ``keys`` and their values (those another thread stored meanwhile are skipped)."""
        with self._lock:
            stored, found = self._tables.pop(config, _EMPTY)
            at, known = _present(stored, keys)
            if stored.size + keys.size - known.sum() <= self.LIMIT:
                stored, found = (
                    np.insert(stored, at[~known], keys[~known]),
                    np.insert(found, at[~known], values[~known]),
                )
            while len(self._tables) >= self.SETTINGS:
                del self._tables[next(iter(self._tables))]
            self._tables[config] = (stored, found)


_EMPTY = (np.empty(0, dtype=np.int64), np.empty(0))


def _present(stored: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each key goes in the sorted ``stored``, and whether it is there."""
    at = np.searchsorted(stored, keys)
    return at, stored[np.minimum(at, stored.size - 1)] == keys if stored.size else np.zeros(keys.size, dtype=bool)


_FOUND = _Found()


def _first_reachable(bounds: Envelope) -> float:
    """The fewest discordant pairs whose e-value can reach 1/alpha (all of them one way): the first finite u(M)."""
    for start in range(1, int(LARGEST_N), 4096):
        reachable = np.isfinite(bounds.u(np.arange(start, start + 4096, dtype=np.float64)))
        if reachable.any():
            return float(start + int(np.argmax(reachable)))
    return float("inf")  # pragma: no cover - every mixture's e-value grows without bound in M


def _search(b: np.ndarray, c: np.ndarray, n: np.ndarray, bounds: Envelope, z_power: float) -> np.ndarray:
    """N_av of each (b, c, n) (flat float arrays): the first-crossing search of :func:`required_n_anytime`."""
    psi = (b + c) / n
    gap = np.abs(b - c) / n
    sd = np.sqrt(_variance.paired_difference_variance_from_cells(b / n, c / n))
    result = np.full(psi.shape, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(sd > 0, gap / sd, 0.0)
    # u(M) > gamma sqrt(M) for every M, and a sqrt(N) <= a sqrt((M + 1/2) / psi); with a <= gamma sqrt(psi) the
    # condition would need gamma (sqrt(M + 1/2) - sqrt(M)) <= gamma / 4 >= z_{1-beta}, false for power > 0.5.
    # sigma_D = 0 with a gap: every item differs the same way (b = n or c = n, so psi = 1 and M(N) = N), the
    # plug-in monitored test crosses with certainty at the first M whose threshold any count reaches (a = inf).
    certain = (sd == 0) & (gap > 0)
    if certain.any():
        result[certain] = _first_reachable(bounds)
    live = np.flatnonzero((gap > 0) & ~certain & (a > bounds.gamma * np.sqrt(psi)))
    m = np.ones(live.size)
    # Counts checked per round: about 64 per pair of the call, within [2^14, 2^20] (a fixed 2^20 made a call of a
    # few pairs check 2^20 counts a round, most of them past the crossing).
    budget = min(max(64 * live.size, 1 << 14), 1 << 20)
    for _ in range(_MAX_ROUNDS):
        m = _leap(bounds, m, psi[live], a[live], z_power)
        beyond = m > psi[live] * LARGEST_N + 1
        live, m = live[~beyond], m[~beyond]
        if live.size == 0:
            break
        # Few pairs are left after the first rounds; wider windows for them end the walk through the saw-tooth sooner.
        width = int(max(_WINDOW, min(1 << 16, budget // live.size)))
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
            f"for {live.size} pairs (b, c, n) such as {b[live[0]]:.0f}, {c[live[0]]:.0f}, {n[live[0]]:.0f}"
        )
    result[result > LARGEST_N] = np.inf
    return result
