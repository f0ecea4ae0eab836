"""Exact McNemar power against the mpmath reference; the exact sample-size solver."""

from __future__ import annotations

import pytest

import llm_power_verified as lpv
from llm_power_verified.inference.mcnemar import VARIANTS
from llm_power_verified.power.mcnemar_power import (
    _cells,
    critical_counts,
    power_mcnemar_exact,
    required_n_mcnemar_exact,
    sample_size_table,
)
from tests.support import mpmath_oracle as reference


@pytest.mark.parametrize("method", VARIANTS)
@pytest.mark.parametrize("n, p_a, p_b, rho", [(12, 0.6, 0.3, 0.1), (30, 0.7, 0.55, 0.4), (25, 0.5, 0.5, 0.2)])
def test_exact_power_against_mpmath(method, n, p_a, p_b, rho):
    only_a, only_b = _cells(p_a, p_b, rho)
    expected = reference.exact_power(n, only_a, only_b, 0.05, method, digits=30)
    assert power_mcnemar_exact(n, p_a, p_b, rho, method=method) == pytest.approx(float(expected), rel=1e-10, abs=1e-15)


def test_null_power_is_at_most_alpha_for_the_conservative_tests():
    for n in (20, 200, 2000):
        for method in ("exact", "chi2-corrected"):
            assert power_mcnemar_exact(n, 0.6, 0.6, 0.3, method=method) <= 0.05


def test_critical_counts_match_pvalues():
    m = list(range(1, 200))
    for method in VARIANTS:
        k = critical_counts(m, 0.05, method)
        for total, critical in zip(m, k, strict=True):
            if critical >= 0:
                assert lpv.mcnemar_test(critical, total - critical, method).pvalue <= 0.05
            if critical + 1 <= total / 2:
                assert lpv.mcnemar_test(critical + 1, total - critical - 1, method).pvalue > 0.05


@pytest.mark.parametrize("method", VARIANTS)
def test_required_n_reaches_target_and_one_less_does_not(method):
    n = required_n_mcnemar_exact(0.7, 0.62, 0.4, method=method)
    assert power_mcnemar_exact(n, 0.7, 0.62, 0.4, method=method) >= 0.8
    assert power_mcnemar_exact(n - 1, 0.7, 0.62, 0.4, method=method) < 0.8


def test_asymptotic_variants_land_near_equation_6():
    eq6 = lpv.required_n_paired_binary(0.65, 0.60, 0.30)
    chi2 = required_n_mcnemar_exact(0.65, 0.60, 0.30, method="chi2")
    exact = required_n_mcnemar_exact(0.65, 0.60, 0.30, method="exact")
    assert abs(chi2 - eq6) / eq6 < 0.02
    assert exact > chi2


def test_table_columns():
    table = sample_size_table([0.7], [0.62, 0.7], [0.3, 0.95], methods=("chi2",))
    assert list(table.columns) == ["p_a", "p_b", "rho", "eq6", "connor", "chi2"]
    assert len(table) == 1  # p_a = p_b is skipped and rho = 0.95 is inadmissible for (0.7, 0.62)
