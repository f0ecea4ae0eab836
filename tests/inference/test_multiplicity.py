"""Multiplicity: the N* inflation of a corrected level and the adjusted p-values (inference/multiplicity.py)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

import llm_power_verified as lpv
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.multiplicity import adjust_pvalues, family_adjustments, holm_levels


def test_inflation_is_ratio_of_required_n_at_corrected_alpha():
    for m in (1, 9, 40, 45, 1000):
        direct = lpv.required_n_paired_binary(0.7, 0.68, 0.5, alpha=0.05 / m) / lpv.required_n_paired_binary(
            0.7, 0.68, 0.5
        )
        assert lpv.required_n_inflation(m) == pytest.approx(direct, rel=1e-12)


def test_inflation_against_scipy_quantiles():
    """The paper's Section 6.3 figures: z_{1 - 0.05/80} ~ 3.227 and a factor of about 2.11 at m = 40."""
    z_power = norm.ppf(0.8)
    for m in (40, 45):
        expected = ((norm.isf(0.05 / (2 * m)) + z_power) / (norm.isf(0.025) + z_power)) ** 2
        assert lpv.required_n_inflation(m) == pytest.approx(expected, rel=1e-12)
    assert round(lpv.required_n_inflation(40), 2) == 2.11
    assert round(lpv.required_n_inflation(45), 2) == 2.14


def test_sidak_is_slightly_below_bonferroni_and_monotone():
    m = np.array([1, 2, 9, 40, 1000, 10**6])
    bonferroni = lpv.required_n_inflation(m)
    sidak = lpv.required_n_inflation(m, correction="sidak")
    assert bonferroni[0] == pytest.approx(1.0) and sidak[0] == pytest.approx(1.0)
    assert np.all(sidak[1:] < bonferroni[1:])
    assert np.all(np.diff(bonferroni) > 0) and np.all(np.diff(sidak) > 0)
    assert round(float(sidak[3]), 2) == 2.10


@pytest.mark.parametrize(
    "method, name", [("bonferroni", "bonferroni"), ("sidak", "sidak"), ("holm", "holm"), ("bh", "fdr_bh")]
)
def test_adjustments_agree_with_statsmodels_and_stay_quiet_at_one(method, name):
    import warnings

    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(4)
    p = np.concatenate([rng.random(40) ** 3, [0.0, 1.0, 1.0, 1e-300]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = lpv.adjust_pvalues(p, method)
    with np.errstate(divide="ignore"):
        reference = multipletests(p, method=name)[1]
    assert np.allclose(ours, reference, rtol=1e-14, atol=0)


@pytest.mark.parametrize("seed", range(6))
def test_family_adjustments_equal_the_three_functions_bit_for_bit(seed):
    """One sort for Holm, BH and Holm's levels: the same stable order, the same operations, the same bits."""
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(int(rng.integers(1, 5000))) ** 3, int(rng.integers(2, 6)))  # many ties, some 0
    holm, bh, levels = family_adjustments(p, 0.05)
    assert np.array_equal(holm, adjust_pvalues(p, "holm"))
    assert np.array_equal(bh, adjust_pvalues(p, "bh"))
    assert np.array_equal(levels, holm_levels(p, 0.05))
    assert [part.size for part in family_adjustments(np.empty(0))] == [0, 0, 0]
    with pytest.raises(ArgumentError, match="one-dimensional array of numbers in"):
        family_adjustments(np.array([0.1, np.nan]))
