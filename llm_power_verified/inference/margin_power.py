"""Power and sample size of Tango's score test against a margin at true discordant cells (Nam 1997).

Re-exported by :mod:`llm_power_verified.inference.margin`.  The one-sided power and N are generated from
``derivations/margin_score.py``; the equivalence N is found by bisection on the generated power.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtri

from llm_power_verified._generated import margin_score as _generated
from llm_power_verified._validation import (
    as_array,
    check_alpha_power,
    check_positive,
    describe_index,
    finish,
    require_choice,
)
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.margin_tango import BISECTION_STEPS, check_margin, score_z_unchecked, with_missing

__all__ = ["TESTS", "margin_power", "margin_required_n"]

#: Tests of :func:`margin_power`: H0 d <= margin, H0 d <= -margin, and both H0 d <= -margin and H0 d >= margin.
TESTS = ("superiority", "non-inferiority", "equivalence")


def _cells(p10: Any, p01: Any) -> tuple[np.ndarray, np.ndarray]:
    p10 = _check_unit("p10", p10)
    p01 = _check_unit("p01", p01)
    with np.errstate(invalid="ignore"):
        # b / n + c / n can exceed 1 by a rounding when b + c = n; that is the boundary, not outside it.
        bad = p10 + p01 > 1.0 + 4 * np.finfo(np.float64).eps
    if bad.any():
        p10, p01 = np.broadcast_arrays(p10, p01)
        raise ArgumentError(
            f"p10 + p01 must be at most 1 (the discordant cells of one table); got p10 = {p10[bad].flat[0]:g}, "
            f"p01 = {p01[bad].flat[0]:g}{describe_index(bad)}"
        )
    return p10, p01


def _check_unit(name: str, value: Any) -> np.ndarray:
    """The array of a value in [0, 1] (NaN allowed)."""
    array = as_array(name, value)
    bad = ~np.isnan(array) & ~((array >= 0.0) & (array <= 1.0))
    if bad.any():
        raise ArgumentError(f"{name} must lie in [0, 1]; got {array[bad].flat[0]:g}{describe_index(bad)}")
    return array


def _test_margin(test: str, margin: Any) -> np.ndarray:
    require_choice("test", test, TESTS)
    if test == "superiority":
        return check_margin(margin, 0.0, 1.0)
    return check_margin(margin, 0.0, 1.0, low_open=True)


def _one_sided_power(p10, p01, n, boundary, alpha) -> np.ndarray:
    """Power of the score test of H0 d <= boundary; the deterministic answer where sigma_1 = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        power = _generated.power_score_one_sided(p10, p01, n, boundary, alpha)
        degenerate = p10 + p01 - (p10 - p01) ** 2 == 0
        exact = (score_z_unchecked(n * p10, n * p01, n, boundary) >= -ndtri(alpha)).astype(np.float64)
    return with_missing(np.where(degenerate, exact, power), p10, p01, n, boundary, alpha)


def _power(p10, p01, n, margin, alpha, test) -> np.ndarray:
    if test == "superiority":
        return _one_sided_power(p10, p01, n, margin, alpha)
    lower = _one_sided_power(p10, p01, n, -margin, alpha)
    if test == "non-inferiority":
        return lower
    upper = _one_sided_power(p01, p10, n, -margin, alpha)  # H0 d >= m, by swapping the models
    return np.maximum(lower + upper - 1.0, 0.0)


def margin_power(p10: Any, p01: Any, n: Any, margin: Any, alpha: Any = 0.05, test: str = "non-inferiority") -> Any:
    """Power of Tango's score test against a margin at true discordant cells p10, p01 (Nam 1997).

    Parameters
    ----------
    p10, p01 : array_like
        True probabilities that only model A (p10) or only model B (p01) solves an item; p10 + p01 <= 1.
    n : array_like
        Number of paired items, > 0.
    margin : array_like
        The margin m: > 0 for "non-inferiority" and "equivalence", >= 0 for "superiority"; at most 1.
    alpha : array_like, default 0.05
        The level of each one-sided test, in (0, 1).
    test : {"superiority", "non-inferiority", "equivalence"}, default "non-inferiority"
        "superiority": H0 d <= m; "non-inferiority": H0 d <= -m; "equivalence": both H0 d <= -m and H0 d >= m
        must be rejected.

    Returns
    -------
    float or numpy.ndarray
        The power, in [0, 1].

    Notes
    -----
    One-sided test of H0 d <= d0: Phi((sqrt(n) (d - d0) - z_{1-alpha} sigma_0) / sigma_1), sigma_0^2 the null
    variance at the limit of the restricted MLE under the true cells, sigma_1^2 = p10 + p01 - d^2 (Nam 1997;
    derived in ``derivations/margin_score.py``).  Equivalence: P(both reject) ~ P_lower + P_upper - 1 (clipped at
    0), exact for the normal approximation of the gap estimate with both null variances at their limits.  Where
    sigma_1 = 0 the gap estimate is the constant d and the power is 0 or 1.

    Accuracy against the simulated score test (``tests/inference/test_margin_power.py``): within 0.004 wherever
    about 90 or more discordant items are expected (n (p10 + p01) >= 90); with 6 to 20 expected the simulated power
    exceeded it by up to 0.025.

    References
    ----------
    Nam, J. (1997). Biometrics 53, 1422-1430.

    Examples
    --------
    >>> round(margin_power(0.1, 0.1, 1000, 0.05), 6)
    0.968696
    """
    p10, p01 = _cells(p10, p01)
    n = check_positive("n", n)
    margin = _test_margin(test, margin)
    alpha, _ = check_alpha_power(alpha)
    return finish(_power(p10, p01, n, margin, alpha, test))


def margin_required_n(
    p10: Any, p01: Any, margin: Any, alpha: Any = 0.05, power: Any = 0.8, test: str = "non-inferiority"
) -> Any:
    """Unrounded number of items for the score test against a margin to reach the target power (Nam 1997).

    Parameters
    ----------
    p10, p01 : array_like
        True discordant cell probabilities; p10 + p01 <= 1.
    margin : array_like
        The margin m (as in :func:`margin_power`).
    alpha : array_like, default 0.05
        The level of each one-sided test, in (0, 1).
    power : array_like, default 0.8
        Target power, in (alpha, 1).
    test : {"superiority", "non-inferiority", "equivalence"}, default "non-inferiority"
        As in :func:`margin_power`.

    Returns
    -------
    float or numpy.ndarray
        N, unrounded (``ceil_sample_size`` gives the whole number); inf where the true gap lies in H0 (d <= m for
        superiority, d <= -m for non-inferiority, abs(d) >= m for equivalence).

    Notes
    -----
    One-sided: N = (z_{1-alpha} sigma_0 + z_{1-beta} sigma_1)^2 / (d - d0)^2 (generated).  Equivalence has no
    closed form: the N at which :func:`margin_power`'s equivalence power equals the target, found by bisection
    between the larger one-sided N at the target power (a lower bound) and at power (1 + target) / 2 (an upper
    bound), to a relative 1e-12.

    References
    ----------
    Nam (1997), Section 3.

    Examples
    --------
    >>> round(margin_required_n(0.1, 0.1, 0.05), 2), round(margin_required_n(0.1, 0.1, 0.05, test="equivalence"), 2)
    (506.1, 698.62)
    """
    p10, p01 = _cells(p10, p01)
    margin = _test_margin(test, margin)
    alpha, power = check_alpha_power(alpha, power)
    if test == "superiority":
        return finish(_one_sided_n(p10, p01, margin, alpha, power))
    lower = _one_sided_n(p10, p01, -margin, alpha, power)
    if test == "non-inferiority":
        return finish(lower)
    p10, p01, margin, alpha, power = np.broadcast_arrays(p10, p01, margin, alpha, power)
    upper = _one_sided_n(p01, p10, -margin, alpha, power)
    small = np.maximum(lower, upper)
    raised = 0.5 * (1.0 + power)
    large = np.maximum(_one_sided_n(p10, p01, -margin, alpha, raised), _one_sided_n(p01, p10, -margin, alpha, raised))
    finite = np.isfinite(small) & np.isfinite(large)
    small, large = np.where(finite, small, 1.0), np.where(finite, large, 1.0)
    for _ in range(BISECTION_STEPS):
        middle = np.sqrt(small * large)
        enough = _power(p10, p01, middle, margin, alpha, "equivalence") >= power
        small, large = np.where(enough, small, middle), np.where(enough, middle, large)
    return finish(np.where(finite, large, np.where(np.isnan(lower + upper), np.nan, np.inf)))


def _one_sided_n(p10, p01, boundary, alpha, power) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        n = _generated.required_n_score_one_sided(p10, p01, boundary, alpha, power)
    return np.where(p10 - p01 > boundary, n, np.where(np.isnan(n), np.nan, np.inf))
