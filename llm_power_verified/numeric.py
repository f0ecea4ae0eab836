"""Small numerical helpers shared across modules."""

from __future__ import annotations

import numpy as np

__all__ = ["quantiles"]

_LARGEST = np.finfo(np.float64).max


def quantiles(values, levels, axis: int = 0) -> np.ndarray:
    """``np.quantile`` (linear interpolation) where +/-inf sort beyond every finite value.

    NumPy interpolates ``inf - inf`` into NaN (with a RuntimeWarning) when two
    neighbouring order statistics are infinite; here infinities are stood in for
    by the largest float, which interpolates exactly, and mapped back.  NaN
    propagates as in ``np.quantile``.

    >>> quantiles(np.array([1.0, np.inf, np.inf]), 0.5).item()
    inf
    """
    values = np.asarray(values, dtype=np.float64)
    stand_in = np.where(np.isposinf(values), _LARGEST, np.where(np.isneginf(values), -_LARGEST, values))
    result = np.quantile(stand_in, levels, axis=axis)
    return np.where(result >= _LARGEST / 2, np.inf, np.where(result <= -_LARGEST / 2, -np.inf, result))
