"""Power-calculator conventions, and an audit of a sample size someone was given.

A user comparing two models on the same items often reaches for an
independent-samples calculator and then "adjusts for pairing" by multiplying
its per-arm answer by (1 - rho).  This module computes what each common
convention returns at (p_a, p_b, rho, alpha, power) and, given a claimed
paired sample size, says which convention it matches and by what factor it
misses the correct paired N*.

Conventions (all unrounded; per arm for the unpaired ones):

===============================  =============================================================
``one-sample-arcsine``           K / h^2 (R ``pwr.p.test``; the paper's Table 1 value)
``two-sample-arcsine``           2 K / h^2 (R ``pwr.2p.test``, statsmodels ``NormalIndPower``)
``unpaired-wald``                K (p_a q_a + p_b q_b) / delta^2 (Miller 2024)
``two-proportion-z``             pooled H0 variance (R ``power.prop.test``)
``shortcut``                     (1 - rho) K / h^2, the one-sample value x (1 - rho) (Eq. 9)
``two-sample-arcsine-x(1-rho)``  (1 - rho) 2 K / h^2
``unpaired-wald-x(1-rho)``       (1 - rho) K (p_a q_a + p_b q_b) / delta^2
``paired``                       the correct N* = K sigma_D^2 / delta^2 (Eq. 6)
===============================  =============================================================

with K = (z_{1-alpha/2} + z_{1-beta})^2 and h Cohen's h.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from llm_power_verified._generated import unpaired as _unpaired
from llm_power_verified._validation import check_alpha_power, check_in_open_interval, finish
from llm_power_verified.errors import ArgumentError
from llm_power_verified.power.correlation import validate_marginals_and_rho
from llm_power_verified.power.sample_size import one_tail_level, required_n_paired_binary
from llm_power_verified.power.shortcut import required_n_arcsine, required_n_shortcut
from llm_power_verified.results import Result

__all__ = ["CONVENTIONS", "CalculatorAudit", "audit_claimed_n", "convention_values", "required_n_unpaired"]

CONVENTIONS = (
    "one-sample-arcsine",
    "two-sample-arcsine",
    "unpaired-wald",
    "two-proportion-z",
    "shortcut",
    "two-sample-arcsine-x(1-rho)",
    "unpaired-wald-x(1-rho)",
    "paired",
)

#: What each known tool returns natively, as a convention name.
TOOL_CONVENTIONS = {
    "pwr.p.test": "one-sample-arcsine",
    "pwr.2p.test": "two-sample-arcsine",
    "NormalIndPower": "two-sample-arcsine",
    "power.prop.test": "two-proportion-z",
    "miller": "unpaired-wald",
}


def required_n_unpaired(
    p_a, p_b, alpha=0.05, power=0.8, alternative: str = "two-sided", variance: str = "unpooled"
) -> float | np.ndarray:
    """Per-arm sample size of an independent two-proportion comparison.

    Parameters
    ----------
    p_a, p_b : array_like
        Accuracies of models A and B, each in (0, 1).
    alpha : array_like, default 0.05
        Significance level, in (0, 1).
    power : array_like, default 0.8
        Target power 1 - beta, in (alpha, 1).
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        The alternative hypothesis: "larger" is H1: p_a > p_b, "smaller" is H1: p_a < p_b.
    variance : {"unpooled", "pooled-null"}, default "unpooled"
        "unpooled": Wald test with (p_a q_a + p_b q_b)/n (Miller 2024).  "pooled-null": the two-proportion z test
        with the pooled variance under H0, as R's ``power.prop.test`` (strict = FALSE).

    Returns
    -------
    float or numpy.ndarray
        The per-arm sample size, unrounded; inf where p_a = p_b.

    Notes
    -----
    Per-arm unpaired Wald N = (z_{1-alpha/2} + z_{1-beta})^2 (p_a (1 - p_a) + p_b (1 -
    p_b)) / delta^2.

    Printed from ``derivations/unpaired.py``.

    References
    ----------
    Fleiss, J. L., Levin, B. and Paik, M. C. (2003). Statistical Methods for Rates and
    Proportions, 3rd ed., Section 4.2.

    Examples
    --------
    >>> round(required_n_unpaired(0.65, 0.60), 2)
    1467.74
    >>> round(required_n_unpaired(0.65, 0.60, variance="pooled-null"), 2)
    1470.49
    """
    functions = {"unpooled": _unpaired.required_n_unpaired_wald, "pooled-null": _unpaired.required_n_two_proportion_z}
    if variance not in functions:
        raise ArgumentError(f"variance must be 'unpooled' or 'pooled-null'; got {variance!r}")
    p_a = check_in_open_interval("p_a", p_a, 0.0, 1.0)
    p_b = check_in_open_interval("p_b", p_b, 0.0, 1.0)
    alpha, power = check_alpha_power(alpha, power)
    level, sides = one_tail_level(alpha, alternative)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = functions[variance](p_a, p_b, level, power, sides)
    return finish(np.where(p_a == p_b, np.inf, result))


def convention_values(p_a: float, p_b: float, rho: float, alpha: float = 0.05, power: float = 0.8) -> dict[str, float]:
    """Unrounded sample size of every convention in ``CONVENTIONS``.

    Parameters
    ----------
    p_a, p_b : float
        Accuracies of models A and B, each in (0, 1).
    rho : float
        Correlation of the per-item 0/1 scores, inside the admissible interval.
    alpha : float, default 0.05
        Significance level, in (0, 1).
    power : float, default 0.8
        Target power 1 - beta, in (alpha, 1).

    Returns
    -------
    dict of str to float
        Each convention's name (the keys of ``CONVENTIONS``) and its unrounded sample size.

    Notes
    -----
    With K = (z_{1-alpha/2} + z_{1-beta})^2 and h Cohen's h: the one-sample arcsine
    K/h^2, the two-sample arcsine 2K/h^2 per arm, the shortcut (1 - rho) K/h^2, the
    unpaired Wald K (p_a q_a + p_b q_b)/delta^2 and its (1 - rho) multiple, and the
    paired N* of Equation 6.

    The arcsine values from ``derivations/arcsine.py``, the unpaired Wald from ``derivations/unpaired.py``, N* from
    ``derivations/wald.py``.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Section 4.1 and
    Table 1; Cohen (1988), Ch. 6.

    Examples
    --------
    >>> values = convention_values(0.65, 0.60, 0.30)
    >>> round(values["one-sample-arcsine"], 2), round(values["shortcut"], 2), round(values["paired"], 2)
    (735.05, 514.53, 1027.58)
    """
    validate_marginals_and_rho(p_a, p_b, rho)
    one = float(required_n_arcsine(p_a, p_b, alpha, power, convention="one-sample"))
    two = float(required_n_arcsine(p_a, p_b, alpha, power, convention="two-sample"))
    wald = float(required_n_unpaired(p_a, p_b, alpha, power))
    keep = 1 - rho
    return {
        "one-sample-arcsine": one,
        "two-sample-arcsine": two,
        "unpaired-wald": wald,
        "two-proportion-z": float(required_n_unpaired(p_a, p_b, alpha, power, variance="pooled-null")),
        "shortcut": float(required_n_shortcut(p_a, p_b, rho, alpha, power)),
        "two-sample-arcsine-x(1-rho)": keep * two,
        "unpaired-wald-x(1-rho)": keep * wald,
        "paired": float(required_n_paired_binary(p_a, p_b, rho, alpha, power)),
    }


@dataclass(frozen=True, repr=False)
class CalculatorAudit(Result):
    """Which convention a claimed paired sample size matches.

    Attributes
    ----------
    claimed_n : float
        The number audited.
    required_n : float
        Correct paired N* (unrounded); ``required_n_integer`` is its ceiling.
    factor : float
        required_n / claimed_n: how many times too small the claim is (the
        verdict states the claim as a multiple of N*, claimed_n / required_n).
    matches : tuple of str
        Conventions whose value rounds to the claim (within one item of the
        value, or of its ceiling, or 0.5% of it); empty if none does.
    doubled : tuple of str
        When nothing matches: conventions whose value doubled matches, a
        per-group size reported as the total of two groups.
    closest : str
        The convention nearest to the claim in relative terms.
    values : dict
        Every convention's unrounded value.
    verdict : str
        One sentence for a user.
    """

    claimed_n: float
    required_n: float
    required_n_integer: int
    factor: float
    matches: tuple[str, ...]
    closest: str
    verdict: str
    values: dict[str, float] = field(default_factory=dict)
    doubled: tuple[str, ...] = ()


def matches_convention(value: float, claimed: float) -> bool:
    return rounding(value, claimed) is not None


def rounding(value: float, claimed: float) -> str | None:
    """How ``claimed`` rounds ``value``: "its ceiling", "rounded", "within one item", "within 0.5%", or None."""
    if not math.isfinite(value):
        return None
    if abs(claimed - math.ceil(value)) < 0.5:
        return "its ceiling"
    if abs(claimed - round(value)) < 0.5:
        return "rounded"
    if abs(claimed - value) <= 1.0:
        return "within one item"
    if abs(claimed - value) <= 0.005 * value:
        return f"within 0.5% ({claimed - value:+.1f} items)"
    return None


def audit_claimed_n(
    p_a: float, p_b: float, rho: float, claimed_n: float, alpha: float = 0.05, power: float = 0.8
) -> CalculatorAudit:
    """Say which calculator convention produced ``claimed_n`` and how it compares with N*.

    Parameters
    ----------
    p_a, p_b : float
        Accuracies of models A and B, each in (0, 1).
    rho : float
        Correlation of the per-item 0/1 scores, inside the admissible interval.
    claimed_n : float
        The sample size to audit, > 0.
    alpha : float, default 0.05
        Significance level, in (0, 1).
    power : float, default 0.8
        Target power 1 - beta, in (alpha, 1).

    Returns
    -------
    CalculatorAudit
        The conventions it matches, the factor to N* and a one-sentence verdict.

    Notes
    -----
    Each convention of ``CONVENTIONS`` is evaluated at (p_a, p_b, rho); a claimed N
    matches a convention when it lies within rounding (ceil, round or floor, and +/- 1)
    of that convention's value.  ``factor`` is N* / claimed_n with N* from Equation 6.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Section 4.1 and
    Table 1 (calculator misuse); Cohen, J. (1988). Statistical Power Analysis for the
    Behavioral Sciences, 2nd ed., Ch. 6.

    Examples
    --------
    >>> audit = audit_claimed_n(0.65, 0.60, 0.30, 515)
    >>> audit.matches, round(audit.factor, 2)
    (('shortcut',), 2.0)
    """
    if isinstance(claimed_n, bool) or not (
        isinstance(claimed_n, (int, float, np.integer, np.floating)) and claimed_n > 0 and math.isfinite(claimed_n)
    ):
        raise ArgumentError(f"claimed_n must be a positive number; got {claimed_n!r}")
    values = convention_values(p_a, p_b, rho, alpha, power)
    required = values["paired"]
    matches = tuple(name for name, value in values.items() if matches_convention(value, float(claimed_n)))
    closest = min(
        values,
        key=lambda name: (
            abs(math.log(claimed_n / values[name])) if values[name] > 0 and math.isfinite(values[name]) else math.inf
        ),
    )
    factor = required / float(claimed_n)
    integer = math.ceil(required * (1 - 1e-12)) if math.isfinite(required) else math.inf
    multiple = float(claimed_n) / required if required > 0 else math.inf
    doubled = (
        ()
        if matches
        else tuple(name for name, value in values.items() if matches_convention(2 * value, float(claimed_n)))
    )
    if "paired" in matches:
        others = [name for name in matches if name != "paired"]
        also = f"; it also matches {', '.join(others)}, which here lands within rounding of N*" if others else ""
        verdict = (
            f"{claimed_n:g} agrees with the correct paired N* = {required:.2f} "
            f"({rounding(required, float(claimed_n))}; "
            f"the integer requirement is {integer} items){also}."
        )
    elif matches:
        kind = "too small: N* is " + f"{factor:.3g} x the claim" if factor > 1 else "larger than needed"
        verdict = (
            f"{claimed_n:g} matches the {', '.join(matches)} convention; it is {multiple:.3g} x the correct paired "
            f"N* ({integer} items), {kind}."
        )
    elif doubled:
        verdict = (
            f"{claimed_n:g} is twice the {', '.join(doubled)} value: a per-group size reported as the total of two "
            f"groups; paired items need no second group; it is {multiple:.3g} x the correct paired N* ({integer} "
            "items)."
        )
    else:
        verdict = (
            f"{claimed_n:g} matches no known convention (closest: {closest}, {values[closest]:.1f}); "
            f"it is {multiple:.3g} x the correct paired N* ({integer} items)."
        )
    return CalculatorAudit(
        claimed_n=float(claimed_n),
        required_n=required,
        required_n_integer=integer,
        factor=factor,
        matches=matches,
        closest=closest,
        verdict=verdict,
        values=values,
        doubled=doubled,
    )
