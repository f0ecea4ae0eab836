"""Paired-binary N*, MDE, q and power: values, round trips, independent routes, bad input."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import llm_power_verified as lpv

probabilities = st.floats(0.01, 0.99)
levels = st.sampled_from([0.001, 0.01, 0.05, 0.1])
powers = st.sampled_from([0.5, 0.8, 0.9, 0.99])


def _mpmath_required_n(pa: str, pb: str, rho: str, alpha: str = "0.05", power: str = "0.8"):
    """Eq. 6 typed directly in mpmath (an independent route to the generated code)."""
    with mpmath.workdps(50):
        pa, pb, rho = mpmath.mpf(pa), mpmath.mpf(pb), mpmath.mpf(rho)
        z = lambda tail: -mpmath.sqrt(2) * mpmath.erfinv(2 * tail - 1)  # noqa: E731
        k = (z(mpmath.mpf(alpha) / 2) + z(1 - mpmath.mpf(power))) ** 2
        variance = pa * (1 - pa) + pb * (1 - pb) - 2 * rho * mpmath.sqrt(pa * (1 - pa) * pb * (1 - pb))
        return variance, k * variance / (pa - pb) ** 2


def test_issue_worked_example():
    """(p_A, p_B, rho) = (0.65, 0.60, 0.30) at (0.05, 0.80): sigma^2 = 0.3273001, N* = 1027.576 -> 1028."""
    variance_ref, required_ref = _mpmath_required_n("0.65", "0.60", "0.30")
    variance = lpv.paired_difference_variance(0.65, 0.60, 0.30)
    required = lpv.required_n_paired_binary(0.65, 0.60, 0.30)
    assert abs(variance - variance_ref) / variance_ref < 1e-14
    assert abs(required - required_ref) / required_ref < 1e-13
    assert round(variance, 7) == 0.3273001
    assert round(required, 3) == 1027.576
    assert lpv.ceil_sample_size(required) == 1028


@given(probabilities, probabilities, st.floats(-1, 1), levels, powers)
def test_round_trips(p_a, p_b, rho_fraction, alpha, power):
    """At N*, the dominant-tail power is the target and the MDE is the gap."""
    assume(abs(p_a - p_b) > 1e-3)
    low, high = lpv.admissible_rho_interval(p_a, p_b)
    rho = low + (high - low) * (rho_fraction + 1) / 2
    required = lpv.required_n_paired_binary(p_a, p_b, rho, alpha, power)
    variance = lpv.paired_difference_variance(p_a, p_b, rho)
    assume(variance > 1e-6)
    mde = lpv.minimum_detectable_effect(required, variance, alpha, power)
    assert mde == pytest.approx(abs(p_a - p_b), rel=1e-12)
    assert lpv.resolution_ratio(required, p_a, p_b, rho, alpha, power) == pytest.approx(1.0, rel=1e-12)
    # One-sided: no second tail, so the exact power at N* is the target.
    direction = "larger" if p_a > p_b else "smaller"
    one_sided_n = lpv.required_n_paired_binary(p_a, p_b, rho, alpha, power, alternative=direction)
    assert lpv.power_paired_binary(one_sided_n, p_a, p_b, rho, alpha, direction) == pytest.approx(power, rel=1e-10)
    # Two-sided: the exact power adds the far tail, which Eq. 3 drops.
    exact = lpv.power_paired_binary(required, p_a, p_b, rho, alpha)
    far_tail = exact - power
    assert 0 <= far_tail <= alpha / 2 * (1 - power) + 1e-12


@given(probabilities, probabilities, st.floats(0, 1), st.integers(0, 10_000))
def test_counts_route_equals_marginal_route(p_a, p_b, fraction, n_extra):
    """N* from (b, c, n) equals Eq. 6 at the table's marginals and phi correlation."""
    n = 500 + n_extra
    a = round(min(p_a, p_b) * n * fraction)
    b = round((p_a - min(p_a, p_b)) * n) + 3
    c = round((p_b - min(p_a, p_b)) * n) + 1
    assume(a + b + c < n and b != c and a > 0)
    d = n - a - b - c
    rho = lpv.correlation_from_counts(a, b, c, d)
    from_counts = lpv.required_n_from_counts(b, c, n)
    from_marginals = lpv.required_n_paired_binary((a + b) / n, (a + c) / n, rho)
    assert from_counts == pytest.approx(from_marginals, rel=1e-9)
    assert lpv.paired_difference_variance_from_counts(b, c, n) == pytest.approx(
        lpv.paired_difference_variance((a + b) / n, (a + c) / n, rho), rel=1e-9
    )


def test_hellaswag_pair_from_paper_table_6():
    """b = 295, c = 249, n = 10042: the paper prints N* = 20,255 and q ~ 1/2; both follow."""
    assert round(lpv.required_n_from_counts(295, 249, 10042)) == 20255
    assert lpv.resolution_ratio_from_counts(295, 249, 10042) == pytest.approx(
        10042 / lpv.required_n_from_counts(295, 249, 10042)
    )


def test_connor_agrees_with_equation_6_for_small_gaps():
    """Connor's null variance is psi, Eq. 6 uses psi - delta^2: they agree as delta -> 0."""
    for gap in (0.05, 0.01, 0.002):
        ratio = lpv.required_n_connor(0.6 + gap, 0.6, 0.5) / lpv.required_n_paired_binary(0.6 + gap, 0.6, 0.5)
        assert 1 <= ratio < 1 + 5 * gap
    assert lpv.required_n_connor_from_counts(295, 249, 10042) > lpv.required_n_from_counts(295, 249, 10042)


def test_monotonicity():
    base = lpv.required_n_paired_binary(0.7, 0.65, 0.4)
    assert lpv.required_n_paired_binary(0.7, 0.65, 0.4, alpha=0.01) > base
    assert lpv.required_n_paired_binary(0.7, 0.65, 0.4, power=0.9) > base
    assert lpv.required_n_paired_binary(0.7, 0.65, 0.6) < base
    assert lpv.required_n_paired_binary(0.7, 0.65, 0.4, alternative="larger") < base
    powers_at_n = lpv.power_paired_binary([100, 200, 400, 800], 0.7, 0.65, 0.4)
    assert np.all(np.diff(powers_at_n) > 0)


def test_zero_gap_is_infinite_not_an_error():
    assert lpv.required_n_paired_binary(0.6, 0.6, 0.3) == math.inf
    assert lpv.resolution_ratio(1000, 0.6, 0.6, 0.3) == 0.0
    assert lpv.required_n_from_counts(10, 10, 100) == math.inf
    assert lpv.resolution_ratio_from_counts(10, 10, 100) == 0.0
    assert lpv.power_paired_binary(1000, 0.6, 0.6, 0.3) == pytest.approx(0.05, rel=1e-12)


def test_one_sided_alternative_against_the_effect_is_infinite():
    assert lpv.required_n_paired_binary(0.6, 0.65, 0.3, alternative="larger") == math.inf
    assert lpv.required_n_paired_binary(0.6, 0.65, 0.3, alternative="smaller") < math.inf
    assert lpv.power_paired_binary(1000, 0.6, 0.65, 0.3, alternative="larger") < 0.05


def test_vectorised_calls_broadcast():
    p_a = np.array([0.65, 0.7, 0.8])
    result = lpv.required_n_paired_binary(p_a, 0.6, 0.3)
    assert result.shape == (3,)
    for value, pa in zip(result, p_a, strict=True):
        assert value == lpv.required_n_paired_binary(float(pa), 0.6, 0.3)
    grid = lpv.required_n_paired_binary(p_a[:, None], 0.6, np.array([0.0, 0.3])[None, :])
    assert grid.shape == (3, 2)


def test_nan_rule_propagates_elementwise():
    """NaN in any input gives NaN in that element only; it is never an error."""
    result = lpv.required_n_paired_binary([0.65, np.nan, 0.7], 0.6, [0.3, 0.3, np.nan])
    assert result[0] == lpv.required_n_paired_binary(0.65, 0.6, 0.3)
    assert np.isnan(result[1]) and np.isnan(result[2])
    assert math.isnan(lpv.paired_difference_variance(np.nan, 0.5, 0.1))
    counts = lpv.required_n_from_counts([10, np.nan], [5, 5], 100)
    assert np.isfinite(counts[0]) and np.isnan(counts[1])
    assert np.isnan(lpv.ceil_sample_size([np.nan]))[0]


@pytest.mark.parametrize(
    "call, fragments",
    [
        (lambda: lpv.required_n_paired_binary(1.2, 0.6, 0.3), ["p_a", "1.2", "(0, 1)"]),
        (lambda: lpv.required_n_paired_binary(0.65, [0.6, 0.0], 0.3), ["p_b", "got 0", "index 1"]),
        (lambda: lpv.required_n_paired_binary(0.65, 0.6, 0.3, alpha=1.5), ["alpha", "1.5", "(0, 1)"]),
        (lambda: lpv.required_n_paired_binary(0.65, 0.6, 0.3, power=0), ["power", "got 0"]),
        (
            lambda: lpv.required_n_paired_binary(0.65, 0.6, 0.3, alpha=0.5, power=0.4),
            ["power must exceed alpha", "0.4", "0.5"],
        ),
        (
            lambda: lpv.required_n_paired_binary(0.65, 0.6, 0.95),
            ["rho", "admissible interval", "[-0.599144689515278, 0.898717034272917]", "0.95"],
        ),
        (
            lambda: lpv.required_n_paired_binary(0.65, 0.6, 0.3, alternative="greater"),
            ["alternative", "'greater'", "'two-sided'"],
        ),
        (lambda: lpv.required_n_from_counts(-1, 3, 10), ["b", "whole number", "-1"]),
        (lambda: lpv.required_n_from_counts(2.5, 3, 10), ["b", "whole number", "2.5"]),
        (lambda: lpv.required_n_from_counts(8, 3, 10), ["b + c must not exceed n", "b = 8", "c = 3", "n = 10"]),
        (lambda: lpv.required_n_from_counts(1, 3, 0), ["n", ">= 1", "got 0"]),
        (lambda: lpv.minimum_detectable_effect(-5, 0.3), ["n", "positive", "-5"]),
        (lambda: lpv.required_n_inflation(0), ["family_size", ">= 1"]),
        (lambda: lpv.design_effect(0.5, 0.1), ["cluster_size", ">= 1", "0.5"]),
        (lambda: lpv.required_n_arcsine(0.6, 0.5, convention="paired"), ["convention", "'paired'"]),
    ],
)
def test_bad_input_names_argument_value_and_range(call, fragments):
    with pytest.raises(ValueError) as error:
        call()
    for fragment in fragments:
        assert fragment in str(error.value)


def test_non_numeric_input_is_a_type_error():
    with pytest.raises(TypeError, match="p_a"):
        lpv.required_n_paired_binary("high", 0.6, 0.3)


def test_rho_a_rounding_error_outside_the_bound_is_clipped():
    high = lpv.admissible_rho_interval(0.65, 0.6).high
    assert lpv.paired_difference_variance(0.65, 0.6, high * (1 + 1e-14)) == lpv.paired_difference_variance(
        0.65, 0.6, high
    )


def test_ceil_sample_size_rule():
    assert lpv.ceil_sample_size(1027.576) == 1028
    assert lpv.ceil_sample_size(1000.0) == 1000
    assert lpv.ceil_sample_size(1000.0 * (1 + 1e-15)) == 1000
    assert lpv.ceil_sample_size(1000.001) == 1001
    assert lpv.ceil_sample_size(math.inf) == math.inf


def test_phi_of_identical_models_is_exactly_one_whatever_the_rounding():
    """b = c = 0: phi = a d / sqrt(a d a d) is 1; rounding gave 1 + 2^-52 for a = 7, d = 13 (outside [-1, 1])."""
    from llm_power_verified.power.correlation import correlation_from_counts

    a = np.arange(1, 200)[:, None]
    d = np.arange(1, 200)[None, :]
    same = correlation_from_counts(a + 0 * d, 0, 0, d + 0 * a)
    opposite = correlation_from_counts(0, a + 0 * d, d + 0 * a, 0)
    # Inside [-1, 1] always; within 4 ulp of +-1 (a few roundings of a product, a square root and a quotient).
    assert same.max() <= 1.0 and opposite.min() >= -1.0
    np.testing.assert_allclose(same, 1.0, rtol=4 * np.finfo(float).eps)
    np.testing.assert_allclose(opposite, -1.0, rtol=4 * np.finfo(float).eps)
