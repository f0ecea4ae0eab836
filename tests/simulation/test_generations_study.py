"""The two-level simulator (several generations per item) and the Monte Carlo study behind the docs' tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special

from crosscheck import generations_study as study
from llm_power_verified.errors import ArgumentError
from llm_power_verified.simulation.generations import (
    TwoLevelDesign,
    draw_generations,
    replicate_matrix,
    simulate_two_level,
    two_level_truth,
)
from llm_power_verified.simulation.generations_study import type_one_error

GRADED = TwoLevelDesign("graded", 7, 4, 0.2, 0.3, 0.5, 0.6, 0.55)
BINARY_UNEQUAL = TwoLevelDesign("binary", 9, 5, 1.2, 0.0, -0.4, 0.8, 0.2, unequal=True)


@pytest.mark.parametrize("design", [GRADED, BINARY_UNEQUAL])
def test_cells_reduce_the_drawn_generations_as_pandas_does(design):
    """Means and sample variances of every cell, recomputed from a long table of the very draws."""
    draws = draw_generations(design, 3, np.random.default_rng(5))
    simulated = simulate_two_level(design, 3, np.random.default_rng(5))  # one block: the same draws
    replicate, item, model, _ = np.indices(draws.shape).reshape(4, -1)
    long = pd.DataFrame({"r": replicate, "i": item, "m": model, "y": draws.ravel()}).dropna()
    cells = long.groupby(["r", "i", "m"])["y"].agg(["mean", "var", "count"])
    # 1e-12 relative: the same sums in another order (pandas' var is the two-pass form too)
    np.testing.assert_allclose(simulated.means.ravel(), cells["mean"].to_numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(simulated.within.ravel(), cells["var"].to_numpy(), rtol=1e-12, atol=1e-15)
    assert (np.tile(simulated.counts.ravel(), 3) == cells["count"].to_numpy()).all()
    if design.kind == "binary":
        assert set(np.unique(long["y"])) <= {0.0, 1.0}


def test_same_seed_same_replicates_and_blocks_do_not_depend_on_memory():
    design = TwoLevelDesign("graded", 4000, 300, 0.1, 0.2, 0.3, 0.0, 0.0)  # 2.4M generations a replicate: blocks of 1
    first = simulate_two_level(design, 3, np.random.default_rng(11))
    again = simulate_two_level(design, 3, np.random.default_rng(11))
    assert np.array_equal(first.means, again.means) and np.array_equal(first.within, again.within)
    one_by_one = np.random.default_rng(11)
    drawn = [draw_generations(design, 1, one_by_one).mean(axis=-1) for _ in range(3)]
    assert np.array_equal(first.means, np.concatenate(drawn))  # 1 replicate per block: the same draws in turn


def test_unequal_counts_cycle_from_two_to_k_in_both_models():
    counts = BINARY_UNEQUAL.counts
    assert counts.min() == 2 and counts.max() == 5
    assert set(counts[:, 0]) == set(counts[:, 1]) == {2, 3, 4, 5}
    assert (counts[:, 0] != counts[:, 1]).all()  # model B's cycle is shifted: the pair's within parts differ
    assert (TwoLevelDesign("graded", 3, 6, 0.1, 0.1, 0.0, 0.0, 0.0).counts == 6).all()


def test_binary_truth_equals_direct_numerical_integration():
    """Gauss-Hermite moments of the logit-normal against scipy's adaptive quadrature (1e-9 absolute: quad's own)."""
    design = BINARY_UNEQUAL
    root = math.sqrt(1 - design.correlation**2)

    def expect(function):
        def integrand(second, first):
            density = math.exp(-(first**2 + second**2) / 2) / (2 * math.pi)
            p_a = special.expit(design.location_a + design.between_sd * first)
            p_b = special.expit(design.location_b + design.between_sd * (design.correlation * first + root * second))
            return function(p_a, p_b) * density

        return integrate.dblquad(integrand, -12, 12, -12, 12, epsabs=1e-12)[0]

    mean_a, mean_b = expect(lambda a, b: a), expect(lambda a, b: b)
    truth = two_level_truth(design)
    assert truth.gap == pytest.approx(mean_a - mean_b, abs=1e-9)
    assert truth.within_variance[0] == pytest.approx(expect(lambda a, b: a * (1 - a)), abs=1e-9)
    assert truth.between_variance[1] == pytest.approx(expect(lambda a, b: (b - mean_b) ** 2), abs=1e-9)
    pair = expect(lambda a, b: (a - b - mean_a + mean_b) ** 2)
    assert truth.pair_between_variance == pytest.approx(pair, abs=1e-9)
    inverse = (1 / design.counts).mean(axis=0)
    assert truth.pair_within_part == pytest.approx(sum(truth.within_variance * inverse), rel=1e-14)  # same sum


def test_graded_truth_is_the_declared_model():
    truth = two_level_truth(GRADED)
    # 1e-15: sums of a few doubles
    assert truth.within_variance == pytest.approx((0.09, 0.09), rel=1e-15)
    assert truth.pair_between_variance == pytest.approx(2 * 0.04 * 0.5, rel=1e-15)
    assert truth.pair_gap_variance == pytest.approx(0.04 + 2 * 0.09 / 4, rel=1e-15)


def test_replicate_matrix_puts_replicate_r_in_columns_2r_and_2r_plus_1():
    simulated = simulate_two_level(BINARY_UNEQUAL, 4, np.random.default_rng(2))
    matrix = replicate_matrix(simulated)
    assert matrix.scores.shape == (9, 8) and not matrix.binary and matrix.generations.binary
    assert np.array_equal(matrix.scores[:, 5], simulated.means[2, :, 1])
    assert np.array_equal(matrix.generations.within[:, 4], simulated.within[2, :, 0])
    assert np.array_equal(matrix.generations.counts[:, 7], BINARY_UNEQUAL.counts[:, 1])


@pytest.mark.parametrize(
    "call, fragment",
    [
        (lambda: TwoLevelDesign("ordinal", 5, 2, 0.1, 0.1, 0.0, 0.0, 0.0), "kind must be one of"),
        (lambda: TwoLevelDesign("graded", 1, 2, 0.1, 0.1, 0.0, 0.0, 0.0), "items must be a whole number >= 2"),
        (lambda: TwoLevelDesign("graded", 5, 2, 0.1, 0.1, 0.0, 0.0, 0.0, unequal=True), "generations must be"),
        (lambda: TwoLevelDesign("graded", 5, 2, -0.1, 0.1, 0.0, 0.0, 0.0), "must be >= 0"),
        (lambda: TwoLevelDesign("graded", 5, 2, 0.1, 0.1, 1.5, 0.0, 0.0), "correlation must lie in [-1, 1]"),
        (lambda: TwoLevelDesign("binary", 5, 2, 0.1, 0.1, 0.0, 0.0, 0.0), "within_sd must be 0 for binary"),
        (lambda: TwoLevelDesign("graded", 5, 2, 0.1, math.nan, 0.0, 0.0, 0.0), "within_sd must be finite"),
        (lambda: draw_generations(GRADED, 0, np.random.default_rng(0)), "n_simulations must be a whole number"),
        (lambda: type_one_error(GRADED, 10, np.random.default_rng(0)), "needs location_a == location_b"),
        (
            lambda: replicate_matrix(
                simulate_two_level(TwoLevelDesign("graded", 5, 1, 0.1, 0.1, 0.0, 0.0, 0.0), 2, np.random.default_rng(0))
            ),
            "at least 2 generations per cell",
        ),
    ],
)
def test_bad_arguments_are_refused_naming_them(call, fragment):
    with pytest.raises(ArgumentError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        call()


#: Cells recomputed in the default run (a few seconds): cheap ones of every part and kind, unequal counts included.
QUICK = {"bias": [0, 18, 32, 33], "type_one_error": [4, 22, 33], "planning": [0]}


@pytest.fixture(scope="module")
def stored():
    return study.load()


def test_the_stored_study_meets_every_criterion_and_covers_the_grid(stored):
    assert study.failures(stored) == []
    assert [cell["index"] for cell in stored["bias"]] == list(range(len(study.bias_designs())))
    assert [cell["index"] for cell in stored["type_one_error"]] == list(range(len(study.null_designs())))
    assert [cell["index"] for cell in stored["planning"]] == list(range(len(study.PLANNING)))
    assert stored["seed"] == study.SEED and stored["n_simulations"] == study.REPLICATES
    for cell in stored["planning"]:
        assert sum(row["cheapest"] for row in cell["rows"]) == 1
        cheapest = next(row for row in cell["rows"] if row["cheapest"])
        assert cheapest["cost"] == min(row["cost"] for row in cell["rows"])


def test_a_few_stored_cells_are_reproduced(stored):
    fresh = study.build(QUICK)
    assert study.failures(fresh) == []
    # 1e-9 relative: the same seeded draws; only the last bits of sums may differ on another CPU or BLAS
    assert study.differences(fresh, stored) == []


def test_the_docs_tables_are_the_stored_numbers(stored):
    assert study.docs_section(study.DOCS.read_text(encoding="utf-8")) == study.render_rst(stored)


def test_the_criteria_catch_a_biased_estimate_and_a_low_power(stored):
    """failures() is not vacuous: a stored mean moved by 5 standard errors, or a power 4 below the target, fails."""
    broken = {**stored, "bias": [dict(stored["bias"][0])], "type_one_error": [], "planning": []}
    row = dict(broken["bias"][0]["rows"][0])
    row["z"] = 5.0
    broken["bias"][0]["rows"] = [row]
    assert len(study.failures(broken)) == 1
    cell = dict(stored["planning"][0])
    low = dict(cell["rows"][0])
    low["rate"] = stored["power"] - 4 * low["mc_se"]
    cell["rows"] = [low]
    assert len(study.failures({**broken, "bias": [], "planning": [cell]})) == 1


@pytest.mark.slow
def test_the_whole_grid_is_reproduced_and_meets_every_criterion(stored):
    fresh = study.build()
    assert study.failures(fresh) == []
    # 1e-9 relative, as above
    assert study.differences(fresh, stored) == []
