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
* :func:`check_outputs` refuses, before any work, an output that is an input (or in an input folder) or another output.

A broken pipe propagates (the command line ends quietly); any other write error is an :class:`OutputError`.

The text escaping of every output is in :mod:`llm_power_verified.io.escaping`.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import select
import signal
import stat
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator, Mapping

from llm_power_verified.io.errors import OutputError

__all__ = ["check_outputs", "json_ready", "json_text", "names_descriptor", "open_output", "whole_writer", "write_bytes",
           "write_chunks", "write_text"]

_UMASK_LOCK = threading.Lock()
#: The package's shipped data: read by the examples, never written.
SHIPPED_DATA = Path(os.path.realpath(Path(__file__).parents[1] / "data"))


def _umask() -> int:
    with _UMASK_LOCK:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


_STANDARD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_DESCRIPTOR = re.compile(r"/(?:dev/fd|proc/(self|thread-self|\d+)(?:/task/\d+)?/fd)/(\d+)")


def names_descriptor(path: str | Path) -> int | None:
    """The descriptor of this process that ``path`` names (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``, or a
    link to one), else None.  Links are followed one at a time and the descriptor's own link (``/proc/self/fd/1 ->
    run.log``) is never resolved: that file is not what the user named.

    >>> names_descriptor("/dev/stdout"), names_descriptor("/dev/fd/3"), names_descriptor("report.md")
    (1, 3, None)
    """
    current = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on links in a path
        folder, name = os.path.split(current)
        folder = os.path.realpath(folder)  # the folders' links (/dev/fd -> /proc/self/fd); a relative link starts there
        current = os.path.join(folder, name)
        if current in _STANDARD:
            return _STANDARD[current]
        match = _DESCRIPTOR.fullmatch(current)
        if match:
            process = match.group(1)
            return int(match.group(2)) if process in (None, "self", "thread-self", str(os.getpid())) else None
        if not os.path.islink(current):
            return None
        current = os.path.normpath(os.path.join(folder, os.readlink(current)))
    return None


def _descriptor_status(number: int, shown: str) -> os.stat_result:
    """The status of open descriptor ``number``, or the refusal of a closed one or a folder (prefixed by ``shown``)."""
    try:
        status = os.fstat(number)
    except OSError:
        what = ("standard input", "standard output", "standard error")[number] if number < 3 else f"descriptor {number}"
        raise OutputError(f"{shown}: {what} is closed; redirect it (> FILE) or name a file") from None
    if stat.S_ISDIR(status.st_mode):
        raise OutputError(f"{shown}: descriptor {number} is a folder; name a file")
    return status


def _refusal(path: Path, target: Path, status: os.stat_result | None) -> str | None:
    """Why ``target`` (resolved from ``path``) can never be written, or None: shipped data, read-only, socket or block device."""
    if target == SHIPPED_DATA or SHIPPED_DATA in target.parents:
        return f"is in the package's shipped data ({SHIPPED_DATA}), which is never an output; choose another path"
    if status is None:
        return None
    mode = status.st_mode
    if stat.S_ISSOCK(mode) or stat.S_ISBLK(mode):
        return "is a socket or block device; it cannot receive a report"
    if stat.S_ISREG(mode) and (not mode & 0o222 or not os.access(target, os.W_OK)):
        return (f"is read-only (mode {stat.S_IMODE(mode):04o}); it is not replaced: make it writable "
                f"(chmod u+w {path}) or choose another path")
    return None


def _status(target: Path, shown: str) -> os.stat_result | None:
    try:
        return target.stat()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise OutputError(f"{shown}: {error.strerror}") from None


def check_outputs(outputs: Mapping[str, str | Path | None], inputs: Iterable[str | Path] = ()) -> dict[str, Path]:
    """Check every output path of a run before any work: {label: resolved target (a descriptor's name as given)}.

    ``outputs`` maps a label for messages (``"--out"``) to a path (None skipped).  Refused: an input or a path inside
    an input folder, two outputs with one target, a folder, a socket or block device, a read-only file, the shipped
    data, a missing parent folder, a closed descriptor (``/dev/stdout`` with standard output closed).
    """
    resolved_inputs = [(Path(p), Path(os.path.realpath(p))) for p in inputs]
    targets: dict[str, Path] = {}
    streams: dict[tuple[int, int], str] = {}
    for label, path in outputs.items():
        if path is None:
            continue
        path = Path(path)
        number = names_descriptor(path)
        if number is not None:
            status = _descriptor_status(number, f"{label} {path}")
            opened = Path(f"/dev/fd/{number}")  # compared with the inputs only, never written by this name
            given = next((given for given, source in resolved_inputs if stat.S_ISREG(status.st_mode) and _same(opened, source)), None)
            if given is not None:
                raise OutputError(f"{label} {path} would write into the input {given} (descriptor {number}); choose another output")
            key = (status.st_dev, status.st_ino)
            if key in streams:
                raise OutputError(f"{label} {path} and {streams[key]} write to one stream; give each output its own path")
            streams[key] = label
            targets[label] = path
            continue
        target = Path(os.path.realpath(path))
        for given, source in resolved_inputs:
            if target == source or _same(target, source) or (source.is_dir() and source in target.parents):
                raise OutputError(f"{label} {path} would overwrite an input ({given}); choose another output path")
        for other_label, other in targets.items():
            if target == other:
                raise OutputError(f"{label} {path} and {other_label} name the same file; give each output its own path")
        if target.is_dir():
            raise OutputError(f"{label} {path} is a folder; give a file name")
        status = _status(target, f"{label} {path}")
        reason = _refusal(path, target, status)
        if reason:
            raise OutputError(f"{label} {path} {reason}")
        if status is None and not target.parent.is_dir():
            raise OutputError(f"{label} {path}: the folder {target.parent} does not exist")
        targets[label] = target
    return targets


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
    """A file whose ``write`` writes all it is given or raises.  ``write(2)`` may write part of a buffer (a pipe whose
    reader left, a disk that fills) and fail only on the next call, and Python's buffered writer can report that short
    count as success (measured: 65,536 of 273,787 bytes into ``| head -c 10``, no error): so loop until it raises."""

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
    """A buffered binary stream on ``descriptor`` that never drops the rest of a partial write (:class:`_WholeWrites`)."""
    return io.BufferedWriter(_WholeWrites(descriptor, "wb", closefd=closefd))


@contextlib.contextmanager
def _direct(path: Path, opened: int) -> Iterator[BinaryIO]:
    """Write through ``opened`` (a descriptor this function closes); a broken pipe propagates, other errors are refusals."""
    try:
        with whole_writer(opened) as stream:
            yield stream
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror}") from None


@contextlib.contextmanager
def open_output(path: str | Path) -> Iterator[BinaryIO]:
    """A binary stream to ``path`` under the module rules, for outputs written piece by piece.

    A regular file is written to a temporary file in the same folder, which replaces the target only when the block
    ends without an error (``fsync`` first); on an error or a signal the temporary file is removed and the target is
    untouched.  A named descriptor (``/dev/stdout``) is written through a copy of that descriptor (a file opened for
    appending is appended to); a character device or FIFO is opened and written directly.
    """
    path = Path(path)
    number = names_descriptor(path)
    if number is not None:
        _descriptor_status(number, f"cannot write {path}")
        for stream in (sys.stdout, sys.stderr):  # what was printed before comes first
            with contextlib.suppress(AttributeError, OSError, ValueError):
                stream.fileno() == number and stream.flush()
        with _direct(path, os.dup(number)) as stream:
            yield stream
        return
    target = Path(os.path.realpath(path))
    status = _status(target, f"cannot write {path}")
    reason = _refusal(path, target, status)
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


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` under the module rules; returns the file written (the name, for a descriptor)."""
    return write_chunks(path, [data])


def write_chunks(path: str | Path, chunks: Iterable[bytes]) -> Path:
    """Write the byte chunks to ``path`` in turn under the module rules (the whole never held in memory)."""
    with open_output(path) as stream:
        for chunk in chunks:
            stream.write(chunk)  # whole: open_output's streams never drop the rest of a partial write
    return Path(path) if names_descriptor(path) is not None else Path(os.path.realpath(path))


def write_text(path: str | Path, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` under the module rules."""
    return write_bytes(path, text.encode("utf-8"))


def json_ready(value) -> Any:
    """The one JSON rule of every output: NaN (undefined) becomes null, +/-inf the strings "inf"/"-inf",
    NumPy scalars and arrays plain Python values, results their ``to_dict()``; dicts, lists and tuples
    are converted throughout.

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
    """``document`` as JSON text under :func:`json_ready`'s rule (never NaN or Infinity, which JSON does not have)."""
    return json.dumps(json_ready(document), indent=indent, allow_nan=False, default=str)
