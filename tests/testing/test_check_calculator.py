"""check_calculator on required-N calculators written outside the package (tests/testing/outside_calculators.py).

Each verdict is what the issue asks: a correct paired N* conforms; the (1 - rho) shortcut, an unpaired per-arm size
and a one-tailed z are each found as their convention and do not conform; the argument map and the seed behave.
The searches run with max_examples=25 to keep the file fast (the grid alone decides the convention).
"""

from __future__ import annotations

import pytest

from llm_power_verified.errors import ArgumentError
from llm_power_verified.testing import QUANTITIES, CalculatorConformance, assert_conforms, check_calculator
from tests.testing import outside_calculators as outside

FAST = {"max_examples": 25}


@pytest.fixture(scope="module")
def shortcut() -> CalculatorConformance:
    return check_calculator(outside.shortcut_n, **FAST)


def test_correct_paired_n_conforms():
    result = check_calculator(outside.paired_n, **FAST)
    assert result.conforms and result.convention == "paired" and result.failures == ()
    # The function returns the ceiling; rounding to a whole item is allowed, so the error is exactly 0.
    assert result.error_against_correct == 0.0
    assert result.reference == "paired" and result.claimed_convention is None and result.conforms_to_claim is None


def test_shortcut_is_found_and_is_half_of_n_star_at_small_gaps(shortcut):
    assert shortcut.convention == "shortcut" and not shortcut.conforms
    assert [failure.kind for failure in shortcut.failures] == ["deviation"]
    small_gap = [row for row in shortcut.deviations if abs(row.inputs["p_a"] - row.inputs["p_b"]) < 0.03]
    ratios = [row.correct / row.value for row in small_gap]
    # Eq. 9: at small gaps N* / shortcut -> sigma_D^2 / ((1 - rho) * 4 p q) ~ 2 for rho below 0.6 at these
    # midpoints; measured 1.7 to 2.05 over the grid's gap-0.02 points.
    assert len(ratios) >= 9 and all(1.6 < ratio < 2.1 for ratio in ratios)
    assert shortcut.error_against_correct > 0.4


def test_shortcut_deviation_has_a_counterexample_where_it_fails(shortcut):
    failure = shortcut.failures[0]
    point = failure.counterexample
    assert set(point) == {"p_a", "p_b", "rho", "alpha", "power"}
    assert failure.value == pytest.approx(outside.shortcut_n(**point), rel=1e-12)  # the same call, reported
    assert abs(failure.value - failure.expected) > 0.005 * failure.expected


@pytest.mark.parametrize(
    ("function", "convention"),
    [(outside.unpaired_per_arm_n, "unpaired-wald"), (outside.pooled_per_arm_n, "two-proportion-z")],
)
def test_unpaired_per_arm_size_is_found_and_does_not_conform(function, convention):
    result = check_calculator(function, **FAST)
    assert result.convention == convention and not result.conforms
    assert "deviation" in [failure.kind for failure in result.failures]
    # Ignoring a positive rho overstates N*: by 1.85x at rho = 0.65 on the random points (measured); at least 1.5x.
    assert result.error_against_correct > 0.5


def test_total_of_two_groups_is_found():
    result = check_calculator(outside.total_of_two_groups_n, **FAST)
    assert result.convention == "unpaired-wald-total" and not result.conforms
    # twice a ceiling is within two items of twice the unrounded per-arm size, everywhere
    assert result.candidate_errors["unpaired-wald-total"] == 0.0


def test_claimed_convention_keeps_the_tool_honest_and_the_user_informed():
    result = check_calculator(outside.unpaired_per_arm_n, claims="unpaired-wald", **FAST)
    assert result.conforms and result.conforms_to_claim and result.reference == "unpaired-wald"
    assert result.error_against_claim == 0.0  # a ceiling of the same formula: within one item everywhere
    assert result.error_against_correct > 0.5  # what a paired user needs is kept apart


def test_one_tailed_z_is_the_one_sided_convention_with_wrong_tails():
    result = check_calculator(outside.one_tailed_paired_n, **FAST)
    assert result.convention == "paired-one-sided" and not result.conforms
    kinds = [failure.kind for failure in result.failures]
    assert "wrong-tails" in kinds and "deviation" in kinds
    # z_{0.95} replaces z_{0.975}: K falls from 7.85 to 6.18 at alpha 0.05, power 0.8: 21% below N*.
    assert 0.15 < result.error_against_correct < 0.35


def test_renamed_signature_through_arguments():
    names = {"p_a": "first", "p_b": "second", "rho": "correlation", "alpha": "level", "power": "target"}
    result = assert_conforms(outside.renamed_paired_n, arguments=names, **FAST)
    assert result.convention == "paired"


def test_constants_and_left_out_arguments():
    def with_ratio(p_a, p_b, rho, alpha, power, ratio):
        return outside.paired_n(p_a, p_b, rho, alpha, power) * ratio

    assert check_calculator(with_ratio, arguments={"constants": {"ratio": 1}}, **FAST).conforms

    def no_rho(p_a, p_b, alpha, power):
        return outside.unpaired_per_arm_n(p_a, p_b, 0.0, alpha, power)

    assert check_calculator(no_rho, arguments={"rho": None}, **FAST).convention == "unpaired-wald"


def test_unknown_argument_name_is_refused_naming_the_allowed_ones():
    with pytest.raises(ArgumentError, match=r"'delta'.*p_a, p_b, rho, alpha, power"):
        check_calculator(outside.paired_n, arguments={"delta": "d"})


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("quantity", "n"),
        ("claims", "arcsine"),
        ("tolerance", -1.0),
        ("max_examples", 0),
        ("grid", "huge"),
        ("seed", -1),
    ],
)
def test_bad_options_are_argument_errors(option, value):
    options = {"quantity": "required_n", option: value}
    with pytest.raises(ArgumentError, match=option):
        check_calculator(outside.paired_n, **options)


def test_same_seed_same_result_and_argument_order_is_irrelevant():
    def reordered(power, alpha, rho, p_b, p_a):
        return outside.paired_n(p_a, p_b, rho, alpha, power)

    first = check_calculator(outside.one_tailed_paired_n, seed=3, **FAST)
    assert check_calculator(outside.one_tailed_paired_n, seed=3, **FAST) == first
    plain = check_calculator(outside.paired_n, seed=3, **FAST)
    moved = check_calculator(reordered, seed=3, **FAST)
    assert moved.deviations == plain.deviations and moved.candidate_errors == plain.candidate_errors
    other = check_calculator(outside.paired_n, seed=4, **FAST)
    assert other.convention == "paired"  # another seed: other random points, the same verdict


def test_exceptions_and_non_numbers_are_failures():
    def fragile(p_a, p_b, rho, alpha, power):
        if rho < 0:
            raise ValueError("negative rho not supported")
        return "many" if p_a > 0.85 else outside.paired_n(p_a, p_b, rho, alpha, power)

    result = check_calculator(fragile, **FAST)
    by_kind = {failure.kind: failure for failure in result.failures}
    assert by_kind["exception"].counterexample["rho"] < 0 and "negative rho" in by_kind["exception"].message
    assert by_kind["not-a-number"].counterexample["p_a"] > 0.85 and by_kind["not-a-number"].value is None
    assert not result.conforms and result.convention == "paired"  # judged on the points where it answered


def test_non_monotone_in_power_is_found():
    def backwards(p_a, p_b, rho, alpha, power):
        return outside.paired_n(p_a, p_b, rho, alpha, 1.75 - power)  # larger power, smaller n

    result = check_calculator(backwards, **FAST)
    monotone = [failure for failure in result.failures if failure.kind == "non-monotone"]
    assert any("power" in failure.message for failure in monotone)


def test_timeout_is_a_failure_and_keyboard_interrupt_propagates():
    import time

    def slow(p_a, p_b, rho, alpha, power):
        if p_a > 0.8:
            time.sleep(5)
        return outside.paired_n(p_a, p_b, rho, alpha, power)

    started = time.monotonic()
    result = check_calculator(slow, grid="small", max_examples=5, timeout=0.05)
    assert "timeout" in [failure.kind for failure in result.failures]
    assert time.monotonic() - started < 4  # each slow call is cut at 0.05 s, not left to sleep 5 s

    def interrupted(p_a, p_b, rho, alpha, power):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check_calculator(interrupted, **FAST)


def test_assert_conforms_message_lists_failures_with_counterexamples():
    with pytest.raises(AssertionError) as raised:
        assert_conforms(outside.one_tailed_paired_n, **FAST)
    message = str(raised.value)
    assert "paired-one-sided" in message and "- wrong-tails:" in message and "- deviation:" in message
    assert "p_a = " in message


def test_nothing_is_printed_and_the_table_is_declared_once(capsys):
    check_calculator(outside.one_tailed_paired_n, **FAST)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""  # hypothesis runs quiet; the calculator's warnings are recorded
    required = QUANTITIES["required_n"]
    assert required.arguments == ("p_a", "p_b", "rho", "alpha", "power") and required.reference == "paired"
    assert {"connor", "shortcut", "paired-one-sided", "unpaired-wald-total"} <= set(required.conventions)
    assert required.costly == ("mcnemar-exact",)
    assert QUANTITIES["pvalue"].conventions[0] == "exact" and QUANTITIES["power_paired_t"].upper == 1.0
