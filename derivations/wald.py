"""Wald inversion: required N*, minimum detectable effect, resolution ratio, power.

Paper (arXiv 2605.30315) Section 3: with T_N = delta-hat / (sigma_D / sqrt(N))
approximately N(mu, 1), mu = delta sqrt(N) / sigma_D, the two-sided level-alpha
test rejects when |T_N| >= z_{1-alpha/2}.  Its exact power under the normal
model is the sum of both tails (paper footnote 1):

    pi_N = Phi(-z - mu) + Phi(mu - z).

Keeping only the dominant tail, Phi(mu - z) = 1 - beta, and solving for N
gives Eq. 3 (and Eq. 6 once sigma_D^2 is the paired-binary variance of Eq. 5);
solving for delta gives the MDE of Eq. 4.  The resolution ratio of Definition 1
is q = N / N*, which the derivation shows equals T_N^2 / (z_{1-alpha/2} + z_{1-beta})^2.
At an observed gap and variance, T_N is the audit's Wald z (column ``z_wald``),
delta-hat / sqrt(sigma_D^2 / N), and q at the observed gap is z_wald^2 / K.

One-sided tests use z_{1-alpha} in place of z_{1-alpha/2}; the generated
functions take ``sides`` (1 or 2) and use the upper quantile at alpha / sides.
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._functions import NormalCDF, NormalUpperQuantile
from derivations._symbols import alpha, delta, n, power, sides, variance

critical_value = NormalUpperQuantile(alpha / sides)
power_quantile = NormalUpperQuantile(1 - power)
#: (z_{1-alpha/sides} + z_{1-beta})^2, the factor shared by every normal-theory N.
WALD_K = (critical_value + power_quantile) ** 2


def derive_noncentrality(effect=delta, size=n, var=variance):
    """Mean of the Wald statistic under the alternative, delta sqrt(N) / sigma_D."""
    return effect * sp.sqrt(size / var)


def derive_wald_z():
    """The Wald statistic T_N = delta / sqrt(sigma_D^2 / N) at a gap and variance, written as its definition."""
    return delta / sp.sqrt(variance / n)


def derive_two_sided_power():
    """P(|T| >= z) for T ~ N(mu, 1): upper tail plus lower tail."""
    mu = derive_noncentrality(sp.Abs(delta))
    z = NormalUpperQuantile(alpha / 2)
    upper_tail = 1 - NormalCDF(z - mu)
    lower_tail = NormalCDF(-z - mu)
    # 1 - Phi(x) = Phi(-x): printed that way to keep precision in the tail.
    return NormalCDF(mu - z) + lower_tail, upper_tail


def derive_one_sided_power():
    """P(T >= z_{1-alpha}) for T ~ N(mu, 1) with signed mu (alternative 'larger')."""
    mu = derive_noncentrality()
    return NormalCDF(mu - NormalUpperQuantile(alpha))


def _dominant_tail_equation(unknown_size=n, unknown_effect=delta):
    """The equation mu - z_crit = z_power: the dominant-tail power equals the target."""
    mu = derive_noncentrality(unknown_effect, unknown_size)
    return sp.Eq(mu - critical_value, power_quantile)


def derive_required_n():
    """Solve the dominant-tail equation for N (Eq. 3)."""
    positive_effect = sp.Symbol("delta", positive=True)
    equation = _dominant_tail_equation(unknown_effect=positive_effect)
    (solution,) = sp.solve(equation, n)
    return sp.factor(solution).subs(positive_effect, delta)


def derive_minimum_detectable_effect():
    """Solve the dominant-tail equation for delta > 0 (Eq. 4)."""
    positive_effect = sp.Symbol("delta", positive=True)
    equation = _dominant_tail_equation(unknown_effect=positive_effect)
    (solution,) = sp.solve(equation, positive_effect)
    return solution


def derive_resolution_ratio():
    """The resolution ratio q = N / N*(delta), Definition 1."""
    return sp.factor(n / derive_required_n())


def derive_resolution_ratio_wald_identity():
    """The difference q - T_N^2 / (z_crit + z_power)^2, which simplifies to zero.

    q at the observed gap is z_wald^2 / K.
    """
    statistic = derive_wald_z()
    return sp.simplify(derive_resolution_ratio() - statistic**2 / (critical_value + power_quantile) ** 2)


WALD_Z = derive_wald_z()
REQUIRED_N = derive_required_n()
MINIMUM_DETECTABLE_EFFECT = derive_minimum_detectable_effect()
RESOLUTION_RATIO = derive_resolution_ratio()
TWO_SIDED_POWER = derive_two_sided_power()[0]
ONE_SIDED_POWER = derive_one_sided_power()

_alpha_power = {"alpha": (1e-12, 0.5), "power": (0.5, 1 - 1e-9), "sides": (1, 2)}
_alpha_power_conditions = (power - alpha,)

FUNCTIONS = (
    GeneratedFunction(
        name="critical_value",
        args=(alpha, sides),
        expr=critical_value,
        summary="Upper-tail normal critical value z_{1 - alpha/sides}.",
        equations="paper Eq. 1 rejection rule",
        domain={"alpha": (1e-300, 0.99), "sides": (1, 2)},
        log_scale=frozenset({"alpha"}),
        integer_args=frozenset({"sides"}),
        well_conditioned=(sp.Abs(alpha / sides - sp.Rational(1, 2)) - sp.Rational(1, 100),),
        conditioning_note="z crosses zero at alpha/sides = 1/2, where a relative error is meaningless",
    ),
    GeneratedFunction(
        name="required_n_wald",
        args=(variance, delta, alpha, power, sides),
        expr=REQUIRED_N,
        summary="Unrounded required sample size N* for a Wald test of a mean difference.",
        equations="paper Eq. 3 (Eq. 6 for paired binary)",
        domain={"variance": (1e-8, 4.0), "delta": (-2.0, 2.0), **_alpha_power},
        conditions=(sp.Abs(delta) - sp.Rational(1, 10**9), *_alpha_power_conditions),
        log_scale=frozenset({"alpha"}),
        integer_args=frozenset({"sides"}),
    ),
    GeneratedFunction(
        name="minimum_detectable_effect_wald",
        args=(variance, n, alpha, power, sides),
        expr=MINIMUM_DETECTABLE_EFFECT,
        summary="Smallest |delta| a Wald test with N items detects at the target power.",
        equations="paper Eq. 4",
        domain={"variance": (1e-8, 4.0), "n": (1.0, 1e9), **_alpha_power},
        conditions=_alpha_power_conditions,
        log_scale=frozenset({"alpha", "n"}),
        integer_args=frozenset({"sides"}),
    ),
    GeneratedFunction(
        name="resolution_ratio_wald",
        args=(variance, delta, n, alpha, power, sides),
        expr=RESOLUTION_RATIO,
        summary="Resolution ratio q = N / N*(delta); the gap is resolvable when q >= 1.",
        equations="paper Definition 1",
        domain={"variance": (1e-8, 4.0), "delta": (-2.0, 2.0), "n": (1.0, 1e9), **_alpha_power},
        conditions=_alpha_power_conditions,
        log_scale=frozenset({"alpha", "n"}),
        integer_args=frozenset({"sides"}),
    ),
    GeneratedFunction(
        name="z_wald",
        args=(variance, delta, n),
        expr=WALD_Z,
        summary="Wald z of a paired gap, delta / sqrt(variance / n); q there is z^2 / (z_{1-alpha/sides} + "
        "z_{1-beta})^2.",
        equations="paper Section 3 (T_N) and Definition 1",
        domain={"variance": (1e-8, 4.0), "delta": (-2.0, 2.0), "n": (1.0, 1e9)},
        log_scale=frozenset({"n", "variance"}),
    ),
    GeneratedFunction(
        name="power_wald_two_sided",
        args=(variance, delta, n, alpha),
        expr=TWO_SIDED_POWER,
        summary="Exact two-sided power of the normal-theory Wald test (both rejection tails).",
        equations="paper Eq. 2 and footnote 1",
        domain={"variance": (1e-8, 4.0), "delta": (-2.0, 2.0), "n": (1.0, 1e9), "alpha": (1e-12, 0.5)},
        log_scale=frozenset({"alpha", "n"}),
    ),
    GeneratedFunction(
        name="power_wald_one_sided",
        args=(variance, delta, n, alpha),
        expr=ONE_SIDED_POWER,
        summary="Power of the one-sided Wald test of H1: delta > 0 (signed delta).",
        equations="paper Eq. 2, one-sided",
        domain={"variance": (1e-8, 4.0), "delta": (-2.0, 2.0), "n": (1.0, 1e9), "alpha": (1e-12, 0.5)},
        log_scale=frozenset({"alpha", "n"}),
    ),
)
