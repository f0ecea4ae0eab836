"""The verdict arithmetic of the accuracies-only audit (:mod:`llm_power_verified.leaderboard.accuracies`).

Each pair's correlation rho is known only to lie in its admissible interval (paper Eqs. 7-8); N* (Eq. 6) at the
interval's two ends gives the verdict, the critical rho_c (q = 1) where it changes, and the share of items the two
models must agree on there.  The family's verdicts use the range of per-comparison levels its correction can take;
an assumed rho (or range) gives the ``*_assumed`` columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import ndtr

from llm_power_verified.contract import VERDICT_KINDS
from llm_power_verified.inference.multiplicity import adjust_pvalues, guaranteed_level, holm_levels
from llm_power_verified.power.correlation import admissible_rho_interval
from llm_power_verified.power.critical import agreement_share, critical_correlation
from llm_power_verified.power.sample_size import paired_difference_variance, required_n_paired_binary

__all__ = [
    "NOT_ADMISSIBLE",
    "VERDICTS",
    "accuracy_pairs",
    "add_assumption",
    "add_critical",
    "add_verdicts",
    "family_levels",
    "required_at_ends",
    "verdicts_between",
]

#: The verdicts of the accuracies (the assumed verdicts add "not admissible").
VERDICTS = VERDICT_KINDS[:4]
#: The assumed verdict of a pair whose admissible interval misses the assumed rho.
NOT_ADMISSIBLE = VERDICT_KINDS[4]


def accuracy_pairs(ranking: pd.DataFrame, n: int, mode: str) -> pd.DataFrame:
    """The pairs of a ranking with their accuracies and admissible interval of rho.

    Parameters
    ----------
    ranking : pandas.DataFrame
        One row per model in rank order, with ``model`` and ``accuracy``.
    n : int
        N, the items every model answered.
    mode : {"adjacent", "all"}
        Pairs next to each other in the ranking, or every pair.

    Returns
    -------
    pandas.DataFrame
        One row per pair: the models and ranks, ``adjacent``, ``p_a``, ``p_b``, ``delta``, ``n``, ``rho_min`` and
        ``rho_max``.
    """
    size = len(ranking)
    first, second = (np.arange(size - 1), np.arange(1, size)) if mode == "adjacent" else np.triu_indices(size, 1)
    p_a, p_b = ranking["accuracy"].to_numpy()[first], ranking["accuracy"].to_numpy()[second]
    interval = admissible_rho_interval(p_a, p_b)
    return pd.DataFrame(
        {
            "model_a": ranking["model"].to_numpy()[first],
            "model_b": ranking["model"].to_numpy()[second],
            "rank_a": first + 1,
            "rank_b": second + 1,
            "adjacent": second == first + 1,
            "p_a": p_a,
            "p_b": p_b,
            "delta": p_a - p_b,
            "n": np.full(first.size, n),
            "rho_min": np.atleast_1d(interval.low),
            "rho_max": np.atleast_1d(interval.high),
        }
    )


def verdicts_between(required_at_low: np.ndarray, required_at_high: np.ndarray, n: int) -> np.ndarray:
    """Resolved at every rho in [low, high] (N >= N* at low), unresolved at every one (N < N* at high), or neither.

    Parameters
    ----------
    required_at_low, required_at_high : numpy.ndarray
        N* of each pair at the low and the high end of its rho interval.
    n : int
        N.

    Returns
    -------
    numpy.ndarray
        Each pair's verdict: one of the first three of ``VERDICTS``.
    """
    return np.where(n >= required_at_low, VERDICTS[0], np.where(n < required_at_high, VERDICTS[1], VERDICTS[2]))


def family_levels(correction: str, family_size: int, alpha: float) -> tuple[float, float]:
    """The per-comparison levels the correction can use, (strictest, most lenient): Holm's and BH's range up to alpha.

    Parameters
    ----------
    correction : str
        The family's correction.
    family_size : int
        m.
    alpha : float
        The family's level.

    Returns
    -------
    tuple of float
        The strictest level (the correction's guaranteed one) and the most lenient (alpha for Holm and BH).
    """
    strict = guaranteed_level(correction, family_size, alpha)
    return strict, (alpha if correction in ("holm", "bh") else strict)


def required_at_ends(
    pairs: pd.DataFrame,
    low: np.ndarray,
    high: np.ndarray,
    strict: float | np.ndarray,
    lenient: float | np.ndarray,
    power: float,
) -> tuple[np.ndarray, np.ndarray]:
    """N* at the low end of rho (at the strict level) and at the high end (at the lenient level).

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pairs (:func:`accuracy_pairs`).
    low, high : numpy.ndarray
        Each pair's low and high end of rho.
    strict, lenient : float or numpy.ndarray
        The two-sided levels at the low and at the high end.
    power : float
        Target power.

    Returns
    -------
    tuple of numpy.ndarray
        N* at the low end and at the high end (Eq. 6).
    """
    p_a, p_b = pairs["p_a"].to_numpy(), pairs["p_b"].to_numpy()
    return (
        required_n_paired_binary(p_a, p_b, low, alpha=strict, power=power),
        required_n_paired_binary(p_a, p_b, high, alpha=lenient, power=power),
    )


def add_critical(
    pairs: pd.DataFrame, suffix: str, verdict: np.ndarray, level: float | np.ndarray, power: float
) -> None:
    """Add the verdict, rho_c at ``level`` and the agreement share it implies to ``pairs`` (in place).

    With a range of levels (Holm, BH) a pair can be unresolved at every rho at the strictest level yet resolvable at a
    lenient one: its verdict depends on the p-value order.

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pairs (:func:`accuracy_pairs`); gains ``verdict``, ``rho_critical`` and ``agreement_critical``, each
        followed by ``suffix``.
    suffix : str
        "" for the verdict at alpha, "_family" for the family's.
    verdict : numpy.ndarray
        The verdicts over the admissible interval (:func:`verdicts_between`).
    level : float or numpy.ndarray
        The two-sided level of rho_c.
    power : float
        Target power.
    """
    p_a, p_b, n = pairs["p_a"].to_numpy(), pairs["p_b"].to_numpy(), pairs["n"].to_numpy()
    rho_c = np.atleast_1d(critical_correlation(p_a, p_b, n, alpha=level, power=power))
    verdict = np.where((verdict == VERDICTS[2]) & (rho_c > pairs["rho_max"].to_numpy()), VERDICTS[3], verdict)
    depends = verdict == VERDICTS[2]
    share = np.full(rho_c.shape, np.nan)
    if depends.any():
        share[depends] = agreement_share(p_a[depends], p_b[depends], rho_c[depends])
    pairs["verdict" + suffix] = verdict
    pairs["rho_critical" + suffix] = rho_c
    pairs["agreement_critical" + suffix] = share


def add_verdicts(pairs: pd.DataFrame, n: int, correction: str, alpha: float, power: float) -> tuple[float, float]:
    """Add N*, q and the agreement share at both ends of the admissible interval, and the verdicts, to ``pairs``.

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pairs (:func:`accuracy_pairs`), all of one family; changed in place.
    n : int
        N.
    correction : str
        The family's correction.
    alpha, power : float
        The operating point: two-sided level and target power.

    Returns
    -------
    tuple of float
        The family's strictest and most lenient per-comparison levels (:func:`family_levels`).
    """
    low, high = pairs["rho_min"].to_numpy(), pairs["rho_max"].to_numpy()
    at_low, at_high = required_at_ends(pairs, low, high, alpha, alpha, power)
    pairs["required_n_rho_min"], pairs["required_n_rho_max"] = at_low, at_high
    pairs["q_rho_min"] = np.where(np.isinf(at_low), 0.0, n / at_low)
    pairs["q_rho_max"] = np.where(np.isinf(at_high), 0.0, n / at_high)
    pairs["agreement_min"] = agreement_share(pairs["p_a"].to_numpy(), pairs["p_b"].to_numpy(), low)
    pairs["agreement_max"] = agreement_share(pairs["p_a"].to_numpy(), pairs["p_b"].to_numpy(), high)
    add_critical(pairs, "", verdicts_between(at_low, at_high, n), alpha, power)
    strict, lenient = family_levels(correction, len(pairs), alpha)
    pairs["level_strict"], pairs["level_lenient"] = strict, lenient
    family_low, family_high = required_at_ends(pairs, low, high, strict, lenient, power)
    add_critical(pairs, "_family", verdicts_between(family_low, family_high, n), strict, power)
    return strict, lenient


def _assumed_levels(pairs: pd.DataFrame, correction: str, alpha: float, strict: float, lenient: float):
    """Holm's and BH's levels are determined once the p-values are: the Wald test's, at the assumed rho.

    A pair for which the assumed rho is not admissible has no p-value at it; it counts as p = 1 (never rejected,
    last in Holm's order), which keeps the family's size and makes no other pair's level more lenient.
    """
    if correction not in ("holm", "bh"):
        return strict, lenient
    delta, n = pairs["delta"].to_numpy(), pairs["n"].to_numpy()
    variance = paired_difference_variance(
        pairs["p_a"].to_numpy(), pairs["p_b"].to_numpy(), pairs["rho_assumed_low"].to_numpy()
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        pvalues = 2 * ndtr(-np.abs(delta) * np.sqrt(n / variance))
    pvalues = np.where(np.isfinite(pvalues), pvalues, 1.0)
    if correction == "holm":
        level = holm_levels(pvalues, alpha)
    else:
        level = np.full(
            pvalues.size, alpha * max(int(np.sum(adjust_pvalues(pvalues, "bh") <= alpha)), 1) / pvalues.size
        )
    return level, level


def add_assumption(
    pairs: pd.DataFrame,
    rho_range: tuple[float, float],
    correction: str,
    alpha: float,
    power: float,
    strict: float,
    lenient: float,
) -> None:
    """Add the ``*_assumed`` columns of an assumed rho (or range) to ``pairs`` (in place).

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pairs with their verdicts (:func:`add_verdicts`).
    rho_range : tuple of two floats
        The assumed (low, high), equal for one assumed rho.
    correction : str
        The family's correction.
    alpha, power : float
        The operating point.
    strict, lenient : float
        The family's levels (:func:`family_levels`); at one assumed rho, Holm's and BH's come from the Wald
        p-values there instead.
    """
    low, high = np.maximum(rho_range[0], pairs["rho_min"]), np.minimum(rho_range[1], pairs["rho_max"])
    admissible = (low <= high).to_numpy()
    pairs["rho_assumed_low"], pairs["rho_assumed_high"] = (
        np.where(admissible, low, np.nan),
        np.where(admissible, high, np.nan),
    )
    if rho_range[0] == rho_range[1]:
        strict, lenient = _assumed_levels(pairs, correction, alpha, strict, lenient)
    at_low, at_high = required_at_ends(
        pairs, pairs["rho_assumed_low"].to_numpy(), pairs["rho_assumed_high"].to_numpy(), alpha, alpha, power
    )
    family_low, family_high = required_at_ends(
        pairs, pairs["rho_assumed_low"].to_numpy(), pairs["rho_assumed_high"].to_numpy(), strict, lenient, power
    )
    n = int(pairs["n"].iloc[0])
    pairs["required_n_assumed"] = at_low
    pairs["q_assumed"] = np.where(np.isinf(at_low), 0.0, n / at_low)
    pairs["verdict_assumed"] = np.where(admissible, verdicts_between(at_low, at_high, n), NOT_ADMISSIBLE)
    pairs["verdict_assumed_family"] = np.where(admissible, verdicts_between(family_low, family_high, n), NOT_ADMISSIBLE)
