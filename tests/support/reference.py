"""Evaluate derived SymPy expressions in mpmath at high precision.

Used only by the tests: the generated float64 code is compared with the same
SymPy expression evaluated by mpmath at 50 significant digits.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from derivations._functions import MPMATH_IMPLEMENTATIONS

DIGITS = 50


def mpmath_callable(args, expr):
    """lambdify ``expr`` to mpmath, with the project's special functions."""
    return sp.lambdify(args, expr, modules=[MPMATH_IMPLEMENTATIONS, "mpmath"])


def evaluate(function, callable_, values, digits: int = DIGITS):
    """Evaluate at exactly the given float inputs with ``digits`` significant digits."""
    with mpmath.workdps(digits):
        return callable_(*[mpmath.mpf(value) for value in values])


def relative_error(approximate: float, exact) -> float:
    if exact == 0:
        return abs(approximate)
    return float(abs((mpmath.mpf(approximate) - exact) / exact))
