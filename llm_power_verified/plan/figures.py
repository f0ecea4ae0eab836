"""What a plan needs of an audit, whichever it came from: the record ``AuditFigures``.

A per-item audit, an accuracies-only audit and a saved JSON report
(:func:`llm_power_verified.plan.reports.read_audit_report`) all give the same
figures: the pair table, the sizes, the operating point, the correction and the
clusters.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from llm_power_verified.contract import CORRECTIONS
from llm_power_verified.errors import ArgumentError
from llm_power_verified.leaderboard.accuracies import AccuracyAudit
from llm_power_verified.leaderboard.audit import AuditResult
from llm_power_verified.results import Result

__all__ = ["AuditFigures", "generations_note"]


@dataclass(frozen=True, repr=False)
class AuditFigures(Result):
    """What a plan needs of an audit: its pair table, sizes and operating point.

    Built from an :class:`~llm_power_verified.leaderboard.audit.AuditResult`, an
    :class:`~llm_power_verified.leaderboard.accuracies.AccuracyAudit` (``AuditFigures.of``), or a saved
    JSON report (:func:`llm_power_verified.plan.reports.read_audit_report`).

    Attributes
    ----------
    pairs : pandas.DataFrame
        The audit's pair table (ranks, gaps, and the requirements or accuracies and admissible interval).
    n_models, n_items : int
        The audit's sizes.
    alpha, power : float
        The audit's operating point.
    accuracies : bool
        True when the audit had accuracies only (no rho-hat).
    mean_cluster_size : float or None
        The mean cluster size N / G, when the audit had clusters.
    n_clusters : int or None
        The number of clusters, when the audit had clusters.
    source : str
        Where the scores came from.
    binary : bool
        True for 0/1 scores, False for graded ones.
    correction : str
        The correction the audit was run (or its report written) with: what a plan uses unless told otherwise.
    weighted_cluster_size : float or None
        The size-weighted cluster size sum m_g^2 / N, the m of the audit's design effects, when it had clusters.
    counts : pandas.DataFrame or None
        Accuracies only: the ranking with each model's allowed correct-item counts (``accuracy``, ``count_low``,
        ``count_high``, ``consistent``), so the plan's worst case covers every count the printed digits allow; None
        for a per-item audit and a saved JSON report (whose plan does not read them: it is at the printed values).
    min_effect : float or None
        The audit's own ``--min-effect`` (a saved report's ``settings.min_effect``), when it had one.
    generations : tuple of (str, int, int) or None
        With several generations per item (each item's score the mean of its generations): what one is called
        ("epoch", ...) and the fewest and the most of a cell; every N planned holds at that many per item.
    """

    pairs: pd.DataFrame
    n_models: int
    n_items: int
    alpha: float
    power: float
    accuracies: bool
    mean_cluster_size: float | None = None
    n_clusters: int | None = None
    source: str = ""
    binary: bool = True
    correction: str = CORRECTIONS[0]
    weighted_cluster_size: float | None = None
    counts: pd.DataFrame | None = None
    min_effect: float | None = None
    generations: tuple[str, int, int] | None = None

    @classmethod
    def of(cls, audit: AuditResult | AccuracyAudit | AuditFigures) -> AuditFigures:
        """The figures of a per-item or accuracies-only audit (AuditFigures are returned as they are).

        Parameters
        ----------
        audit : AuditResult, AccuracyAudit or AuditFigures
            The audit.

        Returns
        -------
        AuditFigures
            Its pair table, sizes, operating point and clusters.
        """
        if isinstance(audit, AuditFigures):
            return audit
        if isinstance(audit, AccuracyAudit):
            return cls(
                audit.pairs,
                len(audit.ranking),
                audit.table.n,
                audit.alpha,
                audit.power,
                True,
                source=audit.table.source,
                correction=audit.correction,
                counts=audit.ranking[["accuracy", "count_low", "count_high", "consistent"]],
            )
        if isinstance(audit, AuditResult):
            clusters, generations = audit.clusters, audit.matrix.generations
            return cls(
                audit.pairs,
                len(audit.ranking),
                audit.matrix.n_items,
                audit.alpha,
                audit.power,
                False,
                None if clusters is None else clusters.mean_cluster_size,
                None if clusters is None else clusters.n_clusters,
                audit.matrix.source,
                audit.matrix.binary,
                audit.correction,
                None if clusters is None else clusters.weighted_cluster_size,
                generations=None if generations is None else (generations.label, *generations.count_range),
            )
        raise ArgumentError(
            f"audit must be an AuditResult, an AccuracyAudit or AuditFigures; got {type(audit).__name__}"
        )


def generations_per_item(generations: tuple[str, int, int]) -> str:
    """The generations per item in words: "5 epochs per item", or "3 to 5 epochs per item" when the cells differ."""
    label, fewest, most = generations
    return f"{fewest if fewest == most else f'{fewest} to {most}'} {label}s per item"


def generations_note(generations: tuple[str, int, int]) -> str:
    """The plan's note on an audit whose items are means of several generations: where its N holds, what trades.

    Parameters
    ----------
    generations : tuple of (str, int, int)
        What one generation is called and the fewest and the most of a cell (``AuditFigures.generations``).

    Returns
    -------
    str
        The note: every N holds at the data's generations per item; ``plan repeats`` trades items against them.

    Examples
    --------
    >>> generations_note(("epoch", 5, 5))[:60]
    'every N here holds at 5 epochs per item (each item scored by'
    """
    label = generations[0]
    return (
        f"every N here holds at {generations_per_item(generations)} (each item scored by the mean of its {label}s, "
        f"as in the data): more or fewer {label}s per item change each item's variance and so the N; "
        f"llm-power-verified plan repeats, on the per-item input read with its {label}s, trades items against "
        f"{label}s per item"
    )
