"""Anytime-valid monitoring: mixture e-processes, confidence sequences, e-BH.

A leaderboard that updates continuously can be monitored and stopped at any
time with the Type-I error still controlled, because an e-process e_n
satisfies P(sup_n e_n >= 1/alpha) <= alpha under H0 (Ville's inequality).

E-process on the discordant signs (paper Appendix C, Eq. 24).  After b + c
discordant pairs, b won by model A,

    e = sum_theta w(theta) theta^b (1 - theta)^c / (1/2)^(b + c).

Mixtures (``mixture``):

* ``"grid"`` (default everywhere, the paper's): theta in {0.01, ..., 0.49,
  0.51, ..., 0.99}, equal weights;
* ``"beta"``: a Beta(a, b') prior, e = 2^n B(a + b, b' + c) / B(a, b')
  (derived in ``derivations/e_process.py``), evaluated here in a Stirling form
  whose terms never cancel, so it stays exact for n = 10^6 and beyond;
* ``"two-point"``: theta in {0.4, 0.6}, equal weights.

All values are logs: e-values of 1e300 and far beyond neither overflow nor
lose digits.  Reject when e >= 1/alpha; the anytime-valid p-value is
min(1, 1 / sup_n e_n).

Anytime-valid required N (this module's definition).  The fixed-n N* solves
N = ((z_{1-alpha/2} + z_{1-beta}) sigma_D / |delta|)^2.  Replacing
z_{1-alpha/2} by the time-uniform threshold u(M) (the smallest |z| =
|b - c| / sqrt(M) at which e reaches 1/alpha with M discordant pairs),
evaluated at the expected discordant count M = psi N, gives the fixed point

    N_av = ((u(psi N_av) + z_{1-beta}) sigma_D / |delta|)^2,

the number of items at which the monitored test reaches the target power
under the normal approximation.  The inflation is N_av / N*.  A second,
simulated definition (:func:`required_n_anytime_simulated`) is the
(1 - beta) quantile of the e-process's first crossing time.

References
----------
Ville, J. (1939). Etude critique de la notion de collectif.
Howard, S. R., Ramdas, A., McAuliffe, J., Sekhon, J. (2021). Time-uniform,
nonparametric, nonasymptotic confidence sequences. Ann. Statist. 49(2), 1055-1080.
Wang, R., Ramdas, A. (2022). False discovery rate control with e-values.
JRSS-B 84(3), 822-852.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import gammaln, logsumexp, ndtri

from llm_power_verified.inference.binomial import deviance, stirling_error
from llm_power_verified._generated import e_process as _generated
from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._validation import check_count, finish

__all__ = [
    "ConfidenceSequence",
    "MIXTURES",
    "anytime_pvalue",
    "confidence_sequence",
    "e_bh",
    "e_process",
    "log_e_value",
    "optional_stopping_calibration",
    "required_n_anytime",
    "required_n_anytime_simulated",
    "threshold",
]

MIXTURES = ("grid", "beta", "two-point")
GRID = np.concatenate([np.arange(1, 50), np.arange(51, 100)]) / 100.0
TWO_POINT = np.array([0.4, 0.6])
_LOG_2 = math.log(2.0)
_LOG_2PI = math.log(2 * math.pi)


def _check_mixture(mixture: str) -> None:
    if mixture not in MIXTURES:
        raise ValueError(f"mixture must be one of {MIXTURES}; got {mixture!r}")


def _log_e_discrete(b: np.ndarray, c: np.ndarray, thetas: np.ndarray) -> np.ndarray:
    log_win = np.log1p(2 * thetas - 1)  # log(2 theta)
    log_loss = np.log1p(1 - 2 * thetas)  # log(2 (1 - theta))
    terms = b[..., None] * log_win + c[..., None] * log_loss
    return logsumexp(terms, axis=-1) - math.log(thetas.size)


def _log_beta_plus(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """log B(x, y) + (x + y) log 2, free of cancellation for large x, y (Stirling and deviance form).

    With s = x + y, m = s / 2 and bd0(x, m) = x log(x/m) + m - x >= 0:
    log B(x, y) + s log 2 = log(2 pi)/2 + log(s / (x y))/2 + bd0(x, m) + bd0(y, m)
    + stirl(x) + stirl(y) - stirl(s), from Gamma(z) = sqrt(2 pi) z^(z - 1/2) e^(-z + stirl(z)).
    """
    s = x + y
    half = s / 2
    return (0.5 * _LOG_2PI + 0.5 * (np.log(s) - np.log(x) - np.log(y)) + deviance(x, half) + deviance(y, half)
            + stirling_error(x) + stirling_error(y) - stirling_error(s))


def _log_e_beta(b: np.ndarray, c: np.ndarray, a: float, a2: float) -> np.ndarray:
    shape = np.broadcast(b, c).shape
    x = (np.broadcast_to(b, shape) + a).astype(np.float64).ravel()
    y = (np.broadcast_to(c, shape) + a2).astype(np.float64).ravel()
    prior = float(gammaln(a) + gammaln(a2) - gammaln(a + a2))
    value = _log_beta_plus(x, y) - (a + a2) * _LOG_2 - prior
    return value.reshape(shape)


def log_e_value(b: Any, c: Any, mixture: str = "grid", prior: tuple[float, float] = (1.0, 1.0)):
    """log e-value after b discordant pairs won by A and c won by B.

    Examples
    --------
    >>> round(float(log_e_value(0, 0)), 12)
    0.0
    >>> round(float(log_e_value(30, 10)), 4)
    3.4742
    """
    _check_mixture(mixture)
    b = check_count("b", b).astype(np.float64)
    c = check_count("c", c).astype(np.float64)
    b, c = np.broadcast_arrays(b, c)
    if mixture == "beta":
        a, a2 = (float(v) for v in prior)
        if not (a > 0 and a2 > 0):
            raise ValueError(f"prior must be two positive Beta parameters; got {prior!r}")
        return finish(_log_e_beta(b, c, a, a2))
    thetas = GRID if mixture == "grid" else TWO_POINT
    out = np.empty(b.shape)
    flat_b, flat_c, flat_out = b.ravel(), c.ravel(), out.reshape(-1)
    for start in range(0, flat_b.size, 100_000):
        sl = slice(start, start + 100_000)
        flat_out[sl] = _log_e_discrete(flat_b[sl], flat_c[sl], thetas)
    return finish(out)


def e_process(scores_a: Any, scores_b: Any, mixture: str = "grid", prior=(1.0, 1.0)) -> dict:
    """The e-process over two aligned 0/1 score vectors in arrival order.

    Returns arrays indexed by item (1-based position t = index + 1): cumulative
    b and c, log e_t, the running mean difference, and the first item at which
    e reaches each of 1/0.05 and 1/0.01 (None if never).
    """
    from llm_power_verified.inference.mcnemar import as_binary_vector

    a = as_binary_vector("scores_a", scores_a)
    b_scores = as_binary_vector("scores_b", scores_b)
    if a.size != b_scores.size:
        raise ValueError(f"scores_a and scores_b must have the same length; got {a.size} and {b_scores.size}")
    wins = np.cumsum((a == 1) & (b_scores == 0))
    losses = np.cumsum((a == 0) & (b_scores == 1))
    log_e = np.asarray(log_e_value(wins, losses, mixture, prior), dtype=np.float64)
    t = np.arange(1, a.size + 1)
    return {"b": wins, "c": losses, "log_e": log_e, "mean_difference": (wins - losses) / t,
            "running_max_log_e": np.maximum.accumulate(log_e)}


def anytime_pvalue(log_e: Any) -> float:
    """min(1, 1 / sup e) from a trajectory of log e-values (or a single value)."""
    values = np.atleast_1d(np.asarray(log_e, dtype=np.float64))
    return float(min(1.0, math.exp(-max(float(np.max(values)), 0.0))))


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


def threshold(n: Any, alpha: float = 0.05, mixture: str = "grid", prior=(1.0, 1.0)):
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
        raise ValueError(f"alpha must lie in (0, 1); got {alpha!r}")
    counts = _threshold_counts(np.atleast_1d(n).astype(np.float64), alpha, mixture, prior)
    m = np.atleast_1d(n).astype(np.float64)
    u = np.where(counts > m, np.inf, (2 * counts - m) / np.sqrt(m))
    return finish(u.reshape(np.shape(n)))


class _ThresholdTable:
    """u(m), exact for m <= 4096 and on a geometric grid (400 points per decade) above,
    linearly interpolated in log m between grid points (u varies like sqrt(log m) there)."""

    EXACT = 4096

    def __init__(self, alpha: float, mixture: str, prior) -> None:
        self.alpha, self.mixture, self.prior = alpha, mixture, prior
        grid = np.arange(1, self.EXACT + 1, dtype=np.float64)
        self.grid = grid
        self.values = self._exact(grid)

    def _exact(self, m: np.ndarray) -> np.ndarray:
        counts = _threshold_counts(m, self.alpha, self.mixture, self.prior)
        return np.where(counts > m, np.inf, (2 * counts - m) / np.sqrt(m))

    def __call__(self, m: np.ndarray) -> np.ndarray:
        m = np.maximum(np.asarray(m, dtype=np.float64), 1.0)
        largest = float(m.max(initial=1.0))
        if largest > self.grid[-1]:
            decades = math.log10(largest * 1.01 / self.grid[-1])
            extra = np.unique(np.rint(self.grid[-1] * np.logspace(0, decades, max(int(400 * decades), 2) + 1)[1:]))
            self.grid = np.concatenate([self.grid, extra])
            self.values = np.concatenate([self.values, self._exact(extra)])
        small = m <= self.EXACT
        out = np.empty(m.shape)
        out[small] = self.values[np.rint(m[small]).astype(np.int64) - 1]
        if (~small).any():
            out[~small] = np.interp(np.log(m[~small]), np.log(self.grid), self.values)
        return out


_NO_FIXED_POINT = 1e12


def required_n_anytime(b: Any, c: Any, n: Any, alpha: float = 0.05, power: float = 0.8, mixture: str = "grid",
                       prior=(1.0, 1.0), table: _ThresholdTable | None = None):
    """Anytime-valid required N at an observed table, by the boundary definition (see the module notes).

    Plug-in discordance psi = (b + c)/n, gap delta = (b - c)/n and
    sigma_D^2 = psi - delta^2; iterate N <- ((u(psi N) + z_{1-beta}) sigma_D / |delta|)^2
    from the fixed-n N* until it moves by less than 1e-9 relative.  b = c gives inf,
    and so does an iteration that passes 1e12 items: the grid mixture puts no
    mass on |theta - 1/2| < 0.01, so for a discordant split closer to 1/2 than
    about 0.005 its e-process drifts down and no N reaches the target power.

    Examples
    --------
    >>> from llm_power_verified import required_n_from_counts
    >>> anytime = required_n_anytime(1680, 1454, 12032)
    >>> round(anytime / required_n_from_counts(1680, 1454, 12032), 2)
    2.66
    """
    from llm_power_verified.planning.sample_size import required_n_from_counts

    shape = np.broadcast(np.asarray(b), np.asarray(c), np.asarray(n)).shape
    b = np.atleast_1d(check_count("b", b)).astype(np.float64)
    c = np.atleast_1d(check_count("c", c)).astype(np.float64)
    n = np.atleast_1d(check_count("n", n, minimum=1)).astype(np.float64)
    b, c, n = np.broadcast_arrays(b, c, n)
    table = table or _ThresholdTable(alpha, mixture, prior)
    fixed = np.asarray(required_n_from_counts(b, c, n, alpha, power), dtype=np.float64).reshape(b.shape)
    psi = (b + c) / n
    gap = np.abs(b - c) / n
    variance = _variance.paired_difference_variance_from_cells(b / n, c / n)
    z_power = -float(ndtri(1 - power))
    current = fixed.copy()
    finite = np.isfinite(current) & (gap > 0)
    current[~finite] = np.inf
    for _ in range(200):
        if not finite.any():
            break
        m = np.where(finite, psi * np.where(finite, current, 1.0), 1.0)
        u = table(np.maximum(m, 1.0))
        reachable = np.isfinite(u)
        updated = np.where(reachable, (np.where(reachable, u, 0.0) + z_power) ** 2 * variance / np.where(gap > 0, gap, 1.0) ** 2, 2 * current)
        updated = np.where(finite, np.maximum(updated, 1.0), current)
        diverged = finite & (updated > _NO_FIXED_POINT)
        updated[diverged] = np.inf
        finite &= ~diverged
        with np.errstate(invalid="ignore"):
            moved = np.abs(updated - current) > 1e-9 * np.abs(current)
        current = updated
        if not (moved & finite).any():
            break
    return finish(current.reshape(shape))


def required_n_anytime_simulated(b: int, c: int, n: int, alpha: float = 0.05, power: float = 0.8, mixture: str = "grid",
                                 replicates: int = 2000, seed: int = 0, prior=(1.0, 1.0)) -> dict:
    """(1 - beta) quantile of the e-process's first crossing of 1/alpha, in items.

    Discordant signs are simulated with P(A wins) = b / (b + c); discordant
    pairs arrive at rate psi = (b + c)/n per item, so M discordant pairs take
    M / psi items on average.  Paths are simulated up to 4x the boundary
    definition's discordant count; replicates that never cross count as inf.
    Returns the quantile in items, the median, and the share that crossed.
    """
    if b == c:
        return {"required_n": math.inf, "median_n": math.inf, "crossed": 0.0}
    rng = np.random.default_rng(seed)
    psi = (b + c) / n
    theta = b / (b + c)
    table = _ThresholdTable(alpha, mixture, prior)
    horizon = int(min(4 * psi * float(required_n_anytime(b, c, n, alpha, power, mixture, prior, table)) + 100, 5_000_000))
    m = np.arange(1, horizon + 1, dtype=np.float64)
    needed = np.ceil(table(m) * np.sqrt(m) - 1e-9)  # interpolated above m = 4096
    crossings = np.full(replicates, np.inf)
    chunk = max(1, 20_000_000 // horizon)
    for start in range(0, replicates, chunk):
        size = min(chunk, replicates - start)
        steps = np.where(rng.random((size, horizon)) < theta, 1, -1).astype(np.int32)
        walk = np.abs(np.cumsum(steps, axis=1))
        hit = walk >= needed[None, :]
        first = np.where(hit.any(axis=1), np.argmax(hit, axis=1) + 1, np.inf)
        crossings[start:start + size] = first
    items = crossings / psi
    return {"required_n": float(np.quantile(items, power)), "median_n": float(np.median(items)),
            "crossed": float(np.mean(np.isfinite(crossings))), "replicates": replicates, "seed": seed}


@dataclass(frozen=True)
class ConfidenceSequence:
    """Time-uniform confidence sequence for the mean paired difference.

    ``lower[t-1]``, ``upper[t-1]`` bound the mean after t items; with
    probability at least 1 - alpha every interval covers it simultaneously.
    """

    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    alpha: float
    rho: float


def _optimal_rho(v: float, alpha: float) -> float:
    from scipy.optimize import minimize_scalar

    result = minimize_scalar(lambda log_rho: float(_generated.normal_mixture_boundary(v, math.exp(log_rho), alpha)),
                             bounds=(math.log(v) - 20, math.log(v) + 5), method="bounded")
    return math.exp(result.x)


def confidence_sequence(differences: Any, alpha: float = 0.05, optimize_at: int | None = None, rho: float | None = None) -> ConfidenceSequence:
    """Normal-mixture confidence sequence for the mean of per-item differences in [-1, 1].

    A variable in [-1, 1] is sub-Gaussian with variance proxy 1 (Hoeffding), so
    S_t = sum (D_i - mu) has intrinsic time V_t = t and the two-sided boundary
    of Howard et al. (2021): |S_t| < sqrt((t + rho) log((t + rho) / (rho alpha^2))).
    ``rho`` defaults to the value minimising the boundary at ``optimize_at``
    (default: the number of items).

    Examples
    --------
    >>> cs = confidence_sequence([1, 0, 0, 1, -1, 1] * 50)
    >>> bool(cs.lower[-1] < 1 / 3 < cs.upper[-1])
    True
    """
    values = np.asarray(differences, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("differences must be a non-empty one-dimensional array")
    bad = ~np.isfinite(values) | (values < -1) | (values > 1)
    if bad.any():
        index = int(np.argmax(bad))
        raise ValueError(f"differences must lie in [-1, 1]; got {values[index]!r} at index {index}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1); got {alpha!r}")
    t = np.arange(1, values.size + 1, dtype=np.float64)
    mixing = rho if rho is not None else _optimal_rho(float(optimize_at or values.size), alpha)
    radius = _generated.normal_mixture_boundary(t, mixing, alpha) / t
    mean = np.cumsum(values) / t
    return ConfidenceSequence(mean, np.maximum(mean - radius, -1.0), np.minimum(mean + radius, 1.0), alpha, mixing)


def e_bh(log_e_values: Any, alpha: float = 0.05) -> np.ndarray:
    """e-BH (Wang and Ramdas 2022): reject the k* largest e-values, k* = max{k : e_(k) >= m / (alpha k)}.

    Takes log e-values; returns a boolean array of rejections.

    Examples
    --------
    >>> e_bh(np.log([100.0, 30.0, 2.0, 0.5]), alpha=0.1).tolist()
    [True, True, False, False]
    """
    values = np.asarray(log_e_values, dtype=np.float64)
    m = values.size
    order = np.argsort(-values, kind="stable")
    k = np.arange(1, m + 1)
    passes = values[order] >= np.log(m / (alpha * k))
    rejected = np.zeros(m, dtype=bool)
    if passes.any():
        largest = int(np.max(np.flatnonzero(passes))) + 1
        rejected[order[:largest]] = True
    return rejected


def optional_stopping_calibration(n_items: int, looks: int, p10: float, p01: float, replicates: int = 2000, alpha: float = 0.05,
                                  mixture: str = "grid", seed: int = 0) -> dict:
    """Rejection rates of the e-process and of a peeked fixed-n chi-square test at the same looks.

    Paired 0/1 items are simulated with discordant probabilities p10 (A only)
    and p01 (B only); at ``looks`` equally spaced times the McNemar chi-square
    test (uncorrected) is run and the e-process is checked.  Under H0
    (p10 = p01) the e-process's rate stays below alpha at any number of looks;
    the peeked chi-square test's does not.
    """
    from llm_power_verified.inference.mcnemar import mcnemar_chi2

    rng = np.random.default_rng(seed)
    cells = rng.multinomial(1, [p10, p01, 1 - p10 - p01], size=(replicates, n_items)).astype(np.int8) if replicates * n_items <= 5_000_000 else None
    if cells is None:
        raise ValueError("replicates * n_items must be at most 5e6 for this simulation")
    wins = np.cumsum(cells[:, :, 0], axis=1)
    losses = np.cumsum(cells[:, :, 1], axis=1)
    times = np.unique(np.linspace(n_items / looks, n_items, looks).astype(np.int64)) - 1
    target = math.log(1 / alpha)
    e_reject = np.zeros(replicates, dtype=bool)
    chi_reject = np.zeros(replicates, dtype=bool)
    for t in times:
        e_reject |= np.asarray(log_e_value(wins[:, t], losses[:, t], mixture)) >= target
        chi_reject |= np.asarray(mcnemar_chi2(wins[:, t], losses[:, t]).pvalue) <= alpha
    every_item = np.zeros(replicates, dtype=bool)
    for start in range(0, n_items, 500):
        block = slice(start, min(start + 500, n_items))
        every_item |= (np.asarray(log_e_value(wins[:, block], losses[:, block], mixture)) >= target).any(axis=1)
    return {"looks": int(times.size), "replicates": replicates, "e_process_at_looks": int(e_reject.sum()),
            "e_process_any_item": int(every_item.sum()), "peeked_chi2": int(chi_reject.sum()), "alpha": alpha, "seed": seed}
