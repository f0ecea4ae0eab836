"""The project's error types: every error the package raises on purpose is one of these.

* :class:`LlmPowerError`: the base; the CLI catches it (and nothing broader), prints
  its message on one line and exits with status 2.  Any other exception is a bug
  and shows as one.
* :class:`ArgumentError`: an argument outside what is allowed (the message names
  the argument, its value, the allowed range or choices and, for arrays, the
  index).  It is also a ``ValueError``, so ``except ValueError`` keeps working.
* :class:`~llm_power_verified.io.errors.InputError` (and its ``AlignmentError`` and
  ``OutputError``): an input file or table that cannot be read into a valid
  score matrix, or an output path that cannot be written safely.
"""

from __future__ import annotations

__all__ = ["ArgumentError", "LlmPowerError"]


class LlmPowerError(Exception):
    """Base of every error the package raises on purpose."""


class ArgumentError(LlmPowerError, ValueError):
    """An argument outside its allowed range or choices."""
