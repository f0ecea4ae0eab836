"""The cheapest number of items N and generations K per item for a target power on a pair's gap.

With K generations of each of the two models per item the variance of an item-mean difference is
V(K) = max(sigma_item^2, 0) + sigma_w^2 / K (``derivations/repeats.py``).  For each K = 1..k_max the plan takes the
smallest whole N whose exact paired-t power (noncentral t, two-sided;
:func:`~llm_power_verified.power.paired_t.power_paired_t`) at the gap and sd = sqrt(V(K)) reaches the target, and
its cost N (c_I + m K c_G); the cheapest (N, K) wins (ties: the smaller K).  The continuous relaxation gives the
crossover K* = sqrt(c_I sigma_w^2 / (m c_G sigma_item^2)): beyond it one more generation buys less precision than
its cost spent on items.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import chi2

from llm_power_verified._generated import repeats as _repeats
from llm_power_verified._validation import check_alpha_power, check_scalar
from llm_power_verified.errors import ArgumentError
from llm_power_verified.power.paired_t import power_paired_t, required_n_paired_t
from llm_power_verified.results import Result

__all__ = ["GenerationPlan", "pilot_variance_range", "plan_generations", "smallest_items"]

DERIVATION = "derivations/repeats.py"
#: The note on a between variance estimated below 0 (the plan and ``plan repeats`` say the same).
NEGATIVE_BETWEEN = (
    "estimated negative, not distinguishable from 0 (a method-of-moments estimate below its sampling noise): K* is "
    "not estimable; planned as 0, where every extra generation still shrinks the variance (generations always pay) "
    "-- a pilot with more items tells"
)


@dataclass(frozen=True, repr=False)
class GenerationPlan(Result):
    """The (N, K) plan of one gap: the table over K, the cheapest row and the crossover K*.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per K = 1..k_max: ``generations`` (K), ``items`` (the smallest N reaching the power), ``cost``
        (N (cost_item + models K cost_generation)) and ``power`` (the exact paired-t power at that N).
    best_items, best_generations : int
        The cheapest (N, K) of the table (ties: the smaller K).
    best_cost : float
        Its cost.
    crossover_generations : float
        K* = sqrt(cost_item sigma_w^2 / (models cost_generation sigma_item^2)); inf when sigma_item^2 <= 0, the
        value planned at sigma_item^2 = 0 (an estimate below 0 leaves K* not estimable: the notes say so).
    derivation : str
        The module where N(K), the cost and K* are derived.
    notes : tuple of str
        What the plan assumed (a negative between variance taken as 0, K* beyond k_max, ...).
    gap, between_variance, within_variance, alpha, power, cost_item, cost_generation : float
        The inputs (``between_variance`` as given, before truncation at 0).
    models, k_max : int
        The inputs.
    """

    table: pd.DataFrame
    best_items: int
    best_generations: int
    best_cost: float
    crossover_generations: float
    derivation: str
    notes: tuple[str, ...]
    gap: float
    between_variance: float
    within_variance: float
    alpha: float
    power: float
    cost_item: float
    cost_generation: float
    models: int
    k_max: int


def smallest_items(gap: float, variance: float, alpha: float, power: float) -> tuple[int, float]:
    """The smallest whole N (>= 2) whose exact two-sided paired-t power at the gap and variance reaches ``power``.

    Parameters
    ----------
    gap : float
        The mean difference to detect (non-zero).
    variance : float
        Variance of one item's difference, > 0.
    alpha, power : float
        Two-sided level and target power.

    Returns
    -------
    items : int
        The smallest N with power_paired_t(N) >= power (N - 1 falls short, or N = 2).
    achieved : float
        The power at N.

    Examples
    --------
    >>> items, achieved = smallest_items(0.5, 1.0, 0.05, 0.8)
    >>> items, round(achieved, 4)
    (34, 0.8078)
    """
    sd = math.sqrt(variance)

    def reaches(items: int) -> float | None:
        achieved = float(power_paired_t(items, gap, sd, alpha))
        return achieved if achieved >= power else None

    # The normal answer (Eq. 3) sits a few items (about z^2 / 2) below the exact one: bracket the first whole N that
    # reaches the power from there with steps doubling away from it, then bisect (a few dozen power evaluations even
    # where the two answers are far apart, at extreme levels, or where the noncentral t's rounding at billions of
    # items moves the crossing by thousands).
    start = max(2, math.ceil(float(required_n_paired_t(gap, sd, alpha, power, method="normal")) - 1e-9))
    found = reaches(start)
    if found is not None:
        high, high_power, step = start, found, 1
        while high > 2:
            low = max(2, high - step)
            below = reaches(low)
            if below is None:
                break
            high, high_power, step = low, below, 2 * step
        else:
            return 2, high_power
    else:
        low, step = start, 1
        while True:
            high = low + step
            high_power = reaches(high)
            if high_power is not None:
                break
            low, step = high, 2 * step
    while high - low > 1:
        middle = (low + high) // 2
        middle_power = reaches(middle)
        if middle_power is None:
            low = middle
        else:
            high, high_power = middle, middle_power
    return high, high_power


def _checked(gap, between_variance, within_variance, cost_item, cost_generation, k_max, models):
    gap = check_scalar("gap", gap)
    if gap == 0:
        raise ArgumentError("gap must be a non-zero mean difference (a gap of 0 cannot be detected); got 0")
    between = check_scalar("between_variance", between_variance)
    within = check_scalar("within_variance", within_variance, low=0)
    costs = (
        check_scalar("cost_item", cost_item, low=0, low_open=True),
        check_scalar("cost_generation", cost_generation, low=0, low_open=True),
    )
    k_max = int(check_scalar("k_max", k_max, low=1, high=1000, integer=True))
    models = int(check_scalar("models", models, low=1, high=1000, integer=True))
    if between <= 0 and within == 0:
        raise ArgumentError(
            f"between_variance {between:g} <= 0 and within_variance 0: the gap has no variance, so any two items "
            "detect it; there is nothing to plan"
        )
    return gap, between, within, *costs, k_max, models


def plan_generations(
    gap: float,
    between_variance: float,
    within_variance: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    cost_item: float = 1.0,
    cost_generation: float = 1.0,
    k_max: int = 20,
    models: int = 2,
) -> GenerationPlan:
    """The cheapest number of items and of generations per item to detect a gap with the target power.

    Parameters
    ----------
    gap : float
        The gap d to detect (mean difference of the two models' scores), non-zero.
    between_variance : float
        sigma_item^2, the variance of the item-level difference (a method-of-moments estimate may be negative: it
        is taken as 0, and the notes say so).
    within_variance : float
        sigma_w^2 = sigma_wA^2 + sigma_wB^2, the per-generation noise of the difference, >= 0.
    alpha, power : float
        Two-sided level and target power.
    cost_item : float
        Cost of one more item apart from its generations, > 0.
    cost_generation : float
        Cost of one generation of one model on one item, > 0.
    k_max : int
        Largest K tried, 1..1000.
    models : int
        Models that generate K times per item (2 for a pair).

    Returns
    -------
    GenerationPlan
        The table over K = 1..k_max, the cheapest (N, K), its cost and the crossover K*.

    Raises
    ------
    ArgumentError
        An argument outside its range (named, with its value); no variance at all.

    Notes
    -----
    V(K) = max(sigma_item^2, 0) + sigma_w^2 / K; N(K) = the smallest N with exact paired-t power >= power at
    sd = sqrt(V(K)); cost(K) = N(K) (c_I + m K c_G).  K* = sqrt(c_I sigma_w^2 / (m c_G sigma_item^2)) minimises the
    normal-theory cost N*(K) (c_I + m K c_G) over real K (``derivations/repeats.py``: the one positive root of
    dC/dK, where d2C/dK2 > 0).  The exact t's N differs from the normal N* by about z^2 / 2 items, so the cheapest
    whole K lies next to K* unless that N is small.

    References
    ----------
    Cochran (1977), *Sampling Techniques*, 3rd ed., Section 10.6 (optimum sub-sample size in two-stage sampling,
    the same square-root rule).

    Examples
    --------
    >>> plan = plan_generations(0.05, 0.02, 0.5, cost_item=4.0)
    >>> plan.best_items, plan.best_generations, round(plan.crossover_generations, 3)
    (289, 7, 7.071)
    """
    gap, between, within, cost_item, cost_generation, k_max, models = _checked(
        gap, between_variance, within_variance, cost_item, cost_generation, k_max, models
    )
    alpha_array, power_array = check_alpha_power(check_scalar("alpha", alpha), check_scalar("power", power))
    alpha, power = float(alpha_array), float(power_array)
    used_between = max(between, 0.0)
    generations = np.arange(1, k_max + 1)
    variances = _repeats.item_mean_variance(used_between, within, generations.astype(np.float64))
    solved = [smallest_items(gap, float(variance), alpha, power) for variance in variances]
    items = np.array([n for n, _ in solved], dtype=np.int64)
    cost = items * (cost_item + models * generations * cost_generation)
    table = pd.DataFrame(
        {"generations": generations, "items": items, "cost": cost, "power": np.array([p for _, p in solved])}
    )
    best = int(np.argmin(cost))
    crossover = (
        float(_repeats.optimal_generations(cost_item, cost_generation, models, used_between, within))
        if used_between > 0
        else math.inf
    )
    return GenerationPlan(
        table=table,
        best_items=int(items[best]),
        best_generations=int(generations[best]),
        best_cost=float(cost[best]),
        crossover_generations=crossover,
        derivation=DERIVATION,
        notes=_notes(between, within, crossover, k_max, int(generations[best])),
        gap=gap,
        between_variance=between,
        within_variance=within,
        alpha=alpha,
        power=power,
        cost_item=cost_item,
        cost_generation=cost_generation,
        models=models,
        k_max=k_max,
    )


def _notes(between: float, within: float, crossover: float, k_max: int, best: int) -> tuple[str, ...]:
    notes = []
    if between < 0:
        notes.append(f"between_variance {between:.3g} < 0: {NEGATIVE_BETWEEN}")
    elif between == 0:
        notes.append("between_variance 0: every extra generation still shrinks the variance, and K* is unbounded")
    if within == 0:
        notes.append("within_variance 0: the generations of an item agree, so one generation per item is enough")
    if crossover < 1:
        if within > 0:  # within 0 is said above
            notes.append(
                f"K* = {crossover:.3g} < 1 (normal theory, continuous K): one generation per item is the nearest K"
            )
    elif crossover > k_max and between > 0:  # between <= 0 is said above
        where = (
            "the cheapest K is the table's last: raise k_max (--k-max on the command line) to look further"
            if best == k_max
            else f"the exact t's few extra items per design make K = {best} the cheapest in the table"
        )
        notes.append(f"K* = {crossover:.3g} (normal theory, continuous K) lies beyond k_max = {k_max}; {where}")
    elif best == k_max and k_max > 1:
        notes.append(f"the cheapest K is the table's last, k_max = {k_max}: raise k_max (--k-max) to look further")
    return tuple(notes)


def pilot_variance_range(items: int, confidence: float = 0.95) -> tuple[float, float]:
    """How far the true variance may lie from a pilot's estimate: the chi-square interval as multiples of it.

    Parameters
    ----------
    items : int
        The pilot's items n (>= 2): the variance of the item-mean differences rests on n - 1 degrees of freedom.
    confidence : float
        The interval's coverage, in (0, 1).

    Returns
    -------
    low, high : float
        (n - 1) / chi2_{(1+c)/2, n-1} and (n - 1) / chi2_{(1-c)/2, n-1}: the true variance lies between ``low`` and
        ``high`` times the estimate with probability ``confidence`` (normal item differences), and the planned N
        scales with it.

    Notes
    -----
    The usual interval of a normal variance, (n - 1) s^2 / sigma^2 ~ chi^2_{n-1} (e.g. Casella and Berger, *Statistical
    Inference*, 2nd ed., Example 9.2.10); a pilot's split into between and within parts is no more precise than that.

    Examples
    --------
    >>> [round(value, 3) for value in pilot_variance_range(10)]
    [0.473, 3.333]
    """
    items = int(check_scalar("items", items, low=2, integer=True))
    confidence = check_scalar("confidence", confidence, low=0, high=1, low_open=True, high_open=True)
    df = items - 1
    return df / float(chi2.ppf((1 + confidence) / 2, df)), df / float(chi2.ppf((1 - confidence) / 2, df))
