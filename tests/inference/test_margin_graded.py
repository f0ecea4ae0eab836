"""The paired t against a margin and its interval, against statsmodels' ``ttost_paired`` and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.weightstats import ttost_paired

from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.margin import paired_t_interval, paired_t_margin

#: Both sides compute the mean and the ddof-1 sd of the same differences and the t tail by Boost (scipy's stdtr
#: and the t distribution statsmodels calls); they differ by the order of a few roundings, 1e-12 leaves room for
#: the tail's amplification (|t| up to about 10 here).
RELATIVE = 1e-12


def _differences(seed, n, shift, spread):
    rng = np.random.default_rng(seed)
    scores_b = rng.uniform(0.0, 1.0, n)
    scores_a = np.clip(scores_b + rng.normal(shift, spread, n), 0.0, 1.0)
    return scores_a, scores_b


@pytest.mark.parametrize(
    "seed, n, shift, spread, margin",
    [(1, 300, 0.01, 0.1, 0.02), (2, 40, -0.05, 0.3, 0.1), (3, 5000, 0.0, 0.05, 0.005), (4, 12, 0.2, 0.2, 0.05)],
)
def test_two_one_sided_tests_equal_statsmodels_ttost_paired(seed, n, shift, spread, margin):
    scores_a, scores_b = _differences(seed, n, shift, spread)
    difference = scores_a - scores_b
    mean, sd = difference.mean(), difference.std(ddof=1)
    p_tost, (t_low, p_low, df_low), (t_high, p_high, _) = ttost_paired(scores_a, scores_b, -margin, margin)
    assert df_low == n - 1
    t, p = paired_t_margin(mean, sd, n, -margin, "larger")
    assert t == pytest.approx(t_low, rel=RELATIVE) and p == pytest.approx(p_low, rel=RELATIVE)
    t, p = paired_t_margin(mean, sd, n, margin, "smaller")
    assert t == pytest.approx(t_high, rel=RELATIVE) and p == pytest.approx(p_high, rel=RELATIVE)
    assert max(paired_t_margin(mean, sd, n, [-margin, margin], "larger")[1][0], p) == pytest.approx(
        p_tost, rel=RELATIVE
    )


@pytest.mark.parametrize("alternative, scipy_alternative", [("two-sided", "two-sided"), ("larger", "greater")])
def test_at_margin_zero_the_test_is_scipys_ttest_rel(alternative, scipy_alternative):
    scores_a, scores_b = _differences(5, 200, 0.02, 0.15)
    difference = scores_a - scores_b
    reference = stats.ttest_rel(scores_a, scores_b, alternative=scipy_alternative)
    t, p = paired_t_margin(difference.mean(), difference.std(ddof=1), 200, 0.0, alternative)
    assert t == pytest.approx(reference.statistic, rel=RELATIVE) and p == pytest.approx(reference.pvalue, rel=RELATIVE)


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.999])
def test_interval_equals_scipys_t_interval_and_is_dual_to_the_one_sided_tests(confidence):
    scores_a, scores_b = _differences(6, 150, 0.03, 0.2)
    difference = scores_a - scores_b
    mean, sd = difference.mean(), difference.std(ddof=1)
    low, high = paired_t_interval(mean, sd, 150, confidence)
    expected = stats.t.interval(confidence, 149, loc=mean, scale=sd / np.sqrt(150))
    # The ends are mean +- a quantile times sd / sqrt(n): absolute error of a few roundings of a number near 0.1.
    assert low == pytest.approx(expected[0], abs=1e-14) and high == pytest.approx(expected[1], abs=1e-14)
    # At each end, the one-sided test on its side has p = (1 - confidence) / 2 (up to the quantile's rounding).
    _, p_low = paired_t_margin(mean, sd, 150, low, "larger")
    _, p_high = paired_t_margin(mean, sd, 150, high, "smaller")
    assert p_low == pytest.approx((1 - confidence) / 2, rel=1e-9)
    assert p_high == pytest.approx((1 - confidence) / 2, rel=1e-9)


def test_zero_sd_gives_infinite_t_or_zero_at_the_margin():
    t, p = paired_t_margin([0.1, 0.1, 0.02], 0.0, 10, 0.02, "larger")
    assert t.tolist() == [np.inf, np.inf, 0.0]
    assert p.tolist() == [0.0, 0.0, 0.5]
    assert paired_t_interval(0.1, 0.0, 10) == (0.1, 0.1)


def test_nan_in_gives_nan_out():
    t, p = paired_t_margin([np.nan, 0.1], 0.2, 10, 0.0)
    assert np.isnan(t[0]) and np.isnan(p[0]) and np.isfinite(t[1])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: paired_t_margin(0.1, 0.2, 1, 0.0), "n must be a whole number >= 2; got 1"),
        (lambda: paired_t_margin(0.1, -0.2, 10, 0.0), "sd must be non-negative; got -0.2"),
        (lambda: paired_t_margin(0.1, 0.2, 10, np.inf), "margin must be finite; got inf"),
        (lambda: paired_t_margin(0.1, 0.2, 10, 0.0, "sideways"), "alternative must be one of"),
        (lambda: paired_t_interval(0.1, 0.2, 10, 1.0), r"confidence must be in the open interval \(0, 1\); got 1"),
    ],
)
def test_bad_arguments_are_refused_naming_them(call, message):
    with pytest.raises(ArgumentError, match=message):
        call()
