"""The pair grid in blocks: what every block needs, computed once, and one block's whole table.

An audit's pair table is computed block by block (``PAIR_BLOCK`` pairs at
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

from llm_power_verified.inference.multiplicity import family_adjustments, inflation_at_level, required_n_inflation
from llm_power_verified.leaderboard.block_tests import arbiter_pvalues, exact_tests, family_log_e
from llm_power_verified.leaderboard.pair_inputs import PairInputs, pair_inputs
from llm_power_verified.leaderboard.pairs import pair_indices
from llm_power_verified.leaderboard.summaries import Inflation, Multiplicity
from llm_power_verified.parallel import Backend, LocalBackend
from llm_power_verified.results import Result
from llm_power_verified.sequential.e_process import e_bh

__all__ = [
    "PAIR_BLOCK",
    "BlockFamily",
    "BlockSettings",
    "FamilyContext",
    "PairInputs",
    "all_pairs_pvalues",
    "all_pairs_tests",
    "arbiter_pvalues",
    "blocks",
    "family_context",
    "family_log_e",
    "pair_inputs",
    "triangle_position",
]

#: Pairs per block: bounds a block's memory (about 60 columns x 8 bytes x 20,000 = 10 MB, more with the bootstrap).
PAIR_BLOCK = 20_000


@dataclass(frozen=True, repr=False)
class BlockSettings(Result):
    """The audit settings a block needs.

    Attributes
    ----------
    alpha, power : float
        Level and target power.
    n_resamples : int
        Paired-bootstrap resamples.
    seed : int
        Seed of the per-pair streams.
    correction : str
        The family's correction.
    min_effect : float or None
        The smallest gap of interest DELTA (None: no min-effect or equivalence columns).
    """

    alpha: float
    power: float
    n_resamples: int
    seed: int
    correction: str
    min_effect: float | None = None


@dataclass(frozen=True, repr=False)
class FamilyContext(Result):
    """The declared family's quantities that need all its pairs at once, indexed by family position.

    ``locate(first, second)`` gives each pair's family position (-1 outside); ``for_block(first, second)`` the
    :class:`BlockFamily` of a block (what a Dask task receives).

    Attributes
    ----------
    rank : numpy.ndarray
        Each model's 1-based rank (what :func:`triangle_position` keys the pairs by).
    keys : numpy.ndarray
        The family's pairs' :func:`triangle_position` keys, sorted (O(family) memory: no K x K table).
    key_positions : numpy.ndarray
        The family position of each sorted key.
    adjusted : dict of str to numpy.ndarray
        Holm- and BH-adjusted p-values.
    holm_inflation : numpy.ndarray
        Each pair's N* inflation at its Holm step level.
    bonferroni, bh_inflation : float
        The Bonferroni and BH N* inflations.
    log_e : numpy.ndarray or None
        The log e-values.
    rejected_e_bh : numpy.ndarray or None
        The e-BH decisions.
    first, second : numpy.ndarray
        The family's pairs.
    pvalues : numpy.ndarray
        The arbiter's p-values of the family.
    multiplicity : Multiplicity
        The family's summary.
    log_tail : numpy.ndarray or None
        0/1 scores: the exact tails log P(X <= min(b, c)) behind ``pvalues``, which the blocks' exact and mid-p
        columns take instead of computing them again; None for graded scores.
    """

    rank: np.ndarray
    keys: np.ndarray
    key_positions: np.ndarray
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
    log_tail: np.ndarray | None = None

    def locate(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Family position of each pair (either orientation), -1 outside the family."""
        first, second = np.asarray(first), np.asarray(second)
        wanted = triangle_position(self.rank, first, second)
        at = np.minimum(np.searchsorted(self.keys, wanted), max(self.keys.size - 1, 0))
        # A model with itself has no key of its own (its formula lands on another pair's): outside, as in no family.
        found = (self.keys[at] == wanted) & (first != second) if self.keys.size else np.zeros(wanted.shape, bool)
        return np.where(found, self.key_positions[at] if self.keys.size else -1, -1)

    def for_block(self, first: np.ndarray, second: np.ndarray) -> BlockFamily:
        """What one block needs of the family: its pairs' entries only (what a Dask task receives)."""
        mapped = self.locate(first, second)
        inside = mapped >= 0
        at = mapped[inside]
        return BlockFamily(
            inside=inside,
            family_size=self.multiplicity.family_size,
            bonferroni=self.bonferroni,
            bh_inflation=self.bh_inflation,
            pvalues=self.pvalues[at],
            holm=self.adjusted["holm"][at],
            bh=self.adjusted["bh"][at],
            holm_inflation=self.holm_inflation[at],
            log_e=None if self.log_e is None or not inside.all() else self.log_e[at],
            rejected_e_bh=None if self.rejected_e_bh is None else self.rejected_e_bh[at],
            log_tail=None if self.log_tail is None or not inside.all() else self.log_tail[at],
        )


@dataclass(frozen=True, repr=False)
class BlockFamily(Result):
    """One block's slice of the :class:`FamilyContext`: the entries of its pairs inside the family, in block order.

    Attributes
    ----------
    inside : numpy.ndarray
        True for the block's pairs inside the family.
    family_size : int
        m.
    bonferroni, bh_inflation : float
        The Bonferroni and BH N* inflations.
    pvalues, holm, bh, holm_inflation : numpy.ndarray
        The arbiter's p-values, Holm- and BH-adjusted ones and Holm's inflation, of the pairs inside.
    log_e : numpy.ndarray or None
        Their log e-values (None unless every pair of the block is inside).
    rejected_e_bh : numpy.ndarray or None
        Their e-BH decisions.
    log_tail : numpy.ndarray or None
        Their exact tails log P(X <= min(b, c)) (0/1 scores; None unless every pair of the block is inside).
    """

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
    log_tail: np.ndarray | None = None


def all_pairs_pvalues(inputs: PairInputs, order: np.ndarray, backend: Backend | None = None) -> np.ndarray:
    """The arbiter's p-values of all K (K - 1) / 2 pairs, in the rank-order upper triangle.

    Computed block by block: what the ranking's Holm procedure and any family take.

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (:func:`pair_inputs`).
    order : numpy.ndarray
        Model indices in rank order (:func:`~llm_power_verified.leaderboard.pairs.rank_models`).
    backend : Backend, optional
        Where the blocks are computed (default: this process).

    Returns
    -------
    numpy.ndarray
        The p-values in :func:`~llm_power_verified.leaderboard.pairs.pair_indices` order (mode "all").

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> rng = np.random.default_rng(0)
    >>> matrix = from_array((rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float), models=["x", "y", "z"])
    >>> np.round(all_pairs_pvalues(pair_inputs(matrix, np.array([0, 1, 2])), np.array([0, 1, 2])), 4).tolist()
    [0.0087, 0.0, 0.0]
    """
    first, second = pair_indices(order, "all")
    return _by_blocks(backend or LocalBackend(), arbiter_pvalues, first, second, (inputs,))


def all_pairs_tests(
    inputs: PairInputs, order: np.ndarray, backend: Backend | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`all_pairs_pvalues` and, for 0/1 scores, the exact tails behind them.

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (:func:`~llm_power_verified.leaderboard.pair_inputs.pair_inputs`).
    order : numpy.ndarray
        Model indices in rank order (:func:`~llm_power_verified.leaderboard.pairs.rank_models`).
    backend : Backend, optional
        Where the blocks are computed (default: this process).

    Returns
    -------
    pvalues : numpy.ndarray
        The same values as :func:`all_pairs_pvalues`.
    log_tail : numpy.ndarray or None
        0/1 scores: log P(X <= min(b, c)) of each pair (what the pair table's exact and mid-p columns are made of,
        so that the tail is computed once per pair); None for graded scores.
    """
    if not inputs.binary:
        return all_pairs_pvalues(inputs, order, backend), None
    first, second = pair_indices(order, "all")
    tests = _by_blocks(backend or LocalBackend(), exact_tests, first, second, (inputs,), rows=2)
    return tests[0], tests[1]


def _by_blocks(backend: Backend, compute, first, second, shared: tuple, rows: int | None = None) -> np.ndarray:
    """``compute(*shared, first, second)`` of the pairs, block by block on ``backend``, as one float64 array.

    ``rows``: each block gives that many rows of values (a ``rows`` x pairs array); None: one value per pair.
    """
    values = np.empty(first.size if rows is None else (rows, first.size))
    slices = blocks(first.size)
    results = backend.map(compute, [(first[sl], second[sl]) for sl in slices], shared=shared)
    for sl, block_values in zip(slices, results, strict=True):
        values[..., sl] = block_values
    return values


def triangle_position(rank: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Index of each pair (either orientation) in :func:`all_pairs_pvalues`' order.

    Parameters
    ----------
    rank : numpy.ndarray
        The models' 1-based ranks.
    first, second : numpy.ndarray
        Model indices of each pair (``first`` the higher-ranked model, or the reference).

    Returns
    -------
    numpy.ndarray
        The positions, int64.

    Examples
    --------
    >>> triangle_position(np.array([1, 2, 3]), np.array([0, 2, 1]), np.array([2, 1, 0])).tolist()
    [1, 2, 0]
    """
    size = rank.size
    i, j = rank[first].astype(np.int64) - 1, rank[second].astype(np.int64) - 1
    low, high = np.minimum(i, j), np.maximum(i, j)
    return low * size - low * (low + 1) // 2 + (high - low - 1)


def family_context(
    inputs: PairInputs,
    order: np.ndarray,
    family: str,
    reference_index: int | None,
    alpha: float,
    power: float,
    all_pvalues: np.ndarray | None,
    pairs: tuple[np.ndarray, np.ndarray] | None = None,
    backend: Backend | None = None,
    all_log_tail: np.ndarray | None = None,
) -> FamilyContext:
    """The :class:`FamilyContext` of the declared family.

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (:func:`pair_inputs`).
    order : numpy.ndarray
        Model indices in rank order (:func:`~llm_power_verified.leaderboard.pairs.rank_models`).
    family : {"adjacent", "all", "reference"}
        The declared family.
    reference_index : int or None
        The reference model's index (family "reference").
    alpha : float
        Two-sided level, in (0, 1).
    power : float
        Target power, in (alpha, 1).
    all_pvalues : numpy.ndarray or None
        The arbiter's p-values of all pairs (:func:`all_pairs_pvalues`), from which the family's are taken (a
        two-sided p-value does not depend on the orientation); None: the family's own are computed, block by block
        (an audit that computes nothing over all pairs; the same values, elementwise).
    pairs : tuple of numpy.ndarray, optional
        The family's (first, second) when the caller has them.
    backend : Backend, optional
        Where the per-block first pass (the e-values) runs; Holm, BH and e-BH, which need the whole family, run here.
    all_log_tail : numpy.ndarray, optional
        0/1 scores: the exact tails behind ``all_pvalues`` (:func:`all_pairs_tests`), kept for the blocks; None with
        ``all_pvalues``: the blocks compute the tails themselves.

    Returns
    -------
    FamilyContext
        The family's adjusted p-values, inflations, e-values and e-BH decisions.

    Notes
    -----
    Holm tests the pair at step k at alpha / (m - k + 1), BH rejects the R smallest p-values with p_(R) <= alpha R / m,
    and e-BH rejects the R largest e-values with e_(R) >= m / (alpha R).  Each level gives the N* inflation
    ((z_{1-level/2} + z_power) / (z_{1-alpha/2} + z_power))^2 (``derivations/multiplicity.py``).

    References
    ----------
    Holm (1979) Scand. J. Statist. 6, 65-70; Benjamini and Hochberg (1995) JRSS B 57, 289-300; Wang and Ramdas (2022)
    JRSS B 84, 822-852 (e-BH).
    """
    first, second = pairs if pairs is not None else pair_indices(order, family, reference_index)
    size = first.size
    keys = triangle_position(inputs.rank, first, second)
    backend = backend or LocalBackend()
    log_tail = None
    if all_pvalues is None and inputs.binary:
        pvalues, log_tail = _by_blocks(backend, exact_tests, first, second, (inputs,), rows=2)
    elif all_pvalues is None:
        pvalues = _by_blocks(backend, arbiter_pvalues, first, second, (inputs,))
    else:
        pvalues = all_pvalues if family == "all" else all_pvalues[keys]
        if all_log_tail is not None:
            log_tail = all_log_tail if family == "all" else all_log_tail[keys]
    log_e = _by_blocks(backend, family_log_e, first, second, (inputs, alpha))
    # Bonferroni and Sidak are element-wise (computed per block); Holm and BH need the whole family's order.
    # Holm, BH and Holm's levels from one sort of the family (the same values as adjust_pvalues and holm_levels).
    holm, bh, levels = family_adjustments(pvalues, alpha)
    adjusted = {"holm": holm, "bh": bh}
    # Family positions by key (either orientation): the sorted keys and their positions, O(family), no K x K table.
    # Family "all" comes in key order 0 .. m - 1: each key is its own position (one array kept, not a sort and two).
    if size and keys[0] == 0 and keys[-1] == size - 1 and bool(np.all(keys[1:] > keys[:-1])):
        key_positions = keys
    else:
        key_positions = np.argsort(keys, kind="stable")
        keys = keys[key_positions]
    # Holm: the pair at step k (ascending p) is tested at alpha / (m - k + 1).
    holm_inflation = (
        np.asarray(inflation_at_level(levels, alpha, power), dtype=np.float64).reshape(-1) if size else np.empty(0)
    )
    rejections = int(np.sum(adjusted["bh"] <= alpha))
    bh_level = alpha * max(rejections, 1) / max(size, 1)
    bonferroni = float(required_n_inflation(max(size, 1), alpha, power))
    sidak = float(required_n_inflation(max(size, 1), alpha, power, correction="sidak"))
    bh_inflation = float(inflation_at_level(bh_level, alpha, power))
    rejected = e_bh(log_e, alpha) if size else np.zeros(0, dtype=bool)
    inflation = Inflation(
        bonferroni=bonferroni,
        sidak=sidak,
        bh=bh_inflation,
        holm="per pair, alpha / (m - k + 1) at step k if steps 1 .. k - 1 all reject; at most the Bonferroni factor",
    )
    multiplicity = Multiplicity(
        family=family,
        family_size=int(size),
        arbiter="exact McNemar" if inputs.binary else "paired t",
        inflation=inflation,
        bh_rejections=rejections,
        bh_level=float(bh_level),
        e_bh_rejections=int(rejected.sum()),
    )
    return FamilyContext(
        rank=inputs.rank,
        keys=keys,
        key_positions=key_positions,
        adjusted=adjusted,
        holm_inflation=holm_inflation,
        bonferroni=bonferroni,
        bh_inflation=bh_inflation,
        log_e=log_e,
        rejected_e_bh=rejected,
        first=first,
        second=second,
        pvalues=pvalues,
        multiplicity=multiplicity,
        log_tail=log_tail,
    )


def blocks(size: int, block: int | None = None) -> list[slice]:
    """Consecutive slices of at most ``block`` pairs covering ``range(size)``.

    Parameters
    ----------
    size : int
        The pairs.
    block : int, optional
        Pairs per slice (default ``PAIR_BLOCK``).

    Returns
    -------
    list of slice
        The slices.

    Examples
    --------
    >>> blocks(5, 2)
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    block = block or PAIR_BLOCK
    return [slice(start, min(start + block, size)) for start in range(0, size, block)]
