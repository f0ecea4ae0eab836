"""derivations/repeats.py proves what it claims, and its printed functions agree with the split and the planning.

The generated functions themselves are held to their SymPy sources at 50 digits by
tests/verification/test_generated_vs_symbolic.py (registered through ``derivations.CONCEPT_MODULES``).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from derivations import repeats
from llm_power_verified._generated import repeats as generated
from llm_power_verified.power.sample_size import required_n_wald


@pytest.mark.parametrize("count", range(1, 7))
def test_item_mean_variance_term_by_term_equals_the_closed_form(count):
    expanded = repeats.derive_item_mean_variance_expanded(count)
    assert sp.simplify(expanded - repeats.ITEM_MEAN_VARIANCE.subs(repeats.generations, count)) == 0


@pytest.mark.parametrize("count", range(2, 7))
def test_within_sample_variance_is_unbiased(count):
    assert sp.simplify(repeats.derive_within_expectation_expanded(count) - repeats.within_variance) == 0


def test_within_sample_variance_is_unbiased_for_any_k():
    assert sp.simplify(repeats.derive_within_expectation() - repeats.within_variance) == 0


@pytest.mark.parametrize("items", range(2, 7))
def test_sample_variance_of_unequal_variances_has_their_mean(items):
    assert repeats.derive_sample_variance_bias(items) == 0


@pytest.mark.parametrize("items", range(2, 7))
def test_moment_estimator_is_unbiased_with_unequal_generations(items):
    assert repeats.derive_moment_estimator_bias(items) == 0


def test_pair_variance_with_equal_generations_is_between_plus_within_over_k():
    equal, as_pair = repeats.derive_pair_equal_generations()
    assert sp.simplify(equal - as_pair) == 0
    pair_variance, _ = repeats.derive_pair_gap_variance()
    assert sp.simplify(repeats.derive_mean_gap_variance() - pair_variance / repeats.n) == 0


def test_optimal_generations_is_the_only_positive_stationary_point_and_a_minimum():
    from derivations.wald import WALD_K

    assert sp.simplify(repeats.derive_cost() - repeats.derive_cost(WALD_K / repeats.gap**2)) == 0
    assert repeats.OPTIMAL_CURVATURE.is_positive is True
    # With the true normal factor the stationary points are the same single root.
    assert sp.solve(sp.diff(repeats.derive_cost(), repeats.generations), repeats.generations) == [
        repeats.OPTIMAL_GENERATIONS
    ]


def test_optimal_generations_beats_a_fine_grid():
    """K* minimises (sigma_item^2 + sigma_w^2 / K)(c_I + m K c_G): no point of a fine real grid is cheaper."""
    grid = np.linspace(0.01, 60.0, 600_001)
    for cost_item, cost_generation, models, between, within in [(1, 1, 2, 0.02, 0.5), (10, 0.5, 2, 0.1, 0.3)]:
        best = generated.optimal_generations(cost_item, cost_generation, models, between, within)
        cost = (between + within / grid) * (cost_item + models * grid * cost_generation)
        # The grid step is 1e-4: its best point is within a step of K*.
        assert abs(grid[np.argmin(cost)] - best) <= 1e-4


def test_required_items_is_the_wald_n_at_the_item_mean_variance():
    gap, between, within, count = 0.05, 0.04, 0.3, 5
    expected = required_n_wald(between + within / count, gap)
    # The same closed form evaluated through two printed functions: rounding only.
    assert generated.required_items_repeated(gap, between, within, count, 0.05, 0.8, 2) == pytest.approx(
        expected, rel=1e-14
    )
    share = generated.generation_share(between, within, count)
    assert share == pytest.approx((within / count) / (between + within / count), rel=1e-15)
