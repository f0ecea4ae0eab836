"""Closed forms derived in derivations/connor.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/connor.py
SymPy version: 1.14.0
"""

import numpy
import scipy.special

__all__ = ["required_n_connor"]


def required_n_connor(p10, p01, alpha, power, sides):
    """Connor's (1987) required N for McNemar's test from the discordant-cell probabilities.

    Source: Connor (1987) Eq. 3; paper Section 6.2 'discordance-form McNemar required-N'.
    SymPy: (sqrt(p01 + p10)*NormalUpperQuantile(alpha/sides) + sqrt(p01 + p10 - (p01 - p10)**2)*NormalUpperQuantile(1 - power))**2/(p01 - p10)**2
    """
    _t0 = (p01 - p10)**2
    _t1 = p01 + p10
    return (numpy.sqrt(_t1)*(-scipy.special.ndtri(alpha/sides)) + numpy.sqrt(-_t0 + _t1)*(-scipy.special.ndtri(1 - power)))**2/_t0
