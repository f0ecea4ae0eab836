"""Counted Holm, BH and e-BH decisions (inference/threshold_counts.py, threshold_decisions.py) equal the in-memory ones.

The references are :func:`~llm_power_verified.inference.multiplicity.adjust_pvalues` (``adjusted <= alpha``, the
audit's decision), :func:`~llm_power_verified.sequential.e_process.e_bh` and statsmodels' ``multipletests``.  Every
comparison is exact (integers and booleans), including p-values placed on a threshold or one ulp either side.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.family_table import family_table
from llm_power_verified.inference.multiplicity import adjust_pvalues, holm_levels
from llm_power_verified.inference.threshold_counts import (
    absorb,
    chunk_counts,
    decided_rejections,
    next_plan,
    start,
    step_thresholds,
)
from llm_power_verified.inference.threshold_decisions import e_bh_decision, family_decisions, rank_bounds
from llm_power_verified.sequential.e_process import e_bh

ALPHA = 0.05


def _split(values: np.ndarray, rng: np.random.Generator, pieces: int) -> list[np.ndarray]:
    """The family cut at random places into at most ``pieces`` chunks (some may be empty)."""
    cuts = np.sort(rng.integers(0, values.size + 1, size=max(pieces - 1, 0)))
    return np.split(values, cuts)


def _decide(parts: list[np.ndarray], alpha: float = ALPHA, bins: int = 65_536, **options):
    return family_decisions(lambda: iter(parts), alpha=alpha, bins=bins, **options)


def _assert_equals_in_memory(pvalues: np.ndarray, result, alpha: float = ALPHA) -> None:
    holm = adjust_pvalues(pvalues, "holm") <= alpha if pvalues.size else np.zeros(0, dtype=bool)
    bh = adjust_pvalues(pvalues, "bh") <= alpha if pvalues.size else np.zeros(0, dtype=bool)
    assert result.holm_rejections == int(holm.sum())
    assert result.bh_rejections == int(bh.sum())
    assert np.array_equal(pvalues <= result.holm_cut, holm)
    assert np.array_equal(pvalues <= result.bh_cut, bh)


def _on_thresholds(m: int, rng: np.random.Generator, alpha: float = ALPHA) -> np.ndarray:
    """p-values on Holm's and BH's exact thresholds, the naive alpha / c and alpha i / m, and one ulp either side."""
    steps = rng.integers(1, m + 1, size=m)
    exact = np.concatenate([step_thresholds("holm", steps, m, alpha), step_thresholds("bh", steps, m, alpha)])
    naive = np.concatenate([alpha / (m - steps + 1.0), alpha * steps / float(m)])
    pool = np.concatenate([exact, naive])
    pool = np.concatenate([pool, np.nextafter(pool, 0.0), np.nextafter(pool, 1.0)])
    return np.clip(rng.choice(pool, size=m), 0.0, 1.0)


def _family(kind: str, m: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "continuous":
        return rng.uniform(size=m) ** rng.uniform(1, 8, size=m)
    if kind == "ties":
        return np.round(rng.uniform(size=m) ** 4, 3)
    if kind == "zeros and ones":
        return rng.choice([0.0, 0.0, 1.0, ALPHA, ALPHA / m, 0.5], size=m)
    if kind == "null":
        return rng.uniform(size=m)
    if kind == "tiny":
        return rng.uniform(size=m) * 1e-300
    return _on_thresholds(m, rng)


KINDS = ["continuous", "ties", "zeros and ones", "null", "tiny", "on thresholds"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(4))
def test_random_families_equal_the_in_memory_decisions(kind, seed):
    rng = np.random.default_rng([29, seed, KINDS.index(kind)])
    m = int(rng.integers(1, 20_000))
    pvalues = _family(kind, m, rng)
    bins = int(rng.choice([1, 7, 64, 4096]))
    result = _decide(_split(pvalues, rng, int(rng.integers(1, 40))), bins=bins, max_passes=64)
    _assert_equals_in_memory(pvalues, result)
    assert result.bins <= bins


@pytest.mark.parametrize("kind", ["continuous", "ties", "on thresholds"])
def test_a_million_pvalues_in_random_chunks(kind):
    rng = np.random.default_rng([29, 6, KINDS.index(kind)])
    pvalues = _family(kind, 10**6, rng)
    result = _decide(_split(pvalues, rng, 100))
    _assert_equals_in_memory(pvalues, result)
    assert result.passes <= 4 and result.bins <= 65_536


def test_against_statsmodels_multipletests():
    """statsmodels decides by p <= alpha / c and p <= (i / m) alpha; on continuous p-values no p sits on a boundary."""
    rng = np.random.default_rng(2911)
    for _ in range(20):
        m = int(rng.integers(1, 5_000))
        pvalues = rng.uniform(size=m) ** rng.uniform(1, 10)
        alpha = float(rng.choice([0.01, 0.05, 0.2]))
        result = _decide(_split(pvalues, rng, 7), alpha=alpha, bins=50)
        assert np.array_equal(pvalues <= result.holm_cut, multipletests(pvalues, alpha, method="holm")[0])
        assert np.array_equal(pvalues <= result.bh_cut, multipletests(pvalues, alpha, method="fdr_bh")[0])


def test_a_pvalue_on_the_naive_threshold_follows_the_in_memory_product():
    """Where c * fl(alpha / c) > alpha, p = fl(alpha / c) is not rejected (adjust_pvalues' decision, not alpha / c)."""
    factors = np.arange(2, 200_000, dtype=np.float64)
    over = factors[factors * (ALPHA / factors) > ALPHA]
    assert over.size > 0  # such factors exist in double precision (found by the search above)
    m = int(over[0])
    pvalues = np.full(m, 0.9)
    pvalues[0] = ALPHA / m  # Holm's first step compares m * p with alpha
    result = _decide([pvalues[: m // 2], pvalues[m // 2 :]], bins=3)
    _assert_equals_in_memory(pvalues, result)
    assert result.holm_rejections == 0 and multipletests(pvalues, ALPHA, method="holm")[0][0]


def test_pvalues_equal_to_every_threshold_are_all_rejected_and_one_ulp_above_stops():
    """The sorted p-values on their own thresholds: every step passes by a tie (each count must be seen)."""
    m = 5_000
    steps = np.arange(1, m + 1)
    for procedure in ("holm", "bh"):
        pvalues = step_thresholds(procedure, steps, m, ALPHA)
        result = _decide(np.array_split(pvalues, 9), bins=4_096)
        _assert_equals_in_memory(pvalues, result)
        assert result.passes <= 3 and (result.holm_rejections == m) == (procedure == "holm")  # one pass counts m
        stopped = pvalues.copy()
        stopped[2_000] = np.nextafter(stopped[2_000], 1.0)
        result = _decide(np.array_split(stopped[::-1], 5), bins=4_096)
        _assert_equals_in_memory(stopped, result)
        assert (result.bh_rejections if procedure == "bh" else result.holm_rejections) == (
            m if procedure == "bh" else 2_000
        )


@pytest.mark.parametrize("m", [1, 17, 10**6, 10**9, 2**52])
def test_thresholds_are_the_largest_passing_doubles(m):
    """Holm: (m - i + 1) t <= alpha and not at the next double; BH: m t / i <= alpha and not at the next double."""
    rng = np.random.default_rng([29, m % 1000])
    steps = np.unique(np.concatenate([[1, m], rng.integers(1, m + 1, size=2_000)]))
    holm, bh = step_thresholds("holm", steps, m, ALPHA), step_thresholds("bh", steps, m, ALPHA)
    factor, size, rank = (m - steps + 1).astype(np.float64), np.float64(m), steps.astype(np.float64)
    assert np.all(factor * holm <= ALPHA) and np.all(factor * np.nextafter(holm, 2.0) > ALPHA)
    assert np.all(size * bh / rank <= ALPHA) and np.all(size * np.nextafter(bh, 2.0) / rank > ALPHA)
    assert np.all(np.diff(holm) >= 0) and np.all(np.diff(bh) >= 0)


def _grouped_decisions(values: np.ndarray, weights: np.ndarray, alpha: float) -> tuple[int, int]:
    """Holm's and BH's R for a family of m = sum(weights) p-values given as distinct values and multiplicities.

    Direct formula, no thresholds: a tie run occupying ranks s .. e fails Holm first at s, passes BH best at e.
    """
    m = int(weights.sum())
    last = np.cumsum(weights)
    first = last - weights + 1
    holm_fails = (m - first + 1).astype(np.float64) * values > alpha
    holm = int(first[np.argmax(holm_fails)] - 1) if holm_fails.any() else m
    bh_passes = np.float64(m) * values / last.astype(np.float64) <= alpha
    return holm, int(last[bh_passes].max(initial=0))


def _counted_grouped(values: np.ndarray, weights: np.ndarray, alpha: float, bins: int) -> tuple[int, int, int]:
    """The client's loop, with each pass's counts formed from the (value, multiplicity) table instead of chunks."""
    m = int(weights.sum())
    states, passes = [start("holm", m, alpha), start("bh", m, alpha)], 0
    while any(decided_rejections(state) is None for state in states):
        passes += 1
        for index, state in enumerate(states):
            plan = next_plan(state, bins)
            if plan is not None:
                buckets = np.searchsorted(plan.edges, values, side="left")
                states[index] = absorb(state, plan, np.bincount(buckets, weights, plan.edges.size + 1).astype(np.int64))
    return decided_rejections(states[0]), decided_rejections(states[1]), passes


@pytest.mark.parametrize("seed", range(6))
def test_a_family_of_a_billion_in_integer_arithmetic(seed):
    """m = 10^9 (and 3 x 10^9) as distinct values with multiplicities: indices stay integers, thresholds doubles."""
    rng = np.random.default_rng([29, 9, seed])
    m = 10**9 if seed < 4 else 3 * 10**9
    weights = rng.multinomial(m, rng.dirichlet(np.ones(3_000)))
    weights = weights[weights > 0]
    steps = np.cumsum(weights)
    near = (step_thresholds("holm", steps, m, ALPHA), step_thresholds("bh", steps, m, ALPHA))[seed % 2]
    spread = rng.uniform(size=weights.size) ** 6
    values = np.sort(np.where(rng.uniform(size=weights.size) < 0.5, np.nextafter(near, 1.0 - seed % 3), spread))
    values, where = np.unique(values, return_inverse=True)
    weights = np.bincount(where, weights).astype(np.int64)
    holm, bh, passes = _counted_grouped(values, weights, ALPHA, 65_536)
    assert (holm, bh) == _grouped_decisions(values, weights, ALPHA)
    table = family_table([(values, weights)])  # a third route: the distinct-value table's adjusted p-values
    assert (holm, bh) == tuple(int(weights[table.adjusted(method) <= ALPHA].sum()) for method in ("holm", "bh"))
    assert passes <= 3


def test_the_grouped_reference_agrees_with_adjust_pvalues():
    """The direct formula of the billion-pair test, checked on families small enough to expand."""
    rng = np.random.default_rng(2912)
    for _ in range(30):
        values = np.unique(np.concatenate([_on_thresholds(300, rng), rng.uniform(size=30) ** 5]))
        weights = rng.integers(1, 5, size=values.size)
        expanded = np.repeat(values, weights)
        expected = (
            int(np.sum(adjust_pvalues(expanded, "holm") <= ALPHA)),
            int(np.sum(adjust_pvalues(expanded, "bh") <= ALPHA)),
        )
        assert _grouped_decisions(values, weights, ALPHA) == expected


@pytest.mark.parametrize(
    "pvalues",
    [[], [0.0], [1.0], [ALPHA], [np.nextafter(ALPHA, 1.0)], [-0.0], [0.0] * 7, [1.0] * 7, [ALPHA] * 3],
    ids=["m=0", "zero", "one", "alpha", "alpha+ulp", "minus zero", "zeros", "ones", "alpha x3"],
)
def test_small_and_degenerate_families(pvalues):
    pvalues = np.array(pvalues, dtype=np.float64)
    result = _decide([pvalues[:1], pvalues[1:]])
    _assert_equals_in_memory(pvalues, result)
    assert result.family_size == pvalues.size


def test_chunk_order_and_sizes_do_not_change_the_result():
    rng = np.random.default_rng(2913)
    pvalues = _family("on thresholds", 30_000, rng)
    results = []
    for pieces in (1, 3, 50, 400):
        parts = _split(pvalues, rng, pieces)
        results.append(_decide([parts[k] for k in rng.permutation(len(parts))], bins=100, max_passes=64))
    for result in results[1:]:
        assert result.holm_rejections == results[0].holm_rejections and result.bh_rejections == results[0].bh_rejections
        assert result.holm_cut == results[0].holm_cut and result.bh_cut == results[0].bh_cut
        assert result.passes == results[0].passes and np.array_equal(result.known_below, results[0].known_below)


@pytest.mark.parametrize("m", [10**3, 10**6])
def test_a_chunk_summary_is_bounded_by_the_bins_not_the_family(m):
    rng = np.random.default_rng([29, 13, m])
    pvalues = rng.uniform(size=m) ** 5
    state, sizes = start("bh", m, ALPHA), []
    while (plan := next_plan(state, bins=256)) is not None:
        counts = [chunk_counts(part, [plan], number)[0] for number, part in enumerate(np.array_split(pvalues, 10))]
        sizes += [part.size for part in counts]
        state = absorb(state, plan, np.sum(counts, axis=0))
    assert max(sizes) <= 257 and decided_rejections(state) == int(np.sum(adjust_pvalues(pvalues, "bh") <= ALPHA))


def test_e_bh_equals_the_in_memory_decision():
    rng = np.random.default_rng(2914)
    for trial in range(40):
        m = int(rng.integers(1, 4_000))
        thresholds = np.log(m / (ALPHA * rng.integers(1, m + 1, size=m)))
        pool = np.concatenate([thresholds, np.nextafter(thresholds, -np.inf), rng.normal(2, 3, size=m)])
        log_e = rng.choice(np.concatenate([pool, [-np.inf, np.inf, 0.0]]), size=m)
        if trial % 4 == 0:
            log_e = np.round(log_e, 1)  # ties
        result = e_bh_decision(
            lambda log_e=log_e: iter(_split(log_e, rng, 6)),
            alpha=ALPHA,
            bins=int(rng.choice([1, 9, 500])),
            max_passes=64,
        )
        expected = e_bh(log_e, ALPHA)
        assert result.rejections == int(expected.sum())
        assert np.array_equal(log_e >= result.log_e_cut, expected)


@given(
    values=st.lists(
        st.sampled_from([0.0, 1e-300, 1e-12, 0.001, 0.01, 0.0125, 0.0166, 0.025, ALPHA, 0.2, 0.5, 1.0]), max_size=60
    ),
    cuts=st.lists(st.integers(0, 60), max_size=5),
    bins=st.integers(1, 6),
    alpha=st.sampled_from([0.01, 0.05, 0.1, 0.5]),
)
def test_property_any_family_any_split_equals_the_in_memory_decisions(values, cuts, bins, alpha):
    pvalues = np.array(values, dtype=np.float64)
    m = pvalues.size
    if m:  # also place values on this family's own thresholds
        steps = np.arange(1, m + 1)
        pvalues[::3] = step_thresholds("holm", steps[::3], m, alpha)
        pvalues[1::4] = np.nextafter(step_thresholds("bh", steps[1::4], m, alpha), 1.0)
    parts = np.split(pvalues, np.sort(np.minimum(cuts, m)))
    _assert_equals_in_memory(pvalues, _decide(parts, alpha=alpha, bins=bins, max_passes=100), alpha)


@given(
    values=st.lists(st.floats(-5, 10, allow_nan=False) | st.sampled_from([-np.inf, np.inf, np.log(20.0)]), max_size=40),
    cuts=st.lists(st.integers(0, 40), max_size=4),
    bins=st.integers(1, 5),
)
def test_property_e_bh_any_split(values, cuts, bins):
    log_e = np.array(values, dtype=np.float64)
    parts = np.split(log_e, np.sort(np.minimum(cuts, log_e.size)))
    result = e_bh_decision(lambda: iter(parts), alpha=ALPHA, bins=bins, max_passes=100)
    assert np.array_equal(log_e >= result.log_e_cut, e_bh(log_e, ALPHA) if log_e.size else np.zeros(0, dtype=bool))


@pytest.mark.parametrize("kind, m, bins", [("ties", 50_000, 300), ("continuous", 2_000, 65_536)])
def test_rank_bounds_hold_the_rank_and_holm_level(kind, m, bins):
    rng = np.random.default_rng([29, 15, m])
    pvalues = _family(kind, m, rng)
    parts = _split(pvalues, rng, 12)
    result = _decide(parts, bins=bins)
    ranks = np.empty(m, dtype=np.int64)
    ranks[np.argsort(pvalues, kind="stable")] = np.arange(1, m + 1)
    lowest, highest = np.concatenate([np.stack(rank_bounds(part, result)) for part in parts], axis=1)
    assert np.all(lowest <= ranks) and np.all(ranks <= highest)
    levels = holm_levels(pvalues, ALPHA)
    assert np.all(ALPHA / (m - lowest + 1) <= levels) and np.all(levels <= ALPHA / (m - highest + 1))
    # Exact only for a p-value alone between two counted thresholds: with every step counted, some are.
    assert np.any(lowest == highest) == (kind == "continuous")


def test_a_nan_or_an_out_of_range_pvalue_is_refused_naming_the_chunk():
    good = np.array([0.1, 0.2])
    with pytest.raises(ValueError, match=r"chunk 2, value 1: nan; allowed: p-values in \[0, 1\]"):
        _decide([good, good, np.array([0.3, np.nan])])
    with pytest.raises(ArgumentError, match=r"chunk 1, value 0: 1.5"):
        _decide([good, np.array([1.5])])
    with pytest.raises(ArgumentError, match="chunk 0, value 0: nan; allowed: log e-values"):
        e_bh_decision(lambda: iter([np.array([np.nan])]))
    with pytest.raises(ArgumentError, match="chunk 0: values must be numbers; could not convert string"):
        _decide([np.array(["a"])], family_size=1)
    with pytest.raises(ArgumentError, match="one-dimensional"):
        _decide([np.zeros((2, 2))], family_size=4)


def test_chunks_that_do_not_hold_the_family_are_refused():
    calls = iter(range(100))
    shifting = lambda: iter([np.full(next(calls) + 1, 0.01)])  # noqa: E731  (another family at each call)
    with pytest.raises(ArgumentError, match="the family has 1: give chunks that hold the family"):
        family_decisions(shifting)
    with pytest.raises(ArgumentError, match="the family has 5"):
        _decide([np.zeros(3)], family_size=5)


def test_a_family_hugging_its_bh_thresholds_needs_passes_and_max_passes_refuses():
    """Each sorted p-value one ulp above its BH threshold: every step fails; a pass settles at most bins steps."""
    m = 400
    pvalues = np.nextafter(step_thresholds("bh", np.arange(1, m + 1), m, ALPHA), 1.0)
    with pytest.raises(ArgumentError, match="not decided within max_passes=3; give a larger max_passes or bins"):
        _decide([pvalues], bins=10, max_passes=3)
    result = _decide([pvalues], bins=10, max_passes=100)
    assert result.bh_rejections == 0 and result.passes > 3
    _assert_equals_in_memory(pvalues, result)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: _decide([np.zeros(2)], alpha=1.0), "alpha must be in"),
        (lambda: _decide([np.zeros(2)], bins=0), "bins must be a whole number"),
        (lambda: _decide([np.zeros(2)], max_passes=0), "max_passes must be a whole number"),
        (lambda: start("hommel", 3), "procedure must be one of"),
        (lambda: start("holm", -1), "family_size must be a whole number"),
        (lambda: step_thresholds("by", [1], 3), "procedure must be one of"),
    ],
)
def test_arguments_outside_their_range_are_refused(call, message):
    with pytest.raises(ArgumentError, match=message):
        call()


@pytest.mark.parametrize(
    ("steps", "family_size", "alpha"),
    [([0], 10, 0.05), ([11], 10, 0.05), ([1.5], 10, 0.05), ([1], 0, 0.05), ([1], 2.5, 0.05), ([1], 10, 2.0)],
)
def test_step_thresholds_refuses_steps_sizes_and_levels_out_of_range(steps, family_size, alpha):
    """Steps outside 1..m, m not whole, alpha outside (0, 1) gave warnings or plausible wrong thresholds."""
    with pytest.raises(ArgumentError, match=r"steps must be|family_size must be|alpha must be"):
        step_thresholds("holm", steps, family_size, alpha)
