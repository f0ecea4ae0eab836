"""The hypothesis strategies of llm_power_verified.testing: admissible, readable, shrinking, reaching far."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import find, given, settings

from llm_power_verified.errors import ArgumentError
from llm_power_verified.power.correlation import admissible_rho_interval, validate_marginals_and_rho
from llm_power_verified.testing import strategies

# A derandomized, database-free search: the same examples on every run and machine.
FIXED = settings(derandomize=True, database=None, max_examples=200)


def _whole(value: float, per: int) -> bool:
    """value is a whole number of 1/per (the draws are k/per computed in doubles, so exact equality holds)."""
    return round(value * per) / per == value


@given(strategies.designs())
def test_every_design_is_admissible_and_readable(design):
    assert set(design) == {"p_a", "p_b", "rho", "alpha", "power"}
    validate_marginals_and_rho(design["p_a"], design["p_b"], design["rho"])  # raises when inadmissible
    low, high = admissible_rho_interval(design["p_a"], design["p_b"])
    assert low <= design["rho"] <= high
    assert design["p_a"] != design["p_b"]
    assert _whole(design["p_a"], 1000) and _whole(design["p_b"], 1000) and _whole(design["rho"], 100)
    assert 0 < design["alpha"] < design["power"] < 1


@given(strategies.designs(min_gap=0.2, max_gap=0.3, rho=False))
def test_designs_keep_the_gap_and_fix_rho_when_asked(design):
    # Gaps are whole thousandths computed from doubles: 1e-9 absorbs the representation error of k/1000.
    assert 0.2 - 1e-9 <= abs(design["p_a"] - design["p_b"]) <= 0.3 + 1e-9
    assert design["rho"] == 0.0


def test_wide_gaps_still_fit_in_the_unit_interval():
    design = find(strategies.designs(min_gap=0.9, max_gap=0.998), lambda d: d["p_a"] < d["p_b"], settings=FIXED)
    assert 0 < design["p_a"] < design["p_b"] < 1 and design["p_b"] - design["p_a"] >= 0.9 - 1e-9


def test_shrinking_gives_readable_designs():
    design = find(strategies.designs(), lambda d: d["p_a"] - d["p_b"] > 0.1, settings=FIXED)
    assert _whole(design["p_a"], 1000) and _whole(design["p_b"], 1000)
    # The shrink targets are p_a = 0.5, the smallest passing gap, rho = 0, alpha = 0.05, power = 0.8.  How close the
    # gap gets depends on hypothesis's shrinker (0.101 with 6.155, 0.21 with 6.90): the readable values do not.
    assert {key: design[key] for key in ("p_a", "rho", "alpha", "power")} == {
        "p_a": 0.5,
        "rho": 0.0,
        "alpha": 0.05,
        "power": 0.8,
    }
    assert 0.1 < design["p_a"] - design["p_b"] <= 0.25


def test_discordant_counts_reach_above_a_million():
    b, c = find(strategies.discordant_counts(), lambda bc: bc[0] + bc[1] > 10**6, settings=FIXED)
    assert 10**6 < b + c <= 10**7
    assert abs(b - c) <= 1  # shrunk to the smallest total, split in the middle


def test_discordant_counts_shrink_to_small_counts():
    assert find(strategies.discordant_counts(), lambda bc: True, settings=FIXED) == (0, 0)
    b, c = find(strategies.discordant_counts(), lambda bc: bc[0] > bc[1], settings=FIXED)
    assert (b, c) == (1, 0)


@given(strategies.discordant_counts(max_total=300, min_total=20))
def test_discordant_counts_respect_their_bounds(counts):
    b, c = counts
    assert isinstance(b, int) and isinstance(c, int)
    assert b >= 0 and c >= 0 and 20 <= b + c <= 300


@given(strategies.graded_differences(min_size=3, max_size=40))
def test_graded_differences_are_bounded_and_not_degenerate(differences):
    assert differences.dtype == np.float64 and 3 <= differences.size <= 40
    assert not np.isnan(differences).any() and np.abs(differences).max() <= 1
    assert differences.std() > 0


@given(strategies.graded_differences(grid=4))
def test_graded_differences_on_a_coarse_grid(differences):
    assert np.array_equal(differences * 4, np.round(differences * 4))


@given(strategies.alphas(), strategies.powers(), strategies.sample_sizes(max_n=5000), strategies.effect_sizes())
def test_scalar_strategies_stay_in_range(alpha, power, n, effect):
    assert 0 < alpha <= 0.2 and _whole(alpha, 1000)
    assert 0.5 <= power < 1 and _whole(power, 100)
    assert isinstance(n, int) and 2 <= n <= 5000
    assert effect != 0 and abs(effect) <= 3 and _whole(effect, 100)


def test_effect_sizes_can_be_positive_only():
    assert find(strategies.effect_sizes(negative=False), lambda d: d > 1.5, settings=FIXED) > 1.5
    with pytest.raises(ArgumentError):
        strategies.effect_sizes(max_effect=0.001)


@pytest.mark.parametrize(
    "build",
    [
        lambda: strategies.designs(min_gap=0.5, max_gap=0.2),
        lambda: strategies.designs(max_gap=1.0),
        lambda: strategies.discordant_counts(max_total=10, min_total=20),
        lambda: strategies.sample_sizes(max_n=1),
        lambda: strategies.graded_differences(min_size=1),
        lambda: strategies.graded_differences(grid=0),
    ],
)
def test_bad_strategy_arguments_raise(build):
    with pytest.raises(ArgumentError):
        build()
