"""The mpmath oracles of llm_power_verified.testing: exact identities, independent routes, the fast code, scipy."""

from __future__ import annotations

import math
import time
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from scipy import stats

from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.mcnemar import mcnemar_exact
from llm_power_verified.power import power_paired_t
from llm_power_verified.power import required_n_paired_t as fast_required_n_paired_t
from llm_power_verified.power.connor import required_n_connor
from llm_power_verified.power.conventions import CONVENTIONS, convention_values
from llm_power_verified.testing import oracles, strategies
from llm_power_verified.testing.oracles_n import NAMES
from llm_power_verified.testing.oracles_t import central_t_upper_quantile, noncentral_t_upper_tail

# Each side is computed at 50 digits with a stated relative error below 1e-50 each: 1e-48 leaves room for the
# last digits of the two evaluations, and any real error (a wrong term, a lost factor) is far larger.
AGREE_50 = mpmath.mpf(10) ** -48


def _relative(x, y) -> mpmath.mpf:
    return abs(x - y) / abs(y)


def _exact_tail(k: int, n: int) -> Fraction:
    return Fraction(sum(math.comb(n, j) for j in range(k + 1)), 2**n)


@pytest.mark.parametrize(("k", "n"), [(0, 1), (1, 4), (3, 7), (10, 21), (50, 100), (117, 400), (999, 2000)])
def test_tail_matches_exact_rational_sum(k, n):
    with mpmath.workdps(60):
        exact = mpmath.mpf(_exact_tail(k, n).numerator) / _exact_tail(k, n).denominator
        for route in oracles.ROUTES:
            log_tail, log_pmf = oracles.log_binomial_lower_tail(k, n, 50, route)
            assert _relative(mpmath.exp(log_tail), exact) < AGREE_50, route
        pmf = mpmath.mpf(math.comb(n, k)) / 2**n
        assert _relative(mpmath.exp(log_pmf), pmf) < AGREE_50


@pytest.mark.parametrize(
    ("k", "n"), [(5_000_000, 10_000_000), (4_999_999, 9_999_999), (4_990_000, 10_000_000), (10, 10_000_000)]
)
def test_fixed_point_and_float_sums_agree_at_ten_million(k, n):
    fixed, _ = oracles.log_binomial_lower_tail(k, n, 50, "fixed")
    floats, _ = oracles.log_binomial_lower_tail(k, n, 50, "sum")
    # Logs: an absolute gap of 1e-48 in log p is a relative gap of 1e-48 in p.
    assert abs(fixed - floats) < AGREE_50


@pytest.mark.parametrize(("k", "n"), [(1000, 2500), (2000, 5000), (300, 3000), (4, 9000)])
def test_fixed_point_and_incomplete_beta_agree(k, n):
    fixed, _ = oracles.log_binomial_lower_tail(k, n, 50, "fixed")
    beta, _ = oracles.log_binomial_lower_tail(k, n, 50, "beta")
    assert abs(fixed - beta) < AGREE_50


@pytest.mark.parametrize("method", oracles.METHODS)
def test_every_method_is_fast_at_ten_million(method):
    start = time.perf_counter()
    oracles.mcnemar_pvalue(5_000_000, 5_000_000, method)
    oracles.mcnemar_pvalue(4_998_765, 5_001_235, method)
    # Measured about 5 ms per call (the fixed-point series); a second for two calls allows a 100-fold slower CPU.
    assert time.perf_counter() - start < 1.0


@given(strategies.discordant_counts(max_total=5000))
def test_one_sided_tails_add_to_one_plus_the_point_mass(counts):
    b, c = counts
    lower, _ = oracles.mcnemar_pvalue(b, c, "exact-one-sided")
    upper, _ = oracles.mcnemar_pvalue(c, b, "exact-one-sided")  # P(X <= c) = P(X >= b) by symmetry
    with mpmath.workdps(60):
        point = mpmath.exp(mpmath.loggamma(b + c + 1) - mpmath.loggamma(b + 1) - mpmath.loggamma(c + 1)) / 2 ** (b + c)
        assert abs(lower + upper - 1 - point) < AGREE_50
        two_sided, _ = oracles.mcnemar_pvalue(b, c, "exact")
        assert abs(two_sided - min(1, 2 * min(lower, upper))) < AGREE_50


@given(strategies.discordant_counts(max_total=5000))
def test_methods_dispatch_to_their_functions(counts):
    b, c = counts
    assert oracles.mcnemar_pvalue(b, c, "exact") == oracles.exact_pvalue(b, c)
    assert oracles.mcnemar_pvalue(b, c, "mid-p") == oracles.midp_pvalue(b, c)
    assert oracles.mcnemar_pvalue(b, c, "chi2") == oracles.chi2_pvalue(b, c)
    assert oracles.mcnemar_pvalue(b, c, "chi2-corrected") == oracles.chi2_pvalue(b, c, continuity=True)
    p, log_p = oracles.mcnemar_pvalue(b, c, "mid-p")
    with mpmath.workdps(60):
        assert 0 < p <= 1 and abs(mpmath.log(p) - log_p) < AGREE_50


@pytest.mark.parametrize(("b", "c"), [(3, 12), (40, 61), (500, 430), (12_000, 12_500), (0, 30)])
def test_against_scipy(b, c):
    # scipy's binom.cdf (incomplete beta) and chi2.sf are accurate to about 1e-14 relative here; 1e-11 is margin.
    one_sided, _ = oracles.mcnemar_pvalue(b, c, "exact-one-sided")
    assert float(one_sided) == pytest.approx(stats.binom.cdf(b, b + c, 0.5), rel=1e-11)
    chi2, _ = oracles.mcnemar_pvalue(b, c, "chi2")
    assert float(chi2) == pytest.approx(stats.chi2.sf((b - c) ** 2 / (b + c), 1), rel=1e-11)


@given(strategies.discordant_counts(max_total=20_000))
def test_one_sided_exact_is_the_package_smaller_alternative(counts):
    b, c = counts
    expected = mcnemar_exact(b, c, alternative="smaller").log_pvalue
    # The package's log p carries an absolute error of a few 1e-15 at these counts (its stated bound grows with
    # log(b + c)); 1e-11 is margin, and the direction of the alternative is what this checks.
    assert float(oracles.mcnemar_pvalue(b, c, "exact-one-sided")[1]) == pytest.approx(expected, abs=1e-11)


def test_midp_rules_differ_only_at_a_tie():
    assert oracles.midp_pvalue(5, 5, "double")[0] == 1
    with mpmath.workdps(60):
        assert abs(oracles.midp_pvalue(5, 5, "no-more-likely")[0] - (1 - mpmath.mpf(252) / 2**11)) < AGREE_50
    assert oracles.midp_pvalue(4, 9, "double") == oracles.midp_pvalue(4, 9, "no-more-likely")
    with pytest.raises(ArgumentError):
        oracles.midp_pvalue(4, 9, "minlike")


def test_corrected_chi2_is_one_at_a_tie():
    assert oracles.mcnemar_pvalue(200, 200, "chi2-corrected")[0] == 1
    assert oracles.mcnemar_pvalue(200, 201, "chi2-corrected")[0] == 1


@pytest.mark.parametrize(
    ("b", "c", "method"), [(-1, 3, "exact"), (2.5, 3, "exact"), (1, 2, "fisher"), (True, 2, "exact")]
)
def test_bad_mcnemar_input_raises(b, c, method):
    with pytest.raises(ArgumentError):
        oracles.mcnemar_pvalue(b, c, method)


@given(strategies.designs(max_gap=0.998))
def test_required_n_agrees_with_the_fast_conventions(design):
    # The fast values are double-precision evaluations of well-conditioned closed forms (condition number at most
    # about 1/|delta| <= 1000 here, the gap being a whole thousandth): a few ulps times that stays below 1e-12.
    fast = convention_values(**design)
    fast["connor"] = float(required_n_connor(**design))
    for name, value in fast.items():
        assert value == pytest.approx(float(oracles.required_n(**design, convention=name)), rel=1e-12), name


@given(strategies.designs())
def test_one_sided_level_equals_two_sided_at_twice_alpha(design):
    alpha = design.pop("alpha")
    for name in ("paired", "connor", "two-proportion-z"):
        one = oracles.required_n(**design, alpha=alpha, convention=name, sides=1)
        two = oracles.required_n(**design, alpha=2 * alpha, convention=name, sides=2)
        assert _relative(one, two) < AGREE_50, name


@pytest.mark.parametrize("convention", NAMES)
def test_required_n_is_stable_in_precision(convention):
    at_30 = oracles.required_n(0.651, 0.652, 0.87, 0.01, 0.9, convention, digits=30)
    at_50 = oracles.required_n(0.651, 0.652, 0.87, 0.01, 0.9, convention, digits=50)
    assert _relative(at_30, at_50) < mpmath.mpf(10) ** -30


def test_required_n_names_every_convention_and_connor():
    assert set(CONVENTIONS) | {"connor"} == set(NAMES)
    assert oracles.required_n(0.6, 0.6, 0.2) == mpmath.inf


@pytest.mark.parametrize(
    "bad",
    [
        {"p_a": 1.0},
        {"p_b": 0.0},
        {"rho": 0.99},  # above rho_max = 0.6547 of (0.7, 0.4)
        {"rho": float("nan")},
        {"alpha": 0.0},
        {"power": 0.01},
        {"convention": "pwr"},
        {"sides": 3},
    ],
)
def test_bad_required_n_input_raises(bad):
    arguments = {"p_a": 0.7, "p_b": 0.4, "rho": 0.3} | bad
    with pytest.raises(ArgumentError):
        oracles.required_n(**arguments)


def _lenth_lower_cdf(t, df, ncp):
    """P(T <= t), t >= 0, ncp != 0, by the incomplete-beta series (Lenth 1989, AS 243), at the working precision."""
    x = t * t / (t * t + df)
    half = ncp * ncp / 2
    total = mpmath.ncdf(-ncp)
    for j in range(400):
        p_j = mpmath.exp(-half + j * mpmath.log(half) - mpmath.loggamma(j + 1))
        q_j = ncp * mpmath.exp(-half + j * mpmath.log(half) - mpmath.loggamma(j + 1.5)) / mpmath.sqrt(2)
        total += (p_j * mpmath.betainc(j + 0.5, df / 2, 0, x, regularized=True)) / 2
        total += (q_j * mpmath.betainc(j + 1, df / 2, 0, x, regularized=True)) / 2
        if j > half and p_j + abs(q_j) < mpmath.mpf(10) ** -(mpmath.mp.dps + 5):
            break
    return total


@pytest.mark.parametrize(("t", "df", "ncp"), [(2.0, 10, 1.5), (1.7, 33, 2.9), (0.5, 4, -1.0), (2.6, 120, 4.0)])
def test_noncentral_tail_matches_the_incomplete_beta_series(t, df, ncp):
    with mpmath.workdps(40):
        quadrature = noncentral_t_upper_tail(mpmath.mpf(t), df, ncp)
        series = 1 - _lenth_lower_cdf(mpmath.mpf(t), mpmath.mpf(df), mpmath.mpf(ncp))
        # Two independent evaluations at 40 digits; the stated bound is 1e-35 absolute, 1e-30 is margin.
        assert abs(quadrature - series) < mpmath.mpf(10) ** -30
    # scipy's nct (Boost) is accurate to about 1e-13 relative at these moderate arguments; 1e-10 is margin.
    assert float(quadrature) == pytest.approx(stats.nct.sf(t, df, ncp), rel=1e-10)


@pytest.mark.parametrize(("n", "alternative"), [(2, "two-sided"), (7.5, "two-sided"), (40, "larger"), (400, "smaller")])
def test_power_at_no_effect_is_alpha(n, alternative):
    # At d = 0 the power is the level exactly: a check of the quantile and the quadrature against a known truth.
    power = oracles.paired_t_power(n, 0.0, 0.05, alternative, digits=30)
    assert abs(power - mpmath.mpf(0.05)) < mpmath.mpf(10) ** -25


@pytest.mark.parametrize(
    ("n", "d", "alternative"),
    [
        (34, 0.5, "two-sided"),
        (5, -1.2, "two-sided"),
        (200, 0.1, "larger"),
        (3000, 0.05, "smaller"),
        (2.5, 3.0, "two-sided"),
    ],
)
def test_power_agrees_with_the_package(n, d, alternative):
    # The package evaluates scipy's nct in doubles (about 1e-13 relative); 1e-11 absolute is margin over that.
    expected = power_paired_t(n, d, 1.0, 0.05, alternative)
    assert float(oracles.paired_t_power(n, d, 0.05, alternative, digits=20)) == pytest.approx(expected, abs=1e-11)


def test_strict_false_counts_only_the_effect_tail():
    strict = oracles.paired_t_power(12, -0.4, 0.05, strict=True, digits=25)
    loose = oracles.paired_t_power(12, -0.4, 0.05, strict=False, digits=25)
    with mpmath.workdps(35):
        critical = central_t_upper_quantile(mpmath.mpf(0.05) / 2, 11)
        wrong_tail = noncentral_t_upper_tail(critical, 11, -0.4 * mpmath.sqrt(12))  # P(T >= c), against the effect
        assert loose < strict
        assert abs(strict - loose - wrong_tail) < mpmath.mpf(10) ** -20  # the stated bound at 25 digits


def test_required_n_paired_t_solves_the_power_equation():
    n = oracles.required_n_paired_t(0.5, digits=15)
    # The package solves with brentq at rtol 1e-13 on double-precision power: 1e-9 relative is margin.
    assert float(n) == pytest.approx(fast_required_n_paired_t(0.5, 1.0), rel=1e-9)
    # At 15 digits the root is found to a squared residual of 1e-16 (findroot's tol), so |power - 0.8| < 1e-8.
    assert abs(oracles.paired_t_power(n, 0.5, digits=20) - mpmath.mpf(0.8)) < mpmath.mpf(10) ** -8
    assert oracles.required_n_paired_t(0.3, alternative="smaller") == mpmath.inf
    assert oracles.required_n_paired_t(0.0) == mpmath.inf


@pytest.mark.parametrize(
    "bad", [{"n": 1}, {"n": float("inf")}, {"alpha": 1.0}, {"alternative": "greater"}, {"effect_size": "0.5"}]
)
def test_bad_paired_t_input_raises(bad):
    arguments = {"n": 10, "effect_size": 0.5} | bad
    with pytest.raises(ArgumentError):
        oracles.paired_t_power(**arguments)


def test_every_public_oracle_states_its_error_bound():
    public = [name for name in oracles.__all__ if callable(getattr(oracles, name))]
    assert public and set(public) <= set(oracles.ERROR_BOUNDS)
    for name, bound in oracles.ERROR_BOUNDS.items():
        assert "error" in bound or "exact" in bound, name
        assert "Notes" in getattr(oracles, name).__doc__, name


@pytest.mark.slow
def test_required_n_paired_t_polished_at_thirty_digits():
    n = oracles.required_n_paired_t(0.5, alternative="larger", digits=30)
    # The stated bound at 30 digits: power within 1e-25 of its target (the secant polish stops at a residual of 1e-23
    # at most, and the power's own error is 1e-25).
    assert (
        abs(oracles.paired_t_power(n, 0.5, alternative="larger", digits=30) - mpmath.mpf(0.8)) < mpmath.mpf(10) ** -23
    )
    assert float(n) == pytest.approx(fast_required_n_paired_t(0.5, 1.0, alternative="larger"), rel=1e-9)
