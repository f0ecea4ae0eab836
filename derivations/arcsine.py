"""Cohen's h and the arcsine sample-size conventions; the (1 - rho) shortcut.

phi(p) = 2 arcsin(sqrt(p)) is the variance-stabilising transform of a
proportion: it solves phi'(p)^2 p (1 - p) = 1, so Var(phi(p-hat)) ~ 1/n.
Cohen's effect size is h = phi(p_A) - phi(p_B) (Cohen 1988, Ch. 6).  With
K = (z_{1-alpha/2} + z_{1-beta})^2:

* one-sample convention: test h against a fixed value, z = h sqrt(n),
  so n = K / h^2 (``pwr.p.test``; the paper's Table 1 "per-arm" column);
* two-sample convention: two independent arms of n each, z = h sqrt(n/2),
  so n = 2 K / h^2 per arm (``pwr.2p.test``, ``NormalIndPower``);
* the shortcut of paper Eq. 9: n_h = (1 - rho) K / h^2.

h is printed as 2 atan2((p_A - p_B) / (sqrt(p_A q_B) + sqrt(p_B q_A)),
sqrt(p_A p_B) + sqrt(q_A q_B)), the sine and cosine of the half-difference,
which the derivation shows equal to the difference of arcsines; it keeps full
relative precision when p_A and p_B are close and when h is near +/- pi.
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._symbols import alpha, n, p, p_a, p_b, power, rho, sides
from derivations.wald import critical_value, power_quantile


def derive_stabilising_transform():
    """Solve phi'(p)^2 p (1 - p) = 1 for the increasing phi with phi(0) = 0.

    SymPy returns a Piecewise over the real line; the branch for 0 < p < 1
    is selected and checked against the defining equation.
    """
    derivative = 1 / sp.sqrt(p * (1 - p))
    antiderivative = sp.integrate(derivative, p)
    if isinstance(antiderivative, sp.Piecewise):
        inside = sp.Rational(1, 2)
        antiderivative = next(piece for piece, condition in antiderivative.args if bool(condition.subs(p, inside)))
    transform = antiderivative - antiderivative.subs(p, 0)
    if sp.simplify(sp.diff(transform, p) ** 2 * p * (1 - p) - 1) != 0:
        raise AssertionError("transform does not stabilise the variance")
    return transform


def derive_cohens_h():
    """Cohen's h = phi(p_A) - phi(p_B), as twice the atan2 of the half-difference's sine and cosine."""
    transform = derive_stabilising_transform()
    difference = transform.subs(p, p_a) - transform.subs(p, p_b)
    # sin(x - y) = sin x cos y - cos x sin y with sin(arcsin sqrt p) = sqrt p,
    # cos(arcsin sqrt p) = sqrt(1 - p); then rationalise the difference.
    sine = sp.sqrt(p_a) * sp.sqrt(1 - p_b) - sp.sqrt(1 - p_a) * sp.sqrt(p_b)
    expanded = sp.expand_trig(sp.sin(difference / 2))
    if sp.simplify(expanded - sine) != 0:  # pragma: no cover - derivation guard
        raise AssertionError("sine of the half-difference is not as expected")
    denominator = sp.sqrt(p_a) * sp.sqrt(1 - p_b) + sp.sqrt(1 - p_a) * sp.sqrt(p_b)
    if sp.expand(sine * denominator - (p_a - p_b)) != 0:
        raise AssertionError("rationalised numerator is not p_a - p_b")
    # cos(x - y) = cos x cos y + sin x sin y: a sum of two non-negative terms, exact to rounding.
    cosine = sp.sqrt(p_a) * sp.sqrt(p_b) + sp.sqrt(1 - p_a) * sp.sqrt(1 - p_b)
    if sp.simplify(sp.expand_trig(sp.cos(difference / 2)) - cosine) != 0:  # pragma: no cover - derivation guard
        raise AssertionError("cosine of the half-difference is not as expected")
    # Both arcsines lie in [0, pi/2], so the half-difference lies in [-pi/2, pi/2], where
    # atan2(sin, cos) with cos >= 0 inverts it.  atan2 rather than arcsin(sin): near |h| = pi
    # (p_A -> 1, p_B -> 0) arcsin's slope 1/sqrt(1 - x^2) multiplies the rounding of x by
    # up to 1e4 (a 2.8e-12 relative error in n at p = 1 - 1e-9), while atan2 of two
    # accurately computed legs stays within a few ulps everywhere.
    return 2 * sp.atan2((p_a - p_b) / denominator, cosine)


def derive_one_sample_n():
    """One-sample arcsine test: z = h sqrt(n); solve z - z_crit = z_power for n."""
    h = sp.Symbol("h", positive=True)
    (solution,) = sp.solve(sp.Eq(h * sp.sqrt(n) - critical_value, power_quantile), n)
    return solution.subs(h, derive_cohens_h())


def derive_two_sample_n():
    """Two independent arms of n each: Var(h-hat) = 2/n; solve for the per-arm n."""
    h = sp.Symbol("h", positive=True)
    (solution,) = sp.solve(sp.Eq(h / sp.sqrt(2 / n) - critical_value, power_quantile), n)
    return solution.subs(h, derive_cohens_h())


COHENS_H = derive_cohens_h()
ONE_SAMPLE_N = derive_one_sample_n()
TWO_SAMPLE_N = derive_two_sample_n()
SHORTCUT_N = (1 - rho) * ONE_SAMPLE_N

_pq = {"p_a": (1e-9, 1 - 1e-9), "p_b": (1e-9, 1 - 1e-9)}
_design = {"alpha": (1e-12, 0.5), "power": (0.5, 1 - 1e-9), "sides": (1, 2)}
_distinct = (sp.Abs(p_a - p_b) - sp.Rational(1, 10**9),)

FUNCTIONS = (
    GeneratedFunction(
        name="cohens_h",
        args=(p_a, p_b),
        expr=COHENS_H,
        summary="Cohen's h = 2 arcsin sqrt(p_a) - 2 arcsin sqrt(p_b).",
        equations="Cohen (1988) Eq. 6.2.2; paper Section 4",
        domain=_pq,
    ),
    GeneratedFunction(
        name="required_n_arcsine_one_sample",
        args=(p_a, p_b, alpha, power, sides),
        expr=ONE_SAMPLE_N,
        summary="One-sample arcsine convention n = K / h^2 (the paper's Table 1 per-arm value).",
        equations="Cohen (1988) Eq. 6.3.2 as quoted in paper Section 4",
        domain={**_pq, **_design},
        conditions=(*_distinct, power - alpha),
        log_scale=frozenset({"alpha"}),
        integer_args=frozenset({"sides"}),
    ),
    GeneratedFunction(
        name="required_n_arcsine_two_sample",
        args=(p_a, p_b, alpha, power, sides),
        expr=TWO_SAMPLE_N,
        summary="Two-sample arcsine convention n = 2 K / h^2 per arm.",
        equations="two independent arms, Var(h-hat) = 2/n",
        domain={**_pq, **_design},
        conditions=(*_distinct, power - alpha),
        log_scale=frozenset({"alpha"}),
        integer_args=frozenset({"sides"}),
    ),
    GeneratedFunction(
        name="required_n_shortcut",
        args=(p_a, p_b, rho, alpha, power, sides),
        expr=SHORTCUT_N,
        summary="The (1 - rho) K / h^2 shortcut n_h, which is about half of N*.",
        equations="paper Eq. 9",
        domain={**_pq, "rho": (-1.0, 1.0), **_design},
        conditions=(*_distinct, power - alpha, 1 - rho - sp.Rational(1, 10**6)),
        log_scale=frozenset({"alpha"}),
        integer_args=frozenset({"sides"}),
    ),
)
