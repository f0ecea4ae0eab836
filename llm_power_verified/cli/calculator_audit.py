"""``audit-calculator --python/--command``: check a calculator function and write its conformance report."""

from __future__ import annotations

from pathlib import Path

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.calculator_sources import (
    COMMAND_TIMEOUT,
    PYTHON_TIMEOUT,
    CommandCalculator,
    argument_map,
    load_function,
)
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
    from llm_power_verified.report.conformance import render_conformance
    from llm_power_verified.testing.conformance import check_calculator
    from llm_power_verified.testing.quantities import QUANTITIES

    quantity = QUANTITIES[arguments.quantity.replace("-", "_")]
    if arguments.claims is not None and arguments.claims not in quantity.conventions:
        raise CommandError(
            f"--claims {arguments.claims!r} is not a convention of {arguments.quantity}; allowed: "
            + ", ".join(quantity.conventions)
        )
    inputs = [arguments.python.rpartition(":")[0]] if arguments.python and ".py:" in arguments.python else []
    check_outputs({"--out": arguments.out}, [path for path in inputs if Path(path).exists()])
    mapping = argument_map(
        arguments.argument_map, quantity.arguments, arguments.quantity, command=bool(arguments.command_template)
    )
    if arguments.python is not None:
        timeout = arguments.timeout or PYTHON_TIMEOUT
        function, source = load_function(arguments.python), f"--python {arguments.python}"
        passed = {**mapping.renames, **dict.fromkeys(mapping.dropped), "constants": mapping.constants}
        name = getattr(function, "__name__", arguments.python)
    else:
        timeout = arguments.timeout or COMMAND_TIMEOUT
        function = CommandCalculator(arguments.command_template, quantity.arguments, mapping, timeout + _BACKSTOP)
        source, passed, name = f"--command {arguments.command_template}", None, function.words[0]
    result = check_calculator(
        function,
        quantity.name,
        arguments=passed,
        claims=arguments.claims,
        tolerance=arguments.tolerance,
        seed=arguments.seed,
        max_examples=arguments.max_examples,
        grid=arguments.grid,
        timeout=timeout,
        name=name,
    )
    output = "json" if arguments.json else arguments.format
    text = render_conformance(result, output, source=source)
    status = 1 if arguments.strict and not result.conforms else 0
    if arguments.out is None:
        return text, status
    from llm_power_verified.cli.streams import wrote
    from llm_power_verified.io.output import write_text

    write_text(arguments.out, text if text.endswith("\n") else text + "\n")
    return wrote(arguments.out, status, [result.summary])
