"""What an inconclusive comparison would need: the power of the decision its observed gap points to, and the N.

The observed gap d = candidate - baseline points to a decision: **pass** when d lies in the test's alternative
(superiority d > m, non-inferiority d > -m, equivalence -m < d < m), **fail** when it lies outside.  Each decision is
one or two one-sided tests at alpha; their power at N and the N that gives them ``power`` are computed with the
observed cells (0/1 scores) or the observed mean and standard deviation of the differences (graded scores) taken as
the truth.  A gap exactly on a boundary points to neither: power and N are then undefined (NaN).

The power is observed (post-hoc) power: computed at the observed gap, it is a function of the p-values and adds no
evidence (Hoenig and Heisey 2001).  ``compare`` reports it, as ``power_at_observed_gap`` beside ``n_to_decide``,
for an inconclusive fixed-N verdict only, as a planning guess for a larger run.

* 0/1 scores: the score test against a margin (Nam 1997; :func:`~llm_power_verified.inference.margin.margin_power`,
  :func:`~llm_power_verified.inference.margin.margin_required_n`); a one-sided test that d lies below a bound is the
  same test on the swapped cells (d -> -d).
* graded scores: the paired t test (:func:`~llm_power_verified.power.paired_t.power_paired_t` on d - bound);
  equivalence as the two one-sided tests together, with power at least P_low + P_high - 1 (the usual bound;
  exact when the two tests cannot both fail), N solved for that bound.
"""

from __future__ import annotations

import math

import numpy as np

from llm_power_verified.inference.margin import margin_power, margin_required_n
from llm_power_verified.power.paired_t import power_paired_t, required_n_paired_t

__all__ = ["decision_direction", "power_and_n_binary", "power_and_n_graded"]


def decision_direction(test: str, margin: float, difference: float) -> tuple[str, float, int] | None:
    """The decision the observed gap points to, as (decision, bound, sign): show sign * (d - bound) > 0.

    Parameters
    ----------
    test : {"superiority", "non-inferiority", "equivalence"}
        The test.
    margin : float
        m.
    difference : float
        The observed d.

    Returns
    -------
    tuple or None
        ("pass" or "fail", bound, +1 or -1); for equivalence's pass the bound is m (sign 0 marks the two-sided
        region); None when d sits on a boundary.

    Examples
    --------
    >>> decision_direction("non-inferiority", 0.02, -0.05)
    ('fail', -0.02, -1)
    >>> decision_direction("equivalence", 0.02, 0.01)
    ('pass', 0.02, 0)
    """
    if test == "equivalence":
        if abs(difference) < margin:
            return ("pass", margin, 0)
        if abs(difference) == margin:
            return None
        return ("fail", margin if difference > 0 else -margin, 1 if difference > 0 else -1)
    bound = margin if test == "superiority" else -margin
    if difference == bound:
        return None
    return ("pass", bound, 1) if difference > bound else ("fail", bound, -1)


def _one_sided_binary(p10: float, p01: float, n, bound: float, sign: int, alpha: float, power: float | None):
    """Power at n (power None) or the N for ``power`` of the score test showing sign * (d - bound) > 0."""
    if sign < 0:  # d < bound is -d > -bound: the same test on the swapped cells
        p10, p01, bound = p01, p10, -bound
    # H0 d <= bound: "superiority" at margin bound >= 0, "non-inferiority" (H0 d <= -margin) at margin -bound > 0.
    test, margin = ("superiority", bound) if bound >= 0 else ("non-inferiority", -bound)
    if power is None:
        return float(margin_power(p10, p01, n, margin, alpha, test))
    return float(margin_required_n(p10, p01, margin, alpha, power, test))


def power_and_n_binary(
    test: str, margin: float, b: int, c: int, n: int, alpha: float, power: float
) -> tuple[float, float]:
    """(power at n, N for ``power``) of the decision the observed 0/1 cells point to.

    Parameters
    ----------
    test : {"superiority", "non-inferiority", "equivalence"}
        The test.
    margin : float
        m.
    b, c : int
        Items only the candidate solves, only the baseline.
    n : int
        The paired items.
    alpha : float
        The level of each one-sided test.
    power : float
        The target power of the N.

    Returns
    -------
    tuple of float
        The power and the unrounded N; NaN both when the gap sits on a boundary, N inf when no N reaches it.
    """
    p10, p01 = b / n, c / n
    direction = decision_direction(test, margin, (b - c) / n)
    if direction is None:
        return math.nan, math.nan
    _, bound, sign = direction
    if sign == 0:
        return (
            float(margin_power(p10, p01, n, margin, alpha, "equivalence")),
            float(margin_required_n(p10, p01, margin, alpha, power, "equivalence")),
        )
    return (
        _one_sided_binary(p10, p01, n, bound, sign, alpha, None),
        _one_sided_binary(p10, p01, n, bound, sign, alpha, power),
    )


def _t_power(n: float, effect: float, sd: float, alpha: float) -> float:
    """Power of the one-sided paired t test of H0: effect <= 0 (n pairs, sd of the differences)."""
    return float(power_paired_t(n, effect, sd, alpha, "larger"))


def power_and_n_graded(
    test: str, margin: float, mean: float, sd: float, n: int, alpha: float, power: float
) -> tuple[float, float]:
    """(power at n, N for ``power``) of the decision the observed graded differences point to (paired t).

    Parameters
    ----------
    test : {"superiority", "non-inferiority", "equivalence"}
        The test.
    margin : float
        m.
    mean, sd : float
        The observed mean and standard deviation of the differences.
    n : int
        The paired items (>= 2).
    alpha : float
        The level of each one-sided test.
    power : float
        The target power of the N.

    Returns
    -------
    tuple of float
        The power and the unrounded N; NaN both when the gap sits on a boundary or sd is 0.
    """
    direction = decision_direction(test, margin, mean)
    if direction is None or not sd > 0:
        return math.nan, math.nan
    _, bound, sign = direction
    if sign != 0:
        effect = sign * (mean - bound)
        return _t_power(n, effect, sd, alpha), float(required_n_paired_t(effect, sd, alpha, power, "larger"))

    def both(size: float) -> float:
        return max(0.0, _t_power(size, mean + margin, sd, alpha) + _t_power(size, margin - mean, sd, alpha) - 1)

    # Lazy: scipy.optimize costs 0.4 s at import (measured with -X importtime); only graded equivalence needs it.
    from scipy.optimize import brentq

    high = max(
        float(required_n_paired_t(mean + margin, sd, alpha, (1 + power) / 2, "larger")),
        float(required_n_paired_t(margin - mean, sd, alpha, (1 + power) / 2, "larger")),
    )  # each side at (1 + power) / 2 gives the bound at least power
    low = 1.0 + 1e-9
    size = low if both(low) >= power else brentq(lambda size: both(size) - power, low, high, xtol=1e-9)
    return both(float(n)), float(np.float64(size))
