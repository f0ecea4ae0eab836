"""A bad command-line argument is refused in one line naming the argument, its value and what is allowed."""

from __future__ import annotations

import pytest

from llm_power_verified.cli import main


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        (
            ["design", "--p-a", "nan", "--p-b", "0.5", "--rho", "0"],
            "argument --p-a: must be a finite number in (0, 1); got nan",
        ),
        (
            ["design", "--p-a", "inf", "--p-b", "0.5", "--rho", "0"],
            "argument --p-a: must be a finite number in (0, 1); got inf",
        ),
        (
            ["design", "--p-a", "0.6", "--p-b", "0.5", "--rho", "1e400"],
            "argument --rho: must be a finite number in [-1, 1]; got inf",
        ),
        (
            ["design", "--b", "1" + "0" * 400, "--c", "1", "--n", "5"],
            "argument --b: must be a whole number in [0, 9,007,199,254,740,992]",
        ),
        (["design", "--b", "-1", "--c", "1", "--n", "5"], "argument --b: must be a whole number in [0,"),
        (
            ["design", "--b", "1.5", "--c", "1", "--n", "5"],
            "argument --b: must be a whole number in [0, 9,007,199,254,740,992]; got '1.5'",
        ),
        (["design", "--b", "10", "--c", "10", "--n", "5"], "b + c must not exceed n"),
        (
            ["design", "--p-a", "0.6", "--p-b", "0.5", "--rho", "0", "--alpha", "0"],
            "argument --alpha: must be a finite number in [1e-100, 1); got 0",
        ),
        (
            ["test", "--b", "3", "--c", "2", "--n", "10", "--n-resamples", "100000000000"],
            "argument --n-resamples: must be a whole number in [100, 1,000,000]",
        ),
        (["test", "--b", "3", "--c", "2", "--n", "1"], "exceed --n 1"),
        (["test", "--b", "3", "--c", "2", "--n", "10", "--confidence", "1"], "argument --confidence"),
        (
            ["monitor", "a", "b", "--checkpoints", "0"],
            "argument --checkpoints: must be a whole number in [1, 1,000,000]; got 0",
        ),
        (
            ["audit", "--n-resamples", "-5"],
            "argument --n-resamples: must be 0 (none) or a whole number in [100, 100,000]",
        ),
        (["audit", "--seed", "-1"], "argument --seed"),
        (["crosscheck", "--p-a", "0.6", "--p-b", "0.6"], "--p-a and --p-b are both 0.6"),
        (
            ["audit-calculator", "--p-a", "0.6", "--p-b", "0.5", "--rho", "0.2", "--claimed-n", "-3"],
            "argument --claimed-n: must be a finite number in (0, inf)",
        ),
    ],
)
def test_bad_arguments_are_refused_in_one_line(capsys, arguments, fragment):
    assert main(arguments) == 2
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1 and fragment in message, message
