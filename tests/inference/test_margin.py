"""Tests against a margin: Tango's restricted MLE, score test and interval against 50-digit mpmath references.

The references are independent of the closed form: the restricted MLE is the root of the profile score equation
found numerically in mpmath (bracketing, 50 digits), not Tango's quadratic; the interval's ends are the margins where
that numerically found score statistic equals the critical value.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from llm_power_verified.errors import ArgumentError
from llm_power_verified.examples import shipped_example
from llm_power_verified.inference.margin import (
    EQUIVALENCE_OUTCOMES,
    equivalence_outcome,
    margin_score_interval,
    margin_score_pvalue,
    margin_score_z,
    restricted_discordance,
)
from llm_power_verified.inference.mcnemar import mcnemar_chi2

DIGITS = 50
#: The issue's done-when: the RMLE and p-values equal an independent numerical RMLE to 1e-9 relative.  The closed
#: form is held to 1e-12, well inside it: it is evaluated without cancellation, so only a few roundings remain.
RELATIVE = 1e-12

TABLES = [
    # (b, c, n, margin): ordinary tables, both signs of the margin, zero cells, near-boundary margins, big n
    (30, 10, 200, 0.05),
    (30, 10, 200, -0.05),
    (30, 10, 200, 0.3),
    (30, 10, 200, -0.3),
    (10, 30, 200, 0.02),
    (0, 7, 50, 0.02),
    (7, 0, 50, -0.02),
    (5, 900, 1000, 0.9),
    (3, 2, 10, -0.99),
    (1, 1, 10**6, 0.5),
    (1200, 1100, 14042, 0.02),
    (1200, 1100, 14042, -0.02),
    (40, 60, 500, 0.999999),
]


def _reference_rmle(b, c, n, margin):
    """p01~ maximising the profile log-likelihood, by bisection on its derivative (decreasing in p01) in mpmath."""
    with mpmath.workdps(DIGITS):
        b, c, n, margin = (mpmath.mpf(value) for value in (b, c, n, margin))
        low, high = max(mpmath.mpf(0), -margin), (1 - margin) / 2

        def score(p01):
            return b / (p01 + margin) + c / p01 - 2 * (n - b - c) / (1 - 2 * p01 - margin)

        tiny = mpmath.mpf(10) ** (-40)
        if c == 0 and margin >= 0 and score(low + tiny) <= 0:
            return +low  # the maximum sits on the boundary p01 = 0
        if b == 0 and margin < 0 and score(low + tiny) <= 0:
            return +low  # the boundary p10 = 0
        left, right = low + tiny, high - tiny
        for _ in range(200):
            middle = (left + right) / 2
            if score(middle) > 0:
                left = middle
            else:
                right = middle
        return (left + right) / 2


def _reference_z(b, c, n, margin):
    with mpmath.workdps(DIGITS):
        p01 = _reference_rmle(b, c, n, margin)
        p10 = p01 + mpmath.mpf(margin)
        return (b - c - n * mpmath.mpf(margin)) / mpmath.sqrt(n * (p10 + p01 - mpmath.mpf(margin) ** 2))


def _relative(approximate, exact):
    exact = mpmath.mpf(exact)
    if exact == 0:
        return abs(approximate)
    return float(abs((mpmath.mpf(approximate) - exact) / exact))


@pytest.mark.parametrize("b, c, n, margin", TABLES)
def test_restricted_mle_matches_a_numerical_maximisation(b, c, n, margin):
    p10, p01 = restricted_discordance(b, c, n, margin)
    exact = _reference_rmle(b, c, n, margin)
    assert _relative(p01, exact) <= RELATIVE
    assert _relative(p10, exact + mpmath.mpf(margin)) <= RELATIVE


@pytest.mark.parametrize("b, c, n, margin", TABLES)
def test_score_z_and_pvalues_match_the_numerical_reference(b, c, n, margin):
    exact = _reference_z(b, c, n, margin)
    assert _relative(margin_score_z(b, c, n, margin), exact) <= RELATIVE
    with mpmath.workdps(DIGITS):
        greater, less = mpmath.ncdf(-exact), mpmath.ncdf(exact)
    # p = Phi(-Z): the relative error of p is that of Z times |Z| phi(Z) / Phi(-Z), about Z^2 in the tail.
    tolerance = RELATIVE * max(1.0, float(exact) ** 2)
    for alternative, exact_p in (("larger", greater), ("smaller", less)):
        p = margin_score_pvalue(b, c, n, margin, alternative)
        if exact_p < mpmath.mpf("1e-300"):  # below float64's normal range: p underflows to 0 (or a subnormal)
            assert p < 1e-300
        else:
            assert _relative(p, exact_p) <= tolerance


def test_at_margin_zero_the_score_z_is_mcnemars():
    b = np.array([0, 1, 5, 30, 150, 1200])
    c = np.array([1, 0, 9, 10, 86, 1100])
    n = np.array([10, 10, 40, 200, 1000, 14042])
    expected = (b - c) / np.sqrt(b + c)
    # Rounding only: both are a difference over a square root.
    np.testing.assert_allclose(margin_score_z(b, c, n, 0.0), expected, rtol=1e-14, atol=0)
    for alternative in ("two-sided", "larger", "smaller"):
        mcnemar = mcnemar_chi2(b, c, alternative=alternative).pvalue
        np.testing.assert_allclose(margin_score_pvalue(b, c, n, 0.0, alternative), mcnemar, rtol=1e-13, atol=0)


def _reference_end(b, c, n, target, guess):
    """The margin within 1e-9 of ``guess`` where the reference Z (decreasing) equals ``target``, by bisection."""
    with mpmath.workdps(DIGITS):
        width = mpmath.mpf("1e-9")
        left = max(mpmath.mpf(guess) - width, mpmath.mpf(-1) + mpmath.mpf(10) ** -30)
        right = min(mpmath.mpf(guess) + width, 1 - mpmath.mpf(10) ** -30)
        if not _reference_z(b, c, n, left) > target >= _reference_z(b, c, n, right):
            return mpmath.inf  # no crossing within 1e-9 of the guess: the comparison fails
        for _ in range(70):
            middle = (left + right) / 2
            if _reference_z(b, c, n, middle) > target:
                left = middle
            else:
                right = middle
        return (left + right) / 2


@pytest.mark.parametrize("b, c, n", [(30, 10, 200), (0, 0, 50), (50, 0, 50), (0, 50, 50), (3, 900, 1000), (1, 0, 1)])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_interval_ends_are_where_the_two_sided_test_stops_rejecting(b, c, n, confidence):
    low, high = margin_score_interval(b, c, n, confidence)
    assert -1.0 <= low <= (b - c) / n <= high <= 1.0
    with mpmath.workdps(DIGITS):
        critical = mpmath.sqrt(2) * mpmath.erfinv(confidence)  # z_{(1 + confidence) / 2}
    for end, bound, target in ((low, -1.0, critical), (high, 1.0, -critical)):
        if end == bound:  # the test does not reject even at the bound: only where all items are discordant one way
            assert (bound < 0 and c == n) or (bound > 0 and b == n)
            continue
        # The issue asks for the ends to 1e-12 absolute; bisection stops at adjacent floats (~1e-16).
        assert abs(end - _reference_end(b, c, n, target, end)) <= 1e-12
        # And there the two-sided test's p is 1 - confidence: an end off by ~1e-16 moves Z by |dZ/dm| (below ~1e3
        # here) times that, p by a relative ~1e-12; 1e-9 is the bound.
        assert margin_score_pvalue(b, c, n, end) == pytest.approx(1 - confidence, rel=1e-9)


def test_zero_over_zero_cases_are_zero():
    assert margin_score_z(0, 0, 50, 0.0) == 0.0
    assert margin_score_z(50, 0, 50, 1.0) == 0.0
    assert margin_score_z(0, 50, 50, -1.0) == 0.0
    assert margin_score_z(49, 0, 50, 1.0) == -np.inf
    assert margin_score_z(0, 49, 50, -1.0) == np.inf
    assert margin_score_pvalue(0, 0, 50, 0.0, "larger") == 0.5 and margin_score_pvalue(0, 0, 50, 0.0) == 1.0


@pytest.mark.parametrize("b, c, margin", [(30, 70, 0.1), (100, 0, -0.3), (0, 100, 0.5), (60, 40, 0.2)])
def test_without_concordant_items_the_rmle_sits_on_the_edge(b, c, margin):
    """b + c = n: p11 = p00 = 0 at the maximum, so p10~ + p01~ = 1 and p01~ = (1 - margin) / 2."""
    p10, p01 = restricted_discordance(b, c, 100, margin)
    # Rounding only: the closed form reaches the edge through a square root and a sum.
    assert p01 == pytest.approx((1 - margin) / 2, rel=1e-14) and p10 + p01 == pytest.approx(1.0, rel=1e-14)
    expected = (b - c - 100 * margin) / np.sqrt(100 * (1 - margin**2))
    assert margin_score_z(b, c, 100, margin) == pytest.approx(expected, rel=1e-13)


def test_margins_at_plus_minus_one_fix_the_cells():
    assert restricted_discordance(49, 0, 50, 1.0) == (1.0, 0.0)
    assert restricted_discordance(0, 49, 50, -1.0) == (0.0, 1.0)
    assert margin_score_interval(50, 0, 50)[1] == 1.0 and margin_score_interval(0, 50, 50)[0] == -1.0


def test_nan_in_gives_nan_out():
    p10, p01 = restricted_discordance(np.array([np.nan, 3.0]), 0, 10, 0.0)
    assert np.isnan(p10[0]) and np.isnan(p01[0]) and p10[1] == pytest.approx(0.15, rel=1e-15)
    assert np.isnan(margin_score_z(3, 2, 10, np.nan))
    low, high = margin_score_interval(np.array([np.nan, 3.0]), 2, 10, [0.9, np.nan])
    assert np.isnan(low).tolist() == [True, True] and np.isnan(high).tolist() == [True, True]
    assert np.all(np.isfinite(margin_score_interval(np.array([1.0, 3.0]), 2, 10)))


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((1, 1, 0, 0.0), "n must be a whole number >= 1; got 0"),
        ((5, 6, 10, 0.0), "b + c must be at most n"),
        ((1, 1, 10, 1.5), "margin must lie in [-1, 1]"),
        ((-1, 1, 10, 0.0), "b must be a whole number >= 0; got -1"),
    ],
)
def test_bad_tables_are_refused_naming_the_argument(arguments, message):
    with pytest.raises(ArgumentError, match=message.replace("[", r"\[").replace("+", r"\+")):
        margin_score_z(*arguments)


def test_alternative_takes_the_glossarys_values_only():
    # scipy's "greater" and "less" are refused like any other word: one spelling across the package.
    for word in ("greater", "less"):
        with pytest.raises(
            ArgumentError, match=f"alternative must be one of 'two-sided', 'larger', 'smaller'; got '{word}'"
        ):
            margin_score_pvalue(30, 10, 200, 0.02, word)
    with pytest.raises(ArgumentError, match="alternative must be one of 'two-sided', 'larger', 'smaller'; got 'up'"):
        margin_score_pvalue(30, 10, 200, 0.02, "up")


def test_equivalence_outcomes_cover_the_four_cases():
    different = np.array([True, False, True, False])
    low = np.array([0.03, -0.01, 0.001, -0.03])
    high = np.array([0.05, 0.01, 0.015, 0.01])
    assert equivalence_outcome(different, low, high, 0.02).tolist() == list(EQUIVALENCE_OUTCOMES)


def test_interval_of_a_published_example():
    """Cavo et al. (2012), complete response before and after consolidation therapy: the paired table
    [[59, 6], [16, 80]] (b = 6, c = 16, N = 161) in Fagerland, Lydersen and Laake (2017), Statistical Analysis of
    Contingency Tables, Chapter 8; their R package contingencytables prints the Tango interval as
    "estimate = -0.0621 (95% CI -0.1240 to -0.0054)" (its tests, Tango_asymptotic_score_CI_paired_2x2(cavo_2012))."""
    low, high = margin_score_interval(6, 16, 161, 0.95)
    # Printed to 4 decimals: half a unit of the last digit.
    assert low == pytest.approx(-0.1240, abs=5e-5) and high == pytest.approx(-0.0054, abs=5e-5)


@given(
    st.integers(1, 10**6).flatmap(
        lambda n: st.tuples(st.integers(0, n), st.integers(0, n), st.just(n), st.floats(-0.999, 0.999))
    )
)
def test_random_tables_match_the_numerical_rmle(table):
    """The done-when of the issue: p-values against a margin equal the numerical RMLE's to 1e-9 relative."""
    b, c, n, margin = table
    assume(b + c <= n)
    # Z itself: well conditioned unless b - c - n margin cancels (margin near the observed gap).
    assume(abs(b - c - n * margin) > 1e-6 * (b + c + n * abs(margin)))
    exact = _reference_z(b, c, n, margin)
    assert _relative(margin_score_z(b, c, n, margin), exact) <= 1e-9
    with mpmath.workdps(DIGITS):
        greater = mpmath.ncdf(-exact)
    if greater > mpmath.mpf("1e-300"):
        assert _relative(margin_score_pvalue(b, c, n, margin, "larger"), greater) <= 1e-9


@pytest.mark.parametrize("b, c, n", [(30, 10, 200), (0, 0, 50), (7, 0, 50), (1200, 1100, 14042)])
def test_score_z_decreases_in_the_margin(b, c, n):
    margins = np.linspace(-0.999, 0.999, 2001)
    z = margin_score_z(b, c, n, margins)
    assert np.all(np.diff(z) < 0)


def test_intervals_are_nested_in_the_confidence_and_dual_to_the_one_sided_tests():
    b, c, n = np.array([30, 0, 7, 1200]), np.array([10, 0, 0, 1100]), np.array([200, 50, 50, 14042])
    previous_low, previous_high = margin_score_interval(b, c, n, 0.5)
    for confidence in (0.8, 0.9, 0.95, 0.99):
        low, high = margin_score_interval(b, c, n, confidence)
        assert np.all(low < previous_low) and np.all(high > previous_high)
        previous_low, previous_high = low, high
    # Non-inferiority at alpha = 0.05: the (1 - 2 alpha) interval's lower end exceeds -m exactly when p < alpha.
    low, high = margin_score_interval(b, c, n, 0.9)
    for margin in (0.01, 0.02, 0.05, 0.1):
        p_lower = margin_score_pvalue(b, c, n, -margin, "larger")
        p_upper = margin_score_pvalue(b, c, n, margin, "smaller")
        assert np.array_equal(low > -margin, p_lower < 0.05)
        assert np.array_equal(high < margin, p_upper < 0.05)


def test_arrays_broadcast():
    low, high = margin_score_interval(np.array([[30], [10]]), np.array([10, 20, 30]), 200, 0.9)
    assert low.shape == high.shape == (2, 3)
    assert high[0, 0] == margin_score_interval(30, 10, 200, 0.9)[1]
    assert margin_score_z(30, 10, 200, np.array([-0.1, 0.0, 0.1])).shape == (3,)


def test_every_pair_of_the_shipped_leaderboard_matches_the_numerical_rmle_at_two_points():
    """The issue's done-when on a real leaderboard: the shipped MMLU-Pro top 10 (12,032 items, 45 pairs), score-test
    p-values against -0.02 and +0.02 equal the numerical restricted MLE's to 1e-9 relative."""
    scores = shipped_example(clusters=False).scores
    first, second = np.triu_indices(scores.shape[1], 1)
    both = scores[:, first].astype(bool), scores[:, second].astype(bool)
    b = (both[0] & ~both[1]).sum(axis=0)
    c = (~both[0] & both[1]).sum(axis=0)
    n = scores.shape[0]
    lower = margin_score_pvalue(b, c, n, -0.02, "larger")
    upper = margin_score_pvalue(b, c, n, 0.02, "smaller")
    for pair in range(b.size):
        with mpmath.workdps(DIGITS):
            exact_lower = mpmath.ncdf(-_reference_z(int(b[pair]), int(c[pair]), n, -0.02))
            exact_upper = mpmath.ncdf(_reference_z(int(b[pair]), int(c[pair]), n, 0.02))
        assert _relative(lower[pair], exact_lower) <= 1e-9
        assert _relative(upper[pair], exact_upper) <= 1e-9


def test_equivalence_outcome_edges():
    assert equivalence_outcome(False, -0.01, 0.01, 0.02) == "equivalent, not different"
    assert equivalence_outcome(True, np.nan, 0.01, 0.02) is None
    # On the margin is not inside it: equivalence needs -m < low and high < m.
    assert equivalence_outcome(False, -0.02, 0.01, 0.02) == "inconclusive"
    outcomes = equivalence_outcome(np.array([True, False]), np.array([np.nan, -0.01]), 0.01, 0.02)
    assert outcomes.tolist() == [None, "equivalent, not different"]
    with pytest.raises(ArgumentError, match="different must be booleans"):
        equivalence_outcome(np.array([0.01, 0.2]), -0.01, 0.01, 0.02)
    with pytest.raises(ArgumentError, match="margin must be positive"):
        equivalence_outcome(True, -0.01, 0.01, 0.0)
