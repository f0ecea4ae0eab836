"""The pair table's exact McNemar p is the family's arbiter p, bit for bit: one may stand for the other.

The family pass (Holm, BH) takes ``mcnemar_exact(b, c)``; the pair block takes ``exact_and_midp(b, c)``.  Both are the
same function of (b, c), so the block may take the family's value (or its tail) instead of computing it again.
"""

from __future__ import annotations

import numpy as np

from llm_power_verified.inference.mcnemar import exact_and_midp, exact_with_tail, mcnemar_exact, mcnemar_midp
from llm_power_verified.io import ScoreMatrix, from_array
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.leaderboard.blocks import all_pairs_tests, family_context, pair_inputs
from llm_power_verified.leaderboard.pairs import rank_models


def _binary_leaderboard(models: int = 30, items: int = 3000) -> ScoreMatrix:
    rng = np.random.default_rng(29)
    difficulty = rng.normal(size=(items, 1))
    strength = np.linspace(0.4, -0.4, models)
    scores = (difficulty + strength + rng.normal(size=(items, models)) > 0).astype(float)
    scores[:, 7] = scores[:, 6]  # one pair with b = c = 0
    return from_array(scores, models=[f"m{k:02d}" for k in range(models)])


def test_the_pair_tables_exact_p_is_the_family_arbiters_bit_for_bit():
    pairs = audit_leaderboard(_binary_leaderboard(), "all", n_resamples=0).pairs
    b, c = pairs["b"].to_numpy(), pairs["c"].to_numpy()
    family = mcnemar_exact(b, c)
    assert np.array_equal(pairs["p_exact"].to_numpy(), family.pvalue)
    assert np.array_equal(pairs["log_p_exact"].to_numpy(), family.log_pvalue)
    assert np.array_equal(pairs["p_midp"].to_numpy(), mcnemar_midp(b, c).pvalue)
    assert ((b == 0) & (c == 0)).any() and (pairs["p_exact"] < 1e-10).any()  # both ends of the range are covered


def test_exact_and_midp_equal_the_two_tests_on_every_kind_of_table():
    """b = c, b + c = 0, one-sided tables, and tails far below 1e-300 (computed in logs)."""
    rng = np.random.default_rng(3)
    total = rng.integers(0, 5000, size=4000)
    b = np.concatenate([rng.integers(0, total + 1), [0, 0, 7, 4000, 0, 2500]]).astype(float)
    c = np.concatenate([total - b[:4000], [0, 9, 7, 0, 4000, 2500]]).astype(float)
    exact, midp = exact_and_midp(b, c)
    assert np.array_equal(exact.pvalue, mcnemar_exact(b, c).pvalue)
    assert np.array_equal(exact.log_pvalue, mcnemar_exact(b, c).log_pvalue)
    assert np.array_equal(midp.pvalue, mcnemar_midp(b, c).pvalue)
    assert exact.log_pvalue.min() < np.log(1e-300)


def test_the_tail_computed_once_gives_the_two_computations_bit_for_bit():
    """exact_with_tail's tail, passed to exact_and_midp, gives what the two separate computations give, to the bit."""
    rng = np.random.default_rng(5)
    for high in (3, 60, 5000, 10**7):  # small tables, the centre, the continued fraction, counts past 1e6
        b = rng.integers(0, high, size=3000).astype(float)
        c = rng.integers(0, high, size=3000).astype(float)
        b[:40], c[:40] = 0, 0  # b + c = 0
        c[40:80] = 0  # one-sided tables
        c[80:120] = b[80:120]  # ties
        exact, log_tail = exact_with_tail(b, c)
        once, midp_once = exact_and_midp(b, c, log_tail)
        twice, midp_twice = exact_and_midp(b, c)
        for left, right in ((exact, mcnemar_exact(b, c)), (once, twice), (midp_once, midp_twice)):
            assert np.array_equal(left.pvalue, right.pvalue)
            assert np.array_equal(left.log_pvalue, right.log_pvalue)
    scalar, tail = exact_with_tail(0, 0)
    assert scalar.pvalue == 1.0 and float(tail) == 0.0
    assert exact_and_midp(3, 9, exact_with_tail(3, 9)[1])[1].pvalue == mcnemar_midp(3, 9).pvalue


def test_the_family_context_keeps_the_tails_of_its_pvalues():
    """Computed by the family itself or taken from all pairs: the tails are those of the family's own p-values."""
    matrix = _binary_leaderboard(models=12, items=800)
    order = rank_models(matrix)
    inputs = pair_inputs(matrix, order)
    all_p, all_tail = all_pairs_tests(inputs, order)
    for family, given in (("all", (all_p, all_tail)), ("adjacent", (all_p, all_tail)), ("all", (None, None))):
        context = family_context(inputs, order, family, None, 0.05, 0.8, given[0], all_log_tail=given[1])
        b = inputs.counts(context.first, context.second)[1]
        c = inputs.counts(context.first, context.second)[2]
        exact, tail = exact_with_tail(b, c)
        assert np.array_equal(context.pvalues, exact.pvalue)
        assert np.array_equal(context.log_tail, tail)
        block = context.for_block(context.first[:5], context.second[:5])
        assert np.array_equal(block.log_tail, tail[:5])
