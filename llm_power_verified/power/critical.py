"""The critical correlation of a gap known only from two accuracies, and the agreement share it implies.

A leaderboard that prints one accuracy per model fixes p_A, p_B and N but
not the correlation rho of the two models' per-item scores.  N* (Eq. 6)
falls as rho rises, so a gap is resolved (q >= 1) at N items exactly when
rho >= rho_c; both closed forms are derived in
``derivations/critical_correlation.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llm_power_verified._generated import critical_correlation as _critical
from llm_power_verified._validation import (
    check_alpha_power,
    check_in_open_interval,
    check_positive,
    finish,
    require_choice,
)
from llm_power_verified.power.correlation import validate_marginals_and_rho
from llm_power_verified.power.sample_size import one_tail_level

__all__ = ["agreement_share", "critical_correlation"]

_ALTERNATIVES = ("two-sided", "larger", "smaller")


def critical_correlation(
    p_a: Any, p_b: Any, n: Any, alpha: Any = 0.05, power: Any = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    r"""The correlation rho_c at which N*(rho) = N: the gap is resolved at ``n`` items iff rho >= rho_c.

    Parameters
    ----------
    p_a, p_b : array_like
        Accuracies of models A and B, each in (0, 1).
    n : array_like
        Number of paired items, > 0.
    alpha : array_like, default 0.05
        Significance level, in (0, 1): the per-comparison level (pass the corrected level for a family).
    power : array_like, default 0.8
        Target power 1 - beta, in (alpha, 1).
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        The alternative hypothesis: "larger" is H1: p_a > p_b, "smaller" is H1: p_a < p_b.

    Returns
    -------
    float or numpy.ndarray
        rho_c, the root of the closed form, unclipped (it can lie outside
        [-1, 1]): below the admissible interval means resolved at every
        attainable rho, above it unresolved at every one.  A zero gap, or a
        one-sided alternative the gap contradicts, gives +inf.  Reports print
        a value outside the admissible interval as "none" beside the verdict it
        implies (``report.cells.reported_pairs``).

    Notes
    -----
    .. math:: \rho_c = \frac{V_A + V_B - N\delta^2/K}{2\sqrt{V_A V_B}},
              \quad K = (z_{1-\alpha/s} + z_{1-\beta})^2

    Eqs. 5-6 solved for rho (``derivations/critical_correlation.py``).

    Examples
    --------
    >>> round(float(critical_correlation(0.65, 0.60, 1028)), 4)   # N* at rho = 0.30 is 1027.6
    0.2997
    """
    require_choice("alternative", alternative, _ALTERNATIVES)
    p_a = check_in_open_interval("p_a", p_a, 0.0, 1.0)
    p_b = check_in_open_interval("p_b", p_b, 0.0, 1.0)
    n = check_positive("n", n)
    alpha, power = check_alpha_power(alpha, power)
    delta = p_a - p_b
    effect = -delta if alternative == "smaller" else delta
    contradicted = (effect <= 0) if alternative != "two-sided" else (delta == 0)
    level, sides = one_tail_level(alpha, alternative)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = _critical.critical_correlation(p_a, p_b, n, level, power, sides)
    return finish(np.where(contradicted & ~np.isnan(delta), np.inf, value))


def agreement_share(p_a: Any, p_b: Any, rho: Any) -> float | np.ndarray:
    """Share of items on which two models agree (both right or both wrong) at correlation ``rho``.

    Linear in rho, so 'rho >= rho_c' reads 'the models agree on at least
    agreement_share(p_a, p_b, rho_c) of the items'.  ``rho`` must be admissible
    for the marginals (paper Eqs. 7-8).

    Parameters
    ----------
    p_a, p_b : array_like
        Accuracies of models A and B, each in (0, 1).
    rho : array_like
        Correlation of the two models' per-item 0/1 scores (the phi coefficient), inside the admissible interval of
        the marginals (:func:`~llm_power_verified.power.correlation.admissible_rho_interval`).

    Returns
    -------
    float or numpy.ndarray
        The probability p11 + p00 that both models are right or both wrong, in [0, 1].

    Notes
    -----
    p11 + p00 = 1 - p_a - p_b + 2 p11 with p11 = p_a p_b + rho sqrt(p_a q_a p_b q_b)
    (``derivations/paired_variance.py``, ``joint_success_probability``).

    Examples
    --------
    >>> round(float(agreement_share(0.65, 0.60, 0.30)), 4)
    0.6702
    """
    p_a, p_b, rho = validate_marginals_and_rho(p_a, p_b, rho)
    return finish(_critical.agreement_share(p_a, p_b, rho))
