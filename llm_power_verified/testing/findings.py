"""The failures ``check_calculator`` looks for, each with a minimal counterexample.

Invalid answers (an exception, a timeout, NaN, an infinity, a value out of
range, something that is not a number), the overflow threshold of a p-value
function, non-monotonicity, asymmetry of a p-value, a p below 1 at b = c,
wrong tails and deviations beyond the tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass

import hypothesis.strategies as st
import numpy as np
from hypothesis.strategies import SearchStrategy

from llm_power_verified.results import Result
from llm_power_verified.testing.calls import Call, Outcome
from llm_power_verified.testing.candidates import ONE_SIDED, evaluate
from llm_power_verified.testing.conformance_results import CalculatorFailure
from llm_power_verified.testing.quantities import P_FLOOR, Quantity, allowed_items, relative_error
from llm_power_verified.testing.search import minimal, ordered_pairs, point_strategy

__all__ = [
    "Run",
    "deviation_failure",
    "invalid_failures",
    "overflow_threshold",
    "property_failures",
    "reference_at",
    "tail_failure",
]

#: The p-value search's largest discordant total.
MAX_TOTAL = 10**7


@dataclass(frozen=True, repr=False)
class Run(Result):
    """What the searches share: the quantity, the calculator, the tolerance and the search budget.

    Attributes
    ----------
    spec : Quantity
        The quantity checked.
    call : Call
        The calculator, with its argument map, time limit and cache.
    tolerance : float
        Relative tolerance.
    max_examples : int
        Examples per hypothesis search.
    reference : str
        The convention deviations are measured against (the claim, else the correct one).
    limit : int
        The largest discordant total searched (below an overflow threshold).
    """

    spec: Quantity
    call: Call
    tolerance: float
    max_examples: int
    reference: str
    limit: int = MAX_TOTAL

    def outcome(self, point: dict[str, float]) -> Outcome:
        """The calculator's answer at ``point`` (cached).

        Parameters
        ----------
        point : dict of str to float
            Our argument names and values.

        Returns
        -------
        Outcome
            The value or the failure kind.
        """
        return self.call(point)

    def strategy(self) -> SearchStrategy:
        """Points of the quantity, p-value totals up to ``limit``.

        Returns
        -------
        hypothesis.strategies.SearchStrategy
            Strategy of points (dicts of our argument names).
        """
        return point_strategy(self.spec.name, self.limit)


def _columns(points: list[dict[str, float]]) -> dict[str, np.ndarray]:
    return {name: np.asarray([point[name] for point in points], dtype=np.float64) for name in points[0]}


def reference_at(quantity: str, convention: str, point: dict[str, float]) -> float:
    """One convention's value at one point.

    Parameters
    ----------
    quantity : str
        A key of ``QUANTITIES``.
    convention : str
        One of its conventions.
    point : dict of str to float
        Our argument names and values.

    Returns
    -------
    float
        The convention's value there.
    """
    return float(evaluate(quantity, _columns([point]))[convention][0])


def _readable(point: dict[str, float]) -> dict[str, float]:
    return {name: float(value) for name, value in point.items()}


def _first(points: list[dict[str, float]], outcomes: list[Outcome], kind: str) -> dict[str, float]:
    return next(point for point, outcome in zip(points, outcomes, strict=True) if outcome.kind == kind)


def invalid_failures(run: Run, points: list[dict[str, float]], outcomes: list[Outcome]) -> list[CalculatorFailure]:
    """One failure per invalid kind seen on the points or found by the search, each at its minimal inputs.

    Parameters
    ----------
    run : Run
        The shared state.
    points : list of dict
        The grid and random points (below an overflow threshold).
    outcomes : list of Outcome
        The calculator's answers there.

    Returns
    -------
    list of CalculatorFailure
        One per kind: exception, timeout, not-a-number, nan, infinite, out-of-range.
    """
    kinds = list(dict.fromkeys(outcome.kind for outcome in outcomes if outcome.kind is not None))
    while True:  # search for kinds the points did not show, one new kind per search
        found = minimal(run.strategy(), lambda point: run.outcome(point).kind not in (None, *kinds), run.max_examples)
        if found is None:
            break
        kinds.append(run.outcome(found).kind)
    failures = []
    for kind in kinds:
        if kind == "timeout" and run.call.timed_out is not None:
            # The call that ran out of time, not a search: each step of one would wait out the limit again.
            point = dict(run.call.timed_out)
        else:
            smallest = minimal(
                run.strategy(), lambda point, kind=kind: run.outcome(point).kind == kind, run.max_examples
            )
            point = smallest if smallest is not None else _first(points, outcomes, kind)
        outcome = run.outcome(point)
        failures.append(
            CalculatorFailure(
                kind=kind,
                message=f"at {_show(point)}: {outcome.message}",
                counterexample=_readable(point),
                value=outcome.value,
            )
        )
    return failures


def _probes(total: int) -> list[dict[str, float]]:
    return [{"b": float(b), "c": float(total - b)} for b in sorted({total // 2, total // 4, 0})]


def _broken_probe(run: Run, total: int) -> dict[str, float] | None:
    """A probe at this discordant total with an invalid answer, or 0 where every candidate p is above the floor.

    A timeout is not a break: it says the machine was slow (or the function is), not that the value is wrong; the
    timeout failure reports it.
    """
    probes = _probes(total)
    values = evaluate("pvalue", _columns(probes))
    for index, probe in enumerate(probes):
        outcome = run.outcome(probe)
        if outcome.kind == "timeout":
            continue
        if not outcome.valid:
            return probe
        if outcome.value < P_FLOOR and all(values[name][index] > P_FLOOR for name in values):
            return probe
    return None


def _breaks(run: Run, total: int) -> bool:
    return _broken_probe(run, total) is not None


def overflow_threshold(run: Run, points: list[dict[str, float]], outcomes: list[Outcome]) -> CalculatorFailure | None:
    """The smallest discordant total from which a p-value function breaks: a doubling scan, then bisection.

    Only when it breaks at some grid total, passes at total 1, and keeps breaking above the total found (checked at
    total + 1, total + 3 and 2 total + 1): the total found fails, total - 1 passes.

    Parameters
    ----------
    run : Run
        The shared state.
    points : list of dict
        The grid and random points.
    outcomes : list of Outcome
        The calculator's answers there.

    Returns
    -------
    CalculatorFailure or None
        The "overflow" failure with its ``threshold``, or None.
    """
    broken = [
        int(point["b"] + point["c"])
        for point, outcome in zip(points, outcomes, strict=True)
        if not outcome.valid and outcome.kind != "timeout"
    ]
    if not broken or _breaks(run, 1):
        return None
    low, high = 1, 2
    while not _breaks(run, high):
        low, high = high, high * 2
        if high > 2 * MAX_TOTAL:
            return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if _breaks(run, middle) else (middle, high)
    if not all(_breaks(run, total) for total in (high + 1, high + 3, 2 * high + 1)):
        return None  # it breaks at some totals only (a tie rule, say): not a threshold, the point failures say it
    probe = _broken_probe(run, high)
    outcome = run.outcome(probe)
    what = outcome.message if not outcome.valid else f"returned {outcome.value!r} where p > {P_FLOOR:g}"
    return CalculatorFailure(
        kind="overflow",
        message=f"fails from b + c = {high} discordant pairs on ({what}; {high - 1} passes)",
        counterexample=_readable(probe),
        value=outcome.value,
        threshold=float(high),
    )


def _violates(run: Run, first: dict[str, float], second: dict[str, float], direction: int) -> bool:
    one, two = run.outcome(first), run.outcome(second)
    if not (one.valid and two.valid):
        return False
    low, high = (one.value, two.value) if direction < 0 else (two.value, one.value)
    if run.spec.name == "pvalue":
        low, high = max(low, P_FLOOR), max(high, P_FLOOR)
    allowance = 1.0 if run.spec.count else 0.0
    return high > low * (1 + run.tolerance) + allowance


def _monotone(run: Run) -> list[CalculatorFailure]:
    failures = []
    for what, strategy, direction in ordered_pairs(run.spec.name, run.limit):
        pair = minimal(strategy, lambda pair, direction=direction: _violates(run, *pair, direction), run.max_examples)
        if pair is None:
            continue
        first, second = pair
        one, two = run.outcome(first).value, run.outcome(second).value
        failures.append(
            CalculatorFailure(
                kind="non-monotone",
                message=f"{what}: {one:.6g} at {_show(first)} but {two:.6g} at {_show(second)}",
                counterexample={**_readable(first), **{f"then_{name}": value for name, value in second.items()}},
                value=two,
                expected=one,
            )
        )
    return failures


def _asymmetric(run: Run) -> list[CalculatorFailure]:
    def differs(point: dict[str, float]) -> bool:
        one, two = run.outcome(point), run.outcome({"b": point["c"], "c": point["b"]})
        return one.valid and two.valid and relative_error(run.spec, one.value, two.value) > run.tolerance

    point = minimal(run.strategy(), differs, run.max_examples)
    if point is None:
        return []
    one, two = run.outcome(point).value, run.outcome({"b": point["c"], "c": point["b"]}).value
    message = f"p(b, c) = {one:.6g} but p(c, b) = {two:.6g} at {_show(point)}: a two-sided p is symmetric"
    return [CalculatorFailure("asymmetric", message, _readable(point), one, two)]


def _below_one_at_ties(run: Run, closest: str) -> list[CalculatorFailure]:
    def below(point: dict[str, float]) -> bool:
        outcome = run.outcome(point)
        return outcome.valid and outcome.value < 1 - run.tolerance

    ties = st.integers(1, max(1, (run.limit - 1) // 2)).map(lambda k: {"b": float(k), "c": float(k)})
    point = minimal(ties, below, run.max_examples)
    if point is None:
        return []
    value = run.outcome(point).value
    hint = " (the continuity correction must not push |b - c| - 1 below 0)" if closest == "chi2-corrected" else ""
    message = f"p = {value:.6g} at b = c = {point['b']:g}, where a two-sided p is 1{hint}"
    return [CalculatorFailure("deviation", message, _readable(point), value, 1.0)]


def property_failures(run: Run, closest: str) -> list[CalculatorFailure]:
    """Non-monotonicity, and for p-values asymmetry and p < 1 at b = c (unless it is a one-sided p).

    Parameters
    ----------
    run : Run
        The shared state.
    closest : str
        The nearest candidate convention.

    Returns
    -------
    list of CalculatorFailure
        The properties that fail, each at its minimal counterexample.
    """
    failures = _monotone(run)
    if run.spec.name == "pvalue":
        failures += _asymmetric(run)
        if not _one_tailed(closest):
            failures += _below_one_at_ties(run, closest)
    return failures


def _one_tailed(convention: str) -> bool:
    return convention.endswith(ONE_SIDED) or convention.endswith("-upper-tail")


def tail_failure(run: Run, convention: str | None, region: dict[str, float]) -> CalculatorFailure | None:
    """A "wrong-tails" failure: a one-tailed convention found where the two-sided reference is meant.

    Parameters
    ----------
    run : Run
        The shared state.
    convention : str or None
        The convention found.
    region : dict of str to float
        The counterexample to report (where the function deviates).

    Returns
    -------
    CalculatorFailure or None
        The failure, or None when the tails agree.
    """
    if convention is None or not _one_tailed(convention) or _one_tailed(run.reference):
        return None
    if convention.endswith("-upper-tail"):
        how = "counts only the tail the effect points to" + (
            " (R power.t.test's default strict = FALSE)" if convention.startswith("noncentral") else ""
        )
    else:
        how = "uses z_{1-alpha} (one tail at alpha)" if run.spec.name != "pvalue" else "returns a one-sided p"
    message = f"it matches {convention}: it {how}, where the two-sided {run.reference} is meant"
    return CalculatorFailure("wrong-tails", message, _readable(region))


def deviation_failure(run: Run, fallback: dict[str, float], error: float) -> CalculatorFailure:
    """A deviation beyond the tolerance from the reference, at the minimal inputs the search finds.

    Parameters
    ----------
    run : Run
        The shared state.
    fallback : dict of str to float
        The grid point of the largest error, used when the search finds nothing.
    error : float
        The largest relative error on the grid.

    Returns
    -------
    CalculatorFailure
        The "deviation" failure.
    """

    def deviates(point: dict[str, float]) -> bool:
        outcome = run.outcome(point)
        if not outcome.valid:
            return False
        expected = reference_at(run.spec.name, run.reference, point)
        return relative_error(run.spec, outcome.value, expected, allowed_items(run.reference)) > run.tolerance

    point = minimal(run.strategy(), deviates, run.max_examples) or fallback
    value = run.outcome(point).value
    expected = reference_at(run.spec.name, run.reference, point)
    found = relative_error(run.spec, value, expected, allowed_items(run.reference)) if value is not None else error
    message = (
        f"the simplest counterexample found: {value:.6g} at {_show(point)} where {run.reference} gives "
        f"{expected:.6g} (relative error {found:.3g}); the largest over the grid and random points is {error:.3g}, "
        f"at {_show(fallback)} (tolerance {run.tolerance:g})"
    )
    return CalculatorFailure("deviation", message, _readable(point), value, expected)


def _show(point: dict[str, float]) -> str:
    return ", ".join(f"{name} = {value:g}" for name, value in point.items())
