"""Connor's (1987) required N for McNemar's test, from the population cells or an observed table.

N = (z_{1-alpha/2} sqrt(psi) + z_{1-beta} sqrt(psi - delta^2))^2 / delta^2 with
psi = p10 + p01 the discordance probability and delta = p10 - p01: the
"discordance-form McNemar required-N" Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315) compares with
its Equation 6.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import connor as _connor
from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._validation import check_alpha_power, finish
from llm_power_verified.power.correlation import validate_marginals_and_rho
from llm_power_verified.power.sample_size import infinite_where_undetectable, one_tail_level, validate_table

__all__ = ["required_n_connor", "required_n_connor_from_counts"]


@docfill("p_a", "rho", "alpha", "power", "alternative", returns="required_n_connor", derivation="connor")
def required_n_connor(
    p_a: Any, p_b: Any, rho: Any, alpha: Any = 0.05, power: Any = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    r"""Connor's (1987) required N for McNemar's test at marginals p_a, p_b and correlation rho.

    Notes
    -----
    With psi = p10 + p01 and delta = p10 - p01,

    .. math:: N = \frac{\left(z_{1-\alpha/2}\sqrt{\psi} + z_{1-\beta}\sqrt{\psi - \delta^2}\right)^2}{\delta^2}

    References
    ----------
    Connor, R. J. (1987). Sample size for testing differences in proportions
    for the paired-sample design. Biometrics 43(1), 207-211.

    Examples
    --------
    >>> round(required_n_connor(0.65, 0.60, 0.30), 1)
    1033.1
    """
    p_a, p_b, rho = validate_marginals_and_rho(p_a, p_b, rho)
    both = _variance.joint_success_probability(p_a, p_b, rho)
    only_a = np.maximum(p_a - both, 0.0)
    only_b = np.maximum(p_b - both, 0.0)
    return _connor_from_cells(only_a, only_b, p_a - p_b, alpha, power, alternative)


def _connor_from_cells(only_a, only_b, delta, alpha, power, alternative):
    alpha, power = check_alpha_power(alpha, power)
    level, sides = one_tail_level(alpha, alternative)
    with np.errstate(divide="ignore", invalid="ignore"):
        required = _connor.required_n_connor(only_a, only_b, level, power, sides)
    return finish(infinite_where_undetectable(required, delta, alternative))


@docfill("counts", "n_table", "alpha", "power", "alternative", returns="required_n_connor", derivation="connor")
def required_n_connor_from_counts(
    b: Any, c: Any, n: Any, alpha: Any = 0.05, power: Any = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    """Connor's required N with the discordance probabilities estimated by b/n and c/n.

    This is the paper's "discordance-form McNemar required-N" (Appendix J,
    ``required_n_mcnemar``).

    Notes
    -----
    Connor's formula with psi = (b + c)/n and delta = (b - c)/n: N = (z_{1-alpha/2}
    sqrt(psi) + z_{1-beta} sqrt(psi - delta^2))^2 / delta^2.

    References
    ----------
    Connor, R. J. (1987). Sample size for testing differences in proportions for the
    paired-sample design. Biometrics 43, 207-211.

    Examples
    --------
    >>> round(required_n_connor_from_counts(295, 249, 10042))
    20261
    """
    b, c, n = validate_table(b, c, n)
    return _connor_from_cells(b / n, c / n, b - c, alpha, power, alternative)
