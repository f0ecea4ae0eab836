"""The pair columns of the per-item audits (0/1 and graded scores), in machine-format order.

Paper references are to Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315).
"""

from __future__ import annotations

from dataclasses import replace

from llm_power_verified.contract.choices import VERDICT_RULES
from llm_power_verified.contract.column_record import Column, declare
from llm_power_verified.contract.generation_columns import GENERATION_PAIR_COLUMNS

__all__ = ["DEFAULT_PAIR_NAMES", "ITEM_PAIR_COLUMNS"]

#: The default set of the per-item pair table's machine formats (``--columns default``; Parquet's default): who
#: (names, ranks, adjacency), the gap and the counts it rests on, the pair's own test, N*, q and every verdict with the
#: p-value or N it is read from; the analyses a user asks for by name (--min-effect, several generations) whole, and
#: the clusters' verdicts with the design effect behind them.  Left for ``--columns all`` or by name: the other
#: arbiters and corrections, the rho sensitivity, the shortcut and unpaired N, the anytime N search and the bootstrap
#: percentiles (``icc``, ``required_n_anytime``, ``p_holm``, ...).
DEFAULT_PAIR_NAMES = (
    *("model_a", "model_b", "rank_a", "rank_b", "adjacent", "delta", "p_a", "p_b", "b", "c", "rho"),
    *("p_exact", "p_t", "required_n", "mde", "boot_ci_low", "boot_ci_high", "n", "q", "resolved"),
    *("p_anytime_at_n", "resolved_anytime", "p_adjusted", "significant", "significant_anytime"),
    *("power_min_effect", "required_n_min_effect", "q_min_effect", "resolved_min_effect", "p_margin_lower"),
    *("p_margin_upper", "p_equivalence", "margin_ci_low", "margin_ci_high", "equivalence"),
    *(item.name for item in GENERATION_PAIR_COLUMNS),
    *("design_effect", "required_n_cluster", "resolved_cluster", "p_cluster", "significant_clustered"),
)

_DECLARED: tuple[Column, ...] = (
    *declare("bga", "text", [("model_a", "higher-ranked model (or the reference)"), ("model_b", "the other model")]),
    *declare("bga", "int", [("rank_a", "rank of A"), ("rank_b", "rank of B")]),
    *declare("bga", "bool", [("adjacent", "the two models are next in the ranking: abs(rank_a - rank_b) = 1")]),
    *declare(
        "bga",
        "float",
        [("delta", "gap: mean score of A minus B"), ("p_a", "accuracy (mean score) of A"), ("p_b", "accuracy of B")],
    ),
    *declare(
        "b",
        "int",
        [
            ("a", "items both solve"),
            ("b", "items only A solves"),
            ("c", "items only B solves"),
            ("d", "items neither solves"),
        ],
    ),
    *declare("bg", "float", [("rho", "correlation of the per-item scores (phi for 0/1)", 3)]),
    *declare(
        "b",
        "float",
        [
            ("p_chi2", "McNemar chi-square p"),
            ("p_exact", "exact McNemar p (unadjusted)", 3),
            ("log_p_exact", "its natural log"),
            ("p_midp", "McNemar mid-p", 3, "p mid-p"),
        ],
    ),
    *declare(
        "g",
        "float",
        [
            ("variance_a", "variance of A's scores"),
            ("variance_b", "variance of B's scores"),
            ("t", "paired t statistic (graded)", 3),
            ("p_t", "paired t p (graded, unadjusted)", 3),
            ("log_p_t", "its natural log"),
        ],
    ),
    *declare(
        "bg",
        "float",
        [
            ("variance", "sigma_D^2, the variance of the per-item difference"),
            ("required_n", "N* (paper Eq. 6; Eq. 3 for graded)", 4, "N*"),
        ],
    ),
    *declare("b", "float", [("required_n_connor", "Connor's (1987) N")]),
    *declare(
        "bg",
        "float",
        [
            (
                "mde",
                "minimum detectable effect at N (paper Eq. 4); n/a (JSON null) where the plug-in variance is 0: the "
                "same difference on every item, so no detectable gap to state",
                3,
                "MDE",
            )
        ],
    ),
    *declare(
        "bg",
        "float",
        [
            ("boot_ci_low", "paired bootstrap interval of the gap at 1 - alpha, low"),
            ("boot_ci_high", "high"),
            (
                "p_bootstrap",
                "percentile-bootstrap p (paper Definition 2) over B resamples, counted as min(1, 2 (k + 1) / (B + 1)) "
                "with k the "
                "resamples on the smaller side of 0 (Davison & Hinkley 1997, Eq. 4.11): never 0, at least 2 / (B + 1)",
            ),
        ],
        when="bootstrap",
    ),
    *declare(
        "b",
        "float",
        [
            (
                "required_n_p05",
                "bootstrap 5th percentile of N* (finite where a resampled gap is not 0, even when N* is inf)",
            ),
            ("required_n_p95", "95th percentile"),
        ],
        when="bootstrap",
    ),
    *declare(
        "bg",
        "float",
        [
            ("required_n_rho_minus", "N* at rho - 0.10 (clamped to the admissible interval)"),
            ("required_n_rho_plus", "N* at rho + 0.10"),
        ],
    ),
    *declare(
        "b",
        "float",
        [
            ("shortcut_n", "(1 - rho) K/h^2 shortcut (paper Lemma 1)"),
            ("shortcut_ratio", "shortcut / N*, about 1/2", 3, "n_h/N*"),
        ],
    ),
    *declare("bg", "float", [("unpaired_n", "unpaired per-arm N"), ("efficiency_gain", "unpaired N / paired N*")]),
    *declare("bga", "int", [("n", "N, the number of paired items", 4, "N")]),
    *declare("bg", "float", [("q", "resolution ratio N / N*", 3)]),
    *declare(
        "bg",
        "float",
        [
            (
                "z_wald",
                "Wald z of the observed gap, delta / sqrt(variance / N); q at the observed gap is "
                "z_wald^2 / (z_{1-alpha/2} + z_{1-beta})^2, a re-expression of this statistic",
                3,
                "z",
            )
        ],
    ),
    *declare(
        "bg",
        "bool",
        [
            ("resolved", VERDICT_RULES["resolved"]),
            ("resolved_rho_minus", "N >= N* at rho - 0.10"),
            ("resolved_rho_plus", "N >= N* at rho + 0.10"),
        ],
    ),
    *declare(
        "bg",
        "float",
        [
            (
                "log_e",
                "log e-value at N: the grid-mixture e-process at the final counts (0/1 scores), the hedged betting "
                "e-process "
                "over the items in id order (graded)",
            ),
            (
                "p_anytime_at_n",
                "min(1, 1/e_N): the e-value's p at N (a monitored run's min(1, 1/sup e_t) can only be smaller)",
                3,
            ),
        ],
    ),
    *declare(
        "b",
        "float",
        [
            ("required_n_anytime", "N_av, the anytime-valid required N (boundary definition)", 4, "N_av"),
            ("q_anytime", "N / N_av"),
            ("anytime_inflation", "N_av / N*", 3),
        ],
    ),
    *declare("b", "bool", [("resolved_anytime", VERDICT_RULES["resolved_anytime"])]),
    *declare(
        "bg",
        "float",
        [
            ("p_bonferroni", "Bonferroni-adjusted p over the declared family"),
            ("p_sidak", "Sidak-adjusted p"),
            ("p_holm", "Holm-adjusted p"),
            ("p_bh", "Benjamini-Hochberg-adjusted p"),
        ],
    ),
    *declare(
        "bg",
        "bool",
        [
            ("rejected_e_bh", "e-BH rejection over the declared family"),
            ("rejected_bh", "BH rejection over the declared family"),
        ],
    ),
    *declare(
        "bg",
        "float",
        [
            ("required_n_bonferroni", "N* x Bonferroni inflation"),
            (
                "required_n_holm",
                "N* x Holm step inflation: level alpha / (m - k + 1) at the pair's step k in the observed "
                "p-value order, which holds only if steps 1 .. k - 1 all reject (required_n_bonferroni's alpha / m is "
                "the level guaranteed in advance)",
            ),
        ],
    ),
    *declare(
        "bg",
        "bool",
        [
            ("resolved_bonferroni", "q >= Bonferroni inflation"),
            (
                "resolved_holm",
                "q >= Holm step inflation (conditional on the earlier steps rejecting, as required_n_holm)",
            ),
            ("resolved_bh", "q >= BH inflation"),
        ],
    ),
    *declare(
        "bg",
        "float",
        [("p_adjusted", "the arbiter's p after the declared correction (the one behind 'significant')", 3, "p adj")],
    ),
    *declare(
        "bg",
        "decision",
        [
            ("significant", VERDICT_RULES["significant"], None, "signif."),
            ("significant_anytime", VERDICT_RULES["significant_anytime"], None, "anytime"),
        ],
    ),
    *declare(
        "bg",
        "float",
        [
            (
                "power_min_effect",
                "power at N to detect a true gap of DELTA (--min-effect), each pair at alpha, with sigma_D^2(DELTA) = "
                "psi - DELTA^2 at the observed discordance psi = (b + c) / N (graded: the observed variance of the "
                "differences); n/a where psi < DELTA (a true gap of DELTA needs that many discordant items)",
                3,
                "power(DELTA)",
            ),
            (
                "required_n_min_effect",
                "N*(DELTA), the N that resolves a true gap of DELTA (same variance)",
                4,
                "N*(DELTA)",
            ),
            ("q_min_effect", "q(DELTA) = N / N*(DELTA)", 3, "q(DELTA)"),
        ],
        when="min-effect",
    ),
    *declare(
        "bg",
        "bool",
        [("resolved_min_effect", "q(DELTA) >= 1 (false where q(DELTA) is n/a)", None, "resolved(DELTA)")],
        when="min-effect",
    ),
    *declare(
        "bg",
        "float",
        [
            (
                "p_margin_lower",
                "one-sided p of H0: gap <= -DELTA (0/1: Tango's score test, restricted MLE under the margin; graded: "
                "paired t)",
                3,
                "p(d <= -DELTA)",
            ),
            ("p_margin_upper", "one-sided p of H0: gap >= +DELTA (same test)", 3, "p(d >= DELTA)"),
            (
                "p_equivalence",
                "max(p_margin_lower, p_margin_upper): the TOST p of equivalence within +-DELTA (each pair, no "
                "multiplicity)",
                3,
                "p equiv.",
            ),
            (
                "margin_ci_low",
                "(1 - 2 alpha) interval of the gap dual to the margin tests (0/1: Tango's score interval; graded: "
                "paired t), low",
            ),
            ("margin_ci_high", "high"),
        ],
        when="min-effect",
    ),
    *declare(
        "bg",
        "text",
        [
            (
                "equivalence",
                "the four outcomes of an equivalence analysis at margin DELTA (Lakens 2017): 'equivalent' when the "
                "(1 - 2 alpha) interval lies inside (-DELTA, DELTA), 'different' when the pair's own difference test "
                "(the raw arbiter p, exact McNemar or paired t) rejects at alpha; each pair on its own, no "
                "multiplicity",
                None,
                "equivalence",
            )
        ],
        when="min-effect",
    ),
    *GENERATION_PAIR_COLUMNS,
    *declare(
        "bg",
        "float",
        [
            ("icc", "ICC of the per-item difference over the clusters", 3, "ICC(D)"),
            ("design_effect", "1 + (m_w - 1) max(ICC, 0), m_w = sum m_g^2 / N the size-weighted cluster size", 3, "DE"),
            ("required_n_cluster", "N* x design effect", 4, "N* cluster"),
        ],
        when="clusters",
    ),
    *declare("bg", "bool", [("resolved_cluster", VERDICT_RULES["resolved_cluster"])], when="clusters"),
    *declare(
        "bg",
        "float",
        [
            ("icc_p05", "cluster-bootstrap 5th percentile of the ICC"),
            ("icc_p95", "95th percentile"),
            ("design_effect_p05", "cluster-bootstrap 5th percentile of the design effect"),
            ("design_effect_p95", "95th percentile"),
            ("required_n_cluster_p05", "cluster-bootstrap 5th percentile of N* x DE"),
            ("required_n_cluster_p95", "95th percentile"),
            ("probability_unresolved_cluster", "share of cluster resamples in which the pair is unresolved"),
        ],
        when="cluster-bootstrap",
    ),
    *declare(
        "bg",
        "float",
        [("p_cluster", "the arbiter's p with z / sqrt(design effect), before the declared correction")],
        when="clusters",
    ),
    *declare(
        "bg",
        "decision",
        [("significant_clustered", VERDICT_RULES["significant_clustered"], None, "signif. clusters")],
        when="clusters",
    ),
)

#: The pair columns of the per-item audits (those the accuracies-only audit shares are marked "a" too).
ITEM_PAIR_COLUMNS: tuple[Column, ...] = tuple(
    replace(item, default=item.name in DEFAULT_PAIR_NAMES) for item in _DECLARED
)
