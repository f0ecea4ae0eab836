"""High-precision references of the discordant-sign e-process (paper Eq. 24): log e-values and thresholds.

Direct mpmath computations, re-exported by :mod:`llm_power_verified.testing.oracles`; the fast code of
:mod:`llm_power_verified.sequential` is tested against them.
"""

from __future__ import annotations

import mpmath

from llm_power_verified.errors import ArgumentError

__all__ = ["log_e_value", "threshold"]

DEFAULT_DIGITS = 50


def _check_counts(b: int, c: int) -> tuple[int, int]:
    for name, value in (("b", b), ("c", c)):
        if isinstance(value, bool) or int(value) != value or value < 0:
            raise ArgumentError(f"{name} must be a whole number >= 0; got {value!r}")
    return int(b), int(c)


def log_e_value(b: int, c: int, mixture: str = "grid", prior=(1, 1), digits: int = DEFAULT_DIGITS) -> mpmath.mpf:
    """Log e-value of the discordant-sign mixture e-process (paper Eq. 24), directly in mpmath.

    Parameters
    ----------
    b, c : int
        The discordant counts, whole numbers >= 0.
    mixture : {"grid", "two-point", "beta"}, default "grid"
        "grid": theta = j/100, j in 1..49, 51..99, equal weights; "two-point": theta in {2/5, 3/5}; "beta":
        a Beta(prior) mixture, e = 2^n B(a + b, a' + c) / B(a, a').
    prior : tuple of float, default (1, 1)
        The Beta prior (a, a') of the "beta" mixture.
    digits : int, default 50
        Significant digits.

    Returns
    -------
    mpmath.mpf
        log e(b, c).

    Notes
    -----
    A finite log-sum-exp (grid, two-point) or a ratio of beta functions (beta) at 15 guard digits: absolute error
    below 10^-digits (``llm_power_verified.testing.oracles.ERROR_BOUNDS``).

    Examples
    --------
    >>> mpmath.nstr(log_e_value(0, 0), 5)
    '0.0'
    """
    b, c = _check_counts(b, c)
    with mpmath.workdps(digits + 15):
        n = b + c
        if mixture == "beta":
            a, a2 = (mpmath.mpf(v) for v in prior)
            return +(n * mpmath.log(2) + mpmath.log(mpmath.beta(a + b, a2 + c)) - mpmath.log(mpmath.beta(a, a2)))
        if mixture == "grid":
            thetas = [mpmath.mpf(j) / 100 for j in list(range(1, 50)) + list(range(51, 100))]
        elif mixture == "two-point":
            thetas = [mpmath.mpf(2) / 5, mpmath.mpf(3) / 5]
        else:
            raise ArgumentError(f"mixture must be grid, beta or two-point; got {mixture!r}")
        terms = [b * mpmath.log(2 * t) + c * mpmath.log(2 * (1 - t)) for t in thetas]
        top = max(terms)
        return +(top + mpmath.log(sum(mpmath.exp(term - top) for term in terms) / len(thetas)))


def threshold(n: int, alpha=0.05, mixture: str = "grid", prior=(1, 1), digits: int = DEFAULT_DIGITS) -> mpmath.mpf:
    """u(n) = (2 b - n) / sqrt(n) for the smallest b >= n/2 with e(b, n - b) >= 1/alpha.

    Parameters
    ----------
    n : int
        Number of discordant pairs.
    alpha : float, default 0.05
        Significance level.
    mixture, prior
        As :func:`log_e_value`.
    digits : int, default 50
        Significant digits.

    Returns
    -------
    mpmath.mpf
        The standardized threshold; inf when even b = n does not reach 1/alpha.

    Notes
    -----
    Bisection over whole b on :func:`log_e_value`; exact unless a log e-value lies within 10^-digits of log(1/alpha).

    Examples
    --------
    >>> threshold(3)
    mpf('+inf')
    """
    with mpmath.workdps(digits + 15):
        target = mpmath.log(1 / mpmath.mpf(alpha))
        if log_e_value(n, 0, mixture, prior, digits) < target:
            return mpmath.inf
        low, high = n // 2, n
        if log_e_value(low, n - low, mixture, prior, digits) >= target:
            high = low
        while high - low > 1:
            middle = (low + high) // 2
            if log_e_value(middle, n - middle, mixture, prior, digits) >= target:
                high = middle
            else:
                low = middle
        return (2 * mpmath.mpf(high) - n) / mpmath.sqrt(n)
