"""Testing a comparison: the McNemar family, the paired bootstrap, graded paired tests, and multiplicity.

Tests against a margin (non-inferiority, equivalence: Tango's score test for 0/1 scores, the paired t for graded
ones) are in :mod:`~llm_power_verified.inference.margin`.
The McNemar family (chi-square, exact, mid-p) is on the binomial tail; multiplicity is adjusted p-values and N*
inflation.
"""

from llm_power_verified.inference.bootstrap import (
    BootstrapResult,
    paired_bootstrap,
    paired_bootstrap_counts,
    percentile_pvalue,
)
from llm_power_verified.inference.graded import (
    GradedTestResult,
    batched_paired_t_pvalues,
    batched_wilcoxon_pvalues,
    paired_t_test,
    wilcoxon_signed_rank,
)
from llm_power_verified.inference.margin import (
    EQUIVALENCE_OUTCOMES,
    equivalence_outcome,
    margin_power,
    margin_required_n,
    margin_score_interval,
    margin_score_pvalue,
    margin_score_z,
    paired_t_interval,
    paired_t_margin,
    restricted_discordance,
)
from llm_power_verified.inference.mcnemar import (
    TWO_SIDED_RULES,
    VARIANTS,
    McNemarResult,
    binary_counts,
    mcnemar_all,
    mcnemar_chi2,
    mcnemar_exact,
    mcnemar_midp,
    mcnemar_test,
)
from llm_power_verified.inference.multiplicity import adjust_pvalues, inflation_at_level, required_n_inflation

__all__ = [
    "EQUIVALENCE_OUTCOMES",
    "TWO_SIDED_RULES",
    "VARIANTS",
    "BootstrapResult",
    "GradedTestResult",
    "McNemarResult",
    "adjust_pvalues",
    "batched_paired_t_pvalues",
    "batched_wilcoxon_pvalues",
    "binary_counts",
    "equivalence_outcome",
    "inflation_at_level",
    "margin_power",
    "margin_required_n",
    "margin_score_interval",
    "margin_score_pvalue",
    "margin_score_z",
    "mcnemar_all",
    "mcnemar_chi2",
    "mcnemar_exact",
    "mcnemar_midp",
    "mcnemar_test",
    "paired_bootstrap",
    "paired_bootstrap_counts",
    "paired_t_interval",
    "paired_t_margin",
    "paired_t_test",
    "percentile_pvalue",
    "required_n_inflation",
    "restricted_discordance",
    "wilcoxon_signed_rank",
]
