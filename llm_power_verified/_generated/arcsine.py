"""Closed forms derived in derivations/arcsine.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/arcsine.py
SymPy version: 1.14.0
"""

import numpy
import scipy.special

__all__ = ["cohens_h", "required_n_arcsine_one_sample", "required_n_arcsine_two_sample", "required_n_shortcut"]


def cohens_h(p_a, p_b):
    """Cohen's h = 2 arcsin sqrt(p_a) - 2 arcsin sqrt(p_b).

    Source: Cohen (1988) Eq. 6.2.2; paper Section 4.
    SymPy: 2*atan2((p_a - p_b)/(sqrt(p_a)*sqrt(1 - p_b) + sqrt(p_b)*sqrt(1 - p_a)), sqrt(p_a)*sqrt(p_b) + sqrt(1 - p_a)*sqrt(1 - p_b))
    """
    _t0 = numpy.sqrt(p_a)
    _t1 = numpy.sqrt(1 - p_b)
    _t2 = numpy.sqrt(p_b)
    _t3 = numpy.sqrt(1 - p_a)
    return 2*numpy.arctan2((p_a - p_b)/(_t0*_t1 + _t2*_t3), _t0*_t2 + _t1*_t3)


def required_n_arcsine_one_sample(p_a, p_b, alpha, power, sides):
    """One-sample arcsine convention n = K / h^2 (the paper's Table 1 per-arm value).

    Source: Cohen (1988) Eq. 6.3.2 as quoted in paper Section 4.
    SymPy: (NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2/(4*atan2((p_a - p_b)/(sqrt(p_a)*sqrt(1 - p_b) + sqrt(p_b)*sqrt(1 - p_a)), sqrt(p_a)*sqrt(p_b) + sqrt(1 - p_a)*sqrt(1 - p_b))**2)
    """
    _t0 = numpy.sqrt(p_a)
    _t1 = numpy.sqrt(1 - p_b)
    _t2 = numpy.sqrt(p_b)
    _t3 = numpy.sqrt(1 - p_a)
    return (1/4)*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2/numpy.arctan2((p_a - p_b)/(_t0*_t1 + _t2*_t3), _t0*_t2 + _t1*_t3)**2


def required_n_arcsine_two_sample(p_a, p_b, alpha, power, sides):
    """Two-sample arcsine convention n = 2 K / h^2 per arm.

    Source: two independent arms, Var(h-hat) = 2/n.
    SymPy: (NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2/(2*atan2((p_a - p_b)/(sqrt(p_a)*sqrt(1 - p_b) + sqrt(p_b)*sqrt(1 - p_a)), sqrt(p_a)*sqrt(p_b) + sqrt(1 - p_a)*sqrt(1 - p_b))**2)
    """
    _t0 = numpy.sqrt(p_a)
    _t1 = numpy.sqrt(1 - p_b)
    _t2 = numpy.sqrt(p_b)
    _t3 = numpy.sqrt(1 - p_a)
    return (1/2)*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2/numpy.arctan2((p_a - p_b)/(_t0*_t1 + _t2*_t3), _t0*_t2 + _t1*_t3)**2


def required_n_shortcut(p_a, p_b, rho, alpha, power, sides):
    """The (1 - rho) K / h^2 shortcut n_h, which is about half of N*.

    Source: paper Eq. 9.
    SymPy: (1 - rho)*(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2/(4*atan2((p_a - p_b)/(sqrt(p_a)*sqrt(1 - p_b) + sqrt(p_b)*sqrt(1 - p_a)), sqrt(p_a)*sqrt(p_b) + sqrt(1 - p_a)*sqrt(1 - p_b))**2)
    """
    _t0 = numpy.sqrt(p_a)
    _t1 = numpy.sqrt(1 - p_b)
    _t2 = numpy.sqrt(p_b)
    _t3 = numpy.sqrt(1 - p_a)
    return (1/4)*(1 - rho)*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2/numpy.arctan2((p_a - p_b)/(_t0*_t1 + _t2*_t3), _t0*_t2 + _t1*_t3)**2
