"""The design effect of unequal clusters uses the size-weighted size sum m_g^2 / N (finding F-G)."""

from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from derivations._symbols import cluster_size
from derivations.design_effect import DESIGN_EFFECT, derive_unequal_design_effect
from llm_power_verified.io import from_array, read_table
from llm_power_verified.leaderboard import audit_leaderboard
from llm_power_verified.power.clustering import ClusterStatistics, design_effect

TIGER = Path(__file__).resolve().parents[1] / "fixtures" / "mmlu_pro_tiger" / "scores.csv.gz"


def test_derivation_is_the_design_effect_at_the_weighted_size():
    ratio, weighted = derive_unequal_design_effect()
    assert sp.simplify(ratio - DESIGN_EFFECT.subs(cluster_size, weighted)) == 0


@pytest.mark.parametrize("sizes", [[3, 7, 12, 1], [5, 5, 5], [1, 1, 40], [381, 1351, 700]])
@pytest.mark.parametrize("icc", [0.0, 0.004, 0.2, 0.9])
def test_variance_of_the_mean_by_exact_covariance(sizes, icc):
    """Var(mean) = 1' Sigma 1 / N^2 summed block by block (exchangeable blocks, sigma^2 = 1), against the formula."""
    sizes = np.asarray(sizes, dtype=float)
    n = sizes.sum()
    # Each block of size m: m ones on the diagonal and m (m - 1) entries ICC off it.
    exact = np.sum(sizes + sizes * (sizes - 1) * icc) / n**2
    weighted = np.sum(sizes**2) / n
    # Two routes through float sums of a few terms: relative 1e-12.
    assert exact == pytest.approx(design_effect(weighted, icc) / n, rel=1e-12)
    if np.ptp(sizes) > 0 and icc > 0:
        assert design_effect(sizes.mean(), icc) < design_effect(weighted, icc)  # the mean size understates it


def test_variance_of_the_mean_by_monte_carlo():
    """One-way random effects D = u_g + e_i with ICC 0.3, clusters of sizes 2..40: the mean's variance matches."""
    rng = np.random.default_rng(20261124)
    sizes = np.array([2, 5, 9, 17, 40])
    icc, replicates = 0.3, 200_000
    labels = np.repeat(np.arange(sizes.size), sizes)
    u = rng.normal(0, np.sqrt(icc), (replicates, sizes.size))
    e = rng.normal(0, np.sqrt(1 - icc), (replicates, sizes.sum()))
    means = (u[:, labels] + e).mean(axis=1)
    expected = design_effect(np.sum(sizes**2) / sizes.sum(), icc) / sizes.sum()
    # The sample variance of 2e5 normal means has relative sd sqrt(2 / 2e5) = 0.32%; 1.5% is over 4 sd.
    assert np.var(means, ddof=1) == pytest.approx(expected, rel=0.015)
    assert abs(np.var(means, ddof=1) / (design_effect(sizes.mean(), icc) / sizes.sum()) - 1) > 0.1


def test_cluster_statistics_weighted_size_with_and_without_weights():
    rng = np.random.default_rng(3)
    labels = np.repeat(["a", "b", "c"], [2, 5, 13])
    statistics = ClusterStatistics((rng.random((20, 2)) < 0.6).astype(float), labels)
    _, weighted = statistics.icc(np.array([0]), np.array([1]))
    assert weighted == pytest.approx((4 + 25 + 169) / 20, rel=1e-15)  # a few float operations
    weights = np.array([[2.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    _, boot = statistics.icc(np.array([0]), np.array([1]), weights)
    np.testing.assert_allclose(boot, [(2 * 4 + 169) / (2 * 2 + 13), 198 / 20], rtol=1e-15)
    equal = ClusterStatistics(np.zeros((12, 2)), np.repeat([0, 1, 2], 4))
    assert equal.icc(np.array([0]), np.array([1]))[1] == 4.0  # equal clusters: the mean size, exactly


def test_audit_reports_both_sizes_and_uses_the_weighted_one():
    matrix = read_table(TIGER, cluster_column="category")
    audit = audit_leaderboard(matrix, n_resamples=0, n_cluster_resamples=0)
    sizes = np.asarray(list(audit.clusters.cluster_sizes.values()), dtype=float)
    # Sums of 14 integers: exact to 1e-15 relative.
    assert audit.clusters.mean_cluster_size == pytest.approx(sizes.mean(), rel=1e-15)
    assert audit.clusters.weighted_cluster_size == pytest.approx(np.sum(sizes**2) / sizes.sum(), rel=1e-15)
    assert audit.clusters.weighted_cluster_size > audit.clusters.mean_cluster_size + 90  # 957.1 against 859.4
    pairs = audit.pairs
    expected = 1 + (audit.clusters.weighted_cluster_size - 1) * np.maximum(pairs["icc"], 0)
    np.testing.assert_allclose(pairs["design_effect"], expected, rtol=1e-13)  # the same formula, other operation order


def test_equal_clusters_keep_the_mean_size():
    rng = np.random.default_rng(5)
    matrix = from_array((rng.random((300, 3)) < [0.7, 0.6, 0.5]).astype(float), clusters=np.repeat(np.arange(10), 30))
    clusters = audit_leaderboard(matrix, n_resamples=0, n_cluster_resamples=0).clusters
    assert clusters.weighted_cluster_size == clusters.mean_cluster_size == 30.0
