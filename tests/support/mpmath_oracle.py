"""High-precision references in mpmath: McNemar p-values and exact power.

These are slow, direct computations at a configurable number of significant
digits (default 50), used by the tests and the crosscheck suite to check the
fast vectorised code; nothing on a hot path calls them.

The binomial tail is summed term by term: P(X <= k) = P(X = k) * sum_i t_i
with t_0 = 1 and t_{i+1} = t_i (k - i) / (n - k + 1 + i), which decreases for
k <= n/2, so the sum is stopped once a term falls below 10^-(digits + 5) of
the total.  P(X = k) comes from mpmath's loggamma.  Results are mpmath
numbers; log values are returned alongside because p can be far below the
smallest double.
"""

from __future__ import annotations

import mpmath

__all__ = [
    "chi2_pvalue",
    "exact_power",
    "exact_pvalue",
    "log_binomial_lower_tail",
    "log_e_value",
    "midp_pvalue",
    "threshold",
]

DEFAULT_DIGITS = 50


def _check_counts(b: int, c: int) -> tuple[int, int]:
    for name, value in (("b", b), ("c", c)):
        if int(value) != value or value < 0:
            raise ValueError(f"{name} must be a whole number >= 0; got {value!r}")
    return int(b), int(c)


def log_binomial_lower_tail(k: int, n: int, digits: int = DEFAULT_DIGITS):
    """(log P(X <= k), log P(X = k)) for X ~ Binomial(n, 1/2) with 0 <= k <= n/2."""
    if not 0 <= 2 * k <= n:
        raise ValueError(f"need 0 <= k <= n/2; got k = {k}, n = {n}")
    with mpmath.workdps(digits + 15):
        log_pmf = mpmath.loggamma(n + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1) - n * mpmath.log(2)
        total = term = mpmath.mpf(1)
        threshold = mpmath.mpf(10) ** -(digits + 5)
        for i in range(k):
            term *= mpmath.mpf(k - i) / (n - k + 1 + i)
            total += term
            if term < threshold * total:
                break
        return +(log_pmf + mpmath.log(total)), +log_pmf


def exact_pvalue(b: int, c: int, digits: int = DEFAULT_DIGITS):
    """(p, log p) of the exact conditional McNemar test, two-sided by doubling (capped at 1)."""
    b, c = _check_counts(b, c)
    if b + c == 0:
        return mpmath.mpf(1), mpmath.mpf(0)
    with mpmath.workdps(digits + 15):
        log_tail, _ = log_binomial_lower_tail(min(b, c), b + c, digits)
        log_p = min(mpmath.mpf(0), mpmath.log(2) + log_tail)
        return mpmath.exp(log_p), log_p


def midp_pvalue(b: int, c: int, two_sided: str = "double", digits: int = DEFAULT_DIGITS):
    """(p, log p) of the mid-p McNemar test (see :mod:`llm_power_verified.inference.mcnemar` for the rules)."""
    b, c = _check_counts(b, c)
    if b + c == 0:
        return mpmath.mpf(1), mpmath.mpf(0)
    with mpmath.workdps(digits + 15):
        log_tail, log_pmf = log_binomial_lower_tail(min(b, c), b + c, digits)
        if b == c:
            p = mpmath.mpf(1) if two_sided == "double" else 1 - mpmath.exp(log_pmf) / 2
            return p, mpmath.log(p)
        log_p = mpmath.log(2) + log_tail + mpmath.log(1 - mpmath.exp(log_pmf - log_tail) / 2)
        return mpmath.exp(log_p), log_p


def chi2_pvalue(b: int, c: int, correction: bool = False, digits: int = DEFAULT_DIGITS):
    """(p, log p) of the asymptotic McNemar chi-square test, P(chi2_1 >= X^2) = erfc(sqrt(X^2 / 2))."""
    b, c = _check_counts(b, c)
    if b + c == 0:
        return mpmath.mpf(1), mpmath.mpf(0)
    with mpmath.workdps(digits + 15):
        gap = mpmath.mpf(abs(b - c))
        if correction:
            gap = max(gap - 1, mpmath.mpf(0))
        z = gap / mpmath.sqrt(b + c)
        p = mpmath.erfc(z / mpmath.sqrt(2))
        return p, mpmath.log(p)


def _pvalue(method: str, b: int, c: int, digits: int):
    if method == "exact":
        return exact_pvalue(b, c, digits)[0]
    if method == "mid-p":
        return midp_pvalue(b, c, "double", digits)[0]
    if method == "chi2":
        return chi2_pvalue(b, c, False, digits)[0]
    if method == "chi2-corrected":
        return chi2_pvalue(b, c, True, digits)[0]
    raise ValueError(f"method must be 'exact', 'mid-p', 'chi2' or 'chi2-corrected'; got {method!r}")


def exact_power(n: int, p10, p01, alpha, method: str = "exact", digits: int = DEFAULT_DIGITS):
    """Unconditional power of a McNemar variant with n items, summed over every outcome.

    The discordant count M is Binomial(n, p10 + p01); given M = m, b is
    Binomial(m, p10 / (p10 + p01)); the test rejects when its p-value is at
    most alpha.  This sums over all (m, b), O(n^2) terms: use small n.
    """
    with mpmath.workdps(digits + 15):
        p10, p01, alpha = mpmath.mpf(p10), mpmath.mpf(p01), mpmath.mpf(alpha)
        discordance = p10 + p01
        theta = p10 / discordance
        total = mpmath.mpf(0)
        for m in range(n + 1):
            weight = mpmath.binomial(n, m) * discordance**m * (1 - discordance) ** (n - m)
            conditional = mpmath.mpf(0)
            for b in range(m + 1):
                if _pvalue(method, b, m - b, digits) <= alpha:
                    conditional += mpmath.binomial(m, b) * theta**b * (1 - theta) ** (m - b)
            total += weight * conditional
        return +total


def log_e_value(b: int, c: int, mixture: str = "grid", prior=(1, 1), digits: int = DEFAULT_DIGITS):
    """log e-value of the discordant-sign mixture e-process (paper Eq. 24), directly in mpmath.

    grid: theta = j/100 exactly, j in 1..49, 51..99, equal weights; two-point:
    theta in {2/5, 3/5}; beta: 2^n B(a + b, a' + c) / B(a, a').
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
            raise ValueError(f"mixture must be grid, beta or two-point; got {mixture!r}")
        terms = [b * mpmath.log(2 * t) + c * mpmath.log(2 * (1 - t)) for t in thetas]
        top = max(terms)
        return +(top + mpmath.log(sum(mpmath.exp(term - top) for term in terms) / len(thetas)))


def threshold(n: int, alpha=0.05, mixture: str = "grid", prior=(1, 1), digits: int = DEFAULT_DIGITS):
    """u(n) = (2 b - n) / sqrt(n) for the smallest b >= n/2 with e(b, n - b) >= 1/alpha, by bisection in mpmath."""
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
