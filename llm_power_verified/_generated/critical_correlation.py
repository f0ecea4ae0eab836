"""Closed forms derived in derivations/critical_correlation.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/critical_correlation.py
SymPy version: 1.14.0
"""

import numpy
import scipy.special

__all__ = ["critical_correlation", "agreement_share"]


def critical_correlation(p_a, p_b, n, alpha, power, sides):
    """Correlation rho_c at which N*(rho) = N: the gap p_a - p_b is resolved at N items iff rho >= rho_c.

    Source: paper Eqs. 5-6 solved for rho.
    SymPy: (-n*(p_a - p_b)**2/(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2 - p_a*(p_a - 1) - p_b*(p_b - 1))/(2*sqrt(p_a)*sqrt(p_b)*sqrt((p_a - 1)*(p_b - 1)))
    """
    _t0 = p_a - 1
    _t1 = p_b - 1
    return (1/2)*(-_t0*p_a - _t1*p_b - n*(p_a - p_b)**2/((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2)/(numpy.sqrt(p_a)*numpy.sqrt(p_b)*numpy.sqrt(_t0*_t1))


def agreement_share(p_a, p_b, rho):
    """Share of items on which two models agree (both right or both wrong) at correlation rho.

    Source: paper Eq. 5's cells: p11 + p00.
    SymPy: 2*sqrt(p_a)*sqrt(p_b)*rho*sqrt(p_a*p_b - p_a - p_b + 1) + 2*p_a*p_b - p_a - p_b + 1
    """
    _t0 = p_a*p_b
    _t1 = -p_a - p_b + 1
    return 2*_t0 + _t1 + 2*numpy.sqrt(p_a)*numpy.sqrt(p_b)*rho*numpy.sqrt(_t0 + _t1)
