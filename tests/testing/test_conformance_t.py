"""check_calculator on paired-t power and sample-size functions written outside the package with scipy."""

from __future__ import annotations

from llm_power_verified.testing import check_calculator
from tests.testing import outside_calculators as outside

FAST = {"max_examples": 20}


def _kinds(result) -> list[str]:
    return [failure.kind for failure in result.failures]


def test_two_tailed_noncentral_t_power_conforms():
    result = check_calculator(outside.paired_t_power, "power_paired_t", **FAST)
    assert result.conforms and result.convention == "noncentral-t"
    # scipy's nct against the package's (the same Boost code, the lower tail by symmetry): measured 0.
    assert result.max_relative_error < 1e-8


def test_upper_tail_only_is_wrong_tails():
    result = check_calculator(outside.paired_t_power_upper_tail, "power_paired_t", **FAST)
    assert result.convention == "noncentral-t-upper-tail" and "wrong-tails" in _kinds(result)
    # At n = 2, d = 0.05 the two-tailed power is 0.0501 and the upper tail alone 0.0273: 46% below (measured).
    assert result.error_against_correct > 0.4


def test_nct_cdf_lower_tail_returns_nan_somewhere():
    result = check_calculator(outside.paired_t_power_naive, "power_paired_t", **FAST)
    assert "nan" in _kinds(result) and result.convention == "noncentral-t" and not result.conforms


def test_required_n_solved_and_normal_approximation():
    solved = check_calculator(outside.paired_t_n, "required_n_paired_t", **FAST)
    assert solved.conforms and solved.convention == "noncentral-t"
    normal = check_calculator(outside.normal_t_n, "required_n_paired_t", **FAST)
    assert normal.convention == "normal" and not normal.conforms and "deviation" in _kinds(normal)
