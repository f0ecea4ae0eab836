"""Command line: ``llm-power-verified audit | design | test | plan | monitor | reproduce | crosscheck | audit-calculator | derivations``.

One module per command (``add_parser`` and ``run``); shared options are declared once in
:mod:`.options` and reused with argparse ``parents=``.  Errors print one line on stderr and exit
with status 2; there is never a traceback for a user error.  Only the project's own error types
are caught (:class:`~llm_power_verified.errors.LlmPowerError`: :class:`CommandError`, the
:class:`~llm_power_verified.errors.ArgumentError` of every argument check and the
:class:`~llm_power_verified.io.InputError` of every reader and writer); anything else is a bug
and shows as one.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.metadata import version

from llm_power_verified.cli import (
    audit,
    audit_calculator,
    crosscheck,
    derivations,
    design,
    monitor,
    paired_tests,
    plan,
    reproduce,
)
from llm_power_verified.cli.options import PROGRAM, Parser
from llm_power_verified.errors import LlmPowerError

__all__ = ["build_parser", "main"]

COMMANDS = {"audit": audit, "design": design, "test": paired_tests, "monitor": monitor, "reproduce": reproduce,
            "crosscheck": crosscheck, "audit-calculator": audit_calculator, "derivations": derivations,
            "plan": plan}


def build_parser() -> Parser:
    parser = Parser(prog=PROGRAM, description="Resolution diagnostics for paired LLM comparisons.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version('llm-power-verified')}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for module in (design, paired_tests, audit, plan, monitor, reproduce, crosscheck, audit_calculator, derivations):
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        arguments = parser.parse_args(argv)
        if arguments.command is None:
            parser.print_help()
            return 0
        result = COMMANDS[arguments.command].run(arguments)
        if isinstance(result, int):
            return result
        status = 0
        if isinstance(result, tuple):
            result, status = result
        print(result)
        return status
    except LlmPowerError as error:
        message = " ".join(str(error).split())
        print(f"{PROGRAM}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
