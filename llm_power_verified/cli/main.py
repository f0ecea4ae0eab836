"""Command line: the ``llm-power-verified`` program and its commands.

The commands: ``llm-power-verified COMMAND``, COMMAND one of ``audit``, ``audit-accuracies``, ``compare``, ``design``,
``test``, ``plan``, ``monitor``, ``reproduce``, ``crosscheck``, ``audit-calculator``, ``derivations``.

One module per command (``add_parser`` and ``run``); shared options are declared once in
:mod:`.parents` and reused with argparse ``parents=``.  Errors print one line on stderr and exit
with status 2; there is never a traceback for a user error.  Only the project's own error types
are caught (:class:`~llm_power_verified.errors.LlmPowerError`: :class:`CommandError`, the
:class:`~llm_power_verified.errors.ArgumentError` of every argument check and the
:class:`~llm_power_verified.io.InputError` of every reader and writer); anything else is a bug
and shows as one.

Standard streams (:func:`~llm_power_verified.cli.streams.standard_streams`): a closed standard
output is refused before any work; a reader that goes away (``| head``) ends the command quietly
with the shell's status for SIGPIPE, 141; Ctrl-C ends it with one line, ``interrupted``, and the
shell's status for SIGINT, 130 (a file being written is removed first); any other failed write to standard output (``>
/dev/full``) is one line naming what could not be written.  Text for the terminal passes through
:func:`~llm_power_verified.io.escaping.terminal_lines`, so that no control or bidirectional
character of an input reaches it raw.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.metadata import version

from llm_power_verified.cli import (
    audit,
    audit_accuracies,
    audit_calculator,
    compare,
    contract,
    crosscheck,
    derivations,
    design,
    monitor,
    paired_tests,
    plan,
    reproduce,
)
from llm_power_verified.cli.errors import CommandError, Interrupted, ReaderLeft
from llm_power_verified.cli.options import PROGRAM, Parser
from llm_power_verified.cli.streams import one_blas_thread_under_a_limit, print_note, print_report, standard_streams
from llm_power_verified.errors import LlmPowerError

__all__ = ["build_parser", "main"]

COMMANDS = {
    "audit": audit,
    "audit-accuracies": audit_accuracies,
    "compare": compare,
    "design": design,
    "test": paired_tests,
    "monitor": monitor,
    "reproduce": reproduce,
    "crosscheck": crosscheck,
    "audit-calculator": audit_calculator,
    "derivations": derivations,
    "contract": contract,
    "plan": plan,
}


def build_parser() -> Parser:
    """The ``llm-power-verified`` parser, with every command's subparser.

    Returns
    -------
    Parser
        The parser (``--help`` prints what the CLI reference shows).
    """
    parser = Parser(prog=PROGRAM, description="Resolution diagnostics for paired LLM comparisons.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version('llm-power-verified')}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for module in (
        design,
        paired_tests,
        audit,
        audit_accuracies,
        compare,
        plan,
        monitor,
        reproduce,
        crosscheck,
        audit_calculator,
        derivations,
        contract,
    ):
        module.add_parser(commands)
    return parser


#: Where the options of a command line written for the first drafts of this release went (a hint after argparse's
#: error).
_MOVED = {
    ("audit", "--summary"): "accuracies only: audit-accuracies FILE",
    ("plan", "--summary"): "accuracies only: plan accuracies FILE",
    ("plan", "--from"): "per-item results: plan items INPUT ...",
    ("plan", "--report"): "a saved report: plan report JSON",
    ("plan", "--p-a"): "one gap: plan gap --p-a P --p-b P --rho R",
}


def _moved(argv: Sequence[str]) -> str | None:
    """The hint for an option that is now a command of its own, when ``argv`` gives one where it used to be."""
    if argv == ["plan"]:
        return "plan gap | items | accuracies | report | repeats"
    for (command, option), hint in _MOVED.items():
        if argv[:1] == [command] and any(
            part == option or part.startswith(option + "=") for part in argv[1 : 2 if command == "plan" else None]
        ):
            return hint
    return None


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
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
    print_report(result)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv``: print the report, or one line "llm-power-verified: error: ..." on a refusal.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0; 1 when a gate fails (or ``check`` finds a stale file); 2 for a refused input or argument;
        3 when ``compare`` is inconclusive; 128 + SIGPIPE when the reader of standard output went away; 128 + SIGINT
        when interrupted.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    one_blas_thread_under_a_limit()
    try:
        with standard_streams():
            return _run(argv)
    except LlmPowerError as error:
        if isinstance(error, ReaderLeft):  # | head has what it wanted: end quietly, as the shell expects
            return error.status
        if isinstance(error, Interrupted):  # Ctrl-C: one line, the shell's 128 + SIGINT
            print_note(f"{PROGRAM}: interrupted")
            return error.status
        # A moved option is always refused by argparse (a CommandError), never by a run: the hint names where it went.
        hint = _moved(argv) if isinstance(error, CommandError) else None
        print_note(f"{PROGRAM}: error: {' '.join(str(error).split())}" + (f" ({hint})" if hint else ""))
        return 2


if __name__ == "__main__":
    sys.exit(main())
