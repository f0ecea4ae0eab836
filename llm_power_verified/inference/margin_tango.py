"""Tango's (1998) score test of a difference of paired proportions against a margin, and its interval.

The public names are re-exported by :mod:`llm_power_verified.inference.margin`, whose notes give the sign
conventions and the edge cases (b = c = 0, b + c = n, margins at +-1).  The restricted maximum likelihood estimate
and the score statistic are generated from ``derivations/margin_score.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import margin_score as _generated
from llm_power_verified._validation import (
    as_array,
    check_count,
    check_in_open_interval,
    describe_index,
    finish,
    sides_for,
)
from llm_power_verified.errors import ArgumentError

__all__ = ["ALTERNATIVES", "margin_score_interval", "margin_score_pvalue", "margin_score_z", "restricted_discordance"]

#: The glossary's alternatives: "larger" tests H0 d <= margin, "smaller" H0 d >= margin, "two-sided" H0 d = margin.
ALTERNATIVES = ("two-sided", "larger", "smaller")
#: scipy's and statsmodels' spelling of the one-sided alternatives, accepted for "larger" and "smaller".
#: Bisection halvings: from a bracket of width 2 down to adjacent floats.
BISECTION_STEPS = 80


def check_table(b: Any, c: Any, n: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated, broadcast (b, c, n): whole numbers, n >= 1, b + c <= n (NaN allowed)."""
    b = check_count("b", b)
    c = check_count("c", c)
    n = check_count("n", n, minimum=1)
    b, c, n = np.broadcast_arrays(b, c, n)
    with np.errstate(invalid="ignore"):
        bad = b + c > n
    if bad.any():
        index = describe_index(bad)
        values = ", ".join(f"{name} = {array[bad].flat[0]:g}" for name, array in (("b", b), ("c", c), ("n", n)))
        raise ArgumentError(
            f"b + c must be at most n (the discordant items are items of the table); got {values}{index}"
        )
    return b, c, n


def check_margin(value: Any, low: float = -1.0, high: float = 1.0, *, low_open: bool = False) -> np.ndarray:
    """The margin as an array in [low, high] (or (low, high]), NaN allowed."""
    margin = as_array("margin", value)
    with np.errstate(invalid="ignore"):
        inside = (margin > low if low_open else margin >= low) & (margin <= high)
    bad = ~np.isnan(margin) & ~inside
    if bad.any():
        opening = "(" if low_open else "["
        raise ArgumentError(
            f"margin must lie in {opening}{low:g}, {high:g}] (a gap in score units); got "
            f"{margin[bad].flat[0]:g}{describe_index(bad)}"
        )
    return margin


def check_confidence(value: Any) -> np.ndarray:
    """The confidence level as an array in (0, 1), NaN allowed."""
    return check_in_open_interval("confidence", value, 0.0, 1.0)


def with_missing(result: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
    """NaN wherever an input is NaN (the generated branches can select a finite value there)."""
    missing = np.isnan(sum(np.asarray(value, dtype=np.float64) for value in inputs))
    return np.where(missing, np.nan, result)


def _rmle(b, c, n, margin) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(divide="ignore", invalid="ignore"):
        p01 = _generated.restricted_p01_tango(b, c, n, margin)
        p10 = _generated.restricted_p01_tango(c, b, n, -margin)
    return with_missing(p10, b, c, n, margin), with_missing(p01, b, c, n, margin)


def score_z_unchecked(b, c, n, margin) -> np.ndarray:
    """Tango's Z without validation (counts may be expected counts); 0/0 taken as 0 (see the module notes)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = _generated.margin_score_z_tango(b, c, n, margin)
    missing = np.isnan(b + c + n + margin)
    return np.where(np.isnan(z) & ~missing, 0.0, z)


@docfill("counts", "n_table")
def restricted_discordance(b: Any, c: Any, n: Any, margin: Any) -> tuple[Any, Any]:
    """Tango's restricted MLE of the discordant cell probabilities under H0: p10 - p01 = margin.

    Parameters
    ----------
    %(counts)s
    %(n_table)s
    margin : array_like
        The gap d = p10 - p01 under H0, in [-1, 1].

    Returns
    -------
    p10_tilde, p01_tilde : float or numpy.ndarray
        The restricted estimates; p10_tilde - p01_tilde = margin up to rounding.

    Notes
    -----
    p01~ is the larger root of 2n x^2 + B x + C = 0 with B = -b - c + (2n - b + c) margin and
    C = -c margin (1 - margin) (Tango 1998, Eq. 3), evaluated in a form free of cancellation; p10~ is the
    mirror image p01~(c, b, -margin).  Derived in ``derivations/margin_score.py``.

    References
    ----------
    Tango, T. (1998). Statistics in Medicine 17, 891-908.

    Examples
    --------
    >>> p10, p01 = restricted_discordance(30, 10, 200, 0.05)
    >>> round(p10, 6), round(p01, 6), round(p10 - p01, 12)
    (0.119569, 0.069569, 0.05)
    """
    b, c, n = check_table(b, c, n)
    p10, p01 = _rmle(b, c, n, check_margin(margin))
    return finish(p10), finish(p01)


@docfill("counts", "n_table")
def margin_score_z(b: Any, c: Any, n: Any, margin: Any) -> Any:
    """Tango's score statistic for H0: p10 - p01 = margin.

    Parameters
    ----------
    %(counts)s
    %(n_table)s
    margin : array_like
        The gap under H0, in [-1, 1].

    Returns
    -------
    float or numpy.ndarray
        Z = (b - c - n margin) / sqrt(n (p10~ + p01~ - margin^2)); large Z is evidence that d > margin.

    Notes
    -----
    0/0 (b = c = 0 at margin 0; b = n at margin 1; c = n at margin -1) gives 0, the limit in the margin; see the
    module notes.  At margin 0 Z is McNemar's (b - c) / sqrt(b + c).  Derived in ``derivations/margin_score.py``.

    References
    ----------
    Tango (1998), Eq. 2.

    Examples
    --------
    >>> round(margin_score_z(30, 10, 200, 0.0), 6), round((30 - 10) / 40**0.5, 6)
    (3.162278, 3.162278)
    """
    b, c, n = check_table(b, c, n)
    return finish(score_z_unchecked(b, c, n, check_margin(margin)))


@docfill("counts", "n_table")
def margin_score_pvalue(b: Any, c: Any, n: Any, margin: Any, alternative: str = "two-sided") -> Any:
    """One-sided p-value of Tango's score test against a margin.

    Parameters
    ----------
    %(counts)s
    %(n_table)s
    margin : array_like
        The boundary of H0, in [-1, 1].
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        "larger": H0 d <= margin against H1 d > margin, p = Phi(-Z); "smaller": H0 d >= margin, p = Phi(Z);
        "two-sided": H0 d = margin, p = 2 Phi(-abs(Z)).

    Returns
    -------
    float or numpy.ndarray
        The one-sided p-value (normal approximation of the score statistic).

    Notes
    -----
    Non-inferiority of A at margin m is ``alternative="larger"`` at ``margin=-m``; equivalence within m is both
    that and ``alternative="smaller"`` at ``margin=m``, the larger p deciding (TOST).  The two-sided p is dual to
    :func:`margin_score_interval`.

    References
    ----------
    Tango (1998); Nam (1997). Biometrics 53, 1422-1430.

    Examples
    --------
    >>> round(margin_score_pvalue(30, 10, 200, -0.02, "larger"), 6)
    0.000102
    """
    alternative = check_alternative(alternative)
    z = np.asarray(margin_score_z(b, c, n, margin))
    if alternative == "two-sided":
        return finish(np.minimum(2.0 * ndtr(-np.abs(z)), 1.0))
    return finish(ndtr(-z) if alternative == "larger" else ndtr(z))


def check_alternative(alternative: Any) -> str:
    """The alternative as one of ``ALTERNATIVES``, or the glossary's refusal."""
    sides_for(alternative)
    return alternative


@docfill("counts", "n_table")
def margin_score_interval(b: Any, c: Any, n: Any, confidence: Any = 0.95) -> tuple[Any, Any]:
    """Tango's score interval for d = p10 - p01: every margin the two-sided score test does not reject.

    Parameters
    ----------
    %(counts)s
    %(n_table)s
    confidence : array_like, default 0.95
        Confidence level, in (0, 1); 1 - 2 alpha for an equivalence or non-inferiority decision at alpha.

    Returns
    -------
    low, high : float or numpy.ndarray
        The interval's ends, inside [-1, 1]; it contains (b - c) / n.

    Notes
    -----
    Z(margin) decreases in the margin, so the ends solve Z = z_{(1+confidence)/2} (low) and
    Z = -z_{(1+confidence)/2} (high); both are found by bisection on [-1, (b - c)/n] and [(b - c)/n, 1] down to
    adjacent floats (accurate to about 1e-15 absolute).  An end at which the test cannot reject even at the
    bound (c = n for low, b = n for high) is the bound itself.

    References
    ----------
    Tango, T. (1998), Section 3; Tango, T. (1999). Statistics in Medicine 18, 3511-3513 (correction).

    Examples
    --------
    >>> low, high = margin_score_interval(30, 10, 200)
    >>> round(low, 6), round(high, 6)
    (0.039896, 0.163642)
    """
    b, c, n = check_table(b, c, n)
    confidence = check_confidence(confidence)
    b, c, n, confidence = np.broadcast_arrays(b, c, n, confidence)
    critical = -ndtri((1.0 - confidence) / 2.0)
    estimate = (b - c) / n
    low = _bisect_margin(b, c, n, critical, np.full(b.shape, -1.0), estimate, settled_at=-1.0)
    high = _bisect_margin(b, c, n, -critical, estimate, np.full(b.shape, 1.0), settled_at=1.0)
    return finish(with_missing(low, b, c, n, confidence)), finish(with_missing(high, b, c, n, confidence))


def _bisect_margin(b, c, n, target, left, right, settled_at: float) -> np.ndarray:
    """The margin in [left, right] where the decreasing Z crosses ``target``.

    ``settled_at`` (-1 or 1) where Z at that bound does not pass the target: the test cannot reject even there.
    """
    bound = np.full(b.shape, settled_at)
    with np.errstate(invalid="ignore"):
        z_bound = score_z_unchecked(b, c, n, bound)
        settled = z_bound <= target if settled_at < 0 else z_bound >= target
    above, below = left.copy(), right.copy()  # Z(above) > target >= Z(below) inside the bracket
    for _ in range(BISECTION_STEPS):
        middle = 0.5 * (above + below)
        with np.errstate(invalid="ignore"):
            over = score_z_unchecked(b, c, n, middle) > target
        above = np.where(over, middle, above)
        below = np.where(over, below, middle)
    return np.where(settled, bound, 0.5 * (above + below))
