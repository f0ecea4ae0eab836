"""Whether a benchmark can support the claim that one model beats another.

llm_power_verified turns paired per-item results into resolution figures:
the paired-difference variance, the required paired sample size N*, the
minimum detectable effect, the resolution ratio q = N / N* and the power.
Every closed form is derived in SymPy (``derivations/``) and printed into
``llm_power_verified._generated``; importing this package does not import SymPy.

Every public name is loaded on first use (PEP 562): ``import llm_power_verified``
imports nothing heavier than the standard library, so that a command-line
start-up or a script that needs one function does not pay for scipy, pandas
and statsmodels (0.3 s, 0.5 s and 1.8 s on the reference machine).
"""

import importlib

#: Where each public name lives, by module (relative to this package).
_HOMES = {
    "_validation": ("ceil_sample_size",),
    "inference.bootstrap": ("BootstrapResult", "paired_bootstrap", "paired_bootstrap_counts"),
    "inference.graded": ("GradedTestResult", "paired_t_test", "wilcoxon_signed_rank"),
    "inference.mcnemar": (
        "McNemarResult",
        "binary_counts",
        "mcnemar_all",
        "mcnemar_chi2",
        "mcnemar_exact",
        "mcnemar_midp",
        "mcnemar_test",
    ),
    "inference.multiplicity": ("adjust_pvalues", "required_n_inflation"),
    "io": ("InputError", "ScoreMatrix", "from_array", "read_scores"),
    "leaderboard.audit": ("AuditResult", "audit_leaderboard"),
    "power.clustering": ("cluster_adjusted_required_n", "design_effect"),
    "power.connor": ("required_n_connor", "required_n_connor_from_counts"),
    "power.conventions": ("CalculatorAudit", "audit_claimed_n", "convention_values", "required_n_unpaired"),
    "power.correlation": ("RhoInterval", "admissible_rho_interval", "correlation_from_counts"),
    "power.design": ("PairedBinaryDesign", "design_from_counts", "design_paired_binary"),
    "power.mcnemar_power": ("power_mcnemar_exact", "required_n_mcnemar_exact", "sample_size_table"),
    "power.paired_t": ("power_paired_t", "required_n_paired_t"),
    "power.wald_power": ("power_paired_binary", "power_wald"),
    "power.sample_size": (
        "critical_value",
        "minimum_detectable_effect",
        "minimum_detectable_effect_paired_binary",
        "paired_difference_variance",
        "paired_difference_variance_from_counts",
        "required_n_from_counts",
        "required_n_paired_binary",
        "required_n_wald",
        "resolution_ratio",
        "resolution_ratio_from_counts",
    ),
    "power.shortcut": (
        "DeltaStar",
        "cohens_h",
        "delta_star",
        "required_n_arcsine",
        "required_n_shortcut",
        "shortcut_constant",
        "shortcut_ratio",
        "shortcut_ratio_series",
    ),
    "testing.conformance": ("CalculatorConformance", "assert_conforms", "check_calculator"),
    "sequential": ("anytime_pvalue", "confidence_sequence", "e_bh", "e_process", "log_e_value", "required_n_anytime"),
}
_LOCATION = {name: f"{__name__}.{module}" for module, names in _HOMES.items() for name in names}


def __getattr__(name: str):
    if name not in _LOCATION:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LOCATION[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LOCATION))


__version__ = "0.1.0"

__all__ = [
    "AuditResult",
    "BootstrapResult",
    "CalculatorAudit",
    "CalculatorConformance",
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
    "assert_conforms",
    "audit_claimed_n",
    "audit_leaderboard",
    "binary_counts",
    "ceil_sample_size",
    "check_calculator",
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
