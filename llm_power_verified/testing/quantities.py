"""The quantities a calculator can be checked for: arguments, candidate conventions, reference, grid, tolerance.

Each entry of ``QUANTITIES`` is declared once: the keyword arguments the
calculator is called with, its candidate conventions (the first is the correct
quantity, the default reference), the default relative tolerance and why, and
the deterministic grid plus seeded random points it is evaluated on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from llm_power_verified.power.correlation import admissible_rho_interval
from llm_power_verified.results import Result
from llm_power_verified.testing.candidates import CANDIDATES, COSTLY

__all__ = ["P_FLOOR", "QUANTITIES", "Quantity", "allowed_items", "grid_points", "random_points", "relative_error"]

#: p-values below this are compared as equal: in double precision such a p sits within 10^8 of the smallest normal
#: double (2.2e-308), where a correct implementation returns a subnormal or 0 (underflow, not a wrong answer).
P_FLOOR = 1e-300


@dataclass(frozen=True, repr=False)
class Quantity(Result):
    """One quantity ``check_calculator`` knows.

    Attributes
    ----------
    name : str
        The key in ``QUANTITIES``.
    arguments : tuple of str
        The keyword arguments the calculator is called with.
    conventions : tuple of str
        The candidate conventions; the first is the correct quantity and the default reference.
    reference : str
        The correct convention.
    count : bool
        Whether the value is a number of items (a value within one item of a convention matches it: rounding).
    upper : float or None
        The largest valid value (1 for a p-value or a power; None for a sample size).
    tolerance : float
        The default relative tolerance.
    description : str
        What the calculator returns, in words.
    costly : tuple of str
        Candidates too slow for every point (exact McNemar's n): tried only when no convention fits, at a few points;
        they cannot be claimed.
    """

    name: str
    arguments: tuple[str, ...]
    conventions: tuple[str, ...]
    reference: str
    count: bool
    upper: float | None
    tolerance: float
    description: str
    costly: tuple[str, ...] = ()


def _quantity(name: str, arguments: tuple[str, ...], count: bool, tolerance: float, description: str) -> Quantity:
    conventions = CANDIDATES[name]
    upper = None if count else 1.0
    costly = COSTLY.get(name, ())
    return Quantity(name, arguments, conventions, conventions[0], count, upper, tolerance, description, costly)


# Tolerances.  required_n: 0.5%: normal quantiles rounded to two decimals (1.96 + 0.84) move K = (z_a + z_b)^2 by
# 0.11% (0.14% for 2.58 + 1.28), and rounding to a whole item is allowed separately; every two candidates differ by
# 3.7% or more somewhere on the grid with two items of rounding allowed (paired-one-sided and
# unpaired-wald-x(1-rho)-one-sided; 6.5% without the allowance), over seven times the tolerance (checked at five
# times by tests/testing/test_candidates.py).
# pvalue: 1e-6: an exact tail from lgamma loses about 3 eps lgamma(n) = 5e-8 of p at n = 10^7; every two candidates
# differ by 68% or more somewhere on the grid.  power_paired_t: 1e-4: scipy's and R's noncentral t are good to about
# 1e-10; the closest candidates differ by 41% on the grid (the strict and upper-tail powers by 84% at n = 2, d = 0.05).
# required_n_paired_t: as required_n (the strict and upper-tail sizes differ by 5.1% at power 0.1, 3.1% with two items
# allowed).  Its normal sizes are closed forms (z_{1-alpha/2} + z_{1-beta})^2 / d^2 that ignore the far tail already,
# so a "normal-upper-tail" size would equal "normal": that candidate exists for power_paired_t only.
QUANTITIES: dict[str, Quantity] = {
    "required_n": _quantity(
        "required_n",
        ("p_a", "p_b", "rho", "alpha", "power"),
        True,
        0.005,
        "the number of paired items needed to detect p_a - p_b (two-sided level alpha, target power)",
    ),
    "pvalue": _quantity("pvalue", ("b", "c"), False, 1e-6, "the two-sided McNemar p-value of discordant counts b, c"),
    "power_paired_t": _quantity(
        "power_paired_t",
        ("n", "effect_size", "alpha"),
        False,
        1e-4,
        "the power of the two-sided paired (one-sample) t test with n pairs at effect size d = mean / sd",
    ),
    "required_n_paired_t": _quantity(
        "required_n_paired_t",
        ("effect_size", "alpha", "power"),
        True,
        0.005,
        "the number of pairs a two-sided paired t test needs at effect size d = mean / sd",
    ),
}

_SETTINGS = ((0.05, 0.8), (0.01, 0.95))


def _admissible(p_a: float, p_b: float, rho: float) -> float:
    """rho, moved inside 90% of the admissible interval of (p_a, p_b) and rounded to 2 decimals."""
    interval = admissible_rho_interval(p_a, p_b)
    low, high = float(interval.low), float(interval.high)
    return round(min(max(rho, 0.9 * low), 0.9 * high), 2)


def _required_n_grid() -> list[dict[str, float]]:
    points = []
    for alpha, power in _SETTINGS:
        for middle in (0.2, 0.5, 0.75):
            for gap in (0.02, 0.1, 0.3):
                p_a, p_b = round(middle + gap / 2, 4), round(middle - gap / 2, 4)
                for rho in dict.fromkeys(_admissible(p_a, p_b, rho) for rho in (0.0, 0.3, 0.6)):
                    points.append({"p_a": p_a, "p_b": p_b, "rho": rho, "alpha": alpha, "power": power})
    return points


#: Discordant totals of the p-value grid: small counts, the overflow region of 2^n and n! (1,020 to 1,100), 10^7.
PVALUE_TOTALS = (1, 2, 3, 5, 10, 20, 60, 100, 500, 1000, 1023, 1024, 1030, 1100, 10**4, 10**5, 10**6, 10**7)


def _shares(total: int) -> list[int]:
    """The b values at a total: 0, a quarter, the middle, and 1 and 3 standard deviations of b below the middle."""
    spread = math.sqrt(total) / 2
    chosen = (0, total // 4, total // 2, math.floor(total / 2 - spread), math.floor(total / 2 - 3 * spread))
    return sorted({min(max(b, 0), total) for b in chosen})


def _pvalue_grid() -> list[dict[str, float]]:
    return [{"b": float(b), "c": float(total - b)} for total in PVALUE_TOTALS for b in _shares(total)]


def _power_paired_t_grid() -> list[dict[str, float]]:
    return [
        {"n": float(n), "effect_size": effect, "alpha": alpha}
        for alpha in (0.05, 0.01)
        for n in (2, 3, 5, 10, 30, 100, 1000)
        for effect in (0.05, 0.2, 0.5, 1.0, 2.5)
    ]


def _required_n_paired_t_grid() -> list[dict[str, float]]:
    # Power 0.1 (at alpha 0.05) tells the strict from the upper-tail convention; only at small effects, where n > 2.
    settings = [(alpha, power, (0.1, 0.3, 0.6, 1.0, 2.0)) for alpha, power in _SETTINGS] + [(0.05, 0.1, (0.1, 0.3))]
    return [
        {"effect_size": effect, "alpha": alpha, "power": power}
        for alpha, power, effects in settings
        for effect in effects
    ]


_GRIDS = {
    "required_n": _required_n_grid,
    "pvalue": _pvalue_grid,
    "power_paired_t": _power_paired_t_grid,
    "required_n_paired_t": _required_n_paired_t_grid,
}


def grid_points(quantity: str, grid: str = "default") -> list[dict[str, float]]:
    """The deterministic grid of ``quantity`` ("default"; "small" keeps every third point, for slow tools).

    Parameters
    ----------
    quantity : str
        A key of ``QUANTITIES``.
    grid : {"default", "small"}, default "default"
        Which grid.

    Returns
    -------
    list of dict
        The points, our argument names to values.
    """
    points = _GRIDS[quantity]()
    return points if grid == "default" else points[::3]


def _random_point(quantity: str, rng: np.random.Generator) -> dict[str, float]:
    if quantity == "required_n":
        p_a, p_b = (round(float(value), 3) for value in rng.uniform(0.05, 0.95, size=2))
        if p_a == p_b:
            p_b = round(p_b - 0.01, 3)
        rho = _admissible(p_a, p_b, float(rng.uniform(-0.2, 0.8)))
        return {"p_a": p_a, "p_b": p_b, "rho": rho, "alpha": float(rng.choice([0.01, 0.05, 0.1])), "power": 0.8}
    if quantity == "pvalue":
        total = int(10 ** rng.uniform(0, 7))
        b = int(np.clip(round(total / 2 + rng.normal(0, 1.5) * math.sqrt(total) / 2), 0, total))
        return {"b": float(b), "c": float(total - b)}
    effect = round(float(10 ** rng.uniform(-1.3, 0.4)), 3)
    alpha = float(rng.choice([0.01, 0.05, 0.1]))
    if quantity == "power_paired_t":
        return {"n": float(rng.integers(2, 300)), "effect_size": effect, "alpha": alpha}
    return {"effect_size": effect, "alpha": alpha, "power": float(rng.choice([0.5, 0.8, 0.9]))}


def random_points(quantity: str, rng: np.random.Generator, count: int) -> list[dict[str, float]]:
    """``count`` random points of ``quantity`` from ``rng`` (the same generator state gives the same points).

    Parameters
    ----------
    quantity : str
        A key of ``QUANTITIES``.
    rng : numpy.random.Generator
        The seeded generator.
    count : int
        How many points.

    Returns
    -------
    list of dict
        The points, our argument names to values.
    """
    return [_random_point(quantity, rng) for _ in range(count)]


def allowed_items(convention: str) -> float:
    """Items of rounding a count may carry: one, or two for a total of two groups (twice a per-arm ceiling).

    Parameters
    ----------
    convention : str
        The convention compared with.

    Returns
    -------
    float
        1.0 or 2.0.
    """
    return 2.0 if convention.endswith("-total") else 1.0


def relative_error(quantity: Quantity, value: float, reference: float, items: float = 1.0) -> float:
    """abs(value - reference) / reference, allowing ``items`` for a count and comparing p-values above ``P_FLOOR``.

    A count is allowed one item (its ceiling or rounding); a total of two groups two (twice a rounded per-arm size).

    Parameters
    ----------
    quantity : Quantity
        The quantity (whether its values are counts, or p-values).
    value : float
        The calculator's value.
    reference : float
        The convention's value.
    items : float, default 1.0
        Items of rounding allowed for a count.

    Returns
    -------
    float
        The relative error (0 within the allowance; inf where the reference is infinite and the value is not).
    """
    if not math.isfinite(reference):
        return 0.0 if value == reference else math.inf
    if quantity.count:
        return max(abs(value - reference) - items, 0.0) / abs(reference) if reference else math.inf
    if quantity.name == "pvalue":
        value, reference = max(value, P_FLOOR), max(reference, P_FLOOR)
    return abs(value - reference) / abs(reference) if reference else abs(value)
