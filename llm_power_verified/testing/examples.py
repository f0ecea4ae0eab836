"""Calculators as people write them, for the README and the guide to audit: two with a known flaw, one correct.

Each is a plain function of the keyword arguments :func:`~llm_power_verified.testing.conformance.check_calculator`
passes (``p_a, p_b, rho, alpha, power`` for a required N; ``b, c`` for a p-value), written with the standard library
and SciPy only, the way a hurried user would, not with this package's functions.
"""

from __future__ import annotations

import math

from scipy.stats import norm

__all__ = ["naive_exact_mcnemar_p", "paired_required_n", "shortcut_required_n"]


def paired_required_n(p_a: float, p_b: float, rho: float, alpha: float, power: float) -> float:
    """The paired N* of two accuracies: correct, for comparison.

    Parameters
    ----------
    p_a, p_b : float
        Accuracies of models A and B.
    rho : float
        Correlation of their per-item 0/1 scores.
    alpha, power : float
        Two-sided level and target power.

    Returns
    -------
    float
        (z_{1-alpha/2} + z_{1-beta})^2 sigma_D^2 / delta^2, unrounded.

    Examples
    --------
    >>> round(paired_required_n(0.65, 0.60, 0.30, 0.05, 0.8), 2)
    1027.58
    """
    variance = p_a * (1 - p_a) + p_b * (1 - p_b) - 2 * rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    return float((norm.ppf(1 - alpha / 2) + norm.ppf(power)) ** 2 * variance / (p_a - p_b) ** 2)


def shortcut_required_n(p_a: float, p_b: float, rho: float, alpha: float, power: float) -> float:
    """The one-sample Cohen's-h size K / h^2 "adjusted for pairing" by (1 - rho): about half the paired N*.

    Parameters
    ----------
    p_a, p_b : float
        Accuracies of models A and B.
    rho : float
        Correlation of their per-item 0/1 scores.
    alpha, power : float
        Two-sided level and target power.

    Returns
    -------
    float
        (1 - rho) (z_{1-alpha/2} + z_{1-beta})^2 / h^2 with h Cohen's h.

    Examples
    --------
    >>> round(shortcut_required_n(0.65, 0.60, 0.30, 0.05, 0.8), 2)
    514.53
    """
    h = 2 * math.asin(math.sqrt(p_a)) - 2 * math.asin(math.sqrt(p_b))
    return float((1 - rho) * (norm.ppf(1 - alpha / 2) + norm.ppf(power)) ** 2 / h**2)


def naive_exact_mcnemar_p(b: int, c: int) -> float:
    """The exact McNemar p with the binomial's 2^n as a float: it overflows from 1,024 discordant pairs.

    Parameters
    ----------
    b, c : int
        Discordant counts.

    Returns
    -------
    float
        min(1, 2 P(X <= min(b, c))) for X ~ Binomial(b + c, 1/2); OverflowError when 2.0 ** (b + c) exceeds the
        largest double.

    Examples
    --------
    >>> naive_exact_mcnemar_p(3, 12)
    0.03515625
    """
    n = b + c
    scale = 2.0**n
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(min(b, c) + 1)) / scale)
