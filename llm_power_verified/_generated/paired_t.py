"""Closed forms derived in derivations/paired_t.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/paired_t.py
SymPy version: 1.14.0
"""

import scipy.special

__all__ = ["required_n_paired_t_normal"]


def required_n_paired_t_normal(mean_diff, sd_diff, alpha, power, sides):
    """Normal-approximation N for a paired t-test with mean difference and SD of differences.

    Source: paper Eq. 3 for graded scores (Appendix J parametric_required_n_paired).
    SymPy: sd_diff**2*(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2/mean_diff**2
    """
    return sd_diff**2*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2/mean_diff**2
