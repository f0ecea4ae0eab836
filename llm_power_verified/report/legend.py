"""The per-item report's legend: a view over :mod:`llm_power_verified.contract` (the meanings are declared there).

The report prints the definitions of the columns it shows, once, after the
tables; the JSON report carries the whole legend, in the order below.
"""

from __future__ import annotations

from llm_power_verified.contract import VERDICT_RULES, legend

__all__ = ["MODEL_COLUMNS", "PAIR_COLUMNS", "VERDICT_RULES", "pair_legend"]

MODEL_COLUMNS = legend(("rank", "key", "mean_score", "ci_low", "ci_high", "rank_low", "rank_high", "letters", "rank_boot_low",
                                 "rank_boot_high", "tier"))

#: The JSON report's legend order (the report's goldens hold it; it becomes contract.ordered in one step with them).
PAIR_COLUMNS = legend((
    "model_a", "model_b", "rank_a", "rank_b", "adjacent", "delta", "p_a", "p_b", "a", "b", "c", "d", "rho", "p_chi2", "p_exact", "log_p_exact",
    "p_midp", "t", "p_t", "log_p_t", "variance_a", "variance_b", "boot_ci_low", "boot_ci_high", "p_bootstrap", "variance", "required_n",
    "required_n_connor", "n", "required_n_p05", "required_n_p95", "mde", "q", "required_n_rho_minus", "required_n_rho_plus",
    "resolved_rho_minus", "resolved_rho_plus", "shortcut_n", "shortcut_ratio", "unpaired_n", "efficiency_gain", "p_bonferroni",
    "p_sidak", "p_holm", "p_bh", "p_adjusted", "required_n_bonferroni", "required_n_holm", "resolved_bonferroni", "resolved_holm",
    "resolved_bh", "log_e", "p_anytime_at_n", "required_n_anytime", "q_anytime", "anytime_inflation", "rejected_e_bh", "rejected_bh",
    "icc", "design_effect", "required_n_cluster", "p_cluster", "icc_p05", "icc_p95", "design_effect_p05", "design_effect_p95",
    "required_n_cluster_p05", "required_n_cluster_p95", "probability_unresolved_cluster", *VERDICT_RULES))

def pair_legend(columns) -> dict[str, str]:
    """The legend of the pair columns present in ``columns``, in the JSON report's order."""
    present = set(columns)
    return {key: meaning for key, meaning in PAIR_COLUMNS.items() if key in present}
