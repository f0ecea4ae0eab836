"""Power of the paired Wald test at n items: the inverse of the sample-size formulas in :mod:`.sample_size`.

pi_N(delta) = Phi(-z_{1-alpha/2} - mu) + 1 - Phi(z_{1-alpha/2} - mu), mu = abs(delta) sqrt(N) / sigma_D
(the footnote to Equation 2 of Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315)), or the one tail of
a one-sided test.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._generated import wald as _wald
from llm_power_verified._validation import check_alpha_power, check_in_open_interval, check_positive, finish, sides_for
from llm_power_verified.power.correlation import validate_marginals_and_rho
from llm_power_verified.power.sample_size import one_tail_level, signed_effect

__all__ = ["power_paired_binary", "power_wald"]


@docfill("n", "variance", "delta", "alpha", "alternative", returns="power", derivation="wald")
def power_wald(
    n: Any, variance: Any, delta: Any, alpha: Any = 0.05, alternative: str = "two-sided"
) -> float | np.ndarray:
    r"""Exact power of the normal-theory Wald test (both tails when two-sided).

    Notes
    -----
    .. math:: \pi_N = \Phi(-z_{1-\alpha/2} - \mu) + \Phi(\mu - z_{1-\alpha/2}),
              \quad \mu = |\delta|\sqrt{N}/\sigma_D

    Paper footnote 1.  One-sided: Phi(mu - z_{1-alpha}) with mu signed in the
    direction of the alternative.  At delta = 0 the power equals alpha.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equation 2 and
    its footnote.

    Examples
    --------
    >>> round(power_wald(1027.576, 0.3273001, 0.05), 4)
    0.8
    """
    n = check_positive("n", n)
    variance = check_positive("variance", variance)
    delta = check_in_open_interval("delta", delta, -np.inf, np.inf)
    alpha, _ = check_alpha_power(alpha)
    if alternative == "two-sided":
        # The formula halves alpha itself; a level whose half underflows is taken as twice the tail one_tail_level
        # keeps.
        result = _wald.power_wald_two_sided(variance, delta, n, 2 * one_tail_level(alpha, alternative)[0])
    else:
        sides_for(alternative)
        result = _wald.power_wald_one_sided(variance, signed_effect(alternative, delta), n, alpha)
    return finish(result)


@docfill("n", "p_a", "rho", "alpha", "alternative", returns="power", derivation="wald")
def power_paired_binary(
    n: Any, p_a: Any, p_b: Any, rho: Any, alpha: Any = 0.05, alternative: str = "two-sided"
) -> float | np.ndarray:
    """Exact Wald power at n paired items for Bernoulli marginals p_a, p_b and correlation rho.

    Notes
    -----
    pi = Phi(-z_{1-alpha/2} - mu) + 1 - Phi(z_{1-alpha/2} - mu) with mu = abs(delta)
    sqrt(n) / sigma_D and sigma_D from Equation 5 (one-sided: 1 - Phi(z_{1-alpha} -
    mu)).

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equations 2 and
    5.

    Examples
    --------
    >>> round(power_paired_binary(1028, 0.65, 0.60, 0.30), 4)
    0.8002
    """
    p_a, p_b, rho = validate_marginals_and_rho(p_a, p_b, rho)
    variance = _variance.paired_difference_variance(p_a, p_b, rho)
    return power_wald(n, variance, p_a - p_b, alpha, alternative)
