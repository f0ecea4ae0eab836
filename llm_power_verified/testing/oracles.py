"""High-precision oracles in mpmath: the exact quantities a calculator is checked against.

Every oracle is a slow, direct computation at a chosen number of significant digits (default 50 for the McNemar
quantities and N*, 30 for the paired t), written from first principles and independent of the package's fast
double-precision code, which the tests and :mod:`llm_power_verified.testing.conformance` check against them.
Nothing on a hot path calls them.  Results are ``mpmath.mpf`` numbers; McNemar p-values come with their
logarithm because p can be far below the smallest double.  ``ERROR_BOUNDS`` states each oracle's error bound.

This module holds the McNemar oracles (p-values, exact power); the required sample sizes are in
:mod:`llm_power_verified.testing.oracles_n`, the paired t in :mod:`llm_power_verified.testing.oracles_t` and the
e-process references in :mod:`llm_power_verified.testing.oracles_e`, all re-exported here.

The binomial tail
-----------------
For X ~ Binomial(n, 1/2) and k <= n/2, P(X <= k) = P(X = k) S with S = sum_i t_i, t_0 = 1 and
t_{i+1} = t_i (k - i) / (n - k + 1 + i), the terminating series 2F1(1, -k; n - k + 1; -1).  The terms decrease, and
like exp(-i^2 / k) when k is near n/2, so about sqrt(k (digits + 5) ln 10) terms reach the working precision
(about 25,000 at n = 10^7, 50 digits).  The default route sums them in fixed-point integers with
F = digits log2(10) + 2 bit_length(n) + 40 fraction bits: each step floors once, an error of less than one unit
2^-F that the ratio (at most 1) never enlarges, so after J steps the accumulated error is below J^2 units; the
sum stops at the first term below one unit, and the terms left out are below (J + 1) n units (they decrease
geometrically with ratio at most 1 - 1/n).  With S >= 1 and J <= n, the relative error of S is below
2 n^2 2^-F < 10^-digits 2^-38.  P(X = k) is exp of mpmath loggamma differences at digits + 15 + log10(n)
working digits, whose absolute error (a few ulps of loggamma(n + 1) < n ln n) is below 10^-(digits + 5).
Two other routes give the same number by other arithmetic: ``"sum"`` adds the same terms in mpmath floats, and
``"beta"`` evaluates the regularized incomplete beta I_{1/2}(n - k, k + 1) = P(X <= k) with
``mpmath.betainc`` (a different series, 2F1(n - k, -k; n - k + 1; 1/2); mpmath's hypergeometric summation
gives up above about 10^4 terms, so it serves as a cross-check at moderate counts).  The tests compare the three
at 50 digits.
"""

from __future__ import annotations

import math

import mpmath

from llm_power_verified.errors import ArgumentError
from llm_power_verified.testing.oracles_e import log_e_value, threshold
from llm_power_verified.testing.oracles_n import required_n
from llm_power_verified.testing.oracles_t import paired_t_power, required_n_paired_t

__all__ = [
    "ERROR_BOUNDS",
    "METHODS",
    "ROUTES",
    "chi2_pvalue",
    "exact_power",
    "exact_pvalue",
    "log_binomial_lower_tail",
    "log_e_value",
    "mcnemar_pvalue",
    "midp_pvalue",
    "paired_t_power",
    "required_n",
    "required_n_paired_t",
    "threshold",
]

DEFAULT_DIGITS = 50

#: McNemar variants :func:`mcnemar_pvalue` computes.
METHODS = ("exact", "mid-p", "chi2", "chi2-corrected", "exact-one-sided")

#: Ways :func:`log_binomial_lower_tail` can evaluate the tail (see the module notes).
ROUTES = ("fixed", "sum", "beta")

#: Each public oracle's stated error bound and how it was established.
ERROR_BOUNDS: dict[str, str] = {
    "log_binomial_lower_tail": (
        "relative error of P(X <= k) below 10^-digits (absolute error of its log below 10^-digits) for any n: "
        "proved for the fixed-point route in the module notes (rounding below J^2 units, truncation below (J + 1) n "
        "units of 2^-F); the sum and beta routes agree with it to 10^-48 relative at 50 digits in the tests"
    ),
    "exact_pvalue": "relative error below 10^-digits: 2 P(X <= min(b, c)) from log_binomial_lower_tail, capped at 1",
    "midp_pvalue": (
        "relative error below 10^-digits: the exact tail minus half the point mass, from the same two quantities "
        "at 15 guard digits (no cancellation: the point mass is at most the tail)"
    ),
    "chi2_pvalue": (
        "relative error below 10^-digits: erfc(|b - c| / sqrt(2 (b + c))) at 15 guard digits, mpmath's erfc being "
        "accurate to a few ulps in either tail"
    ),
    "mcnemar_pvalue": "the bound of the variant it dispatches to (exact, mid-p, chi2); exact-one-sided as exact",
    "exact_power": (
        "absolute error below 10^-(digits - 5): a finite sum of at most (n + 1)(n + 2)/2 positive products at "
        "15 guard digits; each outcome is classified by its p-value, known to 10^-digits relative, so the sum is "
        "exact in which outcomes it counts unless a p-value lies within that of alpha"
    ),
    "log_e_value": "absolute error below 10^-digits: a finite log-sum-exp at 15 guard digits",
    "threshold": (
        "exact (a whole b): bisection over b on log_e_value, right unless a log e-value lies within 10^-digits of "
        "log(1/alpha)"
    ),
    "required_n": (
        "relative error below 10^-digits: closed forms at digits + 20 + 2 log10(1/|delta|) working digits, the "
        "guard digits covering the cancellation in sigma_D^2 and psi - delta^2 (condition number at most "
        "1/delta^2); normal quantiles from mpmath.erfinv (accurate to working precision); checked by recomputing "
        "at digits + 20 in the tests"
    ),
    "paired_t_power": (
        "absolute error below 10^-(digits - 5): tanh-sinh quadrature (mpmath.quad) of the noncentral t tail over "
        "the chi distribution, split around its mode, raising the working precision until quad's own error "
        "estimate is below 10^-(digits - 3); agrees with the independent incomplete-beta series (Lenth 1989) to "
        "10^-30 at 40 digits, and gives exactly alpha at effect 0 to 10^-25 at 30 digits, in the tests"
    ),
    "required_n_paired_t": (
        "relative error below 10^-(digits - 10): the root of paired_t_power(n) = power by mpmath.findroot "
        "(the power has slope of order 10^-2 per pair, so the power's error moves n by at most 10^2 times it)"
    ),
}


def _check_counts(b: int, c: int) -> tuple[int, int]:
    for name, value in (("b", b), ("c", c)):
        if isinstance(value, bool) or int(value) != value or value < 0:
            raise ArgumentError(f"{name} must be a whole number >= 0; got {value!r}")
    return int(b), int(c)


def _guard(n: int) -> int:
    """Working digits above the requested ones: 15, plus the digits lost in loggamma(n + 1)."""
    return 15 + len(str(max(n, 1)))


def _fixed_point_series(k: int, n: int, digits: int) -> mpmath.mpf:
    """S = sum_i t_i of the module notes in fixed-point integers (relative error below 10^-digits 2^-38)."""
    bits = math.ceil(digits * math.log2(10)) + 2 * n.bit_length() + 40
    one = 1 << bits
    term = total = one
    for i in range(k):
        term = term * (k - i) // (n - k + 1 + i)
        if term == 0:
            break
        total += term
    return mpmath.ldexp(mpmath.mpf(total), -bits)


def _mpf_series(k: int, n: int, digits: int) -> mpmath.mpf:
    total = term = mpmath.mpf(1)
    stop = mpmath.mpf(10) ** -(digits + 5)
    for i in range(k):
        term *= mpmath.mpf(k - i) / (n - k + 1 + i)
        total += term
        if term < stop * total:
            break
    return total


def log_binomial_lower_tail(
    k: int, n: int, digits: int = DEFAULT_DIGITS, route: str = "fixed"
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Log of the lower tail and of the point mass of Binomial(n, 1/2) at k <= n/2.

    Parameters
    ----------
    k : int
        The count, 0 <= k <= n/2.
    n : int
        The number of trials, >= 0.
    digits : int, default 50
        Significant digits of the result.
    route : {"fixed", "sum", "beta"}, default "fixed"
        "fixed": the series in fixed-point integers (fast; any n); "sum": the same series in mpmath floats
        (about ten times slower); "beta": mpmath's regularized incomplete beta I_{1/2}(n - k, k + 1) (mpmath
        raises NoConvergence above about 10^4 series terms).

    Returns
    -------
    tuple of mpmath.mpf
        (log P(X <= k), log P(X = k)).

    Notes
    -----
    The series and its error bound are in the module notes: relative error below 10^-digits, proved for the
    fixed-point route; the tests check that the three routes agree at 50 digits.  At b + c = 10^7 (the slowest
    case, k = n/2) the fixed-point route takes about 15 ms.

    Examples
    --------
    >>> log_tail, log_pmf = log_binomial_lower_tail(1, 4, 20)
    >>> mpmath.nstr(mpmath.exp(log_tail), 10), mpmath.nstr(mpmath.exp(log_pmf), 10)
    ('0.3125', '0.25')
    """
    if not 0 <= 2 * k <= n:
        raise ArgumentError(f"k must satisfy 0 <= k <= n/2; got k = {k}, n = {n}")
    if route not in ROUTES:
        raise ArgumentError(f"route must be one of {ROUTES}; got {route!r}")
    k, n = int(k), int(n)
    with mpmath.workdps(digits + _guard(n)):
        log_pmf = mpmath.loggamma(n + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1) - n * mpmath.log(2)
        if route == "beta":
            log_tail = mpmath.log(mpmath.betainc(n - k, k + 1, 0, mpmath.mpf(1) / 2, regularized=True))
            return +log_tail, +log_pmf
        series = _fixed_point_series(k, n, digits) if route == "fixed" else _mpf_series(k, n, digits)
        return +(log_pmf + mpmath.log(series)), +log_pmf


def exact_pvalue(b: int, c: int, digits: int = DEFAULT_DIGITS) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(p, log p) of the exact conditional McNemar test, two-sided by doubling the smaller tail (capped at 1).

    Parameters
    ----------
    b, c : int
        The discordant counts (items only A got right, items only B got right), whole numbers >= 0.
    digits : int, default 50
        Significant digits.

    Returns
    -------
    tuple of mpmath.mpf
        (p, log p); p = 1 when b + c = 0.

    Notes
    -----
    p = min(1, 2 P(X <= min(b, c))) for X ~ Binomial(b + c, 1/2), through :func:`log_binomial_lower_tail`
    (relative error below 10^-digits; see ``ERROR_BOUNDS``).

    Examples
    --------
    >>> mpmath.nstr(exact_pvalue(3, 12)[0], 12)
    '0.03515625'
    """
    b, c = _check_counts(b, c)
    if b + c == 0:
        return mpmath.mpf(1), mpmath.mpf(0)
    with mpmath.workdps(digits + _guard(b + c)):
        log_tail, _ = log_binomial_lower_tail(min(b, c), b + c, digits)
        log_p = min(mpmath.mpf(0), mpmath.log(2) + log_tail)
        return mpmath.exp(log_p), log_p


def midp_pvalue(
    b: int, c: int, two_sided_rule: str = "double", digits: int = DEFAULT_DIGITS
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(p, log p) of the mid-p McNemar test.

    Parameters
    ----------
    b, c : int
        The discordant counts, whole numbers >= 0.
    two_sided_rule : {"double", "no-more-likely"}, default "double"
        At b = c: "double" gives 1, "no-more-likely" 1 - P(X = b)/2 (the rules of
        :mod:`llm_power_verified.inference.mcnemar`; they differ only there).
    digits : int, default 50
        Significant digits.

    Returns
    -------
    tuple of mpmath.mpf
        (p, log p).

    Notes
    -----
    p = 2 (P(X <= k) - P(X = k)/2) with k = min(b, c), from :func:`log_binomial_lower_tail`; relative error below
    10^-digits.

    Examples
    --------
    >>> mpmath.nstr(midp_pvalue(3, 12)[0], 12)
    '0.0212707519531'
    """
    b, c = _check_counts(b, c)
    if two_sided_rule not in ("double", "no-more-likely"):
        raise ArgumentError(f"two_sided_rule must be 'double' or 'no-more-likely'; got {two_sided_rule!r}")
    if b + c == 0:
        return mpmath.mpf(1), mpmath.mpf(0)
    with mpmath.workdps(digits + _guard(b + c)):
        log_tail, log_pmf = log_binomial_lower_tail(min(b, c), b + c, digits)
        if b == c:
            p = mpmath.mpf(1) if two_sided_rule == "double" else 1 - mpmath.exp(log_pmf) / 2
            return p, mpmath.log(p)
        log_p = mpmath.log(2) + log_tail + mpmath.log(1 - mpmath.exp(log_pmf - log_tail) / 2)
        return mpmath.exp(log_p), log_p


def chi2_pvalue(
    b: int, c: int, continuity: bool = False, digits: int = DEFAULT_DIGITS
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(p, log p) of the asymptotic McNemar chi-square test.

    Parameters
    ----------
    b, c : int
        The discordant counts, whole numbers >= 0.
    continuity : bool, default False
        Edwards' continuity correction: abs(b - c) - 1 (floored at 0) in place of abs(b - c).
    digits : int, default 50
        Significant digits.

    Returns
    -------
    tuple of mpmath.mpf
        (p, log p); p = 1 when b + c = 0, and with the correction whenever abs(b - c) <= 1.

    Notes
    -----
    p = P(chi2_1 >= X^2) = erfc(sqrt(X^2 / 2)) with X^2 = (abs(b - c) [- 1])^2 / (b + c); relative error below
    10^-digits.

    Examples
    --------
    >>> mpmath.nstr(chi2_pvalue(5, 5, continuity=True)[0], 5)
    '1.0'
    """
    b, c = _check_counts(b, c)
    if b + c == 0:
        return mpmath.mpf(1), mpmath.mpf(0)
    with mpmath.workdps(digits + 15):
        gap = mpmath.mpf(abs(b - c))
        if continuity:
            gap = max(gap - 1, mpmath.mpf(0))
        p = mpmath.erfc(gap / mpmath.sqrt(2 * (b + c)))
        return p, mpmath.log(p)


def mcnemar_pvalue(
    b: int, c: int, method: str = "exact", digits: int = DEFAULT_DIGITS
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(p, log p) of a McNemar test variant, at ``digits`` significant digits.

    Parameters
    ----------
    b, c : int
        The discordant counts: b items only model A got right, c items only model B got right; whole numbers >= 0.
    method : {"exact", "mid-p", "chi2", "chi2-corrected", "exact-one-sided"}, default "exact"
        "exact": two-sided by doubling (capped at 1); "mid-p": the doubled mid-p (1 at b = c); "chi2" and
        "chi2-corrected": the asymptotic test without and with continuity correction; "exact-one-sided":
        P(X <= b) for X ~ Binomial(b + c, 1/2), the one-sided test of the alternative that B's rate exceeds A's
        (small when c is much larger than b; the package's ``alternative="smaller"``).
    digits : int, default 50
        Significant digits.

    Returns
    -------
    tuple of mpmath.mpf
        (p, log p).

    Notes
    -----
    Dispatches to :func:`exact_pvalue`, :func:`midp_pvalue` and :func:`chi2_pvalue`; the one-sided exact p is
    P(X <= b) directly when b <= (b + c)/2, else 1 - P(X <= c - 1) by symmetry.  Relative error below
    10^-digits (``ERROR_BOUNDS``).  Any b + c up to 10^7 takes under 0.05 s at 50 digits (measured).

    Examples
    --------
    >>> [mpmath.nstr(mcnemar_pvalue(3, 12, method)[0], 6) for method in METHODS]
    ['0.0351562', '0.0212708', '0.0201368', '0.0388671', '0.0175781']
    """
    b, c = _check_counts(b, c)
    if method == "exact":
        return exact_pvalue(b, c, digits)
    if method == "mid-p":
        return midp_pvalue(b, c, "double", digits)
    if method in ("chi2", "chi2-corrected"):
        return chi2_pvalue(b, c, method == "chi2-corrected", digits)
    if method != "exact-one-sided":
        raise ArgumentError(f"method must be one of {METHODS}; got {method!r}")
    if b + c == 0:
        return mpmath.mpf(1), mpmath.mpf(0)
    with mpmath.workdps(digits + _guard(b + c)):
        if 2 * b <= b + c:
            log_p, _ = log_binomial_lower_tail(b, b + c, digits)
        else:
            log_upper, _ = log_binomial_lower_tail(c - 1, b + c, digits) if c > 0 else (mpmath.ninf, None)
            log_p = mpmath.log1p(-mpmath.exp(log_upper))
        return mpmath.exp(log_p), log_p


def exact_power(
    n: int, p10: float, p01: float, alpha: float, method: str = "exact", digits: int = DEFAULT_DIGITS
) -> mpmath.mpf:
    """Unconditional power of a McNemar variant with n items, summed over every outcome.

    Parameters
    ----------
    n : int
        Number of items (keep it small: the sum has O(n^2) terms).
    p10, p01 : float
        Probabilities of the two discordant cells (only A right, only B right); p10 + p01 in (0, 1].
    alpha : float
        Significance level.
    method : {"exact", "mid-p", "chi2", "chi2-corrected", "exact-one-sided"}, default "exact"
        The McNemar variant (as :func:`mcnemar_pvalue`).
    digits : int, default 50
        Significant digits.

    Returns
    -------
    mpmath.mpf
        P(the test rejects at level alpha).

    Notes
    -----
    The discordant count M is Binomial(n, p10 + p01); given M = m, b is Binomial(m, p10 / (p10 + p01)); the test
    rejects when its p-value is at most alpha.  Absolute error below 10^-(digits - 5) (``ERROR_BOUNDS``).

    Examples
    --------
    >>> mpmath.nstr(exact_power(10, 0.3, 0.05, 0.05, digits=20), 8)
    '0.036118399'
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
                if mcnemar_pvalue(b, m - b, method, digits)[0] <= alpha:
                    conditional += mpmath.binomial(m, b) * theta**b * (1 - theta) ** (m - b)
            total += weight * conditional
        return +total
