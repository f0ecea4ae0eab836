"""The per-block computations of the family's first pass: the arbiter's p-values (with the exact tails) and e-values.

Each takes the audit's :class:`~llm_power_verified.leaderboard.pair_inputs.PairInputs` and a block of pairs, so that
a backend can run it where the block is (:mod:`llm_power_verified.leaderboard.blocks` maps them over the blocks).
"""

from __future__ import annotations

import numpy as np

from llm_power_verified.inference.mcnemar import exact_with_tail, mcnemar_exact
from llm_power_verified.leaderboard.pair_inputs import PairInputs
from llm_power_verified.leaderboard.pairs import graded_log_e, paired_t_columns
from llm_power_verified.sequential.e_process import log_e_value

__all__ = ["arbiter_pvalues", "exact_tests", "family_log_e"]


def exact_tests(inputs: PairInputs, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """0/1 scores: the exact p-values (row 0) and their tails log P(X <= min(b, c)) (row 1) of the given pairs.

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (binary).
    first, second : numpy.ndarray
        Model indices of each pair.

    Returns
    -------
    numpy.ndarray
        2 x pairs: ``mcnemar_exact``'s p-values (the same values) and the tails ``exact_and_midp`` takes.
    """
    _, only_a, only_b = inputs.counts(first, second)
    exact, log_tail = exact_with_tail(only_a, only_b)
    return np.stack([np.atleast_1d(exact.pvalue), np.atleast_1d(log_tail)])


def arbiter_pvalues(inputs: PairInputs, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The arbiter's two-sided p-values (exact McNemar for 0/1 scores, paired t for graded) of the given pairs.

    No alpha or power: a p-value needs neither.  Symmetric in each pair's orientation.

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (:func:`~llm_power_verified.leaderboard.pair_inputs.pair_inputs`).
    first, second : numpy.ndarray
        Model indices of each pair (``first`` the higher-ranked model, or the reference).

    Returns
    -------
    numpy.ndarray
        One p-value per pair.
    """
    if inputs.binary:
        _, only_a, only_b = inputs.counts(first, second)
        return np.atleast_1d(mcnemar_exact(only_a, only_b).pvalue)
    return np.asarray(paired_t_columns(inputs, first, second)["p_t"])


def family_log_e(inputs: PairInputs, alpha: float, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """A block of the family's first pass: the log e-values of its pairs (binary mixture, or graded betting).

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (:func:`~llm_power_verified.leaderboard.pair_inputs.pair_inputs`).
    alpha : float
        Tunes the graded bets.
    first, second : numpy.ndarray
        Model indices of each pair (``first`` the higher-ranked model, or the reference).

    Returns
    -------
    numpy.ndarray
        One log e-value per pair.
    """
    if not inputs.binary:
        return graded_log_e(inputs, first, second, alpha)
    _, only_a, only_b = inputs.counts(first, second)
    return np.asarray(log_e_value(only_a, only_b), dtype=np.float64).reshape(-1)
