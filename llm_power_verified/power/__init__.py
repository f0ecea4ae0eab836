"""Planning a comparison: closed-form sample size, MDE, q and power, the admissible correlation, and more.

Also calculator conventions and the (1 - rho) shortcut, exact McNemar power and N, the paired t, the design effect.
"""

from llm_power_verified.power.clustering import cluster_adjusted_required_n, design_effect
from llm_power_verified.power.connor import required_n_connor, required_n_connor_from_counts
from llm_power_verified.power.conventions import (
    CONVENTIONS,
    CalculatorAudit,
    audit_claimed_n,
    convention_values,
    required_n_unpaired,
)
from llm_power_verified.power.correlation import (
    RhoInterval,
    admissible_rho_interval,
    correlation_from_counts,
    validate_marginals_and_rho,
)
from llm_power_verified.power.design import PairedBinaryDesign, design_from_counts, design_paired_binary
from llm_power_verified.power.gap_of_interest import binary_variance_at_gap, graded_variance_at_gap
from llm_power_verified.power.mcnemar_power import (
    critical_counts,
    power_mcnemar_exact,
    required_n_mcnemar_exact,
    sample_size_table,
)
from llm_power_verified.power.paired_t import power_paired_t, required_n_paired_t
from llm_power_verified.power.sample_size import (
    ceil_sample_size,
    critical_value,
    minimum_detectable_effect,
    minimum_detectable_effect_paired_binary,
    paired_difference_variance,
    paired_difference_variance_from_counts,
    required_n_from_counts,
    required_n_paired_binary,
    required_n_wald,
    resolution_ratio,
    resolution_ratio_from_counts,
)
from llm_power_verified.power.shortcut import (
    DeltaStar,
    cohens_h,
    delta_star,
    required_n_arcsine,
    required_n_shortcut,
    shortcut_constant,
    shortcut_ratio,
    shortcut_ratio_series,
)
from llm_power_verified.power.wald_power import power_paired_binary, power_wald

__all__ = [
    "CONVENTIONS",
    "CalculatorAudit",
    "DeltaStar",
    "PairedBinaryDesign",
    "RhoInterval",
    "admissible_rho_interval",
    "audit_claimed_n",
    "binary_variance_at_gap",
    "ceil_sample_size",
    "cluster_adjusted_required_n",
    "cohens_h",
    "convention_values",
    "correlation_from_counts",
    "critical_counts",
    "critical_value",
    "delta_star",
    "design_effect",
    "design_from_counts",
    "design_paired_binary",
    "graded_variance_at_gap",
    "minimum_detectable_effect",
    "minimum_detectable_effect_paired_binary",
    "paired_difference_variance",
    "paired_difference_variance_from_counts",
    "power_mcnemar_exact",
    "power_paired_binary",
    "power_paired_t",
    "power_wald",
    "required_n_arcsine",
    "required_n_connor",
    "required_n_connor_from_counts",
    "required_n_from_counts",
    "required_n_mcnemar_exact",
    "required_n_paired_binary",
    "required_n_paired_t",
    "required_n_shortcut",
    "required_n_unpaired",
    "required_n_wald",
    "resolution_ratio",
    "resolution_ratio_from_counts",
    "sample_size_table",
    "shortcut_constant",
    "shortcut_ratio",
    "shortcut_ratio_series",
    "validate_marginals_and_rho",
]
