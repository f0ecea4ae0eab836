"""The standard streams of a command: the report on standard output, notes and the progress bar on standard error.

Every write to standard output goes through here: a broken pipe propagates (the command ends quietly, see
:class:`~llm_power_verified.cli.errors.ReaderLeft`), any other failed write is one line naming what could not be
written, and standard output is then pointed at the null device so that Python's flush at exit adds no second
message.  Nothing here imports numpy: ``--help`` pays only for argparse.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable, Iterable, Iterator

from llm_power_verified.cli.errors import CommandError, Interrupted, ReaderLeft
from llm_power_verified.io.errors import OutputError
from llm_power_verified.io.escaping import terminal_lines
from llm_power_verified.io.output import whole_writer
from llm_power_verified.io.output_paths import names_descriptor
from llm_power_verified.io.standard_output import write_stdout

__all__ = [
    "address_space_limit",
    "detach_stdout",
    "flush_stdout",
    "one_blas_thread_under_a_limit",
    "print_note",
    "print_report",
    "progress_bar",
    "standard_streams",
    "stdout_failed",
    "terminal_width",
    "write_report_chunks",
    "writes_to_stdout",
    "wrote",
]


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
    * Ctrl-C (KeyboardInterrupt) becomes :class:`~llm_power_verified.cli.errors.Interrupted` (status 130, one line,
      no traceback); running out of memory (MemoryError, pyarrow's ArrowMemoryError) a one-line CommandError;
    * a broken pipe becomes :class:`~llm_power_verified.cli.errors.ReaderLeft`, after standard output is pointed at
      the null device (the signal module's "Note on SIGPIPE"); what is still buffered is flushed at the end
      (``--help`` included), a failure there being one line.

    Yields
    ------
    None
        The command runs inside the context.

    Raises
    ------
    CommandError
        Standard output is closed (``>&-``): nothing is done.
    ReaderLeft
        The reader of standard output went away.
    Interrupted
        Ctrl-C (SIGINT) during the command.
    """
    for number, name in ((0, "stdin"), (2, "stderr")):
        if _closed(number):
            null = os.open(os.devnull, os.O_RDWR)
            if null != number:
                os.dup2(null, number)
                os.close(null)
            if getattr(sys, name) is None:
                setattr(sys, name, open(number, "w" if number else "r", closefd=False))  # noqa: SIM115 - the process's stream
    if sys.stdout is None or _closed(1):
        raise CommandError(
            "standard output is closed (>&-): the report has nowhere to go; nothing was done "
            "(redirect it to a file or to /dev/null)"
        )
    original = sys.stdout
    if original is sys.__stdout__:
        original.flush()
        sys.stdout = io.TextIOWrapper(
            whole_writer(original.fileno(), closefd=False),
            encoding=original.encoding,
            errors="backslashreplace",
            line_buffering=original.line_buffering,
        )
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
    except MemoryError:  # numpy's and Arrow's allocation failures (ArrowMemoryError is one): one line, not a traceback
        raise CommandError(
            f"out of memory: the input or the audit needs more memory than this process may use{_limit_text()}; split "
            "the input (fewer models or items per file), or give the run more memory"
        ) from None
    except ImportError as error:  # a library that cannot be mapped within ulimit -v ("failed to map segment")
        if address_space_limit() is None:
            raise
        raise CommandError(
            f"cannot load a library within this process's address-space limit{_limit_text()}: "
            f"{' '.join(str(error).split())[:200]}; raise the limit (ulimit -v; numpy, scipy, pandas and pyarrow "
            "alone take about 1 GB of address space)"
        ) from None
    finally:
        replaced, sys.stdout = sys.stdout, original
        if replaced is not original:
            try:
                replaced.flush()
            except (OSError, ValueError):  # reported already: the rest goes to the null device, not to a second message
                detach_stdout()
                with contextlib.suppress(OSError, ValueError):
                    replaced.flush()


def address_space_limit() -> int | None:
    """The soft address-space limit (``ulimit -v``) of this process in bytes, or None when there is none.

    Returns
    -------
    int or None
        RLIMIT_AS's soft value; None when unlimited or where the platform has no such limit.
    """
    try:
        # Optional dependency: the resource module exists on Unix only.
        import resource
    except ImportError:
        return None
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    return None if soft == resource.RLIM_INFINITY else int(soft)


def _limit_text() -> str:
    limit = address_space_limit()
    return "" if limit is None else f" (ulimit -v: {limit / 1e9:.2f} GB of address space)"


def one_blas_thread_under_a_limit() -> None:
    """Under an address-space limit, give OpenBLAS one thread unless the user chose a number.

    Each OpenBLAS thread maps its own work buffers when the library loads; when the limit leaves too little for them,
    the threads retry without end (measured: ``import scipy.stats`` spinning at 600 MB of address space, where one
    thread loads at once).  Set before numpy or scipy load.  Counts and exact tests do not depend on the thread count;
    a BLAS sum of floats (graded cluster sums) may differ in its last bits.
    """
    if address_space_limit() is not None and "OPENBLAS_NUM_THREADS" not in os.environ:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def detach_stdout() -> None:
    """Point descriptor 1 at the null device after a failed write.

    Python's flush at exit then adds no second message (the recipe of the signal module's "Note on SIGPIPE").
    A standard output without a descriptor (a test's capture) is left as it is.
    """
    with contextlib.suppress(AttributeError, OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def stdout_failed(what: str, error: OSError) -> OutputError:
    """The one-line error of a failed write to standard output, after :func:`detach_stdout`.

    Parameters
    ----------
    what : str
        What could not be written ("the output (3 lines)", "the help (or version) text").
    error : OSError
        The write's error (its ``strerror`` is shown).

    Returns
    -------
    OutputError
        The error to raise: what failed, why, and the remedy (free the device, redirect, or ``--out FILE``).
    """
    detach_stdout()
    return OutputError(
        f"could not write {what} to standard output: {error.strerror or error}; "
        "free the device or redirect standard output (> FILE), or use --out FILE where the command has it"
    )


def print_report(text: str) -> None:
    """Print a command's text on standard output, controls and bidirectional marks escaped.

    The escaping is :func:`~llm_power_verified.io.escaping.terminal_lines`'s.

    Parameters
    ----------
    text : str
        The report (a final newline is added).

    Raises
    ------
    BrokenPipeError
        The reader went away (the command line then ends quietly).
    OutputError
        Any other failed write (a full device), in one line.
    """
    lines = text.count("\n") + 1
    try:
        sys.stdout.write(terminal_lines(text) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise stdout_failed(f"the output ({lines:,} line{'s' if lines > 1 else ''})", error) from None


def write_report_chunks(chunks: Iterable[bytes]) -> None:
    """Write a machine format's byte chunks on standard output as they are.

    Parameters
    ----------
    chunks : iterable of bytes
        The report, chunk by chunk (written as each arrives).

    Raises
    ------
    BrokenPipeError
        The reader went away (the command line then ends quietly).
    OutputError
        Any other failed write, in one line naming ``--out FILE`` as the remedy.
    """
    try:
        write_stdout(chunks, remedy="use --out FILE where the command has it")
    except OutputError:
        detach_stdout()
        raise


def flush_stdout() -> None:
    """Flush standard output at the end of a command: what is still buffered is written now.

    Raises
    ------
    BrokenPipeError
        The reader went away.
    OutputError
        Any other failed write, in one line.
    """
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise stdout_failed("the end of the output", error) from None


def terminal_width() -> int:
    """The width of a terminal report.

    Returns
    -------
    int
        The terminal's columns when standard output is a terminal, else 100.
    """
    import shutil

    return shutil.get_terminal_size().columns if sys.stdout is not None and sys.stdout.isatty() else 100


def print_note(message: str) -> None:
    """Print a note or a gate's message on standard error, escaped as :func:`print_report` escapes.

    Parameters
    ----------
    message : str
        The note.  A standard error that cannot be written loses the note, nothing else.
    """
    with contextlib.suppress(AttributeError, OSError):
        print(terminal_lines(message), file=sys.stderr)


def writes_to_stdout(path: str | None) -> bool:
    """Whether ``path`` names this process's standard output (so a "wrote PATH" line would land inside the output).

    Parameters
    ----------
    path : str or None
        The ``--out`` value (None: no ``--out``).

    Returns
    -------
    bool
        True for a name of descriptor 1, or of a descriptor open on the same file (``/dev/stdout``, ``/dev/fd/N``).
    """
    number = None if path is None else names_descriptor(path)
    if number is None:
        return False
    try:
        return number == 1 or os.path.samestat(os.fstat(number), os.fstat(1))
    except OSError:
        return False


def wrote(path: str, status: int, lines: Iterable[str] = (), detail: str = "") -> int | tuple[str, int]:
    """The result of a command that wrote its report to ``path`` (``--out``).

    Parameters
    ----------
    path : str
        The file written.
    status : int
        The command's exit status.
    lines : iterable of str, default ()
        Lines printed after "wrote PATH" (notes, a gate's verdict).
    detail : str, default ""
        Text appended to "wrote PATH" on its line.

    Returns
    -------
    tuple of (str, int) or int
        "wrote PATH" + ``detail`` (and ``lines``) with the status, for ``main`` to print; or the status alone when
        ``path`` is standard output itself (the lines would land inside the report).
    """
    if writes_to_stdout(path):
        return status
    return "\n".join([f"wrote {path}{detail}", *lines]), status


@contextlib.contextmanager
def progress_bar(*, quiet: bool) -> Iterator[Callable[[str], None]]:
    """A tqdm bar on stderr for the audit's stages, shown only after a second and only on a terminal.

    Parameters
    ----------
    quiet : bool
        True (``--quiet``): no bar.

    Yields
    ------
    callable
        ``advance(message)``: one more step, described by ``message``.
    """
    # Lazy: tqdm costs 0.05 s at import, which `--help` does not need.
    from tqdm import tqdm

    bar = tqdm(
        total=None, unit=" step", delay=1.0, leave=False, file=sys.stderr, disable=quiet or not sys.stderr.isatty()
    )
    try:

        def advance(message: str) -> None:
            bar.set_description_str(message, refresh=False)
            bar.update(1)

        yield advance
    finally:
        bar.close()
