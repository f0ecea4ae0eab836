"""The candidate table identifies a convention unambiguously: every two candidates differ beyond the tolerance.

check_calculator names the candidate within the tolerance; if two candidates agreed within it at every grid point,
a calculator matching one would match the other too.  The costly candidate (exact McNemar n) is not in the table.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from llm_power_verified.report.conformance import convention_meaning
from llm_power_verified.testing.candidates import CANDIDATES, COSTLY, evaluate
from llm_power_verified.testing.quantities import QUANTITIES, grid_points, relative_error

# The separation asked of every pair: five times the quantity's tolerance somewhere on the default grid, so a
# calculator within the tolerance of one candidate is far outside it for every other one.  Measured closest pairs
# (two items allowed): noncentral-t and its upper tail for required_n_paired_t 3.1% (6.1x), paired-one-sided and
# unpaired-wald-x(1-rho)-one-sided 3.7% (7.4x); of the one-variance sizes, connor and paired-null-variance 8.7%.
SEPARATION = 5


def _largest_gaps(quantity: str) -> dict[tuple[str, str], float]:
    spec = QUANTITIES[quantity]
    points = grid_points(quantity)
    values = evaluate(quantity, {name: np.asarray([point[name] for point in points]) for name in points[0]})
    gaps = {}
    for first, second in itertools.combinations(CANDIDATES[quantity], 2):
        # Two items of rounding allowed (a total of two groups), the most any convention is allowed.
        errors = [
            relative_error(spec, float(value), float(reference), items=2.0)
            for value, reference in zip(values[first], values[second], strict=True)
        ]
        gaps[(first, second)] = max(error for error in errors if not math.isnan(error))
    return gaps


@pytest.mark.parametrize("quantity", sorted(CANDIDATES))
def test_every_two_candidates_differ_beyond_the_tolerance_on_the_grid(quantity):
    gaps = _largest_gaps(quantity)
    tolerance = QUANTITIES[quantity].tolerance
    close = {pair: gap for pair, gap in gaps.items() if gap <= SEPARATION * tolerance}
    assert close == {}, f"candidates of {quantity} within {SEPARATION} x {tolerance} on the whole grid: {close}"


def test_the_one_p_sizes_use_the_lower_accuracy():
    # At p_a = 0.55, p_b = 0.45, rho = 0.3 and K = (z_0.975 + z_0.8)^2 = 7.8489: 2 K 0.45 0.55 (1 - 0.3) / 0.01 and
    # 2 K 0.45 0.55 / 0.01; swapping p_a and p_b changes nothing (the lower is 0.45 either way).
    k = 7.848879734349086
    for p_a, p_b in ((0.55, 0.45), (0.45, 0.55)):
        point = {"p_a": [p_a], "p_b": [p_b], "rho": [0.3], "alpha": [0.05], "power": [0.8]}
        values = evaluate("required_n", point)
        # rel 1e-12: the same double-precision arithmetic in another order.
        assert values["paired-one-p-lower"][0] == pytest.approx(k * 2 * 0.45 * 0.55 * 0.7 / 0.01, rel=1e-12)
        assert values["unpaired-wald-one-p-lower"][0] == pytest.approx(k * 2 * 0.45 * 0.55 / 0.01, rel=1e-12)


def test_every_candidate_has_a_meaning_in_the_report():
    names = [name for table in (CANDIDATES, COSTLY) for names in table.values() for name in names]
    # convention_meaning falls back to the bare name where its table has no entry.
    assert [name for name in names if convention_meaning(name).startswith(name)] == []
