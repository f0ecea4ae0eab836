"""The property search of ``check_calculator``: hypothesis finds a minimal counterexample for each failure kind.

``hypothesis.find`` runs derandomized, without a database and quietly, so a
run gives the same counterexamples every time and prints nothing.  The
strategies draw readable values (accuracies in hundredths, counts as integers)
that shrink toward small, round inputs.  Each search calls the calculator at
most ``max_examples`` times per example drawn (once or twice), plus the
shrinking steps; the calculator's answers are cached, so a repeated point
costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, Verbosity, find, settings
from hypothesis.errors import HypothesisException

from llm_power_verified.power.correlation import admissible_rho_interval

__all__ = ["minimal", "ordered_pairs", "point_strategy"]

_ALPHAS = (0.05, 0.01, 0.1, 0.001)
_POWERS = (0.8, 0.9, 0.95, 0.5)


def minimal(strategy: st.SearchStrategy, condition: Callable[[Any], bool], max_examples: int) -> Any | None:
    """The minimal example of ``strategy`` satisfying ``condition``, or None when the search finds none.

    Parameters
    ----------
    strategy : hypothesis.strategies.SearchStrategy
        What to draw.
    condition : callable
        The failure to find; must not raise.
    max_examples : int
        Examples to try before giving up.

    Returns
    -------
    object or None
        The shrunk example.
    """
    quiet = settings(
        database=None,
        derandomize=True,
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )
    try:
        return find(strategy, condition, settings=quiet)
    except HypothesisException:  # NoSuchExample or Unsatisfiable: no counterexample within max_examples
        return None


def _rho(p_a: float, p_b: float, fraction: float, *others: float) -> float:
    """The rho at ``fraction`` of 90% of the admissible upper (fraction > 0) or lower end, for every p_a given."""
    lows, highs = [], []
    for first in (p_a, *others):
        interval = admissible_rho_interval(first, p_b)
        lows.append(float(interval.low))
        highs.append(float(interval.high))
    bound = min(highs) if fraction > 0 else -max(lows)
    return round(fraction * 0.9 * bound, 2)


@st.composite
def _design(draw: Callable[[st.SearchStrategy], Any]) -> dict[str, float]:
    p_b = draw(st.integers(1, 98)) / 100
    p_a = draw(st.integers(1, 99).filter(lambda k: k != round(p_b * 100))) / 100
    fraction = draw(st.integers(-5, 9)) / 10
    rho = _rho(p_a, p_b, fraction)
    return {"p_a": p_a, "p_b": p_b, "rho": rho, "alpha": draw(st.sampled_from(_ALPHAS)), "power": 0.8}


@st.composite
def _counts(draw: Callable[[st.SearchStrategy], Any], max_total: int) -> dict[str, float]:
    total = draw(st.integers(0, max_total))
    b = draw(st.integers(0, total))
    return {"b": float(b), "c": float(total - b)}


def point_strategy(quantity: str, max_total: int = 10**7) -> st.SearchStrategy:
    """Points (our argument names) of ``quantity``; p-value totals up to ``max_total``.

    Parameters
    ----------
    quantity : str
        A key of ``QUANTITIES``.
    max_total : int, default 10**7
        The largest discordant total b + c.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Dicts of argument values that shrink toward small round inputs.
    """
    if quantity == "required_n":
        return _design()
    if quantity == "pvalue":
        return _counts(max_total)
    effects = st.integers(5, 300 if quantity == "power_paired_t" else 150).map(lambda k: k / 100)
    alphas = st.sampled_from(_ALPHAS)
    if quantity == "power_paired_t":
        return st.builds(
            lambda n, d, a: {"n": float(n), "effect_size": d, "alpha": a}, st.integers(2, 5000), effects, alphas
        )
    return st.builds(
        lambda d, a, p: {"effect_size": d, "alpha": a, "power": p}, effects, alphas, st.sampled_from(_POWERS)
    )


@st.composite
def _wider_gap(draw: Callable[[st.SearchStrategy], Any]) -> tuple[dict[str, float], dict[str, float]]:
    p_b = draw(st.integers(1, 97)) / 100
    up = draw(st.booleans())
    room = (99 - round(p_b * 100)) if up else (round(p_b * 100) - 1)
    if room < 2:
        up, room = not up, (99 - round(p_b * 100)) if not up else (round(p_b * 100) - 1)
    near = draw(st.integers(1, room - 1))
    far = draw(st.integers(near + 1, room))
    sign = 1 if up else -1
    p_near, p_far = round(p_b + sign * near / 100, 2), round(p_b + sign * far / 100, 2)
    rho = _rho(p_near, p_b, draw(st.integers(-5, 9)) / 10, p_far)
    alpha = draw(st.sampled_from(_ALPHAS))
    base = {"p_b": p_b, "rho": rho, "alpha": alpha, "power": 0.8}
    return {**base, "p_a": p_near}, {**base, "p_a": p_far}


def _ordered(values: tuple[float, ...]) -> st.SearchStrategy:
    return st.tuples(st.sampled_from(values), st.sampled_from(values)).filter(lambda pair: pair[0] < pair[1])


def _with(base: st.SearchStrategy, name: str, values: tuple[float, ...]) -> st.SearchStrategy:
    return st.tuples(base, _ordered(values)).map(
        lambda drawn: ({**drawn[0], name: drawn[1][0]}, {**drawn[0], name: drawn[1][1]})
    )


@st.composite
def _further_from_middle(
    draw: Callable[[st.SearchStrategy], Any], max_total: int
) -> tuple[dict[str, float], dict[str, float]]:
    total = draw(st.integers(2, max(2, max_total)))
    b = draw(st.integers(1, total // 2))
    return {"b": float(b), "c": float(total - b)}, {"b": float(b - 1), "c": float(total - b + 1)}


def ordered_pairs(quantity: str, max_total: int = 10**6) -> list[tuple[str, st.SearchStrategy, int]]:
    """Monotone properties of ``quantity``: (description, strategy of (first, second) points, direction).

    The direction is +1 where the value may not fall from first to second, -1 where it may not rise.

    Parameters
    ----------
    quantity : str
        A key of ``QUANTITIES``.
    max_total : int, default 10**6
        The largest discordant total of the p-value pairs.

    Returns
    -------
    list of tuple
        (description, strategy, direction) per property.
    """
    if quantity == "required_n":
        base = _design()
        return [
            ("required n must not grow as the gap |p_a - p_b| grows at fixed p_b", _wider_gap(), -1),
            ("required n must not fall as the target power rises", _with(base, "power", (0.5, 0.8, 0.9, 0.95)), +1),
            ("required n must not grow as alpha grows", _with(base, "alpha", (0.001, 0.01, 0.05, 0.1)), -1),
        ]
    if quantity == "pvalue":
        return [
            (
                "the p-value must not grow as |b - c| grows at a fixed total b + c",
                _further_from_middle(min(max_total, 10**6)),
                -1,
            )
        ]
    if quantity == "power_paired_t":
        base = point_strategy(quantity)
        return [
            ("power must not fall as n grows", _with(base, "n", (2.0, 3.0, 5.0, 10.0, 50.0, 500.0)), +1),
            (
                "power must not fall as the effect size grows",
                _with(base, "effect_size", (0.05, 0.2, 0.5, 1.0, 2.0)),
                +1,
            ),
        ]
    base = point_strategy(quantity)
    return [
        (
            "required n must not grow as the effect size grows",
            _with(base, "effect_size", (0.1, 0.2, 0.5, 1.0, 2.0)),
            -1,
        ),
        ("required n must not fall as the target power rises", _with(base, "power", (0.5, 0.8, 0.9, 0.95)), +1),
    ]
