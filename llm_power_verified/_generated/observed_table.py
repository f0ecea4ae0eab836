"""Closed forms derived in derivations/observed_table.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/observed_table.py
SymPy version: 1.14.0
"""

import scipy.special

__all__ = ["required_n_from_counts", "resolution_ratio_from_counts"]


def required_n_from_counts(b, c, n, alpha, power, sides):
    """Unrounded N* at an observed paired table with discordant counts b, c out of n.

    Source: paper Eq. 6 at the observed (p_A, p_B, rho-hat).
    SymPy: (n*(b + c) - (b - c)**2)*(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2/(b - c)**2
    """
    _t0 = (b - c)**2
    return (-_t0 + n*(b + c))*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2/_t0


def resolution_ratio_from_counts(b, c, n, alpha, power, sides):
    """Resolution ratio q = N / N* at an observed paired table.

    Source: paper Definition 1 with Eq. 6.
    SymPy: n*(b - c)**2/((n*(b + c) - (b - c)**2)*(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2)
    """
    _t0 = (b - c)**2
    return _t0*n/((-_t0 + n*(b + c))*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2)
