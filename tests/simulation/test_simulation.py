"""Simulation module: copula cells, determinism, and a small calibration grid checked with binomial tests."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from scipy import stats
from scipy.stats import binomtest

import llm_power_verified as lpv
from llm_power_verified.simulation.grids import (
    calibration_table_2,
    copula_cells,
    simulate_binary_counts,
    simulate_graded,
)


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
    assert calibration_table_2((0.7,), (0.4,), n_simulations=200, n_resamples=200, seed=3) == calibration_table_2(
        (0.7,), (0.4,), n_simulations=200, n_resamples=200, seed=3
    )


def test_calibration_small_grid():
    """Under H0 the exact and continuity-corrected tests stay at or below alpha.

    Under H1 chi-square power is near 0.80.
    """
    rows = calibration_table_2((0.5, 0.8), (0.0, 0.6), n=400, n_simulations=1500, n_resamples=400, seed=20261121)
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
    from llm_power_verified.simulation.embedding import embedding_power_grid

    rows = embedding_power_grid(n_simulations=1000, seed=5, sample_sizes=(50, 100))
    assert len(rows) == 2 * 2 * 5 * 3
    for row in rows:
        assert np.isfinite(row["analytic_t_power"]), row
        assert abs(row["t_test_power"] - row["analytic_t_power"]) <= 3 * row["mc_se"], row
        if row["effect"] == 0:
            assert binomtest(round(row["wilcoxon_power"] * 1000), 1000, 0.05).pvalue > 0.001


def test_embedding_grid_is_deterministic_and_backend_free():
    from llm_power_verified.simulation.embedding import embedding_power_grid

    options = dict(n_simulations=200, seed=11, sample_sizes=(50, 120), effects=(0.0, 0.02), correlations=(0.5, 0.9))
    serial = embedding_power_grid(**options)
    assert serial == embedding_power_grid(**options)
    assert serial == embedding_power_grid(workers=2, **options)
    assert serial == embedding_power_grid(workers=2, backend="joblib", **options)
    independent = embedding_power_grid(random_numbers="independent", **options)
    assert independent == embedding_power_grid(random_numbers="independent", workers=2, **options)
    assert independent != serial
    assert serial != embedding_power_grid(**{**options, "seed": 12})


def test_common_and_independent_draws_agree_within_monte_carlo_error():
    """Common random numbers change only the correlation between cells, not any cell's distribution."""
    from llm_power_verified.simulation.embedding import embedding_power_grid

    options = dict(
        n_simulations=2000, seed=8, sample_sizes=(60, 200), effects=(0.0, 0.01, 0.02), correlations=(0.5, 0.8)
    )
    common = embedding_power_grid(**options)
    independent = embedding_power_grid(random_numbers="independent", **options)
    for first, second in zip(common, independent, strict=True):
        assert (first["model"], first["n"], first["effect"]) == (second["model"], second["n"], second["effect"])
        for key in ("t_test_power", "wilcoxon_power"):
            pooled = (first[key] + second[key]) / 2
            se = np.sqrt(max(pooled * (1 - pooled), 1e-3) * 2 / 2000)
            assert abs(first[key] - second[key]) <= 4 * se, (first, second)


def test_nested_sample_sizes_use_the_first_items_of_each_dataset():
    """With common random numbers the n = 50 cell equals a direct test of the first 50 items.

    The items are the first 50 of the shared n_resamples.
    """
    from llm_power_verified.simulation.embedding import _embedding_scores, embedding_power_grid

    rows = embedding_power_grid(
        n_simulations=300, seed=4, models=("beta",), sample_sizes=(50, 80), effects=(0.02,), correlations=(0.8,)
    )
    first, second = np.random.default_rng(4).standard_normal((2, 300, 80))
    z = np.stack([first, 0.8 * first + 0.6 * second], axis=-1)[:, :50]
    a, b = _embedding_scores(z, 0.02, "beta")
    t_p = stats.ttest_rel(b, a, axis=1).pvalue
    w_p = np.array([stats.wilcoxon(row).pvalue for row in b - a])
    assert rows[0]["n"] == 50
    assert rows[0]["t_test_power"] == np.mean(t_p < 0.05)
    assert rows[0]["wilcoxon_power"] == np.mean(w_p < 0.05)


def test_copula_beta_quantile_interpolation_error():
    from llm_power_verified.simulation.embedding import EMBEDDING_GRID, CopulaBetaQuantile, _moment_matched_beta

    z = np.concatenate([np.random.default_rng(2).uniform(-7.5, 7.5, 100_000), [-5.5, 5.5, 0.0]])
    for effect in EMBEDDING_GRID["effects"]:
        transform = CopulaBetaQuantile(*_moment_matched_beta(0.65 + effect, 0.12))
        assert np.max(np.abs(transform(z) - transform.exact(z))) < 1e-10


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(random_numbers="shared"), "random_numbers must be one of"),
        (dict(backend="spark"), "backend must be one of"),
        (dict(models=("gamma",)), "models must be one of"),
        (dict(n_simulations=1), "n_simulations must be an integer"),
        (dict(workers=0), "workers must be a positive integer"),
        (dict(sample_sizes=(1,)), "sample_sizes must be integers"),
        (dict(correlations=(1.0,)), "correlations must lie in"),
        (dict(alpha=1.5), "alpha must lie in"),
    ],
)
def test_embedding_grid_rejects_bad_input(options, message):
    from llm_power_verified.simulation.embedding import embedding_power_grid

    with pytest.raises(ValueError, match=message):
        embedding_power_grid(**options)


@pytest.mark.slow
def test_embedding_grid_full():
    from llm_power_verified.simulation.embedding import embedding_power_grid

    rows = embedding_power_grid(n_simulations=1000, seed=0)
    assert all(
        np.isfinite(r["analytic_t_power"]) and abs(r["t_test_power"] - r["analytic_t_power"]) <= 3 * r["mc_se"]
        for r in rows
    )


@pytest.mark.parametrize(
    "effect, correlation",
    [(0.05, 0.95), pytest.param(0.0, 0.5, marks=pytest.mark.slow), pytest.param(0.1, 0.8, marks=pytest.mark.slow)],
)
def test_clipped_normal_moments_against_two_dimensional_quadrature(effect, correlation):
    """Issue 16: the exact forms against an independent 2-D adaptive quadrature split at every kink, to 1e-10."""
    import math

    from scipy import integrate, stats

    from llm_power_verified.simulation.moments import clipped_normal_difference_moments

    mean_a, mean_b, sd = 0.65, 0.65 + effect, 0.12
    spread = math.sqrt(1 - correlation**2)

    def clip(value):
        return min(max(value, 0.0), 1.0)

    def expectation(function):
        def inner(z_a):
            # the kinks of B in w, for this z_a: mean_b + sd (rho z_a + spread w) = 0 or 1
            points = [(edge - mean_b - sd * correlation * z_a) / (sd * spread) for edge in (0.0, 1.0)]
            edges = [-10.0, *sorted(w for w in points if -10 < w < 10), 10.0]
            return sum(
                integrate.quad(
                    lambda w: stats.norm.pdf(w) * function(z_a, correlation * z_a + spread * w),
                    low,
                    high,
                    epsabs=1e-14,
                    epsrel=1e-12,
                )[0]
                for low, high in pairwise(edges)
            )

        edges = [-10.0, *sorted(edge for edge in (-mean_a / sd, (1 - mean_a) / sd) if -10 < edge < 10), 10.0]
        return sum(
            integrate.quad(lambda z: stats.norm.pdf(z) * inner(z), low, high, epsabs=1e-14, epsrel=1e-12)[0]
            for low, high in pairwise(edges)
        )

    def difference(z_a, z_b):
        return clip(mean_b + sd * z_b) - clip(mean_a + sd * z_a)

    mean = expectation(difference)
    sd_difference = math.sqrt(expectation(lambda z_a, z_b: (difference(z_a, z_b) - mean) ** 2))
    ours_mean, ours_sd = clipped_normal_difference_moments(mean_a, mean_b, sd, correlation)
    assert abs(ours_mean - mean) <= 1e-10 * max(abs(mean), 1e-3)
    assert ours_sd == pytest.approx(sd_difference, rel=1e-10)
