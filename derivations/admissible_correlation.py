"""Admissible Bernoulli correlations for given marginals (paper Eqs. 7-8).

All four cell probabilities must be non-negative:
p11 >= 0, p10 = p_A - p11 >= 0, p01 = p_B - p11 >= 0, p00 = 1 - p_A - p_B + p11 >= 0,
so max(0, p_A + p_B - 1) <= p11 <= min(p_A, p_B).  Since rho is increasing in
p11 (rho = (p11 - p_A p_B) / sqrt(V_A V_B)), the bounds on p11 give the
Hoeffding-Frechet interval [rho_min, rho_max].  The derivation checks, branch
by branch, that it equals the paper's ratio form

    rho_max = sqrt(min(p_A q_B, q_A p_B) / max(p_A q_B, q_A p_B)),
    rho_min = -sqrt(min(p_A p_B, q_A q_B) / max(p_A p_B, q_A q_B)),

which is what is printed, because it never subtracts nearly equal numbers.
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._symbols import p_a, p_b

q_a, q_b = 1 - p_a, 1 - p_b


def derive_cell_bounds():
    """Lower and upper bound on p11 from the non-negativity of the four cells.

    Each cell gives a linear inequality in p11; the interval is the
    intersection of the four half-lines.
    """
    both = sp.Symbol("p11", real=True)
    cells = [both, p_a - both, p_b - both, 1 - p_a - p_b + both]
    lower, upper = [], []
    for cell in cells:
        slope = sp.diff(cell, both)
        root = sp.solve(sp.Eq(cell, 0), both)[0]
        (lower if slope > 0 else upper).append(root)
    return sp.Max(*lower), sp.Min(*upper)


def _correlation_at(both):
    return (both - p_a * p_b) / sp.sqrt(p_a * q_a * p_b * q_b)


def derive_bounds():
    """(rho_min, rho_max), checked against the ratio form on every branch."""
    lower, upper = derive_cell_bounds()
    rho_max = sp.sqrt(sp.Min(p_a * q_b, q_a * p_b) / sp.Max(p_a * q_b, q_a * p_b))
    rho_min = -sp.sqrt(sp.Min(p_a * p_b, q_a * q_b) / sp.Max(p_a * p_b, q_a * q_b))
    # Branch p_A <= p_B: upper bound p_A, and p_A q_B <= q_A p_B.
    # Branch p_A >  p_B: upper bound p_B, and q_A p_B <  p_A q_B.
    branches_max = [(p_a, p_a * q_b, q_a * p_b), (p_b, q_a * p_b, p_a * q_b)]
    branches_min = [(sp.S.Zero, p_a * p_b, q_a * q_b), (p_a + p_b - 1, q_a * q_b, p_a * p_b)]
    if set(upper.args) != {p_a, p_b} or set(lower.args) != {sp.S.Zero, p_a + p_b - 1}:
        raise AssertionError("unexpected cell bounds")
    for both, small, large in branches_max:
        derived = _correlation_at(both)
        if sp.cancel(derived**2 - small / large) != 0:
            raise AssertionError("Eq. 7 differs from the cell bound")
    for both, small, large in branches_min:
        derived = _correlation_at(both)
        if sp.cancel(derived**2 - small / large) != 0:
            raise AssertionError("Eq. 8 differs from the cell bound")
    return rho_min, rho_max


RHO_MIN, RHO_MAX = derive_bounds()

_domain = {"p_a": (1e-9, 1 - 1e-9), "p_b": (1e-9, 1 - 1e-9)}

FUNCTIONS = (
    GeneratedFunction(
        name="rho_lower_bound",
        args=(p_a, p_b),
        expr=RHO_MIN,
        summary="Smallest attainable Bernoulli correlation for marginals p_a, p_b.",
        equations="paper Eq. 8 (Hoeffding-Frechet bound)",
        domain=_domain,
    ),
    GeneratedFunction(
        name="rho_upper_bound",
        args=(p_a, p_b),
        expr=RHO_MAX,
        summary="Largest attainable Bernoulli correlation for marginals p_a, p_b.",
        equations="paper Eq. 7 (Hoeffding-Frechet bound)",
        domain=_domain,
    ),
)
