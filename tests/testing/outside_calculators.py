"""Calculators written outside the package, with plain math and scipy, as a user would write them.

Each is a correct implementation or one with a known flaw; tests/testing/test_check_calculator.py checks that
``check_calculator`` classifies each rightly.  Nothing here imports llm_power_verified.
"""

from __future__ import annotations

import math

from scipy.optimize import brentq
from scipy.stats import binomtest, chi2, nct, norm, t


def _z(alpha: float, power: float, sides: int = 2) -> float:
    return norm.ppf(1 - alpha / sides) + norm.ppf(power)


def paired_n(p_a, p_b, rho, alpha, power):
    """Correct paired N* (Eq. 6), rounded up: K sigma_D^2 / delta^2."""
    variance = p_a * (1 - p_a) + p_b * (1 - p_b) - 2 * rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    return math.ceil(_z(alpha, power) ** 2 * variance / (p_a - p_b) ** 2)


def shortcut_n(p_a, p_b, rho, alpha, power):
    """The (1 - rho) shortcut: a one-sample arcsine size K / h^2 times (1 - rho)."""
    h = 2 * math.asin(math.sqrt(p_a)) - 2 * math.asin(math.sqrt(p_b))
    return (1 - rho) * _z(alpha, power) ** 2 / h**2


def unpaired_per_arm_n(p_a, p_b, rho, alpha, power):
    """An independent-samples (Wald, unpooled) per-arm size, ignoring rho."""
    return math.ceil(_z(alpha, power) ** 2 * (p_a * (1 - p_a) + p_b * (1 - p_b)) / (p_a - p_b) ** 2)


def pooled_per_arm_n(p_a, p_b, rho, alpha, power):
    """The two-proportion z test's per-arm size with the pooled variance under H0 (as R's power.prop.test)."""
    mean = (p_a + p_b) / 2
    top = norm.ppf(1 - alpha / 2) * math.sqrt(2 * mean * (1 - mean)) + norm.ppf(power) * math.sqrt(
        p_a * (1 - p_a) + p_b * (1 - p_b)
    )
    return top**2 / (p_a - p_b) ** 2


def one_tailed_paired_n(p_a, p_b, rho, alpha, power):
    """Paired N* with z_{1-alpha} where z_{1-alpha/2} is meant."""
    variance = p_a * (1 - p_a) + p_b * (1 - p_b) - 2 * rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    return _z(alpha, power, sides=1) ** 2 * variance / (p_a - p_b) ** 2


def renamed_paired_n(first, second, correlation, level, target):
    """paired_n under other keyword names."""
    return paired_n(first, second, correlation, level, target)


def exact_p(b, c):
    """Correct exact McNemar p: two-sided binomial test of b out of b + c at 1/2."""
    return binomtest(b, b + c, 0.5).pvalue if b + c else 1.0


def exact_p_power_of_two(b, c):
    """Exact McNemar p with 2.0 ** n in the denominator: OverflowError from 1024 discordant pairs."""
    n, k = b + c, min(b, c)
    scale = 2.0**n
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / scale)


def exact_p_float_comb(b, c):
    """Exact McNemar p summing float(comb(n, i)) * 0.5 ** n: fails once comb(n, k) exceeds the largest double."""
    n, k = b + c, min(b, c)
    tail = 0.0
    for i in range(k + 1):
        tail += float(math.comb(n, i)) * 0.5**n
    return min(1.0, 2 * tail)


def corrected_p_uncapped(b, c):
    """Continuity-corrected chi-square p with (|b - c| - 1)^2: below 1 at b = c (the cap max(., 0) is missing)."""
    if b + c == 0:
        return 1.0
    return float(chi2.sf((abs(b - c) - 1) ** 2 / (b + c), 1))


def chi2_p_raising(b, c):
    """Uncorrected chi-square p that divides by b + c without a guard: ZeroDivisionError at b = c = 0."""
    return float(chi2.sf((b - c) ** 2 / (b + c), 1))


def exact_p_nan_when_tied(b, c):
    """Exact p that returns NaN at b = c (a 0/0 in its own tie rule)."""
    if b == c:
        return math.nan
    return exact_p(b, c)


def exact_one_sided_p(b, c):
    """One-sided exact p, P(X <= b) for X ~ Binomial(b + c, 1/2), where a two-sided p is meant."""
    return binomtest(b, b + c, 0.5, alternative="less").pvalue if b + c else 1.0


def paired_t_power(n, effect_size, alpha):
    """Paired t power counting both rejection tails of the noncentral t (R strict = TRUE, statsmodels).

    The lower tail P(T <= -c | shift) is written as P(T >= c | -shift): scipy's nct.cdf is NaN far in that tail.
    """
    df, shift = n - 1, effect_size * math.sqrt(n)
    critical = t.isf(alpha / 2, df)
    return float(nct.sf(critical, df, shift) + nct.sf(critical, df, -shift))


def paired_t_power_naive(n, effect_size, alpha):
    """paired_t_power with the lower tail as nct.cdf(-c): NaN where scipy's nct.cdf fails far in the tail."""
    df, shift = n - 1, effect_size * math.sqrt(n)
    critical = t.isf(alpha / 2, df)
    return float(nct.sf(critical, df, shift) + nct.cdf(-critical, df, shift))


def paired_t_power_upper_tail(n, effect_size, alpha):
    """Paired t power with the upper rejection tail only (R power.t.test's default strict = FALSE)."""
    df = n - 1
    return float(nct.sf(t.isf(alpha / 2, df), df, effect_size * math.sqrt(n)))


def paired_t_n(effect_size, alpha, power):
    """Pairs a two-sided paired t test needs, solving the two-tailed noncentral-t power for a continuous n."""
    return brentq(lambda n: paired_t_power(n, effect_size, alpha) - power, 2.0, 1e5, xtol=1e-10)


def normal_t_n(effect_size, alpha, power):
    """The normal approximation (z_{1-alpha/2} + z_{1-beta})^2 / d^2, rounded up."""
    return math.ceil(_z(alpha, power) ** 2 / effect_size**2)


def total_of_two_groups_n(p_a, p_b, rho, alpha, power):
    """Twice the unpooled per-arm size, each arm rounded up: the total of two independent groups."""
    return 2 * unpaired_per_arm_n(p_a, p_b, rho, alpha, power)


def paired_one_p_n(p_a, p_b, rho, alpha, power):
    """A paired size with one accuracy: K 2 p (1 - p) (1 - rho) / delta^2, p the baseline (lower), rounded up."""
    lower = min(p_a, p_b)
    return math.ceil(_z(alpha, power) ** 2 * 2 * lower * (1 - lower) * (1 - rho) / (p_a - p_b) ** 2)


def unpaired_one_p_n(p_a, p_b, rho, alpha, power):
    """An unpaired per-arm size with one accuracy, 2 p (1 - p) with p the lower, ignoring rho; rounded up."""
    lower = min(p_a, p_b)
    return math.ceil(_z(alpha, power) ** 2 * 2 * lower * (1 - lower) / (p_a - p_b) ** 2)


def discordant_rate_n(p_a, p_b, rho, alpha, power):
    """K psi / delta^2 with the discordant rate psi = p_01 + p_10 as the variance (sd_diff = sqrt(psi)), rounded up."""
    p_11 = p_a * p_b + rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    return math.ceil(_z(alpha, power) ** 2 * (p_a + p_b - 2 * p_11) / (p_a - p_b) ** 2)


def normal_power_upper_tail(n, effect_size, alpha):
    """The normal power of the tail the effect points to only: Phi(|d| sqrt(n) - z_{1-alpha/2})."""
    return float(norm.cdf(abs(effect_size) * math.sqrt(n) - norm.ppf(1 - alpha / 2)))
