"""Closed forms derived in derivations/wald.py.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
Source module: derivations/wald.py
SymPy version: 1.14.0
"""

import numpy
import scipy.special

__all__ = ["critical_value", "required_n_wald", "minimum_detectable_effect_wald", "resolution_ratio_wald", "z_wald", "power_wald_two_sided", "power_wald_one_sided"]


def critical_value(alpha, sides):
    """Upper-tail normal critical value z_{1 - alpha/sides}.

    Source: paper Eq. 1 rejection rule.
    SymPy: NormalUpperQuantile(alpha/sides)
    """
    return (-scipy.special.ndtri(alpha/sides))


def required_n_wald(variance, delta, alpha, power, sides):
    """Unrounded required sample size N* for a Wald test of a mean difference.

    Source: paper Eq. 3 (Eq. 6 for paired binary).
    SymPy: variance*(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2/delta**2
    """
    return variance*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2/delta**2


def minimum_detectable_effect_wald(variance, n, alpha, power, sides):
    """Smallest |delta| a Wald test with N items detects at the target power.

    Source: paper Eq. 4.
    SymPy: sqrt(variance)*(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))/sqrt(n)
    """
    return numpy.sqrt(variance)*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))/numpy.sqrt(n)


def resolution_ratio_wald(variance, delta, n, alpha, power, sides):
    """Resolution ratio q = N / N*(delta); the gap is resolvable when q >= 1.

    Source: paper Definition 1.
    SymPy: delta**2*n/(variance*(NormalUpperQuantile(alpha/sides) + NormalUpperQuantile(1 - power))**2)
    """
    return delta**2*n/(variance*((-scipy.special.ndtri(alpha/sides)) + (-scipy.special.ndtri(1 - power)))**2)


def z_wald(variance, delta, n):
    """Wald z of a paired gap, delta / sqrt(variance / n); q there is z^2 / (z_{1-alpha/sides} + z_{1-beta})^2.

    Source: paper Section 3 (T_N) and Definition 1.
    SymPy: delta*sqrt(n)/sqrt(variance)
    """
    return delta*numpy.sqrt(n)/numpy.sqrt(variance)


def power_wald_two_sided(variance, delta, n, alpha):
    """Exact two-sided power of the normal-theory Wald test (both rejection tails).

    Source: paper Eq. 2 and footnote 1.
    SymPy: NormalCDF(-sqrt(n)*Abs(delta)/sqrt(variance) - NormalUpperQuantile(alpha/2)) + NormalCDF(sqrt(n)*Abs(delta)/sqrt(variance) - NormalUpperQuantile(alpha/2))
    """
    _t0 = (-scipy.special.ndtri((1/2)*alpha))
    _t1 = numpy.sqrt(n)*abs(delta)/numpy.sqrt(variance)
    return scipy.special.ndtr(-_t0 - _t1) + scipy.special.ndtr(-_t0 + _t1)


def power_wald_one_sided(variance, delta, n, alpha):
    """Power of the one-sided Wald test of H1: delta > 0 (signed delta).

    Source: paper Eq. 2, one-sided.
    SymPy: NormalCDF(delta*sqrt(n)/sqrt(variance) - NormalUpperQuantile(alpha))
    """
    return scipy.special.ndtr(delta*numpy.sqrt(n)/numpy.sqrt(variance) - (-scipy.special.ndtri(alpha)))
