"""The leaderboard audit: exact 2x2 counts of all pairs, per-pair diagnostics, clusters, ranking and tiers."""

from llm_power_verified.leaderboard.audit import (
    FAMILIES,
    MODES,
    AuditResult,
    AuditSettings,
    StreamedAudit,
    audit_leaderboard,
    pair_indices,
    rank_models,
    stream_audit,
)
from llm_power_verified.leaderboard.clusters import cluster_diagnostics, unresolved_under_clusters
from llm_power_verified.leaderboard.contingency import BLOCK_ROWS, both_correct_counts, correct_counts
from llm_power_verified.leaderboard.headline import Headline
from llm_power_verified.leaderboard.protocol import Audit
from llm_power_verified.leaderboard.tiers import adjacent_tiers

__all__ = [
    "BLOCK_ROWS",
    "FAMILIES",
    "MODES",
    "Audit",
    "AuditResult",
    "AuditSettings",
    "Headline",
    "StreamedAudit",
    "adjacent_tiers",
    "audit_leaderboard",
    "both_correct_counts",
    "cluster_diagnostics",
    "correct_counts",
    "pair_indices",
    "rank_models",
    "stream_audit",
    "unresolved_under_clusters",
]
