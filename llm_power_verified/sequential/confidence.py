"""Time-uniform confidence sequence for the mean paired difference (Hoeffding-type normal mixture)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import e_process as _generated
from llm_power_verified.errors import ArgumentError
from llm_power_verified.results import Result

__all__ = ["MIN_ALPHA", "ConfidenceSequence", "confidence_sequence"]

#: Smallest level the monitored test takes: the mixture boundary divides by alpha^2, which is 0 in floating point
#: below about 1e-154, and an e-value threshold 1/alpha beyond 1e100 is no decision anyone makes.
MIN_ALPHA = 1e-100


@dataclass(frozen=True, repr=False)
class ConfidenceSequence(Result):
    """Time-uniform confidence sequence for the mean paired difference.

    Attributes
    ----------
    mean : numpy.ndarray
        The running mean difference after t items, at index t - 1.
    lower, upper : numpy.ndarray
        The interval after t items, at index t - 1; with probability at least 1 - alpha every interval covers
        the mean simultaneously.
    alpha : float
        The level.
    mixture_scale : float
        The normal mixture's tuning constant (Howard et al.'s rho; here rho always means the within-pair
        correlation).
    """

    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    alpha: float
    mixture_scale: float


def _optimal_scale(v: float, alpha: float) -> float:
    # Lazy: scipy.optimize costs 0.5 s at import and the audit, which loads this package, never calls it.
    from scipy.optimize import minimize_scalar

    result = minimize_scalar(
        lambda log_rho: float(_generated.normal_mixture_boundary(v, math.exp(log_rho), alpha)),
        bounds=(math.log(v) - 20, math.log(v) + 5),
        method="bounded",
    )
    return math.exp(result.x)


@docfill("differences", "alpha_float", derivation="e_process")
def confidence_sequence(
    differences: Any, alpha: float = 0.05, optimize_at: int | None = None, mixture_scale: float | None = None
) -> ConfidenceSequence:
    r"""Normal-mixture confidence sequence for the mean of per-item differences in [-1, 1].

    A variable in [-1, 1] is sub-Gaussian with variance proxy 1 (Hoeffding), so
    S_t = sum (D_i - mu) has intrinsic time V_t = t and the two-sided boundary
    of Howard et al. (2021).

    Parameters
    ----------
    %(differences)s
    %(alpha_float)s
    optimize_at : int, optional
        The number of items at which the default ``mixture_scale`` minimises the boundary (default: the number
        of items given).
    mixture_scale : float, optional
        The normal mixture's tuning constant s > 0; by default the value minimising the boundary at
        ``optimize_at``.

    Returns
    -------
    ConfidenceSequence
        The running means and the interval after every item.

    Notes
    -----
    With s = ``mixture_scale``:

    .. math:: |S_t| < \sqrt{(t + s) \log\frac{t + s}{s\,\alpha^2}}

    so the interval after t items is mean_t -/+ that radius / t, clipped to [-1, 1].

    References
    ----------
    Howard, S. R., Ramdas, A., McAuliffe, J. and Sekhon, J. (2021).
    Time-uniform, nonparametric, nonasymptotic confidence sequences.
    Ann. Statist. 49(2), 1055-1080.

    Examples
    --------
    >>> cs = confidence_sequence([1, 0, 0, 1, -1, 1] * 50)
    >>> bool(cs.lower[-1] < 1 / 3 < cs.upper[-1])
    True
    >>> round(float(cs.lower[-1]), 3), round(float(cs.upper[-1]), 3)
    (0.158, 0.509)
    """
    values = np.asarray(differences, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ArgumentError("differences must be a non-empty one-dimensional array")
    bad = ~np.isfinite(values) | (values < -1) | (values > 1)
    if bad.any():
        index = int(np.argmax(bad))
        raise ArgumentError(f"differences must lie in [-1, 1]; got {values[index]!r} at index {index}")
    if not MIN_ALPHA <= alpha < 1:
        raise ArgumentError(f"alpha must lie in [{MIN_ALPHA:g}, 1) (the boundary divides by alpha^2); got {alpha!r}")
    t = np.arange(1, values.size + 1, dtype=np.float64)
    mixing = mixture_scale if mixture_scale is not None else _optimal_scale(float(optimize_at or values.size), alpha)
    radius = _generated.normal_mixture_boundary(t, mixing, alpha) / t
    mean = np.cumsum(values) / t
    return ConfidenceSequence(mean, np.maximum(mean - radius, -1.0), np.minimum(mean + radius, 1.0), alpha, mixing)
