"""The results of ``check_calculator``: a calculator's conformance, its failures and its deviation map.

A function someone wrote (or a wrapper around another tool) is called on a
deterministic grid, on seeded random points and on a hypothesis property
search; its values are compared with every convention of the quantity's
candidate table (``QUANTITIES``),
which names the convention it implements, and with the correct quantity, which
says whether it gives what a user needs.  Failures (exceptions, NaN, overflow
thresholds, non-monotonicity, wrong tails, deviations) each carry a minimal
counterexample.
"""

from __future__ import annotations

from dataclasses import dataclass

from llm_power_verified.results import Result

__all__ = ["FAILURE_KINDS", "CalculatorConformance", "CalculatorFailure", "Deviation"]

#: The kinds of :class:`CalculatorFailure`, in the order a report lists them.
FAILURE_KINDS = (
    "exception",
    "timeout",
    "not-a-number",
    "nan",
    "infinite",
    "out-of-range",
    "overflow",
    "non-monotone",
    "asymmetric",
    "wrong-tails",
    "deviation",
)


@dataclass(frozen=True, repr=False)
class CalculatorFailure(Result):
    """One way a calculator fails, with the smallest inputs that show it.

    Attributes
    ----------
    kind : str
        One of ``FAILURE_KINDS``.
    message : str
        One sentence for a user.
    counterexample : dict of str to float
        The minimal inputs (our argument names) at which it fails.
    value : float or None
        What the function returned there (None for an exception, a timeout or a non-number).
    expected : float or None
        What it should have returned there (the reference quantity), where one is known.
    threshold : float or None
        For "overflow": the smallest discordant total b + c at which it fails (total - 1 passes).
    """

    kind: str
    message: str
    counterexample: dict[str, float]
    value: float | None = None
    expected: float | None = None
    threshold: float | None = None


@dataclass(frozen=True, repr=False)
class Deviation(Result):
    """The function's value at one grid point beside the correct, claimed and found conventions' values.

    Attributes
    ----------
    inputs : dict of str to float
        The point (our argument names).
    value : float or None
        What the function returned (None when it failed there).
    correct : float
        The correct quantity (paired N*, exact McNemar p, noncentral-t power or n).
    claimed : float or None
        The claimed convention's value (None without a claim).
    found : float or None
        The found convention's value (None when no convention was found).
    error_against_correct, error_against_claim, error_against_found : float or None
        Relative errors of ``value`` (rounding allowed for counts; None where not defined).
    """

    inputs: dict[str, float]
    value: float | None
    correct: float
    claimed: float | None
    found: float | None
    error_against_correct: float | None
    error_against_claim: float | None
    error_against_found: float | None


@dataclass(frozen=True, repr=False)
class CalculatorConformance(Result):
    """What :func:`~llm_power_verified.testing.conformance.check_calculator` found about one function.

    Attributes
    ----------
    function : str
        The function's name (or the ``name`` given).
    quantity : str
        The quantity checked (a key of ``QUANTITIES``).
    conforms : bool
        No failure and ``max_relative_error <= tolerance`` against ``reference``.
    convention : str or None
        The candidate convention the function implements (smallest largest deviation, within the tolerance).
    closest : str
        The nearest candidate, found or not.
    claimed_convention : str or None
        The convention the function claims (``claims``).
    reference : str
        What ``max_relative_error`` is measured against: the claim when given, else the correct quantity.
    max_relative_error : float
        Largest relative error against ``reference`` over the grid and random points where the function returned a
        valid value.
    region : dict of str to float
        The inputs where that error is largest.
    error_against_claim : float or None
        Largest relative error against the claimed convention (None without a claim).
    error_against_correct : float
        Largest relative error against the correct quantity (what a user needs), always.
    correct_region : dict of str to float
        The inputs (grid or random point) where ``error_against_correct`` is largest.
    conforms_to_claim : bool or None
        Whether it computes what it claims (None without a claim).
    tolerance : float
        The relative tolerance used.
    failures : tuple of CalculatorFailure
        Each failure kind found, with a minimal counterexample.
    deviations : tuple of Deviation
        The deviation map: one entry per grid point.
    candidate_errors : dict of str to float
        Every candidate convention's largest relative deviation from the function.
    calls : int
        How many times the function was called.
    seed : int
        The seed of the random points.
    summary : str
        One or two sentences for a user.
    """

    function: str
    quantity: str
    conforms: bool
    convention: str | None
    closest: str
    claimed_convention: str | None
    reference: str
    max_relative_error: float
    region: dict[str, float]
    error_against_claim: float | None
    error_against_correct: float
    correct_region: dict[str, float]
    conforms_to_claim: bool | None
    tolerance: float
    failures: tuple[CalculatorFailure, ...]
    deviations: tuple[Deviation, ...]
    candidate_errors: dict[str, float]
    calls: int
    seed: int
    summary: str
