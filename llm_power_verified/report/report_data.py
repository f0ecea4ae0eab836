"""The report as data: the JSON report of any audit without its pairs.

It is made by :func:`~llm_power_verified.report.report_data.document`.

Every machine format writes this document (:mod:`.machine`: JSON around the
pairs, Parquet in the file's metadata); the text formats show the same
headline.  The keys, in order: ``schema``, ``source``, ``headline``,
``legend``, ``notes``, ``settings``, ``data``, ``pairs_written`` (a streamed
audit), ``ranking``, the audit's ``sections()`` and, for a per-item audit
whose pairs are in memory, ``checklist`` (:func:`~.sections.checklist`).
"""

from __future__ import annotations

from llm_power_verified.contract import SCHEMA_IDS, VERDICT_RULES, legend, pair_columns
from llm_power_verified.contract.generation_columns import GENERATION_MODEL_COLUMNS
from llm_power_verified.io.output import json_ready
from llm_power_verified.report.headline import headline
from llm_power_verified.report.sections import checklist

__all__ = ["SCHEMA", "document", "report_legend"]

SCHEMA = SCHEMA_IDS["binary+graded"]

#: The per-item model legend's entries, in the JSON report's order.
_MODEL_LEGEND = (
    "rank",
    "key",
    "mean_score",
    "ci_low",
    "ci_high",
    "rank_low",
    "rank_high",
    "letters",
    "rank_boot_low",
    "rank_boot_high",
    "tier",
)
#: The per-item pair legend's order (the JSON report's: the goldens hold it), then the verdicts.
_PAIR_LEGEND = (
    "model_a",
    "model_b",
    "rank_a",
    "rank_b",
    "adjacent",
    "delta",
    "p_a",
    "p_b",
    "a",
    "b",
    "c",
    "d",
    "rho",
    "p_chi2",
    "p_exact",
    "log_p_exact",
    "p_midp",
    "t",
    "p_t",
    "log_p_t",
    "variance_a",
    "variance_b",
    "boot_ci_low",
    "boot_ci_high",
    "p_bootstrap",
    "variance",
    "required_n",
    "required_n_connor",
    "n",
    "required_n_p05",
    "required_n_p95",
    "mde",
    "q",
    "required_n_rho_minus",
    "required_n_rho_plus",
    "resolved_rho_minus",
    "resolved_rho_plus",
    "shortcut_n",
    "shortcut_ratio",
    "unpaired_n",
    "efficiency_gain",
    "p_bonferroni",
    "p_sidak",
    "p_holm",
    "p_bh",
    "p_adjusted",
    "required_n_bonferroni",
    "required_n_holm",
    "resolved_bonferroni",
    "resolved_holm",
    "resolved_bh",
    "log_e",
    "p_anytime_at_n",
    "required_n_anytime",
    "q_anytime",
    "anytime_inflation",
    "rejected_e_bh",
    "rejected_bh",
    "icc",
    "design_effect",
    "required_n_cluster",
    "p_cluster",
    "icc_p05",
    "icc_p95",
    "design_effect_p05",
    "design_effect_p95",
    "required_n_cluster_p05",
    "required_n_cluster_p95",
    "probability_unresolved_cluster",
)
#: Then every other per-item pair column the contract declares (added since the goldens fixed the order above: the
#: Wald z, the --min-effect columns), in the contract's order, then the verdicts.
_PAIR_LEGEND = (
    *_PAIR_LEGEND,
    *dict.fromkeys(
        column.name
        for kind in ("binary", "graded")
        for column in pair_columns(kind)
        if column.name not in _PAIR_LEGEND and column.name not in VERDICT_RULES
    ),
    *VERDICT_RULES,
)
#: The accuracies-only gap: the printed accuracies' difference.
ACCURACY_DELTA = "p_a - p_b, the printed gap (model_a is ranked above model_b)"


def report_legend(audit) -> dict:
    """The legend of an audit's pair columns, by the contract's meanings.

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.

    Returns
    -------
    dict
        Per item: the verdict rules, the model columns and the pair columns present; accuracies only: its pair columns
        present.
    """
    present, ranked = set(audit.pairs.columns), set(audit.ranking.columns)
    if audit.kind == "accuracies":
        own = ["delta"] + [item.name for item in pair_columns("accuracies") if item.audits == {"accuracies"}]
        return {
            name: ACCURACY_DELTA if name == "delta" else meaning
            for name, meaning in legend(own).items()
            if name in present
        }
    return {
        "verdicts": VERDICT_RULES,
        "models": legend((*_MODEL_LEGEND, *(item.name for item in GENERATION_MODEL_COLUMNS if item.name in ranked))),
        "pairs": legend(name for name in _PAIR_LEGEND if name in present),
    }


def document(audit) -> dict:
    """The JSON report of an audit without its ``pairs``, JSON-ready (see the module notes).

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.

    Returns
    -------
    dict
        ``schema``, ``settings``, ``data``, the headline, the model table, the summaries, the legend and the notes, as
        the JSON schema of the audit's kind declares them.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.leaderboard.audit import audit_leaderboard
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float)
    >>> audit = audit_leaderboard(from_array(scores, models=["x", "y", "z"]), n_resamples=0)
    >>> report = document(audit)
    >>> report["schema"], report["settings"]["family"]
    ('llm-power-verified/audit/2', 'adjacent')
    """
    accuracies = audit.kind == "accuracies"
    parts = {
        "schema": SCHEMA_IDS["accuracies" if accuracies else "binary+graded"],
        "source": audit.source,
        "headline": headline(audit),
        "legend": report_legend(audit),
        "notes": list(audit.notes),
        "settings": audit.settings(),
        "data": audit.data(),
    }
    if hasattr(audit, "pairs_written"):
        parts["pairs_written"] = audit.pairs_written
    parts["ranking"] = audit.ranking.to_dict(orient="records")
    parts.update(audit.sections())
    if not accuracies and not hasattr(audit, "pairs_written"):
        parts["checklist"] = checklist(audit)
    return json_ready(parts)
