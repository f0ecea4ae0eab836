"""The all-pairs audit of 0/1 scores past one machine: row bands on a backend, summaries to the client.

:func:`tiled_audit` audits every pair (mode and family "all") in the row bands of
:mod:`~llm_power_verified.leaderboard.tiles`, on any ``Backend`` (:mod:`llm_power_verified.parallel`) (a Dask cluster
for the scale this is for).  Nothing on the client is K x K or holds a value per pair:

1. each band forms its slice of the 2x2 counts by one product and sends back the distinct exact McNemar p-values and
   log e-values of its pairs with their counts;
2. the client combines them into the family's tables (:func:`~llm_power_verified.inference.family_table.family_table`):
   Holm's and BH's adjusted p-value of each distinct value, the e-BH cut, the BH rejections, and for each band the
   occurrences of its values in the bands before it (Holm's order of ties);
3. each band recomputes its counts, computes its rows with
   :func:`~llm_power_verified.leaderboard.pair_table.pair_block` on the same blocks as the in-memory audit, writes
   them as one Parquet file ``band-NNNNN.parquet`` of the dataset folder and sends back its adjacent rows and
   reductions: each model's significantly better and worse models under Holm over all pairs (its rank interval),
   the span of models not significantly different from it, the unresolved counts of each verdict and by gap.

The files read in name order are the in-memory audit's pair table row for row (``audit_leaderboard(matrix, "all")``,
tested bit for bit).  The result is summary-first: the ranking with each model's neighbourhood, the adjacent pairs,
the family's and the verdicts' counts; the compact letters (a K x K clique cover) are not formed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.family_table import FamilyTable, family_table
from llm_power_verified.inference.multiplicity import inflation_at_level, required_n_inflation
from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.bands import PAIRS_PER_BAND, Band, plan_bands
from llm_power_verified.leaderboard.blocks import BlockSettings
from llm_power_verified.leaderboard.headline import Headline, headline_facts
from llm_power_verified.leaderboard.pairs import rank_models
from llm_power_verified.leaderboard.ranking import RANKING_PROCEDURE, model_table
from llm_power_verified.leaderboard.settings import AuditSettings
from llm_power_verified.leaderboard.streams import canonical_order
from llm_power_verified.leaderboard.summaries import (
    GAP_BUCKETS,
    VERDICT_COLUMNS,
    GapBucket,
    Inflation,
    Multiplicity,
    Tiers,
    Verdicts,
    resolution_by_gap,
)
from llm_power_verified.leaderboard.tiers import adjacent_tiers
from llm_power_verified.leaderboard.tile_document import summary_document
from llm_power_verified.leaderboard.tile_median import RHO_BINS, MedianPlan, median_plan
from llm_power_verified.leaderboard.tile_sink import EveryColumn
from llm_power_verified.leaderboard.tiles import BandSummary, TileFamily, band_rows, band_value_counts, tile_scores
from llm_power_verified.parallel import Backend, LocalBackend
from llm_power_verified.results import Result

__all__ = ["TiledAudit", "tiled_audit"]


@dataclass(frozen=True, repr=False)
class TiledAudit(Result):
    """A tiled all-pairs audit: the summaries, and where the pair table was written.

    Attributes
    ----------
    ranking : pandas.DataFrame
        One row per model in rank order: the model table's columns with the Holm rank interval (``rank_low``,
        ``rank_high``) and the neighbourhood, ``tied_first`` and ``tied_last``: the highest and lowest rank of the
        models not significantly different from it under Holm over all pairs (its own rank when none).
    adjacent : pandas.DataFrame
        The adjacent pairs' rows (every column).
    multiplicity : Multiplicity
        The family's summary (all pairs).
    tiers : Tiers
        The adjacent tiers and the all-pairs counts (no letters).
    verdicts : Verdicts
        Unresolved pairs under each procedure.
    by_gap : tuple of GapBucket
        Unresolved pairs by abs(delta) bucket; ``r_median`` is NaN (a median over every pair is not summed).
    folder : pathlib.Path
        The partitioned Parquet dataset, one file per band.
    bands : int
        The bands (files).
    pairs_written : int
        The rows in the files.
    pairs_columns : list of str
        The pair columns every band file holds.
    headline : Headline
        The headline's facts, as the in-memory audit has them (``median_rho`` the median of every pair's rho, exact).
    n_items : int
        N.
    settings : dict
        The audit's settings (alpha, power, n_resamples, seed, correction, min_effect).
    """

    ranking: pd.DataFrame
    adjacent: pd.DataFrame
    multiplicity: Multiplicity
    tiers: Tiers
    verdicts: Verdicts
    by_gap: tuple[GapBucket, ...]
    folder: Path
    bands: int
    pairs_written: int
    pairs_columns: list[str]
    headline: Headline
    n_items: int
    settings: dict[str, float | int | str | None]

    @property
    def kind(self) -> str:
        """The audit's kind, as the in-memory audit names 0/1 scores: "binary"."""
        return "binary"

    def to_dict(self) -> dict:
        """The summary as a JSON-ready document (the members of ``_report.json`` but the worded headline).

        Returns
        -------
        dict
            :func:`~llm_power_verified.leaderboard.tile_document.summary_document`.
        """
        return summary_document(self)


def tiled_audit(
    matrix: ScoreMatrix,
    folder: str | Path,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    n_resamples: int = 0,
    seed: int = 0,
    correction: str = "holm",
    min_effect: float | None = None,
    backend: Backend | None = None,
    pairs_per_band: int = PAIRS_PER_BAND,
    sink=None,
) -> TiledAudit:
    """Audit every pair of a 0/1 leaderboard in row bands on ``backend``; the pair table goes to ``folder``.

    Parameters
    ----------
    matrix : ScoreMatrix
        0/1 scores without clusters or generations.
    folder : str or pathlib.Path
        An empty or new folder for the dataset (shared with the workers: a local cluster's, or a network path).
    alpha, power, n_resamples, seed, correction, min_effect
        As in :func:`~llm_power_verified.leaderboard.audit.audit_leaderboard` (mode and family "all").
    backend : Backend, optional
        Where the bands run (default: this process).
    pairs_per_band : int, default ``PAIRS_PER_BAND``
        About how many pairs a band (a task, a file) holds.
    sink : callable, optional
        ``sink(stream)``, the band file's writer (:mod:`~llm_power_verified.leaderboard.tile_sink`); default every
        column.  :func:`~llm_power_verified.report.tiled_run.tiled_parquet` passes the Parquet report's writer with a
        choice of columns (``columns=``).

    Returns
    -------
    TiledAudit
        The summaries and the dataset's folder.

    Raises
    ------
    ArgumentError
        Graded scores, clusters or generations (not tiled yet), a folder holding files, and every refusal of
        :func:`~llm_power_verified.leaderboard.audit.audit_leaderboard`.

    Examples
    --------
    >>> import tempfile
    >>> from llm_power_verified.io import from_array
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((400, 4)) < [0.8, 0.7, 0.6, 0.5]).astype(float)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     result = tiled_audit(from_array(scores, models=list("wxyz")), folder, pairs_per_band=2)
    >>> result.bands, result.pairs_written, result.ranking["rank_low"].tolist()
    (3, 6, [1, 2, 3, 3])
    """
    settings = AuditSettings(
        mode="all", family="all", alpha=alpha, power=power, n_resamples=n_resamples, seed=seed,
        n_cluster_resamples=0, correction=correction, min_effect=min_effect,
    ).checked(matrix)  # fmt: skip
    folder = _check(matrix, folder, pairs_per_band)
    backend = backend or LocalBackend()
    matrix = canonical_order(matrix)
    order = rank_models(matrix)
    scores = tile_scores(matrix, order)
    bands = plan_bands(order.size, pairs_per_band)
    p_parts, log_e, rho = [], (np.empty(0), np.empty(0, np.int64)), np.zeros(RHO_BINS + 1, np.int64)
    for p_counts, e_counts, histogram in backend.map(
        band_value_counts, [(band,) for band in bands], shared=(scores, alpha)
    ):
        p_parts.append(p_counts)
        rho += histogram
        merged = family_table([log_e, e_counts])  # folded as they come: the client keeps one table of e-values
        log_e = (merged.values, merged.counts)
    table, e_table = family_table(p_parts), family_table([log_e])
    family, multiplicity = _family(table, e_table, alpha, power)
    block_settings = BlockSettings(alpha, power, settings.n_resamples, seed, correction, settings.min_effect)
    plan = median_plan(rho)
    shared = (scores, family, block_settings, str(folder), sink or EveryColumn(), (plan.low, plan.high))
    summaries = backend.map(band_rows, _band_tasks(table, bands, p_parts), shared=shared)
    return _combine(matrix, order, settings, summaries, (multiplicity, plan), folder, len(bands))


def _check(matrix: ScoreMatrix, folder: str | Path, pairs_per_band: int) -> Path:
    """Refuse what the tiles do not audit yet, and a folder that is not empty; make the folder."""
    if not matrix.binary:
        raise ArgumentError("tiled_audit audits 0/1 scores; graded scores: audit_leaderboard or stream_audit")
    if matrix.clusters is not None or matrix.generations is not None:
        raise ArgumentError(
            "tiled_audit takes neither item clusters nor several generations per item; audit_leaderboard audits them"
        )
    if isinstance(pairs_per_band, bool) or not isinstance(pairs_per_band, int) or pairs_per_band < 1:
        raise ArgumentError(f"pairs_per_band must be a positive integer; got {pairs_per_band!r}")
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ArgumentError(f"folder {str(folder)!r}: a file, not a folder; give a new or empty folder for the dataset")
    if folder.exists() and any(folder.iterdir()):
        raise ArgumentError(f"folder {str(folder)!r}: the dataset's folder must be new or empty (give another path)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a parent that is a file, no permission, a read-only file system
        raise ArgumentError(f"folder {str(folder)!r}: cannot be made ({error.strerror}); give another path") from None
    return folder


def _family(table: FamilyTable, e_table: FamilyTable, alpha: float, power: float) -> tuple[TileFamily, Multiplicity]:
    """The family's :class:`TileFamily` and :class:`Multiplicity` from its tables (as blocks.family_context does)."""
    size = table.size
    holm, bh = table.adjusted("holm"), table.adjusted("bh")
    rejections = int(table.counts[bh <= alpha].sum())
    bh_level = alpha * max(rejections, 1) / max(size, 1)
    bonferroni = float(required_n_inflation(max(size, 1), alpha, power))
    bh_inflation = float(inflation_at_level(bh_level, alpha, power))
    cut = e_table.e_bh_cut(alpha) if size else float("inf")
    inflation = Inflation(
        bonferroni=bonferroni,
        sidak=float(required_n_inflation(max(size, 1), alpha, power, correction="sidak")),
        bh=bh_inflation,
        holm="per pair, alpha / (m - k + 1) at step k if steps 1 .. k - 1 all reject; at most the Bonferroni factor",
    )
    multiplicity = Multiplicity(
        family="all",
        family_size=size,
        arbiter="exact McNemar",
        inflation=inflation,
        bh_rejections=rejections,
        bh_level=float(bh_level),
        e_bh_rejections=int(e_table.counts[e_table.values >= cut].sum()),
    )
    return TileFamily(table, holm, bh, cut, bonferroni, bh_inflation), multiplicity


def _band_tasks(table: FamilyTable, bands: list[Band], p_parts: list):
    """Each band's task: the band, its distinct p-values and their occurrences in the bands before (lazily)."""
    running = np.zeros(table.values.size, dtype=np.int64)
    for band, (values, counts) in zip(bands, p_parts, strict=True):
        at = table.locate(values)
        yield band, values, running[at].copy()
        running[at] += counts


def _combine(matrix, order, settings: AuditSettings, summaries, family, folder: Path, bands: int) -> TiledAudit:
    """Fold the bands' summaries, in band order, into the :class:`TiledAudit`."""
    multiplicity, plan = family
    plan: MedianPlan
    size = order.size
    rho, columns = [], []
    worse, better = np.zeros(size, np.int64), np.zeros(size, np.int64)
    tied_low, tied_high = np.arange(size), np.arange(size)
    unresolved: dict[str, int] = {}
    gaps: dict[str, tuple[int, int, float]] = {}
    adjacent, resolved, rows = [], 0, 0
    for summary in summaries:
        summary: BandSummary
        worse += summary.worse
        better += summary.better
        tied_low = np.minimum(tied_low, summary.tied_low)
        tied_high = np.maximum(tied_high, summary.tied_high)
        for column, count in summary.unresolved.items():
            unresolved[column] = unresolved.get(column, 0) + count
        for label, (pairs, unresolved_pairs, worst) in summary.gaps.items():
            before = gaps.get(label, (0, 0, -np.inf))
            gaps[label] = (before[0] + pairs, before[1] + unresolved_pairs, max(before[2], worst))
        adjacent.append(summary.adjacent)
        rho.append(summary.rho)
        columns = columns or summary.columns
        resolved += summary.resolved
        rows += summary.rows
    ranking, _ = model_table(matrix, order, settings.alpha, None)
    ranking["rank_low"] = 1 + better
    ranking["rank_high"] = size - worse
    ranking["tied_first"] = tied_low + 1
    ranking["tied_last"] = tied_high + 1
    adjacent_rows = pd.concat(adjacent, ignore_index=True)
    tiers = Tiers(
        adjacent=adjacent_tiers(ranking["model"].tolist(), adjacent_rows, "all"),
        letters={},
        procedure=RANKING_PROCEDURE,
        significant_pairs=int(worse.sum()),
        resolved_pairs=resolved,
        total_pairs=size * (size - 1) // 2,
    )
    if tiers.adjacent is not None:
        ranking["tier"] = [tiers.adjacent[model] for model in ranking["model"]]
    # No clusters in a tiled audit: its count is None, as verdict_table gives without clusters.
    verdicts = Verdicts(**{field: unresolved.get(column) for field, column in VERDICT_COLUMNS.items()}, pairs=rows)
    facts = headline_facts(
        matrix,
        alpha=settings.alpha,
        power=settings.power,
        family="all",
        family_size=multiplicity.family_size,
        correction=settings.correction,
        n_clusters=None,
        reported=pd.DataFrame({"rho": [plan.median(rho)]}),  # the median of every pair's rho, the headline's one use
        adjacent=adjacent_rows,
        tiers=tiers,
        min_effect=settings.min_effect,
    )
    return TiledAudit(
        ranking=ranking,
        adjacent=adjacent_rows,
        multiplicity=multiplicity,
        tiers=tiers,
        verdicts=verdicts,
        by_gap=_by_gap(gaps),
        folder=folder,
        bands=bands,
        pairs_written=rows,
        pairs_columns=columns,
        headline=facts,
        n_items=matrix.n_items,
        settings={name: getattr(settings, name) for name in _SETTINGS},
    )


#: The settings a tiled audit records.
_SETTINGS = ("alpha", "power", "n_resamples", "seed", "correction", "min_effect")


def _by_gap(gaps: dict) -> tuple[GapBucket, ...]:
    """The non-empty gap buckets in resolution_by_gap's order, without the medians (NaN)."""
    labels = [bucket.bucket for bucket in resolution_by_gap(_EVERY_BUCKET)]
    return tuple(GapBucket(label, *gaps[label][:2], float("nan"), gaps[label][2]) for label in labels if label in gaps)


#: One pair in every abs(delta) bucket, so that resolution_by_gap names them all, in its order.
_EVERY_BUCKET = pd.DataFrame(
    {"delta": [0.0, *(low * 1.5 + 1e-9 for low, _ in GAP_BUCKETS[1:])], "q": 1.0, "resolved": True}
)
