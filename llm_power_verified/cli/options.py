"""Shared pieces of the command line: the error type, the number types (one range check each), option groups
declared once and reused through argparse ``parents=``, and the text tables of the small commands."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import math
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType

from llm_power_verified.contract import MAX_COUNT, MAX_RESAMPLES
from llm_power_verified.errors import LlmPowerError
from llm_power_verified.io.errors import OutputError
from llm_power_verified.io.escaping import terminal_lines
from llm_power_verified.io.output import whole_writer
from llm_power_verified.io.output_paths import names_descriptor
from llm_power_verified.io.standard_output import write_stdout

__all__ = ["CommandError", "Interrupted", "ReaderLeft", "repository_module", "Parser", "alpha_power_options", "format_options", "format_value",
           "marginal_options", "print_note", "print_report", "render_rows", "standard_streams", "terminal_width", "write_report_chunks",
           "wrote"]

PROGRAM = "llm-power-verified"


class CommandError(LlmPowerError):
    """A user error the CLI reports in one line."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (:class:`CommandError`) and every option's default in its help."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # noqa: D401 - argparse hook
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
            raise _stdout_failed("the help (or version) text", error) from None




def number(*, integer: bool = False, **limits):
    """An argparse type: parse, then the one range check (finite, within limits) before any work."""

    def parse(text: str):
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {'a whole number' if integer else 'a number'}; got {text[:40]!r}") from None
        # Lazy: _validation imports numpy (0.1 s), which `--help` does not need.
        from llm_power_verified._validation import check_scalar

        try:
            return check_scalar("value", value, integer=integer, **limits)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error).removeprefix("value ")) from None

    return parse


PROBABILITY = number(low=0, high=1, low_open=True, high_open=True)
CORRELATION = number(low=-1, high=1)
COUNT = number(integer=True, low=0, high=MAX_COUNT)
SIZE = number(integer=True, low=1, high=MAX_COUNT)
POSITIVE = number(low=0, low_open=True)
SEED = number(integer=True, low=0, high=2**63 - 1)
#: Resample counts are bounded so that a typo cannot exhaust memory (a bootstrap of B resamples holds B x pairs values).
MAX_AUDIT_RESAMPLES = 100_000
RESAMPLES = number(integer=True, low=100, high=MAX_RESAMPLES)
AUDIT_RESAMPLES = number(integer=True, low=0, high=MAX_AUDIT_RESAMPLES)
CHECKPOINTS = number(integer=True, low=1, high=1_000_000)
POSITIVE_COUNT = number(integer=True, low=1, high=1024)
SCORE_KIND_HELP = ("score kind: binary (every score 0 or 1), graded (any score in [0, 1]), or auto (default: decided from the "
                   "whole matrix: graded when more than max(2, 5%% of items) scores are neither 0 nor 1; otherwise binary, and "
                   "the first such stray value is refused naming its cell; --scores graded accepts it)")


_EXIT_REST = """2 an input or usage error
(one line on stderr); 141 the reader of the output went away (| head), as for any command ended by SIGPIPE;
130 interrupted (Ctrl-C, SIGINT; one line on stderr, a file being written is removed)."""
#: The exit status of a command with a --fail-on gate, and of one without.
EXIT_CODES = "exit status: 0 done; 1 the --fail-on gate failed (the report is still printed); " + _EXIT_REST
EXIT_CODES_NO_GATE = "exit status: 0 done; " + _EXIT_REST

#: --width: a terminal report narrower than 60 columns cannot hold the pair table's names and verdicts.
WIDTH = number(integer=True, low=60, high=1000)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's line breaks and appends every option's default to its help."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


@contextlib.contextmanager
def progress_bar(*, quiet: bool) -> Iterator[Callable[[str], None]]:
    """A tqdm bar on stderr for the audit's stages, shown only after a second and only on a terminal (never with --quiet)."""
    # Lazy: tqdm costs 0.05 s at import, which `--help` does not need.
    from tqdm import tqdm

    bar = tqdm(total=None, unit=" step", delay=1.0, leave=False, file=sys.stderr, disable=quiet or not sys.stderr.isatty())
    try:
        def advance(message: str) -> None:
            bar.set_description_str(message, refresh=False)
            bar.update(1)

        yield advance
    finally:
        bar.close()


class ReaderLeft(CommandError):
    """The reader of standard output went away (``| head``): the command ends quietly with the shell's 128 + SIGPIPE."""

    status = 128 + getattr(signal, "SIGPIPE", 13)


class Interrupted(CommandError):
    """Ctrl-C (SIGINT) during a command: one line, no traceback, the shell's 128 + SIGINT; a file being written is
    removed by the atomic writer before this is raised."""

    status = 128 + signal.SIGINT


def _closed(number: int) -> bool:
    try:
        os.fstat(number)
    except OSError:
        return True
    return False


@contextlib.contextmanager
def standard_streams() -> Iterator[None]:
    """The standard streams of one command, from its start to its last flush.

    * a closed standard output is refused before any work (a file the run opens could take its descriptor);
      a closed standard input or error gets the null device, for the same reason;
    * standard output is written through :func:`~llm_power_verified.io.output.whole_writer`, which never drops
      the rest of a partial write, and prints a character its encoding cannot show as an escape (a replaced
      stream, a test's capture, is left as it is);
    * Ctrl-C (KeyboardInterrupt) becomes :class:`Interrupted` (status 130, one line, no traceback);
    * a broken pipe becomes :class:`ReaderLeft`, after standard output is pointed at the null device (the signal
      module's "Note on SIGPIPE"); what is still buffered is flushed at the end (``--help`` included), a failure
      there being one line.
    """
    for number, name in ((0, "stdin"), (2, "stderr")):
        if _closed(number):
            null = os.open(os.devnull, os.O_RDWR)
            if null != number:
                os.dup2(null, number)
                os.close(null)
            if getattr(sys, name) is None:
                setattr(sys, name, open(number, "w" if number else "r", closefd=False))
    if sys.stdout is None or _closed(1):
        raise CommandError("standard output is closed (>&-): the report has nowhere to go; nothing was done "
                           "(redirect it to a file or to /dev/null)")
    original = sys.stdout
    if original is sys.__stdout__:
        original.flush()
        sys.stdout = io.TextIOWrapper(whole_writer(original.fileno(), closefd=False), encoding=original.encoding,
                                      errors="backslashreplace", line_buffering=original.line_buffering)
    try:
        try:
            yield
        finally:  # also after SystemExit (--help, --version): their text is flushed, or its failure reported
            flush_stdout()
    except BrokenPipeError:
        detach_stdout()
        raise ReaderLeft("the reader of standard output went away") from None
    except KeyboardInterrupt:
        raise Interrupted("interrupted") from None
    finally:
        replaced, sys.stdout = sys.stdout, original
        if replaced is not original:
            try:
                replaced.flush()
            except (OSError, ValueError):  # reported already: the rest goes to the null device, not to a second message
                detach_stdout()
                with contextlib.suppress(OSError, ValueError):
                    replaced.flush()


def detach_stdout() -> None:
    """Point descriptor 1 at the null device after a failed write, so that Python's flush at exit adds no second message
    (the recipe of the signal module's "Note on SIGPIPE")."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def _stdout_failed(what: str, error: OSError) -> OutputError:
    detach_stdout()
    return OutputError(f"could not write {what} to standard output: {error.strerror or error}; "
                       "free the device or redirect standard output (> FILE), or use --out FILE where the command has it")


def print_report(text: str) -> None:
    """Print a command's text on standard output, controls and bidirectional marks escaped (:func:`terminal_lines`).

    A broken pipe propagates (the command line ends quietly); any other write error (a full device) is one line.
    """
    lines = text.count("\n") + 1
    try:
        sys.stdout.write(terminal_lines(text) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise _stdout_failed(f"the output ({lines:,} line{'s' if lines > 1 else ''})", error) from None


def write_report_chunks(chunks: Iterable[bytes]) -> None:
    """Write a machine format's byte chunks on standard output as they are (a broken pipe propagates; other errors: one line)."""
    try:
        write_stdout(chunks, remedy="use --out FILE where the command has it")
    except OutputError:
        detach_stdout()
        raise


def flush_stdout() -> None:
    """Flush standard output at the end of a command (what is still buffered is written now, its error reported in one line)."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise _stdout_failed("the end of the output", error) from None


def terminal_width() -> int:
    """The width of a terminal report: the terminal's when standard output is one, else 100."""
    import shutil

    return shutil.get_terminal_size().columns if sys.stdout is not None and sys.stdout.isatty() else 100


def print_note(message: str) -> None:
    """A note or gate message on standard error (escaped); a standard error that cannot be written loses the note, nothing else."""
    with contextlib.suppress(AttributeError, OSError):
        print(terminal_lines(message), file=sys.stderr)


def writes_to_stdout(path: str | None) -> bool:
    """Whether ``path`` names this process's standard output (so a "wrote PATH" line would land inside the output)."""
    number = None if path is None else names_descriptor(path)
    if number is None:
        return False
    try:
        return number == 1 or os.path.samestat(os.fstat(number), os.fstat(1))
    except OSError:
        return False


def wrote(path: str, status: int, lines: Iterable[str] = (), detail: str = "") -> int | tuple[str, int]:
    """The result of a command that wrote its report to ``path``: "wrote PATH" + ``detail`` (and ``lines``) with the exit
    status, or only the status when ``path`` is standard output itself (the lines would land inside the report)."""
    if writes_to_stdout(path):
        return status
    return "\n".join([f"wrote {path}{detail}", *lines]), status


INPUT_RULES = """\
input rules (documentation: guide/inputs, "Input formats and rules"):
  items are aligned by id (item column, lm-eval (task, doc_id), Inspect sample id), never by position,
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
  its pairs). Damaged lm-eval lines and Inspect members (bad CRC, malformed, over 128 MiB) are refused
  by name; a gzip input may inflate to at most 32 MiB.
outputs: --out and --plot are checked before any work and made only after the input is read; a file is
  written atomically (a symlink's target is written; a read-only file, an input, another output and the
  shipped data are refused); /dev/stdout, /dev/fd/N, a FIFO or a device is written directly (appended to
  under >>); names' control and bidirectional characters are shown as escapes in text reports."""


def alpha_power_options(*, power: bool = True) -> argparse.ArgumentParser:
    """--alpha (and --power) with their checks, help and defaults, for ``parents=``."""
    group = argparse.ArgumentParser(add_help=False)
    group.add_argument("--alpha", type=PROBABILITY, default=0.05, help="significance level (default 0.05)")
    if power:
        group.add_argument("--power", type=PROBABILITY, default=0.80, help="target power (default 0.8)")
    return group


def marginal_options(defaults: tuple[float, float, float] | None = None, *, required: bool = False) -> argparse.ArgumentParser:
    """--p-a --p-b --rho, for ``parents=``; with ``defaults`` they default to those values (and say so); or ``required``."""
    group = argparse.ArgumentParser(add_help=False)
    p_a, p_b, rho = defaults or (None, None, None)
    suffix = (lambda value: f" (default {value:g})") if defaults else (lambda value: "")
    group.add_argument("--p-a", type=PROBABILITY, default=p_a, required=required, help="accuracy of model A, in (0, 1)" + suffix(p_a or 0))
    group.add_argument("--p-b", type=PROBABILITY, default=p_b, required=required, help="accuracy of model B, in (0, 1)" + suffix(p_b or 0))
    group.add_argument("--rho", type=CORRELATION, default=rho, required=required,
                       help="correlation of the per-item 0/1 scores, in [-1, 1]" + suffix(rho or 0))
    return group


def format_options(choices: tuple[str, ...], default: str) -> argparse.ArgumentParser:
    """--format CHOICE and --json (same as --format json), for ``parents=``."""
    group = argparse.ArgumentParser(add_help=False)
    group.add_argument("--format", choices=choices, default=default, help=f"output format (default {default})")
    group.add_argument("--json", action="store_true", help="same as --format json")
    return group


def format_value(value) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        if math.isinf(value):
            return "inf"
        return f"{value:.7g}"
    return str(value)


def render_rows(rows: list[dict], columns: list[tuple[str, str]], output: str) -> str:
    """A small table of dict rows (``columns`` = (key, title)), plain or Markdown, through the report's one renderer."""
    def cell(value):
        if value is None:
            return "-"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float):
            return format_value(value)
        return str(value)

    # Lazy: the renderer's escaping imports numpy (0.1 s) through the results module, which `--help` does not need.
    from llm_power_verified.report.table import grid

    return grid([title for _, title in columns], [[cell(row.get(key)) for key, _ in columns] for row in rows], output == "markdown")


def repository_module(name: str) -> ModuleType:
    """A module of the repository's ``crosscheck/`` or ``derivations/`` (they are not installed with the package).

    Found on the path as it is (running from the checkout), or in the checkout the installed package
    lives in (an editable install); otherwise the command says that it needs the repository.
    """
    top = name.split(".")[0]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != top:
            raise CommandError(f"{name} could not import {error.name!r}: {error}") from None
    checkout = Path(__file__).resolve().parents[2]
    if not (checkout / top / "__init__.py").is_file():
        raise CommandError(f"this command needs the repository checkout: {top}/ is not installed with the package "
                           f"(clone the repository and run it there, or pip install -e the checkout)")
    sys.path.insert(0, str(checkout))
    return importlib.import_module(name)
