"""The process a ``--python`` calculator runs in: ``python -m llm_power_verified.cli.calculator_worker SPEC``.

The audit never runs the user's code in its own process: a calculator could end it (``sys.exit``, ``os._exit``),
fork it, print into a JSON report, change its folder or its signal handlers, or catch the exception that ends a
slow call.  This worker (standard library only) keeps two private copies of its standard input and output for the
conversation, points file descriptors 0, 1 and 2 at ``/dev/null`` (nothing the calculator prints reaches the
user), imports the module, and answers a first line (``{"ready": name}``, ``{"missing": type}`` or ``{"error":
message}``).  Then, for each request line (a JSON object of keyword arguments) it calls the function in a fork of
itself (so that an exit, a crash, a change of folder or of signal handlers ends with the call, and the module is
imported once) and answers one JSON line:
``{"value": float}``, ``{"huge": true}`` (a whole number beyond the largest double), ``{"other": [type, repr]}``
(not a number) or ``{"raised": [type, message]}`` (any exception, ``SystemExit`` and ``KeyboardInterrupt``
included; a call whose process ended without answering is a ``RuntimeError`` giving its exit status), with
``"warned"`` the calculator's first warning, if any.  A fork the calculator makes that returns from the call ends at
once (``os._exit(0)``), so only the call answers.  The parent kills the worker's process group when a call runs too
long and when the audit ends.
"""

from __future__ import annotations

import ctypes
import decimal
import importlib
import importlib.util
import json
import numbers
import os
import re
import signal
import sys
import warnings
from pathlib import Path
from typing import Any

__all__ = ["main"]

#: Characters kept of a repr or an exception message.
_SHORT = 200


def _guarded(function: Any, thing: Any) -> str:
    try:
        text = function(thing)
    except BaseException:  # the calculator's object: its __str__/__repr__ may raise anything
        return "(it could not be shown)"
    if not isinstance(text, str):
        return "(it could not be shown)"
    return text if len(text) <= _SHORT else text[: _SHORT - 3] + "..."


def _raised(error: BaseException) -> dict[str, Any]:
    lines = [line for line in _guarded(str, error).splitlines() if line.strip()]
    return {"raised": [type(error).__name__, lines[-1].strip() if lines else ""]}


def _number(returned: Any) -> dict[str, Any]:
    """The answer for a returned object: mirrors the check's reading of a value (numbers, numpy scalars)."""
    numpy = sys.modules.get("numpy")  # a numpy object can only come from a calculator that imported numpy
    if isinstance(returned, bool) or (numpy is not None and isinstance(returned, numpy.bool_)):
        return {"other": [type(returned).__name__, _guarded(repr, returned)]}
    if numpy is not None and isinstance(returned, numpy.ndarray):
        if returned.size == 1 and returned.dtype.kind in "iuf":
            returned = returned.reshape(-1)[0]
        else:
            return {"other": [type(returned).__name__, _guarded(repr, returned)]}
    readable = (numbers.Real, decimal.Decimal) + ((numpy.integer, numpy.floating) if numpy is not None else ())
    if isinstance(returned, readable):
        try:
            return {"value": float(returned)}
        except OverflowError:
            return {"huge": True}
        except BaseException:  # a subclass whose __float__ raises: not readable as a number
            pass
    return {"other": [type(returned).__name__, _guarded(repr, returned)]}


class _Missing(Exception):
    """The module has no such function (or it is not callable)."""


def _load(spec: str) -> Any:
    where, _, name = spec.rpartition(":")
    if where.endswith(".py"):
        path = Path(where)
        module_name = "_audited_" + re.sub(r"\W", "_", path.stem)
        loader = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(loader)
        sys.modules[module_name] = module
        loader.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    target = module
    for part in name.split("."):
        if not hasattr(target, part):
            raise _Missing("")
        target = getattr(target, part)
    if not callable(target):
        raise _Missing(type(target).__name__)
    return target


def _send(reply: Any, answer: dict[str, Any]) -> None:
    reply.write((json.dumps(answer) + "\n").encode())
    reply.flush()


def _call(function: Any, keywords: dict[str, Any]) -> dict[str, Any]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            answer = _number(function(**keywords))
        except BaseException as error:  # the calculator's: SystemExit, KeyboardInterrupt, GeneratorExit included
            answer = _raised(error)
    if caught:
        answer["warned"] = _guarded(str, caught[0].message)
    return answer


def _die_with_parent(parent: int) -> None:
    """Be killed when ``parent`` ends (Linux's parent-death signal), so that a killed audit leaves nothing running.

    Elsewhere there is no such signal: the audit's own clean-up (on Ctrl-C and at its end) then does this.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux
        return
    if os.getppid() != parent:  # it ended before the signal was set
        os._exit(0)


def main() -> None:
    """Serve one calculator: the handshake, then one answer per request line, until standard input ends."""
    _die_with_parent(int(sys.argv[2]) if len(sys.argv) > 2 else os.getppid())
    requests = os.fdopen(os.dup(0), "rb")
    reply = os.fdopen(os.dup(1), "wb")
    silent = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(silent, fd)
    started = os.getpid()
    # The worker runs with -P (its own imports cannot pick up a json.py in the user's folder); the user's module
    # form (``module:function``) is found in the current folder, as python would find it, from here on.
    sys.path.insert(0, os.getcwd())
    try:
        function = _load(sys.argv[1])
    except BaseException as error:  # the user's module: any error at import is reported in one line
        if os.getpid() != started:
            os._exit(0)
        if isinstance(error, _Missing):  # its message: the type of what is not a function, or empty (absent)
            _send(reply, {"missing": str(error)})
        else:
            kind, message = _raised(error)["raised"]
            _send(reply, {"error": f"{kind}: {message}" if message else kind})
        return
    if os.getpid() != started:
        os._exit(0)
    _send(reply, {"ready": _guarded(lambda f: getattr(f, "__name__", sys.argv[1]), function)})
    for line in requests:
        _send(reply, _isolated(function, json.loads(line), (requests.fileno(), reply.fileno())))


def _isolated(function: Any, keywords: dict[str, Any], private: tuple[int, int]) -> dict[str, Any]:
    """One call in a fork of the worker: an exit, a crash or a change of state (folder, signals) ends with it.

    The fork closes the worker's request and reply descriptors (``private``): a calculator writing to them could
    otherwise forge an answer and shift every later one onto the wrong inputs.
    """
    worker = os.getpid()
    readable, writable = os.pipe()
    child = os.fork()
    if child == 0:
        _die_with_parent(worker)
        os.close(readable)
        for fd in private:
            os.close(fd)
        me = os.getpid()
        answer = _call(function, keywords)
        if os.getpid() == me:  # a fork the calculator made that returned does not answer
            data = (json.dumps(answer) + "\n").encode()
            while data:
                data = data[os.write(writable, data) :]
        os._exit(0)
    os.close(writable)
    with os.fdopen(readable, "rb") as stream:  # ends when the call (and any fork of it) has ended
        data = stream.read()
    _, status = os.waitpid(child, 0)
    text = data.decode("utf-8", "replace").strip()
    if text:
        return json.loads(text.splitlines()[0])
    code = os.waitstatus_to_exitcode(status)
    return {"raised": ["RuntimeError", f"the calculator ended its process (exit status {code})"]}


if __name__ == "__main__":
    main()
