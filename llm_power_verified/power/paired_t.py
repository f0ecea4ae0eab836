"""Power and required sample size of the paired t-test for graded scores.

The normal approximation is printed from ``derivations/paired_t.py``; the
exact answer uses the noncentral t distribution: with d = mean_diff / sd_diff
and n pairs, T = sqrt(n) D-bar / s_D follows a noncentral t with n - 1 degrees
of freedom and noncentrality d sqrt(n).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llm_power_verified._generated import paired_t as _paired_t
from llm_power_verified._validation import check_alpha_power, check_in_open_interval, check_positive, finish, sides_for
from llm_power_verified.errors import ArgumentError

__all__ = ["power_paired_t", "required_n_paired_t"]


def _power_scalar(n: float, effect: float, alpha: float, alternative: str) -> float:
    # Lazy: scipy.stats adds about 1.2 s to `import llm_power_verified` (measured), which loads this room.
    from scipy import stats  # imported here: scipy.stats alone doubles the package import time

    df = n - 1
    noncentrality = effect * np.sqrt(n)
    if alternative == "two-sided":
        critical = stats.t.isf(alpha / 2, df)
        # P(T <= -c | nc) written as P(T >= c | -nc): scipy's nct.cdf returns NaN far in that tail.
        return float(_upper_tail(critical, df, noncentrality) + _upper_tail(critical, df, -noncentrality))
    if alternative == "smaller":
        noncentrality = -noncentrality
    critical = stats.t.isf(alpha, df)
    return float(_upper_tail(critical, df, noncentrality))


def _upper_tail(critical: float, df: float, noncentrality: float) -> float:
    """P(T >= critical) for T ~ t'(df, noncentrality); by quadrature where scipy's nct gives NaN.

    scipy's ``nct.sf`` returns NaN once the noncentrality passes about 1e8 to 1e9 (an effect of 1e10 standard
    deviations at 2 items, or 1e8 at a million).  There T = (Z + nc) / sqrt(V / df) with V ~ chi2(df) gives
    P(T >= c) = 1 - E[Phi(c sqrt(V / df) - nc)] for nc > 0 and E[Phi(nc - c sqrt(V / df))] for nc < 0: the
    expectation of a tail that is 0 but where V / df is astronomically far from 1, one smooth integral for quad.
    """
    # Lazy: as in _power_scalar.
    from scipy import stats

    tail = float(stats.nct.sf(critical, df, noncentrality))
    return tail if not np.isnan(tail) else _tail_by_quadrature(critical, df, noncentrality)


def _tail_by_quadrature(critical: float, df: float, noncentrality: float) -> float:
    """P(T >= critical) for T ~ t'(df, noncentrality) as one integral over V ~ chi2(df) (see :func:`_upper_tail`)."""
    # Lazy: as in _power_scalar.
    from scipy import integrate, special, stats

    sign = 1.0 if noncentrality > 0 else -1.0

    def small(v: float) -> float:
        return float(stats.chi2.pdf(v, df) * special.ndtr(sign * critical * np.sqrt(v / df) - abs(noncentrality)))

    # Over the central chi-square mass only (outside it less than 2e-16), split at its mode region: quad on [0, inf)
    # misses a peak at V near df = 1000.
    low, high = float(stats.chi2.ppf(1e-16, df)), float(stats.chi2.isf(1e-16, df))
    rest = integrate.quad(small, low, high, points=[max(df - 2.0, low)], limit=200)[0]
    return 1.0 - rest if sign > 0 else rest


def power_paired_t(
    n: Any, mean_diff: Any, sd_diff: Any, alpha: Any = 0.05, alternative: str = "two-sided"
) -> float | np.ndarray:
    """Exact power of the paired t-test with n pairs (noncentral t; n may be fractional).

    Parameters
    ----------
    n : array_like
        Number of pairs, > 1 (fractional n is allowed, for solving).
    mean_diff : array_like
        Mean of the per-item difference (the effect; any sign).
    sd_diff : array_like
        Standard deviation of the per-item difference, > 0.
    alpha : array_like, default 0.05
        Significance level, in (0, 1).
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        The alternative hypothesis: "larger" is H1: mean difference > 0, "smaller" is H1: mean difference < 0.

    Returns
    -------
    float or numpy.ndarray
        The power.

    Notes
    -----
    Two-sided: P(T >= t_{1-alpha/2, n-1}) + P(T <= -t_{1-alpha/2, n-1}) with
    T ~ t'(n - 1, sqrt(n) mean_diff / sd_diff).  Matches statsmodels'
    ``TTestPower().power`` (which also sums both tails).

    The noncentral t distribution is scipy's; ``derivations/paired_t.py`` gives the normal approximation and its
    derivation.

    References
    ----------
    Cohen (1988), Ch. 2; R's ``power.t.test(type = "paired", strict = TRUE)``,
    against which the crosscheck suite runs it (R's default ``strict = FALSE``
    counts only the upper tail of the two-sided test, a little less power).

    Examples
    --------
    >>> round(power_paired_t(34, 0.5, 1.0), 4)
    0.8078
    """
    n = check_in_open_interval("n", n, 1.0, np.inf)
    mean_diff = check_in_open_interval("mean_diff", mean_diff, -np.inf, np.inf)
    sd_diff = check_positive("sd_diff", sd_diff)
    alpha, _ = check_alpha_power(alpha)
    sides_for(alternative)
    n, effect, alpha = np.broadcast_arrays(n, mean_diff / sd_diff, alpha)
    out = np.full(n.shape, np.nan)
    for index in np.ndindex(n.shape):
        if not np.isnan(n[index] + effect[index] + alpha[index]):
            out[index] = _power_scalar(n[index], effect[index], alpha[index], alternative)
    return finish(out)


def required_n_paired_t(
    mean_diff: Any,
    sd_diff: Any,
    alpha: Any = 0.05,
    power: Any = 0.8,
    alternative: str = "two-sided",
    method: str = "exact",
) -> float | np.ndarray:
    """Unrounded number of pairs a paired t-test needs to reach the target power.

    Parameters
    ----------
    mean_diff : array_like
        Mean of the per-item difference (the effect; any sign).
    sd_diff : array_like
        Standard deviation of the per-item difference, > 0.
    alpha : array_like, default 0.05
        Significance level, in (0, 1).
    power : array_like, default 0.8
        Target power 1 - beta, in (alpha, 1).
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        The alternative hypothesis: "larger" is H1: mean difference > 0, "smaller" is H1: mean difference < 0.
    method : {"exact", "normal"}, default "exact"
        "exact" solves the noncentral-t power equation for a continuous n (the integer requirement is its
        ceiling); "normal" is the Eq. 3 approximation n = (z_{1-alpha/2} + z_{1-beta})^2 sd_diff^2 / mean_diff^2.

    Returns
    -------
    float or numpy.ndarray
        The number of pairs, unrounded; inf where the effect is 0 or points against a one-sided alternative.

    Notes
    -----
    mean_diff = 0 (or the wrong sign for a one-sided alternative) gives inf.

    The normal approximation is printed from ``derivations/paired_t.py``.

    References
    ----------
    Cohen (1988), Ch. 2; R's ``power.t.test(type = "paired", strict = TRUE)`` (crosscheck suite; its n is
    solved by uniroot to about 1e-4).

    Examples
    --------
    >>> round(required_n_paired_t(0.5, 1.0, method="normal"), 3)
    31.396
    >>> round(required_n_paired_t(0.5, 1.0), 3)
    33.367
    """
    mean_diff = check_in_open_interval("mean_diff", mean_diff, -np.inf, np.inf)
    sd_diff = check_positive("sd_diff", sd_diff)
    alpha, power = check_alpha_power(alpha, power)
    sides = sides_for(alternative)
    directed = -mean_diff if alternative == "smaller" else mean_diff
    undetectable = (mean_diff == 0) if alternative == "two-sided" else (directed <= 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        normal = _paired_t.required_n_paired_t_normal(mean_diff, sd_diff, alpha, power, sides)
    normal = np.where(undetectable, np.inf, normal)
    if method == "normal":
        return finish(normal)
    if method != "exact":
        raise ArgumentError(f"method must be 'exact' or 'normal'; got {method!r}")
    shape = np.broadcast(mean_diff, sd_diff, alpha, power).shape
    arrays = [np.broadcast_to(x, shape) for x in (mean_diff, sd_diff, alpha, power, normal)]
    out = np.full(shape, np.nan)
    for index in np.ndindex(shape):
        diff, sd, level, target, start = (a[index] for a in arrays)
        if np.isnan(diff + sd + level + target):
            continue
        if not np.isfinite(start):
            out[index] = np.inf
            continue
        out[index] = _solve_exact(diff / sd, level, target, alternative, start)
    return finish(out)


def _solve_exact(effect: float, alpha: float, target: float, alternative: str, start: float) -> float:
    """Smallest continuous n >= 2 with power(n) = target, bracketing from the normal answer."""
    # Lazy: scipy.optimize adds about 0.6 s to `import llm_power_verified` (measured), which loads this room.
    from scipy.optimize import brentq

    def gap(n: float) -> float:
        return _power_scalar(n, effect, alpha, alternative) - target

    low = 2.0  # one degree of freedom: the smallest sample a paired t-test can use
    if gap(low) >= 0:
        return low
    high = max(start, 2.0)
    while gap(high) < 0:
        high *= 2
    return brentq(gap, low, high, xtol=1e-10, rtol=1e-13)
