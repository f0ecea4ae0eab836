"""Which output paths may be written, decided before any work.

The decision is made from what the user *named*, before any link is resolved (the rules are in
:mod:`llm_power_verified.io.output`, which writes them).

:func:`check_outputs` checks every output of a run against the inputs and one another; :func:`names_descriptor`,
:func:`descriptor_status`, :func:`target_status` and :func:`refusal` are the checks of one path, which
:func:`~llm_power_verified.io.output.open_output` applies again when it opens it.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from llm_power_verified.io.errors import OutputError

__all__ = ["SHIPPED_DATA", "check_outputs", "descriptor_status", "names_descriptor", "refusal", "target_status"]

#: The package's shipped data: read by the examples, never written.
SHIPPED_DATA = Path(os.path.realpath(Path(__file__).parents[1] / "data"))


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


_STANDARD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_DESCRIPTOR = re.compile(r"/(?:dev/fd|proc/(self|thread-self|\d+)(?:/task/\d+)?/fd)/(\d+)")


def names_descriptor(path: str | Path) -> int | None:
    """The descriptor of this process that a path names, if it names one.

    Parameters
    ----------
    path : str or pathlib.Path
        An output path as the user gave it.

    Returns
    -------
    int or None
        The descriptor number for ``/dev/stdin``, ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``,
        ``/proc/self/fd/N`` (or ``/proc/<this pid>/fd/N``), or a link to one; None otherwise.

    Notes
    -----
    Links are followed one at a time and the descriptor's own link (``/proc/self/fd/1 -> run.log``) is never
    resolved: that file is not what the user named.

    Examples
    --------
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


def descriptor_status(number: int, shown: str) -> os.stat_result:
    """The status of an open descriptor of this process, or the refusal of a closed one or a folder.

    Parameters
    ----------
    number : int
        The descriptor (:func:`names_descriptor`).
    shown : str
        What the refusal names first (``"--out /dev/stdout"``).

    Returns
    -------
    os.stat_result
        The descriptor's status.

    Raises
    ------
    OutputError
        A closed descriptor ("standard output is closed; redirect it") or one open on a folder.

    Examples
    --------
    >>> import os, stat, tempfile
    >>> with tempfile.TemporaryFile() as handle:
    ...     stat.S_ISREG(descriptor_status(handle.fileno(), "--out").st_mode)
    True
    """
    try:
        status = os.fstat(number)
    except OSError:
        what = ("standard input", "standard output", "standard error")[number] if number < 3 else f"descriptor {number}"
        raise OutputError(f"{shown}: {what} is closed; redirect it (> FILE) or name a file") from None
    if stat.S_ISDIR(status.st_mode):
        raise OutputError(f"{shown}: descriptor {number} is a folder; name a file")
    return status


def refusal(path: Path, target: Path, status: os.stat_result | None) -> str | None:
    """Why a resolved output can never be written, or None.

    Parameters
    ----------
    path : pathlib.Path
        The path as the user named it (for the advice in the message).
    target : pathlib.Path
        Its resolved target.
    status : os.stat_result or None
        The target's status (:func:`target_status`); None for a file not yet there.

    Returns
    -------
    str or None
        The reason, to follow the path in a message: in the package's shipped data, a socket or block device, or a
        read-only file (mode without write permission, or not writable by this user); None when it may be written.

    Examples
    --------
    >>> refusal(SHIPPED_DATA / "x.csv", SHIPPED_DATA / "x.csv", None).startswith("is in the package's shipped data")
    True
    """
    if target == SHIPPED_DATA or SHIPPED_DATA in target.parents:
        return f"is in the package's shipped data ({SHIPPED_DATA}), which is never an output; choose another path"
    if status is None:
        return None
    mode = status.st_mode
    if stat.S_ISSOCK(mode) or stat.S_ISBLK(mode):
        return "is a socket or block device; it cannot receive a report"
    if stat.S_ISREG(mode) and (not mode & 0o222 or not os.access(target, os.W_OK)):
        return (
            f"is read-only (mode {stat.S_IMODE(mode):04o}); it is not replaced: make it writable "
            f"(chmod u+w {path}) or choose another path"
        )
    return None


def target_status(target: Path, shown: str) -> os.stat_result | None:
    """The status of a resolved output, None when it does not exist yet.

    Parameters
    ----------
    target : pathlib.Path
        The resolved output path.
    shown : str
        What a refusal names first.

    Returns
    -------
    os.stat_result or None
        The status, or None for a missing file.

    Raises
    ------
    OutputError
        When the status cannot be read (permission denied on a folder on the way, ...), with the system's reason.

    Examples
    --------
    >>> import pathlib
    >>> target_status(pathlib.Path("/nonexistent-folder/report.md"), "--out") is None
    True
    """
    try:
        return target.stat()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise OutputError(f"{shown}: {error.strerror}") from None


def check_outputs(outputs: Mapping[str, str | Path | None], inputs: Iterable[str | Path] = ()) -> dict[str, Path]:
    r"""Check every output path of a run before any work.

    Parameters
    ----------
    outputs : mapping of str to str, pathlib.Path or None
        A label for messages (``"--out"``) -> the output path; None is skipped.
    inputs : iterable of str or pathlib.Path, default ()
        The run's input files and folders.

    Returns
    -------
    dict of str to pathlib.Path
        Label -> the resolved target (a named descriptor as given).

    Raises
    ------
    OutputError
        An output that is an input or inside an input folder, two outputs with one target (or one stream), a folder,
        a socket or block device, a read-only file, a path in the package's shipped data, a missing parent folder,
        or a closed descriptor (``/dev/stdout`` with standard output closed).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     scores = pathlib.Path(folder) / "scores.csv"
    ...     _ = scores.write_text("item_id,a,b\n")
    ...     check_outputs({"--out": scores}, inputs=[scores])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.OutputError: --out .../scores.csv would overwrite an input (.../scores.csv); choose ...
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
            status = descriptor_status(number, f"{label} {path}")
            opened = Path(f"/dev/fd/{number}")  # compared with the inputs only, never written by this name
            given = next(
                (given for given, source in resolved_inputs if stat.S_ISREG(status.st_mode) and _same(opened, source)),
                None,
            )
            if given is not None:
                raise OutputError(
                    f"{label} {path} would write into the input {given} (descriptor {number}); choose another output"
                )
            key = (status.st_dev, status.st_ino)
            if key in streams:
                raise OutputError(
                    f"{label} {path} and {streams[key]} write to one stream; give each output its own path"
                )
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
        status = target_status(target, f"{label} {path}")
        reason = refusal(path, target, status)
        if reason:
            raise OutputError(f"{label} {path} {reason}")
        if status is None and not target.parent.is_dir():
            raise OutputError(f"{label} {path}: the folder {target.parent} does not exist")
        targets[label] = target
    return targets
