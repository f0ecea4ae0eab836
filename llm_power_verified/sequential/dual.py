"""The confidence sequence dual to the discordant-pair e-process: the win share theta among discordant items.

The monitored test of 0/1 scores is the mixture e-process on the discordant pairs,
e_t(1/2) = sum_theta w(theta) theta^b (1 - theta)^c / (1/2)^(b + c), which tests theta = p10 / (p10 + p01) = 1/2,
i.e. equal accuracies.  The same mixture tests any theta_0:

    e_t(theta_0) = M_t / (theta_0^b (1 - theta_0)^c),    M_t = sum_theta w(theta) theta^b (1 - theta)^c,

a nonnegative martingale under theta = theta_0 (given which items are discordant), so by Ville's inequality

    C_t = {theta_0 : max_{s <= t} e_s(theta_0) < 1/alpha}

covers theta at every t simultaneously with probability at least 1 - alpha.  C_t excludes 1/2 exactly when
max_{s <= t} e_s(1/2) >= 1/alpha, i.e. from the e-process's first crossing on: the test and this interval are duals,
one decision.  Each e_s(theta_0) < 1/alpha is b log theta_0 + c log(1 - theta_0) > log M_s - log(1/alpha), a set
of theta_0 around b / (b + c) that is an interval (the left side is concave), never empty (M_s is at most the left
side's maximum); its ends are found by bisection, and C_t is the running intersection.

The sign of the accuracy gap d = p_A - p_B = psi (2 theta - 1) is the sign of theta - 1/2, so C_t decides the
direction as the test does.  It is not an interval for d itself: that needs the discordance psi too.

References
----------
Howard, S. R., Ramdas, A., McAuliffe, J. and Sekhon, J. (2021). Time-uniform, nonparametric, nonasymptotic
confidence sequences. Ann. Statist. 49(2), 1055-1080 (confidence sequences by inverting e-processes, running
intersection).  Ville, J. (1939). Etude critique de la notion de collectif.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import xlogy

from llm_power_verified.errors import ArgumentError
from llm_power_verified.results import Result
from llm_power_verified.sequential.confidence import MIN_ALPHA
from llm_power_verified.sequential.e_process import log_e_value

__all__ = ["WinShareSequence", "win_share_sequence"]

#: Bisection steps: 2^-64 of the unit interval is below one rounding of the ends.
_STEPS = 64


@dataclass(frozen=True, repr=False)
class WinShareSequence(Result):
    """The time-uniform confidence sequence for theta = p10 / (p10 + p01) dual to the e-process.

    Attributes
    ----------
    lower, upper : numpy.ndarray
        The interval after t items, at index t - 1 (the running intersection; [0, 1] before any discordant item).
    excludes_half : numpy.ndarray
        Whether the interval excludes 1/2 (equal accuracies) after t items: exactly where the e-process has crossed
        1/alpha at some item s <= t.
    alpha : float
        The level.
    mixture : str
        The e-process's mixture over theta (the same as the test's).
    """

    lower: np.ndarray
    upper: np.ndarray
    excludes_half: np.ndarray
    alpha: float
    mixture: str


def _log_likelihood(theta: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The log likelihood b log theta + c log(1 - theta), with 0 log 0 = 0."""
    return xlogy(b, theta) + xlogy(c, 1.0 - theta)


def _bisect(inside_end: np.ndarray, outside_end: np.ndarray, inside) -> np.ndarray:
    """Per element, the boundary between an end inside the set and one outside it (the inside end when both are)."""
    inside_end, outside_end = inside_end.copy(), outside_end.copy()
    outside_already_in = inside(outside_end)
    for _ in range(_STEPS):
        middle = 0.5 * (inside_end + outside_end)
        is_in = inside(middle)
        inside_end = np.where(is_in, middle, inside_end)
        outside_end = np.where(is_in, outside_end, middle)
    return np.where(outside_already_in, outside_end, inside_end)


def win_share_sequence(
    b: Any, c: Any, alpha: float = 0.05, mixture: str = "grid", prior: tuple[float, float] = (1.0, 1.0)
) -> WinShareSequence:
    """The confidence sequence for the win share theta among discordant items, inverted from the e-process.

    Parameters
    ----------
    b, c : array_like
        Cumulative discordant counts after each item (won by A, won by B), as ``EProcessPath.b`` and ``.c`` hold
        them (``llm_power_verified.sequential.e_process``).
    alpha : float, default 0.05
        The level: the test rejects at e >= 1/alpha.
    mixture : {"grid", "beta", "two-point"}, default "grid"
        The e-process's mixture over theta.
    prior : tuple of float, default (1.0, 1.0)
        The Beta prior of ``mixture="beta"``.

    Returns
    -------
    WinShareSequence
        The interval after every item and whether it excludes 1/2.

    Notes
    -----
    C_t = intersection over s <= t of {theta_0 : b_s log theta_0 + c_s log(1 - theta_0) > log M_s - log(1/alpha)},
    log M_s = log e_s(1/2) - (b_s + c_s) log 2 (the module docstring derives it).  1/2 is outside C_t exactly when
    max_{s <= t} log e_s(1/2) >= log(1/alpha).

    Examples
    --------
    >>> sequence = win_share_sequence(np.arange(10), np.zeros(10))
    >>> sequence.excludes_half.tolist()
    [False, False, False, False, False, False, False, False, True, True]
    >>> round(float(sequence.lower[-1]), 4), float(sequence.upper[-1])
    (0.5532, 1.0)
    """
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    if b.ndim != 1 or b.shape != c.shape or b.size == 0:
        raise ArgumentError("b and c must be non-empty one-dimensional arrays of the same length")
    if not MIN_ALPHA <= alpha < 1:
        raise ArgumentError(f"alpha must lie in [{MIN_ALPHA:g}, 1); got {alpha!r}")
    log_e_half = np.asarray(log_e_value(b.astype(np.int64), c.astype(np.int64), mixture, prior), dtype=np.float64)
    # The set changes only at a discordant item: solve there (and at the first item), carry it over the ties.
    changes = np.flatnonzero(np.diff(b + c, prepend=-1.0) != 0)
    at_b, at_c = b[changes], c[changes]
    # The set at item s: L_s(theta_0) > log M_s - log(1/alpha) = L_s(1/2) + log e_s(1/2) - log(1/alpha).
    floor = log_e_half[changes] - (at_b + at_c) * math.log(2.0) - math.log(1.0 / alpha)
    centre = np.where(at_b + at_c > 0, at_b / np.maximum(at_b + at_c, 1.0), 0.5)

    def inside(theta: np.ndarray) -> np.ndarray:
        return _log_likelihood(theta, at_b, at_c) > floor

    lower = np.maximum.accumulate(_bisect(centre, np.zeros_like(centre), inside))
    upper = np.minimum.accumulate(_bisect(centre, np.ones_like(centre), inside))
    carried = np.searchsorted(changes, np.arange(b.size), side="right") - 1
    crossed = np.maximum.accumulate(log_e_half) >= math.log(1.0 / alpha)
    return WinShareSequence(lower[carried], upper[carried], crossed, alpha, mixture)
