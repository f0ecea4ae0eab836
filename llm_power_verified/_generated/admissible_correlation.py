"""Closed forms derived in derivations/admissible_correlation.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/admissible_correlation.py
SymPy version: 1.14.0
"""

import functools
import numpy

__all__ = ["rho_lower_bound", "rho_upper_bound"]


def rho_lower_bound(p_a, p_b):
    """Smallest attainable Bernoulli correlation for marginals p_a, p_b.

    Source: paper Eq. 8 (Hoeffding-Frechet bound).
    SymPy: -sqrt(Min(p_a*p_b, (1 - p_a)*(1 - p_b))/Max(p_a*p_b, (1 - p_a)*(1 - p_b)))
    """
    _t0 = p_a*p_b
    _t1 = (1 - p_a)*(1 - p_b)
    return -numpy.sqrt(functools.reduce(numpy.minimum, [_t0, _t1])/functools.reduce(numpy.maximum, [_t0, _t1]))


def rho_upper_bound(p_a, p_b):
    """Largest attainable Bernoulli correlation for marginals p_a, p_b.

    Source: paper Eq. 7 (Hoeffding-Frechet bound).
    SymPy: sqrt(Min(p_a*(1 - p_b), p_b*(1 - p_a))/Max(p_a*(1 - p_b), p_b*(1 - p_a)))
    """
    _t0 = p_a*(1 - p_b)
    _t1 = p_b*(1 - p_a)
    return numpy.sqrt(functools.reduce(numpy.minimum, [_t0, _t1])/functools.reduce(numpy.maximum, [_t0, _t1]))
