"""check_calculator against calculators that misbehave in hostile ways: each is reported, none ends the run.

An attacker's list: a calculator raising SystemExit or GeneratorExit, an exception whose message cannot be read, a
value whose repr or float conversion raises, a whole number beyond the largest double, Fraction and Decimal values;
argument maps that pass two of our arguments as one keyword, or a constant over a varied argument; and options out of
their range.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from llm_power_verified.errors import ArgumentError
from llm_power_verified.testing import check_calculator


class _UnreadableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message")


class _UnprintableValue:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def _raise(error: BaseException):
    raise error


def _p_function(misbehave):
    """A correct exact p at small totals (b + c <= 3), and ``misbehave()`` above."""

    def p_value(b, c):
        if b + c > 3:
            return misbehave()
        return {0: 1.0, 1: 1.0, 2: 0.5 if b != c else 1.0, 3: 0.25 if min(b, c) == 0 else 1.0}[b + c]

    return p_value


@pytest.mark.parametrize(
    ("misbehave", "kind", "words"),
    [
        (lambda: _raise(SystemExit(0)), "exception", "SystemExit"),
        (lambda: _raise(GeneratorExit()), "exception", "GeneratorExit"),
        (lambda: _raise(_UnreadableError()), "exception", "its message could not be read"),
        (_UnprintableValue, "not-a-number", "whose repr raised"),
        (lambda: 10**400, "infinite", "beyond the largest double"),
    ],
)
def test_a_hostile_calculator_is_reported_and_the_run_goes_on(misbehave, kind, words):
    result = check_calculator(_p_function(misbehave), "pvalue", max_examples=3, grid="small")
    assert not result.conforms
    messages = " ".join(failure.message for failure in result.failures)
    assert words in messages, messages
    assert result.calls > 3


@pytest.mark.parametrize("number", [Fraction(1, 1), Decimal(1)])
def test_fraction_and_decimal_values_are_read_as_numbers(number):
    # p = 1 at every point is wrong (not a failure of kind "not-a-number"): the values were read.
    result = check_calculator(lambda b, c: number, "pvalue", max_examples=3, grid="small")
    assert {failure.kind for failure in result.failures}.isdisjoint({"not-a-number"})
    assert all(deviation.value == 1.0 for deviation in result.deviations)


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"p_a": "p_b"}, "p_a and p_b as the same keyword 'p_b'"),
        ({"p_a": "x", "p_b": "x"}, "as the same keyword 'x'"),
        ({"constants": {"rho": 0.5}}, "sets 'rho', which is already passed"),
    ],
)
def test_colliding_argument_maps_are_refused(arguments, words):
    with pytest.raises(ArgumentError, match=words):
        check_calculator(lambda **keywords: 1.0, arguments=arguments, max_examples=3)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"tolerance": 1e300}, "tolerance must be a relative error in \\(0, 1\\]"),
        ({"max_examples": 10**9}, "max_examples must be a whole number from 1 to 100,000"),
        ({"timeout": True}, "timeout must be a positive number of seconds"),
        ({"name": 5}, "name must be a string or None"),
    ],
)
def test_options_out_of_range_are_refused(options, words):
    with pytest.raises(ArgumentError, match=words):
        check_calculator(lambda **keywords: 1.0, **{"max_examples": 3, **options})
