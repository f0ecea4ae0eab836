"""The all-pairs 2x2 counts are exact integers beyond 2^24 items (leaderboard/contingency.py), in the audit too."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_power_verified.io import from_array
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.leaderboard.contingency import BLOCK_ROWS, both_correct_counts


def test_counts_are_exact_beyond_float32_range():
    """N = 2^24 + 3 items: float32 rounds 2^24 + 3 to 2^24 + 4; the blocked product does not."""
    n = BLOCK_ROWS + 3
    scores = np.ones((n, 3), dtype=np.int8)
    scores[5, 1] = 0
    scores[-1, 2] = 0
    counts = both_correct_counts(scores)
    assert counts.dtype == np.int64
    assert counts.tolist() == [[n, n - 1, n - 1], [n - 1, n - 1, n - 2], [n - 1, n - 2, n - 1]]
    assert int(np.float32(n)) != n  # the naive float32 product could not have represented it


@given(st.integers(1, 64), st.integers(2, 5), st.integers(1, 17), st.integers(0, 2**32 - 1))
def test_blocked_counts_equal_integer_counts(items, models, block_rows, seed):
    scores = (np.random.default_rng(seed).random((items, models)) < 0.5).astype(np.int8)
    direct = scores.astype(np.int64).T @ scores.astype(np.int64)
    assert np.array_equal(both_correct_counts(scores, block_rows=block_rows), direct)


@pytest.mark.slow
def test_audit_beyond_two_to_the_24_items():
    n = BLOCK_ROWS + 7
    rng = np.random.default_rng(11)
    first = rng.random(n) < 0.999
    second = first.copy()
    flip = rng.choice(n, 2_000, replace=False)
    second[flip[:1_200]] = ~second[flip[:1_200]]
    matrix = from_array(np.column_stack([first, second]).astype(np.float64), models=["a", "b"])
    pairs = audit_leaderboard(matrix, "adjacent", n_resamples=0, n_cluster_resamples=0).pairs
    a, b = matrix.scores[:, 0].astype(bool), matrix.scores[:, 1].astype(bool)
    only = {
        "a": int(np.count_nonzero(a & ~b)),
        "b": int(np.count_nonzero(~a & b)),
        "both": int(np.count_nonzero(a & b)),
    }
    row = pairs.iloc[0]
    counts = {row["model_a"]: int(row["b"]), row["model_b"]: int(row["c"])}
    assert counts == {"a": only["a"], "b": only["b"]} and int(row["a"]) == only["both"]
