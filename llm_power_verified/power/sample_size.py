"""Required sample size, MDE, resolution ratio and power for paired binary scores.

Every formula here is printed from a SymPy derivation into
``llm_power_verified._generated``; this module validates arguments,
broadcasts them and handles the edge cases (delta = 0, one-sided tests).

Conventions
-----------
* ``alternative`` is ``"two-sided"`` (default), ``"larger"`` (H1: p_a > p_b)
  or ``"smaller"`` (H1: p_a < p_b), as in statsmodels.
* Required sample sizes are returned unrounded (floats).  The integer
  sample size is the ceiling, :func:`ceil_sample_size`.
* delta = 0 gives N* = inf and q = 0; so does a one-sided alternative whose
  direction the effect contradicts.  Neither is an error.
* NaN in any input propagates to NaN in that output element (see
  ``llm_power_verified._validation``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import observed_table as _table
from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._generated import wald as _wald
from llm_power_verified._validation import (
    ceil_sample_size,
    check_alpha_power,
    check_count,
    check_in_open_interval,
    check_positive,
    describe_index,
    finish,
    sides_for,
)
from llm_power_verified.errors import ArgumentError
from llm_power_verified.power.correlation import validate_marginals_and_rho

__all__ = [
    "ceil_sample_size",
    "critical_value",
    "minimum_detectable_effect",
    "minimum_detectable_effect_paired_binary",
    "paired_difference_variance",
    "paired_difference_variance_from_counts",
    "required_n_from_counts",
    "required_n_paired_binary",
    "required_n_wald",
    "resolution_ratio",
    "resolution_ratio_from_counts",
]


#: The smallest positive double (4.9e-324).
_SMALLEST_LEVEL = float(np.nextafter(0.0, 1.0))


def one_tail_level(alpha: np.ndarray, alternative: str) -> tuple[np.ndarray, int]:
    """``(alpha / s, 1)``: one rejection tail's level, as the generated formulas' ``(alpha, sides)`` arguments.

    The generated formulas compute z_{1 - alpha/s} as -ndtri(alpha / s).  For the
    smallest double, alpha = 4.9e-324, alpha / 2 underflows to 0, whose critical
    value is inf (and N* with it); here that tail level is the smallest double
    instead (z = 38.47 in place of 38.48), the nearest level double precision
    holds, so that every alpha in (0, 1) gives a finite critical value.  For every
    other alpha, alpha / s is the same double the formulas would compute.

    >>> float(one_tail_level(np.float64(5e-324), "two-sided")[0]) > 0
    True
    """
    level = np.asarray(alpha, dtype=np.float64) / sides_for(alternative)
    return np.where((level == 0) & (np.asarray(alpha) > 0), _SMALLEST_LEVEL, level), 1


def signed_effect(alternative: str, delta: np.ndarray) -> np.ndarray:
    """Effect measured in the direction of a one-sided alternative."""
    return -delta if alternative == "smaller" else delta


def infinite_where_undetectable(required: np.ndarray, delta: np.ndarray, alternative: str) -> np.ndarray:
    """N* = inf where delta = 0 or a one-sided alternative points the other way."""
    directed = signed_effect(alternative, delta)
    undetectable = delta == 0 if alternative == "two-sided" else directed <= 0
    return np.where(undetectable, np.inf, required)


@docfill("alpha", "alternative", returns="critical_value", derivation="wald")
def critical_value(alpha: Any = 0.05, alternative: str = "two-sided") -> float | np.ndarray:
    """Normal critical value z_{1 - alpha/2} (two-sided) or z_{1 - alpha} (one-sided).

    Notes
    -----
    z_{1 - alpha/s} = Phi^{-1}(1 - alpha/s), s = 2 for a two-sided test and 1 for a one-
    sided one.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equation 3.

    Examples
    --------
    >>> round(critical_value(0.05), 6)
    1.959964
    """
    alpha_array, _ = check_alpha_power(alpha)
    return finish(_wald.critical_value(*one_tail_level(alpha_array, alternative)))


def paired_difference_variance(p_a: Any, p_b: Any, rho: Any) -> float | np.ndarray:
    r"""Variance of the per-item difference X_A - X_B of two Bernoulli scores.

    Parameters
    ----------
    p_a, p_b : array_like
        Accuracies of the two models, each in (0, 1).
    rho : array_like
        Correlation of the two 0/1 scores; must lie in the admissible interval
        of :func:`~llm_power_verified.power.correlation.admissible_rho_interval`.

    Returns
    -------
    float or ndarray
        sigma_D^2.

    Notes
    -----
    .. math:: \sigma_D^2 = p_A q_A + p_B q_B - 2\rho\sqrt{p_A q_A p_B q_B}

    Paper Eq. 5, derived in ``derivations/paired_variance.py`` from the joint
    cell probabilities.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equation 5.

    Examples
    --------
    >>> round(paired_difference_variance(0.65, 0.60, 0.30), 7)
    0.3273001
    """
    p_a, p_b, rho = validate_marginals_and_rho(p_a, p_b, rho)
    return finish(np.maximum(_variance.paired_difference_variance(p_a, p_b, rho), 0.0))


def validate_table(b: Any, c: Any, n: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    b = check_count("b", b)
    c = check_count("c", c)
    n = check_count("n", n, minimum=1)
    with np.errstate(invalid="ignore"):
        total = b + c
        bad = ~np.isnan(total + n) & (total > n)
    if bad.any():
        index = describe_index(bad)
        bb, cc, nn = (np.broadcast_to(x, bad.shape)[bad].flat[0] for x in (b, c, n))
        raise ArgumentError(f"b + c must not exceed n; got b = {bb:g}, c = {cc:g}, n = {nn:g}{index}")
    return b, c, n


@docfill("counts", "n_table", returns="variance", derivation="paired_variance")
def paired_difference_variance_from_counts(b: Any, c: Any, n: Any) -> float | np.ndarray:
    r"""Plug-in sigma_D^2 from an observed table: b items only A solves, c only B, n in all.

    Notes
    -----
    .. math:: \hat\sigma_D^2 = \frac{b + c}{n} - \left(\frac{b - c}{n}\right)^2

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equation 5 with
    the cells estimated by b/n and c/n.

    Examples
    --------
    >>> round(paired_difference_variance_from_counts(295, 249, 10042), 6)
    0.054151
    """
    b, c, n = validate_table(b, c, n)
    return finish(_variance.paired_difference_variance_from_cells(b / n, c / n))


@docfill("variance", "delta", "alpha", "power", "alternative", returns="required_n", derivation="wald")
def required_n_wald(
    variance: Any, delta: Any, alpha: Any = 0.05, power: Any = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    r"""Unrounded required N* for a normal-theory (Wald) test of a mean difference.

    Notes
    -----
    .. math:: N^\star = \frac{(z_{1-\alpha/2} + z_{1-\beta})^2 \sigma_D^2}{\delta^2}

    Paper Eq. 3.  delta = 0 gives inf.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equation 3.

    Examples
    --------
    >>> round(required_n_wald(0.3273001, 0.05), 2)
    1027.58
    """
    variance = check_positive("variance", variance, allow_zero=True)
    delta = np.asarray(check_in_open_interval("delta", delta, -np.inf, np.inf))
    alpha, power = check_alpha_power(alpha, power)
    level, sides = one_tail_level(alpha, alternative)
    with np.errstate(divide="ignore", invalid="ignore"):
        required = _wald.required_n_wald(variance, delta, level, power, sides)
    return finish(infinite_where_undetectable(required, delta, alternative))


def required_n_paired_binary(
    p_a: Any, p_b: Any, rho: Any, alpha: Any = 0.05, power: Any = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    r"""Unrounded paired sample size N* to detect p_a - p_b at the target power.

    Parameters
    ----------
    p_a, p_b : array_like
        Accuracies of models A and B, in (0, 1).
    rho : array_like
        Correlation of the per-item 0/1 scores, inside the admissible interval.
    alpha : array_like, default 0.05
        Significance level.
    power : array_like, default 0.8
        Target power 1 - beta; must exceed alpha.
    alternative : {"two-sided", "larger", "smaller"}
        "larger" tests H1: p_a > p_b.

    Returns
    -------
    float or ndarray
        N*; use :func:`ceil_sample_size` for the integer requirement.

    Notes
    -----
    .. math:: N^\star = \frac{(z_{1-\alpha/2} + z_{1-\beta})^2\,
              (p_A q_A + p_B q_B - 2\rho\sqrt{p_A q_A p_B q_B})}{(p_A - p_B)^2}

    Paper Eq. 6 (Eq. 3 with Eq. 5), derived in ``derivations/wald.py``.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equation 6.

    Examples
    --------
    >>> round(required_n_paired_binary(0.65, 0.60, 0.30), 3)
    1027.576
    >>> ceil_sample_size(required_n_paired_binary(0.65, 0.60, 0.30))
    1028.0
    """
    p_a, p_b, rho = validate_marginals_and_rho(p_a, p_b, rho)
    variance = np.maximum(_variance.paired_difference_variance(p_a, p_b, rho), 0.0)
    return required_n_wald(variance, p_a - p_b, alpha, power, alternative)


@docfill("counts", "n_table", "alpha", "power", "alternative", returns="required_n", derivation="observed_table")
def required_n_from_counts(
    b: Any, c: Any, n: Any, alpha: Any = 0.05, power: Any = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    r"""Unrounded N* at an observed paired table (b only-A items, c only-B items, n in all).

    Notes
    -----
    .. math:: N^\star = \frac{(z_{1-\alpha/2} + z_{1-\beta})^2\,(n(b + c) - (b - c)^2)}{(b - c)^2}

    Eq. 6 at the observed marginals and phi correlation; depends on (b, c, n) only.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equation 6 with
    the cells estimated by b/n and c/n.

    Examples
    --------
    >>> round(required_n_from_counts(295, 249, 10042))
    20255
    """
    b, c, n = validate_table(b, c, n)
    alpha, power = check_alpha_power(alpha, power)
    level, sides = one_tail_level(alpha, alternative)
    with np.errstate(divide="ignore", invalid="ignore"):
        required = _table.required_n_from_counts(b, c, n, level, power, sides)
    return finish(infinite_where_undetectable(required, b - c, alternative))


@docfill("counts", "n_table", "alpha", "power", "alternative", returns="ratio", derivation="observed_table")
def resolution_ratio_from_counts(
    b: Any, c: Any, n: Any, alpha: Any = 0.05, power: Any = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    """Resolution ratio q = n / N* at an observed table; q >= 1 means resolved.

    Notes
    -----
    q = n / N*, with N* from the cells: sigma_D^2 = (b + c)/n - ((b - c)/n)^2 and delta
    = (b - c)/n.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Definition 1
    and Equation 6.

    Examples
    --------
    >>> round(resolution_ratio_from_counts(295, 249, 10042), 3)
    0.496
    """
    required = np.asarray(required_n_from_counts(b, c, n, alpha, power, alternative))
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(np.isinf(required), 0.0, n / required)
    return finish(ratio)


@docfill("n", "variance", "alpha", "power", "alternative", returns="mde", derivation="wald")
def minimum_detectable_effect(
    n: Any, variance: Any, alpha: Any = 0.05, power: Any = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    r"""Smallest absolute gap a Wald test on n paired items detects at the target power.

    Notes
    -----
    .. math:: \delta_{MDE} = (z_{1-\alpha/2} + z_{1-\beta})\,\sigma_D / \sqrt{N}

    Paper Eq. 4.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equation 4.

    Examples
    --------
    >>> round(minimum_detectable_effect(1000, 0.3273001), 5)
    0.05068
    """
    n = check_positive("n", n)
    variance = check_positive("variance", variance, allow_zero=True)
    alpha, power = check_alpha_power(alpha, power)
    level, sides = one_tail_level(alpha, alternative)
    return finish(_wald.minimum_detectable_effect_wald(variance, n, level, power, sides))


@docfill("n", "p_a", "rho", "alpha", "power", "alternative", returns="mde", derivation="wald")
def minimum_detectable_effect_paired_binary(
    n: Any, p_a: Any, p_b: Any, rho: Any, alpha: Any = 0.05, power: Any = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    """Eq. 4 with sigma_D evaluated at the given (p_a, p_b, rho) (the plug-in MDE).

    The variance is held at the stated marginals rather than re-solved for the
    marginals at the MDE, exactly as the paper's Eq. 4 and checklist use it.

    Notes
    -----
    delta_MDE = (z_{1-alpha/2} + z_{1-beta}) sigma_D / sqrt(n), sigma_D from Equation 5
    at (p_a, p_b, rho).

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equations 4 and
    5.

    Examples
    --------
    >>> round(minimum_detectable_effect_paired_binary(1028, 0.65, 0.60, 0.30), 4)
    0.05
    """
    p_a, p_b, rho = validate_marginals_and_rho(p_a, p_b, rho)
    variance = np.maximum(_variance.paired_difference_variance(p_a, p_b, rho), 0.0)
    return minimum_detectable_effect(n, variance, alpha, power, alternative)


@docfill("n", "p_a", "rho", "alpha", "power", "alternative", returns="ratio", derivation="wald")
def resolution_ratio(
    n: Any, p_a: Any, p_b: Any, rho: Any, alpha: Any = 0.05, power: Any = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    """Resolution ratio q = N / N*(p_a - p_b) (paper Definition 1).

    q equals T_N^2 / (z_{1-alpha/2} + z_{1-beta})^2 with T_N the Wald statistic
    (shown in ``derivations/wald.py``); the gap is resolvable when q >= 1.
    delta = 0 gives q = 0.

    Notes
    -----
    q = N / N*, with N* from Equation 6; the observed gap is resolved at (alpha, power)
    when q >= 1.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Definition 1.

    Examples
    --------
    >>> round(resolution_ratio(1028, 0.65, 0.60, 0.30), 4)
    1.0004
    """
    n = check_positive("n", n)
    required = np.asarray(required_n_paired_binary(p_a, p_b, rho, alpha, power, alternative))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(np.isinf(required), 0.0, n / required)
    return finish(ratio)
