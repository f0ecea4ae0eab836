"""Rank intervals and letters against a direct computation, and an audit that does not depend on input order."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import binom, binomtest
from statsmodels.stats.multitest import multipletests

import llm_power_verified as lpv
from llm_power_verified.leaderboard.blocks import all_pairs_pvalues, pair_inputs
from llm_power_verified.leaderboard.ranking import holm_all_pairs, letter_columns, model_table, significance_matrix
from llm_power_verified.leaderboard.streams import ranking_order
from llm_power_verified.report import render


def _leaderboard(models: int, items: int, seed: int, graded: bool = False):
    """Models sharing a latent item difficulty (so their results correlate), accuracies spread over a range."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(size=(items, 1))
    skill = np.linspace(1.2, -0.8, models)[None, :] + rng.normal(0, 0.05, (1, models))
    latent = skill - difficulty + rng.normal(0, 0.8, (items, models))
    scores = 1 / (1 + np.exp(-latent)) if graded else (latent > 0).astype(float)
    names = [f"model-{index:03d}" for index in range(models)]
    return lpv.from_array(scores, models=names, item_ids=[f"item-{i:05d}" for i in range(items)])


def _direct(matrix, alpha=0.05):
    """Rank intervals from scratch: the exact binomial p-value, statsmodels' Holm, counting by hand.

    The exact binomial p-value is from scipy's binomial CDF.

    p = min(1, 2 F(min(b, c); b + c, 1/2)) is scipy's ``binomtest`` for p = 1/2
    (checked on the first 200 pairs), vectorised so that 124,750 pairs take a second.
    """
    scores = matrix.scores
    order = ranking_order(scores.mean(axis=0), matrix.models)
    size = order.size
    first, second = np.triu_indices(size, k=1)
    a, b = scores[:, order[first]], scores[:, order[second]]
    only_a = ((a == 1) & (b == 0)).sum(axis=0)
    only_b = ((a == 0) & (b == 1)).sum(axis=0)
    pvalues = np.minimum(1.0, 2 * binom.cdf(np.minimum(only_a, only_b), only_a + only_b, 0.5))
    for x, y, p in list(zip(only_a, only_b, pvalues, strict=True))[:200]:
        assert p == pytest.approx(binomtest(int(x), int(x + y), 0.5).pvalue if x + y else 1.0, rel=1e-12)
    rejected = multipletests(pvalues, alpha=alpha, method="holm")[0]
    significant = np.zeros((size, size), dtype=bool)
    significant[first[rejected], second[rejected]] = True
    significant |= significant.T
    better = np.array([significant[k, :k].sum() for k in range(size)])
    worse = np.array([significant[k, k + 1 :].sum() for k in range(size)])
    return order, significant, 1 + better, size - worse


@pytest.mark.parametrize("models, items", [(12, 800), (500, 600)])
def test_rank_intervals_and_letters_match_a_direct_computation(models, items):
    matrix = _leaderboard(models, items, seed=models)
    order, significant, low, high = _direct(matrix)
    holm = holm_all_pairs(all_pairs_pvalues(pair_inputs(matrix, order), order))
    table, significant_pairs = model_table(matrix, order, 0.05, holm)
    assert table["model"].tolist() == [matrix.models[i] for i in order]
    np.testing.assert_array_equal(table["rank_low"], low)
    np.testing.assert_array_equal(table["rank_high"], high)
    ours, _ = significance_matrix(order, holm, 0.05)
    np.testing.assert_array_equal(ours, significant)
    assert 0 < significant.sum() < significant.size - models  # both kinds of decision occur
    assert significant_pairs == int(significant.sum()) // 2
    # letters: sharing one <=> not significant, for every pair
    columns = letter_columns(significant)
    shared = (columns.T.astype(np.int64) @ columns.astype(np.int64)) > 0
    upper = np.triu_indices(models, k=1)
    np.testing.assert_array_equal(shared[upper], ~significant[upper])
    assert columns.any(axis=0).all()
    assert (table["rank_low"] <= table["rank"]).all() and (table["rank"] <= table["rank_high"]).all()


def test_letters_of_a_hand_made_display():
    significant = np.zeros((4, 4), dtype=bool)
    significant[0, 2:] = significant[2:, 0] = True  # model 0 differs from 2 and 3; everything else does not
    labels = lpv.leaderboard.ranking.letters_from_significance(significant)
    assert labels == ["a", "ab", "b", "b"]


def test_letters_beyond_the_alphabet_read_unambiguously():
    significant = ~np.eye(60, dtype=bool)  # every model differs from every other: 60 letters
    labels = lpv.leaderboard.ranking.letters_from_significance(significant)
    assert labels[:3] == ["a", "b", "c"] and labels[52] == "a1" and len(set(labels)) == 60


def _without_source(document):
    document = dict(document)
    document.pop("source")
    return json.dumps(document, sort_keys=True)


@pytest.mark.parametrize("graded", [False, True])
def test_permuting_rows_and_columns_gives_the_same_report(graded):
    matrix = _leaderboard(6, 400, seed=3, graded=graded)
    rng = np.random.default_rng(9)
    rows, columns = rng.permutation(matrix.n_items), rng.permutation(matrix.n_models)
    clusters = [f"topic-{i % 5}" for i in range(matrix.n_items)]
    original = lpv.from_array(matrix.scores, models=matrix.models, item_ids=matrix.item_ids, clusters=clusters)
    shuffled = lpv.from_array(
        matrix.scores[rows][:, columns],
        models=[matrix.models[i] for i in columns],
        item_ids=[matrix.item_ids[i] for i in rows],
        clusters=[clusters[i] for i in rows],
    )
    options = dict(mode="all", n_resamples=200, n_cluster_resamples=50, n_rank_resamples=200, seed=5)
    assert _without_source(json.loads(render(lpv.audit_leaderboard(original, **options), "json"))) == _without_source(
        json.loads(render(lpv.audit_leaderboard(shuffled, **options), "json"))
    )


@pytest.mark.parametrize("graded", [False, True])
def test_a_pairs_bootstrap_does_not_depend_on_the_mode(graded):
    matrix = _leaderboard(6, 400, seed=4, graded=graded)
    adjacent = lpv.audit_leaderboard(matrix, "adjacent", n_resamples=300, seed=2).pairs
    everything = lpv.audit_leaderboard(matrix, "all", n_resamples=300, seed=2).pairs
    merged = adjacent.merge(everything, on=["model_a", "model_b"], suffixes=("", "_all"))
    assert len(merged) == 5
    for column in ("boot_ci_low", "boot_ci_high", "p_bootstrap"):
        np.testing.assert_array_equal(merged[column], merged[f"{column}_all"])
    other_seed = lpv.audit_leaderboard(matrix, "adjacent", n_resamples=300, seed=3).pairs
    assert not np.array_equal(other_seed["boot_ci_low"], adjacent["boot_ci_low"])


def test_equal_means_are_ranked_by_name():
    scores = np.array([[1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 0, 0]] * 30, dtype=float)
    for models in (["zeta", "alpha", "mid"], ["alpha", "zeta", "mid"]):
        ranking = lpv.audit_leaderboard(lpv.from_array(scores, models=models), n_resamples=0).ranking
        assert ranking["model"].tolist()[:2] == ["alpha", "zeta"]


def test_bootstrap_rank_intervals_hold_the_rank_and_repeat_with_the_seed():
    matrix = _leaderboard(8, 500, seed=6)
    first = lpv.audit_leaderboard(matrix, n_resamples=0, n_rank_resamples=400, seed=1).ranking
    again = lpv.audit_leaderboard(matrix, n_resamples=0, n_rank_resamples=400, seed=1).ranking
    np.testing.assert_array_equal(first["rank_boot_low"], again["rank_boot_low"])
    assert (first["rank_boot_low"] <= first["rank"]).all() and (first["rank"] <= first["rank_boot_high"]).all()
    assert (first["rank_boot_high"] - first["rank_boot_low"]).max() >= 1  # close models do swap under resampling
    assert "rank_boot_low" not in lpv.audit_leaderboard(matrix, n_resamples=0).ranking


def test_wilson_interval_agrees_with_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    from llm_power_verified.leaderboard.ranking import wilson_interval

    n = 12_032
    successes = np.array([0, 1, 17, 6016, 11_000, 12_031, 12_032])
    for alpha in (0.05, 0.01, 0.2):
        low, high = wilson_interval(successes, n, alpha)
        ref_low, ref_high = proportion_confint(successes, n, alpha=alpha, method="wilson")
        assert np.allclose(low, ref_low, rtol=1e-13, atol=1e-16)
        assert np.allclose(high, ref_high, rtol=1e-13, atol=1e-16)


def test_wilson_interval_stays_inside_zero_one_at_the_ends():
    """N of N (and 0 of N) solved: rounding gave 1 + 2^-52 for some N (the JSON schema's [0, 1] refused it)."""
    from llm_power_verified.leaderboard.ranking import wilson_interval

    n = np.arange(1, 3000)
    for k in n:
        low, high = wilson_interval(np.array([0, k]), int(k), 0.05)
        # Inside [0, 1]; at the ends within a few ulp of 0 and 1 (exactly 0 and 1 in exact arithmetic).
        assert low.min() >= 0.0 and high.max() <= 1.0
        assert low[0] <= 4e-16 and high[1] >= 1.0 - 4 * np.finfo(float).eps


def _letters_one_candidate_at_a_time(significant: np.ndarray) -> np.ndarray:
    """The letter sweep written plainly (each candidate tried alone, the K x K covered pairs held): the reference."""
    size = significant.shape[0]
    together = ~significant
    np.fill_diagonal(together, True)
    covered = np.zeros((size, size), dtype=bool)
    columns = []
    for i in range(size):
        nearest = np.argsort(np.abs(np.arange(size) - i), kind="stable")
        while (open_pairs := np.flatnonzero(together[i] & ~covered[i])).size:
            j = int(open_pairs[0])
            members = [i] if i == j else [i, j]
            candidates = together[i] & together[j]
            candidates[members] = False
            for k in nearest[candidates[nearest]]:
                if candidates[k]:
                    members.append(int(k))
                    candidates &= together[k]
            covered[np.ix_(members, members)] = True
            columns.append(np.isin(np.arange(size), members))
    return np.array(columns, dtype=bool).reshape(-1, size)


@pytest.mark.parametrize("size", [1, 2, 9, 70, 260])
@pytest.mark.parametrize("noise", [0.0, 0.03, 0.3, 0.8])
def test_letters_equal_the_one_candidate_at_a_time_sweep(size, noise):
    """Runs of non-significant neighbours (the fast path) and decisions far from the ranks (the chunks' clashes)."""
    rng = np.random.default_rng(size * 100 + int(noise * 100))
    rank = np.arange(size)
    significant = np.abs(rank[:, None] - rank[None, :]) > rng.integers(1, 40)
    flips = np.triu(rng.random((size, size)) < noise, 1)
    significant ^= flips | flips.T
    np.fill_diagonal(significant, False)
    expected = _letters_one_candidate_at_a_time(significant)
    assert np.array_equal(letter_columns(significant.copy()), expected)
    assert expected.shape[0] >= 1
