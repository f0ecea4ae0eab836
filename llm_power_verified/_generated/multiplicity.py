"""Closed forms derived in derivations/multiplicity.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/multiplicity.py
SymPy version: 1.14.0
"""

import numpy
import scipy.special

__all__ = ["bonferroni_inflation", "sidak_inflation"]


def bonferroni_inflation(family_size, alpha, power, sides):
    """Factor by which N* grows when alpha is replaced by alpha / m (Bonferroni).

    Source: paper Sections 3 and 6.3.
    SymPy: (NormalUpperQuantile(alpha/(family_size*sides)) + NormalUpperQuantile(1 - power))**2/(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2
    """
    _t0 = alpha/sides
    _t1 = (-scipy.special.ndtri(1 - power))
    return (_t1 + (-scipy.special.ndtri(_t0/family_size)))**2/(_t1 + (-scipy.special.ndtri(_t0)))**2


def sidak_inflation(family_size, alpha, power, sides):
    """Factor by which N* grows when alpha is replaced by 1 - (1 - alpha)^(1/m) (Sidak).

    Source: paper Section 6.3.
    SymPy: (NormalUpperQuantile(-expm1(log1p(-alpha)/family_size)/sides) + NormalUpperQuantile(1 - power))**2/(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2
    """
    _t0 = sides**(-1.0)
    _t1 = (-scipy.special.ndtri(1 - power))
    return (_t1 + (-scipy.special.ndtri(-_t0*numpy.expm1(numpy.log1p(-alpha)/family_size))))**2/(_t1 + (-scipy.special.ndtri(_t0*alpha)))**2
