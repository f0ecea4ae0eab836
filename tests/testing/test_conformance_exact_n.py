"""The costly candidate: exact McNemar's required n is tried only when no closed form fits, at the grid's wide gaps.

The function under test answers with the package's exact n at gaps of 0.25 or more and refuses smaller gaps (where
one exact search costs seconds), so the run stays short and the wide-gap points alone decide the convention.
"""

from __future__ import annotations

from llm_power_verified.power import required_n_mcnemar_exact
from llm_power_verified.testing import check_calculator


def wide_gaps_only(p_a, p_b, rho, alpha, power):
    if abs(p_a - p_b) < 0.25:
        raise ValueError("gaps below 0.25 are not supported")
    return required_n_mcnemar_exact(p_a, p_b, rho, alpha, power)


def test_exact_mcnemar_n_is_found_when_no_closed_form_fits():
    result = check_calculator(wide_gaps_only, max_examples=10)
    assert result.convention == "mcnemar-exact" and result.candidate_errors["mcnemar-exact"] == 0.0
    assert "exception" in [failure.kind for failure in result.failures] and not result.conforms
    # The exact n is 26 to 104 at these points where N* is 20 to 90: far outside 0.5% (measured over 10%).
    assert result.error_against_correct > 0.1
    wide = [row for row in result.deviations if row.found is not None]
    assert len(wide) >= 4 and all(row.found == row.value for row in wide)
