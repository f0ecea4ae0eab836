"""The family's corrections from its table of distinct values equal the whole-family functions bit for bit."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.family_table import family_table, value_counts
from llm_power_verified.inference.mcnemar import mcnemar_exact
from llm_power_verified.inference.multiplicity import adjust_pvalues, holm_levels
from llm_power_verified.sequential.e_process import e_bh, log_e_value


def _blocks(rng: np.random.Generator, size: int) -> list[slice]:
    """Random consecutive blocks covering range(size), some of them empty."""
    cuts = np.sort(rng.integers(0, size + 1, size=rng.integers(0, 6)))
    edges = [0, *cuts.tolist(), size]
    return [slice(low, high) for low, high in itertools.pairwise(edges)]


def _mcnemar_family(rng: np.random.Generator, size: int, items: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact McNemar p-values and log e-values of random pairs: many exact ties, some p = 1, some tiny."""
    b = rng.integers(0, items // 4, size=size)
    c = np.where(rng.random(size) < 0.3, b, rng.integers(0, items // 4, size=size))
    return np.atleast_1d(mcnemar_exact(b, c).pvalue), np.asarray(log_e_value(b, c), dtype=np.float64).reshape(-1)


@pytest.mark.parametrize("seed", range(12))
def test_adjusted_levels_and_e_bh_equal_the_whole_family_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 3000))
    pvalues, log_e = _mcnemar_family(rng, size, int(rng.integers(8, 400)))
    if seed % 3 == 0:  # values exactly on Holm's and BH's thresholds, and repeated
        pvalues[: size // 2] = 0.05 / rng.integers(1, size + 1, size=size // 2)
    slices = _blocks(rng, size)
    table = family_table(value_counts(pvalues[sl]) for sl in slices)
    assert table.size == size and int(table.counts.sum()) == size
    for correction in ("holm", "bh"):
        # Exact equality: the same floating-point operations on the same numbers (module docstring).
        assert np.array_equal(table.adjusted(correction)[table.locate(pvalues)], adjust_pvalues(pvalues, correction))
    earlier = np.zeros(table.values.size, dtype=np.int64)
    levels = np.empty(size)
    for sl in slices:
        levels[sl] = table.holm_levels(pvalues[sl], earlier, 0.05)
        distinct, counts = value_counts(pvalues[sl])
        earlier[table.locate(distinct)] += counts
    assert np.array_equal(levels, holm_levels(pvalues, 0.05))
    e_table = family_table(value_counts(log_e[sl]) for sl in slices)
    for alpha in (0.05, 0.2, 0.9):
        assert np.array_equal(log_e >= e_table.e_bh_cut(alpha), e_bh(log_e, alpha))


def test_empty_and_single_families():
    empty = family_table([])
    assert empty.size == 0 and empty.adjusted("holm").size == 0 and empty.e_bh_cut(0.05) == float("inf")
    one = family_table([value_counts(np.array([0.02]))])
    assert one.adjusted("holm").tolist() == [0.02] and one.adjusted("bh").tolist() == [0.02]


def test_refusals_name_the_value():
    table = family_table([value_counts(np.array([0.1, 0.2]))])
    with pytest.raises(ArgumentError, match=r"0\.15"):
        table.locate(np.array([0.15]))
    with pytest.raises(ArgumentError, match=r"0\.3"):
        table.locate(np.array([0.3]))  # beyond the largest value
    with pytest.raises(ArgumentError, match="NaN at position 1"):
        value_counts(np.array([0.1, np.nan]))
    with pytest.raises(ArgumentError, match="'holm' or 'bh'"):
        table.adjusted("bonferroni")


def test_damaged_parts_and_settings_are_refused():
    """Counts below 1 or not whole, mismatched lengths, NaN, p outside [0, 1], a bad alpha or negative `earlier`."""
    good = (np.array([0.1, 0.2]), np.array([1, 2]))
    for part, why in [
        ((np.array([0.1, 0.2]), np.array([1, 0])), "whole numbers >= 1"),
        ((np.array([0.1, 0.2]), np.array([1.5, 2.0])), "whole numbers >= 1"),
        ((np.array([0.1, 0.2]), np.array([-3, 2])), "whole numbers >= 1"),
        ((np.array([0.1, 0.2]), np.array([1])), "of one length"),
        ((np.array([0.1, np.nan]), np.array([1, 1])), "NaN"),
    ]:
        with pytest.raises(ArgumentError, match=f"part 1: .*{why}"):
            family_table([good, part])
    with pytest.raises(ArgumentError, match=r"values in \[0, 1\]"):
        family_table([(np.array([-0.5, 0.2]), np.array([1, 1]))]).adjusted("holm")
    table = family_table([good])
    for alpha in (0.0, 2.0, float("nan")):
        with pytest.raises(ArgumentError, match=r"alpha must lie in \(0, 1\)"):
            table.e_bh_cut(alpha)
        with pytest.raises(ArgumentError, match=r"alpha must lie in \(0, 1\)"):
            table.holm_levels(np.array([0.1]), np.zeros(2, dtype=np.int64), alpha)
    with pytest.raises(ArgumentError, match="earlier must hold a whole number >= 0"):
        table.holm_levels(np.array([0.1]), np.array([-1, 0]), 0.05)
