"""Prospective validation (Table 10 protocol) and bootstrap power curves (Appendix B)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import llm_power_verified as lpv
from llm_power_verified.simulation.prospective import (
    bootstrap_power_curve_binary,
    bootstrap_power_curve_graded,
    prospective_validation,
)


def test_empirical_power_tracks_the_exact_power_of_the_resampled_cells():
    result = prospective_validation(counts=(5200, 610, 470, 3720), n_simulations=2000, seed=7)
    assert result.required_n == pytest.approx(float(lpv.required_n_from_counts(610, 470, 10000)))
    assert [row["n"] for row in result.rows] == [math.ceil(f * result.required_n) for f in (0.8, 1.0, 1.2)]
    powers = [row["exact_power"] for row in result.rows]
    assert powers[0] < powers[1] < powers[2]
    assert abs(powers[1] - 0.8) < 0.02  # Eq. 6's N* gives the chi-square test about 80% power
    for row in result.rows:
        assert abs(row["z"]) < 4, row


def test_scores_and_counts_give_the_same_validation():
    rng = np.random.default_rng(3)
    a = rng.random(3000) < 0.7
    b = np.where(rng.random(3000) < 0.6, a, rng.random(3000) < 0.62)
    cells = lpv.binary_counts(a, b)
    from_scores = prospective_validation(a.astype(int), b.astype(int), n_simulations=300, seed=1)
    from_counts = prospective_validation(counts=cells, n_simulations=300, seed=1)
    assert from_scores == from_counts
    assert from_scores.cells == cells


def test_without_replacement_and_errors():
    result = prospective_validation(counts=(5200, 610, 470, 3720), n_simulations=500, replace=False, seed=2)
    assert all(row["n"] <= 10000 for row in result.rows)
    with pytest.raises(ValueError, match="exceeds the pair's"):
        prospective_validation(counts=(520, 61, 47, 372), fractions=(3.0,), replace=False)
    with pytest.raises(ValueError, match="b = c"):
        prospective_validation(counts=(10, 5, 5, 10))
    with pytest.raises(ValueError, match="counts must be four"):
        prospective_validation(counts=(1, 2, 3))
    with pytest.raises(ValueError, match="method must be one of"):
        prospective_validation(counts=(5200, 610, 470, 3720), method="z")
    with pytest.raises(ValueError, match="give scores_a and scores_b"):
        prospective_validation()
    with pytest.raises(ValueError, match="n_simulations must be a positive integer"):
        prospective_validation(counts=(5200, 610, 470, 3720), n_simulations=0)


def test_binary_bootstrap_curve_is_seeded_and_rises():
    first = bootstrap_power_curve_binary(0.65, 0.61, 0.3, [600, 1200, 2400], n_simulations=300, n_resamples=300, seed=4)
    assert first == bootstrap_power_curve_binary(
        0.65, 0.61, 0.3, [600, 1200, 2400], n_simulations=300, n_resamples=300, seed=4
    )
    assert first["powers"][0] < first["powers"][2]
    assert first["powers"][0] < 0.8 < first["powers"][2] and 600 < first["crossing_n"] < 2400
    with pytest.raises(ValueError, match="sizes must be increasing"):
        bootstrap_power_curve_binary(0.65, 0.61, 0.3, [600, 300])


@pytest.mark.slow
def test_binary_bootstrap_crosses_near_eq_6():
    """Appendix B: the percentile bootstrap reaches 80% power near N* (Monte Carlo noise on the crossing ~3%)."""
    for delta in (0.02, 0.04, 0.08):
        required = float(lpv.required_n_paired_binary(0.65, 0.65 - delta, 0.3))
        sizes = np.unique(np.round(required * np.array([0.7, 0.85, 1.0, 1.15, 1.3])).astype(int))
        curve = bootstrap_power_curve_binary(
            0.65, 0.65 - delta, 0.3, sizes, n_simulations=2000, n_resamples=1000, seed=30
        )
        assert abs(curve["crossing_n"] / curve["required_n"] - 1) < 0.1, curve


@pytest.mark.slow
def test_graded_bootstrap_crosses_near_the_paired_t_n():
    curve = bootstrap_power_curve_graded(0.04, 0.3, [10, 20], n_simulations=10, n_resamples=10, seed=0)
    sizes = np.unique(np.round(curve["required_n"] * np.array([0.7, 0.85, 1.0, 1.15, 1.3])).astype(int))
    curve = bootstrap_power_curve_graded(0.04, 0.3, sizes, n_simulations=800, n_resamples=500, seed=31)
    assert abs(curve["crossing_n"] / curve["required_n"] - 1) < 0.12, curve
