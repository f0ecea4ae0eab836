"""Small-effect expansion of the shortcut ratio n_h / N* (paper Lemma 1, Appendix A).

The ratio of the Eq. 9 shortcut to the Eq. 6 requirement does not depend on
alpha or power:

    n_h / N* = (1 - rho) delta^2 / (h^2 sigma_D^2).

At the midpoint parametrisation p_A = p + delta/2, p_B = p - delta/2 it is
even in delta, and the derivation expands it through order delta^4:

    n_h / N* = 1/2 + c2(p, rho) delta^2 + c4(p, rho) delta^4 + O(delta^6).

The paper's Eqs. 14 and 18 are the delta^2 terms of h^2 and sigma_D^2; its
Eqs. 19-22 combine them into c2 = -(H2 + V2) / 2, so C(p, rho) = |c2| (Eq. 11).
The derivation checks the paper's H2, V2 and Eq. 22 against the series.
Corollary 1's delta* solves C delta^2 = epsilon to leading order:
delta* = sqrt(epsilon / C).

During the expansion q = 1 - p is a separate positive symbol, so that
sqrt(p^2 q^2) = p q without case analysis; results are then written in
u = p (1 - p), which keeps them symmetric under p -> 1 - p.
"""

import functools

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._symbols import delta, epsilon, p, p_a, p_b, rho
from derivations.admissible_correlation import RHO_MAX, RHO_MIN
from derivations.arcsine import COHENS_H, derive_stabilising_transform
from derivations.paired_variance import VARIANCE_FROM_MARGINALS, derive_variance_from_marginals

q, q_a, q_b = sp.symbols("q q_a q_b", positive=True)
u = sp.Symbol("u", positive=True)
_offset = sp.Symbol("offset", positive=True)
_squared = sp.Symbol("squared", positive=True)


def derive_exact_ratio():
    """n_h / N* for arbitrary (p_A, p_B, rho): alpha and power cancel."""
    transform = derive_stabilising_transform()
    h = transform.subs(p, p_a) - transform.subs(p, p_b)
    variance = derive_variance_from_marginals()
    return (1 - rho) * (p_a - p_b) ** 2 / (h**2 * variance)


@functools.cache
def _midpoint_series(order: int):
    """Series of h^2/delta^2, sigma_D^2 and n_h/N* in delta at the midpoint.

    1 - p_A and 1 - p_B are written as q -/+ delta/2 before expanding.
    Returns the three truncated series; the ratio's is in s = delta^2.
    """
    transform = derive_stabilising_transform()
    h = transform.subs(p, p + _offset / 2) - transform.subs(p, p - _offset / 2)
    h_squared = sp.series(h**2 / _offset**2, _offset, 0, order).removeO()
    variance = derive_variance_from_marginals().xreplace({p_a - 1: -q_a, p_b - 1: -q_b})
    variance = variance.subs({p_a: p + _offset / 2, p_b: p - _offset / 2, q_a: q - _offset / 2, q_b: q + _offset / 2})
    variance_series = sp.series(variance, _offset, 0, order).removeO()
    ratio_series = sp.series(
        (1 - rho) / (h_squared * variance_series).subs(_offset, sp.sqrt(_squared)), _squared, 0, order // 2
    ).removeO()
    return h_squared, variance_series, ratio_series


def _to_midpoint_form(expr):
    """Replace q by 1 - p and rewrite a symmetric rational function of p in u = p(1 - p)."""
    expr = sp.factor(sp.cancel(expr.subs(q, 1 - p)))
    numerator, denominator = sp.fraction(expr)
    rewritten = []
    for part in (numerator, denominator):
        _, remainder = sp.reduced(sp.expand(part), [p**2 - p + u], p, u, order="lex")
        if remainder.has(p):
            raise AssertionError(f"{part} is not symmetric under p -> 1 - p")
        rewritten.append(sp.factor(remainder))
    return rewritten[0] / rewritten[1]


def derive_coefficients():
    """(c2, c4) in terms of u and rho, each checked against the direct expansion."""
    _, _, ratio_series = _midpoint_series(6)
    squared = _squared
    if sp.cancel(ratio_series.coeff(squared, 0).subs(q, 1 - p) - sp.Rational(1, 2)) != 0:
        raise AssertionError("the ratio does not tend to 1/2")
    coefficients = []
    for power_of_delta in (1, 2):
        direct = ratio_series.coeff(squared, power_of_delta)
        in_u = _to_midpoint_form(direct)
        if sp.cancel(in_u.subs(u, p * (1 - p)) - direct.subs(q, 1 - p)) != 0:
            raise AssertionError("u form differs from the expansion")
        coefficients.append(in_u)
    return tuple(coefficients)


def paper_coefficients():
    """The paper's printed Eqs. 20-22 (and Eq. 11), as functions of (p, rho)."""
    uu = p * (1 - p)
    h2 = 1 / (12 * uu) + (1 - 2 * p) ** 2 / (16 * uu**2)
    v2 = rho * (1 - 2 * p) ** 2 / (8 * uu**2 * (1 - rho)) - 1 / (4 * uu)
    combined = (1 + rho) * (1 - 2 * p) ** 2 / (16 * (1 - rho) * uu**2) - 1 / (6 * uu)
    constant = sp.Rational(1, 2) * sp.Abs(combined)
    return {"H2": h2, "V2": v2, "H2+V2": combined, "C": constant}


def derive_paper_terms():
    """H2 and V2 as the derivation finds them (coefficients of delta^2 in Eqs. 14, 18)."""
    h_squared, variance_series, _ = _midpoint_series(6)
    leading_h = h_squared.coeff(_offset, 0)
    leading_v = variance_series.coeff(_offset, 0)
    h2 = sp.cancel((h_squared.coeff(_offset, 2) / leading_h).subs(q, 1 - p))
    v2 = sp.cancel((variance_series.coeff(_offset, 2) / leading_v).subs(q, 1 - p))
    return {"H2": h2, "V2": v2, "H2+V2": h2 + v2}


def derive_exact_ratio_printed():
    """The exact ratio with h in the cancellation-free form of derivations.arcsine."""
    printed = (1 - rho) * (p_a - p_b) ** 2 / (COHENS_H**2 * VARIANCE_FROM_MARGINALS)
    # COHENS_H is proven equal to the arcsine difference in derivations.arcsine.
    return printed


EXACT_RATIO_PRINTED = derive_exact_ratio_printed()


def derive_printed_form(in_u):
    """Rewrite a coefficient for evaluation.

    The numerator in s = (1 - 2p)^2 and t = 1 - rho, the denominator in u = p (1 - p) and t.

    In u and rho the numerator of c4 sums terms of size ~100 to values near
    1e-4 as (p, rho) -> (1/2, 1); in (s, t) its terms are small there and
    it vanishes only on the coefficient's own sign-change curves.
    """
    s, t = sp.symbols("s t")
    numerator, denominator = sp.fraction(sp.factor(in_u))
    numerator_st = sp.collect(sp.expand(numerator.subs({u: (1 - s) / 4, rho: 1 - t})), [t, s])
    denominator_ut = sp.factor(denominator.subs(rho, 1 - t))
    printed = (numerator_st / denominator_ut).subs({s: (1 - 2 * p) ** 2, t: 1 - rho, u: p * (1 - p)})
    if sp.cancel(printed - in_u.subs(u, p * (1 - p))) != 0:
        raise AssertionError("printed form differs from the coefficient")
    return printed


def derive_numerator_magnitude(in_u):
    """Sum of the magnitudes of the printed numerator's terms, in the same variables.

    The printed numerator is a polynomial in s = (1 - 2p)^2 >= 0 and t = 1 - rho >= 0, so
    this is the polynomial with each coefficient replaced by its absolute value.  Its ratio
    to the numerator's magnitude is the condition number of the float64 sum: the rounding
    error of the sum is at most about (terms + operations) * 2^-53 times the magnitude sum.
    """
    s, t = sp.symbols("s t", nonnegative=True)
    numerator, _ = sp.fraction(sp.factor(in_u))
    polynomial = sp.Poly(sp.expand(numerator.subs({u: (1 - s) / 4, rho: 1 - t})), s, t)
    magnitude = sum(abs(coefficient) * s**i * t**j for (i, j), coefficient in polynomial.terms())
    return magnitude.subs({s: (1 - 2 * p) ** 2, t: 1 - rho}), numerator.subs(u, p * (1 - p))


def _well_conditioned_sum(in_u):
    """Positive where the numerator's terms cancel by less than a factor of 100.

    With at most 100-fold cancellation the float64 sum of about ten terms errs by at most
    100 * 10 * 2^-53 ~ 1.1e-13 relative, inside the property test's 1e-12; beyond it the
    error grows with the cancellation (14,425-fold at p = rho = 0.77126 gave 1.2e-12).
    """
    magnitude, numerator = derive_numerator_magnitude(in_u)
    return 100 * sp.Abs(numerator) - magnitude


C2_U, C4_U = derive_coefficients()
C2 = derive_printed_form(C2_U)
C4 = derive_printed_form(C4_U)
CONSTANT = sp.Abs(C2)
SERIES = sp.Rational(1, 2) + C2 * delta**2 + C4 * delta**4
DELTA_STAR_LEADING = sp.sqrt(epsilon / CONSTANT)

_domain = {"p": (1e-3, 1 - 1e-3), "rho": (-1.0, 0.999)}
_admissible_midpoint = (
    # rho must be admissible at p_A = p_B = p: -min(p, 1 - p)/max(p, 1 - p) <= rho <= 1.
    rho + sp.Min(p, 1 - p) / sp.Max(p, 1 - p),
)

FUNCTIONS = (
    GeneratedFunction(
        name="shortcut_ratio",
        args=(p_a, p_b, rho),
        expr=EXACT_RATIO_PRINTED,
        summary="Exact n_h / N*: the (1 - rho) K/h^2 shortcut over the Eq. 6 requirement.",
        equations="paper Eqs. 6 and 9; Lemma 1",
        domain={"p_a": (1e-6, 1 - 1e-6), "p_b": (1e-6, 1 - 1e-6), "rho": (-1.0, 0.999)},
        conditions=(sp.Abs(p_a - p_b) - sp.Rational(1, 10**6), RHO_MAX - rho, rho - RHO_MIN),
        well_conditioned=(VARIANCE_FROM_MARGINALS - (p_a * (1 - p_a) + p_b * (1 - p_b)) / 1000,),
        conditioning_note="sigma_D^2 cancels when rho is near its upper bound and p_a ~ p_b; "
        "points where sigma_D^2 < 1e-3 (V_A + V_B) are excluded",
    ),
    GeneratedFunction(
        name="shortcut_ratio_c2",
        args=(p, rho),
        expr=C2,
        summary="Signed delta^2 coefficient of n_h / N* at the midpoint p +/- delta/2.",
        equations="paper Eqs. 19-22 (c2 = -(H2 + V2)/2)",
        domain=_domain,
        conditions=_admissible_midpoint,
        well_conditioned=(_well_conditioned_sum(C2_U),),
        conditioning_note="c2 changes sign on a curve in (p, rho) where its numerator's terms cancel; points "
        "where they cancel more than 100-fold are excluded (near the curve only absolute accuracy is meaningful)",
    ),
    GeneratedFunction(
        name="shortcut_ratio_c4",
        args=(p, rho),
        expr=C4,
        summary="delta^4 coefficient of n_h / N* at the midpoint p +/- delta/2.",
        equations="paper Appendix A, next order of Eq. 19",
        domain=_domain,
        conditions=_admissible_midpoint,
        well_conditioned=(_well_conditioned_sum(C4_U),),
        conditioning_note="c4 changes sign on a curve in (p, rho) where its numerator's terms cancel; points "
        "where they cancel more than 100-fold are excluded (near the curve only absolute accuracy is meaningful)",
    ),
    GeneratedFunction(
        name="shortcut_constant",
        args=(p, rho),
        expr=CONSTANT,
        summary="Lemma 1's constant C(p, rho) = |c2(p, rho)|.",
        equations="paper Eq. 11",
        domain=_domain,
        conditions=_admissible_midpoint,
        well_conditioned=(_well_conditioned_sum(C2_U),),
        conditioning_note="C vanishes on a curve in (p, rho) where its numerator's terms cancel; points "
        "where they cancel more than 100-fold are excluded (near the curve only absolute accuracy is meaningful)",
    ),
    GeneratedFunction(
        name="shortcut_ratio_series",
        args=(p, rho, delta),
        expr=SERIES,
        summary="n_h / N* through order delta^4 at the midpoint p +/- delta/2.",
        equations="paper Eq. 19 extended to delta^4",
        domain={**_domain, "delta": (-0.5, 0.5)},
        conditions=_admissible_midpoint,
        well_conditioned=(100 * sp.Abs(SERIES) - (sp.Rational(1, 2) + sp.Abs(C2) * delta**2 + sp.Abs(C4) * delta**4),),
        conditioning_note="for rho near 1 and large delta the terms c2 delta^2 and c4 delta^4 grow like "
        "1/(1 - rho)^k and cancel (the truncated series is no approximation there); points where "
        "the terms' magnitudes exceed 100 times the sum are excluded",
    ),
    GeneratedFunction(
        name="delta_star_leading_order",
        args=(p, rho, epsilon),
        expr=DELTA_STAR_LEADING,
        summary="Corollary 1's delta* = sqrt(epsilon / C(p, rho)) to leading order.",
        equations="paper Corollary 1",
        domain={**_domain, "epsilon": (1e-6, 0.5)},
        conditions=(*_admissible_midpoint, CONSTANT - sp.Rational(1, 10**6)),
        well_conditioned=(_well_conditioned_sum(C2_U),),
        conditioning_note="delta* diverges where C vanishes; points where the terms of C's numerator cancel "
        "more than 100-fold are excluded",
    ),
)
