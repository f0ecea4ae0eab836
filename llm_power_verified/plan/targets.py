"""How many items resolve a target: one gap, or every adjacent pair among the top k of an audit.

Corrections are planned at the level that guarantees the target whatever the
other pairs do.  Bonferroni and Sidak fix it.  Holm's step-down and BH test a
pair at a level between alpha / m and alpha that depends on the other pairs'
p-values: only alpha / m guarantees the power, so both are planned at
Bonferroni's level, and the report gives the N at alpha (what Holm's last step
or BH with every pair rejected would need) beside it.

From an audit, each adjacent pair's requirement is its N* (Eq. 6 at its
observed accuracies and rho-hat, i.e. more items "of the same kind") times the
family's inflation, and with clusters times its design effect at the observed
ICC; the benchmark needs the largest.  From an accuracies-only audit, rho is
not known: the plan is given at both ends of each pair's admissible interval,
and at an assumed rho when one is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from llm_power_verified._validation import ceil_sample_size, check_count, require_choice
from llm_power_verified.contract import CORRECTIONS
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.multiplicity import (
    guaranteed_level,
    inflation_at_level,
)
from llm_power_verified.leaderboard.accuracies import AccuracyAudit
from llm_power_verified.leaderboard.audit import AuditResult
from llm_power_verified.leaderboard.pairs import adjacent_ranks
from llm_power_verified.power.sample_size import (
    paired_difference_variance,
    required_n_paired_binary,
)
from llm_power_verified.results import Result

__all__ = ["CORRECTIONS", "AuditFigures", "GapPlan", "LeaderboardPlan", "plan_gap", "plan_leaderboard", "planning_level"]



def planning_level(correction: str, family_size: int, alpha: float) -> tuple[float, str]:
    """The per-comparison level that guarantees the target under ``correction``, and why."""
    require_choice("correction", correction, CORRECTIONS)
    level = guaranteed_level(correction, family_size, alpha)
    if correction == "none" or family_size == 1:
        return level, "alpha (no correction)" if correction == "none" else "alpha (a family of one)"
    if correction in ("sidak", "bonferroni"):
        return level, "Sidak: 1 - (1 - alpha)^(1/m)" if correction == "sidak" else "Bonferroni: alpha / m"
    name = "Holm" if correction == "holm" else "BH"
    return level, (f"{name}: alpha / m, the only level that guarantees the power whatever the other pairs' p-values "
                   f"({name} may test at up to alpha)")


@dataclass(frozen=True, repr=False)
class GapPlan(Result):
    """N for one gap at a given correlation: ``required_n`` (unrounded) at the planning ``level``, ``items`` its ceiling."""

    p_a: float
    p_b: float
    rho: float
    alpha: float
    power: float
    family_size: int
    correction: str
    level: float
    level_reason: str
    variance: float
    required_n: float
    items: float
    required_n_at_alpha: float


def plan_gap(p_a: float, p_b: float, rho: float, *, alpha: float = 0.05, power: float = 0.8, family_size: int = 1,
             correction: str = "bonferroni") -> GapPlan:
    """Items that resolve the gap p_a - p_b at correlation rho, tested within a family of ``family_size`` comparisons.

    Examples
    --------
    >>> plan = plan_gap(0.65, 0.60, 0.30, family_size=9)
    >>> plan.items, round(plan.required_n / plan.required_n_at_alpha, 3)
    (1711.0, 1.665)
    """
    family_size = int(check_count("family_size", family_size, minimum=1))
    level, reason = planning_level(correction, family_size, alpha)
    required = float(required_n_paired_binary(p_a, p_b, rho, alpha=level, power=power))
    return GapPlan(p_a=float(p_a), p_b=float(p_b), rho=float(rho), alpha=alpha, power=power, family_size=family_size,
                   correction=correction, level=level, level_reason=reason, variance=float(paired_difference_variance(p_a, p_b, rho)),
                   required_n=required, items=float(ceil_sample_size(required)),
                   required_n_at_alpha=float(required_n_paired_binary(p_a, p_b, rho, alpha=alpha, power=power)))


@dataclass(frozen=True, repr=False)
class LeaderboardPlan(Result):
    """Items that resolve every adjacent pair among the top ``top`` models of an audit.

    ``pairs``: one row per adjacent pair with its requirement(s) at the
    planning level; ``required_n``: the largest (per scenario: "observed" for a
    per-item audit, plus "clustered" with clusters; "rho_min", "rho_max" and
    "assumed" for accuracies only); ``more_items``: how many items beyond
    ``n_items`` that is (0 when already enough); ``limiting``: the pair behind
    each maximum.
    """

    n_items: int
    top: int
    family_size: int
    correction: str
    level: float
    level_reason: str
    pairs: pd.DataFrame
    required_n: dict[str, float]
    more_items: dict[str, float]
    limiting: dict[str, str]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        """The fields as plain containers, the pair table as records (one object per pair, every pair)."""
        plain = super().to_dict()
        plain["pairs"] = self.pairs.to_dict(orient="records")
        return plain


def _adjacent_top(pairs: pd.DataFrame, top: int) -> pd.DataFrame:
    """The adjacent pairs among the top ``top`` models, by their ``adjacent`` column (derived by the one rule,
    :func:`~llm_power_verified.leaderboard.pairs.adjacent_ranks`, for a pair table written before it had one)."""
    marked = pairs["adjacent"] if "adjacent" in pairs else adjacent_ranks(pairs["rank_a"], pairs["rank_b"])
    adjacent = pairs[np.asarray(marked, dtype=bool)]
    return adjacent[(adjacent[["rank_a", "rank_b"]].max(axis=1) <= top)].sort_values("rank_a").reset_index(drop=True)


def _per_item(rows: pd.DataFrame, inflation: float) -> dict[str, np.ndarray]:
    columns = {"observed": rows["required_n"].to_numpy(dtype=np.float64) * inflation}
    if "design_effect" in rows and rows["design_effect"].notna().all():
        columns["clustered"] = columns["observed"] * rows["design_effect"].to_numpy(dtype=np.float64)
    return columns


def _accuracies(rows: pd.DataFrame, level: float, power: float, rho: float | None) -> dict[str, np.ndarray]:
    p_a, p_b = rows["p_a"].to_numpy(dtype=np.float64), rows["p_b"].to_numpy(dtype=np.float64)
    low, high = rows["rho_min"].to_numpy(dtype=np.float64), rows["rho_max"].to_numpy(dtype=np.float64)
    columns = {"rho_min": required_n_paired_binary(p_a, p_b, low, alpha=level, power=power),
               "rho_max": required_n_paired_binary(p_a, p_b, high, alpha=level, power=power)}
    if rho is not None:
        inside = (low <= rho) & (rho <= high)
        if not inside.all():
            bad = rows.loc[~inside].iloc[0]
            raise ArgumentError(f"rho {rho:g} is not admissible for {bad['model_a']} vs {bad['model_b']} "
                                f"([{bad['rho_min']:.4f}, {bad['rho_max']:.4f}], paper Eqs. 7-8)")
        columns["assumed"] = required_n_paired_binary(p_a, p_b, rho, alpha=level, power=power)
    return {key: np.atleast_1d(value) for key, value in columns.items()}


@dataclass(frozen=True, repr=False)
class AuditFigures(Result):
    """What a plan needs of an audit: its pair table, sizes and operating point.

    Built from an :class:`AuditResult`, an :class:`AccuracyAudit`, or a saved
    JSON report (:func:`llm_power_verified.plan.reports.read_audit_report`).
    ``accuracies``: the audit had accuracies only (no rho-hat).
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

    @classmethod
    def of(cls, audit: AuditResult | AccuracyAudit | AuditFigures) -> AuditFigures:
        if isinstance(audit, AuditFigures):
            return audit
        if isinstance(audit, AccuracyAudit):
            return cls(audit.pairs, len(audit.ranking), audit.table.n, audit.alpha, audit.power, True, source=audit.table.source)
        if isinstance(audit, AuditResult):
            clusters = audit.clusters
            return cls(audit.pairs, len(audit.ranking), audit.matrix.n_items, audit.alpha, audit.power, False,
                       None if clusters is None else clusters.mean_cluster_size, None if clusters is None else clusters.n_clusters,
                       audit.matrix.source, audit.matrix.binary)
        raise ArgumentError(f"audit must be an AuditResult, an AccuracyAudit or AuditFigures; got {type(audit).__name__}")


def plan_leaderboard(audit: AuditResult | AccuracyAudit | AuditFigures, top: int | None = None, *, correction: str = "holm",
                     rho: float | None = None) -> LeaderboardPlan:
    """Items that resolve every adjacent pair among the ``top`` models (default: all) of an audit.

    The family is those ``top - 1`` adjacent pairs; ``correction`` is planned
    at its guaranteeing level (:func:`planning_level`).  ``rho``: for an
    accuracies-only audit, an assumed correlation (labelled "assumed").
    """
    figures = AuditFigures.of(audit)
    accuracies = figures.accuracies
    if rho is not None and not accuracies:
        raise ArgumentError("rho is for accuracies-only audits; a per-item audit plans at each pair's observed rho-hat")
    models = figures.n_models
    top = models if top is None else int(check_count("top", top, minimum=2))
    if top > models:
        raise ArgumentError(f"top must be at most the number of models ({models}); got {top}")
    rows = _adjacent_top(figures.pairs, top)
    if len(rows) != top - 1:
        raise ArgumentError(f"the audit reports {len(rows)} of the {top - 1} adjacent pairs among the top {top}; audit with --mode adjacent or all")
    family_size = top - 1
    level, reason = planning_level(correction, family_size, figures.alpha)
    if accuracies:
        columns = _accuracies(rows, level, figures.power, rho)
    else:
        columns = _per_item(rows, float(inflation_at_level(level, figures.alpha, figures.power)))
    n_items = figures.n_items
    table = rows[["model_a", "model_b", "delta"]].copy()
    required, more, limiting = {}, {}, {}
    for scenario, values in columns.items():
        table[f"required_n_{scenario}"] = values
        table[f"resolved_now_{scenario}"] = n_items >= values
        worst = int(np.argmax(values))
        required[scenario] = float(ceil_sample_size(values[worst]))
        more[scenario] = max(required[scenario] - n_items, 0.0) if math.isfinite(required[scenario]) else math.inf
        limiting[scenario] = f"{table['model_a'].iloc[worst]} vs {table['model_b'].iloc[worst]}"
    notes = ["items 'of the same kind': each pair keeps its observed accuracies, rho and (clustered) ICC and cluster size"]
    if accuracies:
        notes = ["accuracies only: rho_min is the worst case (the most items), rho_max the best; 'assumed' is an assumption"]
    return LeaderboardPlan(n_items=int(n_items), top=top, family_size=family_size, correction=correction, level=level,
                           level_reason=reason, pairs=table, required_n=required, more_items=more, limiting=limiting, notes=tuple(notes))
