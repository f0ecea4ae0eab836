"""The pair grid in blocks: what every block needs, computed once, and one block's whole table.

An audit's pair table is computed block by block (:data:`PAIR_BLOCK` pairs at
a time) by :func:`~llm_power_verified.leaderboard.pair_table.pair_block`, from two objects computed once per audit:

* :class:`PairInputs`: what the pairs need from the score matrix, the exact
  all-pairs 2x2 counts (binary) or the covariance matrix (graded), so that a
  block never touches the K x N matrix again (and a Dask worker receives K x K
  counts once instead of the scores);
* :class:`FamilyContext`: everything about the declared family that needs all
  of its pairs at once: adjusted p-values, Holm's per-step levels, the BH
  rejection count, the e-values and the e-BH decisions.

The in-memory audit, the streamed audit (Parquet) and the Dask backend all
call :func:`~llm_power_verified.leaderboard.pair_table.pair_block` on the same blocks of the same pair list, so their
rows are the same bit for bit; only where a block runs and where its rows go
differ.  Within a block every per-pair quantity is computed once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.mcnemar import mcnemar_exact
from llm_power_verified.inference.multiplicity import (
    adjust_pvalues,
    holm_levels,
    inflation_at_level,
    required_n_inflation,
)
from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.contingency import (
    both_correct_counts,
    correct_counts,
)
from llm_power_verified.leaderboard.pairs import (
    graded_log_e,
    pair_indices,
    paired_t_columns,
)
from llm_power_verified.leaderboard.summaries import Inflation, Multiplicity
from llm_power_verified.parallel import Backend, LocalBackend
from llm_power_verified.results import Result
from llm_power_verified.sequential.e_process import e_bh, log_e_value

__all__ = ["PAIR_BLOCK", "BlockFamily", "BlockSettings", "FamilyContext", "PairInputs", "all_pairs_pvalues", "arbiter_pvalues", "blocks",
           "family_context", "family_log_e", "pair_inputs", "triangle_position"]

#: Pairs per block: bounds a block's memory (about 60 columns x 8 bytes x 20,000 = 10 MB, more with the bootstrap).
PAIR_BLOCK = 20_000


@dataclass(frozen=True, repr=False)
class PairInputs(Result):
    """What every pair needs from the score matrix, computed once per audit.

    Binary scores: ``a`` (K x K, items both models solve: the glossary's cell a
    of every pair) and ``correct`` (per model); graded: ``means``,
    ``covariance`` and the ``scores`` (for the shared item bootstrap).
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
    """The :class:`PairInputs` of a matrix whose models rank in ``order``."""
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(1, order.size + 1)
    common = dict(n_items=matrix.n_items, models=tuple(matrix.models), binary=matrix.binary, rank=rank)
    if matrix.binary:
        a = both_correct_counts(matrix.scores)
        # int32 halves what a worker receives; exact while no count passes 2^31 - 1 items.
        a = a.astype(np.int32) if matrix.n_items < 2**31 else a
        return PairInputs(**common, a=a, correct=correct_counts(matrix.scores))
    if matrix.n_items < 2:
        raise ArgumentError(f"graded scores: {matrix.n_items} item; the variance of the per-item differences needs at least 2 "
                            "(N - 1 = 0 degrees of freedom), so no paired t, N* or ICC is estimable")
    scores = matrix.scores
    means = scores.mean(axis=0)
    centred = scores - means
    return PairInputs(**common, means=means, covariance=centred.T @ centred / (matrix.n_items - 1), scores=scores)


@dataclass(frozen=True, repr=False)
class BlockSettings(Result):
    """The audit settings a block needs."""

    alpha: float
    power: float
    n_resamples: int
    seed: int
    correction: str


@dataclass(frozen=True, repr=False)
class FamilyContext(Result):
    """The declared family's all-pairs quantities (see the module notes), indexed by family position."""

    position: np.ndarray
    adjusted: dict[str, np.ndarray]
    holm_inflation: np.ndarray
    bonferroni: float
    bh_inflation: float
    log_e: np.ndarray | None
    rejected_e_bh: np.ndarray | None
    first: np.ndarray
    second: np.ndarray
    pvalues: np.ndarray
    multiplicity: Multiplicity

    def locate(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Family position of each pair (either orientation), -1 outside the family."""
        return self.position[first, second]

    def for_block(self, first: np.ndarray, second: np.ndarray) -> BlockFamily:
        """What one block needs of the family: its pairs' entries only (what a Dask task receives)."""
        mapped = self.locate(first, second)
        inside = mapped >= 0
        at = mapped[inside]
        return BlockFamily(
            inside=inside, family_size=self.multiplicity.family_size, bonferroni=self.bonferroni, bh_inflation=self.bh_inflation,
            pvalues=self.pvalues[at], holm=self.adjusted["holm"][at], bh=self.adjusted["bh"][at],
            holm_inflation=self.holm_inflation[at],
            log_e=None if self.log_e is None or not inside.all() else self.log_e[at],
            rejected_e_bh=None if self.rejected_e_bh is None else self.rejected_e_bh[at],
        )


@dataclass(frozen=True, repr=False)
class BlockFamily(Result):
    """One block's slice of the :class:`FamilyContext`: the entries of its pairs inside the family (in block order)."""

    inside: np.ndarray
    family_size: int
    bonferroni: float
    bh_inflation: float
    pvalues: np.ndarray
    holm: np.ndarray
    bh: np.ndarray
    holm_inflation: np.ndarray
    log_e: np.ndarray | None
    rejected_e_bh: np.ndarray | None


def arbiter_pvalues(inputs: PairInputs, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The arbiter's two-sided p-values (exact McNemar for 0/1 scores, paired t for graded) of the given pairs.

    No alpha or power: a p-value needs neither.  Symmetric in each pair's orientation.
    """
    if inputs.binary:
        _, only_a, only_b = inputs.counts(first, second)
        return np.atleast_1d(mcnemar_exact(only_a, only_b).pvalue)
    return np.asarray(paired_t_columns(inputs, first, second)["p_t"])


def all_pairs_pvalues(inputs: PairInputs, order: np.ndarray, backend: Backend | None = None) -> np.ndarray:
    """The arbiter's p-values of all K (K - 1) / 2 pairs in :func:`~.pairs.pair_indices` order (rank-order upper
    triangle), computed block by block by ``backend``: what the ranking's Holm procedure and any family take."""
    first, second = pair_indices(order, "all")
    pvalues = np.empty(first.size)
    slices = blocks(first.size)
    results = (backend or LocalBackend()).map(arbiter_pvalues, [(first[sl], second[sl]) for sl in slices], shared=(inputs,))
    for sl, block_p in zip(slices, results):
        pvalues[sl] = block_p
    return pvalues


def triangle_position(rank: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Index of each pair (either orientation) in :func:`all_pairs_pvalues`' order, from the models' 1-based ``rank``."""
    size = rank.size
    i, j = rank[first].astype(np.int64) - 1, rank[second].astype(np.int64) - 1
    low, high = np.minimum(i, j), np.maximum(i, j)
    return low * size - low * (low + 1) // 2 + (high - low - 1)


def family_log_e(inputs: PairInputs, alpha: float, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """A block of the family's first pass: the log e-values of its pairs (binary mixture, or graded betting)."""
    if not inputs.binary:
        return graded_log_e(inputs, first, second, alpha)
    _, only_a, only_b = inputs.counts(first, second)
    return np.asarray(log_e_value(only_a, only_b), dtype=np.float64).reshape(-1)


def family_context(inputs: PairInputs, order: np.ndarray, family: str, reference_index: int | None, alpha: float,
                   power: float, all_pvalues: np.ndarray, pairs: tuple[np.ndarray, np.ndarray] | None = None,
                   backend: Backend | None = None) -> FamilyContext:
    """The :class:`FamilyContext` of the declared family.

    ``all_pvalues``: the arbiter's p-values of all pairs (:func:`all_pairs_pvalues`), from which the family's are
    taken (every family pair is an all-pairs entry, and a two-sided p-value does not depend on the orientation);
    ``pairs``: the family's (first, second) when the caller has them; ``backend``: where the per-block first pass
    (the e-values) runs; the procedures that need the whole family (Holm, BH, e-BH) run here.
    """
    first, second = pairs if pairs is not None else pair_indices(order, family, reference_index)
    size = first.size
    pvalues = all_pvalues if family == "all" else all_pvalues[triangle_position(inputs.rank, first, second)]
    log_e = np.empty(size)
    slices = blocks(size)
    results = (backend or LocalBackend()).map(family_log_e, [(first[sl], second[sl]) for sl in slices], shared=(inputs, alpha))
    for sl, block_log_e in zip(slices, results):
        log_e[sl] = block_log_e
    # Bonferroni and Sidak are element-wise (computed per block); Holm and BH need the whole family's order.
    adjusted = {method: adjust_pvalues(pvalues, method) if size else np.empty(0) for method in ("holm", "bh")}
    # K x K table of family positions (either orientation), -1 outside; int32 while the family has < 2^31 pairs.
    position = np.full((order.size, order.size), -1, dtype=np.int32 if size < 2**31 else np.int64)
    position[first, second] = np.arange(size)
    position[second, first] = np.arange(size)
    # Holm: the pair at step k (ascending p) is tested at alpha / (m - k + 1).
    holm_inflation = np.asarray(inflation_at_level(holm_levels(pvalues, alpha), alpha, power), dtype=np.float64).reshape(-1) if size else np.empty(0)
    rejections = int(np.sum(adjusted["bh"] <= alpha))
    bh_level = alpha * max(rejections, 1) / max(size, 1)
    bonferroni = float(required_n_inflation(max(size, 1), alpha, power))
    sidak = float(required_n_inflation(max(size, 1), alpha, power, correction="sidak"))
    bh_inflation = float(inflation_at_level(bh_level, alpha, power))
    rejected = e_bh(log_e, alpha) if size else np.zeros(0, dtype=bool)
    inflation = Inflation(bonferroni=bonferroni, sidak=sidak, bh=bh_inflation,
                          holm="per pair, alpha / (m - k + 1) at step k; at most the Bonferroni factor")
    multiplicity = Multiplicity(family=family, family_size=int(size), arbiter="exact McNemar" if inputs.binary else "paired t",
                                inflation=inflation, bh_rejections=rejections, bh_level=float(bh_level),
                                e_bh_rejections=int(rejected.sum()))
    return FamilyContext(position=position, adjusted=adjusted, holm_inflation=holm_inflation, bonferroni=bonferroni,
                         bh_inflation=bh_inflation, log_e=log_e, rejected_e_bh=rejected, first=first, second=second,
                         pvalues=pvalues, multiplicity=multiplicity)


def blocks(size: int, block: int | None = None) -> list[slice]:
    """Consecutive slices of at most ``block`` (default :data:`PAIR_BLOCK`) pairs covering ``range(size)``."""
    block = block or PAIR_BLOCK
    return [slice(start, min(start + block, size)) for start in range(0, size, block)]
