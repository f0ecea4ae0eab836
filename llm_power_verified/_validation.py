"""Argument checks shared by the public API.

The NaN rule
------------
Every vectorised function treats NaN as "missing": a NaN in any input gives
NaN in the corresponding output element and is never an error.  Every other
value outside its allowed range raises ``ValueError`` naming the argument,
the offending value, its index (for arrays) and the allowed range.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from llm_power_verified.errors import ArgumentError

ALTERNATIVES = {"two-sided": 2, "larger": 1, "smaller": 1}


def as_array(name: str, value: Any) -> np.ndarray:
    """Convert ``value`` to a float64 array or raise ``TypeError`` naming ``name``."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    return array


def describe_index(bad: np.ndarray) -> str:
    """' at index i' for the first True element of ``bad`` ('' for a scalar)."""
    if bad.ndim == 0:
        return ""
    index = np.unravel_index(int(np.argmax(bad)), bad.shape)
    index = int(index[0]) if len(index) == 1 else tuple(int(i) for i in index)
    return f" at index {index}"


def _first_bad(name: str, array: np.ndarray, bad: np.ndarray, allowed: str) -> None:
    if bad.any():
        value = array[bad].flat[0]
        raise ArgumentError(f"{name} must be {allowed}; got {value:g}{describe_index(bad)}")


def check_in_open_interval(name: str, value: Any, low: float, high: float) -> np.ndarray:
    """Return ``value`` as an array after checking low < value < high (NaN allowed)."""
    array = as_array(name, value)
    bad = ~np.isnan(array) & ~((array > low) & (array < high))
    _first_bad(name, array, bad, f"in the open interval ({low:g}, {high:g})")
    return array


def check_positive(name: str, value: Any, *, allow_zero: bool = False, allow_inf: bool = False) -> np.ndarray:
    array = as_array(name, value)
    ok = array >= 0 if allow_zero else array > 0
    if not allow_inf:
        ok &= np.isfinite(array)
    bad = ~np.isnan(array) & ~ok
    _first_bad(
        name, array, bad, "non-negative" if allow_zero else "positive" + (" and finite" if not allow_inf else "")
    )
    return array


def check_count(name: str, value: Any, *, minimum: int = 0) -> np.ndarray:
    """Non-negative whole numbers (as floats), at least ``minimum``; NaN allowed."""
    array = as_array(name, value)
    finite = np.isfinite(array)
    bad = ~np.isnan(array) & (
        ~finite | (array < minimum) | (np.floor(np.where(finite, array, 0)) != np.where(finite, array, 0))
    )
    _first_bad(name, array, bad, f"a whole number >= {minimum}")
    return array


def check_alpha_power(alpha: Any, power: Any | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    alpha_array = check_in_open_interval("alpha", alpha, 0.0, 1.0)
    if power is None:
        return alpha_array, None
    power_array = check_in_open_interval("power", power, 0.0, 1.0)
    with np.errstate(invalid="ignore"):
        bad = ~np.isnan(alpha_array + power_array) & (
            np.broadcast_to(power_array, np.broadcast(alpha_array, power_array).shape) <= alpha_array
        )
    if bad.any():
        shape = bad.shape
        index = describe_index(bad)
        a = np.broadcast_to(alpha_array, shape)[bad].flat[0]
        p = np.broadcast_to(power_array, shape)[bad].flat[0]
        raise ArgumentError(
            f"power must exceed alpha (on the command line: --power above --alpha); got power {p:g} with alpha "
            f"{a:g}{index}"
        )
    return alpha_array, power_array


def require_choice(name: str, value: Any, allowed: tuple) -> None:
    """Raise a ValueError naming ``name`` unless ``value`` is one of ``allowed``."""
    try:
        valid = value in allowed
    except TypeError:
        valid = False
    if not valid:
        raise ArgumentError(f"{name} must be one of {allowed}; got {value!r}")


def sides_for(alternative: str) -> int:
    """Number of rejection tails for a statsmodels-style ``alternative``."""
    try:
        return ALTERNATIVES[alternative]
    except (KeyError, TypeError):
        allowed = ", ".join(repr(key) for key in ALTERNATIVES)
        raise ArgumentError(f"alternative must be one of {allowed}; got {alternative!r}") from None


def check_rho_admissible(rho: np.ndarray, low: np.ndarray, high: np.ndarray, *, tolerance: float = 1e-12) -> np.ndarray:
    """Check low <= rho <= high (within ``tolerance``) and clip onto the interval."""
    shape = np.broadcast(rho, low, high).shape
    rho_b, low_b, high_b = (np.broadcast_to(x, shape) for x in (rho, low, high))
    with np.errstate(invalid="ignore"):
        bad = ~np.isnan(rho_b + low_b + high_b) & ((rho_b < low_b - tolerance) | (rho_b > high_b + tolerance))
    if bad.any():
        index = describe_index(bad)
        value, lo, hi = (x[bad].flat[0] for x in (rho_b, low_b, high_b))
        # In full (repr): rounded, a rho just outside the interval would print as its bound.
        raise ArgumentError(
            f"rho must lie in the admissible interval [{float(lo)!r}, {float(hi)!r}] for these marginals "
            f"(paper Eqs. 7-8); got {float(value)!r}{index} (--rho on the command line)"
        )
    return np.clip(rho_b, low_b, high_b)


def finish(result: np.ndarray) -> np.ndarray | float:
    """Return a Python float for 0-d results, the array otherwise."""
    result = np.asarray(result)
    if result.ndim == 0:
        return float(result)
    return result


def ceil_sample_size(value: Any) -> np.ndarray | float:
    """Round a required sample size up to a whole number.

    Values within a relative 1e-12 above an integer are taken to be that
    integer, so that floating-point error in an N* that is exactly an integer
    does not add one item.  ``inf`` stays ``inf`` and NaN stays NaN.

    Parameters
    ----------
    value : array_like
        The unrounded sample size (N*, n_h, ...), as the power functions return it.

    Returns
    -------
    float or numpy.ndarray
        The whole number, as a float (inf and NaN kept); a float for a scalar, an array for an array.

    Raises
    ------
    TypeError
        For a value that is not a number or an array of numbers.

    Notes
    -----
    ``ceil(x - abs(x) * 1e-12)`` for finite x: an x within a relative 1e-12 above an integer
    k rounds to k.

    References
    ----------
    The sample-size convention of R's pwr and of Connor (1987): the smallest whole n
    meeting the target.

    Examples
    --------
    >>> ceil_sample_size(1027.576), ceil_sample_size(1028.0000000000002)
    (1028.0, 1028.0)
    >>> ceil_sample_size([2.5, np.inf]).tolist()
    [3.0, inf]
    """
    array = as_array("n", value)
    finite = np.isfinite(array)
    safe = np.where(finite, array, 0.0)
    rounded = np.where(finite, np.ceil(safe - np.abs(safe) * 1e-12), array)
    return finish(rounded)


def check_scalar(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    integer: bool = False,
) -> float | int:
    """One finite number within [low, high] (open ends as asked); a whole number when ``integer``.

    The one range check behind every numeric argument of the CLI and of the
    scalar entry points of the API: NaN, infinity, booleans and out-of-range
    values raise ``ValueError`` naming the argument, its value and what is allowed.

    >>> check_scalar("alpha", 0.05, low=0, high=1, low_open=True, high_open=True)
    0.05
    """
    left = "(" if low_open or low is None else "["
    right = ")" if high_open or high is None else "]"

    def show(bound: float | None, infinite: str) -> str:
        return infinite if bound is None else f"{int(bound):,}" if integer else f"{bound:g}"

    bounds = f"{left}{show(low, '-inf')}, {show(high, 'inf')}{right}"
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    allowed = ("a whole number" if integer else "a finite number") + (
        f" in {bounds}" if low is not None or high is not None else ""
    )
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ArgumentError(f"{name} must be {allowed}; got {shown}")
    if integer:
        if isinstance(value, (float, np.floating)) and not (np.isfinite(value) and float(value).is_integer()):
            raise ArgumentError(f"{name} must be {allowed}; got {shown}")
        number: float | int = int(value)
    else:
        try:
            number = float(value)
        except OverflowError:  # an int beyond the float range
            number = math.inf
        if not math.isfinite(number):
            raise ArgumentError(f"{name} must be {allowed}; got {shown}")
    if (low is not None and (number < low or (low_open and number == low))) or (
        high is not None and (number > high or (high_open and number == high))
    ):
        raise ArgumentError(f"{name} must be {allowed}; got {shown}")
    return number
