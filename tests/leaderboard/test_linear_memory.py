"""Memory linear in K where the mode is: adjacent and reference audits above LINEAR_MODELS form no K x K array.

The linear path's counts equal the all-pairs matrix product's (exact integers), its family lookup the K x K table it
replaced, its reported pairs the all-pairs path's bit for bit, and its peak memory grows linearly in the models.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from llm_power_verified.io import from_array
from llm_power_verified.leaderboard import blocks, memory
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.leaderboard.blocks import family_context, pair_inputs
from llm_power_verified.leaderboard.pairs import pair_indices, rank_models
from llm_power_verified.leaderboard.ranking import bootstrap_rank_intervals


def _matrix(graded: bool = False, models: int = 40, items: int = 300, seed: int = 5):
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(items, 1)) + np.linspace(0.5, -0.5, models)[None, :] + rng.normal(size=(items, models))
    scores = np.clip(0.5 + 0.2 * latent, 0, 1) if graded else (latent > 0).astype(float)
    return from_array(scores, models=[f"m{k:04d}" for k in range(models)])


@pytest.mark.parametrize("items", [1, 3, 8, 9, 300, 1001])
def test_counts_from_the_packed_scores_equal_the_matrix_product(items):
    """Every pair's (a, b, c) from popcounts of the packed rows equals the K x K product's, dtype included.

    Item counts around a byte's 8 bits cover the packing's padding.
    """
    matrix = _matrix(models=30, items=items)
    order = rank_models(matrix)
    first, second = pair_indices(order, "all")
    gram, linear = pair_inputs(matrix, order), pair_inputs(matrix, order, all_pairs=False)
    assert gram.a is not None and linear.a is None  # the linear inputs hold no K x K array
    for from_gram, from_scores in zip(gram.counts(first, second), linear.counts(first, second), strict=True):
        assert from_scores.dtype == from_gram.dtype
        assert np.array_equal(from_scores, from_gram)


def test_graded_covariances_are_within_the_rounding_bound():
    """The dot product of two centred rows and the Gram matrix's entry differ by at most 2 gamma_N sum |x_i y_i|."""
    matrix = _matrix(graded=True, models=25, items=2000)
    order = rank_models(matrix)
    first, second = pair_indices(order, "all")
    gram, linear = pair_inputs(matrix, order), pair_inputs(matrix, order, all_pairs=False)
    assert linear.covariance is None
    n = matrix.n_items
    gamma = n * 2.0**-53 / (1 - n * 2.0**-53)
    centred = matrix.scores - matrix.scores.mean(axis=0)
    # The bound of the error analysis (Higham 2002, Eq. 3.5) for each of the two sums, so twice it for their gap.
    bound = 2 * gamma * (np.abs(centred[:, first] * centred[:, second]).sum(axis=0)) / (n - 1)
    assert np.all(np.abs(linear.covariances(first, second) - gram.covariances(first, second)) <= bound)
    variance_bound = 2 * gamma * (centred**2).sum(axis=0) / (n - 1)
    assert np.all(np.abs(linear.variances - gram.variances) <= variance_bound)
    assert np.array_equal(gram.covariances(first, second), gram.covariance[first, second])


@pytest.mark.parametrize("mode", ["adjacent", "reference", "all"])
def test_family_positions_equal_the_table_they_replace(mode):
    """locate() by sorted keys gives what the K x K position table gave, in either orientation, -1 outside."""
    matrix = _matrix(models=12)
    order = rank_models(matrix)
    reference = int(order[5]) if mode == "reference" else None
    inputs = pair_inputs(matrix, order)
    context = family_context(inputs, order, mode, reference, 0.05, 0.8, None)
    first, second = pair_indices(order, mode, reference)
    table = np.full((12, 12), -1)
    table[first, second] = table[second, first] = np.arange(first.size)
    rows, columns = np.meshgrid(np.arange(12), np.arange(12), indexing="ij")
    assert np.array_equal(context.locate(rows.ravel(), columns.ravel()), table.ravel())


def test_family_pvalues_computed_directly_equal_those_taken_from_all_pairs():
    """Without the all-pairs p-values the family's own are computed: the same values, bit for bit."""
    from llm_power_verified.leaderboard.blocks import all_pairs_pvalues

    matrix = _matrix(models=15)
    order = rank_models(matrix)
    inputs = pair_inputs(matrix, order)
    for mode, reference in (("adjacent", None), ("reference", int(order[3]))):
        direct = family_context(inputs, order, mode, reference, 0.05, 0.8, None)
        taken = family_context(inputs, order, mode, reference, 0.05, 0.8, all_pairs_pvalues(inputs, order))
        assert np.array_equal(direct.pvalues, taken.pvalues)
        assert np.array_equal(direct.adjusted["holm"], taken.adjusted["holm"])


def test_bootstrap_rank_intervals_equal_the_pairwise_comparison():
    """The sorted search gives the ranks of the K x K comparison it replaced (1 + models with a higher mean)."""
    matrix = _matrix(models=20, items=60)
    order = rank_models(matrix)
    low, high = bootstrap_rank_intervals(matrix, order, 300, 3, 0.05)
    scores, n = matrix.scores[:, order], matrix.n_items
    stream = np.random.default_rng([3, 0x72616E6B])
    means = stream.multinomial(n, np.full(n, 1.0 / n), size=300).astype(np.float64) @ scores / n
    ranks = 1 + (means[:, None, :] > means[:, :, None]).sum(axis=2)
    expected = np.quantile(ranks, [0.025, 0.975], axis=0, method="inverted_cdf")
    assert np.array_equal(low, expected[0]) and np.array_equal(high, expected[1])
    assert np.any(high > low)  # the ranks move: the test could fail


@pytest.mark.parametrize("mode", ["adjacent", "reference"])
def test_linear_audit_reports_the_same_pairs(monkeypatch, mode):
    """Above LINEAR_MODELS the reported pairs are the all-pairs path's; the all-pairs quantities are left empty."""
    matrix = _matrix(models=40)
    settings = dict(mode=mode, reference="m0007" if mode == "reference" else None, n_resamples=50)
    full = audit_leaderboard(matrix, **settings)
    monkeypatch.setattr(memory, "LINEAR_MODELS", 10)
    linear = audit_leaderboard(matrix, **settings)
    assert linear.pairs.equals(full.pairs)
    assert linear.ranking.drop(columns=["rank_low", "rank_high", "letters"]).equals(
        full.ranking.drop(columns=["rank_low", "rank_high", "letters"])
    )
    assert linear.ranking["rank_low"].isna().all() and (linear.ranking["letters"] == "").all()
    assert linear.tiers.significant_pairs is None and linear.tiers.resolved_pairs is None
    assert full.tiers.significant_pairs is not None
    assert linear.multiplicity == full.multiplicity
    assert any("K x K arrays" in note and "--tiles" in note for note in linear.notes)


@pytest.mark.parametrize("mode", ["adjacent", "reference"])
def test_graded_linear_audit_equals_the_covariance_path_to_rounding(monkeypatch, mode):
    """Graded above LINEAR_MODELS: per-pair dot products of the centred scores instead of the K x K covariance."""
    rng = np.random.default_rng(7)
    scores = np.round(rng.random((60, 30)) * 0.5 + np.linspace(0.45, 0.0, 30), 3)
    matrix = from_array(scores, models=[f"m{k:04d}" for k in range(30)])
    settings = dict(mode=mode, reference="m0007" if mode == "reference" else None, n_resamples=0)
    full = audit_leaderboard(matrix, **settings)
    monkeypatch.setattr(memory, "LINEAR_MODELS", 10)
    linear = audit_leaderboard(matrix, **settings)
    assert list(linear.pairs.columns) == list(full.pairs.columns)
    for column in full.pairs.columns:
        if full.pairs[column].dtype.kind == "f":
            # The two covariances differ by at most 2 gamma_N sum |x y| / (N - 1) (PairInputs.covariances), ~1e-14
            # relative at N = 60; the t statistic, p-value and N* carry it with factors of order 1e2 here: 1e-9.
            np.testing.assert_allclose(linear.pairs[column], full.pairs[column], rtol=1e-9, atol=1e-12, err_msg=column)
        else:
            assert linear.pairs[column].equals(full.pairs[column]), column


def _adjacent_peak(models: int) -> int:
    matrix = _matrix(models=models, items=5)
    tracemalloc.start()
    try:
        audit_leaderboard(matrix, "adjacent", n_resamples=0)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_adjacent_memory_grows_linearly_in_the_models(monkeypatch):
    """Doubling the models from 4,000 to 8,000 doubles the peak (measured 3.3 and 6.6 MB, about 830 bytes a model).

    Blocks of 500 pairs keep a block's working memory (which depends on the data, e.g. the anytime-valid search)
    fixed, so that what grows is what the audit holds per model.  Quadratic would be 4x; one 8,000 x 8,000 int8
    array alone is 64 MB.
    """
    monkeypatch.setattr(memory, "LINEAR_MODELS", 1_000)
    monkeypatch.setattr(blocks, "PAIR_BLOCK", 500)
    _adjacent_peak(1_100)  # first call: lazy imports and caches out of the measurement
    small, large = _adjacent_peak(4_000), _adjacent_peak(8_000)
    assert large < 2.5 * small  # linear: 2 plus fixed costs; quadratic would be 4
    assert large < 8_000 * 8_000 // 4  # a quarter of one K x K int8 array


def test_the_byte_popcount_table_of_old_numpy_counts_every_byte():
    """NumPy < 2.0 has no bitwise_count: the packed counts then read a 256-entry table, checked here bit by bit."""
    from llm_power_verified.leaderboard import pair_inputs as module

    expected = [sum((byte >> bit) & 1 for bit in range(8)) for byte in range(256)]
    assert module._BYTE_BITS.tolist() == expected
