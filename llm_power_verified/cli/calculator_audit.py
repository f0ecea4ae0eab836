"""``audit-calculator --python/--command``: check a calculator function and write its conformance report.

The audit leaves nothing behind: the ``--python`` worker's process group is killed when it ends (by an error or
Ctrl-C too), hypothesis keeps its files (``.hypothesis/``) in a temporary folder removed at the end, and ``--out``
is made absolute and checked against the inputs (the ``--python`` module's file included) before any call.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.calculator_command import CommandCalculator
from llm_power_verified.cli.calculator_maps import argument_map
from llm_power_verified.cli.calculator_sources import COMMAND_TIMEOUT, PYTHON_TIMEOUT, load_function, module_files
from llm_power_verified.cli.errors import CommandError

__all__ = ["audit_function"]

#: The command's own wait outlasts the check's time limit by this much, so that the check's limit (a "timeout"
#: failure) is the one that ends a slow call; the wait only backs it up.
_BACKSTOP = 1.0


def _check_options(arguments) -> None:
    if arguments.python is not None and arguments.command_template is not None:
        raise CommandError("give --python or --command, not both")
    given = [
        flag
        for flag, value in (
            ("--p-a", arguments.p_a),
            ("--p-b", arguments.p_b),
            ("--rho", arguments.rho),
            ("--claimed-n", arguments.claimed_n),
            ("--tool", arguments.tool),
            ("--tool-output", arguments.tool_output),
        )
        if value is not None
    ]
    if given:
        raise CommandError(
            f"{given[0]} audits one claimed number; a calculator audit (--python/--command) chooses its own points: "
            f"leave {given[0]} out"
        )


@contextlib.contextmanager
def _hypothesis_home() -> Iterator[None]:
    """Point hypothesis's home folder at a temporary one for the audit (else it writes .hypothesis/ here)."""
    # Lazy: hypothesis is loaded only by a calculator audit; its home is set before its first use of the folder.
    from hypothesis import configuration

    # The module keeps the home in a private global (set_hypothesis_home_dir has no getter): restored afterwards,
    # so that a program calling the audit in-process keeps its own setting.
    previous = vars(configuration).get("__hypothesis_home_directory")
    folder = tempfile.mkdtemp(prefix="llm-power-verified-hypothesis-")
    configuration.set_hypothesis_home_dir(folder)
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(previous)
        shutil.rmtree(folder, ignore_errors=True)


def _inputs(arguments) -> list[str]:
    """The files the calculator is read from, which --out must not overwrite."""
    if arguments.python is None:
        return []
    return [found for found in module_files(arguments.python) if Path(found).exists()]


@docfill("arguments")
def audit_function(arguments) -> str | int | tuple[str, int]:
    """Check the calculator ``--python`` or ``--command`` names, and give its report.

    Parameters
    ----------
    %(arguments)s

    Returns
    -------
    str or int or tuple of (str, int)
        The report (status 0), or with ``--strict`` and a calculator that does not conform, the report and status 1;
        with ``--out``, "wrote PATH" and the summary (or the status alone when PATH is standard output).
    """
    _check_options(arguments)
    # Lazy: the testing layer loads hypothesis and mpmath, which the rest of the command line does not need.
    from llm_power_verified.io import check_outputs
    from llm_power_verified.testing.quantities import QUANTITIES

    quantity = QUANTITIES[arguments.quantity.replace("-", "_")]
    if arguments.claims is not None and arguments.claims not in quantity.conventions:
        raise CommandError(
            f"--claims {arguments.claims!r} is not a convention of {arguments.quantity}; allowed: "
            + ", ".join(quantity.conventions)
        )
    target = None if arguments.out is None else os.path.abspath(arguments.out)
    check_outputs({"--out": target}, _inputs(arguments))
    mapping = argument_map(
        arguments.argument_map, quantity.arguments, arguments.quantity, command=bool(arguments.command_template)
    )
    if arguments.python is not None:
        timeout = arguments.timeout or PYTHON_TIMEOUT
        function, source = load_function(arguments.python, timeout + _BACKSTOP), f"--python {arguments.python}"
        passed = {**mapping.renames, **dict.fromkeys(mapping.dropped), "constants": mapping.constants}
    else:
        timeout = arguments.timeout or COMMAND_TIMEOUT
        function = CommandCalculator(arguments.command_template, quantity.arguments, mapping, timeout + _BACKSTOP)
        source, passed = f"--command {arguments.command_template}", None
    try:
        with _hypothesis_home():
            text, result = _check(arguments, quantity.name, function, passed, timeout, source)
    finally:
        if arguments.python is not None:
            function.close()
    status = 1 if arguments.strict and not result.conforms else 0
    if target is None:
        return text, status
    from llm_power_verified.cli.streams import wrote
    from llm_power_verified.io.output import write_text

    write_text(target, text if text.endswith("\n") else text + "\n")
    return wrote(arguments.out, status, [result.summary])


def _check(arguments, quantity: str, function, passed, timeout: float, source: str):
    """The report's text and the check's result."""
    # Lazy: the report and the testing layer load hypothesis, mpmath and matplotlib, which --help does not need.
    from llm_power_verified.report.conformance import render_conformance
    from llm_power_verified.testing.conformance import check_calculator

    result = check_calculator(
        function,
        quantity,
        arguments=passed,
        claims=arguments.claims,
        tolerance=arguments.tolerance,
        seed=arguments.seed,
        max_examples=arguments.max_examples,
        grid=arguments.grid,
        timeout=timeout,
        name=function.__name__,
    )
    output = "json" if arguments.json else arguments.format
    return render_conformance(result, output, source=source), result
