"""Command line: ``llm-power-verified audit | design | test | plan | monitor | reproduce | crosscheck | audit-calculator | derivations``.

One module per command (``add_parser`` and ``run``); shared options are declared once in
:mod:`.options` and reused with argparse ``parents=``.  Errors print one line on stderr and exit
with status 2; there is never a traceback for a user error.  Only the project's own error types
are caught (:class:`~llm_power_verified.errors.LlmPowerError`: :class:`CommandError`, the
:class:`~llm_power_verified.errors.ArgumentError` of every argument check and the
:class:`~llm_power_verified.io.InputError` of every reader and writer); anything else is a bug
and shows as one.

Standard streams: a closed standard output is refused before any work (a file the run opens
could otherwise take its descriptor); a closed standard input or error is pointed at the null
device for the same reason.  A reader that goes away (``| head``) ends the command quietly with
the shell's status for SIGPIPE, 141, after pointing standard output at the null device (the
signal module's "Note on SIGPIPE"); any other failed write to standard output (``> /dev/full``)
is one line naming what could not be written.  Text for the terminal passes through
:func:`~llm_power_verified.io.output.terminal_lines`, so that no control or bidirectional
character of an input reaches it raw.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
from collections.abc import Iterator, Sequence
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
from llm_power_verified.cli.options import PROGRAM, CommandError, Parser, detach_stdout, flush_stdout, print_note, print_report
from llm_power_verified.errors import LlmPowerError

__all__ = ["build_parser", "main"]

COMMANDS = {"audit": audit, "design": design, "test": paired_tests, "monitor": monitor, "reproduce": reproduce,
            "crosscheck": crosscheck, "audit-calculator": audit_calculator, "derivations": derivations,
            "plan": plan}
#: Exit status of a command whose reader went away: the shell's 128 + SIGPIPE.
BROKEN_PIPE_STATUS = 128 + getattr(signal, "SIGPIPE", 13)


def build_parser() -> Parser:
    parser = Parser(prog=PROGRAM, description="Resolution diagnostics for paired LLM comparisons.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version('llm-power-verified')}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for module in (design, paired_tests, audit, plan, monitor, reproduce, crosscheck, audit_calculator, derivations):
        module.add_parser(commands)
    return parser


def _closed(number: int) -> bool:
    try:
        os.fstat(number)
    except OSError:
        return True
    return False


def _guard_standard_streams() -> str | None:
    """Why the command cannot run (standard output closed), or None; a closed stdin or stderr gets the null device."""
    for number, name in ((0, "stdin"), (2, "stderr")):
        if _closed(number):
            null = os.open(os.devnull, os.O_RDWR)
            if null != number:
                os.dup2(null, number)
                os.close(null)
            if getattr(sys, name) is None:
                setattr(sys, name, open(number, "w" if number else "r", closefd=False))
    if sys.stdout is None or _closed(1):
        return ("standard output is closed (>&-): the report has nowhere to go; nothing was done "
                "(redirect it to a file or to /dev/null)")
    return None


@contextlib.contextmanager
def _whole_stdout() -> Iterator[None]:
    """Standard output, while the command runs, through a writer that never drops the rest of a partial write
    (:func:`~llm_power_verified.io.output.whole_writer`), and that prints a character the terminal's encoding cannot
    show as an escape instead of stopping; a replaced stream (a test's capture) is left as it is."""
    original = sys.stdout
    if original is not sys.__stdout__ or original is None:
        yield
        return
    from llm_power_verified.io.output import whole_writer

    original.flush()
    sys.stdout = io.TextIOWrapper(whole_writer(original.fileno(), closefd=False), encoding=original.encoding,
                                  errors="backslashreplace", line_buffering=original.line_buffering)
    try:
        yield
    finally:
        replaced, sys.stdout = sys.stdout, original
        try:
            replaced.flush()
        except (OSError, ValueError):  # reported already; what is left goes to the null device, not to a second message
            detach_stdout()
            with contextlib.suppress(OSError, ValueError):
                replaced.flush()


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        arguments = parser.parse_args(argv)
    except SystemExit:  # --help and --version print and stop here: their text is flushed (or its error reported) first
        flush_stdout()
        raise
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
    try:
        refusal = _guard_standard_streams()
        if refusal:
            raise CommandError(refusal)
        with _whole_stdout():
            status = _run(argv)
            flush_stdout()
        return status
    except BrokenPipeError:
        detach_stdout()
        return BROKEN_PIPE_STATUS
    except LlmPowerError as error:
        print_note(f"{PROGRAM}: error: {' '.join(str(error).split())}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
