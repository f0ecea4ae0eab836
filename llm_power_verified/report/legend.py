"""Every column and every verdict rule of the report, defined in one line each.

The report prints the definitions of the columns it shows, once, after the
tables; the JSON report carries the whole legend.  Paper references are to
Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315).
"""

from __future__ import annotations

__all__ = ["MODEL_COLUMNS", "PAIR_COLUMNS", "VERDICT_RULES"]

#: The verdicts, each a separate column; printed first in the legend.
VERDICT_RULES = {
    "significant": "the arbiter (exact McNemar for 0/1 scores, paired t for graded) after the declared family's correction: "
                   "p_adjusted <= alpha (a significance test of the observed gap)",
    "resolved": "q = N / N* >= 1 (paper Definition 1): N is large enough to detect a gap of the observed size with the target "
                "power (a power statement, not a test; a pair can be significant and unresolved)",
    "significant_clustered": "the arbiter's z divided by sqrt(design effect) of the item clusters (paper Section 6.4), "
                             "Bonferroni over the declared family",
    "significant_anytime": "e-BH over the declared family on the e-values at N (0/1 scores: the grid mixture of paper Appendix C; "
                           "graded: the hedged betting e-process over the items in id order): valid however often the table was looked at",
    "resolved_cluster": "N >= N* x design effect (paper Section 6.4)",
    "resolved_anytime": "N >= N_av, the anytime-valid required N (boundary definition)",
}

MODEL_COLUMNS = {
    "rank": "position by mean score; equal means are ordered by name",
    "key": "short name used in the pair table when the names are long",
    "mean_score": "accuracy (mean score) over the N items",
    "ci_low": "interval of the mean score at 1 - alpha (Wilson for 0/1 scores, Student t for graded), low end",
    "ci_high": "high end",
    "rank_low": "best rank consistent with the data: 1 + models significantly better (Holm over all pairs)",
    "rank_high": "worst rank: K - models significantly worse (Holm over all pairs)",
    "letters": "models sharing a letter are not significantly different (Holm over all pairs)",
    "rank_boot_low": "bootstrap rank interval (items resampled), alpha/2 quantile of the rank; no family-wise guarantee",
    "rank_boot_high": "its 1 - alpha/2 quantile",
    "tier": "adjacent-break tier (secondary view): a new tier after each resolved adjacent pair; it chains",
}

PAIR_COLUMNS = {
    "model_a": "higher-ranked model (or the reference)",
    "model_b": "the other model",
    "rank_a": "rank of A", "rank_b": "rank of B",
    "delta": "gap: mean score of A minus B",
    "p_a": "accuracy (mean score) of A", "p_b": "accuracy of B",
    "a": "items both solve", "b": "items only A solves", "c": "items only B solves", "d": "items neither solves",
    "rho": "correlation of the per-item scores (phi for 0/1)",
    "p_chi2": "McNemar chi-square p", "p_exact": "exact McNemar p (unadjusted)", "log_p_exact": "its natural log",
    "p_midp": "McNemar mid-p",
    "t": "paired t statistic (graded)", "p_t": "paired t p (graded, unadjusted)", "log_p_t": "its natural log",
    "variance_a": "variance of A's scores", "variance_b": "variance of B's scores",
    "boot_ci_low": "paired bootstrap interval of the gap at 1 - alpha, low", "boot_ci_high": "high",
    "p_bootstrap": "percentile-bootstrap p (paper Definition 2) over B resamples, counted as min(1, 2 (k + 1) / (B + 1)) with k the "
                   "resamples on the smaller side of 0 (Davison & Hinkley 1997, Eq. 4.11): never 0, at least 2 / (B + 1)",
    "variance": "sigma_D^2, the variance of the per-item difference", "required_n": "N* (paper Eq. 6; Eq. 3 for graded)",
    "connor_n": "Connor's (1987) N", "n": "N, the number of paired items",
    "required_n_p05": "bootstrap 5th percentile of N* (finite where a resampled gap is not 0, even when N* is inf)",
    "required_n_p95": "95th percentile",
    "mde": "minimum detectable effect at N (paper Eq. 4)", "q": "resolution ratio N / N*",
    "required_n_rho_minus": "N* at rho - 0.10 (clamped to the admissible interval)", "required_n_rho_plus": "N* at rho + 0.10",
    "resolved_rho_minus": "N >= N* at rho - 0.10", "resolved_rho_plus": "N >= N* at rho + 0.10",
    "shortcut_n": "(1 - rho) K/h^2 shortcut (paper Lemma 1)", "shortcut_ratio": "shortcut / N*, about 1/2",
    "unpaired_n": "unpaired per-arm N", "efficiency_gain": "unpaired N / paired N*",
    "p_bonferroni": "Bonferroni-adjusted p over the declared family", "p_sidak": "Sidak-adjusted p",
    "p_holm": "Holm-adjusted p", "p_bh": "Benjamini-Hochberg-adjusted p",
    "p_adjusted": "the arbiter's p after the declared correction (the one behind 'significant')",
    "required_n_bonferroni": "N* x Bonferroni inflation", "required_n_holm": "N* x Holm step inflation",
    "resolved_bonferroni": "q >= Bonferroni inflation", "resolved_holm": "q >= Holm step inflation", "resolved_bh": "q >= BH inflation",
    "log_e": "log e-value at N: the grid-mixture e-process at the final counts (0/1 scores), the hedged betting e-process "
             "over the items in id order (graded)",
    "p_anytime_at_n": "min(1, 1/e_N): the e-value's p at N (a monitored run's min(1, 1/sup e_t) can only be smaller)",
    "required_n_anytime": "N_av, the anytime-valid required N (boundary definition)", "q_anytime": "N / N_av",
    "anytime_inflation": "N_av / N*",
    "rejected_e_bh": "e-BH rejection over the declared family", "rejected_bh": "BH rejection over the declared family",
    "icc": "ICC of the per-item difference over the clusters", "design_effect": "1 + (m - 1) max(ICC, 0)",
    "required_n_cluster": "N* x design effect", "p_cluster": "the arbiter's p with z / sqrt(design effect)",
    "icc_p05": "cluster-bootstrap 5th percentile of the ICC", "icc_p95": "95th percentile",
    "design_effect_p05": "cluster-bootstrap 5th percentile of the design effect", "design_effect_p95": "95th percentile",
    "required_n_cluster_p05": "cluster-bootstrap 5th percentile of N* x DE", "required_n_cluster_p95": "95th percentile",
    "probability_unresolved_cluster": "share of cluster resamples in which the pair is unresolved",
    **VERDICT_RULES,
}
