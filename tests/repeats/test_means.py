"""Model means exact for 0/1 generations: ties are ties, not float noise."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import llm_power_verified as lpv
from llm_power_verified.comparison import compare
from llm_power_verified.io import build_matrix
from llm_power_verified.io.generations import Generations
from llm_power_verified.repeats.means import mean_difference, model_means


def _matrix(correct: np.ndarray, counts: np.ndarray, binary: bool = True):
    generations = Generations(counts, np.zeros(counts.shape), binary=binary, label="epoch")
    items = [f"q{i}" for i in range(correct.shape[0])]
    return build_matrix(correct / counts, [f"m{k}" for k in range(correct.shape[1])], items, generations=generations)


@pytest.mark.parametrize("seed", range(5))
def test_the_means_are_the_correctly_rounded_rational_means(seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(2, 8, size=(300, 4))
    correct = rng.integers(0, counts + 1)
    means = model_means(_matrix(correct, counts))
    for model in range(4):
        exact = sum(Fraction(int(k), int(n)) for k, n in zip(correct[:, model], counts[:, model], strict=True)) / 300
        assert means[model] == float(exact)  # float(Fraction) rounds once, to nearest: equal bit for bit


def test_two_models_with_the_same_correct_generations_tie_in_the_audit():
    # 10 of 18 correct generations each; the float mean of the item means differs in the last bit.
    correct = np.array([[0, 0, 1], [2, 3, 1], [3, 2, 2], [0, 3, 1], [2, 1, 2], [3, 1, 0]])
    matrix = _matrix(correct, np.full(correct.shape, 3))
    plain = matrix.scores.mean(axis=0)
    assert plain[0] != plain[1]  # the noise this module removes
    result = lpv.audit_leaderboard(matrix, "all", n_resamples=0)
    assert result.ranking["model"].tolist()[:2] == ["m0", "m1"]  # a tie is ordered by name
    tied = result.pairs[(result.pairs["model_a"] == "m0") & (result.pairs["model_b"] == "m1")]
    assert tied["delta"].tolist() == [0.0]
    assert tied["p_t"].tolist() == [1.0]


def test_graded_generations_keep_the_float_mean():
    rng = np.random.default_rng(0)
    counts = np.full((50, 2), 3)
    values = rng.random((50, 2))
    matrix = _matrix(values * counts, counts, binary=False)
    assert np.array_equal(model_means(matrix), matrix.scores.mean(axis=0))


@pytest.mark.parametrize("seed", range(5))
def test_the_mean_difference_is_the_correctly_rounded_rational_difference(seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(2, 8, size=(300, 2))
    correct = rng.integers(0, counts + 1)
    exact = sum(
        Fraction(int(correct[i, 1]), int(counts[i, 1])) - Fraction(int(correct[i, 0]), int(counts[i, 0]))
        for i in range(300)
    )
    # float(Fraction) rounds once, to nearest: equal bit for bit.
    assert mean_difference(_matrix(correct, counts), 0, 1) == float(exact / 300)


def test_compare_on_a_tie_of_generations_shows_no_gap_and_no_required_n():
    # 13 of 24 correct generations each: d must be exactly 0, not -7e-18 with a required N of 1e31.
    correct = np.array([[0, 2, 2, 2, 0, 1, 3, 3], [0, 3, 3, 1, 2, 2, 0, 2]]).T
    matrix = _matrix(correct, np.full(correct.shape, 3))
    assert (matrix.scores[:, 1] - matrix.scores[:, 0]).mean() != 0  # the float noise the comparison must not show
    result = compare(matrix, "m0", "m1", "superiority", 0.0)
    assert result.difference == 0.0
    assert result.candidate_mean == result.baseline_mean
    assert result.q_generations_inf == 0.0
