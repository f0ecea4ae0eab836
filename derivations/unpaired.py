"""Unpaired two-proportion sample sizes: what an independent-samples calculator returns.

Two independent arms of n items each, observed accuracies p-hat_A and p-hat_B,
gap delta = p_A - p_B.

* Wald with unpooled variance (the "unpaired Gaussian" formula of Miller 2024,
  the paper's Figure 1 baseline): Var(p-hat_A - p-hat_B) = (p_A q_A + p_B q_B)/n,
  so n = (z_{1-alpha/2} + z_{1-beta})^2 (p_A q_A + p_B q_B) / delta^2 per arm.
* Pooled null, unpooled alternative (Fleiss's formula; R's ``power.prop.test`` with
  strict = FALSE; G*Power's documented z test for two independent
  proportions): under H0 the variance is 2 p-bar q-bar / n with
  p-bar = (p_A + p_B)/2, under H1 (p_A q_A + p_B q_B)/n, so the dominant-tail
  power equation gives

      n = (z_{1-alpha/2} sqrt(2 p-bar q-bar) + z_{1-beta} sqrt(p_A q_A + p_B q_B))^2 / delta^2.

The paired design replaces p_A q_A + p_B q_B by sigma_D^2 (Eq. 5), which is
smaller by 2 rho sqrt(p_A q_A p_B q_B); the efficiency gain of pairing is the
ratio of the two.
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._symbols import alpha, delta, p_a, p_b, power, sides, variance
from derivations.paired_variance import derive_bernoulli_variance
from derivations.wald import REQUIRED_N, critical_value, power_quantile


def derive_unpooled_variance():
    """Per-arm variance sum p_A q_A + p_B q_B of two independent Bernoulli arms."""
    return derive_bernoulli_variance(p_a) + derive_bernoulli_variance(p_b)


def derive_required_n_unpooled():
    """Eq. 3 with the unpaired variance of the difference of two independent arms."""
    return REQUIRED_N.subs({variance: derive_unpooled_variance(), delta: p_a - p_b})


def derive_required_n_pooled_null():
    """Solve (|delta| sqrt(n) - z_crit sqrt(2 p-bar q-bar)) / sqrt(V_A + V_B) = z_power for n.

    The variances enter as symbols and are substituted after solving, so that
    the printed code keeps them as sums of non-negative factored terms: the
    pooled 2 p-bar q-bar is written as V_A + V_B + delta^2 / 2 (proved equal
    below).  Expanded, p - p^2 cancels near p = 1 (a 4.5e-12 relative error in
    n at p = 1 - 1e-6, growing like 1 / (1 - p)).
    """
    pooled = 2 * derive_bernoulli_variance((p_a + p_b) / 2)
    unpooled = derive_unpooled_variance()
    stable_pooled = unpooled + (p_a - p_b) ** 2 / 2
    if sp.expand(pooled - stable_pooled) != 0:  # pragma: no cover - derivation guard
        raise AssertionError("pooled variance identity does not hold")
    gap = sp.Symbol("gap", positive=True)
    root_n = sp.Symbol("root_n", positive=True)
    null_variance, alternative_variance = sp.symbols("null_variance alternative_variance", positive=True)
    standardised = (gap * root_n - critical_value * sp.sqrt(null_variance)) / sp.sqrt(alternative_variance)
    (solution,) = sp.solve(sp.Eq(standardised, power_quantile), root_n)
    return (solution**2).subs({gap: sp.Abs(p_a - p_b), null_variance: stable_pooled, alternative_variance: unpooled})


REQUIRED_N_UNPOOLED = derive_required_n_unpooled()
REQUIRED_N_POOLED_NULL = derive_required_n_pooled_null()

_domain = {
    "p_a": (1e-6, 1 - 1e-6),
    "p_b": (1e-6, 1 - 1e-6),
    "alpha": (1e-12, 0.5),
    "power": (0.5, 1 - 1e-9),
    "sides": (1, 2),
}
_conditions = (sp.Abs(p_a - p_b) - sp.Rational(1, 10**9), power - alpha)

FUNCTIONS = (
    GeneratedFunction(
        name="required_n_unpaired_wald",
        args=(p_a, p_b, alpha, power, sides),
        expr=REQUIRED_N_UNPOOLED,
        summary="Per-arm n of an unpaired Wald test with unpooled variance (Miller 2024).",
        equations="paper Section 2 and Figure 1 (unpaired Gaussian formula)",
        domain=_domain,
        conditions=_conditions,
        log_scale=frozenset({"alpha"}),
        integer_args=frozenset({"sides"}),
    ),
    GeneratedFunction(
        name="required_n_two_proportion_z",
        args=(p_a, p_b, alpha, power, sides),
        expr=REQUIRED_N_POOLED_NULL,
        summary="Per-arm n of the two-proportion z test, pooled variance under H0 (power.prop.test).",
        equations="Fleiss's formula without continuity correction; R power.prop.test (strict = FALSE)",
        domain=_domain,
        conditions=_conditions,
        log_scale=frozenset({"alpha"}),
        integer_args=frozenset({"sides"}),
    ),
)
