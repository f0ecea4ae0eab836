"""Paired bootstrap: determinism, the Definition 2 test, coverage checked by a binomial test."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from llm_power_verified.inference.bootstrap import paired_bootstrap, paired_bootstrap_counts

METHODS = ("percentile", "bca", "studentized")


@pytest.mark.parametrize("method", METHODS)
def test_same_seed_same_output(method):
    first = paired_bootstrap_counts(120, 90, 1000, interval=method, seed=7)
    assert first == paired_bootstrap_counts(120, 90, 1000, interval=method, seed=7)
    assert first == paired_bootstrap_counts(120, 90, 1000, interval=method, rng=np.random.default_rng(7))
    assert first != paired_bootstrap_counts(120, 90, 1000, interval=method, seed=8)
    scores_a = np.random.default_rng(0).beta(4, 2, 300)
    scores_b = scores_a - 0.01 + np.random.default_rng(1).normal(0, 0.05, 300)
    assert paired_bootstrap(scores_a, scores_b, interval=method, seed=3) == paired_bootstrap(
        scores_a, scores_b, interval=method, seed=3
    )


def test_binary_vectors_use_the_counts():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2, 400)
    b = rng.integers(0, 2, 400)
    only_a = int(np.sum((a == 1) & (b == 0)))
    only_b = int(np.sum((a == 0) & (b == 1)))
    assert paired_bootstrap(a, b, seed=2) == paired_bootstrap_counts(only_a, only_b, 400, seed=2)


def test_definition_2_test_agrees_with_interval():
    """p <= alpha exactly when 0 is outside the percentile interval at 1 - alpha (away from the grid edge)."""
    for b, c in [(295, 249), (98, 94), (253, 111), (60, 40), (45, 40)]:
        result = paired_bootstrap_counts(b, c, 10042, n_resamples=20_000, seed=11)
        outside = not (result.ci_low <= 0 <= result.ci_high)
        if abs(result.pvalue - 0.05) > 0.005:
            assert outside == (result.pvalue < 0.05)


def _coverage(method: str, datasets: int, seed: int) -> int:
    """Datasets of n = 300 paired 0/1 items with p10 = 0.12, p01 = 0.08: how many intervals hold 0.04."""
    rng = np.random.default_rng(seed)
    probabilities = np.array([0.12, 0.08, 0.80])
    truth = probabilities[0] - probabilities[1]
    covered = 0
    for counts in rng.multinomial(300, probabilities, size=datasets):
        result = paired_bootstrap_counts(
            int(counts[0]), int(counts[1]), 300, n_resamples=2000, interval=method, rng=rng
        )
        covered += result.ci_low <= truth <= result.ci_high
    return covered


@pytest.mark.parametrize("method", METHODS)
def test_coverage_is_nominal(method):
    """400 seeded datasets: the coverage count is consistent with 0.95 (two-sided binomial test at 0.001)."""
    covered = _coverage(method, 400, seed=20261121)
    assert binomtest(covered, 400, 0.95).pvalue > 0.001, covered


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_coverage_is_nominal_large(method):
    covered = _coverage(method, 4000, seed=99)
    assert binomtest(covered, 4000, 0.95).pvalue > 0.001, covered


def test_graded_coverage_is_nominal():
    rng = np.random.default_rng(314)
    truth = _graded_truth()
    covered = 0
    for _ in range(300):
        base = rng.beta(4, 2, 80)
        other = np.clip(base - 0.03 + rng.normal(0, 0.08, 80), 0, 1)
        truth_free = paired_bootstrap(base, other, n_resamples=1000, interval="bca", rng=rng)
        covered += truth_free.ci_low <= truth <= truth_free.ci_high
    assert binomtest(covered, 300, 0.95).pvalue > 0.001, covered


def _graded_truth() -> float:
    """E[A - clip(A - 0.03 + e)] for A ~ Beta(4, 2), e ~ N(0, 0.08^2), by a seeded 4e6-draw simulation."""
    rng = np.random.default_rng(0)
    base = rng.beta(4, 2, 4_000_000)
    return float(np.mean(base - np.clip(base - 0.03 + rng.normal(0, 0.08, base.size), 0, 1)))


@pytest.mark.parametrize(
    "call, fragment",
    [
        (lambda: paired_bootstrap_counts(5, 6, 10, n_resamples=10), "n_resamples"),
        (lambda: paired_bootstrap_counts(5, 6, 10, confidence=1.5), "confidence"),
        (lambda: paired_bootstrap_counts(5, 6, 10, interval="basic"), "interval"),
        (lambda: paired_bootstrap_counts(8, 6, 10), r"b \+ c must not exceed n"),
        (lambda: paired_bootstrap([0.1, 0.2], [0.1, 0.2, 0.3]), "same length"),
        (lambda: paired_bootstrap([0.1, float("nan")], [0.1, 0.2]), "index 1"),
        (lambda: paired_bootstrap_counts(5, 4, 10, seed=1, rng=np.random.default_rng(1)), "rng or seed"),
    ],
)
def test_bad_input(call, fragment):
    with pytest.raises(ValueError, match=fragment):
        call()
