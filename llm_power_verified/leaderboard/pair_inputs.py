"""What every pair of an audit needs from the score matrix, computed once.

It is held in :class:`~llm_power_verified.leaderboard.pair_inputs.PairInputs`.

The exact all-pairs 2x2 counts (binary scores) or the covariance matrix (graded), so that a block of pairs
never touches the K x N matrix again (and a Dask worker receives K x K counts once instead of the scores).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.contingency import both_correct_counts, correct_counts
from llm_power_verified.repeats.means import model_means
from llm_power_verified.results import Result

__all__ = ["PairInputs", "pair_inputs"]


@dataclass(frozen=True, repr=False)
class PairInputs(Result):
    """What every pair needs from the score matrix, computed once per audit.

    ``counts(first, second)`` gives the both-correct, only-first and only-second counts of pairs (binary scores).

    Attributes
    ----------
    n_items : int
        N.
    models : tuple of str
        The model names (column order).
    binary : bool
        0/1 scores (False: graded).
    rank : numpy.ndarray
        Each model's 1-based rank.
    a : numpy.ndarray or None
        Binary: K x K items both models solve (the glossary's cell a of every pair).
    correct : numpy.ndarray or None
        Binary: items each model solves.
    means, covariance : numpy.ndarray or None
        Graded: the models' mean scores and their covariance matrix.
    scores : numpy.ndarray or None
        Graded: the scores (for the shared item bootstrap).
    """

    n_items: int
    models: tuple[str, ...]
    binary: bool
    rank: np.ndarray
    a: np.ndarray | None = None
    correct: np.ndarray | None = None
    means: np.ndarray | None = None
    covariance: np.ndarray | None = None
    scores: np.ndarray | None = None

    def counts(self, first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Both-correct, only-first and only-second counts of the pairs (binary scores)."""
        a = self.a[first, second].astype(np.int64)
        return a, self.correct[first] - a, self.correct[second] - a


def pair_inputs(matrix: ScoreMatrix, order: np.ndarray) -> PairInputs:
    """The :class:`PairInputs` of a matrix whose models rank in ``order``.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores (canonical order).
    order : numpy.ndarray
        Model indices in rank order (:func:`~llm_power_verified.leaderboard.pairs.rank_models`).

    Returns
    -------
    PairInputs
        The exact all-pairs counts (binary) or the covariance matrix (graded).

    Raises
    ------
    ArgumentError
        Graded scores with fewer than 2 items.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> rng = np.random.default_rng(0)
    >>> matrix = from_array((rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float), models=["x", "y", "z"])
    >>> inputs = pair_inputs(matrix, np.array([0, 1, 2]))
    >>> [count.tolist() for count in inputs.counts(np.array([0]), np.array([1]))]
    [[203], [102], [67]]
    """
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(1, order.size + 1)
    common = dict(n_items=matrix.n_items, models=tuple(matrix.models), binary=matrix.binary, rank=rank)
    if matrix.binary:
        a = both_correct_counts(matrix.scores)
        # int32 halves what a worker receives; exact while no count passes 2^31 - 1 items.
        a = a.astype(np.int32) if matrix.n_items < 2**31 else a
        return PairInputs(**common, a=a, correct=correct_counts(matrix.scores))
    if matrix.n_items < 2:
        raise ArgumentError(
            f"graded scores: {matrix.n_items} item; the variance of the per-item differences needs at least 2 "
            "(N - 1 = 0 degrees of freedom), so no paired t, N* or ICC is estimable"
        )
    scores = matrix.scores
    means = model_means(matrix)  # exact for 0/1 generations: a tie is a gap of 0, not float noise
    centred = scores - means
    return PairInputs(**common, means=means, covariance=centred.T @ centred / (matrix.n_items - 1), scores=scores)
