"""Closed forms derived in derivations/margin_score.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/margin_score.py
SymPy version: 1.14.0
"""

import numpy
import scipy.special

__all__ = ["restricted_p01_tango", "margin_null_variance_tango", "margin_score_z_tango", "power_score_one_sided", "required_n_score_one_sided"]


def restricted_p01_tango(b, c, n, margin):
    """Tango's restricted MLE of p01 under H0: p10 - p01 = margin (the stable form of his root).

    Source: Tango (1998) Eq. 3.
    SymPy: Piecewise((Piecewise(((b + c + sqrt(8*c*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (-b + c + 2*n)*Abs(margin))**2) - (-b + c + 2*n)*Abs(margin))/(4*n), b + c - (-b + c + 2*n)*Abs(margin) > 0), (0, Eq(c*(1 - Abs(margin))*Abs(margin), 0)), (2*c*(1 - Abs(margin))*Abs(margin)/(-b - c + sqrt(8*c*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (-b + c + 2*n)*Abs(margin))**2) + (-b + c + 2*n)*Abs(margin)), True)), margin >= 0), (Piecewise(((b + c + sqrt(8*b*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (b - c + 2*n)*Abs(margin))**2) - (b - c + 2*n)*Abs(margin))/(4*n), b + c - (b - c + 2*n)*Abs(margin) > 0), (0, Eq(b*(1 - Abs(margin))*Abs(margin), 0)), (2*b*(1 - Abs(margin))*Abs(margin)/(-b - c + sqrt(8*b*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (b - c + 2*n)*Abs(margin))**2) + (b - c + 2*n)*Abs(margin)), True)) + Abs(margin), True))
    """
    _t0 = abs(margin)
    _t1 = _t0*(1 - _t0)
    _t2 = _t1*c
    _t3 = 8*n
    _t4 = 2*n
    _t5 = b + c
    _t6 = -_t0*(_t4 - b + c) + _t5
    _t7 = numpy.sqrt(_t2*_t3 + _t6**2)
    _t8 = (1/4)/n
    _t9 = _t1*b
    _t10 = -_t0*(_t4 + b - c) + _t5
    _t11 = numpy.sqrt(_t10**2 + _t3*_t9)
    return numpy.select([numpy.greater_equal(margin, 0),True], [numpy.select([numpy.greater(_t6, 0),numpy.equal(_t2, 0),True], [_t8*(_t6 + _t7),0,2*_t2/(-_t6 + _t7)], default=numpy.nan),_t0 + numpy.select([numpy.greater(_t10, 0),numpy.equal(_t9, 0),True], [_t8*(_t10 + _t11),0,2*_t9/(-_t10 + _t11)], default=numpy.nan)], default=numpy.nan)


def margin_null_variance_tango(b, c, n, margin):
    """p10~ + p01~ - margin^2 at Tango's restricted MLE: n times the null variance of the gap estimate.

    Source: Tango (1998) Eq. 2 denominator.
    SymPy: (1 - Abs(margin))*Abs(margin) + 2*Piecewise((Piecewise(((b + c + sqrt(8*c*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (-b + c + 2*n)*Abs(margin))**2) - (-b + c + 2*n)*Abs(margin))/(4*n), b + c - (-b + c + 2*n)*Abs(margin) > 0), (0, Eq(c*(1 - Abs(margin))*Abs(margin), 0)), (2*c*(1 - Abs(margin))*Abs(margin)/(-b - c + sqrt(8*c*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (-b + c + 2*n)*Abs(margin))**2) + (-b + c + 2*n)*Abs(margin)), True)), margin >= 0), (Piecewise(((b + c + sqrt(8*b*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (b - c + 2*n)*Abs(margin))**2) - (b - c + 2*n)*Abs(margin))/(4*n), b + c - (b - c + 2*n)*Abs(margin) > 0), (0, Eq(b*(1 - Abs(margin))*Abs(margin), 0)), (2*b*(1 - Abs(margin))*Abs(margin)/(-b - c + sqrt(8*b*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (b - c + 2*n)*Abs(margin))**2) + (b - c + 2*n)*Abs(margin)), True)), True))
    """
    _t0 = abs(margin)
    _t1 = _t0*(1 - _t0)
    _t2 = _t1*c
    _t3 = 8*n
    _t4 = 2*n
    _t5 = b + c
    _t6 = -_t0*(_t4 - b + c) + _t5
    _t7 = numpy.sqrt(_t2*_t3 + _t6**2)
    _t8 = (1/4)/n
    _t9 = _t1*b
    _t10 = -_t0*(_t4 + b - c) + _t5
    _t11 = numpy.sqrt(_t10**2 + _t3*_t9)
    return _t1 + 2*numpy.select([numpy.greater_equal(margin, 0),True], [numpy.select([numpy.greater(_t6, 0),numpy.equal(_t2, 0),True], [_t8*(_t6 + _t7),0,2*_t2/(-_t6 + _t7)], default=numpy.nan),numpy.select([numpy.greater(_t10, 0),numpy.equal(_t9, 0),True], [_t8*(_t10 + _t11),0,2*_t9/(-_t10 + _t11)], default=numpy.nan)], default=numpy.nan)


def margin_score_z_tango(b, c, n, margin):
    """Tango's score statistic for H0: p10 - p01 = margin.

    Source: Tango (1998) Eq. 2.
    SymPy: (b - c - margin*n)/(sqrt(n)*sqrt((1 - Abs(margin))*Abs(margin) + 2*Piecewise((Piecewise(((b + c + sqrt(8*c*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (-b + c + 2*n)*Abs(margin))**2) - (-b + c + 2*n)*Abs(margin))/(4*n), b + c - (-b + c + 2*n)*Abs(margin) > 0), (0, Eq(c*(1 - Abs(margin))*Abs(margin), 0)), (2*c*(1 - Abs(margin))*Abs(margin)/(-b - c + sqrt(8*c*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (-b + c + 2*n)*Abs(margin))**2) + (-b + c + 2*n)*Abs(margin)), True)), margin >= 0), (Piecewise(((b + c + sqrt(8*b*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (b - c + 2*n)*Abs(margin))**2) - (b - c + 2*n)*Abs(margin))/(4*n), b + c - (b - c + 2*n)*Abs(margin) > 0), (0, Eq(b*(1 - Abs(margin))*Abs(margin), 0)), (2*b*(1 - Abs(margin))*Abs(margin)/(-b - c + sqrt(8*b*n*(1 - Abs(margin))*Abs(margin) + (-b - c + (b - c + 2*n)*Abs(margin))**2) + (b - c + 2*n)*Abs(margin)), True)), True))))
    """
    _t0 = -b + c
    _t1 = abs(margin)
    _t2 = _t1*(1 - _t1)
    _t3 = _t2*c
    _t4 = 8*n
    _t5 = 2*n
    _t6 = b + c
    _t7 = -_t1*(_t0 + _t5) + _t6
    _t8 = numpy.sqrt(_t3*_t4 + _t7**2)
    _t9 = (1/4)/n
    _t10 = _t2*b
    _t11 = -_t1*(_t5 + b - c) + _t6
    _t12 = numpy.sqrt(_t10*_t4 + _t11**2)
    return (-_t0 - margin*n)/(numpy.sqrt(n)*numpy.sqrt(_t2 + 2*numpy.select([numpy.greater_equal(margin, 0),True], [numpy.select([numpy.greater(_t7, 0),numpy.equal(_t3, 0),True], [_t9*(_t7 + _t8),0,2*_t3/(-_t7 + _t8)], default=numpy.nan),numpy.select([numpy.greater(_t11, 0),numpy.equal(_t10, 0),True], [_t9*(_t11 + _t12),0,2*_t10/(-_t11 + _t12)], default=numpy.nan)], default=numpy.nan)))


def power_score_one_sided(p10, p01, n, margin, alpha):
    """Nam's power of the score test of H0: p10 - p01 <= margin at true cells p10, p01.

    Source: Nam (1997) Section 3.
    SymPy: NormalCDF((sqrt(n)*(-margin - p01 + p10) - sqrt((1 - Abs(margin))*Abs(margin) + 2*Piecewise((Piecewise((p01/4 + p10/4 + sqrt(8*p01*(1 - Abs(margin))*Abs(margin) + (-p01 - p10 + (p01 - p10 + 2)*Abs(margin))**2)/4 - (p01 - p10 + 2)*Abs(margin)/4, p01 + p10 - (p01 - p10 + 2)*Abs(margin) > 0), (0, Eq(p01*(1 - Abs(margin))*Abs(margin), 0)), (2*p01*(1 - Abs(margin))*Abs(margin)/(-p01 - p10 + sqrt(8*p01*(1 - Abs(margin))*Abs(margin) + (-p01 - p10 + (p01 - p10 + 2)*Abs(margin))**2) + (p01 - p10 + 2)*Abs(margin)), True)), margin >= 0), (Piecewise((p01/4 + p10/4 + sqrt(8*p10*(1 - Abs(margin))*Abs(margin) + (-p01 - p10 + (-p01 + p10 + 2)*Abs(margin))**2)/4 - (-p01 + p10 + 2)*Abs(margin)/4, p01 + p10 - (-p01 + p10 + 2)*Abs(margin) > 0), (0, Eq(p10*(1 - Abs(margin))*Abs(margin), 0)), (2*p10*(1 - Abs(margin))*Abs(margin)/(-p01 - p10 + sqrt(8*p10*(1 - Abs(margin))*Abs(margin) + (-p01 - p10 + (-p01 + p10 + 2)*Abs(margin))**2) + (-p01 + p10 + 2)*Abs(margin)), True)), True)))*NormalUpperQuantile(alpha))/sqrt(p01 + p10 - (-p01 + p10)**2))
    """
    _t0 = p01 - p10
    _t1 = p01 + p10
    _t2 = abs(margin)
    _t3 = _t2*(1 - _t2)
    _t4 = _t3*p01
    _t5 = _t0 + 2
    _t6 = _t1 - _t2*_t5
    _t7 = numpy.sqrt(8*_t4 + _t6**2)
    _t8 = (1/4)*p01 + (1/4)*p10
    _t9 = _t3*p10
    _t10 = -p01 + p10 + 2
    _t11 = _t1 - _t10*_t2
    _t12 = numpy.sqrt(_t11**2 + 8*_t9)
    return scipy.special.ndtr((numpy.sqrt(n)*(-_t0 - margin) - numpy.sqrt(_t3 + 2*numpy.select([numpy.greater_equal(margin, 0),True], [numpy.select([numpy.greater(_t6, 0),numpy.equal(_t4, 0),True], [-1/4*_t2*_t5 + (1/4)*_t7 + _t8,0,2*_t4/(-_t6 + _t7)], default=numpy.nan),numpy.select([numpy.greater(_t11, 0),numpy.equal(_t9, 0),True], [-1/4*_t10*_t2 + (1/4)*_t12 + _t8,0,2*_t9/(-_t11 + _t12)], default=numpy.nan)], default=numpy.nan))*(-scipy.special.ndtri(alpha)))/numpy.sqrt(-_t0**2 + _t1))


def required_n_score_one_sided(p10, p01, margin, alpha, power):
    """Nam's unrounded N for the one-sided score test of H0: p10 - p01 <= margin.

    Source: Nam (1997) Section 3.
    SymPy: (sqrt((1 - Abs(margin))*Abs(margin) + 2*Piecewise((Piecewise((p01/4 + p10/4 + sqrt(8*p01*(1 - Abs(margin))*Abs(margin) + (-p01 - p10 + (p01 - p10 + 2)*Abs(margin))**2)/4 - (p01 - p10 + 2)*Abs(margin)/4, p01 + p10 - (p01 - p10 + 2)*Abs(margin) > 0), (0, Eq(p01*(1 - Abs(margin))*Abs(margin), 0)), (2*p01*(1 - Abs(margin))*Abs(margin)/(-p01 - p10 + sqrt(8*p01*(1 - Abs(margin))*Abs(margin) + (-p01 - p10 + (p01 - p10 + 2)*Abs(margin))**2) + (p01 - p10 + 2)*Abs(margin)), True)), margin >= 0), (Piecewise((p01/4 + p10/4 + sqrt(8*p10*(1 - Abs(margin))*Abs(margin) + (-p01 - p10 + (-p01 + p10 + 2)*Abs(margin))**2)/4 - (-p01 + p10 + 2)*Abs(margin)/4, p01 + p10 - (-p01 + p10 + 2)*Abs(margin) > 0), (0, Eq(p10*(1 - Abs(margin))*Abs(margin), 0)), (2*p10*(1 - Abs(margin))*Abs(margin)/(-p01 - p10 + sqrt(8*p10*(1 - Abs(margin))*Abs(margin) + (-p01 - p10 + (-p01 + p10 + 2)*Abs(margin))**2) + (-p01 + p10 + 2)*Abs(margin)), True)), True)))*NormalUpperQuantile(alpha) + sqrt(p01 + p10 - (-p01 + p10)**2)*NormalUpperQuantile(1 - power))**2/(-margin - p01 + p10)**2
    """
    _t0 = p01 - p10
    _t1 = p01 + p10
    _t2 = abs(margin)
    _t3 = _t2*(1 - _t2)
    _t4 = _t3*p01
    _t5 = _t0 + 2
    _t6 = _t1 - _t2*_t5
    _t7 = numpy.sqrt(8*_t4 + _t6**2)
    _t8 = (1/4)*p01 + (1/4)*p10
    _t9 = _t3*p10
    _t10 = -p01 + p10 + 2
    _t11 = _t1 - _t10*_t2
    _t12 = numpy.sqrt(_t11**2 + 8*_t9)
    return (numpy.sqrt(-_t0**2 + _t1)*(-scipy.special.ndtri(1 - power)) + numpy.sqrt(_t3 + 2*numpy.select([numpy.greater_equal(margin, 0),True], [numpy.select([numpy.greater(_t6, 0),numpy.equal(_t4, 0),True], [-1/4*_t2*_t5 + (1/4)*_t7 + _t8,0,2*_t4/(-_t6 + _t7)], default=numpy.nan),numpy.select([numpy.greater(_t11, 0),numpy.equal(_t9, 0),True], [-1/4*_t10*_t2 + (1/4)*_t12 + _t8,0,2*_t9/(-_t11 + _t12)], default=numpy.nan)], default=numpy.nan))*(-scipy.special.ndtri(alpha)))**2/(-_t0 - margin)**2
