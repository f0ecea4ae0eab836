"""Closed forms derived in derivations/unpaired.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/unpaired.py
SymPy version: 1.14.0
"""

import numpy
import scipy.special

__all__ = ["required_n_unpaired_wald", "required_n_two_proportion_z"]


def required_n_unpaired_wald(p_a, p_b, alpha, power, sides):
    """Per-arm n of an unpaired Wald test with unpooled variance (Miller 2024).

    Source: paper Section 2 and Figure 1 (unpaired Gaussian formula).
    SymPy: (-p_a*(p_a - 1) - p_b*(p_b - 1))*(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2/(p_a - p_b)**2
    """
    return (-p_a*(p_a - 1) - p_b*(p_b - 1))*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2/(p_a - p_b)**2


def required_n_two_proportion_z(p_a, p_b, alpha, power, sides):
    """Per-arm n of the two-proportion z test, pooled variance under H0 (power.prop.test).

    Source: Fleiss's formula without continuity correction; R power.prop.test (strict = FALSE).
    SymPy: (sqrt(-p_a*(p_a - 1) - p_b*(p_b - 1))*NormalUpperQuantile(1 - power) + sqrt(-p_a*(p_a - 1) - p_b*(p_b - 1) + (p_a - p_b)**2/2)*NormalUpperQuantile(alpha/sides))**2/(p_a - p_b)**2
    """
    _t0 = (p_a - p_b)**2
    _t1 = p_a*(p_a - 1) + p_b*(p_b - 1)
    return (numpy.sqrt(-_t1)*(-scipy.special.ndtri(1 - power)) + numpy.sqrt((1/2)*_t0 - _t1)*(-scipy.special.ndtri(alpha/sides)))**2/_t0
