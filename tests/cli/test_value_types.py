"""The command line's value types (cli/value_types.py): an integer option takes a whole number however it is
written (1000, 1e3, 1000.0), as the readers' n column does, and refuses anything else in one line naming the
option, the value as typed and the allowed range; an empty --out or --plot is refused by name."""

from __future__ import annotations

import argparse

import pytest

from llm_power_verified.cli import value_types
from llm_power_verified.cli.main import build_parser, main
from llm_power_verified.cli.path_types import output_path
from llm_power_verified.cli.value_types import SIZE, number

#: Every integer type of the command line; 100 lies in each one's range.
INTEGER_TYPES = {
    name: getattr(value_types, name)
    for name in (
        "COUNT",
        "SIZE",
        "SEED",
        "RESAMPLES",
        "AUDIT_RESAMPLES",
        "CHECKPOINTS",
        "POSITIVE_COUNT",
        "WIDTH",
        "HORIZON",
    )
}


@pytest.mark.parametrize("text", ["1000", "1e3", "1E3", "+1e3", "1000.0", "1.000e3", " 1000 ", "10000e-1"])
def test_a_whole_number_is_read_however_it_is_written(text):
    value = number(integer=True, low=1, high=1000)(text)
    assert value == 1000 and type(value) is int


@pytest.mark.parametrize("name", sorted(INTEGER_TYPES))
def test_every_integer_type_takes_scientific_notation(name):
    parse = INTEGER_TYPES[name]
    assert [parse(text) for text in ("100", "1e2", "100.0")] == [100, 100, 100]


@pytest.mark.parametrize(
    "text, shown",
    [
        ("1.5", "'1.5'"),  # not a whole number
        ("1e400", "'1e400'"),  # beyond the float range: shown as typed, not as inf
        ("nan", "'nan'"),
        ("inf", "'inf'"),
        ("-inf", "'-inf'"),
        ("1e-3", "'1e-3'"),
        ("1000.0000000000000000001", "'1000.0000000000000000001'"),  # a float would round it to 1000
        ("1e4", "'1e4'"),  # whole, out of range: shown as typed
        ("1001", "1001"),  # out of range, written plainly
        ("0", "0"),
        ("abc", "'abc'"),
        ("0x10", "'0x10'"),
    ],
)
def test_anything_else_is_refused_with_the_range_and_the_value(text, shown):
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        number(integer=True, low=1, high=1000)(text)
    assert str(refused.value) == f"must be a whole number in [1, 1,000]; got {shown}"


def test_a_float_option_keeps_its_message():
    with pytest.raises(argparse.ArgumentTypeError, match=r"^must be a finite number in \(0, 1\); got inf$"):
        value_types.PROBABILITY("1e400")


def test_the_accuracies_n_option_takes_1e3():
    """The defect: audit-accuracies --n 1e3 was refused while the table's n column accepts 1e15."""
    assert build_parser().parse_args(["audit-accuracies", "table.csv", "--n", "1e3"]).n == 1000
    assert SIZE("1e15") == 10**15


def test_design_reads_scientific_counts_as_the_plain_ones(capsys):
    assert main(["design", "--b", "1e1", "--c", "2.0", "--n", "1e3"]) == 0
    scientific = capsys.readouterr().out
    assert main(["design", "--b", "10", "--c", "2", "--n", "1000"]) == 0
    assert scientific == capsys.readouterr().out and "n = 1000" in scientific


@pytest.mark.parametrize(
    "arguments, line",
    [
        (
            ["design", "--b", "1.5", "--c", "2", "--n", "100"],
            "argument --b: must be a whole number in [0, 9,007,199,254,740,992]; got '1.5'",
        ),
        (
            ["audit-accuracies", "table.csv", "--n", "1e400"],
            "argument --n: must be a whole number in [1, 9,007,199,254,740,992]; got '1e400'",
        ),
        (
            ["audit", "--seed", "nan"],
            "argument --seed: must be a whole number in [0, 9,223,372,036,854,775,807]; got 'nan'",
        ),
        (["audit", "--width", "inf"], "argument --width: must be a whole number in [60, 1,000]; got 'inf'"),
        (["audit", "--workers", "2e3"], "argument --workers: must be a whole number in [1, 1,024]; got '2e3'"),
        (
            ["audit", "--n-resamples", "1e6"],
            "argument --n-resamples: must be 0 (none) or a whole number in [100, 100,000] (fewer "
            "give intervals and percentiles from a handful of draws); got '1e6'",
        ),
        (
            ["audit", "--out", ""],
            "argument --out: must be a path (a file name, or a folder where the option takes one); got an empty value "
            "''",
        ),
        (
            ["audit", "--plot", ""],
            "argument --plot: must be a path (a file name, or a folder where the option takes one); got an empty "
            "value ''",
        ),
        (
            ["audit", "--out", "-"],
            "argument --out: must be a path; got '-', which is not a file name here (a report goes to standard output "
            "when --out is left out; /dev/stdout names it)",
        ),
        (
            ["audit", "--plot", "-"],
            "argument --plot: must be a path; got '-', which is not a file name here (a report goes to standard "
            "output when --out is left out; /dev/stdout names it)",
        ),
        (
            ["audit-accuracies", "table.csv", "--out", ""],
            "argument --out: must be a path (a file name, or a folder where the option takes one); got an empty value "
            "''",
        ),
    ],
)
def test_refusals_are_one_line_naming_the_option(arguments, line, capsys):
    assert main(arguments) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"llm-power-verified: error: {line}\n"


def test_output_path_passes_a_name_through():
    assert output_path("report.md") == "report.md"
    with pytest.raises(argparse.ArgumentTypeError, match="empty value"):
        output_path("")
