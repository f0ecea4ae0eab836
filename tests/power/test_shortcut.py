"""Cohen's h conventions, the (1 - rho) shortcut, Lemma 1's constant and delta*."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import norm
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

import llm_power_verified as lpv


@given(st.floats(0.001, 0.999), st.floats(0.001, 0.999))
def test_cohens_h_matches_arcsine_difference(p_a, p_b):
    with mpmath.workdps(40):
        exact = 2 * mpmath.asin(mpmath.sqrt(mpmath.mpf(p_a))) - 2 * mpmath.asin(mpmath.sqrt(mpmath.mpf(p_b)))
    value = lpv.cohens_h(p_a, p_b)
    assert abs(value - exact) <= 1e-15 + 1e-13 * abs(exact)
    assert value == pytest.approx(proportion_effectsize(p_a, p_b), rel=1e-9, abs=1e-13)


def test_two_sample_convention_is_statsmodels_normal_ind_power():
    """statsmodels NormalIndPower (ratio 1) solves the 2K/h^2 equation including the far tail.

    Its n therefore satisfies Phi(h sqrt(n/2) - z) + Phi(-h sqrt(n/2) - z) = power
    exactly, and lies just below our dominant-tail 2K/h^2 (by 0.0036 items here).
    """
    h = proportion_effectsize(0.65, 0.60)
    solved = NormalIndPower().solve_power(effect_size=h, alpha=0.05, power=0.8, ratio=1.0)
    z = norm.isf(0.025)
    both_tails = norm.cdf(abs(h) * np.sqrt(solved / 2) - z) + norm.cdf(-abs(h) * np.sqrt(solved / 2) - z)
    assert both_tails == pytest.approx(0.8, rel=1e-8)
    ours = lpv.required_n_arcsine(0.65, 0.60, convention="two-sample")
    assert 0 < ours - solved < 0.01
    assert lpv.ceil_sample_size(ours) == lpv.ceil_sample_size(solved) == 1471


def test_one_sample_convention_and_shortcut_at_the_worked_example():
    """K/h^2 = 735.05 (paper prints 736 = its ceiling); x 0.7 = 514.53 (paper 515)."""
    one = lpv.required_n_arcsine(0.65, 0.60, convention="one-sample")
    assert lpv.required_n_arcsine(0.65, 0.60, convention="two-sample") == pytest.approx(2 * one, rel=1e-15)
    assert lpv.required_n_shortcut(0.65, 0.60, 0.30) == pytest.approx(0.7 * one, rel=1e-15)
    assert lpv.ceil_sample_size(one) == 736
    assert lpv.ceil_sample_size(0.7 * one) == 515


@pytest.mark.parametrize("rho", [-0.99, -0.5, 0.0, 0.3, 0.7, 0.95, 0.999])
def test_constant_at_one_half_is_one_third_for_every_rho(rho):
    assert lpv.shortcut_constant(0.5, rho) == pytest.approx(1 / 3, rel=1e-15)


def test_shortcut_ratio_tends_to_one_half_with_constant_c():
    for p, rho in [(0.5, 0.3), (0.65, 0.0), (0.8, 0.5), (0.65, 0.9), (0.3, -0.2)]:
        for gap in (0.02, 0.01, 0.005):
            ratio = lpv.shortcut_ratio(p + gap / 2, p - gap / 2, rho)
            assert abs(ratio - 0.5) == pytest.approx(lpv.shortcut_constant(p, rho) * gap**2, rel=0.02)


def test_shortcut_ratio_is_independent_of_alpha_and_power():
    for alpha, power in [(0.05, 0.8), (0.01, 0.95), (0.1, 0.5)]:
        ratio = lpv.required_n_shortcut(0.7, 0.66, 0.4, alpha, power) / lpv.required_n_paired_binary(
            0.7, 0.66, 0.4, alpha, power
        )
        assert ratio == pytest.approx(lpv.shortcut_ratio(0.7, 0.66, 0.4), rel=1e-12)


def test_series_orders():
    exact = lpv.shortcut_ratio(0.7, 0.6, 0.5)
    second = lpv.shortcut_ratio_series(0.65, 0.5, 0.1, order=2)
    fourth = lpv.shortcut_ratio_series(0.65, 0.5, 0.1, order=4)
    assert abs(fourth - exact) < abs(second - exact) / 5


def test_delta_star_exact_root_and_leading_order():
    result = lpv.delta_star(0.65, 0.3, 0.05)
    assert result.limited_by == "epsilon"
    ratio = lpv.shortcut_ratio(0.65 + result.exact / 2, 0.65 - result.exact / 2, 0.3)
    assert abs(ratio - 0.5) == pytest.approx(0.05, rel=1e-9)
    assert result.leading_order == pytest.approx(math.sqrt(0.05 / lpv.shortcut_constant(0.65, 0.3)), rel=1e-14)
    # Before the root the deviation stays below epsilon.
    gaps = np.linspace(1e-4, result.exact * 0.999, 200)
    deviations = np.abs(lpv.shortcut_ratio(0.65 + gaps / 2, 0.65 - gaps / 2, 0.3) - 0.5)
    assert np.all(deviations < 0.05)
    # As epsilon -> 0 the leading order becomes exact.
    small = lpv.delta_star(0.65, 0.3, 1e-6)
    assert small.exact == pytest.approx(small.leading_order, rel=1e-3)


def test_delta_star_capped_by_admissibility():
    """At rho = 0.9 and p = 0.5 rho becomes unattainable before the deviation reaches 0.45."""
    result = lpv.delta_star(0.5, 0.9, 0.45)
    assert result.limited_by == "admissibility"
    upper = lpv.admissible_rho_interval(0.5 + result.exact / 2, 0.5 - result.exact / 2).high
    assert upper == pytest.approx(0.9, abs=1e-9)
