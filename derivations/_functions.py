"""Special functions the derivations need but SymPy cannot print or evaluate well.

SymPy rewrites ``erfc(-x)`` as ``2 - erfc(x)`` on construction, which loses all
relative precision in the lower tail, and it can neither print nor ``evalf``
``erfcinv``.  The two functions below stand for the standard normal CDF and
its upper-tail quantile.  They print to ``scipy.special.ndtr`` and
``scipy.special.ndtri`` (accurate in both tails) and evaluate in mpmath at any
precision, so a derived expression can be checked against a 50-digit
reference without going through a lossy rewrite.
"""

from __future__ import annotations

import mpmath
import sympy as sp


class NormalCDF(sp.Function):
    """Standard normal distribution function Phi(x)."""

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x is sp.S.Zero:
            return sp.S.Half
        if x is sp.S.Infinity:
            return sp.S.One
        if x is sp.S.NegativeInfinity:
            return sp.S.Zero
        return None

    def fdiff(self, argindex=1):
        x = self.args[0]
        return sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi)

    def _eval_evalf(self, prec):
        x = self.args[0]._to_mpmath(prec)
        with mpmath.workprec(prec):
            return sp.Float(mpmath.ncdf(x), precision=prec)

    def _eval_rewrite_as_erfc(self, x, **kwargs):
        return sp.erfc(-x / sp.sqrt(2)) / 2


class NormalUpperQuantile(sp.Function):
    """Upper-tail standard normal quantile: the z with 1 - Phi(z) = x.

    ``NormalUpperQuantile(alpha / 2)`` is the two-sided critical value
    z_{1 - alpha/2}; written this way it stays accurate for tiny alpha, where
    ``1 - alpha/2`` would round to one.
    """

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x is sp.S.Half:
            return sp.S.Zero
        return None

    def fdiff(self, argindex=1):
        z = self
        return -sp.sqrt(2 * sp.pi) * sp.exp(z**2 / 2)

    def _eval_evalf(self, prec):
        x = self.args[0]._to_mpmath(prec)
        return sp.Float(mpmath_upper_quantile(x, prec), precision=prec)


def mpmath_normal_cdf(x):
    """Phi(x) in the current mpmath precision."""
    return mpmath.ncdf(x)


def mpmath_upper_quantile(x, prec: int | None = None):
    """The z with 1 - Phi(z) = x, solved by Newton's method in log space.

    Working in log(1 - Phi(z)) keeps the iteration well scaled for x as small
    as 1e-300 and beyond.  The starting point is the float quantile.
    """
    from scipy.special import ndtri

    prec = mpmath.mp.prec if prec is None else prec
    with mpmath.workprec(prec + 40):
        x = mpmath.mpf(x)
        if not 0 < x < 1:
            raise ValueError(f"x must lie in (0, 1), got {x}")
        # The start of Newton's method: the tail's leading term below float64's range, scipy's quantile above it.
        z = mpmath.sqrt(-2 * mpmath.log(x)) if x < mpmath.mpf("1e-300") else mpmath.mpf(-float(ndtri(float(x))))
        target = mpmath.log(x)
        for _ in range(200):
            tail = mpmath.ncdf(-z)
            f = mpmath.log(tail) - target
            step = f * tail / mpmath.npdf(z)
            z += step
            if abs(step) < mpmath.mpf(2) ** (-(prec + 20)) * max(1, abs(z)):
                break
        else:  # pragma: no cover - Newton converges in a handful of steps
            raise ArithmeticError(f"upper quantile did not converge for x = {x}")
    return +z


#: Printed names in generated code, keyed by the SymPy function class name.
SCIPY_NAMES = {"NormalCDF": "scipy.special.ndtr", "NormalUpperQuantile": "-scipy.special.ndtri"}

#: mpmath implementations for lambdify, keyed by the SymPy function class name.
MPMATH_IMPLEMENTATIONS = {"NormalCDF": mpmath_normal_cdf, "NormalUpperQuantile": mpmath_upper_quantile}
