"""The time-uniform threshold of the mixture e-process, the anytime-valid required N, and optional-stopping calibration.

See :mod:`llm_power_verified.sequential.e_process` for the e-process and this package's definition
of the anytime-valid N.
"""

from __future__ import annotations

import functools
import math
import threading
from typing import Any

import numpy as np
from scipy.special import ndtri

from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._validation import check_count, finish, renamed_parameters
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.mcnemar import mcnemar_chi2
from llm_power_verified.planning.sample_size import required_n_from_counts
from llm_power_verified.sequential.e_process import log_e_value

__all__ = ["optional_stopping_calibration", "required_n_anytime", "required_n_anytime_simulated", "threshold"]


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


def threshold(n: Any, alpha: float = 0.05, mixture: str = "grid", prior=(1.0, 1.0)) -> float | np.ndarray:
    """u(n): the smallest |z| = |b - c| / sqrt(n) at which e reaches 1/alpha with n discordant pairs.

    inf where no split of n pairs reaches 1/alpha.  For the symmetric
    mixtures (grid, two-point, Beta(a, a)) it is the same in both directions.

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
    """u(m), exact for m <= 4096 and at the fixed points 4096 x 10^(k/400) above, linearly
    interpolated in log m between them (u varies like sqrt(log m) there).

    The grid above 4096 is the same whatever m are asked for (it is extended
    point by point, never re-spaced), so u(m) does not depend on which other m
    were asked for before or in the same call: a pair's anytime-valid N does
    not change with the other pairs of the audit.  One table per (alpha,
    mixture, prior) is kept for the process (:func:`threshold_table`).
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
def threshold_table(alpha: float, mixture: str = "grid", prior: tuple[float, float] = (1.0, 1.0)) -> ThresholdTable:
    """The process's one :class:`ThresholdTable` for (alpha, mixture, prior): built on first use (0.16 s), then reused."""
    return ThresholdTable(alpha, mixture, tuple(prior))


_NO_FIXED_POINT = 1e12


def required_n_anytime(b: Any, c: Any, n: Any, alpha: float = 0.05, power: float = 0.8, mixture: str = "grid",
                       prior=(1.0, 1.0), table: ThresholdTable | None = None) -> float | np.ndarray:
    """Anytime-valid required N at an observed table, by the boundary definition (see the module notes).

    Plug-in discordance psi = (b + c)/n, gap delta = (b - c)/n and
    sigma_D^2 = psi - delta^2; iterate N <- ((u(psi N) + z_{1-beta}) sigma_D / |delta|)^2
    from the fixed-n N* until it moves by less than 1e-9 relative.  b = c gives inf,
    and so does an iteration that passes 1e12 items: the grid mixture puts no
    mass on |theta - 1/2| < 0.01, so for a discordant split closer to 1/2 than
    about 0.005 its e-process drifts down and no N reaches the target power.

    Notes
    -----
    N_av = ((u(psi N_av) + z_{1-beta}) sigma_D / |delta|)^2, with u(M) the smallest |b -
    c| / sqrt(M) at which the e-process reaches 1/alpha after M discordant pairs.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Appendix C;
    Howard, Ramdas, McAuliffe and Sekhon (2021), Ann. Statist. 49(2), 1055-1080.

    Examples
    --------
    >>> from llm_power_verified import required_n_from_counts
    >>> anytime = required_n_anytime(1680, 1454, 12032)
    >>> round(anytime / required_n_from_counts(1680, 1454, 12032), 2)
    2.66
    """

    shape = np.broadcast(np.asarray(b), np.asarray(c), np.asarray(n)).shape
    b = np.atleast_1d(check_count("b", b)).astype(np.float64)
    c = np.atleast_1d(check_count("c", c)).astype(np.float64)
    n = np.atleast_1d(check_count("n", n, minimum=1)).astype(np.float64)
    b, c, n = np.broadcast_arrays(b, c, n)
    table = table or threshold_table(float(alpha), mixture, tuple(prior))
    fixed = np.asarray(required_n_from_counts(b, c, n, alpha, power), dtype=np.float64).reshape(b.shape)
    psi = (b + c) / n
    gap = np.abs(b - c) / n
    variance = _variance.paired_difference_variance_from_cells(b / n, c / n)
    z_power = -float(ndtri(1 - power))
    current = fixed.copy()
    finite = np.isfinite(current) & (gap > 0)
    current[~finite] = np.inf
    # Each element iterates until its own step is below 1e-9 relative and is then left alone, so its
    # value does not depend on the other elements of the call (and the converged ones cost nothing).
    active = np.flatnonzero(finite)
    for _ in range(200):
        if active.size == 0:
            break
        now = current[active]
        u = table(np.maximum(psi[active] * now, 1.0))
        reachable = np.isfinite(u)
        updated = np.where(reachable, (np.where(reachable, u, 0.0) + z_power) ** 2 * variance[active] / gap[active] ** 2, 2 * now)
        updated = np.maximum(updated, 1.0)
        updated[updated > _NO_FIXED_POINT] = np.inf
        current[active] = updated
        moved = np.isfinite(updated) & (np.abs(updated - now) > 1e-9 * now)
        active = active[moved]
    return finish(current.reshape(shape))


@renamed_parameters(replicates="n_simulations")
def required_n_anytime_simulated(b: int, c: int, n: int, alpha: float = 0.05, power: float = 0.8, mixture: str = "grid",
                                 n_simulations: int = 2000, seed: int = 0, prior=(1.0, 1.0)) -> dict:
    """(1 - beta) quantile of the e-process's first crossing of 1/alpha, in items.

    Discordant signs are simulated with P(A wins) = b / (b + c); discordant
    pairs arrive at rate psi = (b + c)/n per item, so M discordant pairs take
    M / psi items on average.  Paths are simulated up to 4x the boundary
    definition's discordant count; n_simulations that never cross count as inf.
    Returns the quantile in items, the median, and the share that crossed.
    """
    if b == c:
        return {"required_n": math.inf, "median_n": math.inf, "crossed": 0.0}
    rng = np.random.default_rng(seed)
    psi = (b + c) / n
    theta = b / (b + c)
    table = threshold_table(float(alpha), mixture, tuple(prior))
    horizon = int(min(4 * psi * float(required_n_anytime(b, c, n, alpha, power, mixture, prior, table)) + 100, 5_000_000))
    m = np.arange(1, horizon + 1, dtype=np.float64)
    needed = np.ceil(table(m) * np.sqrt(m) - 1e-9)  # interpolated above m = 4096
    crossings = np.full(n_simulations, np.inf)
    chunk = max(1, 20_000_000 // horizon)
    for start in range(0, n_simulations, chunk):
        size = min(chunk, n_simulations - start)
        steps = np.where(rng.random((size, horizon)) < theta, 1, -1).astype(np.int32)
        walk = np.abs(np.cumsum(steps, axis=1))
        hit = walk >= needed[None, :]
        first = np.where(hit.any(axis=1), np.argmax(hit, axis=1) + 1, np.inf)
        crossings[start:start + size] = first
    items = crossings / psi
    return {"required_n": float(np.quantile(items, power)), "median_n": float(np.median(items)),
            "crossed": float(np.mean(np.isfinite(crossings))), "n_simulations": n_simulations, "seed": seed}




@renamed_parameters(replicates="n_simulations")
def optional_stopping_calibration(n_items: int, looks: int, p10: float, p01: float, n_simulations: int = 2000, alpha: float = 0.05,
                                  mixture: str = "grid", seed: int = 0) -> dict:
    """Rejection rates of the e-process and of a peeked fixed-n chi-square test at the same looks.

    Paired 0/1 items are simulated with discordant probabilities p10 (A only)
    and p01 (B only); at ``looks`` equally spaced times the McNemar chi-square
    test (uncorrected) is run and the e-process is checked.  Under H0
    (p10 = p01) the e-process's rate stays below alpha at any number of looks;
    the peeked chi-square test's does not.
    """

    rng = np.random.default_rng(seed)
    cells = rng.multinomial(1, [p10, p01, 1 - p10 - p01], size=(n_simulations, n_items)).astype(np.int8) if n_simulations * n_items <= 5_000_000 else None
    if cells is None:
        raise ArgumentError("n_simulations * n_items must be at most 5e6 for this simulation")
    wins = np.cumsum(cells[:, :, 0], axis=1)
    losses = np.cumsum(cells[:, :, 1], axis=1)
    times = np.unique(np.linspace(n_items / looks, n_items, looks).astype(np.int64)) - 1
    target = math.log(1 / alpha)
    e_reject = np.zeros(n_simulations, dtype=bool)
    chi_reject = np.zeros(n_simulations, dtype=bool)
    for t in times:
        e_reject |= np.asarray(log_e_value(wins[:, t], losses[:, t], mixture)) >= target
        chi_reject |= np.asarray(mcnemar_chi2(wins[:, t], losses[:, t]).pvalue) <= alpha
    every_item = np.zeros(n_simulations, dtype=bool)
    for start in range(0, n_items, 500):
        block = slice(start, min(start + 500, n_items))
        every_item |= (np.asarray(log_e_value(wins[:, block], losses[:, block], mixture)) >= target).any(axis=1)
    return {"looks": int(times.size), "n_simulations": n_simulations, "e_process_at_looks": int(e_reject.sum()),
            "e_process_any_item": int(every_item.sum()), "peeked_chi2": int(chi_reject.sum()), "alpha": alpha, "seed": seed}
