"""Graded-score paired tests against scipy."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from llm_power_verified.inference.graded import paired_t_test, wilcoxon_signed_rank

scores = st.lists(st.floats(0, 1), min_size=3, max_size=60)


@given(scores, st.floats(-0.2, 0.2), st.integers(0, 2**32 - 1))
def test_paired_t_matches_scipy_ttest_rel(values, shift, seed):
    a = np.array(values)
    b = np.clip(a - shift + np.random.default_rng(seed).normal(0, 0.05, a.size), 0, 1)
    if np.std(a - b) < 1e-9:
        return
    ours = paired_t_test(a, b)
    theirs = stats.ttest_rel(a, b)
    assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-9)
    assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-300)


def test_paired_t_log_pvalue_in_the_far_tail():
    """Where p underflows, log p still matches a 50-digit mpmath evaluation of the t tail."""
    a = np.linspace(0.5, 0.9, 5000)
    b = a - 0.2 + 0.001 * np.sin(np.arange(5000))
    result = paired_t_test(a, b)
    assert result.pvalue == 0.0 and math.isfinite(result.log_pvalue)
    df = mpmath.mpf(4999)
    with mpmath.workdps(50):
        t = mpmath.mpf(result.statistic)
        x = df / (df + t * t)
        log_reference = mpmath.log(mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, x, regularized=True))
    assert result.log_pvalue == pytest.approx(float(log_reference), rel=1e-12)


@pytest.mark.parametrize("t, df", [(40.0, 30), (300.0, 10), (12.0, 200), (9.0, 1000)])
def test_paired_t_log_tail_switch_is_continuous(t, df):
    """The log-space route agrees with scipy where scipy's logsf is still accurate."""
    from llm_power_verified.inference.binomial import log_t_survival

    assert log_t_survival(t, df) == pytest.approx(float(stats.t.logsf(t, df)), rel=1e-12)


@given(scores, st.integers(0, 2**32 - 1))
def test_wilcoxon_matches_scipy(values, seed):
    a = np.array(values)
    b = np.clip(a - 0.05 + np.random.default_rng(seed).normal(0, 0.1, a.size), 0, 1)
    if np.all(a == b):
        return
    assert wilcoxon_signed_rank(a, b).pvalue == pytest.approx(stats.wilcoxon(a, b).pvalue, rel=1e-12)


def test_degenerate_differences():
    assert paired_t_test([0.5, 0.6], [0.5, 0.6]).pvalue == 1.0
    assert paired_t_test([0.5, 0.6], [0.4, 0.5]).pvalue == 0.0
    assert wilcoxon_signed_rank([0.5, 0.6], [0.5, 0.6]).pvalue == 1.0


def test_bad_input():
    with pytest.raises(ValueError, match="same length"):
        paired_t_test([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"scores_b must be finite.*index 1"):
        wilcoxon_signed_rank([0.1, 0.2], [0.1, float("inf")])


@pytest.mark.parametrize("n", [5, 13, 14, 30, 50, 51, 200])
def test_batched_tests_equal_scipy_row_by_row(n):
    """Rows with zeros, ties and negative zeros take scipy's per-row method; p-values are identical."""
    from scipy import stats

    from llm_power_verified.inference.graded import batched_paired_t_pvalues, batched_wilcoxon_pvalues

    rng = np.random.default_rng(n)
    rows = 83 if n <= 13 else 240  # scipy permutes tied rows of at most 13 items, seconds each
    differences = np.round(rng.normal(0.02, 0.1, (rows, n)), 1 if n <= 13 else 2 if n <= 50 else 3)  # ties and zeros
    differences[:80] = rng.normal(0.02, 0.1, (80, n))
    differences[80] *= -1.0
    differences[81, 0] = -0.0
    differences[82] = 0.0
    expected = np.array([stats.wilcoxon(row).pvalue if np.any(row != 0) else np.nan for row in differences])
    observed = batched_wilcoxon_pvalues(differences)
    assert np.array_equal(np.isnan(observed), np.isnan(expected))
    assert np.nanmax(np.abs(observed - expected)) <= 1e-14
    t_expected = stats.ttest_rel(differences, np.zeros_like(differences), axis=1).pvalue
    t_observed = batched_paired_t_pvalues(differences)
    assert np.array_equal(np.isnan(t_observed), np.isnan(t_expected))
    finite = np.isfinite(t_expected)
    assert np.max(np.abs(t_observed[finite] - t_expected[finite]) / t_expected[finite]) < 1e-11


def test_batched_tests_reject_bad_input():
    from llm_power_verified.inference.graded import batched_paired_t_pvalues, batched_wilcoxon_pvalues

    with pytest.raises(ValueError, match="differences must be two-dimensional"):
        batched_wilcoxon_pvalues([0.1, 0.2])
    with pytest.raises(ValueError, match="at least 2 items"):
        batched_paired_t_pvalues([[0.1], [0.2]])
    with pytest.raises(ValueError, match="differences must be finite"):
        batched_wilcoxon_pvalues([[0.1, np.nan]])
