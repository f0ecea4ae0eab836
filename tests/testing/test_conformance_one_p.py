"""check_calculator finds the sizes with one variance in place of sigma_D^2, and the normal upper-tail power.

The formulas are those of real tools (errorbars.questions_needed, evalconfidence.power with 2 p (1 - p),
deltagate.min_samples_for_delta with sd_diff = sqrt(r_ab + r_ba), deltagate.power_for_samples), written with scipy
in tests/testing/outside_calculators.py.
"""

from __future__ import annotations

import pytest

from llm_power_verified.testing import check_calculator
from tests.testing import outside_calculators as outside

FAST = {"max_examples": 20}


@pytest.mark.parametrize(
    ("function", "convention"),
    [
        (outside.paired_one_p_n, "paired-one-p-lower"),
        (outside.unpaired_one_p_n, "unpaired-wald-one-p-lower"),
        (outside.discordant_rate_n, "paired-null-variance"),
    ],
)
def test_one_variance_sizes_are_found_and_do_not_conform(function, convention):
    result = check_calculator(function, **FAST)
    assert result.convention == convention and not result.conforms
    # Each is rounded up, within the one item allowed: its own convention's error is exactly 0.
    assert result.candidate_errors[convention] == 0.0
    assert "deviation" in [failure.kind for failure in result.failures]
    # Far from N*: measured 0.65 (paired, one p), 1.9 (unpaired, one p) and 2.4 (psi = sigma_D^2 + delta^2, large
    # where delta is large against sigma_D) at max_examples=20; at least 30%.
    assert result.error_against_correct > 0.3


def test_normal_upper_tail_power_is_found_and_is_wrong_tails():
    result = check_calculator(outside.normal_power_upper_tail, "power_paired_t", **FAST)
    assert result.convention == "normal-upper-tail" and not result.conforms
    # The same formula in scipy and in the package's ndtr: agreement to rounding (tolerance 1e-4, measured ~1e-16).
    assert result.candidate_errors["normal-upper-tail"] < 1e-12
    assert "wrong-tails" in [failure.kind for failure in result.failures]
