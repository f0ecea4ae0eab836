"""The critical correlation rho_c at which a benchmark of N items just resolves a gap (q = 1).

A leaderboard that prints accuracies only fixes p_A, p_B and N but not the
correlation rho of the two models' per-item scores.  N* of Eq. 6 falls as rho
rises (Eq. 5's variance is linear in rho with a negative slope), so the gap is
resolved (N >= N*) exactly when rho >= rho_c, where rho_c solves N*(rho) = N:

    N = K sigma_D^2(rho) / delta^2,   K = (z_{1-alpha/sides} + z_{1-beta})^2,
    rho_c = (V_A + V_B - N delta^2 / K) / (2 sqrt(V_A V_B)).

A correlation is hard to judge; the share of items on which the two models
agree (both right or both wrong), p11 + p00 = 1 - p_A - p_B + 2 p11 with
p11 = p_A p_B + rho sqrt(V_A V_B), is linear in rho, so "rho >= rho_c" is the
same statement as "the models agree on at least this share of items".
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._symbols import alpha, delta, n, p11, p_a, p_b, power, rho, sides, variance
from derivations.admissible_correlation import RHO_MAX, RHO_MIN
from derivations.paired_variance import CELLS, VARIANCE_FROM_MARGINALS, derive_bernoulli_variance
from derivations.wald import REQUIRED_N


def derive_critical_correlation():
    """Solve N*(rho) = N for rho, with N* from Eq. 3 and sigma_D^2 from Eq. 5."""
    required = REQUIRED_N.subs({variance: VARIANCE_FROM_MARGINALS, delta: p_a - p_b})
    solutions = sp.solve(sp.Eq(required, n), rho)
    if len(solutions) != 1:
        raise AssertionError(f"N*(rho) = N should have one root in rho (Eq. 5 is linear in rho); got {solutions}")
    (solution,) = solutions
    variance_a, variance_b = derive_bernoulli_variance(p_a), derive_bernoulli_variance(p_b)
    constant = REQUIRED_N * delta**2 / variance  # K = (z_{1-alpha/sides} + z_{1-beta})^2
    arranged = (variance_a + variance_b - n * (p_a - p_b) ** 2 / constant) / (2 * sp.sqrt(variance_a * variance_b))
    if sp.simplify(solution - arranged) != 0:
        raise AssertionError("rho_c arrangement differs from the solved root")
    # N*(rho) must fall as rho rises, so that 'resolved' is 'rho >= rho_c' and not the reverse:
    # dN*/drho = -2 K sqrt(V_A V_B) / delta^2, negative for every p_A, p_B in (0, 1).
    expected_slope = -2 * constant * sp.sqrt(variance_a * variance_b) / (p_a - p_b) ** 2
    if sp.simplify(sp.diff(required, rho) / expected_slope) != 1:
        raise AssertionError("N* should decrease in rho with slope -2 K sqrt(V_A V_B) / delta^2")
    return arranged


def derive_agreement_share():
    """P(the two models agree) = p11 + p00, with p00 = 1 - p_A - p_B + p11, in terms of (p_A, p_B, rho)."""
    both_right = CELLS[p11]
    both_wrong = 1 - p_a - p_b + both_right
    share = both_right + both_wrong
    # Cross-check against 1 - P(discordant) from the two discordant cells.
    discordant = sum(value for key, value in CELLS.items() if key is not p11)
    if sp.expand(share - (1 - discordant)) != 0:
        raise AssertionError("agreement share differs from 1 - (p10 + p01)")
    return sp.expand(share)


RHO_CRITICAL = derive_critical_correlation()
AGREEMENT_SHARE = derive_agreement_share()

_marginals = {"p_a": (1e-3, 1 - 1e-3), "p_b": (1e-3, 1 - 1e-3)}

FUNCTIONS = (
    GeneratedFunction(
        name="critical_correlation",
        args=(p_a, p_b, n, alpha, power, sides),
        expr=RHO_CRITICAL,
        summary="Correlation rho_c at which N*(rho) = N: the gap p_a - p_b is resolved at N items iff rho >= rho_c.",
        equations="paper Eqs. 5-6 solved for rho",
        domain={**_marginals, "n": (1.0, 1e7), "alpha": (1e-6, 0.5), "power": (0.5, 1 - 1e-6), "sides": (1, 2)},
        conditions=(power - alpha,),
        log_scale=frozenset({"n", "alpha"}),
        integer_args=frozenset({"sides"}),
        well_conditioned=(sp.Abs(RHO_CRITICAL) - sp.Rational(1, 1000),),
        conditioning_note="V_A + V_B - N delta^2 / K cancels where rho_c crosses zero, where a relative error is "
        "meaningless",
    ),
    GeneratedFunction(
        name="agreement_share",
        args=(p_a, p_b, rho),
        expr=AGREEMENT_SHARE,
        summary="Share of items on which two models agree (both right or both wrong) at correlation rho.",
        equations="paper Eq. 5's cells: p11 + p00",
        domain={**_marginals, "rho": (-1.0, 1.0)},
        conditions=(RHO_MAX - rho, rho - RHO_MIN),
        well_conditioned=(AGREEMENT_SHARE - sp.Rational(1, 1000),),
        conditioning_note="the share cancels to near zero only where the models almost never agree",
    ),
)
