"""Small numerical helpers shared across modules (numpy imported where used: the command line's --help needs none)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Lazy: numpy is imported where it is used (about 0.1 s, measured); the command line imports exact() for --help.
    import numpy

__all__ = ["exact", "quantiles"]

_LARGEST = sys.float_info.max  # numpy.finfo(numpy.float64).max


def quantiles(values, levels, axis: int = 0) -> numpy.ndarray:
    """``np.quantile`` (linear interpolation) where +/-inf sort beyond every finite value.

    Linear interpolation between the order statistics x_(j) and x_(j+1) with a
    weight g > 0 on x_(j+1) is inf when x_(j+1) is inf: x + g (inf - x).  NumPy
    computes it as inf - inf (NaN, with a RuntimeWarning) when both neighbours
    are infinite.  Here infinities are stood in for by the largest float, which
    interpolates without overflow, and the result is inf exactly where an
    infinite order statistic carries a positive weight (a finite stand-in such
    as 0.05 x 1.8e308 = 9e306 is never returned); between -inf and +inf it is
    NaN.  NaN propagates as in ``np.quantile``.

    Parameters
    ----------
    values : array_like
        The values (converted to float64); +/-inf allowed.
    levels : float or array_like
        The quantile levels, in [0, 1].
    axis : int, default 0
        The axis along which the quantiles are taken.

    Returns
    -------
    numpy.ndarray
        The quantiles, shaped as ``np.quantile`` shapes them (0-d for a scalar level).

    Examples
    --------
    >>> import numpy as np
    >>> quantiles(np.array([1.0, np.inf, np.inf]), 0.5).item()
    inf
    >>> quantiles(np.array([1.0, 2.0, np.inf]), [0.5, 0.95]).tolist()
    [2.0, inf]
    """
    # Lazy: numpy takes about 0.1 s to import (measured), which the command line's --help does not pay.
    import numpy as np

    values = np.asarray(values, dtype=np.float64)
    stand_in = np.where(np.isposinf(values), _LARGEST, np.where(np.isneginf(values), -_LARGEST, values))
    # Interpolating between stand-ins of opposite signs overflows (L - (-L)); such results are replaced below.
    with np.errstate(over="ignore", invalid="ignore"):
        result = np.quantile(stand_in, levels, axis=axis)
    # The neighbouring order statistics of each level; the result is infinite wherever either is infinite and
    # carries weight (the lower one: weight 1 - g > 0 always; the upper one: when the result moved off the lower).
    lower = np.quantile(stand_in, levels, axis=axis, method="lower")
    upper = np.quantile(stand_in, levels, axis=axis, method="higher")
    positive = (lower == _LARGEST) | ((upper == _LARGEST) & (result != lower))
    negative = (upper == -_LARGEST) | ((lower == -_LARGEST) & (result != upper))
    # Between -inf and +inf (both neighbours infinite, of opposite signs) the interpolation is undefined: NaN.
    return np.where(positive & negative, np.nan, np.where(positive, np.inf, np.where(negative, -np.inf, result)))


def exact(value: float) -> str:
    """``value`` in the fewest digits that read back as it: ``:g`` when that is exact, else ``repr``.

    For a setting the reader typed (alpha, a margin, DELTA): ``:g`` alone prints 0.9999999999 as 1, a value the
    option refuses.

    Parameters
    ----------
    value : float
        A setting as used.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> exact(0.05), exact(0.4999999999999999), exact(0.0123456789)
    ('0.05', '0.4999999999999999', '0.0123456789')
    """
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))
