"""The range of each numeric column that has one, declared once: the JSON schemas bound the column by it.

A range is (low, high), both inclusive, None for an open end.  It bounds the
finite numbers a column holds; a float column may also hold null (undefined)
and, at an open end only, the strings "inf" / "-inf" (the JSON rule of
``io.output.json_ready``).  A column without an entry is unbounded.  Each
bound is what the column's definition guarantees, not what data usually show:
probabilities and shares lie in [0, 1], correlations in [-1, 1], gaps of
scores in [0, 1] in [-1, 1], counts, sizes, variances and requirements are at
least 0, ranks at least 1, a natural log of a probability at most 0, and the
design effect 1 + (m - 1) max(ICC, 0) at least 1.  A generation share (the generation-noise part of a
variance over that variance) is at least 0 but may exceed 1 where the method-of-moments between part is
negative; a between variance has no bound; a cell's generations are at least 2.
"""

from __future__ import annotations

__all__ = ["RANGES"]

_PROBABILITY = (0, 1)
_CORRELATION = (-1, 1)
_AT_LEAST_0 = (0, None)
_AT_LEAST_1 = (1, None)

#: Column name -> (low, high).
RANGES: dict[str, tuple[float | None, float | None]] = {
    # pair columns
    **dict.fromkeys(("rank_a", "rank_b", "n"), _AT_LEAST_1),
    **dict.fromkeys(("delta", "boot_ci_low", "boot_ci_high"), (-1, 1)),
    **dict.fromkeys(
        (
            "p_a",
            "p_b",
            "p_chi2",
            "p_exact",
            "p_midp",
            "p_t",
            "p_bootstrap",
            "p_anytime_at_n",
            "p_bonferroni",
            "p_sidak",
            "p_holm",
            "p_bh",
            "p_adjusted",
            "p_cluster",
            "probability_unresolved_cluster",
            "agreement_min",
            "agreement_max",
            "agreement_critical",
            "agreement_critical_family",
            "agreement_critical_low",
            "agreement_critical_high",
            "level_strict",
            "level_lenient",
            "power_min_effect",
            "p_margin_lower",
            "p_margin_upper",
            "p_equivalence",
        ),
        _PROBABILITY,
    ),
    **dict.fromkeys(("log_p_exact", "log_p_t"), (None, 0)),
    **dict.fromkeys(
        (
            "rho",
            "icc",
            "icc_p05",
            "icc_p95",
            "rho_min",
            "rho_max",
            "rho_critical",
            "rho_critical_family",
            "rho_critical_low",
            "rho_critical_high",
            "rho_assumed_low",
            "rho_assumed_high",
        ),
        _CORRELATION,
    ),
    **dict.fromkeys(
        (
            "a",
            "b",
            "c",
            "d",
            "variance_a",
            "variance_b",
            "variance",
            "required_n",
            "required_n_min_effect",
            "required_n_connor",
            "mde",
            "required_n_p05",
            "required_n_p95",
            "required_n_rho_minus",
            "required_n_rho_plus",
            "shortcut_n",
            "shortcut_ratio",
            "unpaired_n",
            "efficiency_gain",
            "q",
            "q_min_effect",
            "required_n_anytime",
            "q_anytime",
            "anytime_inflation",
            "required_n_bonferroni",
            "required_n_holm",
            "required_n_cluster",
            "required_n_cluster_p05",
            "required_n_cluster_p95",
            "required_n_rho_min",
            "required_n_rho_max",
            "required_n_worst",
            "required_n_best",
            "q_rho_min",
            "q_rho_max",
            "required_n_assumed",
            "q_assumed",
            "gap_within_part",
            "gap_within_variance",
            "gap_generation_share",
            "q_generations_1",
            "q_generations_2",
            "q_generations_5",
            "q_generations_10",
            "q_generations_20",
            "q_generations_inf",
            "q_clustered_generations_inf",
        ),
        _AT_LEAST_0,
    ),
    **dict.fromkeys(("design_effect", "design_effect_p05", "design_effect_p95"), _AT_LEAST_1),
    # model columns
    **dict.fromkeys(("rank", "rank_low", "rank_high", "rank_boot_low", "rank_boot_high", "tier", "line"), _AT_LEAST_1),
    **dict.fromkeys(("mean_score", "accuracy"), _PROBABILITY),
    **dict.fromkeys(("count_low", "count_high"), _AT_LEAST_0),
    **dict.fromkeys(("within_variance", "generation_share"), _AT_LEAST_0),
    **dict.fromkeys(("generations",), (2, None)),
}
