"""Inflation of N* under a family-wise alpha correction (paper Sections 6.2-6.3).

Replacing alpha by a per-comparison level alpha' in Eq. 3 multiplies N* by

    (z_{1-alpha'/2} + z_{1-beta})^2 / (z_{1-alpha/2} + z_{1-beta})^2,

whatever the variance and the effect.  Bonferroni uses alpha' = alpha / m;
Sidak uses alpha' = 1 - (1 - alpha)^(1/m), written -expm1(log1p(-alpha)/m)
so that it stays accurate for large families.  Holm's step-down level is
never smaller than Bonferroni's, so the Bonferroni factor bounds Holm's.
"""

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p

from derivations._codegen import GeneratedFunction
from derivations._functions import NormalUpperQuantile
from derivations._symbols import alpha, delta, family_size, power, sides, variance
from derivations.wald import REQUIRED_N


def bonferroni_level():
    """The Bonferroni level alpha / m."""
    return alpha / family_size


def sidak_level():
    """1 - (1 - alpha)^(1/m), checked against its expm1/log1p form."""
    plain = 1 - (1 - alpha) ** (1 / family_size)
    stable = -expm1(log1p(-alpha) / family_size)
    survival = sp.Symbol("survival", positive=True)  # 1 - alpha > 0
    difference = (plain - stable.rewrite(sp.exp).rewrite(sp.log)).subs(alpha, 1 - survival)
    if sp.simplify(sp.powsimp(sp.expand_log(difference, force=True), force=True)) != 0:
        raise AssertionError("Sidak level rearrangement is wrong")
    return stable


def derive_inflation(level):
    """N*(alpha') / N*(alpha): variance and effect cancel."""
    ratio = REQUIRED_N.subs(alpha, level) / REQUIRED_N
    ratio = sp.simplify(ratio)
    if ratio.has(variance) or ratio.has(delta):
        raise AssertionError("inflation should not depend on the variance or the effect")
    return ratio


BONFERRONI = derive_inflation(bonferroni_level())
SIDAK = derive_inflation(sidak_level())

_domain = {"family_size": (1.0, 1e6), "alpha": (1e-6, 0.5), "power": (0.5, 1 - 1e-6), "sides": (1, 2)}

# The inflation divides by z_{alpha/sides} + z_{1-power}, which is 0 at alpha/sides = 1/2 and power = 1/2. Near there
# the inputs' own rounding (half an ulp of alpha or power, times dz/dp <= 1/phi(0) = 2.5) moves the sum by about 3e-16,
# so the relative error is about 1e-15 / sum: held to 1e-12 only where the sum is at least 1/100 (a margin of 10 at that
# edge).
_CONDITIONING = (NormalUpperQuantile(alpha / sides) + NormalUpperQuantile(1 - power) - sp.Rational(1, 100),)
_CONDITIONING_NOTE = (
    "ill-conditioned where z_{alpha/sides} + z_{1-power} is near 0 (alpha/sides and power both near 1/2): "
    "the inputs' rounding alone gives a relative error of about 1e-15 divided by that sum"
)

FUNCTIONS = (
    GeneratedFunction(
        name="bonferroni_inflation",
        args=(family_size, alpha, power, sides),
        expr=BONFERRONI,
        summary="Factor by which N* grows when alpha is replaced by alpha / m (Bonferroni).",
        equations="paper Sections 3 and 6.3",
        domain=_domain,
        conditions=(power - alpha,),
        log_scale=frozenset({"family_size", "alpha"}),
        integer_args=frozenset({"sides"}),
        well_conditioned=_CONDITIONING,
        conditioning_note=_CONDITIONING_NOTE,
    ),
    GeneratedFunction(
        name="sidak_inflation",
        args=(family_size, alpha, power, sides),
        expr=SIDAK,
        summary="Factor by which N* grows when alpha is replaced by 1 - (1 - alpha)^(1/m) (Sidak).",
        equations="paper Section 6.3",
        domain=_domain,
        conditions=(power - alpha,),
        log_scale=frozenset({"family_size", "alpha"}),
        integer_args=frozenset({"sides"}),
        well_conditioned=_CONDITIONING,
        conditioning_note=_CONDITIONING_NOTE,
    ),
)
