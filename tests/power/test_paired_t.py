"""Paired t power and required N against statsmodels' TTestPower (called for real)."""

from __future__ import annotations

import math

import pytest
from statsmodels.stats.power import TTestPower

import llm_power_verified as lpv


@pytest.mark.parametrize("effect", [0.05, 0.2, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("alpha, power", [(0.05, 0.8), (0.01, 0.9)])
def test_exact_required_n_matches_statsmodels(effect, alpha, power):
    """statsmodels solves the same noncentral-t equation (both tails) for a continuous n."""
    expected = TTestPower().solve_power(effect_size=effect, alpha=alpha, power=power, alternative="two-sided")
    ours = lpv.required_n_paired_t(effect * 0.3, 0.3, alpha, power)
    if expected < 2:
        pytest.skip("statsmodels returns n < 2, below one degree of freedom")
    assert ours == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("n", [5, 20, 100, 1000])
@pytest.mark.parametrize(
    "alternative, statsmodels_name", [("two-sided", "two-sided"), ("larger", "larger"), ("smaller", "smaller")]
)
def test_power_matches_statsmodels(n, alternative, statsmodels_name):
    expected = TTestPower().power(
        effect_size=0.25 if alternative != "smaller" else -0.25, nobs=n, alpha=0.05, alternative=statsmodels_name
    )
    ours = lpv.power_paired_t(n, 0.25 if alternative != "smaller" else -0.25, 1.0, 0.05, alternative)
    assert ours == pytest.approx(expected, rel=1e-9)


def test_normal_approximation_is_below_exact_and_converges():
    for effect in (0.5, 0.1, 0.02):
        normal = lpv.required_n_paired_t(effect, 1.0, method="normal")
        exact = lpv.required_n_paired_t(effect, 1.0)
        assert normal < exact
        # The gap is about z^2/2 ~ 2 items whatever the effect.
        assert 0.5 < exact - normal < 3


def test_exact_power_at_solution_is_target():
    n = lpv.required_n_paired_t(0.3, 1.2, 0.05, 0.85)
    assert lpv.power_paired_t(n, 0.3, 1.2, 0.05) == pytest.approx(0.85, rel=1e-9)


def test_zero_effect_and_wrong_direction_are_infinite():
    assert lpv.required_n_paired_t(0.0, 1.0) == math.inf
    assert lpv.required_n_paired_t(-0.2, 1.0, alternative="larger") == math.inf


def test_bad_method():
    with pytest.raises(ValueError, match="method"):
        lpv.required_n_paired_t(0.2, 1.0, method="guess")


def test_power_is_finite_for_large_noncentrality():
    """scipy's nct.cdf is NaN far in the lower tail; the far tail is computed by symmetry instead."""
    value = lpv.power_paired_t(50, 0.05, 0.12 * (2 * 0.05) ** 0.5)
    assert value == pytest.approx(1.0, abs=1e-9)
    assert lpv.power_paired_t(50, -0.05, 0.0379) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize(
    ("critical", "df", "noncentrality"),
    [(2.0, 5, 3.0), (2.0, 50, -1.0), (1.5, 3, 0.5), (12.7, 1, 20.0), (1.96, 1000, 2.8)],
)
def test_the_quadrature_tail_equals_scipys_noncentral_t_where_scipy_has_one(critical, df, noncentrality):
    from scipy import stats

    from llm_power_verified.power.paired_t import _tail_by_quadrature

    # quad's default tolerance (1.5e-8 absolute, far less in practice) bounds the integral; 1e-11 holds with margin.
    assert _tail_by_quadrature(critical, df, noncentrality) == pytest.approx(
        stats.nct.sf(critical, df, noncentrality), abs=1e-11
    )


@pytest.mark.parametrize("n", [2, 10, 1e6])
def test_a_gap_of_1e10_standard_deviations_has_power_one_not_nan(n):
    # scipy's noncentral t gives NaN past a noncentrality of about 1e9; the quadrature gives the limit.
    assert lpv.power_paired_t(n, 1e10, 1.0) == 1.0
    assert lpv.power_paired_t(n, -1e10, 1.0, alternative="larger") == 0.0
    assert lpv.power_paired_t(n, 1e10, 1.0, alternative="larger") == 1.0
