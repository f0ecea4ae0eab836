"""A declared smallest gap of interest DELTA (``--min-effect``): power, q and equivalence of each pair against it.

At the observed gap, q = N / N* is the Wald statistic again (q = z_Wald^2 / (z_{1-alpha/2} + z_power)^2), so it
says nothing the p-value did not.  A gap declared in advance, the smallest that matters, does: for every reported
pair :func:`add_min_effect_columns` adds

* ``power_min_effect``, ``required_n_min_effect``, ``q_min_effect``, ``resolved_min_effect``: the Wald power at N
  to detect a true gap of DELTA, the N* of that gap and q(DELTA) = N / N*(DELTA), with the variance of a difference
  under that gap at the pair's observed discordance: sigma_D^2(DELTA) = psi-hat - DELTA^2, psi-hat = (b + c) / N
  (0/1 scores; a true gap DELTA = p10 - p01 needs psi = p10 + p01 >= DELTA, so where psi-hat < DELTA the four are
  NaN and ``resolved_min_effect`` false, with a note), or the observed variance of the differences (graded);
* ``p_margin_lower``, ``p_margin_upper``, ``p_equivalence``, ``margin_ci_low``, ``margin_ci_high``: the one-sided
  tests of H0: d <= -DELTA and H0: d >= +DELTA (0/1: Tango's score test with the restricted maximum likelihood
  under the margin; graded: paired t), their maximum (Schuirmann's TOST) and the dual (1 - 2 alpha) interval;
* ``equivalence``: the four outcomes of an equivalence analysis (Lakens 2017) from that interval and the pair's
  own difference test at alpha (the raw arbiter p, no multiplicity).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from llm_power_verified._generated import wald as _wald
from llm_power_verified.inference import margin as _margin
from llm_power_verified.power.gap_of_interest import binary_variance_at_gap, graded_variance_at_gap

__all__ = ["add_min_effect_columns", "min_effect_variance"]


def min_effect_variance(pairs: pd.DataFrame, binary: bool, n_items: int, min_effect: float) -> np.ndarray:
    """sigma_D^2(DELTA): the variance of a per-item difference under a true gap of DELTA, NaN where none can be.

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pair rows: ``b`` and ``c`` (0/1 scores) or ``variance`` (graded).
    binary : bool
        0/1 scores (False: graded).
    n_items : int
        N.
    min_effect : float
        DELTA.

    Returns
    -------
    numpy.ndarray
        psi-hat - DELTA^2 with psi-hat = (b + c) / N where psi-hat >= DELTA (else NaN: a true gap of DELTA needs at
        least that share of discordant items); graded, the observed variance of the differences where it is > 0.

    Examples
    --------
    >>> pairs = pd.DataFrame({"b": [30, 5], "c": [10, 0]})
    >>> min_effect_variance(pairs, True, 1000, 0.02).round(6).tolist()
    [0.0396, nan]
    """
    if binary:
        discordance = (pairs["b"].to_numpy(dtype=np.float64) + pairs["c"].to_numpy(dtype=np.float64)) / n_items
        return binary_variance_at_gap(discordance, min_effect)
    return graded_variance_at_gap(pairs["variance"].to_numpy(dtype=np.float64))


def add_min_effect_columns(
    pairs: pd.DataFrame, binary: bool, n_items: int, min_effect: float, alpha: float, power: float
) -> None:
    """Add the min-effect and equivalence columns (see the module notes) to a block of the pair table, in place.

    Parameters
    ----------
    pairs : pandas.DataFrame
        The block's pair table (``delta``, ``variance``, the arbiter's p: ``b``, ``c``, ``p_exact`` for 0/1 scores,
        ``p_t`` graded).
    binary : bool
        0/1 scores (False: graded).
    n_items : int
        N.
    min_effect : float
        DELTA, the smallest gap of interest in score units.
    alpha : float
        Two-sided level of the difference tests; each one-sided margin test is at alpha (the (1 - 2 alpha)
        interval).
    power : float
        Target power of N*(DELTA).

    Notes
    -----
    Power pi = Phi(-z_{1-alpha/2} - mu) + Phi(mu - z_{1-alpha/2}), mu = DELTA sqrt(N) / sigma_D(DELTA);
    N*(DELTA) = (z_{1-alpha/2} + z_power)^2 sigma_D^2(DELTA) / DELTA^2 (paper Eqs. 2 and 3, ``derivations/wald.py``);
    the margin statistics are :mod:`llm_power_verified.inference.margin`'s.
    """
    variance = min_effect_variance(pairs, binary, n_items, min_effect)
    with np.errstate(invalid="ignore"):
        pairs["power_min_effect"] = _wald.power_wald_two_sided(variance, min_effect, n_items, alpha)
        required = _wald.required_n_wald(variance, min_effect, alpha, power, 2)
    pairs["required_n_min_effect"] = required
    pairs["q_min_effect"] = n_items / required
    pairs["resolved_min_effect"] = np.nan_to_num(pairs["q_min_effect"].to_numpy(), nan=0.0) >= 1
    _add_margin_columns(pairs, binary, n_items, min_effect, alpha)


def _add_margin_columns(pairs: pd.DataFrame, binary: bool, n_items: int, margin: float, alpha: float) -> None:
    """The two one-sided tests against -DELTA and +DELTA, TOST's p, the (1 - 2 alpha) interval and the outcome."""
    if binary:
        b, c = pairs["b"].to_numpy(dtype=np.float64), pairs["c"].to_numpy(dtype=np.float64)
        lower = _margin.margin_score_pvalue(b, c, n_items, -margin, "larger")
        upper = _margin.margin_score_pvalue(b, c, n_items, margin, "smaller")
        low, high = _margin.margin_score_interval(b, c, n_items, 1 - 2 * alpha)
        raw = pairs["p_exact"].to_numpy(dtype=np.float64)
    else:
        gap = pairs["delta"].to_numpy(dtype=np.float64)
        spread = np.sqrt(pairs["variance"].to_numpy(dtype=np.float64))
        lower = _margin.paired_t_margin(gap, spread, n_items, -margin, "larger")[1]
        upper = _margin.paired_t_margin(gap, spread, n_items, margin, "smaller")[1]
        low, high = _margin.paired_t_interval(gap, spread, n_items, 1 - 2 * alpha)
        raw = pairs["p_t"].to_numpy(dtype=np.float64)
    pairs["p_margin_lower"] = np.asarray(lower, dtype=np.float64).reshape(-1)
    pairs["p_margin_upper"] = np.asarray(upper, dtype=np.float64).reshape(-1)
    pairs["p_equivalence"] = np.maximum(pairs["p_margin_lower"], pairs["p_margin_upper"])
    pairs["margin_ci_low"] = np.asarray(low, dtype=np.float64).reshape(-1)
    pairs["margin_ci_high"] = np.asarray(high, dtype=np.float64).reshape(-1)
    outcome = _margin.equivalence_outcome(raw <= alpha, pairs["margin_ci_low"], pairs["margin_ci_high"], margin)
    pairs["equivalence"] = np.asarray(outcome, dtype=object).reshape(-1)
