"""Simulation module: copula cells, determinism, and a small calibration grid checked with binomial tests."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.stats import binomtest

import llm_power_verified as lpv
from llm_power_verified.simulation import calibration_table_2, copula_cells, simulate_binary_counts, simulate_graded


def test_copula_cells_match_a_direct_simulation():
    cells = copula_cells(0.7, 0.6, 0.5)
    assert cells.p11 + cells.p10 + cells.p01 + cells.p00 == pytest.approx(1.0)
    assert cells.p11 + cells.p10 == pytest.approx(0.7) and cells.p11 + cells.p01 == pytest.approx(0.6)
    rng = np.random.default_rng(0)
    z = rng.multivariate_normal([0, 0], [[1, 0.5], [0.5, 1]], size=400_000)
    x, y = z[:, 0] <= stats.norm.ppf(0.7), z[:, 1] <= stats.norm.ppf(0.6)
    assert np.mean(x & y) == pytest.approx(cells.p11, abs=4 * np.sqrt(cells.p11 / 400_000))
    low, high = lpv.admissible_rho_interval(0.7, 0.6)
    assert low < cells.rho < high and cells.rho < 0.5  # the Bernoulli correlation is attenuated


def test_same_seed_same_output():
    cells = copula_cells(0.6, 0.55, 0.4)
    first = simulate_binary_counts(300, cells, 50, np.random.default_rng(9))
    assert np.array_equal(first, simulate_binary_counts(300, cells, 50, np.random.default_rng(9)))
    graded = simulate_graded(100, 0.7, 0.68, 0.8, 5, np.random.default_rng(1), model="beta")
    assert np.array_equal(graded, simulate_graded(100, 0.7, 0.68, 0.8, 5, np.random.default_rng(1), model="beta"))
    assert graded.min() >= 0 and graded.max() <= 1
    assert calibration_table_2((0.7,), (0.4,), replicates=200, bootstrap_draws=200, seed=3) == calibration_table_2((0.7,), (0.4,), replicates=200, bootstrap_draws=200, seed=3)


def test_calibration_small_grid():
    """Under H0 the exact and continuity-corrected tests stay at or below alpha; under H1 chi-square power is near 0.80."""
    rows = calibration_table_2((0.5, 0.8), (0.0, 0.6), n=400, replicates=1500, bootstrap_draws=400, seed=20261121)
    for row in rows:
        if row["hypothesis"] == "H0":
            for method in ("exact", "chi2-corrected"):
                assert binomtest(round(row[method] * 1500), 1500, 0.05, alternative="greater").pvalue > 0.001
            for method in ("chi2", "mid-p", "bootstrap"):
                assert binomtest(round(row[method] * 1500), 1500, 0.05).pvalue > 0.001
        else:
            assert abs(row["chi2"] - 0.8) < 0.05
            assert row["exact"] <= row["chi2"] + 1e-12


@pytest.mark.slow
def test_table_2_grid_full():
    rows = calibration_table_2()
    assert len(rows) == 18
    for row in rows:
        if row["hypothesis"] == "H0":
            assert binomtest(round(row["exact"] * 1500), 1500, 0.05, alternative="greater").pvalue > 0.001


def test_embedding_grid_small_cells_match_noncentral_t():
    """Seed 001's models at n = 50 and 100: t-test power within 3 Monte Carlo SE of the analytic noncentral-t power."""
    from llm_power_verified.simulation import embedding_power_grid

    rows = embedding_power_grid(replicates=1000, seed=5, sample_sizes=(50, 100))
    assert len(rows) == 2 * 2 * 5 * 3
    for row in rows:
        assert np.isfinite(row["analytic_t_power"]), row
        assert abs(row["t_test_power"] - row["analytic_t_power"]) <= 3 * row["mc_se"], row
        if row["effect"] == 0:
            assert binomtest(round(row["wilcoxon_power"] * 1000), 1000, 0.05).pvalue > 0.001


@pytest.mark.slow
def test_embedding_grid_full():
    from llm_power_verified.simulation import embedding_power_grid

    rows = embedding_power_grid(replicates=1000, seed=0)
    assert all(np.isfinite(r["analytic_t_power"]) and abs(r["t_test_power"] - r["analytic_t_power"]) <= 3 * r["mc_se"] for r in rows)
