"""check_calculator on McNemar p-value functions written outside the package: exact, overflowing, uncapped, raising.

The overflow thresholds are the issue's headline failures: 2.0 ** n overflows at exactly 1024 discordant pairs; a
float(math.comb(n, k)) sum fails at the first n whose central binomial coefficient exceeds the largest double,
computed here from first principles.
"""

from __future__ import annotations

import math
import sys

import pytest

from llm_power_verified.testing import check_calculator
from tests.testing import outside_calculators as outside

FAST = {"max_examples": 25}


def _kinds(result) -> list[str]:
    return [failure.kind for failure in result.failures]


def test_scipy_binomtest_exact_p_conforms():
    result = check_calculator(outside.exact_p, "pvalue", **FAST)
    assert result.conforms and result.convention == "exact" and result.failures == ()
    # scipy's binomial tail vs the package's log-space tail, totals up to 10^7: measured 1.1e-13, bound 1e-6.
    assert result.max_relative_error < 1e-6


def test_power_of_two_denominator_overflows_at_1024():
    result = check_calculator(outside.exact_p_power_of_two, "pvalue", **FAST)
    overflow = [failure for failure in result.failures if failure.kind == "overflow"]
    assert len(overflow) == 1 and overflow[0].threshold == 1024
    assert overflow[0].counterexample["b"] + overflow[0].counterexample["c"] == 1024
    with pytest.raises(OverflowError):
        outside.exact_p_power_of_two(512, 512)
    assert outside.exact_p_power_of_two(511, 512) == 1.0  # total 1023 passes
    assert result.convention == "exact" and not result.conforms  # below the threshold it is the exact test


def test_float_comb_overflows_where_the_central_coefficient_passes_the_largest_double():
    first = next(n for n in range(2, 5000) if math.comb(n, n // 2) > sys.float_info.max)
    result = check_calculator(outside.exact_p_float_comb, "pvalue", **FAST)
    overflow = [failure for failure in result.failures if failure.kind == "overflow"]
    assert len(overflow) == 1 and overflow[0].threshold == first
    assert 1024 < first < 1040


def test_uncapped_continuity_correction_is_below_one_at_ties():
    result = check_calculator(outside.corrected_p_uncapped, "pvalue", **FAST)
    assert not result.conforms and result.closest == "chi2-corrected" and result.convention is None
    ties = [
        failure for failure in result.failures if failure.counterexample.get("b") == failure.counterexample.get("c")
    ]
    tie = next(failure for failure in ties if "b = c" in failure.message)
    assert tie.kind == "deviation" and tie.value < 1 and tie.expected == 1.0
    assert tie.value == pytest.approx(
        outside.corrected_p_uncapped(int(tie.counterexample["b"]), int(tie.counterexample["c"]))
    )
    # Against its own claim the cap is the only flaw: p at b = c = 30 is the 0.897.
    assert outside.corrected_p_uncapped(30, 30) == pytest.approx(0.897, abs=5e-4)


def test_division_by_zero_at_no_discordant_pairs_is_an_exception():
    result = check_calculator(outside.chi2_p_raising, "pvalue", **FAST)
    exception = next(failure for failure in result.failures if failure.kind == "exception")
    assert exception.counterexample == {"b": 0.0, "c": 0.0} and "ZeroDivisionError" in exception.message
    assert result.convention == "chi2"


def test_nan_at_ties_is_found_and_is_no_overflow():
    result = check_calculator(outside.exact_p_nan_when_tied, "pvalue", **FAST)
    assert _kinds(result) == ["nan"] and result.failures[0].counterexample == {"b": 0.0, "c": 0.0}
    assert result.convention == "exact"


def test_one_sided_p_has_wrong_tails_and_is_asymmetric():
    result = check_calculator(outside.exact_one_sided_p, "pvalue", **FAST)
    assert result.convention == "exact-one-sided"
    assert {"wrong-tails", "asymmetric", "deviation"} <= set(_kinds(result))
    claimed = check_calculator(outside.exact_one_sided_p, "pvalue", claims="exact-one-sided", **FAST)
    assert "wrong-tails" not in _kinds(claimed) and claimed.error_against_claim < 1e-6


def test_out_of_range_and_no_valid_answer():
    def negative(b, c):
        return -0.5

    result = check_calculator(negative, "pvalue", max_examples=5)
    assert _kinds(result) == ["out-of-range"] and result.failures[0].counterexample == {"b": 0.0, "c": 0.0}
    assert result.convention is None and result.max_relative_error == float("inf") and result.region == {}
    assert "no valid answer" in result.summary


def test_a_warning_of_the_calculator_is_recorded_not_raised():
    import warnings

    def noisy(b, c):
        warnings.warn("tail computed in double precision", RuntimeWarning, stacklevel=2)
        return outside.exact_p(b, c)

    # pytest runs with -W error: a leaked warning would make every call an "exception" and the function not conform.
    result = check_calculator(noisy, "pvalue", max_examples=5)
    assert result.conforms and result.convention == "exact"
