"""A ``--python`` calculator as a function of keyword arguments, run in a worker process.

The worker (:mod:`~llm_power_verified.cli.calculator_worker`) imports the user's module in its own session and
process group, with its standard streams on ``/dev/null``; this side sends each call's keyword arguments as one
JSON line and reads one JSON line back.  A call that outlasts the check's time limit (the check's alarm interrupts
the wait here) or the backstop wait, a worker that ends, or an interrupt (Ctrl-C) kills the worker's process
group; the next call starts a new one.  The audit closes the calculator when it ends, which kills the group.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
import warnings
from typing import Any

from llm_power_verified.cli.errors import CommandError

__all__ = ["NotANumber", "PythonCalculator"]

#: Seconds the worker may take to import the calculator's module at least (scipy alone takes seconds on a busy box).
_IMPORT_SECONDS = 60.0
#: Bytes of one answer at most (an answer is a few hundred bytes: the worker shortens reprs and messages).
_ANSWER_LIMIT = 1 << 16


class NotANumber:
    """What a calculator returned that is not a number, shown by the worker's (shortened) repr.

    Parameters
    ----------
    text : str
        The repr.
    """

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _exception(kind: str, message: str) -> Exception:
    """An exception whose class is named as the calculator's was (always an Exception: the check reports it)."""
    name = kind if kind.isidentifier() else "Exception"
    return type(name, (Exception,), {"__module__": "calculator"})(message)


class PythonCalculator:
    """The function ``--python`` names, called in a worker process.

    Parameters
    ----------
    spec : str
        ``module:function`` or ``path/to/file.py:function`` (the path made absolute).
    timeout : float
        Seconds a call may take before this side gives up on its own (the check's time limit plus a backstop).
    shown : str, optional
        The option's value as given, for the messages (default ``spec``).

    Raises
    ------
    CommandError
        The module cannot be imported, or has no such function (checked when the worker starts).
    """

    def __init__(self, spec: str, timeout: float, *, shown: str | None = None) -> None:
        self.spec, self.timeout, self.shown = spec, timeout, shown or spec
        self.process: subprocess.Popen | None = None
        self.buffer = b""
        try:
            name = self._start()
        except CommandError:
            raise
        except Exception as error:  # the worker ended or hung while importing the module
            where = self.shown.rpartition(":")[0]
            raise CommandError(f"--python {self.shown!r}: cannot import {where} ({error})") from None
        self.__name__ = self.__qualname__ = name

    def _start(self) -> str:
        """Start the worker and read its first answer: the function's name."""
        self.process = subprocess.Popen(
            # -P: the worker's own imports must not pick up a json.py or numbers.py in the user's folder.
            [sys.executable, "-P", "-m", "llm_power_verified.cli.calculator_worker", self.spec, str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.buffer = b""
        try:
            answer = self._answer(max(_IMPORT_SECONDS, self.timeout))
        except BaseException:
            self.close()
            raise
        if "ready" in answer:
            return str(answer["ready"])
        self.close()
        where, _, name = self.shown.rpartition(":")
        if answer.get("missing"):
            raise CommandError(f"--python {self.shown!r}: {name} is a {answer['missing']}, not a function")
        if "missing" in answer:
            raise CommandError(f"--python {self.shown!r}: {where} has no {name}")
        if where.endswith(".py"):
            raise CommandError(f"--python {self.shown!r}: {where} could not be loaded ({answer.get('error')})")
        raise CommandError(f"--python {self.shown!r}: cannot import {where} ({answer.get('error')})")

    def _answer(self, seconds: float) -> dict[str, Any]:
        """The worker's next answer line, waiting at most ``seconds``."""
        deadline = time.monotonic() + seconds
        stream = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer within {seconds:g} s; its process group was killed")
            readable, _, _ = select.select([stream], [], [], left)
            if not readable:
                continue
            chunk = os.read(stream, 65536)
            if not chunk:
                with contextlib.suppress(ProcessLookupError, PermissionError):  # its children, if any
                    os.killpg(self.process.pid, signal.SIGKILL)
                status = self.process.wait()
                raise _exception("RuntimeError", f"the calculator ended its process (exit status {status})")
            self.buffer += chunk
            if len(self.buffer) > _ANSWER_LIMIT:
                raise _exception("RuntimeError", "the calculator's process sent an answer it should not have")
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            answer = json.loads(line)
        except ValueError:
            raise _exception("RuntimeError", "the calculator's process sent an answer it should not have") from None
        if not isinstance(answer, dict):
            raise _exception("RuntimeError", "the calculator's process sent an answer it should not have")
        return answer

    def __call__(self, **keywords: Any) -> Any:
        """Call the calculator once in the worker.

        Parameters
        ----------
        **keywords
            Its keyword arguments (numbers and strings).

        Returns
        -------
        float or int or NotANumber
            The value (a whole number beyond the largest double as 10**400), or what it returned otherwise.

        Raises
        ------
        Exception
            What it raised, as an exception of the same class name; ``TimeoutError`` past the wait;
            ``RuntimeError`` when its process ended.
        """
        if self.process is None:
            self._start()
        try:
            self.process.stdin.write((json.dumps(keywords) + "\n").encode())
            self.process.stdin.flush()
            answer = self._answer(self.timeout)
        except BrokenPipeError:
            self.close()
            raise _exception("RuntimeError", "the calculator ended its process") from None
        except BaseException:  # the check's time limit, Ctrl-C, a dead worker: leave no process behind
            self.close()
            raise
        if answer.get("warned"):
            warnings.warn(str(answer["warned"]), RuntimeWarning, stacklevel=2)
        if "value" in answer:
            return float(answer["value"])
        if "huge" in answer:
            return 10**400  # read by the check as a whole number beyond the largest double
        if "other" in answer:
            return NotANumber(str(answer["other"][1]))
        kind, message = answer.get("raised", ["RuntimeError", "the calculator's process sent no answer"])
        raise _exception(str(kind), str(message))

    def close(self) -> None:
        """Kill the worker's process group (it may have ended already), and forget it."""
        process, self.process = self.process, None
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        for stream in (process.stdin, process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        process.wait()
