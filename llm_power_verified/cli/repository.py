"""The repository's folders that are not installed with the package, for the commands that run them.

``crosscheck/`` and ``derivations/`` stay in the checkout (generic top-level names must not go into site-packages).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

from llm_power_verified.cli.errors import CommandError

__all__ = ["repository_module"]


def repository_module(name: str) -> ModuleType:
    """A module of the repository's ``crosscheck/`` or ``derivations/``.

    Found on the path as it is (running from the checkout), or in the checkout the installed package
    lives in (an editable install); otherwise the command says that it needs the repository.

    Parameters
    ----------
    name : str
        The module's dotted name ("derivations.__main__", "crosscheck.calculators").

    Returns
    -------
    module
        The module, imported.

    Raises
    ------
    CommandError
        The repository is not there (an installed package without its checkout), or the module fails to import a
        module of its own.
    """
    top = name.split(".")[0]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != top:
            raise CommandError(f"{name} could not import {error.name!r}: {error}") from None
    checkout = Path(__file__).resolve().parents[2]
    if not (checkout / top / "__init__.py").is_file():
        raise CommandError(
            f"this command needs the repository checkout: {top}/ is not installed with the package "
            f"(clone the repository and run it there, or pip install -e the checkout)"
        )
    sys.path.insert(0, str(checkout))
    return importlib.import_module(name)
