"""The one error type of the ingestion layer and of the output writer."""

from __future__ import annotations

from llm_power_verified.errors import LlmPowerError

__all__ = ["AlignmentError", "InputError", "OutputError", "describe_value"]


class InputError(LlmPowerError, ValueError):
    """An input that cannot be read into a valid score matrix.

    The message names the file (or argument), the line, cell or member, the
    offending value, what is allowed, and the option that fixes it where one
    exists.  The CLI prints it as one line and exits with status 2.
    """


class AlignmentError(InputError):
    """Per-item results that cannot be aligned item by item (kept as the historical name)."""


class OutputError(InputError):
    """An output path that cannot be written safely (same as an input, a folder, a socket, ...)."""


def describe_value(value: object, limit: int = 40) -> str:
    """A short, printable ``repr`` of a cell value for an error message (NumPy scalars shown as plain Python)."""
    if hasattr(value, "item") and callable(value.item):
        try:
            value = value.item()
        except (TypeError, ValueError):
            pass
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
