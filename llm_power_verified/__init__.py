"""Can a benchmark support the claim that one model beats another?

llm_power_verified turns paired per-item results into resolution figures:
the paired-difference variance, the required paired sample size N*, the
minimum detectable effect, the resolution ratio q = N / N* and the power.
Every closed form is derived in SymPy (``derivations/``) and printed into
``llm_power_verified._generated``; importing this package does not import SymPy.
"""

from llm_power_verified._validation import ceil_sample_size
from llm_power_verified.inference.bootstrap import (
    BootstrapResult,
    paired_bootstrap,
    paired_bootstrap_counts,
)
from llm_power_verified.inference.graded import (
    GradedTestResult,
    paired_t_test,
    wilcoxon_signed_rank,
)
from llm_power_verified.inference.mcnemar import (
    McNemarResult,
    binary_counts,
    mcnemar_all,
    mcnemar_chi2,
    mcnemar_exact,
    mcnemar_midp,
    mcnemar_test,
)
from llm_power_verified.inference.multiplicity import (
    adjust_pvalues,
    required_n_inflation,
)
from llm_power_verified.planning.clustering import (
    cluster_adjusted_required_n,
    design_effect,
)
from llm_power_verified.planning.connor import (
    required_n_connor,
    required_n_connor_from_counts,
)
from llm_power_verified.planning.conventions import (
    CalculatorAudit,
    audit_claimed_n,
    convention_values,
    required_n_unpaired,
)
from llm_power_verified.planning.correlation import (
    RhoInterval,
    admissible_rho_interval,
    correlation_from_counts,
)
from llm_power_verified.planning.design import (
    PairedBinaryDesign,
    design_from_counts,
    design_paired_binary,
)
from llm_power_verified.planning.mcnemar_power import (
    power_mcnemar_exact,
    required_n_mcnemar_exact,
    sample_size_table,
)
from llm_power_verified.planning.paired_t import power_paired_t, required_n_paired_t
from llm_power_verified.planning.power import power_paired_binary, power_wald
from llm_power_verified.planning.sample_size import (
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
from llm_power_verified.planning.shortcut import (
    DeltaStar,
    cohens_h,
    delta_star,
    required_n_arcsine,
    required_n_shortcut,
    shortcut_constant,
    shortcut_ratio,
    shortcut_ratio_series,
)

#: The main job and its inputs, loaded on first use (PEP 562) so that ``import llm_power_verified`` stays light.
_LAZY = {
    "AuditResult": "llm_power_verified.leaderboard.audit", "audit_leaderboard": "llm_power_verified.leaderboard.audit",
    "InputError": "llm_power_verified.io", "ScoreMatrix": "llm_power_verified.io", "from_array": "llm_power_verified.io",
    "read_scores": "llm_power_verified.io",
    "anytime_pvalue": "llm_power_verified.sequential", "confidence_sequence": "llm_power_verified.sequential",
    "e_bh": "llm_power_verified.sequential", "e_process": "llm_power_verified.sequential",
    "log_e_value": "llm_power_verified.sequential", "required_n_anytime": "llm_power_verified.sequential",
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


__version__ = "0.1.0"

__all__ = [
    "AuditResult",
    "BootstrapResult",
    "CalculatorAudit",
    "DeltaStar",
    "GradedTestResult",
    "InputError",
    "McNemarResult",
    "PairedBinaryDesign",
    "RhoInterval",
    "ScoreMatrix",
    "adjust_pvalues",
    "admissible_rho_interval",
    "anytime_pvalue",
    "audit_claimed_n",
    "audit_leaderboard",
    "binary_counts",
    "ceil_sample_size",
    "cluster_adjusted_required_n",
    "cohens_h",
    "confidence_sequence",
    "convention_values",
    "correlation_from_counts",
    "critical_value",
    "delta_star",
    "design_effect",
    "design_from_counts",
    "design_paired_binary",
    "e_bh",
    "e_process",
    "from_array",
    "log_e_value",
    "mcnemar_all",
    "mcnemar_chi2",
    "mcnemar_exact",
    "mcnemar_midp",
    "mcnemar_test",
    "minimum_detectable_effect",
    "minimum_detectable_effect_paired_binary",
    "paired_bootstrap",
    "paired_bootstrap_counts",
    "paired_difference_variance",
    "paired_difference_variance_from_counts",
    "paired_t_test",
    "power_mcnemar_exact",
    "power_paired_binary",
    "power_paired_t",
    "power_wald",
    "read_scores",
    "required_n_anytime",
    "required_n_arcsine",
    "required_n_connor",
    "required_n_connor_from_counts",
    "required_n_from_counts",
    "required_n_inflation",
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
    "wilcoxon_signed_rank",
]
