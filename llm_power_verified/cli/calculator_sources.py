"""The calculators ``audit-calculator`` audits: a Python function (``--python``) or a command (``--command``).

Each becomes a function of the quantity's keyword arguments (``p_a, p_b, rho, alpha, power`` for a required N),
which :func:`~llm_power_verified.testing.conformance.check_calculator` calls:

* ``--python module:function`` (a module importable from the current folder or the installed packages) or
  ``--python path/to/file.py:function``, called with keyword arguments;
* ``--command TEMPLATE``: the template is split as a shell would (``shlex.split``; no shell runs it), each
  ``{name}`` is replaced by the value (the shortest text that reads back as the same float, a whole number as an
  integer; ``{{name}}`` is a literal ``{name}``), and the command runs with a time limit per call: past it the
  process group is killed and the call is a ``timeout`` failure.  The value is the one number on the last non-empty
  line of standard output (R's ``[1]`` prefix, ``NA``, ``NaN``, ``Inf`` and ``-Inf`` are understood); a non-zero exit
  status or another output is an ``exception`` failure quoting the last line of standard error.

``--argument-map`` adapts another signature: ``ours=theirs`` passes our argument under their name (``--python``
only), ``ours=-`` does not pass it at all (a tool that has no such input, such as a per-arm size without rho), and
``theirs:=VALUE`` adds a constant (a number, else the text as a string) to every call.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from llm_power_verified.cli.errors import CommandError

__all__ = [
    "COMMAND_TIMEOUT",
    "OUTPUT_LIMIT",
    "ArgumentMap",
    "CommandCalculator",
    "argument_map",
    "load_function",
    "number_text",
    "parse_value",
]

#: Seconds a --command call may take without --timeout.
COMMAND_TIMEOUT = 30.0
#: Seconds a --python call may take without --timeout: an in-process calculator answers in micro- to milliseconds,
#: and a naive exact tail (a sum of math.comb terms) would otherwise run for hours at 10^7 discordant pairs.
PYTHON_TIMEOUT = 10.0
#: The most standard output one call of a --command may print (bytes); more is an ``exception`` failure.
OUTPUT_LIMIT = 1 << 20
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PLACEHOLDER = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")
_R_VALUES = {"NA": math.nan, "NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}


@dataclass(frozen=True)
class ArgumentMap:
    """How our keyword arguments reach the calculator.

    Parameters
    ----------
    renames : dict of str to str
        Our argument -> their name.
    dropped : tuple of str
        Our arguments not passed.
    constants : dict of str to float or int or str
        Their extra arguments, the same on every call.
    """

    renames: dict[str, str]
    dropped: tuple[str, ...]
    constants: dict[str, float | int | str]

    def passed(self, values: dict[str, float]) -> dict[str, float | int | str]:
        """Their keyword arguments for one call.

        Parameters
        ----------
        values : dict of str to float
            Our arguments and their values.

        Returns
        -------
        dict
            Their names -> values, the constants included.
        """
        given = {self.renames.get(name, name): value for name, value in values.items() if name not in self.dropped}
        return {**given, **self.constants}


def _constant(text: str) -> float | int | str:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def argument_map(text: str | None, arguments: tuple[str, ...], quantity: str, *, command: bool) -> ArgumentMap:
    """Parse ``--argument-map`` (``ours=theirs``, ``ours=-``, ``theirs:=VALUE``, comma-separated).

    Parameters
    ----------
    text : str or None
        The option's value (None: no map).
    arguments : tuple of str
        The quantity's arguments (ours).
    quantity : str
        The quantity's name on the command line, for the messages.
    command : bool
        True for ``--command``, whose template names the arguments itself (renames are refused).

    Returns
    -------
    ArgumentMap
        The map.

    Raises
    ------
    CommandError
        An entry that is not one of the three forms, names no argument of the quantity, or repeats one.
    """
    renames: dict[str, str] = {}
    dropped: list[str] = []
    constants: dict[str, float | int | str] = {}
    allowed = ", ".join(arguments)
    for entry in [part.strip() for part in (text or "").split(",") if part.strip()]:
        shown = f"--argument-map entry {entry!r}"
        if ":=" in entry:
            name, value = (part.strip() for part in entry.split(":=", 1))
            if not _NAME.match(name) or not value:
                raise CommandError(f"{shown}: a constant is NAME:=VALUE with NAME an identifier and VALUE not empty")
            if name in arguments:
                raise CommandError(
                    f"{shown}: {name} is an argument of {quantity}, which the check varies; pass it under another "
                    f"name ({name}=theirs) or not at all ({name}=-)"
                )
            constants[name] = _constant(value)
            continue
        ours, separator, theirs = (part.strip() for part in entry.partition("="))
        if not separator:
            raise CommandError(f"{shown}: use ours=theirs, ours=- or theirs:=VALUE (allowed ours: {allowed})")
        if ours not in arguments:
            raise CommandError(f"{shown}: {ours!r} is not an argument of {quantity}; allowed: {allowed}")
        if ours in renames or ours in dropped:
            raise CommandError(f"{shown}: {ours} is mapped twice")
        if theirs == "-":
            dropped.append(ours)
        elif command:
            raise CommandError(
                f"{shown}: a --command template names the arguments itself ({{{ours}}}); only {ours}=- (not passed) "
                "and NAME:=VALUE apply to it"
            )
        elif not _NAME.match(theirs):
            raise CommandError(f"{shown}: {theirs!r} is not a Python identifier")
        else:
            renames[ours] = theirs
    return ArgumentMap(renames, tuple(dropped), constants)


def load_function(spec: str) -> Callable:
    """The function ``--python`` names: ``module:function`` or ``path/to/file.py:function``.

    Parameters
    ----------
    spec : str
        The option's value; a dotted name after the colon reaches an attribute (``module:Class.method``).

    Returns
    -------
    callable
        The function.

    Raises
    ------
    CommandError
        The value has no colon, the module cannot be imported (its error's last line is quoted), or the function
        is missing or not callable.
    """
    where, separator, name = spec.rpartition(":")
    if not separator or not where or not name:
        raise CommandError(f"--python {spec!r}: give module:function or path/to/file.py:function")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise CommandError(f"--python {spec!r}: no file {where}")
        module_name = "_audited_" + re.sub(r"\W", "_", path.stem)
        try:
            loader = importlib.util.spec_from_file_location(module_name, path)
            module = importlib.util.module_from_spec(loader)
            loader.loader.exec_module(module)
        except Exception as error:  # the user's code: any error it raises is reported in one line
            raise CommandError(f"--python {spec!r}: {where} could not be loaded ({_last_line(error)})") from None
    else:
        sys.path.insert(0, os.getcwd())  # as `python -m` would: a module of the current folder is importable
        try:
            module = importlib.import_module(where)
        except Exception as error:  # the user's code: any error it raises is reported in one line
            raise CommandError(f"--python {spec!r}: cannot import {where} ({_last_line(error)})") from None
        finally:
            sys.path.remove(os.getcwd())
    target = module
    for part in name.split("."):
        if not hasattr(target, part):
            raise CommandError(f"--python {spec!r}: {where} has no {name}")
        target = getattr(target, part)
    if not callable(target):
        raise CommandError(f"--python {spec!r}: {name} is a {type(target).__name__}, not a function")
    return target


def _last_line(error: BaseException) -> str:
    lines = [line for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[-1].strip()}" if lines else type(error).__name__


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
    try:
        return float(last)
    except ValueError:
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
        An empty template, a program that is not found, a placeholder that is no argument or constant, or an
        argument with no placeholder that the map does not drop.
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
                status = process.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                raise TimeoutError(f"did not finish within {self.timeout:g} s; its process group was killed") from None
            finally:
                if process.returncode is None:  # interrupted (Ctrl-C): leave no process behind
                    _kill_group(process)
            size = out.seek(0, os.SEEK_END)
            if size > OUTPUT_LIMIT:
                raise RuntimeError(f"printed {size:,} bytes on standard output, over the {OUTPUT_LIMIT:,} allowed")
            out.seek(0)
            text = out.read().decode("utf-8", "replace")
            if status != 0:
                raise RuntimeError(f"exit status {status}: {_tail(err)}")
            return parse_value(text)


def _tail(stream) -> str:
    """The last non-empty line of a captured stream (its last 4 kB), or a note that it was empty."""
    size = stream.seek(0, os.SEEK_END)
    stream.seek(max(0, size - 4096))
    lines = [line.strip() for line in stream.read().decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1][:200] if lines else "nothing on standard error"


def _kill_group(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):  # it may have ended on its own meanwhile
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
