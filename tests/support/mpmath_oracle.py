"""The mpmath oracles, now public in :mod:`llm_power_verified.testing.oracles`; re-exported for the older tests."""

from __future__ import annotations

from llm_power_verified.testing.oracles import (
    chi2_pvalue,
    exact_power,
    exact_pvalue,
    log_binomial_lower_tail,
    log_e_value,
    midp_pvalue,
    threshold,
)

__all__ = [
    "chi2_pvalue",
    "exact_power",
    "exact_pvalue",
    "log_binomial_lower_tail",
    "log_e_value",
    "midp_pvalue",
    "threshold",
]
