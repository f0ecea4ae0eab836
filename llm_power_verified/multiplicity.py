"""How a family-wise correction of alpha inflates the required sample size.

A leaderboard that displays m comparisons at once controls the family-wise
error by testing each at a smaller alpha'.  Substituting alpha' in Eq. 3
multiplies N* by a factor that depends only on (m, alpha, power): printed from
``derivations/multiplicity.py``.  Holm's procedure is never stricter than
Bonferroni, so the Bonferroni factor is an upper bound for Holm.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llm_power_verified._generated import multiplicity as _multiplicity
from llm_power_verified._validation import check_alpha_power, check_count, finish, sides_for

__all__ = ["required_n_inflation"]

_METHODS = {"bonferroni": _multiplicity.bonferroni_inflation, "sidak": _multiplicity.sidak_inflation}


def required_n_inflation(family_size: Any, alpha: Any = 0.05, power: Any = 0.8, method: str = "bonferroni", alternative: str = "two-sided"):
    """Factor by which N* grows when each of m comparisons is tested at a corrected level.

    Parameters
    ----------
    family_size : array_like
        Number m of comparisons in the declared family (whole number >= 1),
        e.g. K - 1 adjacent pairs or K (K - 1) / 2 pairs of a K-model table.
    method : {"bonferroni", "sidak"}
        alpha' = alpha / m, or alpha' = 1 - (1 - alpha)^(1/m).

    Notes
    -----
    .. math:: \\frac{(z_{1-\\alpha'/2} + z_{1-\\beta})^2}{(z_{1-\\alpha/2} + z_{1-\\beta})^2}

    Examples
    --------
    >>> round(required_n_inflation(40), 3)
    2.109
    >>> round(required_n_inflation(45), 3)
    2.144
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of 'bonferroni', 'sidak'; got {method!r}")
    family_size = check_count("family_size", family_size, minimum=1)
    alpha, power = check_alpha_power(alpha, power)
    return finish(_METHODS[method](family_size, alpha, power, sides_for(alternative)))
