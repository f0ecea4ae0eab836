"""Cluster diagnostics of a leaderboard audit (paper Section 6.4, Appendices F and G).

For each pair: the one-way ANOVA ICC of the paired difference D over the item
clusters, the design effect DE = 1 + (m_w - 1) max(ICC, 0) with m_w = sum m_g^2 / N
the size-weighted cluster size (the mean size only for equal clusters; see
:func:`llm_power_verified.power.clustering.design_effect`), the cluster-adjusted
N* = DE x N* and its verdict.

Across pairs:

* cluster bootstrap: resample the clusters with replacement (seeded), hold the
  IID inputs at their full-data values (as the paper's Appendix G does) and
  recompute every ICC, giving the distribution of the unresolved-pair count and
  per-pair 5-95% intervals of ICC, DE and N*_cluster;
* leave-one-cluster-out: drop each cluster, recompute everything (counts,
  N*, ICC) on the remaining items, and count unresolved pairs (None, not
  estimable, with two clusters: one left has no between-cluster variance);
* alternative cluster definitions: the given labels, random clusters of the
  same sizes (the null check: ICC ~ 0), and difficulty quartiles (items
  binned by their mean score across all models).

Everything runs on per-cluster sufficient statistics
(:class:`llm_power_verified.power.clustering.ClusterStatistics`), so a resample is a
weight vector over clusters, not a pass over items.  Everything runs in blocks of
pairs, with memory bounded by the block, bit for bit the all-pairs computation:
the bootstrap's weights are drawn once and its R x pairs quantities are formed
block by block (:mod:`llm_power_verified.leaderboard.cluster_blocks`); the per-pair
ICCs and every leave-one-cluster-out drop take one pass over blocks of about
``BLOCK_BYTES`` of clusters x block arrays, and each alternative definition one
more, their products over the clusters formed piece by piece as the all-pairs
product forms them (:mod:`llm_power_verified.leaderboard.cluster_products`).  What
stays whole is one number per pair (the ICCs, for their medians) and, for scores that
are not whole numbers, the clusters x models x models products of
:class:`~llm_power_verified.power.clustering.ClusterStatistics` (their last bits depend
on BLAS's order of summation, which a product per block does not reproduce).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from llm_power_verified._generated import design_effect as _generated_design_effect
from llm_power_verified.leaderboard.cluster_blocks import cluster_bootstrap_columns
from llm_power_verified.leaderboard.cluster_products import block_pieces, piecewise_product, product_pieces
from llm_power_verified.leaderboard.summaries import ClusterBootstrap, ClusterSummary
from llm_power_verified.power.clustering import ClusterStatistics
from llm_power_verified.power.sample_size import required_n_from_counts, required_n_wald

__all__ = ["cluster_diagnostics", "unresolved_under_clusters"]

#: Bytes of one block's clusters x pairs arrays (``_ALIVE`` of them at once).
BLOCK_BYTES = 64_000_000
_ALIVE = 8


def _design_effect(icc: np.ndarray, weighted_size) -> np.ndarray:
    """1 + (m_w - 1) max(ICC, 0), the generated design effect with the paper's truncation at the size-weighted size."""
    weighted_size = np.asarray(weighted_size)
    if weighted_size.ndim:
        weighted_size = weighted_size[..., None]
    return _generated_design_effect.design_effect(weighted_size, np.maximum(icc, 0.0))


def _pair_blocks(size: int, groups: int):
    """(slice, product) per block of pairs: clusters x block arrays of about ``BLOCK_BYTES`` each.

    ``product(weights, sums)`` gives each pair of the block the bits of the all-pairs product
    (:mod:`llm_power_verified.leaderboard.cluster_products`).
    """
    width = max(64, BLOCK_BYTES // (groups * 8 * _ALIVE))
    for pieces in block_pieces(product_pieces(size, groups), width):
        yield slice(pieces[0][0], pieces[-1][1]), piecewise_product(pieces, size)


def _required_from_sums(statistics: ClusterStatistics, sums, weights, binary, alpha, power, product):
    """N* on the items of the weighted clusters (0/1 weights: leave-one-out), from a block's per-cluster sums.

    ``sums``: (total, squares, (first_only, second_only)), the last two the per-cluster counts of items only the
    first (second) model of a pair gets right (binary; None otherwise).
    """
    total, squares, (first_only, second_only) = sums
    size = weights @ statistics.n
    if binary:
        only_a = product(weights, first_only)
        only_b = product(weights, second_only)
        return np.asarray(required_n_from_counts(np.rint(only_a), np.rint(only_b), size, alpha, power)), size
    grand, square_sum = product(weights, total), product(weights, squares)
    mean = grand / size
    variance = np.maximum((square_sum - grand**2 / size) / (size - 1), 0.0)
    return np.asarray(required_n_wald(variance, mean, alpha, power)), size


def _pair_icc(statistics: ClusterStatistics, first, second) -> tuple[np.ndarray, float]:
    """Every pair's ICC under the given clusters, block by block, and the size-weighted cluster size."""
    weighting = statistics.weighting()
    icc = np.empty(first.size)
    for block, product in _pair_blocks(first.size, statistics.names.size):
        icc[block] = statistics.icc_from_sums(*statistics.pair_sums(first[block], second[block]), weighting, product)
    return icc, weighting.weighted_size


def _icc_and_loco(statistics: ClusterStatistics, first, second, binary, alpha, power):
    """The pairs' ICCs and, per cluster left out, the unresolved count (None with fewer than three clusters).

    One pass over the blocks of pairs: each block's per-cluster sums serve the ICC and every leave-one-out drop.
    """
    groups = statistics.names.size
    weighting = statistics.weighting()
    drops = [] if groups < 3 else [np.where(np.arange(groups) == index, 0.0, 1.0) for index in range(groups)]
    drop_weightings = [statistics.weighting(weights) for weights in drops]
    unresolved = [0] * len(drops)
    icc = np.empty(first.size)
    for block, product in _pair_blocks(first.size, groups):
        block_first, block_second = first[block], second[block]
        cross = statistics.pair_cross(block_first, block_second) if binary and drops else None
        total, squares = statistics.pair_sums(block_first, block_second, cross)
        icc[block] = statistics.icc_from_sums(total, squares, weighting, product)
        only = (None, None)
        if cross is not None:
            only = (statistics.sums[:, block_first] - cross, statistics.sums[:, block_second] - cross)
        for index, (weights, drop) in enumerate(zip(drops, drop_weightings, strict=True)):
            required, size = _required_from_sums(
                statistics, (total, squares, only), weights, binary, alpha, power, product
            )
            drop_icc = statistics.icc_from_sums(total, squares, drop, product)
            unresolved[index] += int(np.sum(required * _design_effect(drop_icc, drop.weighted_size) > size))
    # One cluster left: its ICC (and the clustered N*) is not estimable.
    loco = {str(name): (unresolved[index] if drops else None) for index, name in enumerate(statistics.names)}
    return icc, weighting.weighted_size, loco


def unresolved_under_clusters(matrix, first, second, required_n, labels, alpha, power) -> tuple[int, np.ndarray]:
    """The unresolved-pair count when the items are clustered by ``labels``, and the ICCs.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores.
    first, second : numpy.ndarray
        Model indices of each pair (``first`` the higher-ranked model, or the reference).
    required_n : numpy.ndarray
        Each pair's N* as if the items were independent.
    labels : array_like
        A cluster label per item.
    alpha : float
        Two-sided level, in (0, 1).
    power : float
        Target power, in (alpha, 1).

    Returns
    -------
    unresolved : int
        Pairs with N* x design effect > N.
    icc : numpy.ndarray
        Each pair's ICC of the paired difference.

    Notes
    -----
    Design effect 1 + (m_w - 1) max(ICC, 0), m_w = sum m_g^2 / N (``derivations/design_effect.py``; Donner, Birkett
    and Buck 1981).
    """
    icc, weighted_size = _pair_icc(ClusterStatistics(matrix.scores, labels), first, second)
    adjusted = required_n * _design_effect(icc, weighted_size)
    return int(np.sum(adjusted > matrix.n_items)), icc


def cluster_diagnostics(
    matrix, pairs: pd.DataFrame, first, second, alpha: float, power: float, n_resamples: int, seed: int
) -> tuple[pd.DataFrame, ClusterSummary]:
    """The per-pair cluster columns and the summary across pairs.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores, with clusters.
    pairs : pandas.DataFrame
        The pair table.
    first, second : numpy.ndarray
        Model indices of each pair (``first`` the higher-ranked model, or the reference).
    alpha : float
        Two-sided level, in (0, 1).
    power : float
        Target power, in (alpha, 1).
    n_resamples : int
        Cluster-bootstrap resamples (0: none).
    seed : int
        Seed of the cluster bootstrap.

    Returns
    -------
    pairs : pandas.DataFrame
        A copy with ``icc``, ``design_effect``, ``required_n_cluster``, ``resolved_cluster`` (and the bootstrap
        columns).
    summary : ClusterSummary
        The diagnostics across pairs.

    Notes
    -----
    N*_cluster = N* x (1 + (m_w - 1) max(ICC, 0)), m_w = sum m_g^2 / N the size-weighted cluster size
    (``derivations/design_effect.py``; the paper's Section 6.4 uses the mean size, equal for equal clusters).

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Section 6.4, Appendices F and G; Donner,
    Birkett and Buck (1981) Am. J. Epidemiol. 114, 906-914.
    """
    labels = np.asarray(matrix.clusters)
    statistics = ClusterStatistics(matrix.scores, labels)
    icc, weighted_size, loco = _icc_and_loco(statistics, first, second, matrix.binary, alpha, power)
    effect = _design_effect(icc, weighted_size)
    required = pairs["required_n"].to_numpy()
    pairs = pairs.copy(deep=False)  # the caller's table keeps its columns; the new ones go to this one only
    pairs["icc"] = icc
    pairs["design_effect"] = effect
    pairs["required_n_cluster"] = required * effect
    pairs["resolved_cluster"] = pairs["required_n_cluster"] <= matrix.n_items
    rng = np.random.default_rng([seed, 1])
    bootstrap = (
        _cluster_bootstrap(matrix, pairs, statistics, first, second, n_resamples, seed, rng) if n_resamples else None
    )
    unresolved_clustered = int((~pairs["resolved_cluster"]).sum())
    alternatives = {"given": unresolved_clustered}
    alternatives["random (null check)"], random_icc = unresolved_under_clusters(
        matrix, first, second, required, rng.permutation(labels), alpha, power
    )
    difficulty = matrix.scores.mean(axis=1)
    quartile = np.searchsorted(np.quantile(difficulty, [0.25, 0.5, 0.75]), difficulty, side="right")
    quartile_median_icc = None
    if np.unique(quartile).size >= 2:
        alternatives["difficulty quartiles"], quartile_icc = unresolved_under_clusters(
            matrix, first, second, required, quartile, alpha, power
        )
        quartile_median_icc = float(np.median(quartile_icc))
    summary = ClusterSummary(
        n_clusters=int(statistics.names.size),
        mean_cluster_size=float(statistics.n.mean()),
        weighted_cluster_size=float(weighted_size),
        cluster_sizes={str(name): int(size) for name, size in zip(statistics.names, statistics.n, strict=True)},
        median_icc=float(np.median(icc)),
        icc_range=(float(np.min(icc)), float(np.max(icc))),
        unresolved_iid=int((~pairs["resolved"]).sum()),
        unresolved_clustered=unresolved_clustered,
        bootstrap=bootstrap,
        leave_one_cluster_out=loco,
        difficulty_quartiles_median_icc=quartile_median_icc,
        random_clusters_median_icc=float(np.median(random_icc)),
        alternative_definitions=alternatives,
    )
    return pairs, summary


def _cluster_bootstrap(matrix, pairs, statistics, first, second, n_resamples, seed, rng) -> ClusterBootstrap:
    """Resample the clusters; add the per-pair 5-95% columns to ``pairs`` and summarise the unresolved count."""
    groups = statistics.names.size
    weights = rng.multinomial(groups, np.full(groups, 1.0 / groups), size=n_resamples).astype(np.float64)
    columns, unresolved = cluster_bootstrap_columns(
        statistics, statistics.weighting(weights), first, second, pairs["required_n"].to_numpy(), matrix.n_items
    )
    for name, values in columns.items():
        pairs[name] = values
    counts = np.bincount(unresolved, minlength=len(pairs) + 1)
    return ClusterBootstrap(
        n_resamples=int(n_resamples),
        seed=(int(seed), 1),
        unresolved_count_distribution={str(k): float(v / n_resamples) for k, v in enumerate(counts) if v},
        unresolved_p05=float(np.quantile(unresolved, 0.05)),
        unresolved_p95=float(np.quantile(unresolved, 0.95)),
        held_fixed="IID inputs (p_A, p_B, rho-hat, N*) at their full-data values",
    )
