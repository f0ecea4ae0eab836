"""What every pair of an audit needs from the score matrix, computed once.

It is held in :class:`~llm_power_verified.leaderboard.pair_inputs.PairInputs`, in one of two forms:

* all pairs (``all_pairs=True``): the exact all-pairs 2x2 counts (binary scores, one matrix product) or the covariance
  matrix (graded), so that a block of pairs never touches the K x N matrix again (and a Dask worker receives K x K
  counts once instead of the scores): the fast path when every pair is needed;
* linear (``all_pairs=False``): no K x K array.  Binary: the scores packed 8 items a byte, one row per model, and each
  block's both-correct counts a = popcount(x_first AND x_second), exact integers equal to the matrix product's.
  Graded: the centred scores, one row per model, and each pair's covariance a dot product of two rows
  (``PairInputs.covariances``; it may differ from the Gram matrix's entry by rounding, bounded in its notes).
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

    ``counts(first, second)`` gives the both-correct, only-first and only-second counts of pairs (binary scores);
    ``variances`` and ``covariances(first, second)`` the graded scores' variances and the pairs' covariances.  Either
    from the K x K arrays (all pairs) or from the scores, block by block (linear; the module notes).

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
    packed : numpy.ndarray or None
        Binary, linear: K x ceil(N / 8) bytes, each model's 0/1 scores packed 8 items a byte.
    centred : numpy.ndarray or None
        Graded, linear: K x N, each model's scores less its mean.
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
    packed: np.ndarray | None = None
    centred: np.ndarray | None = None

    def counts(self, first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Both-correct, only-first and only-second counts of the pairs (binary scores)."""
        if self.a is not None:
            a = self.a[first, second].astype(np.int64)
        else:
            a = _rows_reduced(self.packed, first, second, _both_set)
        return a, self.correct[first] - a, self.correct[second] - a

    @property
    def variances(self) -> np.ndarray:
        """Graded: each model's variance (the covariance matrix's diagonal)."""
        if self.covariance is not None:
            return np.diag(self.covariance)
        return _rows_reduced(self.centred, np.arange(len(self.models)), None, _dot) / (self.n_items - 1)

    def covariances(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        r"""Graded: the covariance of each pair's two score vectors.

        Parameters
        ----------
        first, second : numpy.ndarray
            Model indices of each pair.

        Returns
        -------
        numpy.ndarray
            One covariance per pair: the covariance matrix's entry (all pairs), or the dot product of the two centred
            rows over N - 1 (linear).

        Notes
        -----
        Both are sums of the same N products x_i y_i / (N - 1), accumulated in different orders; each differs from the
        exact sum by at most gamma_N sum |x_i y_i| / (N - 1), gamma_N = N u / (1 - N u), u = 2^-53 (Higham 2002,
        Accuracy and Stability of Numerical Algorithms, Eq. 3.5), so the two differ by at most twice that.
        """
        if self.covariance is not None:
            return self.covariance[first, second]
        return _rows_reduced(self.centred, first, second, _dot) / (self.n_items - 1)


#: Bytes of the rows gathered at once by :func:`_rows_reduced` (two gathered blocks of this size, at most).
_GATHER_BYTES = 1 << 23


#: Set bits of each byte: the popcount of NumPy < 2.0, which has no np.bitwise_count (pyproject allows numpy 1.26).
_BYTE_BITS = np.array([bin(byte).count("1") for byte in range(256)], dtype=np.uint8)


def _both_set(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Items set in both packed rows of each pair: the popcount of their AND (exact int64)."""
    both = x & y
    bits = np.bitwise_count(both) if hasattr(np, "bitwise_count") else _BYTE_BITS[both]
    return bits.sum(axis=1, dtype=np.int64)


def _dot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise dot products."""
    return np.einsum("ij,ij->i", x, y)


def _rows_reduced(rows: np.ndarray, first: np.ndarray, second: np.ndarray | None, reduce) -> np.ndarray:
    """``reduce(rows[first], rows[second])`` in chunks of pairs whose gathered rows stay within ``_GATHER_BYTES``.

    ``second`` None pairs each row with itself.
    """
    first = np.asarray(first, dtype=np.int64).reshape(-1)
    second = first if second is None else np.asarray(second, dtype=np.int64).reshape(-1)
    out = np.empty(first.size, dtype=np.int64 if rows.dtype == np.uint8 else np.float64)
    step = max(1, _GATHER_BYTES // max(rows.shape[1] * rows.itemsize, 1))
    for start in range(0, first.size, step):
        chunk = slice(start, start + step)
        out[chunk] = reduce(rows[first[chunk]], rows[second[chunk]])
    return out


def pair_inputs(matrix: ScoreMatrix, order: np.ndarray, all_pairs: bool = True) -> PairInputs:
    """The :class:`PairInputs` of a matrix whose models rank in ``order``.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores (canonical order).
    order : numpy.ndarray
        Model indices in rank order (:func:`~llm_power_verified.leaderboard.pairs.rank_models`).
    all_pairs : bool, default True
        Precompute the K x K counts or covariances (the fast path when all pairs are needed); False: no K x K array,
        each block's from the scores (memory linear in K; the module notes).

    Returns
    -------
    PairInputs
        The pair inputs.

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
    if matrix.binary and not all_pairs:
        packed = np.ascontiguousarray(np.packbits(matrix.scores == 1, axis=0).T)
        return PairInputs(**common, correct=correct_counts(matrix.scores), packed=packed)
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
    if not all_pairs:
        centred = np.ascontiguousarray(scores.T) - means[:, None]
        return PairInputs(**common, means=means, scores=scores, centred=centred)
    centred = scores - means
    return PairInputs(**common, means=means, covariance=centred.T @ centred / (matrix.n_items - 1), scores=scores)
