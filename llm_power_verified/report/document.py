"""The report as data: the JSON document of an audit (without its pairs), a streamed audit's document and summary, the checklist.

Every machine format writes these (:mod:`.machine`); the text formats show
the same headline and checklist (:mod:`.render`).
"""

from __future__ import annotations

from llm_power_verified.contract import SCHEMA_IDS
from llm_power_verified.io.output import json_ready
from llm_power_verified.leaderboard.audit import AuditResult, StreamedAudit
from llm_power_verified.report.legend import MODEL_COLUMNS, VERDICT_RULES, pair_legend
from llm_power_verified.report.headline import headline

__all__ = ["SCHEMA", "checklist", "report_document", "streamed_document", "streamed_summary"]

SCHEMA = SCHEMA_IDS["binary+graded"]


def report_document(result: AuditResult) -> dict:
    """The JSON report without its ``pairs`` (JSON-ready): headline and legend first, then every other table."""
    return json_ready({
        "schema": SCHEMA,
        "source": result.matrix.source,
        "headline": headline(result),
        "legend": {"verdicts": VERDICT_RULES, "models": MODEL_COLUMNS,
                   "pairs": pair_legend(result.pairs.columns)},
        "notes": list(result.notes),
        **_settings_and_data(result),
        "ranking": result.ranking.to_dict(orient="records"),
        "multiplicity": result.multiplicity,
        "clusters": result.clusters,
        "verdicts": result.verdicts,
        "resolution_by_gap": result.by_gap,
        "tiers": result.tiers,
        "checklist": checklist(result),
    })


def _settings_and_data(result) -> dict:
    return {"settings": {"mode": result.mode, "family": result.family, "family_size": result.family_size, "alpha": result.alpha,
                         "power": result.power, "seed": result.seed, "n_resamples": result.n_resamples, "correction": result.correction},
            "data": {"n_items": result.matrix.n_items, "n_models": result.matrix.n_models, "binary": result.matrix.binary,
                     "clustered": result.matrix.clusters is not None}}


def streamed_document(result: StreamedAudit) -> dict:
    """A streamed audit's report without its pairs (JSON-ready): what a Parquet audit keeps in its metadata."""
    return json_ready({
        "schema": SCHEMA,
        "source": result.matrix.source,
        "summary": streamed_summary(result),
        "notes": list(result.notes),
        **_settings_and_data(result),
        "pairs_written": result.pairs_written,
        "ranking": result.ranking.to_dict(orient="records"),
        "multiplicity": result.multiplicity,
        "verdicts": result.verdicts,
        "resolution_by_gap": result.by_gap,
        "tiers": result.tiers,
    })


def streamed_summary(result: StreamedAudit) -> list[str]:
    """The headline of a streamed audit, from the summaries it kept (plain text lines)."""
    matrix, verdicts, tiers = result.matrix, result.verdicts, result.tiers
    lines = [f"{matrix.n_items:,} items x {matrix.n_models} models, {'0/1' if matrix.binary else 'graded'} scores; alpha {result.alpha:g}, "
             f"power {result.power:g}; family '{result.family}' (m = {result.family_size:,}), correction {result.correction}.",
             f"{result.pairs_written:,} pairs ({result.mode}): {verdicts.fixed_n:,} unresolved at fixed n, {verdicts.holm:,} under Holm, "
             f"{verdicts.benjamini_hochberg:,} under BH" + (f", {verdicts.anytime_valid:,} anytime-valid" if verdicts.anytime_valid is not None else "") + "."]
    adjacent = result.adjacent
    if len(adjacent):
        significant = int((adjacent["significant"] == True).sum())  # noqa: E712 - object columns hold None
        lines.append(f"Adjacent gaps: significant {significant}/{int(adjacent['significant'].notna().sum())}, "
                     f"resolved (q >= 1) {int(adjacent['resolved'].sum())}/{len(adjacent)}.")
    lines.append(f"All {tiers.total_pairs:,} pairs: significant {tiers.significant_pairs:,} ({tiers.procedure}), resolved {tiers.resolved_pairs:,}.")
    return lines


def checklist(result: AuditResult) -> list[dict]:
    """The paper's Appendix I checklist, filled in for this audit."""
    pairs = result.pairs
    binary = result.matrix.binary
    arbiters = "McNemar chi-square, exact, mid-p; paired bootstrap" if binary else "paired t; paired bootstrap"
    has_interval = "required_n_p05" in pairs
    return [
        {"quantity": "delta-hat", "value": f"{len(pairs)} gaps, |delta| from {pairs['delta'].abs().min():.4g} to {pairs['delta'].abs().max():.4g}", "why": "headline effect"},
        {"quantity": "paired test", "value": arbiters, "why": "matches the metric"},
        {"quantity": "N", "value": f"{result.matrix.n_items} paired items", "why": "budget"},
        {"quantity": "delta_MDE", "value": f"median {pairs['mde'].median():.4g} (Eq. 4)", "why": "current-N resolution"},
        {"quantity": "q = N/N*", "value": f"{int(pairs['resolved'].sum())} of {len(pairs)} pairs have q >= 1", "why": "gap supported when q >= 1"},
        {"quantity": "N* CI", "value": (f"B = {result.n_resamples} bootstrap; {int((pairs['required_n_p05'] > result.matrix.n_items).sum())} pairs robustly unresolved (5th percentile > N)" if has_interval else "not computed (n_resamples = 0)"), "why": "does the N* interval straddle N"},
        {"quantity": "multiplicity", "value": f"family '{result.family}' of {result.family_size}; Bonferroni x{result.multiplicity.inflation.bonferroni:.3g}; BH {result.multiplicity.bh_rejections} rejections", "why": "family-level claims"},
        {"quantity": "per-item raw matrix", "value": f"{result.matrix.n_items} x {result.matrix.n_models} scores from {result.matrix.source}", "why": "third-party check"},
    ]
