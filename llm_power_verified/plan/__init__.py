"""Planning a benchmark: how many items (and clusters) resolve a target, before or after an audit.

* :func:`~llm_power_verified.plan.targets.plan_gap`: N for one gap at a given correlation under a declared family
  and correction;
* :func:`~llm_power_verified.plan.targets.plan_leaderboard`: N (and how many more items) to resolve every adjacent
  pair among the top k of an audit, per-item (:class:`~llm_power_verified.leaderboard.audit.AuditResult`), accuracies
  only
  (:class:`~llm_power_verified.leaderboard.accuracies.AccuracyAudit`) or a saved JSON report
  (:func:`~llm_power_verified.plan.reports.read_audit_report`);
* :func:`~llm_power_verified.plan.clusters.cluster_tradeoff`: more items per cluster against more clusters at an ICC
  (design effect);
* the monitored-test stopping time is :func:`llm_power_verified.sequential.stopping.stopping_time`.
"""

from llm_power_verified.plan.clusters import cluster_tradeoff
from llm_power_verified.plan.figures import AuditFigures
from llm_power_verified.plan.reports import read_audit_report
from llm_power_verified.plan.targets import GapPlan, LeaderboardPlan, plan_gap, plan_leaderboard

__all__ = [
    "AuditFigures",
    "GapPlan",
    "LeaderboardPlan",
    "cluster_tradeoff",
    "plan_gap",
    "plan_leaderboard",
    "read_audit_report",
]
