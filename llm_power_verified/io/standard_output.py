"""Standard output as a destination: a report's bytes written as they are, after any text printed before them.

Apart from :mod:`.output` (files written atomically), because standard output cannot be replaced whole: what was
written stays written, so a failure says how many bytes got out.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from llm_power_verified.io.errors import OutputError

__all__ = ["write_stdout"]


def write_stdout(chunks: Iterable[bytes], remedy: str = "write to a file") -> None:
    r"""Write byte chunks on standard output as they are, after any text printed before them.

    Parameters
    ----------
    chunks : iterable of bytes
        The pieces, written in order as they come (the whole is never held in memory).
    remedy : str, default "write to a file"
        The last fix the refusal offers (the command line names its ``--out FILE``).

    Raises
    ------
    BrokenPipeError
        When the reader went away (``| head``): the caller decides how to end quietly.
    OutputError
        Any other write error (a full device), in one line with the bytes written so far.

    Examples
    --------
    >>> import contextlib, io
    >>> captured = io.StringIO()
    >>> with contextlib.redirect_stdout(captured):
    ...     write_stdout([b"a,b\n", b"1,0\n"])
    >>> captured.getvalue().splitlines()
    ['a,b', '1,0']
    """
    binary = getattr(sys.stdout, "buffer", None)  # None when stdout is a text stream (a test's capture)
    written = 0
    try:
        sys.stdout.flush()  # text printed before comes first
        for chunk in chunks:
            if binary is not None:
                binary.write(chunk)
            else:
                sys.stdout.write(chunk.decode("utf-8"))
            written += len(chunk)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(
            f"could not write the report (stopped after {written:,} bytes) to standard output: "
            f"{error.strerror or error}; free the device or redirect standard output (> FILE), or {remedy}"
        ) from None
