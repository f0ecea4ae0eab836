"""A ``--command`` calculator: a command-line template run once per call, its printed number read back.

The template is split as a shell would (``shlex.split``; no shell runs it), each ``{name}`` is replaced by the
value (the shortest text that reads back as the same float, a whole number as an integer; ``{{name}}`` is a
literal ``{name}``; ``{name!r}``, ``{name:.3f}`` or ``{ name }`` are refused), and the command runs in its own
process group with a time limit per call: past it the group is killed and the call is a ``timeout`` failure.  The
group is killed after every call, so a child the command left behind (``( sleep 300 & )``) does not outlive it; a
child that leaves the group (``setsid``) escapes this.  Standard output and standard error are spooled to temporary
files, each capped at ``OUTPUT_LIMIT`` bytes (1 MB) while the command runs.  The value is the one number on the last
non-empty line of standard output, in Python's float syntax (ASCII, no underscores; R's ``[1]`` prefix, ``NA``,
``NaN``, ``Inf`` and ``-Inf`` are understood); a non-zero exit status or another output is an ``exception`` failure
quoting the last line of standard error that starts with "Error" (R's message), else its last line.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

from llm_power_verified.cli.calculator_maps import ArgumentMap
from llm_power_verified.cli.errors import CommandError

__all__ = ["OUTPUT_LIMIT", "CommandCalculator", "number_text", "parse_value"]

#: The most one call of a --command may print on standard output, and on standard error (bytes); more is an
#: ``exception`` failure, and the command is killed as soon as its spooled output passes it.
OUTPUT_LIMIT = 1 << 20
_PLACEHOLDER = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: A brace group naming an identifier with spaces, a conversion (!r) or a format spec (:.3f).
_MALFORMED = re.compile(r"(?<!\{)\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:[!:][^{}]*)?\}(?!\})")
#: Python's float syntax without underscores (ASCII digits only), and inf/infinity/nan in any case.
_FLOAT = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\Z", re.IGNORECASE | re.ASCII
)
_R_VALUES = {"NA": math.nan, "NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}
#: Seconds between two looks at a running command's spooled output.
_POLL = 0.05


def number_text(value: float | int | str) -> str:
    """A value as a --command template receives it.

    Parameters
    ----------
    value : float or int or str
        The value.

    Returns
    -------
    str
        A whole number as an integer; another float as the shortest text that reads back as the same float (at
        most 17 significant digits); a string as it is.

    Examples
    --------
    >>> number_text(0.65), number_text(1024.0), number_text(1e-300), number_text(2)
    ('0.65', '1024', '1e-300', '2')
    """
    if isinstance(value, str):
        return value
    value = float(value)
    if value.is_integer() and abs(value) < 2.0**53:
        return str(int(value))
    return repr(value)


def parse_value(text: str) -> float:
    r"""The number a --command printed: the one number on the last non-empty line of its standard output.

    Parameters
    ----------
    text : str
        Standard output.

    Returns
    -------
    float
        The value (NA and NaN are nan, Inf and -Inf the infinities).

    Raises
    ------
    ValueError
        No output, or a last line that is not one number.

    Examples
    --------
    >>> parse_value("loading...\n[1] 1470.092\n"), parse_value("NA"), parse_value("-Inf\n\n")
    (1470.092, nan, -inf)
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError("printed nothing on standard output (the value must be the one number on its last line)")
    last = re.sub(r"^\[1\]\s+", "", lines[-1])
    if last in _R_VALUES:
        return _R_VALUES[last]
    if _FLOAT.match(last):
        return float(last)
    shown = last if len(last) <= 60 else last[:57] + "..."
    raise ValueError(f"the last line of standard output is {shown!r}, not one number") from None


class CommandCalculator:
    """A --command template as a function of the quantity's keyword arguments.

    Parameters
    ----------
    template : str
        The command, with ``{name}`` placeholders.
    arguments : tuple of str
        The quantity's arguments (ours).
    mapping : ArgumentMap
        Arguments not passed (``ours=-``) and constants (``NAME:=VALUE``).
    timeout : float
        Seconds each call may take; past it the process group is killed.

    Raises
    ------
    CommandError
        An empty template, a program that is not found, a placeholder that is no argument or constant or that has
        spaces, a conversion or a format spec, or an argument with no placeholder that the map does not drop.
    """

    def __init__(self, template: str, arguments: tuple[str, ...], mapping: ArgumentMap, timeout: float) -> None:
        try:
            self.words = shlex.split(template)
        except ValueError as error:
            raise CommandError(f"--command {template!r}: {error} (the template is split as a shell would)") from None
        if not self.words:
            raise CommandError("--command: the template is empty")
        self.template, self.mapping, self.timeout = template, mapping, timeout
        if shutil.which(self.words[0]) is None:
            raise CommandError(f"--command: no program {self.words[0]!r} found (not on PATH, or not executable)")
        known = [name for name in arguments if name not in mapping.dropped] + list(mapping.constants)
        for text in [template, *self.words]:  # the template too: shlex splits "{ p_a }" into three words
            for match in _MALFORMED.finditer(_PLACEHOLDER.sub("", text)):
                if match.group(1) in known or match.group(1) in arguments:
                    raise CommandError(
                        f"--command: malformed placeholder {match.group(0)!r}: write {{{match.group(1)}}} (no "
                        "spaces, conversion or format: the value is passed as the shortest text that reads back as "
                        "the same float)"
                    )
        named = {match.group(2) for word in self.words for match in _PLACEHOLDER.finditer(word) if match.group(2)}
        allowed = ", ".join(f"{{{name}}}" for name in known)
        for name in sorted(named - set(known)):
            why = " (dropped by --argument-map)" if name in mapping.dropped else ""
            raise CommandError(f"--command: unknown placeholder {{{name}}}{why}; allowed: {allowed}")
        missing = [name for name in arguments if name not in named and name not in mapping.dropped]
        if missing:
            raise CommandError(
                f"--command: the template has no {{{missing[0]}}}; add it, or pass --argument-map {missing[0]}=- "
                "if the tool takes no such input"
            )
        self.__name__ = self.__qualname__ = self.words[0]

    def argv(self, values: dict[str, float]) -> list[str]:
        """The command's words for one call.

        Parameters
        ----------
        values : dict of str to float
            Our arguments and their values.

        Returns
        -------
        list of str
            The words, placeholders replaced.
        """
        given = {**self.mapping.passed(values)}

        def replace(match: re.Match) -> str:
            return "{" + match.group(1) + "}" if match.group(1) else number_text(given[match.group(2)])

        return [_PLACEHOLDER.sub(replace, word) for word in self.words]

    def __call__(self, **values: float) -> float:
        """Run the command once.

        Parameters
        ----------
        **values : float
            Our arguments.

        Returns
        -------
        float
            The number it printed.

        Raises
        ------
        TimeoutError
            It ran past the time limit (its process group was killed).
        RuntimeError
            It could not start, exited with a non-zero status, or printed more than :data:`OUTPUT_LIMIT` bytes.
        ValueError
            Its last line of standard output is not one number.
        """
        words = self.argv(values)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                process = subprocess.Popen(
                    words, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True
                )
            except OSError as error:
                raise RuntimeError(f"cannot run {words[0]!r}: {error.strerror or error}") from None
            try:
                status = _wait(process, self.timeout, out, err)
            finally:  # finished, timed out, over the cap or interrupted (Ctrl-C): leave no process of it behind
                _kill_group(process)
            out.seek(0)
            text = out.read().decode("utf-8", "replace")
            if status != 0:
                raise RuntimeError(f"exit status {status}: {_tail(err)}")
            return parse_value(text)


def _wait(process: subprocess.Popen, timeout: float, out, err) -> int:
    """The command's exit status; TimeoutError past ``timeout``, RuntimeError once it printed over the cap."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            status = process.wait(timeout=max(0.0, min(_POLL, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            status = None
        for stream, name in ((out, "standard output"), (err, "standard error")):
            if os.fstat(stream.fileno()).st_size > OUTPUT_LIMIT:
                raise RuntimeError(f"printed more than {OUTPUT_LIMIT >> 20} MB on {name} (the cap of one call)")
        if status is not None:
            return status
        if time.monotonic() >= deadline:
            raise TimeoutError(f"did not finish within {timeout:g} s; its process group was killed")


def _tail(stream) -> str:
    """The last error line of a captured stream (its last 4 kB), else its last non-empty line, or a note.

    R ends a failed script with "Execution halted"; the line that says what went wrong starts with "Error" before it.
    """
    size = stream.seek(0, os.SEEK_END)
    stream.seek(max(0, size - 4096))
    lines = [line.strip() for line in stream.read().decode("utf-8", "replace").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("Error", "error"))]
    return (errors or lines)[-1][:200] if lines else "nothing on standard error"


def _kill_group(process: subprocess.Popen) -> None:
    """Kill the call's process group (the command and any child it left), and reap the command."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group may have ended on its own
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
