"""Time-uniform confidence sequence for the mean paired difference (Hoeffding-type normal mixture)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified._generated import e_process as _generated
from llm_power_verified.errors import ArgumentError
from llm_power_verified.results import Result

__all__ = ["ConfidenceSequence", "confidence_sequence"]


@dataclass(frozen=True, repr=False)
class ConfidenceSequence(Result):
    """Time-uniform confidence sequence for the mean paired difference.

    ``lower[t-1]``, ``upper[t-1]`` bound the mean after t items; with
    probability at least 1 - alpha every interval covers it simultaneously.
    ``mixture_scale`` is the normal mixture's tuning constant (Howard et al.'s
    rho; here rho always means the within-pair correlation).
    """

    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    alpha: float
    mixture_scale: float


def _optimal_scale(v: float, alpha: float) -> float:
    # Lazy: scipy.optimize costs 0.5 s at import and the audit, which loads this package, never calls it.
    from scipy.optimize import minimize_scalar

    result = minimize_scalar(lambda log_rho: float(_generated.normal_mixture_boundary(v, math.exp(log_rho), alpha)),
                             bounds=(math.log(v) - 20, math.log(v) + 5), method="bounded")
    return math.exp(result.x)


def confidence_sequence(
    differences: Any, alpha: float = 0.05, optimize_at: int | None = None, mixture_scale: float | None = None
) -> ConfidenceSequence:
    """Normal-mixture confidence sequence for the mean of per-item differences in [-1, 1].

    A variable in [-1, 1] is sub-Gaussian with variance proxy 1 (Hoeffding), so
    S_t = sum (D_i - mu) has intrinsic time V_t = t and the two-sided boundary
    of Howard et al. (2021).  ``mixture_scale`` defaults to the value minimising
    the boundary at ``optimize_at`` (default: the number of items).

    Notes
    -----
    With s = ``mixture_scale``:

    .. math:: |S_t| < \\sqrt{(t + s) \\log\\frac{t + s}{s\\,\\alpha^2}}

    so the interval after t items is mean_t -/+ that radius / t, clipped to [-1, 1].

    References
    ----------
    Howard, S. R., Ramdas, A., McAuliffe, J. and Sekhon, J. (2021).
    Time-uniform, nonparametric, nonasymptotic confidence sequences.
    Ann. Statist. 49(2), 1055-1080.  Derived in ``derivations/e_process.py``.

    Examples
    --------
    >>> cs = confidence_sequence([1, 0, 0, 1, -1, 1] * 50)
    >>> bool(cs.lower[-1] < 1 / 3 < cs.upper[-1])
    True
    """
    values = np.asarray(differences, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ArgumentError("differences must be a non-empty one-dimensional array")
    bad = ~np.isfinite(values) | (values < -1) | (values > 1)
    if bad.any():
        index = int(np.argmax(bad))
        raise ArgumentError(f"differences must lie in [-1, 1]; got {values[index]!r} at index {index}")
    if not 0 < alpha < 1:
        raise ArgumentError(f"alpha must lie in (0, 1); got {alpha!r}")
    t = np.arange(1, values.size + 1, dtype=np.float64)
    mixing = mixture_scale if mixture_scale is not None else _optimal_scale(float(optimize_at or values.size), alpha)
    radius = _generated.normal_mixture_boundary(t, mixing, alpha) / t
    mean = np.cumsum(values) / t
    return ConfidenceSequence(mean, np.maximum(mean - radius, -1.0), np.minimum(mean + radius, 1.0), alpha, mixing)
