"""plan_generations: each N(K) is the smallest whole N reaching the power, the cheapest row wins, K* is the optimum.

The power of each row is recomputed with statsmodels' TTestPower (an independent implementation of the two-sided
noncentral-t power, summing both tails as ours does).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.power import TTestPower

from llm_power_verified.errors import ArgumentError
from llm_power_verified.repeats.planning import pilot_variance_range, plan_generations, smallest_items

CASES = [
    # gap, between, within, cost_item, cost_generation, alpha, power
    (0.05, 0.02, 0.5, 4.0, 1.0, 0.05, 0.8),
    (-0.1, 0.05, 0.2, 1.0, 1.0, 0.05, 0.9),
    (0.2, 0.01, 1.5, 20.0, 0.5, 0.01, 0.8),
    (0.3, 0.5, 0.05, 1.0, 3.0, 0.05, 0.8),
]


def _statsmodels_power(n: int, gap: float, variance: float, alpha: float) -> float:
    return float(TTestPower().power(effect_size=gap / math.sqrt(variance), nobs=n, alpha=alpha))


@pytest.mark.parametrize("gap, between, within, cost_item, cost_generation, alpha, power", CASES)
def test_every_row_is_the_smallest_n_reaching_the_power(gap, between, within, cost_item, cost_generation, alpha, power):
    plan = plan_generations(
        gap, between, within, alpha=alpha, power=power, cost_item=cost_item, cost_generation=cost_generation, k_max=12
    )
    assert plan.table["generations"].tolist() == list(range(1, 13))
    for row in plan.table.itertuples():
        variance = between + within / row.generations
        reached = _statsmodels_power(row.items, gap, variance, alpha)
        # Two implementations of the same noncentral-t tail probabilities: they agree to about 1e-9.
        assert reached == pytest.approx(row.power, abs=1e-8)
        assert reached >= power - 1e-9
        if row.items > 2:
            assert _statsmodels_power(row.items - 1, gap, variance, alpha) < power
        assert row.cost == row.items * (cost_item + 2 * row.generations * cost_generation)
    # N(K) never grows with K: V(K) falls.
    assert (np.diff(plan.table["items"]) <= 0).all()


@pytest.mark.parametrize("gap, between, within, cost_item, cost_generation, alpha, power", CASES)
def test_the_cheapest_row_wins_and_ties_go_to_the_smaller_k(
    gap, between, within, cost_item, cost_generation, alpha, power
):
    plan = plan_generations(
        gap, between, within, alpha=alpha, power=power, cost_item=cost_item, cost_generation=cost_generation
    )
    costs = plan.table["cost"].to_numpy()
    assert plan.best_cost == costs.min()
    assert plan.best_generations == int(plan.table["generations"][costs == costs.min()].min())
    assert plan.best_items == int(plan.table["items"][plan.best_generations - 1])
    assert plan.derivation == "derivations/repeats.py"


@pytest.mark.parametrize("gap, between, within, cost_item, cost_generation, alpha, power", CASES)
def test_crossover_is_the_minimum_of_the_continuous_cost(
    gap, between, within, cost_item, cost_generation, alpha, power
):
    plan = plan_generations(
        gap, between, within, alpha=alpha, power=power, cost_item=cost_item, cost_generation=cost_generation
    )
    grid = np.linspace(0.001, 100.0, 1_000_000)
    cost = (between + within / grid) * (cost_item + 2 * grid * cost_generation)
    # Grid step 1e-4: the grid's minimiser is within one step of K*.
    assert abs(grid[np.argmin(cost)] - plan.crossover_generations) <= 1e-4


def test_with_no_generations_to_pay_for_more_generations_never_cost_more_per_item():
    """With cost_generation tiny against cost_item, the plan takes the most generations the table allows."""
    plan = plan_generations(0.05, 0.01, 0.8, cost_item=1.0, cost_generation=1e-6, k_max=10)
    assert plan.best_generations == 10
    assert any("raise k_max" in note for note in plan.notes)


def test_a_negative_between_variance_is_taken_as_zero_and_said():
    plan = plan_generations(0.1, -0.003, 0.4, k_max=30)
    zero = plan_generations(0.1, 0.0, 0.4, k_max=30)
    assert plan.table.equals(zero.table)
    assert plan.between_variance == -0.003
    assert math.isinf(plan.crossover_generations)
    assert "between_variance -0.003 < 0: estimated negative, not distinguishable from 0" in plan.notes[0]
    assert "K* is not estimable; planned as 0" in plan.notes[0]
    assert not any("K* = inf" in note for note in plan.notes)  # not a bare "K* = inf" beside "not estimable"
    assert len(plan.notes) == 1  # the exact t's extra items make K = 9 the cheapest, inside the table


def test_a_crossover_below_one_generation_is_said_as_such():
    # K* = sqrt(1 x 0.01 / (2 x 1 x 0.5)) = 0.1: below one generation, so K = 1 is the nearest whole K.
    plan = plan_generations(0.1, 0.5, 0.01)
    assert abs(plan.crossover_generations - 0.1) <= 1e-12  # a square root of exact binary fractions: rounding only
    assert plan.best_generations == 1
    assert any(note.startswith("K* = 0.1 < 1") and "one generation per item" in note for note in plan.notes)


@pytest.mark.parametrize(
    ("items", "low", "high"), [(2, 0.19904910, 1018.2582697), (10, 0.47311727, 3.3328525), (100, 0.77089602, 1.3494894)]
)
def test_pilot_variance_range_is_the_chi_square_interval(items, low, high):
    # References: R 4's (n - 1) / qchisq(c(0.975, 0.025), n - 1), printed with digits = 8.
    found = pilot_variance_range(items)
    assert abs(found[0] / low - 1) <= 1e-7 and abs(found[1] / high - 1) <= 1e-7  # the 8 printed digits


def test_pilot_variance_range_refuses_one_item():
    with pytest.raises(ArgumentError, match="items"):
        pilot_variance_range(1)


def test_no_generation_noise_needs_one_generation():
    plan = plan_generations(0.1, 0.05, 0.0)
    assert plan.best_generations == 1 and plan.crossover_generations == 0
    assert plan.table["items"].nunique() == 1
    assert any("within_variance 0" in note for note in plan.notes)


def test_smallest_items_at_the_bottom_of_the_range():
    """A huge effect: two items (one degree of freedom) already reach the power, and N never goes below 2."""
    items, achieved = smallest_items(10.0, 0.01, 0.05, 0.8)
    assert items == 2 and achieved >= 0.8


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"gap": 0.0}, "gap must be a non-zero mean difference"),
        ({"gap": math.nan}, "gap must be a finite number"),
        ({"between_variance": math.inf}, "between_variance must be a finite number"),
        ({"within_variance": -0.1}, r"within_variance must be a finite number in \[0, inf\)"),
        ({"between_variance": -0.1, "within_variance": 0.0}, "the gap has no variance"),
        ({"cost_item": 0.0}, r"cost_item must be a finite number in \(0, inf\)"),
        ({"cost_generation": -1.0}, "cost_generation must be"),
        ({"k_max": 0}, r"k_max must be a whole number in \[1, 1,000\]"),
        ({"k_max": 1001}, "k_max must be a whole number"),
        ({"k_max": 2.5}, "k_max must be a whole number"),
        ({"models": 0}, "models must be a whole number"),
        ({"alpha": 1.5}, "alpha must be in the open interval"),
        ({"alpha": 0.5, "power": 0.4}, "power must exceed alpha"),
    ],
)
def test_arguments_out_of_range_are_refused_naming_them(arguments, message):
    values = {"gap": 0.1, "between_variance": 0.01, "within_variance": 0.2, **arguments}
    positional = (values.pop("gap"), values.pop("between_variance"), values.pop("within_variance"))
    with pytest.raises(ArgumentError, match=message):
        plan_generations(*positional, **values)


def _upper_tail_power(n: int, gap: float, variance: float, alpha: float) -> float:
    # statsmodels' two-sided power takes the lower tail through nct.cdf, NaN this far out; that tail is below 1e-30
    # at these levels, so the upper tail at alpha / 2 is the two-sided power to far better than the 1e-9 used.
    return float(
        TTestPower().power(effect_size=gap / math.sqrt(variance), nobs=n, alpha=alpha / 2, alternative="larger")
    )


@pytest.mark.parametrize("gap, variance, alpha, power", [(0.05, 1.0, 1e-8, 0.9999), (0.2, 1.0, 1e-10, 0.99999)])
def test_smallest_items_far_from_the_normal_answer(gap, variance, alpha, power):
    """Extreme levels put the exact N 16 to 21 items above the normal one: the solver's fallback finds it."""
    items, achieved = smallest_items(gap, variance, alpha, power)
    assert _upper_tail_power(items, gap, variance, alpha) >= power - 1e-9
    assert _upper_tail_power(items - 1, gap, variance, alpha) < power
    # Two implementations of the same noncentral-t tail: about 1e-9 apart.
    assert achieved == pytest.approx(_upper_tail_power(items, gap, variance, alpha), abs=1e-8)


def test_smallest_items_at_billions_of_items_is_a_first_crossing():
    """At N near 10^10 the noncentral t's rounding moves the crossing thousands of items off the normal N; the
    bracketing search still returns a whole N whose power reaches the target while N - 1's does not."""
    from llm_power_verified.power.paired_t import power_paired_t

    gap, variance = 1e-5, 0.11
    items, achieved = smallest_items(gap, variance, 0.05, 0.8)
    assert items > 8e9
    assert achieved >= 0.8 and float(power_paired_t(items, gap, math.sqrt(variance))) == achieved
    assert float(power_paired_t(items - 1, gap, math.sqrt(variance))) < 0.8
