"""The all-pairs audit in row bands of the rank-order upper triangle: each band's counts by one product, in the band.

A band is the ranks [r0, r1) with every lower-ranked model: the pairs (i, j), r0 <= i < r1, i < j, in the order of
:func:`~llm_power_verified.leaderboard.pairs.pair_indices` (mode "all"), so the bands' rows one after the other are
the local pair table.  A band task receives the scores once (:class:`TileScores`) and forms its slice of the
both-correct counts by one matrix product, never the K x K counts; :class:`BandInputs` has what
:func:`~llm_power_verified.leaderboard.pair_table.pair_block` reads of a PairInputs.  The product is exact: in float32
every partial sum is a whole number of at most 2^24 items (blocks of ``BLOCK_ROWS`` items, as in ``contingency``).

Two passes (:mod:`~llm_power_verified.leaderboard.tiled_audit` runs them): :func:`band_value_counts` sends back the
distinct exact McNemar p-values and log e-values of a band with their counts (the family's
:mod:`~llm_power_verified.inference.family_table`); :func:`band_rows` computes the band's rows with the family's
adjusted values, writes them as one Parquet file and sends back small summaries (:class:`BandSummary`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from llm_power_verified.inference.family_table import FamilyTable, value_counts
from llm_power_verified.inference.multiplicity import inflation_at_level
from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard import blocks as blocks_module
from llm_power_verified.leaderboard.bands import Band
from llm_power_verified.leaderboard.blocks import BlockFamily, BlockSettings, arbiter_pvalues, family_log_e
from llm_power_verified.leaderboard.contingency import both_correct_between, correct_counts
from llm_power_verified.leaderboard.pair_table import pair_block
from llm_power_verified.leaderboard.summaries import VERDICT_COLUMNS as SUMMARY_VERDICTS
from llm_power_verified.leaderboard.summaries import resolution_by_gap
from llm_power_verified.leaderboard.tile_median import rho_histogram, values_in_bins
from llm_power_verified.power.correlation import correlation_from_counts
from llm_power_verified.results import Result

__all__ = [
    "BandInputs",
    "BandSummary",
    "TileFamily",
    "TileScores",
    "band_inputs",
    "band_pairs",
    "band_rows",
    "band_value_counts",
    "tile_scores",
]

#: The resolved columns whose unresolved pairs the verdict table counts (no clusters in a tiled audit).
VERDICT_COLUMNS = tuple(column for field, column in SUMMARY_VERDICTS.items() if field != "clustered")


@dataclass(frozen=True, repr=False)
class TileScores(Result):
    """What every band task receives once: the 0/1 scores by model in rank order, and the models' facts.

    Attributes
    ----------
    ranked : numpy.ndarray
        K x N float32, row r the scores of the model of rank r + 1.
    order, rank, correct : numpy.ndarray
        Model indices in rank order (int32, as the local pair grid holds them), each model's 1-based rank, and the
        items each model solves (int64).
    models : tuple of str
        The model names (column order).
    n_items : int
        N.
    """

    ranked: np.ndarray
    order: np.ndarray
    rank: np.ndarray
    correct: np.ndarray
    models: tuple[str, ...]
    n_items: int


def tile_scores(matrix: ScoreMatrix, order: np.ndarray) -> TileScores:
    """The :class:`TileScores` of a 0/1 matrix (canonical order) whose models rank in ``order``.

    Parameters
    ----------
    matrix : ScoreMatrix
        0/1 scores.
    order : numpy.ndarray
        Model indices in rank order (:func:`~llm_power_verified.leaderboard.pairs.rank_models`).

    Returns
    -------
    TileScores
        The scores to scatter.
    """
    size = order.size
    ranked = np.empty((size, matrix.n_items), dtype=np.float32)
    for start in range(0, size, 512):  # a column block at a time: no K x N float64 copy
        chunk = order[start : start + 512]
        ranked[start : start + chunk.size] = (matrix.scores[:, chunk] == 1).T
    rank = np.empty(size, dtype=np.int64)
    rank[order] = np.arange(1, size + 1)
    return TileScores(
        ranked=ranked,
        order=order.astype(np.int32) if size < 2**31 else order,
        rank=rank,
        correct=correct_counts(matrix.scores),
        models=tuple(matrix.models),
        n_items=matrix.n_items,
    )


@dataclass(frozen=True, repr=False)
class BandInputs(Result):
    """A band's pair inputs: the attributes of PairInputs that a block of binary pairs reads, counts from the band.

    Attributes
    ----------
    n_items, models, binary, rank, correct
        As :class:`~llm_power_verified.leaderboard.pair_inputs.PairInputs` has them (``binary`` always True).
    a : numpy.ndarray
        (stop_row - first_row) x (K - first_row - 1): items both solve, rows the band's ranks, columns the ranks below
        its first row.
    first_row : int
        The band's first rank position.
    """

    n_items: int
    models: tuple[str, ...]
    binary: bool
    rank: np.ndarray
    correct: np.ndarray
    a: np.ndarray
    first_row: int

    def counts(self, first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Both-correct, only-first and only-second counts of pairs of the band (first of higher rank)."""
        row = self.rank[first] - 1 - self.first_row
        column = self.rank[second] - 2 - self.first_row
        a = self.a[row, column]
        return a, self.correct[first] - a, self.correct[second] - a


def band_inputs(scores: TileScores, band: Band) -> BandInputs:
    """The band's :class:`BandInputs`: its slice of the both-correct counts by one product (exact, see the module).

    Parameters
    ----------
    scores : TileScores
        The scores every band receives.
    band : Band
        The band.

    Returns
    -------
    BandInputs
        What :func:`~llm_power_verified.leaderboard.pair_table.pair_block` reads of the band's pairs.
    """
    a = both_correct_between(scores.ranked[band.first_row : band.stop_row], scores.ranked[band.first_row + 1 :])
    return BandInputs(
        n_items=scores.n_items,
        models=scores.models,
        binary=True,
        rank=scores.rank,
        correct=scores.correct,
        a=a,
        first_row=band.first_row,
    )


def band_pairs(scores: TileScores, band: Band) -> tuple[np.ndarray, np.ndarray]:
    """The band's pairs as (first, second) model indices, in pair-table order.

    Parameters
    ----------
    scores : TileScores
        The scores every band receives.
    band : Band
        The band.

    Returns
    -------
    first, second : numpy.ndarray
        Model indices of each pair.
    """
    size = scores.order.size
    rows = np.arange(band.first_row, band.stop_row)
    lengths = size - 1 - rows
    upper_i = np.repeat(rows, lengths)
    offsets = np.arange(upper_i.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return scores.order[upper_i], scores.order[upper_i + 1 + offsets]


#: The band files' key-value metadata key: the band's place in the pair table and the columns it holds.
BAND_METADATA_KEY = b"llm-power-verified-band"


def _rho(inputs: BandInputs, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The pairs' rho-hat, computed as the pair table's ``rho`` column is (pairs.binary_pair_columns)."""
    both, only_a, only_b = inputs.counts(first, second)
    neither = inputs.n_items - both - only_a - only_b
    return np.asarray(correlation_from_counts(both, only_a, only_b, neither), dtype=np.float64).reshape(-1)


def band_value_counts(scores: TileScores, alpha: float, band: Band) -> tuple[tuple, tuple, np.ndarray]:
    """Pass 1 of a band: the distinct exact McNemar p-values and log e-values of its pairs with their counts, and rho.

    Parameters
    ----------
    scores : TileScores
        The scores (scattered once).
    alpha : float
        The level (the e-values' functions take it).
    band : Band
        The band.

    Returns
    -------
    pvalues, log_e : tuple of numpy.ndarray
        Each as :func:`~llm_power_verified.inference.family_table.value_counts` gives it.
    rho : numpy.ndarray
        The pairs' rho in fixed bins (:func:`~llm_power_verified.leaderboard.tile_median.rho_histogram`).
    """
    inputs = band_inputs(scores, band)
    first, second = band_pairs(scores, band)
    return (
        value_counts(arbiter_pvalues(inputs, first, second)),
        value_counts(family_log_e(inputs, alpha, first, second)),
        rho_histogram(_rho(inputs, first, second)),
    )


@dataclass(frozen=True, repr=False)
class TileFamily(Result):
    """The family's quantities a band's rows need, from the family's tables (sent to every worker once).

    Attributes
    ----------
    table : FamilyTable
        The p-values' table.
    holm, bh : numpy.ndarray
        The adjusted p-value of each of the table's values.
    e_bh_cut : float
        The smallest log e-value e-BH rejects.
    bonferroni, bh_inflation : float
        The Bonferroni and BH N* inflations.
    """

    table: FamilyTable
    holm: np.ndarray
    bh: np.ndarray
    e_bh_cut: float
    bonferroni: float
    bh_inflation: float


@dataclass(frozen=True, repr=False)
class BandSummary(Result):
    """What a band sends back besides its file.

    Attributes
    ----------
    adjacent : pandas.DataFrame
        Its adjacent pairs' rows (every column).
    worse, better : numpy.ndarray
        Per rank position: the models significantly worse (better) under Holm over all pairs found in the band.
    tied_low, tied_high : numpy.ndarray
        Per rank position: the highest- and lowest-ranked position not significantly different (K and -1 for none).
    unresolved : dict of str to int
        The unresolved pairs of each resolved column.
    gaps : dict of str to tuple
        Per abs(delta) bucket of :func:`~llm_power_verified.leaderboard.summaries.resolution_by_gap`: its pairs,
        unresolved pairs and largest r = 1/q.
    resolved : int
        Pairs with q >= 1.
    rho : numpy.ndarray
        The band's rho in the bins that hold the median (:mod:`~llm_power_verified.leaderboard.tile_median`).
    columns : list of str
        The pair columns its file holds.
    rows : int
        The band's pairs.
    """

    adjacent: pd.DataFrame
    worse: np.ndarray
    better: np.ndarray
    tied_low: np.ndarray
    tied_high: np.ndarray
    unresolved: dict[str, int]
    gaps: dict[str, tuple]
    resolved: int
    rho: np.ndarray
    columns: list[str]
    rows: int


def _block_family(family: TileFamily, settings: BlockSettings, pvalues, log_e, levels) -> BlockFamily:
    """A block's :class:`BlockFamily` from the family's tables: the fields FamilyContext.for_block gives."""
    at = family.table.locate(pvalues)
    inflation = inflation_at_level(levels, settings.alpha, settings.power)
    return BlockFamily(
        inside=np.ones(pvalues.size, dtype=bool),
        family_size=family.table.size,
        bonferroni=family.bonferroni,
        bh_inflation=family.bh_inflation,
        pvalues=pvalues,
        holm=family.holm[at],
        bh=family.bh[at],
        holm_inflation=np.asarray(inflation, dtype=np.float64).reshape(-1),
        log_e=log_e,
        rejected_e_bh=log_e >= family.e_bh_cut,
    )


def band_rows(
    scores: TileScores,
    family: TileFamily,
    settings: BlockSettings,
    folder: str,
    sink,
    median_bins: tuple[int, int],
    band: Band,
    values: np.ndarray,
    earlier: np.ndarray,
) -> BandSummary:
    """Pass 2 of a band: its rows, written to ``folder/band-{index:05d}.parquet`` (atomically), and its summary.

    Parameters
    ----------
    scores : TileScores
        The scores (scattered once).
    family : TileFamily
        The family's tables (scattered once).
    settings : BlockSettings
        The audit settings a block needs.
    folder : str
        The dataset's folder.
    sink : callable
        ``sink(stream)``: the band file's writer (:mod:`~llm_power_verified.leaderboard.tile_sink`).
    median_bins : tuple of int
        The rho bins whose values go back (:class:`~llm_power_verified.leaderboard.tile_median.MedianPlan`).
    band : Band
        The band.
    values, earlier : numpy.ndarray
        The band's distinct p-values and, for each, its occurrences in the bands before (Holm's tie order).

    Returns
    -------
    BandSummary
        The band's adjacent rows and reductions.
    """
    inputs = band_inputs(scores, band)
    first, second = band_pairs(scores, band)
    table = family.table
    running = np.zeros(table.values.size, dtype=np.int64)
    running[table.locate(values)] = earlier
    summary = _Reductions(scores.order.size)
    path = Path(folder) / f"band-{band.index:05d}.parquet"
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as stream:
            writer = sink(stream)
            # Blocks on the local path's PAIR_BLOCK grid: the same blocks of the same pairs as the in-memory audit.
            block = blocks_module.PAIR_BLOCK
            edges = np.r_[band.start, np.arange(block * (band.start // block + 1), band.stop, block), band.stop]
            for low, high in zip(edges[:-1] - band.start, edges[1:] - band.start, strict=True):
                block_first, block_second = first[low:high], second[low:high]
                pvalues = arbiter_pvalues(inputs, block_first, block_second)
                levels = table.holm_levels(pvalues, running, settings.alpha)
                running += np.bincount(table.locate(pvalues), minlength=running.size)
                log_e = family_log_e(inputs, settings.alpha, block_first, block_second)
                block_family = _block_family(family, settings, pvalues, log_e, levels)
                frame = pair_block(inputs, settings, block_first, block_second, block_family)
                summary.add(frame, scores.rank[block_first] - 1, scores.rank[block_second] - 1, settings.alpha)
                summary.rho.append(values_in_bins(frame["rho"].to_numpy(dtype=np.float64), *median_bins))
                writer(frame)
            summary.columns = list(writer.schema.names) if writer.schema is not None else []
            place = {"band": band.index, "first_row": band.first_row, "stop_row": band.stop_row}
            place.update(start=band.start, stop=band.stop, pairs_columns=summary.columns)
            writer.close({BAND_METADATA_KEY: json.dumps(place).encode()})
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return summary.result(first.size)


class _Reductions:
    """A band's running reductions over its blocks (see :class:`BandSummary`)."""

    def __init__(self, size: int) -> None:
        self.worse = np.zeros(size, dtype=np.int64)
        self.better = np.zeros(size, dtype=np.int64)
        self.tied_low = np.full(size, size, dtype=np.int64)
        self.tied_high = np.full(size, -1, dtype=np.int64)
        self.unresolved = dict.fromkeys(VERDICT_COLUMNS, 0)
        self.gaps: dict[str, tuple[int, int, float]] = {}
        self.resolved = 0
        self.adjacent: list[pd.DataFrame] = []
        self.rho: list[np.ndarray] = []
        self.columns: list[str] = []

    def add(self, frame: pd.DataFrame, upper: np.ndarray, lower: np.ndarray, alpha: float) -> None:
        """Fold one block's rows in; ``upper`` and ``lower`` are each pair's rank positions (upper < lower)."""
        significant = frame["p_holm"].to_numpy() <= alpha
        self.worse += np.bincount(upper[significant], minlength=self.worse.size)
        self.better += np.bincount(lower[significant], minlength=self.better.size)
        tied = ~significant
        np.minimum.at(self.tied_low, lower[tied], upper[tied])
        np.maximum.at(self.tied_high, upper[tied], lower[tied])
        for column in VERDICT_COLUMNS:
            self.unresolved[column] += int((~frame[column].astype(bool)).sum())
        self.resolved += int(frame["resolved"].sum())
        for bucket in resolution_by_gap(frame):  # per block; the medians are dropped, the counts and maxima folded
            pairs, unresolved, worst = self.gaps.get(bucket.bucket, (0, 0, -np.inf))
            self.gaps[bucket.bucket] = (
                pairs + bucket.pairs,
                unresolved + bucket.unresolved,
                max(worst, bucket.r_worst),
            )
        self.adjacent.append(frame[frame["adjacent"].to_numpy()])

    def result(self, rows: int) -> BandSummary:
        """The band's :class:`BandSummary`."""
        adjacent = pd.concat(self.adjacent, ignore_index=True)
        return BandSummary(**{**vars(self), "adjacent": adjacent, "rho": np.concatenate(self.rho), "rows": rows})
