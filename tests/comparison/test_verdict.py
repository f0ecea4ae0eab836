"""The three verdicts from the (1 - 2 alpha) interval and the test, their boundaries and their exit codes."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_power_verified.comparison import EXIT_CODES, TESTS, exit_code, margins, verdict
from llm_power_verified.comparison.anytime import running_verdicts
from llm_power_verified.errors import ArgumentError

M = 0.02


@pytest.mark.parametrize(
    ("test", "low", "high", "expected"),
    [
        # superiority at m: pass L > m, fail U <= m
        ("superiority", 0.03, 0.05, "pass"),
        ("superiority", 0.01, 0.05, "inconclusive"),
        ("superiority", -0.05, 0.01, "fail"),
        ("superiority", M, 0.05, "inconclusive"),  # L = m: m is still in the interval
        ("superiority", -0.05, M, "fail"),  # U = m: no point of [L, U] lies in d > m
        # non-inferiority at m: pass L > -m, fail U <= -m
        ("non-inferiority", -0.01, 0.05, "pass"),
        ("non-inferiority", -0.03, 0.05, "inconclusive"),
        ("non-inferiority", -0.08, -0.03, "fail"),
        ("non-inferiority", -M, 0.05, "inconclusive"),
        ("non-inferiority", -0.08, -M, "fail"),
        # equivalence at m: pass -m < L and U < m, fail L >= m or U <= -m
        ("equivalence", -0.01, 0.01, "pass"),
        ("equivalence", -0.03, 0.01, "inconclusive"),
        ("equivalence", -0.01, 0.03, "inconclusive"),
        ("equivalence", -0.03, 0.03, "inconclusive"),
        ("equivalence", 0.03, 0.05, "fail"),
        ("equivalence", -0.05, -0.03, "fail"),
        ("equivalence", -M, 0.01, "inconclusive"),
        ("equivalence", M, 0.05, "fail"),
        ("equivalence", -0.05, -M, "fail"),
        ("equivalence", 0.0, 0.0, "pass"),  # a point interval inside the margin
    ],
)
def test_verdict_on_constructed_intervals(test, low, high, expected):
    assert verdict(test, M, low, high) == expected


def test_superiority_at_margin_zero_is_the_sign_of_the_interval():
    assert verdict("superiority", 0, 0.001, 0.01) == "pass"
    assert verdict("superiority", 0, -0.01, -0.001) == "fail"
    assert verdict("superiority", 0, -0.01, 0.0) == "fail"  # shown not better: d <= 0
    assert verdict("superiority", 0, 0.0, 0.01) == "inconclusive"


def _inside(test: str, margin: float, gap: float) -> bool:
    """Whether the gap lies in the test's alternative, written out from the definitions."""
    return {"superiority": gap > margin, "non-inferiority": gap > -margin, "equivalence": -margin < gap < margin}[test]


@given(
    test=st.sampled_from(TESTS), margin=st.floats(0.001, 0.5), ends=st.lists(st.floats(-1, 1), min_size=2, max_size=2)
)
def test_verdict_is_inside_or_disjoint_from_the_alternative(test, margin, ends):
    low, high = sorted(ends)
    # The alternative and the interval are intervals: the ends, the points next to the margins and 0 decide.
    points = [low, high] + [float(np.clip(x, low, high)) for x in (0.0, -margin, margin)]
    points += [float(np.clip(np.nextafter(x, -x), low, high)) for x in (-margin, margin)]
    inside = [_inside(test, margin, point) for point in points]
    expected = "pass" if all(inside) else "fail" if not any(inside) else "inconclusive"
    assert verdict(test, margin, low, high) == expected


@pytest.mark.parametrize(
    ("test", "margin", "message"),
    [
        ("non-inferiority", 0.0, "in (0, 1)"),
        ("equivalence", 0.0, "in (0, 1)"),
        ("superiority", -0.01, "in [0, 1)"),
        ("non-inferiority", 1.0, "in (0, 1)"),
        ("equivalence", float("nan"), "in (0, 1)"),
    ],
)
def test_margins_the_test_does_not_take_are_refused(test, margin, message):
    with pytest.raises(ArgumentError, match=r"--margin .*" + re.escape(message)):
        verdict(test, margin, -0.1, 0.1)


def test_unknown_test_and_broken_interval_are_refused():
    with pytest.raises(ArgumentError, match="test must be one of"):
        verdict("superior", 0.0, 0.0, 0.1)
    with pytest.raises(ArgumentError, match="low <= high"):
        verdict("superiority", 0.0, 0.2, 0.1)
    with pytest.raises(ArgumentError, match="low <= high"):
        verdict("superiority", 0.0, float("nan"), 0.1)


def test_margins_of_the_p_values():
    assert margins("superiority", 0.02) == (0.02, 0.02)
    assert margins("non-inferiority", 0.02) == (-0.02, -0.02)
    assert margins("equivalence", 0.02) == (-0.02, 0.02)


def test_exit_codes_and_the_inconclusive_mapping():
    assert EXIT_CODES == {"pass": 0, "fail": 1, "inconclusive": 3}
    assert [exit_code(name) for name in ("pass", "fail", "inconclusive")] == [0, 1, 3]
    assert exit_code("inconclusive", "pass") == 0 and exit_code("inconclusive", "fail") == 1
    assert exit_code("fail", "pass") == 1 and exit_code("pass", "fail") == 0  # only inconclusive is mapped
    with pytest.raises(ArgumentError, match="inconclusive must be pass or fail"):
        exit_code("inconclusive", "inconclusive")


@pytest.mark.parametrize("test", TESTS)
def test_running_verdicts_equal_the_verdict_at_every_item(test):
    rng = np.random.default_rng(4)
    lower = np.maximum.accumulate(np.sort(rng.uniform(-0.2, 0.05, 60)))
    upper = np.minimum.accumulate(np.sort(rng.uniform(-0.05, 0.2, 60))[::-1])
    upper = np.maximum(upper, lower)
    codes = running_verdicts(test, M, lower, upper)
    expected = [EXIT_CODES[verdict(test, M, low, high)] for low, high in zip(lower, upper, strict=True)]
    assert codes.tolist() == expected
