"""The per-item audit's results, in memory and streamed.

:class:`~llm_power_verified.leaderboard.audit_results.AuditResult` holds the audit in memory and
:class:`~llm_power_verified.leaderboard.audit_results.StreamedAudit` streams its pair table.

Both are frozen results that implement the audit protocol
(:class:`~llm_power_verified.leaderboard.protocol.Audit`, through
:class:`~llm_power_verified.leaderboard.protocol.PerItemAudit`), so that every renderer reads either.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.headline import Headline
from llm_power_verified.leaderboard.protocol import PerItemAudit as _PerItemAudit
from llm_power_verified.leaderboard.summaries import ClusterSummary, GapBucket, Multiplicity, Tiers, Verdicts
from llm_power_verified.results import Result

__all__ = ["AuditResult", "StreamedAudit"]


class PerItemAudit(_PerItemAudit):
    """The protocol's per-item members, and the ``generations`` summary among the sections when the items have them."""

    def sections(self) -> dict[str, object]:
        """The typed summaries by report key; ``generations`` last, with several generations per item only."""
        sections = super().sections()
        if self.headline.generations is not None:
            sections["generations"] = self.headline.generations
        return sections


@dataclass(frozen=True, repr=False)
class AuditResult(PerItemAudit, Result):
    """Everything a per-item audit computed, in memory (an :class:`~llm_power_verified.leaderboard.protocol.Audit`).

    :func:`llm_power_verified.report.dispatch.render` renders it; ``repr`` is a one-line summary.

    Attributes
    ----------
    matrix : ScoreMatrix
        The scores audited (canonical order: items by id, models by name).
    ranking : pandas.DataFrame
        One row per model in rank order (the contract's model columns).
    pairs : pandas.DataFrame
        One row per reported pair (the contract's pair columns).
    mode : {"adjacent", "all", "reference"}
        Which pairs are reported.
    family : {"adjacent", "all", "reference"}
        The declared multiplicity family.
    family_size : int
        m, the number of comparisons in it.
    alpha, power : float
        Level and target power of every N*, MDE and verdict.
    seed : int
        Seed of every resample.
    n_resamples : int
        Paired-bootstrap resamples (0: none).
    correction : {"holm", "bonferroni", "sidak", "bh", "none"}
        The family's correction behind ``significant``.
    multiplicity : Multiplicity
        The family and what it does to the verdicts.
    tiers : Tiers
        Letters from all pairs and the adjacent-break tiers.
    verdicts : Verdicts
        Unresolved-pair counts under each procedure.
    by_gap : tuple of GapBucket
        Unresolved pairs and r = N*/N by gap bucket.
    clusters : ClusterSummary or None
        The cluster diagnostics across pairs (None without clusters).
    headline : Headline
        The headline's facts.
    notes : tuple of str
        What the reader must know (input notes, graded-score caveats).

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.leaderboard.audit import audit_leaderboard
    >>> matrix = from_array(np.array([[1, 0], [1, 1], [0, 0], [1, 0]] * 50), models=["a", "b"])
    >>> result = audit_leaderboard(matrix, n_resamples=0)
    >>> result  # doctest: +ELLIPSIS
    AuditResult(matrix=ScoreMatrix(200 items x 2 models, ...), ranking=<DataFrame 2 x 9>, ...)
    >>> result.verdicts.fixed_n, result.multiplicity.family_size
    (0, 1)
    """

    matrix: ScoreMatrix
    ranking: pd.DataFrame
    pairs: pd.DataFrame
    mode: str
    family: str
    family_size: int
    alpha: float
    power: float
    seed: int
    n_resamples: int
    correction: str
    multiplicity: Multiplicity
    clusters: ClusterSummary | None
    tiers: Tiers
    verdicts: Verdicts
    by_gap: tuple[GapBucket, ...]
    headline: Headline
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, repr=False)
class StreamedAudit(PerItemAudit, Result):
    """A streamed audit: every summary of :class:`AuditResult`, the pair table itself having gone to the sink.

    Attributes
    ----------
    matrix : ScoreMatrix
        The scores audited (canonical order).
    ranking : pandas.DataFrame
        One row per model in rank order.
    adjacent : pandas.DataFrame
        The adjacent pairs' rows (every column); the protocol's ``pairs`` property returns them.
    pairs_written : int
        Rows handed to the sink, in pair-table order.
    mode : {"adjacent", "all", "reference"}
        Which pairs are reported.
    family : {"adjacent", "all", "reference"}
        The declared multiplicity family.
    family_size : int
        m, the number of comparisons in it.
    alpha, power : float
        Level and target power of every N*, MDE and verdict.
    seed : int
        Seed of every resample.
    n_resamples : int
        Paired-bootstrap resamples (0: none).
    correction : {"holm", "bonferroni", "sidak", "bh", "none"}
        The family's correction behind ``significant``.
    multiplicity : Multiplicity
        The family and what it does to the verdicts.
    tiers : Tiers
        Letters from all pairs and the adjacent-break tiers.
    verdicts : Verdicts
        Unresolved-pair counts under each procedure.
    by_gap : tuple of GapBucket
        Unresolved pairs and r = N*/N by gap bucket.
    headline : Headline
        The headline's facts.
    notes : tuple of str
        What the reader must know (input notes, graded-score caveats).
    """

    matrix: ScoreMatrix
    ranking: pd.DataFrame
    adjacent: pd.DataFrame
    pairs_written: int
    mode: str
    family: str
    family_size: int
    alpha: float
    power: float
    seed: int
    n_resamples: int
    correction: str
    multiplicity: Multiplicity
    tiers: Tiers
    verdicts: Verdicts
    by_gap: tuple[GapBucket, ...]
    headline: Headline
    notes: tuple[str, ...] = ()

    @property
    def pairs(self) -> pd.DataFrame:
        """The pair rows kept in memory: the adjacent pairs (the rest went to the sink)."""
        return self.adjacent
