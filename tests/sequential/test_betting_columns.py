"""The graded audit's betting e-value at N, many pairs at once, against the per-path reference: equal bit for bit.

``betting_log_e_at_n`` promises the same operations in the same order per pair as ``betting_log_e(d)[:, -1]``, so
every comparison here is exact (``np.array_equal``), never within a tolerance: continuous scores, ties, pairs whose
difference never varies, differences of exactly -1 and +1, N from 1 to past two of the reference's item blocks, and
chunks of pairs of every size (the value of a pair cannot depend on which other pairs share its chunk).
"""

from __future__ import annotations

import numpy as np
import pytest

from llm_power_verified.errors import ArgumentError
from llm_power_verified.sequential.betting import ITEM_BLOCK, betting_log_e
from llm_power_verified.sequential.betting_columns import ROWS, betting_log_e_at_n


def _reference(scores, first, second, alpha=0.05):
    """The audit's graded column before this kernel: betting_log_e over the pairs' paths, the value at N."""
    out = np.empty(len(first))
    for index, (a, b) in enumerate(zip(first, second, strict=True)):
        out[index] = betting_log_e(scores[:, a] - scores[:, b], alpha)[-1]
    return out


def _scores(rng, items, kind):
    """Graded scores (items x 8 models) with the features named by ``kind``."""
    if kind == "continuous":
        return rng.uniform(0, 1, (items, 8))
    if kind == "ties":
        return np.round(rng.uniform(0, 1, (items, 8)), 1)
    if kind == "ends":
        # 0/1 scores: every difference is -1, 0 or +1, the ends of [-1, 1].
        return rng.integers(0, 2, (items, 8)).astype(np.float64)
    # Zero-variance differences: model 1 = model 0 (D = 0 throughout), model 2 = model 0 + 0.25 (D = -0.25
    # throughout), model 3 constant, models 4.. continuous.
    base = rng.uniform(0, 0.75, (items, 1))
    return np.hstack([base, base, base + 0.25, np.full((items, 1), 0.5), rng.uniform(0, 1, (items, 4))])


@pytest.mark.parametrize("kind", ["continuous", "ties", "ends", "zero-variance"])
@pytest.mark.parametrize("items", [1, 2, 3, ROWS + 1, 333])
def test_equals_the_reference_bit_for_bit(kind, items):
    rng = np.random.default_rng([29, items, len(kind)])
    scores = _scores(rng, items, kind)
    first, second = np.triu_indices(8, k=1)
    # Both orientations, and a pair of a model with itself.
    first, second = np.concatenate([first, second, [5]]), np.concatenate([second, first, [5]])
    assert np.array_equal(betting_log_e_at_n(scores, first, second), _reference(scores, first, second))


@pytest.mark.parametrize("items", [ITEM_BLOCK - 1, ITEM_BLOCK, ITEM_BLOCK + 1, 5_000, 2 * ITEM_BLOCK + 7])
def test_equals_the_reference_across_the_reference_item_blocks(items):
    # Past ITEM_BLOCK items the reference adds a block's log sum to the carried total: the kernel must restart its
    # sums at the same items.
    rng = np.random.default_rng([29, items])
    scores = np.hstack([rng.uniform(0, 1, (items, 3)), np.round(rng.uniform(0, 1, (items, 2)), 2)])
    first, second = np.array([0, 1, 3, 0, 4]), np.array([1, 2, 4, 3, 2])
    assert np.array_equal(betting_log_e_at_n(scores, first, second), _reference(scores, first, second))


@pytest.mark.parametrize("alpha", [0.001, 0.2, 0.9])
def test_equals_the_reference_at_other_levels(alpha):
    rng = np.random.default_rng(7)
    scores = rng.uniform(0, 1, (200, 5))
    first, second = np.triu_indices(5, k=1)
    assert np.array_equal(betting_log_e_at_n(scores, first, second, alpha), _reference(scores, first, second, alpha))


def test_chunks_of_pairs_do_not_change_a_value():
    # 37 pairs (an odd count) in chunks of 1, 2, 5 (chunk boundaries inside the family), 36 and all.
    rng = np.random.default_rng(3)
    scores = np.round(rng.uniform(0, 1, (150, 12)), 3)
    first, second = rng.integers(0, 12, 37), rng.integers(0, 12, 37)
    reference = _reference(scores, first, second)
    for chunk in (1, 2, 5, 36, 37, 8192):
        assert np.array_equal(betting_log_e_at_n(scores, first, second, pairs_per_chunk=chunk), reference), chunk


def test_threads_do_not_change_a_value():
    # 2,415 pairs: enough for the chunks to be shared among threads (MIN_THREAD_PAIRS), in 2, 3 or 4 chunks at once.
    rng = np.random.default_rng(5)
    scores = np.round(rng.uniform(0, 1, (40, 70)), 2)
    first, second = np.triu_indices(70, k=1)
    reference = _reference(scores, first, second)
    for workers in (1, 2, 3):
        for chunk in (700, 8192):
            values = betting_log_e_at_n(scores, first, second, pairs_per_chunk=chunk, workers=workers)
            assert np.array_equal(values, reference), (workers, chunk)


def test_the_audit_reading_no_difference_is_zero_evidence():
    # D = 0 at every item: every factor is 1, so log e_N = log((1 + 1) / 2) = 0 exactly.
    scores = np.tile(np.linspace(0, 1, 50)[:, None], (1, 2))
    assert betting_log_e_at_n(scores, [0], [1])[0] == 0.0


def test_no_pairs_give_no_values():
    assert betting_log_e_at_n(np.zeros((4, 3)), [], []).shape == (0,)


@pytest.mark.parametrize(
    ("scores", "first", "second", "kwargs", "message"),
    [
        (np.array([[0.0, 1.5], [0.2, 0.3]]), [0], [1], {}, "differences must lie in [-1, 1]; got -1.5 for pair 0"),
        (np.array([[0.0, np.nan], [0.2, 0.3]]), [1], [0], {}, "got nan for pair 0 (models 1 and 0) at item 0"),
        (np.zeros((3, 2)), [0], [2], {}, "second must hold model columns 0..1"),
        (np.zeros((3, 2)), [0, 1], [1], {}, "first and second must name as many models; got 2 and 1"),
        (np.zeros(3), [0], [0], {}, "scores must be a non-empty 2-D array"),
        (np.zeros((3, 2)), [0], [1], {"alpha": 1.0}, "alpha must lie in (0, 1)"),
        (np.zeros((3, 2)), [0], [1], {"pairs_per_chunk": 0}, "pairs_per_chunk must be a whole number >= 1"),
        (np.zeros((3, 2)), [0], [1], {"workers": 0}, "workers must be a whole number >= 1; got 0"),
    ],
)
def test_refusals_name_the_argument(scores, first, second, kwargs, message):
    with pytest.raises(ArgumentError) as raised:
        betting_log_e_at_n(scores, first, second, **kwargs)
    assert message in str(raised.value)


def test_scores_out_of_range_whose_differences_stay_in_range_are_accepted():
    # Scores on [2, 2.5]: the differences lie in [-0.5, 0.5], as betting_log_e requires, and the values agree.
    rng = np.random.default_rng(11)
    scores = rng.uniform(2, 2.5, (40, 3))
    assert np.array_equal(betting_log_e_at_n(scores, [0, 1], [2, 0]), _reference(scores, [0, 1], [2, 0]))


@pytest.mark.parametrize("first", [[1.9], [-0.5], [float("nan")], [1e20], ["a"]])
def test_model_indices_that_are_not_whole_are_refused_not_truncated(first):
    """[1.9] used to audit model 1 silently; NaN and huge floats ended in a cast warning."""
    scores = np.random.default_rng(0).random((50, 4))
    with pytest.raises(ArgumentError, match="first must hold whole model indices"):
        betting_log_e_at_n(scores, first, [2])


def test_complex_scores_and_a_fractional_chunk_size_are_refused():
    scores = np.random.default_rng(0).random((50, 4))
    with pytest.raises(ArgumentError, match="scores must be real numbers"):
        betting_log_e_at_n(scores.astype(complex), [0], [1])
    with pytest.raises(ArgumentError, match="pairs_per_chunk must be a whole number >= 1"):
        betting_log_e_at_n(scores, [0], [1], pairs_per_chunk=float("nan"))
