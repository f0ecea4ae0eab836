"""Data flows one way: the all-pairs p-values are computed once and passed down.

The ranking does not depend on the family.
"""

from __future__ import annotations

import numpy as np
import pytest

from llm_power_verified.io import from_array
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.leaderboard.blocks import all_pairs_pvalues, arbiter_pvalues, pair_inputs, triangle_position
from llm_power_verified.leaderboard.pairs import pair_indices, rank_models
from llm_power_verified.leaderboard.ranking import resolved_count


def _matrix(graded: bool, models: int = 9, items: int = 400, seed: int = 11):
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(items, 1)) + np.linspace(0.4, -0.4, models)[None, :] + rng.normal(size=(items, models))
    scores = np.clip(0.5 + 0.2 * latent, 0, 1) if graded else (latent > 0).astype(float)
    return from_array(scores, models=[f"m{k}" for k in range(models)], item_ids=[f"i{k:04d}" for k in range(items)])


@pytest.mark.parametrize("graded", [False, True])
def test_letters_of_an_adjacent_audit_are_those_of_the_all_pairs_family(graded):
    matrix = _matrix(graded)
    adjacent = audit_leaderboard(matrix, "adjacent", n_resamples=0)
    declared_all = audit_leaderboard(matrix, "adjacent", family="all", n_resamples=0)
    every_pair = audit_leaderboard(matrix, "all", n_resamples=0)
    letters = adjacent.ranking["letters"].tolist()
    assert letters == declared_all.ranking["letters"].tolist() == every_pair.ranking["letters"].tolist()
    assert len(set(letters)) > 1  # some pairs are significant: the letters say something
    assert adjacent.tiers.significant_pairs == every_pair.tiers.significant_pairs
    assert adjacent.ranking[["rank_low", "rank_high"]].equals(every_pair.ranking[["rank_low", "rank_high"]])


@pytest.mark.parametrize("graded", [False, True])
def test_arbiter_pvalues_do_not_depend_on_the_orientation(graded):
    """A family pair is read from the all-pairs vector whatever its orientation.

    The two-sided p-value is symmetric, bit for bit.
    """
    matrix = _matrix(graded)
    order = rank_models(matrix)
    inputs = pair_inputs(matrix, order)
    first, second = pair_indices(order, "all")
    forward = arbiter_pvalues(inputs, first, second)
    assert np.array_equal(forward, arbiter_pvalues(inputs, second, first))
    assert np.array_equal(forward, all_pairs_pvalues(inputs, order))
    reference_first, reference_second = pair_indices(order, "reference", int(order[4]))
    positions = triangle_position(inputs.rank, reference_first, reference_second)
    assert np.array_equal(forward[positions], arbiter_pvalues(inputs, reference_first, reference_second))


@pytest.mark.parametrize("graded", [False, True])
def test_resolved_count_reads_the_pair_inputs(graded):
    """The count of resolved pairs among all of them equals the all-pairs table's.

    It is computed from the audit's counts or covariances.
    """
    matrix = _matrix(graded, items=3000)
    every_pair = audit_leaderboard(matrix, "all", n_resamples=0)
    order = rank_models(matrix)
    count = resolved_count(pair_inputs(matrix, order), 0.05, 0.8)
    assert count == int(every_pair.pairs["resolved"].sum()) == every_pair.tiers.resolved_pairs
    assert 0 < count < len(every_pair.pairs)
