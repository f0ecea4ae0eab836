"""sigma_D^2 at a declared gap: a discordance equal to the gap up to float rounding is the gap (issue 26)."""

from __future__ import annotations

import numpy as np

from llm_power_verified.power.gap_of_interest import ROUNDING_SLACK, binary_variance_at_gap, graded_variance_at_gap


def test_printed_gaps_of_one_point_both_count_as_the_gap():
    # o3-low vs o1 (92.8 vs 91.8) and o1 vs gpt-4.5-preview (91.8 vs 90.8) at rho_max, psi = sigma_D^2 + d^2 as the
    # plan computed it: both gaps are 0.01 printed, one lands above 0.01 and one below it.
    above, below = 0.010000000000000047, 0.009999999999999992
    assert above > 0.01 > below
    found = binary_variance_at_gap([above, below], 0.01)
    # Both are psi = DELTA: variance DELTA - DELTA^2 = 0.0099, to float rounding (1e-15 absolute, values near 1e-2).
    assert np.allclose(found, 0.0099, rtol=0, atol=1e-15)


def test_the_slack_is_a_few_ulps_and_no_more():
    assert 16 * np.finfo(np.float64).eps >= ROUNDING_SLACK
    # Below the gap by more than the slack: impossible, named NaN (never clamped).
    assert np.isnan(binary_variance_at_gap([0.02 - 4 * ROUNDING_SLACK, 0.0199999], 0.02)).all()
    assert binary_variance_at_gap([0.02 - ROUNDING_SLACK / 2], -0.02)[0] == 0.02 - 0.02**2


def test_graded_variance_of_zero_gives_no_variance():
    assert np.isnan(graded_variance_at_gap([0.0])[0]) and graded_variance_at_gap([0.04])[0] == 0.04
