"""Closed forms derived in derivations/paired_variance.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/paired_variance.py
SymPy version: 1.14.0
"""

import numpy

__all__ = ["paired_difference_variance", "paired_difference_variance_from_cells", "paired_difference_variance_at_gap", "joint_success_probability", "phi_coefficient"]


def paired_difference_variance(p_a, p_b, rho):
    """Variance of D = X_A - X_B for Bernoulli scores with correlation rho.

    Source: paper Eq. 5, derived from the joint cell probabilities.
    SymPy: -2*sqrt(p_a)*sqrt(p_b)*rho*sqrt((p_a - 1)*(p_b - 1)) - p_a*(p_a - 1) - p_b*(p_b - 1)
    """
    _t0 = p_a - 1
    _t1 = p_b - 1
    return -_t0*p_a - _t1*p_b - 2*numpy.sqrt(p_a)*numpy.sqrt(p_b)*rho*numpy.sqrt(_t0*_t1)


def paired_difference_variance_from_cells(p10, p01):
    """Variance of D from the discordant-cell probabilities p10 (A only) and p01 (B only).

    Source: discordant-cell form of paper Eq. 5.
    SymPy: p01 + p10 - (-p01 + p10)**2
    """
    return p01 + p10 - (-p01 + p10)**2


def paired_difference_variance_at_gap(discordance, delta):
    """Variance of D under a true gap delta = p10 - p01 at discordance psi = p10 + p01 (psi >= |delta|).

    Source: discordant-cell form of paper Eq. 5 at p10 = (psi + delta)/2, p01 = (psi - delta)/2.
    SymPy: -delta**2 + discordance
    """
    return -delta**2 + discordance


def joint_success_probability(p_a, p_b, rho):
    """P(both models correct) for marginals p_a, p_b and Bernoulli correlation rho.

    Source: paper Section 4, definition of rho.
    SymPy: sqrt(p_a)*sqrt(p_b)*rho*sqrt((p_a - 1)*(p_b - 1)) + p_a*p_b
    """
    return numpy.sqrt(p_a)*numpy.sqrt(p_b)*rho*numpy.sqrt((p_a - 1)*(p_b - 1)) + p_a*p_b


def phi_coefficient(n11, n10, n01, n00):
    """Bernoulli (phi) correlation of two aligned 0/1 vectors from their 2x2 counts.

    Source: the rho-hat of paper Tables 6-7.
    SymPy: (n00*n11 - n01*n10)/(sqrt(n00 + n01)*sqrt(n00 + n10)*sqrt(n01 + n11)*sqrt(n10 + n11))
    """
    return (n00*n11 - n01*n10)/(numpy.sqrt(n00 + n01)*numpy.sqrt(n00 + n10)*numpy.sqrt(n01 + n11)*numpy.sqrt(n10 + n11))
