"""Cohen's h, the arcsine sample-size conventions, and the (1 - rho) shortcut.

Power calculators built on Cohen's h return an unpaired per-arm sample size.
Multiplying it by (1 - rho) to "account for pairing" gives the shortcut
n_h = (1 - rho) K / h^2 of paper Eq. 9, which is about half the correct paired
N* (Lemma 1).  This module computes the conventions, the exact ratio n_h / N*,
its small-effect expansion and the tolerance delta* of Corollary 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import admissible_correlation as _bounds
from llm_power_verified._generated import arcsine as _arcsine
from llm_power_verified._generated import shortcut_series as _series
from llm_power_verified._validation import as_array, check_alpha_power, check_in_open_interval, finish
from llm_power_verified.errors import ArgumentError
from llm_power_verified.power.correlation import validate_marginals_and_rho
from llm_power_verified.power.sample_size import one_tail_level
from llm_power_verified.results import Result

__all__ = [
    "DeltaStar",
    "cohens_h",
    "delta_star",
    "required_n_arcsine",
    "required_n_shortcut",
    "shortcut_constant",
    "shortcut_ratio",
    "shortcut_ratio_series",
]

_CONVENTIONS = {
    "one-sample": _arcsine.required_n_arcsine_one_sample,
    "two-sample": _arcsine.required_n_arcsine_two_sample,
}


@docfill("p_a", returns="cohens_h", derivation="arcsine")
def cohens_h(p_a: Any, p_b: Any) -> float | np.ndarray:
    """Cohen's effect size h = 2 arcsin sqrt(p_a) - 2 arcsin sqrt(p_b).

    Computed as 2 arcsin((p_a - p_b) / (sqrt(p_a q_b) + sqrt(p_b q_a))), an
    identity proven in ``derivations/arcsine.py`` that keeps full relative
    precision when p_a and p_b are close.

    References
    ----------
    Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences,
    2nd ed., Ch. 6.

    Notes
    -----
    h = 2 arcsin(sqrt(p_a)) - 2 arcsin(sqrt(p_b)), the variance-stabilised difference of
    two proportions.

    Examples
    --------
    >>> round(cohens_h(0.65, 0.60), 6)
    0.103335
    """
    p_a = check_in_open_interval("p_a", p_a, 0.0, 1.0)
    p_b = check_in_open_interval("p_b", p_b, 0.0, 1.0)
    return finish(_arcsine.cohens_h(p_a, p_b))


@docfill("p_a", "alpha", "power", "alternative", "convention", returns="per_arm_n", derivation="arcsine")
def required_n_arcsine(
    p_a: Any,
    p_b: Any,
    alpha: Any = 0.05,
    power: Any = 0.8,
    alternative: str = "two-sided",
    convention: str = "two-sample",
) -> float | np.ndarray:
    """Unrounded per-arm sample size of the arcsine (Cohen's h) test.

    Notes
    -----
    K = (z_{1-alpha/2} + z_{1-beta})^2.  p_a = p_b gives inf.

    References
    ----------
    Cohen (1988), Ch. 6, Equation 6.4.1.

    Examples
    --------
    >>> round(required_n_arcsine(0.65, 0.60, convention="one-sample"), 2)
    735.05
    >>> round(required_n_arcsine(0.65, 0.60, convention="two-sample"), 2)
    1470.09
    """
    if convention not in _CONVENTIONS:
        raise ArgumentError(f"convention must be 'one-sample' or 'two-sample'; got {convention!r}")
    p_a = check_in_open_interval("p_a", p_a, 0.0, 1.0)
    p_b = check_in_open_interval("p_b", p_b, 0.0, 1.0)
    alpha, power = check_alpha_power(alpha, power)
    level, sides = one_tail_level(alpha, alternative)
    with np.errstate(divide="ignore"):
        result = _CONVENTIONS[convention](p_a, p_b, level, power, sides)
    return finish(result)


@docfill("p_a", "rho", "alpha", "power", "alternative", returns="shortcut_n", derivation="arcsine")
def required_n_shortcut(
    p_a: Any, p_b: Any, rho: Any, alpha: Any = 0.05, power: Any = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    """The shortcut n_h = (1 - rho) K / h^2 of paper Eq. 9 (not a valid paired N).

    Notes
    -----
    n_h = (1 - rho) K / h^2 with K = (z_{1-alpha/2} + z_{1-beta})^2 and h Cohen's h: the
    per-arm arcsine N times (1 - rho).  It is about N*/2 for close comparisons (Lemma
    1).

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Section 4 and
    Lemma 1.

    Examples
    --------
    >>> round(required_n_shortcut(0.65, 0.60, 0.30), 2)
    514.53
    """
    p_a, p_b, rho = validate_marginals_and_rho(p_a, p_b, rho)
    alpha, power = check_alpha_power(alpha, power)
    level, sides = one_tail_level(alpha, alternative)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = _arcsine.required_n_shortcut(p_a, p_b, rho, level, power, sides)
    return finish(np.where(p_a == p_b, np.inf, result))


@docfill("p_a", "rho", returns="shortcut_ratio", derivation="shortcut_series")
def shortcut_ratio(p_a: Any, p_b: Any, rho: Any) -> float | np.ndarray:
    """Exact n_h / N*; it does not depend on alpha, power or the alternative.

    Notes
    -----
    n_h / N* = (1 - rho) K/h^2 / (K sigma_D^2 / delta^2) = (1 - rho) delta^2 / (h^2
    sigma_D^2).

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Lemma 1.

    Examples
    --------
    >>> round(shortcut_ratio(0.65, 0.60, 0.30), 4)
    0.5007
    """
    p_a, p_b, rho = validate_marginals_and_rho(p_a, p_b, rho)
    _check_rho_below_one(rho)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = _series.shortcut_ratio(p_a, p_b, rho)
    limit = _series.shortcut_ratio_series(0.5 * (p_a + p_b), rho, 0.0)
    return finish(np.where(p_a == p_b, limit, ratio))


def _check_rho_below_one(rho: np.ndarray) -> None:
    bad = ~np.isnan(rho) & (rho >= 1)
    if bad.any():
        raise ArgumentError("rho must be below 1 for the shortcut ratio (n_h = 0 and N* = 0/0 at rho = 1)")


def _validate_midpoint(p: Any, rho: Any) -> tuple[np.ndarray, np.ndarray]:
    p = check_in_open_interval("p", p, 0.0, 1.0)
    rho = as_array("rho", rho)
    low = _bounds.rho_lower_bound(p, p)
    bad = ~np.isnan(rho + low) & ((rho < low - 1e-12) | (rho >= 1))
    if bad.any():
        shape = bad.shape
        value = np.broadcast_to(rho, shape)[bad].flat[0]
        bound = np.broadcast_to(low, shape)[bad].flat[0]
        raise ArgumentError(f"rho must lie in [{bound:.6g}, 1) at p_a = p_b = p; got {value:g}")
    return p, rho


@docfill("p", "rho_open", returns="shortcut_constant")
def shortcut_constant(p: Any, rho: Any) -> float | np.ndarray:
    r"""Lemma 1's constant C(p, rho): abs(n_h/N* - 1/2) ~ C delta^2 at p +/- delta/2.

    Notes
    -----
    .. math:: C(p,\rho) = \frac12\left|\frac{(1+\rho)(1-2p)^2}{16(1-\rho)u^2} - \frac{1}{6u}\right|,
              \quad u = p(1-p)

    Paper Eq. 11, re-derived by series expansion in ``derivations/shortcut_series.py``.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Lemma 1 and
    Equation 11.

    Examples
    --------
    >>> abs(shortcut_constant(0.5, 0.3) - 1 / 3) < 1e-15
    True
    """
    p, rho = _validate_midpoint(p, rho)
    return finish(_series.shortcut_constant(p, rho))


@docfill("p", "rho_open", "delta", "order", returns="series")
def shortcut_ratio_series(p: Any, rho: Any, delta: Any, order: int = 4) -> float | np.ndarray:
    """n_h/N* at p +/- delta/2 expanded through delta^2 (``order=2``) or delta^4 (``order=4``).

    Notes
    -----
    n_h / N* = 1/2 + C(p, rho) delta^2 + O(delta^4), with C from Equation 11.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Lemma 1 and
    Equation 11 (derived in ``derivations/shortcut_series.py``).

    Examples
    --------
    >>> round(shortcut_ratio_series(0.625, 0.3, 0.05), 5)
    0.50072
    """
    p, rho = _validate_midpoint(p, rho)
    delta = check_in_open_interval("delta", delta, -2.0, 2.0)
    if order == 4:
        return finish(_series.shortcut_ratio_series(p, rho, delta))
    if order == 2:
        return finish(0.5 + _series.shortcut_ratio_c2(p, rho) * delta**2)
    raise ArgumentError(f"order must be 2 or 4; got {order!r}")


@dataclass(frozen=True, repr=False)
class DeltaStar(Result):
    """Corollary 1's tolerance delta*(p, rho, epsilon).

    Attributes
    ----------
    leading_order : float
        sqrt(epsilon / C(p, rho)).
    exact : float
        The smallest delta > 0 at which abs(n_h/N* - 1/2) reaches epsilon at the
        midpoint p +/- delta/2, or the end of the admissible range.
    limited_by : str
        "epsilon" when the deviation reaches epsilon; "admissibility" when rho
        stops being attainable, or p +/- delta/2 leaves (0, 1), first.
    """

    leading_order: float
    exact: float
    limited_by: str


@docfill("p", "rho_open", "epsilon", returns="delta_star", derivation="shortcut_series")
def delta_star(p: float, rho: float, epsilon: float) -> DeltaStar:
    """Largest gap at which the shortcut stays within epsilon of N*/2 (Corollary 1).

    The leading-order value solves C(p, rho) delta^2 = epsilon; the exact
    value solves abs(n_h/N*(p + delta/2, p - delta/2, rho) - 1/2) = epsilon for
    the first crossing, located on a grid and refined with Brent's method.
    Scalar arguments only.

    Notes
    -----
    Leading order: C(p, rho) delta*^2 = epsilon, so delta* = sqrt(epsilon / abs(C(p, rho)))
    with C from Equation 11.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Lemma 1,
    Equation 11 and Corollary 1.

    Examples
    --------
    >>> result = delta_star(0.65, 0.3, 0.05)
    >>> round(result.leading_order, 3)
    0.434
    """
    # Lazy: scipy.optimize adds about 0.6 s to `import llm_power_verified` (measured), which loads this room.
    from scipy.optimize import brentq  # imported here to keep the package import light

    for name, value in (("p", p), ("rho", rho), ("epsilon", epsilon)):
        if np.ndim(value) != 0:
            raise TypeError(f"{name} must be a scalar; got an array of shape {np.shape(value)}")
    epsilon_value = float(check_in_open_interval("epsilon", epsilon, 0.0, 0.5))
    p_array, rho_array = _validate_midpoint(p, rho)
    p_value, rho_value = float(p_array), float(rho_array)
    constant = float(_series.shortcut_constant(p_value, rho_value))
    leading = math.sqrt(epsilon_value / constant) if constant > 0 else math.inf

    def margin(gap):
        """Distance of rho inside its admissible interval at p +/- gap/2 (negative outside)."""
        upper, lower = p_value + gap / 2, p_value - gap / 2
        return np.minimum(
            _bounds.rho_upper_bound(upper, lower) - rho_value, rho_value - _bounds.rho_lower_bound(upper, lower)
        )

    def deviation(gap):
        ratio = _series.shortcut_ratio(p_value + gap / 2, p_value - gap / 2, rho_value)
        return np.abs(ratio - 0.5) - epsilon_value

    limit = 2 * min(p_value, 1 - p_value)
    grid = limit * np.geomspace(1e-6, 1 - 1e-12, 4096)
    inside = margin(grid) >= 0
    end = grid.size if inside.all() else int(np.argmin(inside))
    if end == 0:
        return DeltaStar(leading, 0.0, "admissibility")
    values = deviation(grid[:end])
    crossing = np.flatnonzero(values >= 0)
    if crossing.size == 0:
        if end == grid.size:
            return DeltaStar(leading, limit, "admissibility")
        boundary = brentq(lambda g: float(margin(g)), grid[end - 1], grid[end], xtol=1e-15, rtol=1e-14)
        return DeltaStar(leading, float(boundary), "admissibility")
    first = int(crossing[0])
    if first == 0:
        return DeltaStar(leading, float(grid[0]), "epsilon")
    root = brentq(lambda g: float(deviation(g)), grid[first - 1], grid[first], xtol=1e-15, rtol=1e-14)
    return DeltaStar(leading, float(root), "epsilon")
