"""Closed forms derived in derivations/shortcut_series.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/shortcut_series.py
SymPy version: 1.14.0
"""

import numpy

__all__ = ["shortcut_ratio", "shortcut_ratio_c2", "shortcut_ratio_c4", "shortcut_constant", "shortcut_ratio_series", "delta_star_leading_order"]


def shortcut_ratio(p_a, p_b, rho):
    """Exact n_h / N*: the (1 - rho) K/h^2 shortcut over the Eq. 6 requirement.

    Source: paper Eqs. 6 and 9; Lemma 1.
    SymPy: (1 - rho)*(p_a - p_b)**2/(4*(-2*sqrt(p_a)*sqrt(p_b)*rho*sqrt((p_a - 1)*(p_b - 1)) - p_a*(p_a - 1) - p_b*(p_b - 1))*atan2((p_a - p_b)/(sqrt(p_a)*sqrt(1 - p_b) + sqrt(p_b)*sqrt(1 - p_a)), sqrt(p_a)*sqrt(p_b) + sqrt(1 - p_a)*sqrt(1 - p_b))**2)
    """
    _t0 = p_a - p_b
    _t1 = p_a - 1
    _t2 = p_b - 1
    _t3 = numpy.sqrt(p_a)
    _t4 = numpy.sqrt(p_b)
    _t5 = _t3*_t4
    _t6 = numpy.sqrt(-_t2)
    _t7 = numpy.sqrt(-_t1)
    return (1/4)*_t0**2*(1 - rho)/((-_t1*p_a - _t2*p_b - 2*_t5*rho*numpy.sqrt(_t1*_t2))*numpy.arctan2(_t0/(_t3*_t6 + _t4*_t7), _t5 + _t6*_t7)**2)


def shortcut_ratio_c2(p, rho):
    """Signed delta^2 coefficient of n_h / N* at the midpoint p +/- delta/2.

    Source: paper Eqs. 19-22 (c2 = -(H2 + V2)/2).
    SymPy: -(6*(1 - 2*p)**2 + (1 - rho)*(-(1 - 2*p)**2 - 2))/(96*p**2*(1 - p)**2*(1 - rho))
    """
    _t0 = 1 - rho
    _t1 = (1 - 2*p)**2
    return -1/96*(_t0*(-_t1 - 2) + 6*_t1)/(_t0*p**2*(1 - p)**2)


def shortcut_ratio_c4(p, rho):
    """delta^4 coefficient of n_h / N* at the midpoint p +/- delta/2.

    Source: paper Appendix A, next order of Eq. 19.
    SymPy: (60*(1 - 2*p)**4 + (1 - rho)**2*(4*(1 - 2*p)**4 + 32*(1 - 2*p)**2 + 9) + (1 - rho)*(-40*(1 - 2*p)**4 - 80*(1 - 2*p)**2))/(7680*p**4*(1 - p)**4*(1 - rho)**2)
    """
    _t0 = 1 - rho
    _t1 = _t0**2
    _t2 = 1 - 2*p
    _t3 = _t2**4
    _t4 = _t2**2
    return (1/7680)*(_t0*(-40*_t3 - 80*_t4) + _t1*(4*_t3 + 32*_t4 + 9) + 60*_t3)/(_t1*p**4*(1 - p)**4)


def shortcut_constant(p, rho):
    """Lemma 1's constant C(p, rho) = |c2(p, rho)|.

    Source: paper Eq. 11.
    SymPy: Abs((6*(2*p - 1)**2 + (rho - 1)*((2*p - 1)**2 + 2))/((p - 1)**2*(rho - 1)))/(96*p**2)
    """
    _t0 = rho - 1
    _t1 = (2*p - 1)**2
    return (1/96)*abs((_t0*(_t1 + 2) + 6*_t1)/(_t0*(p - 1)**2))/p**2


def shortcut_ratio_series(p, rho, delta):
    """n_h / N* through order delta^4 at the midpoint p +/- delta/2.

    Source: paper Eq. 19 extended to delta^4.
    SymPy: delta**4*(60*(1 - 2*p)**4 + (1 - rho)**2*(4*(1 - 2*p)**4 + 32*(1 - 2*p)**2 + 9) + (1 - rho)*(-40*(1 - 2*p)**4 - 80*(1 - 2*p)**2))/(7680*p**4*(1 - p)**4*(1 - rho)**2) - delta**2*(6*(1 - 2*p)**2 + (1 - rho)*(-(1 - 2*p)**2 - 2))/(96*p**2*(1 - p)**2*(1 - rho)) + 1/2
    """
    _t0 = 1 - p
    _t1 = 1 - rho
    _t2 = 1 - 2*p
    _t3 = _t2**2
    _t4 = _t1**2
    _t5 = _t2**4
    return 1/2 - 1/96*delta**2*(_t1*(-_t3 - 2) + 6*_t3)/(_t0**2*_t1*p**2) + (1/7680)*delta**4*(_t1*(-80*_t3 - 40*_t5) + _t4*(32*_t3 + 4*_t5 + 9) + 60*_t5)/(_t0**4*_t4*p**4)


def delta_star_leading_order(p, rho, epsilon):
    """Corollary 1's delta* = sqrt(epsilon / C(p, rho)) to leading order.

    Source: paper Corollary 1.
    SymPy: 4*sqrt(6)*sqrt(epsilon)*p/sqrt(Abs((6*(2*p - 1)**2 + (rho - 1)*((2*p - 1)**2 + 2))/((p - 1)**2*(rho - 1))))
    """
    _t0 = rho - 1
    _t1 = (2*p - 1)**2
    return 4*numpy.sqrt(6)*numpy.sqrt(epsilon)*p/numpy.sqrt(abs((_t0*(_t1 + 2) + 6*_t1)/(_t0*(p - 1)**2)))
