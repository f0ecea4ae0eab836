"""Cluster sums in blocks of pairs: the pieces reproduce the all-pairs products, the cross term per block is exact."""

import itertools

import numpy as np
import pytest

from llm_power_verified.leaderboard import cluster_products, clusters
from llm_power_verified.leaderboard.cluster_products import block_pieces, piecewise_product, product_pieces
from llm_power_verified.power import clustering
from llm_power_verified.power.clustering import ClusterStatistics


@pytest.mark.parametrize("threads", [1, 2, 3, 4])
def test_pieces_cover_the_pairs_in_order(threads):
    for size, groups in itertools.product([1, 2, 3, 4, 5, 9, 4097, 32_915, 124_753], [2, 14, 1000]):
        pieces = product_pieces(size, groups, threads)
        assert pieces[0][0] == 0 and pieces[-1][1] == size
        assert all(first[1] == second[0] for first, second in itertools.pairwise(pieces))
        assert all(stop > start for start, stop in pieces)
        for width in (1, 64, 10**9):
            blocks = block_pieces(pieces, width)
            assert [piece for block in blocks for piece in block] == pieces
            assert all(sum(b - a for a, b in block) <= width or len(block) == 1 for block in blocks)


# Pair counts around OpenBLAS's threading threshold (m n >= 460,800) with ragged thread ranges, and small ones.
SIZES = [1, 2, 3, 4, 5, 7, 100, 4097, 32_913, 32_915, 32_922, 124_750, 124_753, 200_003]


@pytest.mark.parametrize("groups", [2, 3, 14, 200])
def test_blocked_products_match_the_all_pairs_product_within_a_rounding_bound(groups):
    rng = np.random.default_rng(groups)
    for size in SIZES:
        values = rng.random((groups, size)) ** 2 / 7  # inexact sums: the order of the terms shows in the last bits
        pieces = product_pieces(size, groups)
        for weights in (np.ones(groups), (rng.random(groups) < 0.6).astype(float)):
            whole = weights @ values
            for width in (1, 64, 5000, 10**9):
                blocked = np.concatenate(
                    [
                        piecewise_product(block, size)(weights, values[:, block[0][0] : block[-1][1]].copy())
                        for block in block_pieces(pieces, width)
                    ]
                )
                # Each pair goes through the kernel path it takes in the all-pairs product (module notes): equal bit
                # for bit with the OpenBLAS kernels this was calibrated on (and the audit equal to 87be8bf's there).
                # Which path a pair takes is the BLAS's choice, so on another CPU or BLAS the bound is what holds: a
                # sum of `groups` non-negative terms in another order differs by at most groups ulp of the sum.
                bound = groups * np.finfo(float).eps * (np.abs(weights) @ values)
                assert np.all(np.abs(blocked - whole) <= bound), (size, width)


def test_another_blas_gives_one_piece(monkeypatch):
    monkeypatch.setattr(cluster_products, "_threads", lambda: 0)
    assert product_pieces(124_753, 14) == [(0, 124_753)]


def _scores(rng, items, models, kind):
    if kind == "binary":
        return (rng.random((items, models)) < 0.55).astype(float)
    if kind == "counts":
        return rng.integers(0, 5, size=(items, models)).astype(float)
    return np.round(rng.random((items, models)), 3)


def _all_pairs(models):
    first, second = np.triu_indices(models, 1)
    return first, second


@pytest.mark.parametrize("cached", [True, False])
@pytest.mark.parametrize("kind", ["binary", "counts"])
def test_cross_term_per_block_equals_the_per_cluster_products(kind, cached, monkeypatch):
    if not cached:
        monkeypatch.setattr(clustering, "CACHED_CROSS_BYTES", 0)  # formed per block of pairs
    rng = np.random.default_rng(3)
    scores = _scores(rng, 300, 40, kind)
    labels = rng.choice(["a", "b", "c", "d", "e"], size=300, p=[0.5, 0.2, 0.15, 0.1, 0.05])
    statistics = ClusterStatistics(scores, labels)
    assert statistics.cross is None  # whole numbers: no clusters x K x K array
    index = np.unique(labels, return_inverse=True)[1]
    cross = np.stack([scores[index == g].T @ scores[index == g] for g in range(5)])
    first, second = _all_pairs(40)
    adjacent = np.arange(39), np.arange(1, 40)  # sparse: pair by pair
    scattered = rng.permutation(40)[:20], rng.permutation(40)[:20]
    for pair_first, pair_second in [(first, second), adjacent, scattered, (first[:7], second[:7])]:
        # Exact: sums of whole numbers below 2^24 (float32) and 2^53 (float64) in any order.
        assert np.array_equal(statistics.pair_cross(pair_first, pair_second), cross[:, pair_first, pair_second])
        _, squares = statistics.pair_sums(pair_first, pair_second)
        diagonal = cross[:, pair_first, pair_first] + cross[:, pair_second, pair_second]
        assert np.array_equal(squares, diagonal - 2 * cross[:, pair_first, pair_second])


def test_graded_scores_keep_the_per_cluster_products():
    rng = np.random.default_rng(4)
    statistics = ClusterStatistics(_scores(rng, 100, 6, "graded"), np.repeat([0, 1, 2, 3], 25))
    assert statistics.cross is not None and statistics.cross.shape == (4, 6, 6)


@pytest.mark.parametrize(("kind", "groups"), [("binary", 14), ("graded", 5), ("binary", 3), ("graded", 2)])
def test_one_pass_equals_the_all_pairs_computation(kind, groups, monkeypatch):
    """ICC and leave-one-cluster-out in one blocked pass equal the whole-array formulas of ClusterStatistics."""
    rng = np.random.default_rng(groups)
    models = 90
    scores = _scores(rng, 20 * groups + 17, models, kind)
    labels = rng.integers(0, groups, size=scores.shape[0])
    labels[:groups] = np.arange(groups)
    statistics = ClusterStatistics(scores, labels)
    first, second = _all_pairs(models)
    binary = kind == "binary"
    monkeypatch.setattr(clusters, "BLOCK_BYTES", 64 * 8 * clusters._ALIVE * groups)  # blocks of 64 pairs
    icc, weighted_size, loco = clusters._icc_and_loco(statistics, first, second, binary, 0.05, 0.8)
    whole_icc, whole_size = statistics.icc(first, second)
    assert weighted_size == whole_size and np.array_equal(np.isnan(icc), np.isnan(whole_icc))
    # Whole-number scores: exact sums, so equal bit for bit anywhere.  Graded: equal bit for bit with the OpenBLAS
    # kernels the pieces follow (module notes of cluster_products); elsewhere each sum over the clusters may differ by
    # a few ulp, which the ICC's ratio of differences of sums (values of order 1 here) keeps under 1e-9 relative.
    if binary:
        assert np.array_equal(icc, whole_icc, equal_nan=True)
    else:
        np.testing.assert_allclose(icc, whole_icc, rtol=1e-9, atol=1e-12)
    if groups < 3:
        assert set(loco.values()) == {None}
        return
    for index, name in enumerate(statistics.names):
        weights = np.where(np.arange(groups) == index, 0.0, 1.0)
        drop_icc, drop_size = statistics.icc(first, second, weights)
        cross = statistics.pair_cross(first, second) if binary else None
        only = (
            (None, None) if cross is None else (statistics.sums[:, first] - cross, statistics.sums[:, second] - cross)
        )
        sums = (*statistics.pair_sums(first, second, cross), only)
        required, size = clusters._required_from_sums(statistics, sums, weights, binary, 0.05, 0.8, np.matmul)
        assert loco[str(name)] == int(np.sum(required * clusters._design_effect(drop_icc, drop_size) > size))


@pytest.mark.parametrize("cached", [True, False])
def test_cross_term_with_a_label_per_item(cached, monkeypatch):
    if not cached:
        monkeypatch.setattr(clustering, "CACHED_CROSS_BYTES", 0)
    rng = np.random.default_rng(6)
    scores = _scores(rng, 150, 12, "counts")
    statistics = ClusterStatistics(scores, np.arange(150)[::-1])  # 150 clusters of one item
    assert statistics.cross is None
    first, second = _all_pairs(12)
    order = np.arange(150)[::-1]  # cluster g holds item 149 - g
    expected = scores[order][:, first] * scores[order][:, second]
    assert np.array_equal(statistics.pair_cross(first, second), expected)  # exact: whole numbers
    assert np.array_equal(statistics.sums, scores[order])
