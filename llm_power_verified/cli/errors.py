"""The command line's error types, each reported by ``main`` in one line on stderr (or none, for a reader that left).

:class:`CommandError` is a usage error (exit status 2, like every error of the project's own types that ``main``
catches); :class:`ReaderLeft` and :class:`Interrupted` carry in ``status`` the shell's statuses for a process ended
by SIGPIPE and by SIGINT.
"""

from __future__ import annotations

import signal

from llm_power_verified.errors import LlmPowerError

__all__ = ["CommandError", "Interrupted", "ReaderLeft"]


class CommandError(LlmPowerError):
    """A user error the command line reports in one line on stderr, with exit status 2.

    Its message says what is wrong, the value, what is allowed and the option that fixes it.
    """


class ReaderLeft(CommandError):
    """The reader of standard output went away (``| head``): the command ends quietly with the shell's 128 + SIGPIPE."""

    status = 128 + getattr(signal, "SIGPIPE", 13)


class Interrupted(CommandError):
    """Ctrl-C (SIGINT) during a command: one line, no traceback, the shell's 128 + SIGINT.

    A file being written is removed by the atomic writer before this is raised.
    """

    status = 128 + signal.SIGINT
