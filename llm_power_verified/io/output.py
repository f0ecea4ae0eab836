"""The one writer for every file the tool produces (reports, plots, tables, regenerated code), and text escaping.

Rules (README, "Input formats and rules"):

* a regular file (or a new one) is written atomically: a temporary file in
  the same folder, ``fsync``, then ``rename`` over the target; its mode is the
  existing file's, or ``0o666`` less the process umask for a new file;
* a symbolic link is followed and its target written (the link stays a link);
* a character device or FIFO (``/dev/stdout``, a named pipe) is written
  directly, never replaced; a folder, socket or block device is refused;
* the temporary file is removed on any error and on SIGTERM/SIGINT (the
  signal is then re-raised as usual);
* :func:`check_outputs` refuses, before any computation, an output path that
  is an input (or inside an input folder) or another output of the same run.

Escaping: :func:`csv_text` neutralises spreadsheet formulas (a text cell that
starts with ``= + - @``, a tab or a carriage return gets a leading ``'``);
:func:`markdown_text` escapes pipes, HTML and line breaks; :func:`terminal_text`
shows control characters as escapes so that a name cannot move the cursor.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import stat
import tempfile
import threading
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator, Mapping

from llm_power_verified.io.errors import OutputError

__all__ = ["check_outputs", "csv_text", "json_ready", "json_text", "markdown_text", "open_output", "terminal_text", "write_bytes",
           "write_chunks", "write_text"]

_UMASK_LOCK = threading.Lock()


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


def check_outputs(outputs: Mapping[str, str | Path | None], inputs: Iterable[str | Path] = ()) -> dict[str, Path]:
    """Check every output path of a run before any work: {label: resolved target}.

    ``outputs`` maps a label for messages (``"--out"``) to a path (None skipped).
    Refused: an output equal to an input or inside an input folder, two outputs
    with one target, a folder, a socket or block device, a missing parent folder.
    """
    resolved_inputs = [(Path(p), Path(os.path.realpath(p))) for p in inputs]
    targets: dict[str, Path] = {}
    for label, path in outputs.items():
        if path is None:
            continue
        path = Path(path)
        target = Path(os.path.realpath(path))
        for given, source in resolved_inputs:
            if target == source or _same(target, source) or (source.is_dir() and source in target.parents):
                raise OutputError(f"{label} {path} would overwrite an input ({given}); choose another output path")
        for other_label, other in targets.items():
            if target == other:
                raise OutputError(f"{label} {path} and {other_label} name the same file; give each output its own path")
        if target.is_dir():
            raise OutputError(f"{label} {path} is a folder; give a file name")
        if target.exists():
            mode = target.stat().st_mode
            if stat.S_ISSOCK(mode) or stat.S_ISBLK(mode):
                raise OutputError(f"{label} {path} is a socket or block device; it cannot receive a report")
        elif not target.parent.is_dir():
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


@contextlib.contextmanager
def open_output(path: str | Path) -> Iterator[BinaryIO]:
    """A binary stream to ``path`` under the module rules, for outputs written piece by piece.

    A regular file is written to a temporary file in the same folder, which
    replaces the target only when the block ends without an error (``fsync``
    first); on an error or a signal the temporary file is removed and the
    target is untouched.  A character device or FIFO is written directly.
    """
    path = Path(path)
    target = Path(os.path.realpath(path))
    try:
        status = target.stat()
    except FileNotFoundError:
        status = None
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror}") from None
    if status is not None and not stat.S_ISREG(status.st_mode):
        if not (stat.S_ISCHR(status.st_mode) or stat.S_ISFIFO(status.st_mode)):
            raise OutputError(f"cannot write {path}: it is not a regular file, a character device or a FIFO")
        try:
            with open(target, "wb") as stream:
                yield stream
        except OSError as error:
            raise OutputError(f"cannot write {path}: {error.strerror}") from None
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
            with os.fdopen(handle, "wb") as stream:
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
    """Write ``data`` to ``path`` under the module rules; returns the file written."""
    with open_output(path) as stream:
        view = memoryview(data)
        while view:
            written = stream.write(view)
            view = view[written:]
    return Path(os.path.realpath(path))


def write_chunks(path: str | Path, chunks: Iterable[bytes]) -> Path:
    """Write the byte chunks to ``path`` in turn under the module rules (the whole never held in memory)."""
    with open_output(path) as stream:
        for chunk in chunks:
            stream.write(chunk)
    return Path(os.path.realpath(path))


def write_text(path: str | Path, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` under the module rules."""
    return write_bytes(path, text.encode("utf-8"))


_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def csv_text(value: str) -> str:
    """A text cell safe to open in a spreadsheet: a leading ``'`` before ``= + - @``, tab or CR (OWASP CSV injection)."""
    return "'" + value if value.startswith(_FORMULA) else value


_MARKDOWN = str.maketrans({"|": "\\|", "<": "&lt;", ">": "&gt;", "&": "&amp;", "\n": "<br>", "\r": "", "`": "\\`"})


def markdown_text(value: str) -> str:
    """Text for a Markdown table cell: pipes escaped, HTML neutralised, line breaks as ``<br>``."""
    return value.translate(_MARKDOWN)


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def terminal_text(value: str) -> str:
    """Control characters (newline, escape, ...) shown as ``\\xNN`` so that text cannot reshape a terminal table."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", value)


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
