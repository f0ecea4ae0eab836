"""The one error type of the ingestion layer and of the output writer."""

from __future__ import annotations

import contextlib

from llm_power_verified.errors import LlmPowerError

__all__ = ["AlignmentError", "InputError", "OutputError", "describe_value"]


class InputError(LlmPowerError, ValueError):
    """An input that cannot be read into a valid score matrix.

    The message names the file (or argument), the line, cell or member, the offending value, what is allowed, and
    the option that fixes it where one exists.  The command line prints it as one line and exits with status 2.

    Examples
    --------
    >>> from llm_power_verified.io import from_array
    >>> from_array([[1, 0], [0, 2]], models=["a", "b"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: array: model 'b', item '1' has score 2, outside [0, 1] (1 scores are); ...
    """


class AlignmentError(InputError):
    """Per-item results that cannot be aligned item by item (kept as the historical name)."""


class OutputError(InputError):
    """An output path that cannot be written safely (same as an input, a folder, a socket, ...)."""


def describe_value(value: object, limit: int = 40) -> str:
    """A short, printable ``repr`` of a cell value for an error message.

    Parameters
    ----------
    value : object
        The value read (a NumPy scalar is shown as the plain Python value).
    limit : int, default 40
        The most characters shown; a longer ``repr`` is cut and ends in ``...``.

    Returns
    -------
    str
        The description.

    Examples
    --------
    >>> import numpy as np
    >>> describe_value(np.float64(0.5)), describe_value("x" * 60, limit=10)
    ('0.5', "'xxxxxx...")
    """
    if hasattr(value, "item") and callable(value.item):
        with contextlib.suppress(TypeError, ValueError):
            value = value.item()
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
