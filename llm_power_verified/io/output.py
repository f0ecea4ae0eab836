"""The one writer for every file the tool produces (reports, plots, tables, regenerated code).

Rules (README, "Input formats and rules"), decided by what the user *named*, before any link is resolved:

* a name of an open descriptor of this process (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``, or a link to
  one) is written through that descriptor, never resolved and replaced: ``--out /dev/stdout >> run.log`` appends to
  the log, a pipe receives the report; a closed descriptor is refused;
* a character device or FIFO is opened and written directly (never truncated, created or replaced); a folder,
  socket or block device is refused;
* a regular file (or a new one) is written atomically: a temporary file in the same folder, ``fsync``, ``rename``
  over the target; its mode is the existing file's, or ``0o666`` less the umask; a read-only file is refused;
* a symbolic link is followed and its target written (the link stays a link); the shipped data is never an output;
* the temporary file is removed on any error and on SIGTERM/SIGINT (the signal is then re-raised as usual);
* :func:`~llm_power_verified.io.output_paths.check_outputs` refuses, before any work, an output that is an input (or in
  an input folder) or another output.

A broken pipe propagates (the command line ends quietly); any other write error is an
:class:`~llm_power_verified.io.errors.OutputError`.

The text escaping of every output is in :mod:`llm_power_verified.io.escaping`.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import select
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from llm_power_verified._docstrings import docfill
from llm_power_verified.io.errors import OutputError
from llm_power_verified.io.output_paths import descriptor_status, names_descriptor, refusal, target_status

__all__ = ["json_ready", "json_text", "open_output", "whole_writer", "write_bytes", "write_chunks", "write_text"]

_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    with _UMASK_LOCK:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


@contextlib.contextmanager
def _removed_on_signal(temporary: str) -> Iterator[None]:
    """Remove ``temporary`` if SIGTERM or SIGINT arrives while it exists, then let the signal act as before."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}

    def handler(number, frame):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        signal.signal(number, previous[number])
        signal.raise_signal(number)

    for number in (signal.SIGTERM, signal.SIGINT):
        if signal.getsignal(number) is signal.SIG_IGN:
            continue  # a process that ignores the signal (a background job's SIGINT) keeps ignoring it
        previous[number] = signal.signal(number, handler)
    try:
        yield
    finally:
        for number, action in previous.items():
            signal.signal(number, action)


class _WholeWrites(io.FileIO):
    """A file whose ``write`` writes all it is given or raises.

    ``write(2)`` may write part of a buffer (a pipe whose reader left, a disk that fills) and fail only on the next
    call, and Python's buffered writer can report that short count as success (measured: 65,536 of 273,787 bytes
    into ``| head -c 10``, no error): so loop until it raises.
    """

    def write(self, data) -> int:
        whole = view = memoryview(data).cast("B")
        while view:
            written = super().write(view)
            if written is None:  # a full non-blocking descriptor: wait until it takes more, as a blocking one would
                select.select([], [self], [])
                continue
            view = view[written:]
        return len(whole)


def whole_writer(descriptor: int, *, closefd: bool = True) -> io.BufferedWriter:
    """A buffered binary stream on a descriptor that never drops the rest of a partial write.

    Parameters
    ----------
    descriptor : int
        An open descriptor, written from its current position.
    closefd : bool, default True
        Whether closing the stream closes the descriptor.

    Returns
    -------
    io.BufferedWriter
        The stream.

    Notes
    -----
    ``write(2)`` may write part of a buffer (a pipe whose reader left, a disk that fills) and fail only on the next
    call, and Python's buffered writer can report that short count as success (measured: 65,536 of 273,787 bytes
    into ``| head -c 10``, no error).  The raw file under this stream loops until every byte is written or an error
    is raised; a full non-blocking descriptor is waited on, as a blocking one would be.
    """
    return io.BufferedWriter(_WholeWrites(descriptor, "wb", closefd=closefd))


@contextlib.contextmanager
def _direct(path: Path, opened: int) -> Iterator[BinaryIO]:
    """Write through ``opened``, a descriptor this function closes.

    A broken pipe propagates; other errors are refusals.
    """
    try:
        with whole_writer(opened) as stream:
            yield stream
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror}") from None


@contextlib.contextmanager
@docfill("output_path")
def open_output(path: str | Path) -> Iterator[BinaryIO]:
    """A binary stream to a path under the module rules, for outputs written piece by piece.

    Parameters
    ----------
    %(output_path)s

    Returns
    -------
    contextlib.AbstractContextManager of typing.BinaryIO
        A context manager whose stream writes the output.

    Raises
    ------
    OutputError
        A path that cannot be written (the module rules), or a write that fails; a broken pipe propagates as
        ``BrokenPipeError``.

    Notes
    -----
    A regular file is written to a temporary file in the same folder, which replaces the target only when the block
    ends without an error (``fsync`` first); on an error or a signal the temporary file is removed and the target is
    untouched.  A named descriptor (``/dev/stdout``) is written through a copy of that descriptor (a file opened for
    appending is appended to); a character device or FIFO is opened and written directly.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "out.txt"
    ...     with open_output(path) as stream:
    ...         _ = stream.write(b"first ")
    ...         _ = stream.write(b"second")
    ...     path.read_text()
    'first second'
    """
    path = Path(path)
    number = names_descriptor(path)
    if number is not None:
        descriptor_status(number, f"cannot write {path}")
        for stream in (sys.stdout, sys.stderr):  # what was printed before comes first
            with contextlib.suppress(AttributeError, OSError, ValueError):
                stream.fileno() == number and stream.flush()
        with _direct(path, os.dup(number)) as stream:
            yield stream
        return
    target = Path(os.path.realpath(path))
    status = target_status(target, f"cannot write {path}")
    reason = refusal(path, target, status)
    if reason:
        raise OutputError(f"cannot write {path}: it {reason}")
    if status is not None and not stat.S_ISREG(status.st_mode):
        if not (stat.S_ISCHR(status.st_mode) or stat.S_ISFIFO(status.st_mode)):
            raise OutputError(f"cannot write {path}: it is not a regular file, a character device or a FIFO")
        try:
            opened = os.open(target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))  # never O_TRUNC or O_CREAT
        except OSError as error:
            raise OutputError(f"cannot write {path}: {error.strerror}") from None
        with _direct(path, opened) as stream:
            yield stream
        return
    if not target.parent.is_dir():
        raise OutputError(f"cannot write {path}: the folder {target.parent} does not exist")
    mode = stat.S_IMODE(status.st_mode) if status is not None else 0o666 & ~_umask()
    try:
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror}") from None
    try:
        with _removed_on_signal(temporary):
            with whole_writer(handle) as stream:
                yield stream
                stream.flush()
                os.fsync(stream.fileno())
            os.chmod(temporary, mode)
            os.replace(temporary, target)
        with contextlib.suppress(OSError):
            directory = os.open(target.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
    except OSError as error:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise OutputError(f"cannot write {path}: {error.strerror}") from None
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


@docfill("output_path", returns="output_written")
def write_bytes(path: str | Path, data: bytes) -> Path:
    r"""Write bytes to a path under the module rules.

    Parameters
    ----------
    %(output_path)s
    data : bytes
        What to write.

    Raises
    ------
    OutputError
        As :func:`open_output`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = write_bytes(pathlib.Path(folder) / "out.bin", b"\x00\x01")
    ...     written.name, written.read_bytes()
    ('out.bin', b'\x00\x01')
    """
    return write_chunks(path, [data])


@docfill("output_path", returns="output_written")
def write_chunks(path: str | Path, chunks: Iterable[bytes]) -> Path:
    r"""Write byte chunks to a path in turn under the module rules (the whole never held in memory).

    Parameters
    ----------
    %(output_path)s
    chunks : iterable of bytes
        The pieces, written in order as they come.

    Raises
    ------
    OutputError
        As :func:`open_output`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = write_chunks(pathlib.Path(folder) / "out.csv", (line.encode() for line in ("a,b\n", "1,0\n")))
    ...     written.read_text().splitlines()
    ['a,b', '1,0']
    """
    with open_output(path) as stream:
        for chunk in chunks:
            stream.write(chunk)  # whole: open_output's streams never drop the rest of a partial write
    return Path(path) if names_descriptor(path) is not None else Path(os.path.realpath(path))


@docfill("output_path", returns="output_written")
def write_text(path: str | Path, text: str) -> Path:
    r"""Write text, encoded as UTF-8, to a path under the module rules.

    Parameters
    ----------
    %(output_path)s
    text : str
        What to write.

    Raises
    ------
    OutputError
        As :func:`open_output`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_text(pathlib.Path(folder) / "note.md", "# café").read_bytes()
    b'# caf\xc3\xa9'
    """
    return write_bytes(path, text.encode("utf-8"))


def json_ready(value) -> Any:
    """A value made ready for JSON under the one JSON rule of every output.

    Parameters
    ----------
    value : object
        A number, text, NumPy scalar or array, result (a ``Result``), or a dict,
        list or tuple of those.

    Returns
    -------
    object
        The same value in plain Python: NaN (undefined) becomes None (null), +/-inf the strings "inf"/"-inf", NumPy
        scalars and arrays plain numbers and lists, results their ``to_dict()``; dicts (keys as text), lists and
        tuples (as lists) converted throughout.

    Examples
    --------
    >>> json_ready({"n": float("inf"), "rho": float("nan"), "k": [1, 2.5]})
    {'n': 'inf', 'rho': None, 'k': [1, 2.5]}
    """
    # Lazy: the results module imports numpy (0.1 s); the command line's `--help` imports this module for its writers.
    from llm_power_verified.results import Result

    if isinstance(value, Result):
        return json_ready(value.to_dict())
    if isinstance(value, dict):
        return {str(key): json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return json_ready(value.tolist())
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
    return value


def json_text(document, *, indent: int | None = 2) -> str:
    """A document as JSON text under :func:`json_ready`'s rule (never NaN or Infinity, which JSON does not have).

    Parameters
    ----------
    document : object
        What :func:`json_ready` takes; anything else is written as its ``str``.
    indent : int or None, default 2
        The indentation; None writes one line.

    Returns
    -------
    str
        The JSON text.

    Examples
    --------
    >>> json_text({"n": float("inf"), "rho": float("nan")}, indent=None)
    '{"n": "inf", "rho": null}'
    """
    return json.dumps(json_ready(document), indent=indent, allow_nan=False, default=str)
