"""Admissible Bernoulli correlations and the observed phi coefficient.

Not every rho is attainable for given marginals: all four cells of the 2x2
table must be non-negative, which confines rho to the Hoeffding-Frechet
interval of paper Eqs. 7-8 (derived in ``derivations/admissible_correlation.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import admissible_correlation as _bounds
from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._validation import (
    as_array,
    check_count,
    check_in_open_interval,
    check_rho_admissible,
    describe_index,
    finish,
)
from llm_power_verified.errors import ArgumentError
from llm_power_verified.results import Result

__all__ = ["RhoInterval", "admissible_rho_interval", "correlation_from_counts", "validate_marginals_and_rho"]


@dataclass(frozen=True, repr=False)
class RhoInterval(Result):
    """Closed interval [low, high] of attainable Bernoulli correlations (unpacks as ``low, high``).

    Attributes
    ----------
    low, high : float or numpy.ndarray
        rho_min and rho_max of paper Eqs. 7-8.
    """

    low: float | np.ndarray
    high: float | np.ndarray

    def __iter__(self):
        yield self.low
        yield self.high


@docfill("p_a", derivation="admissible_correlation")
def admissible_rho_interval(p_a: Any, p_b: Any) -> RhoInterval:
    r"""Attainable correlations of two 0/1 scores with accuracies p_a and p_b.

    Parameters
    ----------
    %(p_a)s

    Returns
    -------
    RhoInterval
        The interval [rho_min, rho_max], elementwise for arrays.

    Notes
    -----
    .. math::
        \rho_{max} = \sqrt{\frac{\min(p_A q_B, q_A p_B)}{\max(p_A q_B, q_A p_B)}},\quad
        \rho_{min} = -\sqrt{\frac{\min(p_A p_B, q_A q_B)}{\max(p_A p_B, q_A q_B)}}

    Paper Eqs. 7-8, derived from the non-negativity of the four cells.

    References
    ----------
    Prentice, R. L. (1988). Correlated binary regression with covariates specific to
    each binary observation. Biometrics 44, 1033-1048 (the bounds on the correlation of
    two Bernoulli variables); Resolution Diagnostics for Paired LLM Evaluation (arXiv
    2605.30315), Section 3.

    Examples
    --------
    >>> interval = admissible_rho_interval(0.65, 0.60)
    >>> round(interval.low, 4), round(interval.high, 4)
    (-0.5991, 0.8987)
    """
    p_a = check_in_open_interval("p_a", p_a, 0.0, 1.0)
    p_b = check_in_open_interval("p_b", p_b, 0.0, 1.0)
    return RhoInterval(finish(_bounds.rho_lower_bound(p_a, p_b)), finish(_bounds.rho_upper_bound(p_a, p_b)))


@docfill("p_a", "rho", derivation="admissible_correlation")
def validate_marginals_and_rho(p_a: Any, p_b: Any, rho: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Check p_a, p_b in (0, 1) and rho admissible; return broadcast float arrays.

    Parameters
    ----------
    %(p_a)s
    %(rho)s

    Returns
    -------
    tuple of numpy.ndarray
        (p_a, p_b, rho) broadcast to one shape; NaN passes through.

    Raises
    ------
    ArgumentError
        A marginal outside (0, 1), an infinite rho or a rho outside [rho_min, rho_max].

    Notes
    -----
    rho within 1e-12 of a bound of :func:`admissible_rho_interval` is clipped onto it (a rho-hat computed
    from a table can land a rounding error outside).

    Examples
    --------
    >>> [float(x) for x in validate_marginals_and_rho(0.65, 0.60, 0.3)]
    [0.65, 0.6, 0.3]
    """
    p_a = check_in_open_interval("p_a", p_a, 0.0, 1.0)
    p_b = check_in_open_interval("p_b", p_b, 0.0, 1.0)
    rho = as_array("rho", rho)
    finite = np.isnan(rho) | np.isfinite(rho)
    if not finite.all():
        bad = ~finite
        raise ArgumentError(f"rho must be finite; got {rho[bad].flat[0]:g}{describe_index(bad)}")
    low = _bounds.rho_lower_bound(p_a, p_b)
    high = _bounds.rho_upper_bound(p_a, p_b)
    rho = check_rho_admissible(rho, low, high)
    shape = np.broadcast(p_a, p_b, rho).shape
    return tuple(np.broadcast_to(x, shape) for x in (p_a, p_b, rho))


@docfill("cells", derivation="paired_variance")
def correlation_from_counts(a: Any, b: Any, c: Any, d: Any) -> float | np.ndarray:
    r"""Phi coefficient (Bernoulli correlation) of two aligned 0/1 vectors from their 2x2 counts.

    Parameters
    ----------
    %(cells)s

    Returns
    -------
    float or numpy.ndarray
        rho-hat; NaN when a model is constant (a margin of the table is zero): rho is undefined there.

    Notes
    -----
    .. math:: \hat\rho = \frac{a d - b c}{\sqrt{(a + b)(c + d)(a + c)(b + d)}}

    References
    ----------
    Yule, G. U. (1912). On the methods of measuring association between two
    attributes. J. R. Stat. Soc. 75, 579-652 (the phi coefficient); Resolution
    Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equation 5.

    Examples
    --------
    >>> round(correlation_from_counts(40, 10, 5, 45), 4)
    0.7035
    """
    counts = [check_count(name, value) for name, value in zip(("a", "b", "c", "d"), (a, b, c, d), strict=True)]
    with np.errstate(divide="ignore", invalid="ignore"):
        result = _variance.phi_coefficient(*counts)
    # |phi| <= 1 (Cauchy-Schwarz); rounding takes identical models (b = c = 0) to 1 + 2^-52 for some a, d (a = 7,
    # d = 13), which the JSON schema's range [-1, 1] refuses: clip what can only be rounding.
    return finish(np.where(np.isfinite(result), np.clip(result, -1.0, 1.0), np.nan))
