"""The real power calculators of the conformance run, each as a call template that is evaluated as written.

A :class:`ToolFunction` is one function of one tool: its quantity (a key of ``llm_power_verified.testing``'s
quantities: ``required_n``, ``pvalue``, ``power_paired_t``, ``required_n_paired_t``), the exact call it runs with our
argument names as ``str.format`` fields (``{p_a!r}``, ``{b!r}``, ...), the convention the tool's documentation says it
computes (its claim) with that documentation, and how its version is read.  :class:`ToolRunner` turns one into a
plain Python callable with our keyword interface: the callable fills the template with the arguments and evaluates
that text (Python through ``eval`` in the namespace of the function's imports, R in a persistent
:class:`crosscheck.r_session.RSession`), so the call recorded beside a value is the code that produced it, never a
retyped description.

The functions themselves are listed per tool family in ``tool_adapters_python`` (statsmodels, scipy, pingouin and the
documented formulas of G*Power and Cohen), ``tool_adapters_r`` (R ``stats`` and ``pwr``) and ``tool_adapters_peers``
(LLM-evaluation packages from PyPI).
"""

from __future__ import annotations

import importlib.metadata
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from crosscheck.r_session import RSession
from crosscheck.r_tools import RUnavailable

#: Each quantity's argument names (in the order calls are written), and which of them are whole counts.
ARGUMENTS = {
    "required_n": ("p_a", "p_b", "rho", "alpha", "power"),
    "pvalue": ("b", "c"),
    "power_paired_t": ("n", "effect_size", "alpha"),
    "required_n_paired_t": ("effect_size", "alpha", "power"),
}
COUNTS = ("b", "c")


@dataclass(frozen=True)
class ToolFunction:
    """One function of one tool, as the conformance run calls it.

    Attributes
    ----------
    key : str
        Unique name of this entry (tool, function and options), used in records and ``--tools``.
    family : str
        The tool family (``statsmodels``, ``scipy``, ``r-stats``, ``r-pwr``, ``pingouin``, ``documented``, or a
        PyPI package name), selectable with ``--tools``.
    tool : str
        The tool as a reader knows it ("statsmodels", "R stats", "errorbars").
    function : str
        The function and options called.
    quantity : str
        A key of :data:`ARGUMENTS`.
    language : str
        "python", "r" or "documented" (a formula reproduced from documentation, never a run of the tool).
    template : str
        The call, with our argument names as ``str.format`` fields.
    claim : str or None
        The convention the tool's documentation says it computes (a candidate name of the quantity).
    claim_source : str
        Where that is documented.
    distribution : str
        What the version is read from: a Python distribution name, "R" (R's version) or "R:pwr" (an R package).
    setup : str
        Python statements run once to build the namespace the template is evaluated in (its imports).
    tolerance : float or None
        The relative tolerance for the conformance check (None: check_calculator's default), with its reason.
    tolerance_reason : str
        Why that tolerance (for example the tool's root finder's tolerance).
    timeout : float
        Seconds one call may take.
    grid : str
        check_calculator's grid: "default", or "small" (every third point) for a tool that is slow at large counts.
    on_request : bool
        Run only when named with ``--tools`` (its stored record is kept otherwise): for a tool whose calls at large
        counts can outgrow memory before a time limit stops them.
    """

    key: str
    family: str
    tool: str
    function: str
    quantity: str
    language: str
    template: str
    claim: str | None
    claim_source: str
    distribution: str
    setup: str = ""
    tolerance: float | None = None
    tolerance_reason: str = ""
    timeout: float = 5.0
    grid: str = "default"
    on_request: bool = False

    def call_text(self, arguments: Mapping[str, Any]) -> str:
        """The exact call for ``arguments`` (our names), with counts as ints and the rest as floats."""
        return self.template.format(**normalized(arguments))


def normalized(arguments: Mapping[str, Any]) -> dict[str, int | float]:
    """Counts as Python ints and everything else as Python floats (so ``repr`` writes plain literals)."""
    values: dict[str, int | float] = {}
    for name, value in arguments.items():
        number = float(value)
        values[name] = int(number) if name in COUNTS and number.is_integer() else number
    return values


def as_number(returned: Any) -> float | None:
    """A returned value as a float for the record (a one-element array counts), or None when it is not a number."""
    if isinstance(returned, bool) or returned is None or isinstance(returned, (str, bytes)):
        return None
    try:
        array = np.asarray(returned)
        if array.size == 1 and array.dtype.kind in "iuf":
            return float(array.reshape(-1)[0])
    except (TypeError, ValueError, OverflowError):
        return None
    return None


@dataclass
class CallLog:
    """The calls one tool function received: the exact call text, the value (or the error) of each."""

    entries: list[dict[str, object]] = field(default_factory=list)

    def add(self, arguments: Mapping[str, Any], call: str, value: float | None, error: str | None) -> None:
        """Record one call."""
        shown = value if value is None or math.isfinite(value) else repr(value)  # JSON has no NaN or infinity
        entry: dict[str, object] = {"arguments": normalized(arguments), "call": call, "value": shown}
        if error is not None:
            entry["error"] = error
        self.entries.append(entry)


class ToolRunner:
    """Binds :class:`ToolFunction` entries to callables; owns the R session they share (a context manager)."""

    def __init__(self, r_timeout: float = 30.0) -> None:
        self._r_timeout = r_timeout
        self._session: RSession | None = None
        self._r_problem: str | None = None
        self._namespaces: dict[str, dict[str, Any]] = {}

    def __enter__(self) -> ToolRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._session is not None:
            self._session.close()

    def session(self) -> RSession:
        """The shared R session (started on first use); RUnavailable when R or pwr is missing."""
        if self._r_problem is not None:
            raise RUnavailable(self._r_problem)
        if self._session is None:
            try:
                session = RSession(timeout=self._r_timeout)
                session.start()
            except RUnavailable as error:
                self._r_problem = str(error)
                raise
            self._session = session
        return self._session

    def unavailable(self, entry: ToolFunction) -> str | None:
        """Why ``entry`` cannot run here (not installed, not importable), or None when it can."""
        try:
            if entry.language == "r":
                self.session()
            elif entry.language in ("python", "documented"):
                self.namespace(entry)
        except RUnavailable as error:
            return str(error)
        except ImportError as error:
            return (
                f"{entry.distribution} is not installed or not importable ({error}); the install command is in "
                "docs/source/reference/calculator-conformance.rst"
            )
        return None

    def namespace(self, entry: ToolFunction) -> dict[str, Any]:
        """The globals the template of ``entry`` is evaluated in (its setup run once)."""
        if entry.setup not in self._namespaces:
            namespace: dict[str, Any] = {"math": math}
            exec(compile(entry.setup, f"<setup of {entry.key}>", "exec"), namespace)  # our own setup text (imports)
            self._namespaces[entry.setup] = namespace
        return self._namespaces[entry.setup]

    def version(self, entry: ToolFunction) -> str:
        """The version of the tool, read now."""
        if entry.distribution == "R":
            return self.session().versions()["R"]
        if entry.distribution.startswith("R:"):
            package = entry.distribution[2:]
            return self.session().text(f"as.character(packageVersion('{package}'))")
        if entry.language == "documented":
            return entry.distribution
        return importlib.metadata.version(entry.distribution)

    def callable(self, entry: ToolFunction, log: CallLog | None = None) -> Callable[..., Any]:
        """A function of our keyword arguments that runs ``entry``'s call and returns what the tool returned."""
        if entry.language == "r":
            session = self.session()

            def evaluate(call: str) -> Any:
                return session.evaluate(call)

        else:
            namespace = self.namespace(entry)

            def evaluate(call: str) -> Any:
                return eval(compile(call, f"<{entry.key}>", "eval"), namespace)  # the call that is recorded

        def run(**arguments: Any) -> Any:
            call = entry.call_text(arguments)
            try:
                returned = evaluate(call)
            except BaseException as error:
                if log is not None:
                    log.add(arguments, call, None, f"{type(error).__name__}: {error}")
                raise
            if log is not None:
                log.add(arguments, call, as_number(returned), None)
            return returned

        run.__name__ = entry.key
        run.__qualname__ = entry.key
        return run
