"""The four verdicts of each reported pair, as separate named columns.

* ``significant``: the arbiter (exact McNemar for binary scores, paired t for
  graded) after the declared family's correction (``correction``, Holm by
  default): p_adjusted <= alpha; None for a reported pair outside the declared
  family (the correction says nothing about it).  A significance test of the observed gap.
* ``resolved``: q = N / N* >= 1 (Definition 1 of the main paper, arXiv 2605.30315).  A power
  statement: the benchmark is large enough to detect a gap of the observed size
  with the target power.  A pair can be significant and not resolved (a lucky
  draw of a gap the benchmark cannot reliably detect), or resolved and not
  significant (a gap far below the detectable size, observed precisely).
* ``significant_clustered``: the same test with its z statistic divided by
  sqrt(DE), the design effect of the item clusters (Section 6.4), after the
  same declared correction over the same declared family as ``significant``
  (None outside it, as there).  With every design effect 1 it equals
  ``significant`` pair by pair: a difference between the two is the clusters'.
* ``significant_anytime``: e-BH over the declared family on the grid-mixture
  e-values at N (Appendix C; Wang and Ramdas 2022): valid however the table
  was monitored.  ``p_anytime_at_n`` = min(1, 1/e_N) is the e-value's p at the
  final count; a monitored trajectory's min(1, 1/sup e_t) can only be smaller.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import log_ndtr, ndtri_exp

from llm_power_verified.contract import CORRECTIONS
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.multiplicity import adjust_pvalues

__all__ = ["CORRECTIONS", "add_cluster_decisions", "add_decision_columns"]


def add_decision_columns(pairs: pd.DataFrame, binary: bool, correction: str, alpha: float) -> None:
    """Add ``p_adjusted``, ``significant`` and ``significant_anytime`` to a pair table, in place.

    A reported pair outside the declared family has no family verdict: None (shown "-", JSON null).

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pair table, with the arbiter's p-values and the family's ``p_<correction>`` columns.
    binary : bool
        0/1 scores (arbiter exact McNemar) or graded (paired t).
    correction : {"holm", "bonferroni", "sidak", "bh", "none"}
        The family's correction ("none": the raw p-value).
    alpha : float
        The level.

    Raises
    ------
    ArgumentError
        An unknown ``correction``.
    """
    if correction not in CORRECTIONS:
        raise ArgumentError(f"correction must be one of {CORRECTIONS}; got {correction!r}")
    raw = pairs["p_exact"] if binary else pairs["p_t"]
    pairs["p_adjusted"] = raw if correction == "none" else pairs[f"p_{correction}"]
    # A reported pair outside the declared family (say --mode all with --family adjacent) has no
    # family-level verdict: None (shown "-", JSON null), never a silent "not significant".
    outside = pairs["p_holm"].isna().to_numpy()
    pairs["significant"] = _within_family(
        pairs["p_adjusted"].to_numpy() <= alpha, outside if correction != "none" else None
    )
    if "rejected_e_bh" in pairs:
        pairs["significant_anytime"] = _within_family(pairs["rejected_e_bh"].to_numpy(), outside)


def add_cluster_decisions(pairs: pd.DataFrame, binary: bool, correction: str, alpha: float, family_size: int) -> None:
    """Add ``p_cluster`` and ``significant_clustered`` to a pair table with cluster columns, in place.

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pair table, with ``design_effect``, the arbiter's log p-values and ``p_holm`` (NaN outside the family).
    binary : bool
        0/1 scores (exact McNemar) or graded (paired t).
    correction : {"holm", "bonferroni", "sidak", "bh", "none"}
        The declared family's correction, the one behind ``significant``.
    alpha : float
        The level.
    family_size : int
        m.

    Raises
    ------
    ArgumentError
        An unknown ``correction``.

    Notes
    -----
    The arbiter's two-sided z, from log p (so that p far below 1e-300 keeps its size), deflated by the square root of
    the design effect: p_cluster = 2 Phi(-z / sqrt(DE)).  ``significant_clustered``: p_cluster adjusted by the declared
    correction over the family's pairs (:func:`~llm_power_verified.inference.multiplicity.adjust_pvalues`) <= alpha,
    None outside the family; with correction "none", p_cluster <= alpha for every pair.  With DE = 1, p_cluster is the
    arbiter's p and the verdict is ``significant``'s.  When the family has pairs the table does not report (mode
    "adjacent" with family "all"), their clustered p-values are not computed: Holm and BH fall back to Bonferroni over
    m there, which is more conservative and controls the same error rate.
    """
    if correction not in CORRECTIONS:
        raise ArgumentError(f"correction must be one of {CORRECTIONS}; got {correction!r}")
    log_raw = (pairs["log_p_exact"] if binary else pairs["log_p_t"]).to_numpy()
    # The arbiter's two-sided z, from log p so that p far below 1e-300 keeps its size; deflated by sqrt(DE).
    z = -ndtri_exp(np.minimum(log_raw - np.log(2.0), np.log(0.5)))
    p_cluster = 2 * np.exp(log_ndtr(-z / np.sqrt(pairs["design_effect"].to_numpy())))
    pairs["p_cluster"] = p_cluster
    if correction == "none":
        pairs["significant_clustered"] = p_cluster <= alpha
        return
    outside = pairs["p_holm"].isna().to_numpy()
    inside = ~outside
    # Step-wise corrections need every family member's p; Bonferroni and Sidak need only m.
    method = correction if correction in ("bonferroni", "sidak") or inside.sum() == family_size else "bonferroni"
    adjusted = np.full(p_cluster.size, np.nan)
    if inside.any():
        adjusted[inside] = adjust_pvalues(p_cluster[inside], method, family_size=family_size)
    pairs["significant_clustered"] = _within_family(adjusted <= alpha, outside)


def _within_family(decisions: np.ndarray, outside: np.ndarray | None) -> np.ndarray:
    """Boolean decisions, or an object column with None for the pairs outside the declared family."""
    if outside is None or not outside.any():
        return decisions.astype(bool)
    column = decisions.astype(object)
    column[outside] = None
    return column
