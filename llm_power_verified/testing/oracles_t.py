"""High-precision oracle of the paired (one-sample) t test's power and required number of pairs.

With n pairs and effect size d = mean / sd of the per-item difference, the test statistic follows a noncentral t
distribution with n - 1 degrees of freedom and noncentrality d sqrt(n).  Its tail is computed here in mpmath from
first principles, independent of scipy, and re-exported by :mod:`llm_power_verified.testing.oracles`.
"""

from __future__ import annotations

import mpmath

from llm_power_verified._validation import sides_for
from llm_power_verified.errors import ArgumentError

__all__ = [
    "ALTERNATIVES",
    "central_t_upper_quantile",
    "noncentral_t_upper_tail",
    "paired_t_power",
    "required_n_paired_t",
]

ALTERNATIVES = ("two-sided", "larger", "smaller")
DEFAULT_DIGITS = 30


def central_t_upper_quantile(tail: mpmath.mpf, df: mpmath.mpf) -> mpmath.mpf:
    """Upper quantile t with P(T > t) = tail for a central t distribution with df (maybe fractional) degrees of freedom.

    Parameters
    ----------
    tail : mpmath.mpf
        Upper-tail probability, in (0, 1/2).
    df : mpmath.mpf
        Degrees of freedom, > 0.

    Returns
    -------
    mpmath.mpf
        The quantile, at the working precision.

    Notes
    -----
    P(abs(T) >= t) = I_{df / (df + t^2)}(df / 2, 1/2) (``mpmath.betainc``), solved for t by the bracketing
    Illinois method of ``mpmath.findroot``.

    Examples
    --------
    >>> mpmath.nstr(central_t_upper_quantile(mpmath.mpf("0.025"), 10), 10)
    '2.228138852'
    """
    tail, df = mpmath.mpf(tail), mpmath.mpf(df)

    def excess(t):
        return mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, df / (df + t * t), regularized=True) - 2 * tail

    low = mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * tail)  # the normal quantile is below the t quantile
    high = 2 * low
    while excess(high) > 0:
        low, high = high, 2 * high
    return mpmath.findroot(excess, (low, high), solver="illinois", tol=mpmath.eps * 4)


def noncentral_t_upper_tail(critical: mpmath.mpf, df: mpmath.mpf, noncentrality: mpmath.mpf) -> mpmath.mpf:
    """P(T >= critical) for T ~ t'(df, noncentrality), by quadrature over the chi distribution.

    Parameters
    ----------
    critical : mpmath.mpf
        The threshold, >= 0.
    df : mpmath.mpf
        Degrees of freedom, > 0.
    noncentrality : mpmath.mpf
        The noncentrality (any sign).

    Returns
    -------
    mpmath.mpf
        The upper tail, at about the working precision (see ``llm_power_verified.testing.oracles.ERROR_BOUNDS``).

    Notes
    -----
    T = (Z + noncentrality) / S with S = sqrt(V / df), V ~ chi2(df), so P(T >= c) = E[Q(c S - noncentrality)],
    Q the standard normal upper tail: the integral of g(s) Q(c s - noncentrality) over s > 0, with
    g(s) = 2 (df/2)^(df/2) / Gamma(df/2) s^(df - 1) exp(-df s^2 / 2).  ``mpmath.quad`` (tanh-sinh) integrates
    it on intervals split around the mode of g (width 1/sqrt(2 df)) and around s = noncentrality / c, where the
    normal factor turns; the working precision is raised until quad's error estimate is below 10^-(dps - 3).

    Examples
    --------
    >>> mpmath.nstr(noncentral_t_upper_tail(mpmath.mpf(0), 5, 0), 10)
    '0.5'
    """
    critical, df, ncp = mpmath.mpf(critical), mpmath.mpf(df), mpmath.mpf(noncentrality)
    target = mpmath.mpf(10) ** (3 - mpmath.mp.dps)
    log_norm = mpmath.log(2) + (df / 2) * mpmath.log(df / 2) - mpmath.loggamma(df / 2)

    def integrand(s):
        if s == 0:
            return mpmath.mpf(0)
        density = mpmath.exp(log_norm + (df - 1) * mpmath.log(s) - df * s * s / 2)
        return density * mpmath.ncdf(ncp - critical * s)

    mode, width = mpmath.sqrt(max(df - 1, mpmath.mpf(0)) / df), 1 / mpmath.sqrt(2 * df)
    points = {mode + j * width for j in (-10, -3, 0, 3, 10)}
    if critical > 0 and ncp > 0:
        points.add(ncp / critical)
    nodes = [mpmath.mpf(0), *sorted(p for p in points if p > 0), mpmath.inf]
    extra = 0
    while True:
        with mpmath.extradps(extra):
            value, error = mpmath.quad(integrand, nodes, error=True)
        if error < target * max(abs(value), 1) or extra >= 40:
            return +value
        extra += 10


def _check(n, effect_size, alpha, alternative) -> None:
    for name, value in (("n", n), ("effect_size", effect_size), ("alpha", alpha)):
        if isinstance(value, bool) or not isinstance(value, (int, float, mpmath.mpf)) or not mpmath.isfinite(value):
            raise ArgumentError(f"{name} must be a finite number; got {value!r}")
    if not n > 1:
        raise ArgumentError(f"n must be > 1 (a t test needs one degree of freedom); got {n!r}")
    if not 0 < alpha < 1:
        raise ArgumentError(f"alpha must be in the open interval (0, 1); got {alpha!r}")
    sides_for(alternative)  # raises the package's one message naming the three alternatives


def paired_t_power(
    n: float,
    effect_size: float,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    strict: bool = True,
    digits: int = DEFAULT_DIGITS,
) -> mpmath.mpf:
    """Exact power of the paired (one-sample) t test with n pairs, at ``digits`` significant digits.

    Parameters
    ----------
    n : float
        Number of pairs, > 1 (fractional n is allowed, for solving).
    effect_size : float
        d = mean / sd of the per-item difference (any sign).
    alpha : float, default 0.05
        Significance level, in (0, 1).
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        "larger" is H1: mean difference > 0, "smaller" is H1: mean difference < 0.
    strict : bool, default True
        For the two-sided test: True counts the two rejection tails; False only the tail in the effect's direction
        (R ``power.t.test``'s default ``strict = FALSE``).  Ignored for one-sided tests.
    digits : int, default 30
        Significant digits.

    Returns
    -------
    mpmath.mpf
        The power.

    Notes
    -----
    T ~ t'(n - 1, d sqrt(n)); two-sided: P(T >= c) + P(T <= -c) with c = t_{1-alpha/2, n-1} (strict), one-sided:
    P(T >= t_{1-alpha, n-1}) for "larger" and P(T <= -t_{1-alpha, n-1}) for "smaller".  P(T <= -c) is the upper
    tail at -d by symmetry.  Tails by :func:`~llm_power_verified.testing.oracles_t.noncentral_t_upper_tail`;
    absolute error below 10^-(digits - 5) (``llm_power_verified.testing.oracles.ERROR_BOUNDS``).

    Examples
    --------
    >>> mpmath.nstr(paired_t_power(34, 0.5, digits=15), 6)
    '0.807778'
    """
    _check(n, effect_size, alpha, alternative)
    with mpmath.workdps(digits + 10):
        df, ncp = mpmath.mpf(n) - 1, mpmath.mpf(effect_size) * mpmath.sqrt(n)
        if alternative != "two-sided":
            critical = central_t_upper_quantile(mpmath.mpf(alpha), df)
            return +noncentral_t_upper_tail(critical, df, ncp if alternative == "larger" else -ncp)
        critical = central_t_upper_quantile(mpmath.mpf(alpha) / 2, df)
        if not strict:
            return +noncentral_t_upper_tail(critical, df, abs(ncp))
        return +(noncentral_t_upper_tail(critical, df, ncp) + noncentral_t_upper_tail(critical, df, -ncp))


def required_n_paired_t(
    effect_size: float,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: str = "two-sided",
    strict: bool = True,
    digits: int = DEFAULT_DIGITS,
) -> mpmath.mpf:
    """Unrounded number of pairs n at which :func:`paired_t_power` reaches ``power``.

    Parameters
    ----------
    effect_size : float
        d = mean / sd of the per-item difference, nonzero (positive for "larger", negative for "smaller").
    alpha : float, default 0.05
        Significance level, in (0, 1).
    power : float, default 0.8
        Target power, in (alpha, 1).
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        As :func:`paired_t_power`.
    strict : bool, default True
        As :func:`paired_t_power`.
    digits : int, default 30
        Significant digits of the power evaluations.

    Returns
    -------
    mpmath.mpf
        The continuous n >= 2 with power(n) = power (2 when two pairs already reach it); +inf when the effect is 0
        or points against a one-sided alternative.

    Notes
    -----
    The root is bracketed between 2 and a doubling upper end and found at 15 digits by the Illinois method
    (``mpmath.findroot``), then polished at ``digits`` by the secant method; relative error below
    10^-(digits - 10) (the power's error divided by its slope).

    Examples
    --------
    >>> mpmath.nstr(required_n_paired_t(1.0, digits=15), 6)
    '9.93785'
    """
    _check(2, effect_size, alpha, alternative)
    if isinstance(power, bool) or not isinstance(power, (int, float)) or not alpha < power < 1:
        raise ArgumentError(f"power must be in the open interval (alpha, 1) = ({alpha}, 1); got {power!r}")
    directed = -effect_size if alternative == "smaller" else effect_size
    if effect_size == 0 or (alternative != "two-sided" and directed < 0):
        return mpmath.inf
    coarse = _solve(effect_size, alpha, power, alternative, strict, min(digits, 15), None)
    if digits <= 15:
        return coarse
    return _solve(effect_size, alpha, power, alternative, strict, digits, coarse)


def _solve(effect_size, alpha, power, alternative, strict, digits, start) -> mpmath.mpf:
    """Bracket and solve at ``digits`` (start None), or polish ``start`` by the secant method."""
    with mpmath.workdps(digits):
        target = mpmath.mpf(power)
        tolerance = mpmath.mpf(10) ** (14 - 2 * digits)

        known = {}

        def gap(n):  # findroot and the bracketing revisit points: each power is computed once
            if n not in known:
                known[n] = paired_t_power(n, effect_size, alpha, alternative, strict, digits) - target
            return known[n]

        if start is not None:
            if start == 2:
                return start
            return +mpmath.findroot(gap, (start, start * (1 + mpmath.mpf(10) ** -9)), tol=tolerance)
        if gap(mpmath.mpf(2)) >= 0:
            return mpmath.mpf(2)
        low, high = _bracket(gap, _guenther(effect_size, alpha, power, alternative))
        return +mpmath.findroot(gap, (low, high), solver="illinois", tol=tolerance)


def _guenther(effect_size, alpha, power, alternative) -> mpmath.mpf:
    """Guenther's (1981) approximation n = (z_a + z_b)^2 / d^2 + z_a^2 / 2, a starting point within a pair or so."""
    sides = 2 if alternative == "two-sided" else 1
    z_alpha = mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(alpha) / sides)
    z_beta = mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(power) - 1)
    return max(mpmath.mpf(2), (z_alpha + z_beta) ** 2 / mpmath.mpf(effect_size) ** 2 + z_alpha**2 / 2)


def _bracket(gap, start) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(low, high) with gap(low) < 0 <= gap(high), stepping out from ``start`` by 5% then doubling steps."""
    step = mpmath.mpf(1) / 20
    if gap(start) < 0:
        low = start
        while gap(high := low * (1 + step)) < 0:
            low, step = high, 2 * step
        return low, high
    high = start
    while True:
        low = max(mpmath.mpf(2), high / (1 + step))
        if gap(low) < 0:
            return low, high
        high, step = low, 2 * step
