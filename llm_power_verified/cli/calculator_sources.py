"""The calculators ``audit-calculator`` audits: a Python function (``--python``) or a command (``--command``).

Each becomes a function of the quantity's keyword arguments (``p_a, p_b, rho, alpha, power`` for a required N),
which :func:`~llm_power_verified.testing.conformance.check_calculator` calls:

* ``--python module:function`` (a module importable from the current folder or the installed packages) or
  ``--python path/to/file.py:function``, called with keyword arguments in a worker process
  (:mod:`~llm_power_verified.cli.calculator_python`): nothing it does (exit, fork, print, change folder or
  signal handlers) reaches the audit;
* ``--command TEMPLATE``: one run of the command per call (:mod:`~llm_power_verified.cli.calculator_command`).

``--argument-map`` adapts another signature (:mod:`~llm_power_verified.cli.calculator_maps`).
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from pathlib import Path

from llm_power_verified.cli.calculator_python import PythonCalculator
from llm_power_verified.cli.errors import CommandError

__all__ = ["COMMAND_TIMEOUT", "PYTHON_TIMEOUT", "load_function", "module_files"]

#: Seconds a --command call may take without --timeout.
COMMAND_TIMEOUT = 30.0
#: Seconds a --python call may take without --timeout: a calculator answers in micro- to milliseconds, and a naive
#: exact tail (a sum of math.comb terms) would otherwise run for hours at 10^7 discordant pairs.
PYTHON_TIMEOUT = 10.0


def _parts(spec: str) -> tuple[str, str]:
    where, separator, name = spec.rpartition(":")
    if not separator or not where or not name:
        raise CommandError(f"--python {spec!r}: give module:function or path/to/file.py:function")
    return where, name


def load_function(spec: str, timeout: float) -> PythonCalculator:
    """The function ``--python`` names (``module:function`` or ``path/to/file.py:function``), in a worker process.

    Parameters
    ----------
    spec : str
        The option's value; a dotted name after the colon reaches an attribute (``module:Class.method``).
    timeout : float
        Seconds a call may take before the worker is given up on (the check's own limit comes first).

    Returns
    -------
    PythonCalculator
        The function, called in a worker; close it (``.close()``) to end the worker.

    Raises
    ------
    CommandError
        The value has no colon, the file does not exist, the module cannot be imported (its error's last line is
        quoted), or the function is missing or not callable.
    """
    where, name = _parts(spec)
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise CommandError(f"--python {spec!r}: no file {where}")
        return PythonCalculator(f"{path.resolve()}:{name}", timeout, shown=spec)
    return PythonCalculator(spec, timeout)


def module_files(spec: str) -> list[str]:
    """The files ``--python`` reads, found without importing them (so that ``--out`` never overwrites one).

    Parameters
    ----------
    spec : str
        The option's value.

    Returns
    -------
    list of str
        The file given, or the module's source file and those of the packages it is in (their ``__init__.py``);
        a module with no file (built-in, namespace package) or not found adds none: the worker then says why.
    """
    where, _ = _parts(spec)
    if where.endswith(".py"):
        return [where]
    search: list[str] | None = [os.getcwd(), *[entry or os.getcwd() for entry in sys.path]]
    files = []
    parts = where.split(".")
    for index in range(len(parts)):
        if search is None:
            break
        try:
            found = importlib.machinery.PathFinder.find_spec(".".join(parts[: index + 1]), search)
        except (ImportError, ValueError):
            break
        if found is None:
            break
        if found.has_location and found.origin:
            files.append(found.origin)
        search = list(found.submodule_search_locations) if found.submodule_search_locations is not None else None
    return files
