"""Calling a calculator under test: argument maps, a time limit per call, and what came back.

A calculator is called with keyword arguments.  ``arguments`` adapts other
signatures: each of the quantity's argument names may map to the function's
own keyword (a rename) or to None (not passed: the function does not take
it), and the reserved key ``"constants"`` maps extra keywords to values passed
at every call (``{"constants": {"ratio": 1}}``).

Every call is classified: a number (a float, an int, a NumPy scalar or a
one-element array), or a failure kind: "exception", "timeout",
"not-a-number" (a string, None, a tuple, ...), "nan", "infinite" or
"out-of-range" (a p-value or power outside [0, 1], a negative sample size).
"""

from __future__ import annotations

import decimal
import math
import numbers
import signal
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.results import Result

__all__ = ["CONSTANTS_KEY", "Call", "Outcome", "argument_map"]

#: The reserved key of ``arguments`` whose mapping is passed unchanged at every call.
CONSTANTS_KEY = "constants"


class _Timeout(BaseException):
    """Raised by the alarm inside a call that ran too long (a BaseException: ``except Exception`` cannot catch it)."""


@dataclass(frozen=True, repr=False)
class Outcome(Result):
    """One call's value (a float) or its failure kind, with a message.

    Attributes
    ----------
    value : float or None
        The number returned (None for an exception, a timeout or a non-number).
    kind : str or None
        The failure kind, None for a valid answer.
    message : str
        What happened, and any warning the calculator gave.
    """

    value: float | None
    kind: str | None
    message: str = ""

    @property
    def valid(self) -> bool:
        """Whether the call gave a number in range.

        Returns
        -------
        bool
            True when ``kind`` is None.
        """
        return self.kind is None


def argument_map(
    arguments: Mapping[str, Any] | None, allowed: tuple[str, ...]
) -> tuple[dict[str, str | None], dict[str, Any]]:
    """(rename, constants) from ``arguments``; an unknown name is an ArgumentError naming it and the allowed names.

    Parameters
    ----------
    arguments : mapping or None
        Our name -> the function's keyword (or None: not passed); ``"constants"`` -> extra keywords and values.
    allowed : tuple of str
        The quantity's argument names.

    Returns
    -------
    tuple of dict
        Our name -> keyword (or None), and the constants.
    """
    rename: dict[str, str | None] = {name: name for name in allowed}
    constants: dict[str, Any] = {}
    if arguments is None:
        return rename, constants
    if not isinstance(arguments, Mapping):
        raise ArgumentError(f"arguments must be a mapping (our name -> the function's keyword); got {arguments!r}")
    for key, target in arguments.items():
        if key == CONSTANTS_KEY:
            if not isinstance(target, Mapping) or not all(isinstance(name, str) for name in target):
                raise ArgumentError(f"arguments[{CONSTANTS_KEY!r}] must map keyword names to values; got {target!r}")
            constants.update(target)
        elif key not in allowed:
            raise ArgumentError(
                f"arguments has an unknown name {key!r}; allowed: {', '.join(allowed)} (and {CONSTANTS_KEY!r})"
            )
        elif target is not None and not (isinstance(target, str) and target.isidentifier()):
            raise ArgumentError(f"arguments[{key!r}] must be a keyword name or None; got {target!r}")
        else:
            rename[key] = target
    passed = [target for target in rename.values() if target is not None]
    repeated = sorted({target for target in passed if passed.count(target) > 1})
    if repeated:
        ours = [name for name, target in rename.items() if target == repeated[0]]
        raise ArgumentError(
            f"arguments passes {' and '.join(ours)} as the same keyword {repeated[0]!r}; each must have its own"
        )
    clash = sorted(set(constants) & set(passed))
    if clash:
        raise ArgumentError(
            f"arguments[{CONSTANTS_KEY!r}] sets {clash[0]!r}, which is already passed a varied argument; a constant "
            "must be a keyword the quantity's arguments do not use"
        )
    return rename, constants


def _as_float(returned: Any) -> float | None:
    """The number returned, or None for something that is not a real number (or cannot be read as one)."""
    if isinstance(returned, (bool, np.bool_)) or returned is None or isinstance(returned, (str, bytes)):
        return None
    if isinstance(returned, np.ndarray):
        if not (returned.size == 1 and returned.dtype.kind in "iuf"):
            return None
        returned = returned.reshape(-1)[0]
    if isinstance(returned, (numbers.Real, decimal.Decimal, np.integer, np.floating)):
        try:
            return float(returned)
        except OverflowError:  # an int (or Fraction) beyond the largest double
            return math.inf
        except Exception:  # a subclass whose __float__ raises: not readable as a number
            return None
    return None


def _describe(error: BaseException) -> str:
    """``Type: message`` of an exception, even when its ``__str__`` raises."""
    try:
        text = str(error)
    except Exception:
        text = "(its message could not be read)"
    return f"{type(error).__name__}: {text}"


class Call:
    """The calculator under test, with its argument map, time limit, cache and call count.

    Parameters
    ----------
    fn : callable
        The calculator.
    allowed : tuple of str
        The quantity's argument names.
    arguments : mapping or None
        The argument map (see :func:`argument_map`).
    timeout : float or None
        Seconds per call, None for unbounded.
    upper : float or None
        The largest valid value (1 for a probability).
    counts : tuple of str, default ()
        Arguments passed as Python ints (b, c, n).
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        allowed: tuple[str, ...],
        arguments: Mapping[str, Any] | None,
        timeout: float | None,
        upper: float | None,
        counts: tuple[str, ...] = (),
    ) -> None:
        if not callable(fn):
            raise ArgumentError(f"fn must be callable; got {fn!r}")
        if timeout is not None and (
            isinstance(timeout, bool) or not (isinstance(timeout, (int, float)) and 0 < timeout < math.inf)
        ):
            raise ArgumentError(f"timeout must be a positive number of seconds or None; got {timeout!r}")
        self.fn = fn
        self.rename, self.constants = argument_map(arguments, allowed)
        self.timeout = timeout
        self.upper = upper
        self.counts = counts
        self.calls = 0
        self._cache: dict[tuple[tuple[str, float], ...], Outcome] = {}
        # The smallest count total (b + c, or n) at which a call ran out of time: a larger total is not called.
        self._slowest: float | None = None
        #: The point whose call ran out of time at the smallest count total (None when none did).
        self.timed_out: Mapping[str, float] | None = None

    def __call__(self, point: Mapping[str, float]) -> Outcome:
        """The calculator's outcome at ``point`` (our argument names), called once per distinct point.

        Parameters
        ----------
        point : mapping of str to float
            Our argument names and values.

        Returns
        -------
        Outcome
            The value or the failure kind.
        """
        key = tuple(sorted((name, float(value)) for name, value in point.items()))
        if key not in self._cache:
            size = self.size(point)
            if self._slowest is not None and size >= self._slowest:
                # A naive exact tail (a sum of math.comb terms) slows with the total; without this, every larger
                # total of the grid and the searches would wait out its own time limit.  Said, not hidden.
                self._cache[key] = Outcome(
                    None,
                    "timeout",
                    f"not called: a call at a count total of {self._slowest:,.0f} already took longer than "
                    f"{self.timeout:g} s, and this one's total is {size:,.0f}",
                )
            else:
                self._cache[key] = self._classify(point)
                if self._cache[key].kind == "timeout" and (self._slowest is None or size < self._slowest):
                    self.timed_out = dict(point)
                    if self.counts:
                        self._slowest = size
        return self._cache[key]

    def size(self, point: Mapping[str, float]) -> float:
        """The count total of ``point`` (b + c, or n): the order in which a slow calculator is called.

        Parameters
        ----------
        point : mapping of str to float
            Our argument names and values.

        Returns
        -------
        float
            The sum of its count arguments (0 for a quantity without counts).
        """
        return float(sum(abs(float(point[name])) for name in self.counts if name in point))

    def _keywords(self, point: Mapping[str, float]) -> dict[str, Any]:
        keywords = {
            target: _whole(point[name]) if name in self.counts else float(point[name])
            for name, target in self.rename.items()
            if target is not None
        }
        keywords.update(self.constants)
        return keywords

    def _classify(self, point: Mapping[str, float]) -> Outcome:
        self.calls += 1
        try:
            returned, caught = self._run(self._keywords(point))
        except _Timeout:
            return Outcome(None, "timeout", f"no answer within {self.timeout:g} s")
        except (Exception, SystemExit, GeneratorExit) as error:  # the calculator's, a finding: not our bug
            # SystemExit from a calculator (sys.exit inside it) must not end the caller's run; KeyboardInterrupt
            # propagates: in-process it cannot be told from the user's Ctrl-C.
            return Outcome(None, "exception", _describe(error))
        value = _as_float(returned)
        note = f" (it warned: {caught})" if caught else ""
        if value is None:
            return Outcome(None, "not-a-number", f"returned {_short(returned)}{note}")
        if math.isinf(value) and isinstance(returned, numbers.Rational) and not isinstance(returned, float):
            return Outcome(value, "infinite", f"returned a whole number beyond the largest double{note}")
        if math.isnan(value):
            return Outcome(value, "nan", f"returned NaN{note}")
        if math.isinf(value):
            return Outcome(value, "infinite", f"returned {value}{note}")
        if value < 0 or (self.upper is not None and value > self.upper):
            allowed = f"[0, {self.upper:g}]" if self.upper is not None else ">= 0"
            return Outcome(value, "out-of-range", f"returned {value!r}, outside {allowed}{note}")
        return Outcome(value, None, note)

    def _run(self, keywords: dict[str, Any]) -> tuple[Any, str]:
        # The calculator's own warnings are recorded and reported with its value, not shown: it is called hundreds of
        # times, and under "-W error" a warning would turn into an exception, making the verdict depend on the
        # caller's warning settings.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            returned = self._with_alarm(keywords)
        return returned, (_describe(caught[0].message).split(": ", 1)[-1] if caught else "")

    def _with_alarm(self, keywords: dict[str, Any]) -> Any:
        """Call with SIGALRM after ``timeout`` s (main thread only; a call stuck in C code may not be interrupted)."""
        if self.timeout is None or threading.current_thread() is not threading.main_thread():
            return self.fn(**keywords)
        live = [True]

        def expire(signum: int, frame: Any) -> None:
            if not live[0]:
                return
            # Fire again shortly: Python ignores an exception raised inside a gc or weakref callback or a __del__
            # (it prints "Exception ignored in ..."), and the call would then run on with no limit.  Such frames
            # are skipped outright, so the alarm lands in the calculator's own code.
            signal.setitimer(signal.ITIMER_REAL, _REFIRE)
            if not _swallows_exceptions(frame):
                raise _Timeout

        previous = signal.signal(signal.SIGALRM, expire)
        started = time.monotonic()
        earlier = 0.0
        try:
            earlier, _ = signal.setitimer(signal.ITIMER_REAL, self.timeout)
            return self.fn(**keywords)
        finally:
            try:
                _disarm(live, previous)
            except _Timeout:  # an alarm landed between the raise and the disarm: disarm again (it is no longer live)
                _disarm(live, previous)
            if earlier > 0:  # someone else's alarm was running: give it back what is left of it
                signal.setitimer(signal.ITIMER_REAL, max(earlier - (time.monotonic() - started), 1e-6))


#: Seconds until the alarm fires again when its exception may have been swallowed.
_REFIRE = 0.01

#: Names of functions whose exceptions Python ignores (gc callbacks such as hypothesis's, finalizers).
_SWALLOWING = frozenset({"__del__", "gc_callback", "_remove_dead_weakref"})


def _swallows_exceptions(frame: Any) -> bool:
    """Whether an exception raised in ``frame`` would be ignored: a finalizer, a gc callback, a weakref callback."""
    while frame is not None:  # the callback may have called further Python code: look down the whole stack
        if frame.f_code.co_name in _SWALLOWING or frame.f_globals.get("__name__") in ("weakref", "_weakrefset"):
            return True
        frame = frame.f_back
    return False


def _disarm(live: list[bool], previous: Any) -> None:
    live[0] = False
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def _whole(value: float) -> int | float:
    """Whole counts (b, c, n) as Python ints, so that ``math.comb`` and ``range`` take them."""
    number = float(value)
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def _short(returned: Any) -> str:
    try:
        text = repr(returned)
    except Exception:
        return f"a {type(returned).__name__} whose repr raised"
    return text if len(text) <= 60 else text[:57] + "..."
