"""Each error figure of check_calculator is reported with the point where it is reached.

A newcomer found the conformance page giving the worst error against the paired N* (188%) at a grid point where it is
151%: the figure was the largest over the grid and the random points, its place the largest over the grid only.
"""

from __future__ import annotations

import math

import pytest

from llm_power_verified.power.conventions import convention_values
from llm_power_verified.report.conformance import render_conformance
from llm_power_verified.testing import check_calculator
from tests.testing.outside_calculators import shortcut_n, unpaired_per_arm_n


@pytest.mark.parametrize("calculator", [shortcut_n, unpaired_per_arm_n])
def test_the_error_against_the_correct_quantity_is_reached_where_it_is_reported(calculator):
    result = check_calculator(calculator, max_examples=5, grid="small")
    point = result.correct_region
    value = calculator(**point)
    correct = convention_values(point["p_a"], point["p_b"], point["rho"], point["alpha"], point["power"])["paired"]
    # The check allows one item of rounding for a count (its stated rule); recomputing in double precision from the
    # same closed forms agrees to far below the 1e-9 asked here.
    recomputed = max(abs(value - correct) - 1.0, 0.0) / correct
    assert math.isclose(recomputed, result.error_against_correct, rel_tol=1e-9)


def test_a_claim_met_by_the_values_but_failed_by_an_exception_says_so():
    def shortcut_that_raises_at_large_gaps(p_a, p_b, rho, alpha, power):
        if abs(p_a - p_b) > 0.2:
            raise ValueError("gap too large")
        return shortcut_n(p_a, p_b, rho, alpha, power)

    result = check_calculator(shortcut_that_raises_at_large_gaps, claims="shortcut", max_examples=5, grid="small")
    assert result.error_against_claim <= result.tolerance and not result.conforms_to_claim
    text = render_conformance(result, "table")
    assert "within the tolerance; it fails its claim by its failures (exception)" in text
