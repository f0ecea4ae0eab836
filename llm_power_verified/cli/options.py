"""The command line's parser class and the help texts several commands share.

:class:`Parser` turns argparse's errors into one line (:class:`~llm_power_verified.cli.errors.CommandError`) and,
through :class:`HelpFormatter`, shows every option's default in its help.  The option groups are in
:mod:`~llm_power_verified.cli.parents`, the value types in :mod:`~llm_power_verified.cli.value_types`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.streams import stdout_failed

__all__ = ["EXIT_CODES", "EXIT_CODES_NO_GATE", "INPUT_RULES", "PROGRAM", "SCORE_KIND_HELP", "HelpFormatter", "Parser"]

#: The program's name, in usage lines and error messages.
PROGRAM = "llm-power-verified"


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and every option's default in its help.

    A refusal raises :class:`~llm_power_verified.cli.errors.CommandError`, which ``main`` prints in one line.

    Parameters
    ----------
    *args, **kwargs
        As ``argparse.ArgumentParser`` takes them; ``formatter_class`` defaults to :class:`HelpFormatter`.
    """

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        """Refuse the command line in one line (argparse's hook, which would print the usage and exit).

        Parameters
        ----------
        message : str
            argparse's message, naming the option.

        Raises
        ------
        CommandError
            Always, with ``message``.
        """
        raise CommandError(message)

    def _print_message(self, message: str, file=None) -> None:  # argparse hook: its own version drops a failed write
        if not message:
            return
        stream = file or sys.stderr
        if stream is not sys.stdout:
            with contextlib.suppress(AttributeError, OSError):
                stream.write(message)
            return
        try:
            stream.write(message)
            stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise stdout_failed("the help (or version) text", error) from None


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's line breaks and appends every option's default to its help.

    argparse makes it with the program's name; the other parameters are argparse's.

    Parameters
    ----------
    prog : str
        The program's name, in the usage line.
    indent_increment : int, default 2
        Spaces each nested section is indented by.
    max_help_position : int, default 24
        The column where an option's help starts, when its name leaves room.
    width : int, optional
        The text width (default: the terminal's, less 2).
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


#: The help of --scores, for every command that reads per-item scores.
SCORE_KIND_HELP = (
    "score kind: binary (every score 0 or 1), graded (any score in [0, 1]), or auto (default: decided from the "
    "whole matrix: graded when more than max(2, 5%% of items) scores are neither 0 nor 1; otherwise binary, and "
    "the first such stray value is refused naming its cell; --scores graded accepts it)"
)

_EXIT_REST = """2 an input or usage error
(one line on stderr); 141 the reader of the output went away (| head), as for any command ended by SIGPIPE;
130 interrupted (Ctrl-C, SIGINT; one line on stderr, a file being written is removed)."""
#: The exit status of a command with a --fail-on gate.
EXIT_CODES = "exit status: 0 done; 1 the --fail-on gate failed (the report is still printed); " + _EXIT_REST
#: The exit status of a command without a gate.
EXIT_CODES_NO_GATE = "exit status: 0 done; " + _EXIT_REST

#: The rules of the inputs and outputs, at the end of the help of the commands that read per-item results.
INPUT_RULES = """\
input rules (documentation: guide/inputs, "Input formats and rules"):
  the reader is told from the inputs (folders by the files only each harness writes, .jsonl logs by
  their first line, Parquet by its columns); an input two readers could claim is refused naming
  --input-format; items are aligned by id (item column, lm-eval (task, doc_id) or doc_hash with
  --align-on hash, Inspect sample id, HELM instance_id, lighteval doc id or content hash, OpenAI evals
  sample_id, the declared --item-field), never by position,
  except in plain score files, wide tables and JSON Lines without an id column; UTF-8 (a BOM is fine;
  LF, CRLF and CR-only line ends all read); a blank line is skipped in a table with an id column and
  refused where rows align by position; a wrong field count, a duplicate model/item/(item, model) row
  or a repeated JSON key is an error naming the line; scores are finite numbers in [0, 1] in ASCII
  digits with optional sign, point and exponent (no underscores, hex, other scripts' digits or
  TRUE/FALSE); an empty cell, NA, NaN or null is missing (error unless --on-missing intersect);
  --scores auto is decided from the whole matrix: graded when more than max(2, 5% of items) scores
  are neither 0 nor 1, otherwise the first such value is refused naming its cell (--scores graded
  accepts it); a cluster label that is empty or NA, nan, null, None, n/a (any case) is missing, an
  error unless --missing-cluster drop|own; a model constant on every item is kept (rho undefined for
  its pairs). Damaged harness files (lm-eval lines, Inspect members with a bad CRC, malformed or over
  128 MiB, HELM entries, lighteval rows, OpenAI evals events, records) are refused by name; a gzip input
  may inflate to at most 32 MiB.
outputs: --out and --plot are checked before any work and made only after the input is read; a file is
  written atomically (a symlink's target is written; a read-only file, an input, another output and the
  shipped data are refused); /dev/stdout, /dev/fd/N, a FIFO or a device is written directly (appended to
  under >>); names' control and bidirectional characters are shown as escapes in text reports."""
