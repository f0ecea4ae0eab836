"""The variance of a per-item difference under a declared gap of interest DELTA (``--min-effect``).

At the observed gap, N* and q re-express the test statistic.  A gap declared in advance is planned at the pair's
observed noise instead:

* 0/1 scores: at the observed discordance psi-hat = (b + c) / N, a true gap d = p10 - p01 has cells
  p10 = (psi + d) / 2 and p01 = (psi - d) / 2, so sigma_D^2(d) = psi - d^2 (``derivations/paired_variance.py``,
  generated).  Both cells are probabilities only when psi >= abs(d): a pair whose psi-hat < DELTA cannot have a
  true gap of DELTA at its discordance, and gets NaN (no N), never a clamp.  psi and d are differences of numbers
  in [0, 1] computed in floating point, each within a few ulps of 1 of its exact value: a psi below abs(d) by at most
  ``ROUNDING_SLACK`` (8 ulps of 1, about 1.8e-15) is psi = abs(d) up to that rounding (92.8% - 91.8% and 91.8% - 90.8%
  are 0.010000000000000047 and 0.009999999999999992), and counts as psi = abs(d): variance abs(d) - d^2.
* Graded scores: the observed variance of the per-item differences, whatever DELTA; NaN where it is 0 (every item
  differs by the same amount: the plug-in variance gives no N, as for the MDE).

The audit's ``--min-effect`` columns (:mod:`llm_power_verified.leaderboard.min_effect`) and the plan's
(:mod:`llm_power_verified.plan.min_effect`) both take sigma_D^2(DELTA) from here.
"""

from __future__ import annotations

import numpy as np

from llm_power_verified._generated import paired_variance as _variance

__all__ = ["ROUNDING_SLACK", "binary_variance_at_gap", "graded_variance_at_gap"]

#: How far below abs(gap) a discordance may lie and still count as psi = abs(gap): 8 ulps of 1 (the float rounding
#: of a difference of numbers in [0, 1], computed in a few operations).
ROUNDING_SLACK = 8 * float(np.finfo(np.float64).eps)


def binary_variance_at_gap(discordance, gap: float) -> np.ndarray:
    """sigma_D^2 of a true gap at discordance psi: psi - gap^2 where psi >= abs(gap), else NaN.

    A psi below abs(gap) by no more than ``ROUNDING_SLACK`` (8 ulps of 1, the float rounding of psi and the gap,
    both differences of numbers in [0, 1]) is psi = abs(gap) up to rounding, and gets abs(gap) - gap^2.

    Parameters
    ----------
    discordance : array_like
        psi, the probability that the two models disagree on an item, in [0, 1].
    gap : float
        The true gap d = p_A - p_B (DELTA).

    Returns
    -------
    numpy.ndarray
        psi - d^2 where psi >= abs(d) (abs(d) - d^2 where psi is below abs(d) by at most ``ROUNDING_SLACK``); NaN
        where no true gap of d is possible at that discordance.

    Examples
    --------
    >>> binary_variance_at_gap([0.2, 0.005, 0.928 - 0.918], 0.918 - 0.908).round(6).tolist()
    [0.1999, nan, 0.0099]
    """
    psi = np.asarray(discordance, dtype=np.float64)
    at_gap = (psi < abs(gap)) & (psi >= abs(gap) - ROUNDING_SLACK)
    psi = np.where(at_gap, abs(gap), psi)
    possible = psi >= abs(gap)
    return np.where(possible, _variance.paired_difference_variance_at_gap(np.where(possible, psi, 1.0), gap), np.nan)


def graded_variance_at_gap(variance) -> np.ndarray:
    """sigma_D^2 of a gap for graded scores: the observed variance of the differences where it is > 0, else NaN.

    Parameters
    ----------
    variance : array_like
        The observed variance of the per-item differences.

    Returns
    -------
    numpy.ndarray
        The variance where > 0; NaN where it is 0 (no N from a plug-in variance of 0).

    Examples
    --------
    >>> graded_variance_at_gap([0.04, 0.0]).tolist()
    [0.04, nan]
    """
    variance = np.asarray(variance, dtype=np.float64)
    return np.where(variance > 0, variance, np.nan)
