"""Check a power calculator against the package's convention table and the correct quantity.

:func:`check_calculator` calls a function on a deterministic grid, on seeded
random points and in a hypothesis property search, names the convention it
implements, measures its largest relative error against what it claims and,
separately, against what a user needs, and lists its failures, each at a
minimal counterexample.  :func:`assert_conforms` is the same check for pytest.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.testing.calls import Call, Outcome
from llm_power_verified.testing.candidates import costly_points, evaluate, evaluate_costly
from llm_power_verified.testing.conformance_results import (
    FAILURE_KINDS,
    CalculatorConformance,
    CalculatorFailure,
    Deviation,
)
from llm_power_verified.testing.findings import (
    Run,
    deviation_failure,
    invalid_failures,
    overflow_threshold,
    property_failures,
    tail_failure,
)
from llm_power_verified.testing.quantities import QUANTITIES, allowed_items, grid_points, random_points, relative_error

__all__ = [
    "QUANTITIES",
    "RANDOM_POINTS",
    "CalculatorConformance",
    "CalculatorFailure",
    "Deviation",
    "assert_conforms",
    "check_calculator",
]

#: Seeded random points added to the grid.
RANDOM_POINTS = 20
_GRIDS = ("default", "small")
_CORRECT = {
    "required_n": "paired N* (Eq. 6)",
    "pvalue": "exact McNemar p",
    "power_paired_t": "exact noncentral-t power",
    "required_n_paired_t": "exact noncentral-t n",
}


#: Seconds a call may take by default: an in-process calculator answers in micro- to milliseconds.
DEFAULT_TIMEOUT = 10.0

#: The most examples a property search may take: each is one or two calls, and a run must end.
MAX_EXAMPLES = 100_000


def _validate(
    quantity: str, claims: str | None, tolerance: float | None, max_examples: int, grid: str, seed: int, name: Any
) -> float:
    if name is not None and not isinstance(name, str):
        raise ArgumentError(f"name must be a string or None; got {name!r}")
    if quantity not in QUANTITIES:
        raise ArgumentError(f"quantity must be one of {', '.join(QUANTITIES)}; got {quantity!r}")
    spec = QUANTITIES[quantity]
    if claims is not None and claims not in spec.conventions:
        raise ArgumentError(f"claims must be None or one of {', '.join(spec.conventions)}; got {claims!r}")
    if grid not in _GRIDS:
        raise ArgumentError(f"grid must be one of {', '.join(_GRIDS)}; got {grid!r}")
    if isinstance(max_examples, bool) or not isinstance(max_examples, int) or not 1 <= max_examples <= MAX_EXAMPLES:
        raise ArgumentError(f"max_examples must be a whole number from 1 to {MAX_EXAMPLES:,}; got {max_examples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ArgumentError(f"seed must be a whole number >= 0; got {seed!r}")
    if tolerance is None:
        return spec.tolerance
    # A relative tolerance above 1 would let a calculator off by more than the quantity itself conform.
    if isinstance(tolerance, bool) or not (isinstance(tolerance, (int, float)) and 0 < tolerance <= 1):
        raise ArgumentError(f"tolerance must be a relative error in (0, 1]; got {tolerance!r}")
    return float(tolerance)


def _errors(spec, outcomes: list[Outcome], values: np.ndarray, usable: list[int], label: str = "") -> list[float]:
    items = allowed_items(label)
    return [relative_error(spec, outcomes[index].value, float(values[index]), items) for index in usable]


def _largest(errors: list[float], usable: list[int]) -> tuple[float, int | None]:
    if not usable:
        return math.inf, None
    position = int(np.argmax(np.where(np.isnan(errors), np.inf, errors)))
    return float(errors[position]), usable[position]


def _deviations(points, outcomes, candidates, correct: str, claimed, found, spec, count: int) -> tuple[Deviation, ...]:
    def error(index: int, name: str | None) -> float | None:
        if name is None or not outcomes[index].valid:
            return None
        return relative_error(spec, outcomes[index].value, float(candidates[name][index]), allowed_items(name))

    return tuple(
        Deviation(
            inputs=dict(points[index]),
            value=outcomes[index].value,
            correct=float(candidates[correct][index]),
            claimed=float(candidates[claimed][index]) if claimed else None,
            found=float(candidates[found][index]) if found and not np.isnan(candidates[found][index]) else None,
            error_against_correct=error(index, correct),
            error_against_claim=error(index, claimed),
            error_against_found=error(index, found),
        )
        for index in range(count)
    )


def _summary(function: str, spec, convention, closest, errors, reference, correct_error, failures, tolerance) -> str:
    kinds = ", ".join(dict.fromkeys(failure.kind for failure in failures))
    if math.isinf(errors[closest]):
        found = f"{function} gave no valid answer to compare"
    elif convention is not None:
        found = f"{function} implements {convention} (largest deviation from it {errors[convention]:.2g})"
    else:
        found = (
            f"{function} matches no convention within {tolerance:g}; the closest is {closest} ({errors[closest]:.3g})"
        )
    sides = "" if spec.name == "pvalue" else " two-sided"
    against = f"against the correct{sides} {_CORRECT[spec.name]} its largest relative error is {correct_error:.3g}"
    claim = "" if reference == spec.reference else f" (judged against its claim, {reference})"
    tail = f" Failures: {kinds}." if kinds else " No failures."
    return f"{found}; {against}{claim}.{tail}"


def check_calculator(
    fn: Callable[..., Any],
    quantity: str = "required_n",
    *,
    arguments: Mapping[str, Any] | None = None,
    claims: str | None = None,
    tolerance: float | None = None,
    seed: int = 0,
    max_examples: int = 100,
    grid: str = "default",
    timeout: float | None = DEFAULT_TIMEOUT,
    name: str | None = None,
) -> CalculatorConformance:
    """Check a calculator against every convention of ``quantity`` and against the correct quantity.

    Parameters
    ----------
    fn : callable
        The calculator, called with keyword arguments: ``p_a, p_b, rho, alpha, power`` (required_n), ``b, c``
        (pvalue), ``n, effect_size, alpha`` (power_paired_t), ``effect_size, alpha, power`` (required_n_paired_t).
    quantity : str, default "required_n"
        A key of ``QUANTITIES``.
    arguments : mapping, optional
        Adapts other signatures: our name -> the function's keyword (a rename), or -> None (not passed); the key
        ``"constants"`` maps extra keywords to values passed at every call, e.g. ``{"p_a": "p1", "rho": None,
        "constants": {"ratio": 1}}``.  An unknown name is an ArgumentError naming the allowed ones.
    claims : str, optional
        The convention the function claims to implement (one of the quantity's conventions); it is then the
        reference of ``max_relative_error`` and of the "deviation" failure.
    tolerance : float, optional
        Relative tolerance; the quantity's default (0.5% for sample sizes, 1e-6 for p-values, 1e-4 for a power).
    seed : int, default 0
        Seed of the random points (numpy.random.default_rng); the same seed gives the same result.
    max_examples : int, default 100
        Examples per hypothesis search (each search calls fn once or twice per example, plus shrinking).
    grid : {"default", "small"}, default "default"
        "small" keeps every third grid point, for slow tools.
    timeout : float or None, default 10
        Seconds per call (SIGALRM, main thread only; a call stuck inside C code may not be interrupted); a call
        that runs out is a "timeout" failure, and no larger count total (b + c, n) is called after it.  None:
        unbounded (a naive exact tail summed in big integers can then run for hours at 10^7 discordant pairs).
    name : str, optional
        The function's name in the result (default ``fn.__name__``).

    Returns
    -------
    CalculatorConformance
        The convention found, the errors against the claim and against the correct quantity, the failures with
        minimal counterexamples, and the deviation map over the grid.

    Notes
    -----
    The grid (52 points for required_n, 77 for pvalue, 70 for power_paired_t, 12 for required_n_paired_t) and 20
    seeded random points decide the convention and the errors; hypothesis searches (derandomized, no database, quiet)
    shrink each failure to a minimal counterexample.  A default run on an in-process function makes 320 to 670
    distinct calls (answers are cached) and takes 0.4 to 1.5 s (measured).  The relative error of a count allows one
    item (a ceiling or rounding); p-values below 1e-300 compare as equal (double underflow).  The costly exact
    McNemar n is tried only when no closed form fits, at the grid's gaps of 0.25 or more.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Eq. 6 (the paired N*) and Section 4.1 (the
    calculator conventions and the (1 - rho) shortcut); Connor, R. J. (1987), Biometrics 43, 207-211; MacIver, D. R.
    et al., hypothesis (the property search and its shrinking).

    Examples
    --------
    >>> from llm_power_verified.power import required_n_paired_binary
    >>> def one_tailed(p_a, p_b, rho, alpha, power):
    ...     return float(required_n_paired_binary(p_a, p_b, rho, 2 * alpha, power))
    >>> result = check_calculator(one_tailed, max_examples=10)
    >>> result.conforms, result.convention, [failure.kind for failure in result.failures]
    (False, 'paired-one-sided', ['wrong-tails', 'deviation'])
    """
    tolerance = _validate(quantity, claims, tolerance, max_examples, grid, seed, name)
    spec = QUANTITIES[quantity]
    counts = ("b", "c", "n") if quantity in ("pvalue", "power_paired_t") else ()
    call = Call(fn, spec.arguments, arguments, timeout, spec.upper, counts)
    reference = claims or spec.reference
    run = Run(spec, call, tolerance, max_examples, reference)
    grid_list = grid_points(quantity, grid)
    points = grid_list + random_points(quantity, np.random.default_rng(seed), RANDOM_POINTS)
    for point in sorted(points, key=call.size):  # smallest totals first: a slow calculator times out once
        call(point)
    outcomes = [call(point) for point in points]
    failures: list[CalculatorFailure] = []
    overflow = overflow_threshold(run, points, outcomes) if quantity == "pvalue" else None
    if overflow is not None:
        failures.append(overflow)
        run = replace(run, limit=int(overflow.threshold) - 1)
    below = [
        index for index, point in enumerate(points) if quantity != "pvalue" or point["b"] + point["c"] <= run.limit
    ]
    failures += invalid_failures(run, [points[i] for i in below], [outcomes[i] for i in below])
    usable = [index for index in below if outcomes[index].valid]
    return _conclude(fn, name, run, points, outcomes, usable, failures, len(grid_list), seed, claims)


def _try_costly(run: Run, points, outcomes, usable, candidates, errors) -> str | None:
    """The first costly candidate within the tolerance at its few points (added to candidates and errors), or None."""
    chosen = [index for index in usable if costly_points(run.spec.name, points[index])]
    for label in run.spec.costly if chosen else ():
        values = np.full(len(points), np.nan)
        values[chosen] = evaluate_costly(run.spec.name, label, [points[index] for index in chosen])
        candidates[label] = values
        errors[label] = _largest(_errors(run.spec, outcomes, values, chosen), chosen)[0]
        if errors[label] <= run.tolerance:
            return label
    return None


def _conclude(
    fn, name, run: Run, points, outcomes, usable, failures, grid_count, seed, claims
) -> CalculatorConformance:
    spec, tolerance = run.spec, run.tolerance
    candidates = evaluate(spec.name, {key: np.asarray([point[key] for point in points]) for key in points[0]})
    errors = {
        label: _largest(_errors(spec, outcomes, candidates[label], usable, label), usable)[0] for label in candidates
    }
    closest = min(spec.conventions, key=lambda label: errors[label])
    if errors[closest] > tolerance:
        closest = _try_costly(run, points, outcomes, usable, candidates, errors) or closest
    convention = closest if errors[closest] <= tolerance else None
    error, where = _largest(_errors(spec, outcomes, candidates[run.reference], usable, run.reference), usable)
    correct_error, correct_where = _largest(
        _errors(spec, outcomes, candidates[spec.reference], usable, spec.reference), usable
    )
    region = dict(points[where]) if where is not None else {}
    deviation = deviation_failure(run, points[where], error) if error > tolerance and where is not None else None
    tails = tail_failure(run, convention, deviation.counterexample if deviation is not None else region)
    failures += [failure for failure in (tails, deviation) if failure is not None]
    failures += property_failures(run, closest)
    failures.sort(key=lambda failure: FAILURE_KINDS.index(failure.kind))
    function = name or getattr(fn, "__name__", None) or repr(fn)
    conforms = not failures and error <= tolerance
    return CalculatorConformance(
        function=function,
        quantity=spec.name,
        conforms=conforms,
        convention=convention,
        closest=closest,
        claimed_convention=claims,
        reference=run.reference,
        max_relative_error=error,
        region=region,
        error_against_claim=errors[claims] if claims else None,
        error_against_correct=correct_error,
        correct_region=dict(points[correct_where]) if correct_where is not None else {},
        conforms_to_claim=conforms if claims else None,
        tolerance=tolerance,
        failures=tuple(failures),
        deviations=_deviations(points, outcomes, candidates, spec.reference, claims, convention, spec, grid_count),
        candidate_errors=errors,
        calls=run.call.calls,
        seed=seed,
        summary=_summary(
            function, spec, convention, closest, errors, run.reference, correct_error, failures, tolerance
        ),
    )


def assert_conforms(fn: Callable[..., Any], quantity: str = "required_n", **options: Any) -> CalculatorConformance:
    """:func:`check_calculator`, raising AssertionError with a readable summary when the function does not conform.

    Parameters
    ----------
    fn : callable
        The calculator (see :func:`check_calculator`).
    quantity : str, default "required_n"
        A key of ``QUANTITIES``.
    **options
        The keyword arguments of :func:`check_calculator`.

    Returns
    -------
    CalculatorConformance
        The result, when the function conforms.

    Raises
    ------
    AssertionError
        The summary, then one line per failure with its minimal counterexample.

    Notes
    -----
    It passes when :func:`check_calculator`'s ``conforms`` is True: no failure, and the largest relative error
    against the reference (the claim when ``claims`` is given, else the correct quantity) within the tolerance.

    References
    ----------
    As :func:`check_calculator`.

    Examples
    --------
    >>> from scipy.stats import binomtest
    >>> def exact_p(b, c):
    ...     return binomtest(b, b + c).pvalue if b + c else 1.0
    >>> assert_conforms(exact_p, "pvalue", max_examples=10).convention
    'exact'
    """
    result = check_calculator(fn, quantity, **options)
    if not result.conforms:
        lines = [result.summary]
        lines += [f"- {failure.kind}: {failure.message}" for failure in result.failures]
        if not result.failures:
            lines.append(f"- largest relative error {result.max_relative_error:.3g} at {result.region}")
        raise AssertionError("\n".join(lines))
    return result
