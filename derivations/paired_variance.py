"""Variance of the paired difference of two Bernoulli scores (paper Eq. 5).

The derivation starts from the joint cell probabilities of (X_A, X_B):
``p11`` (both correct), ``p10`` (only A), ``p01`` (only B), ``p00`` (neither).
The paired difference D = X_A - X_B takes the values +1, 0, -1 with
probabilities p10, p11 + p00, p01, so Var(D) = E[D^2] - E[D]^2.  Writing the
cells in terms of the marginals and the Bernoulli (phi) correlation rho gives
Eq. 5 of the paper (arXiv 2605.30315, Section 4):

    sigma_D^2 = p_A q_A + p_B q_B - 2 rho sqrt(p_A q_A p_B q_B).

The discordant-cell form sigma_D^2 = p10 + p01 - (p10 - p01)^2 is what an
observed 2x2 table gives (with p10 = b/N, p01 = c/N).
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._symbols import delta, discordance, n00, n01, n10, n11, p00, p01, p10, p11, p_a, p_b, rho


def derive_difference_distribution():
    """Values and probabilities of D = X_A - X_B in terms of the cells."""
    return {1: p10, 0: p11 + p00, -1: p01}


def derive_variance_from_cells():
    """Var(D) = E[D^2] - E[D]^2 from the distribution of D."""
    distribution = derive_difference_distribution()
    mean = sum(value * probability for value, probability in distribution.items())
    second_moment = sum(value**2 * probability for value, probability in distribution.items())
    return sp.expand(second_moment - mean**2)


def derive_bernoulli_variance(probability):
    """Var(X) = E[X^2] - E[X]^2 for X ~ Bernoulli(probability), factored."""
    mean = probability
    second_moment = probability  # X^2 = X for a 0/1 variable
    return sp.factor(second_moment - mean**2)


def derive_cells_from_marginals():
    """Cell probabilities in terms of (p_A, p_B, rho).

    rho is the correlation of the two indicators, Cov / sqrt(Var_A Var_B), and
    Cov(X_A, X_B) = p11 - p_A p_B, so p11 = p_A p_B + rho sqrt(Var_A Var_B);
    the other cells follow from the margins.
    """
    spread = sp.sqrt(derive_bernoulli_variance(p_a) * derive_bernoulli_variance(p_b))
    both = p_a * p_b + rho * spread
    return {p11: both, p10: p_a - both, p01: p_b - both}


def derive_variance_from_marginals():
    """Eq. 5, obtained by substituting the cells into Var(D).

    The substituted expression is shown equal to V_A + V_B - 2 rho sqrt(V_A V_B)
    (with V the derived Bernoulli variances); that arrangement is returned
    because it keeps each product p(1 - p) intact in floating point.
    """
    substituted = derive_variance_from_cells().subs(derive_cells_from_marginals())
    variance_a = derive_bernoulli_variance(p_a)
    variance_b = derive_bernoulli_variance(p_b)
    arranged = variance_a + variance_b - 2 * rho * sp.sqrt(variance_a * variance_b)
    if sp.expand(substituted - arranged) != 0:
        raise AssertionError("Eq. 5 arrangement differs from the cell derivation")
    return arranged


def derive_phi_coefficient():
    """Sample correlation of the two 0/1 score vectors from the 2x2 counts.

    rho-hat = (p11 - p_A p_B) / sqrt(p_A q_A p_B q_B) with p = counts / n,
    which simplifies to (n11 n00 - n10 n01) / sqrt(row and column totals).
    """
    total = n11 + n10 + n01 + n00
    marginal_a = (n11 + n10) / total
    marginal_b = (n11 + n01) / total
    covariance = n11 / total - marginal_a * marginal_b
    spread_squared = derive_bernoulli_variance(marginal_a) * derive_bernoulli_variance(marginal_b)
    arranged = (n11 * n00 - n10 * n01) / sp.sqrt((n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00))
    # Same sign and same square: the arrangement is the correlation.
    if sp.cancel(covariance**2 / spread_squared - arranged**2) != 0:
        raise AssertionError("phi coefficient arrangement differs from the definition")
    if sp.cancel(covariance * total**2 - (n11 * n00 - n10 * n01)) != 0:
        raise AssertionError("phi coefficient sign differs from the definition")
    return arranged


VARIANCE_FROM_MARGINALS = derive_variance_from_marginals()


def derive_variance_discordant_form():
    """Var(D) arranged as (p10 + p01) - (p10 - p01)^2: discordance minus squared gap."""
    arranged = (p10 + p01) - (p10 - p01) ** 2
    if sp.expand(derive_variance_from_cells() - arranged) != 0:
        raise AssertionError("discordant-cell arrangement differs from Var(D)")
    return arranged


VARIANCE_FROM_CELLS = derive_variance_discordant_form()


def derive_variance_at_gap():
    """Var(D) under a true gap d = p10 - p01 at discordance psi = p10 + p01: psi - d^2.

    The cells are p10 = (psi + d) / 2 and p01 = (psi - d) / 2, both >= 0 only when psi >= |d|: a true gap of d
    needs at least that share of discordant items.  Used by ``--min-effect``: the variance of a declared gap DELTA
    at a pair's observed discordance.
    """
    at_gap = VARIANCE_FROM_CELLS.subs({p10: (discordance + delta) / 2, p01: (discordance - delta) / 2})
    arranged = discordance - delta**2
    if sp.expand(at_gap - arranged) != 0:
        raise AssertionError("variance at a gap differs from Var(D) at the cells")
    return arranged


VARIANCE_AT_GAP = derive_variance_at_gap()
CELLS = derive_cells_from_marginals()

_marginal_domain = {"p_a": (1e-6, 1 - 1e-6), "p_b": (1e-6, 1 - 1e-6), "rho": (-1.0, 1.0)}

# Imported lazily to avoid a cycle: the admissible interval is its own concept.
from derivations.admissible_correlation import RHO_MAX, RHO_MIN  # noqa: E402

_admissible = (RHO_MAX - rho, rho - RHO_MIN)
_bernoulli_sum = derive_bernoulli_variance(p_a) + derive_bernoulli_variance(p_b)

FUNCTIONS = (
    GeneratedFunction(
        name="paired_difference_variance",
        args=(p_a, p_b, rho),
        expr=VARIANCE_FROM_MARGINALS,
        summary="Variance of D = X_A - X_B for Bernoulli scores with correlation rho.",
        equations="paper Eq. 5, derived from the joint cell probabilities",
        domain=_marginal_domain,
        conditions=_admissible,
        well_conditioned=(VARIANCE_FROM_MARGINALS - _bernoulli_sum / 1000,),
        conditioning_note="the difference of the two terms cancels when rho is near its upper "
        "bound and p_a ~ p_b; points where sigma_D^2 < 1e-3 (V_A + V_B) are excluded",
    ),
    GeneratedFunction(
        name="paired_difference_variance_from_cells",
        args=(p10, p01),
        expr=VARIANCE_FROM_CELLS,
        summary="Variance of D from the discordant-cell probabilities p10 (A only) and p01 (B only).",
        equations="discordant-cell form of paper Eq. 5",
        domain={"p10": (0.0, 1.0), "p01": (0.0, 1.0)},
        conditions=(1 - p10 - p01,),
        well_conditioned=(VARIANCE_FROM_CELLS - (p10 + p01) / 1000,),
        conditioning_note="p10 + p01 - (p10 - p01)^2 cancels when nearly every item is discordant "
        "in one direction; points where the variance < 1e-3 (p10 + p01) are excluded",
    ),
    GeneratedFunction(
        name="paired_difference_variance_at_gap",
        args=(discordance, delta),
        expr=VARIANCE_AT_GAP,
        summary="Variance of D under a true gap delta = p10 - p01 at discordance psi = p10 + p01 (psi >= |delta|).",
        equations="discordant-cell form of paper Eq. 5 at p10 = (psi + delta)/2, p01 = (psi - delta)/2",
        domain={"discordance": (0.0, 1.0), "delta": (-1.0, 1.0)},
        conditions=(discordance - sp.Abs(delta),),
        well_conditioned=(VARIANCE_AT_GAP - discordance / 1000,),
        conditioning_note="psi - delta^2 cancels when psi ~ delta^2, i.e. nearly every discordant item goes one "
        "way and nearly every item is discordant; points where the variance < 1e-3 psi are excluded",
    ),
    GeneratedFunction(
        name="joint_success_probability",
        args=(p_a, p_b, rho),
        expr=CELLS[p11],
        summary="P(both models correct) for marginals p_a, p_b and Bernoulli correlation rho.",
        equations="paper Section 4, definition of rho",
        domain=_marginal_domain,
        conditions=_admissible,
    ),
    GeneratedFunction(
        name="phi_coefficient",
        args=(n11, n10, n01, n00),
        expr=derive_phi_coefficient(),
        summary="Bernoulli (phi) correlation of two aligned 0/1 vectors from their 2x2 counts.",
        equations="the rho-hat of paper Tables 6-7",
        domain={name: (1.0, 1e7) for name in ("n11", "n10", "n01", "n00")},
        log_scale=frozenset({"n11", "n10", "n01", "n00"}),
        integer_args=frozenset({"n11", "n10", "n01", "n00"}),
        well_conditioned=(sp.Abs(n11 * n00 - n10 * n01) - (n11 * n00 + n10 * n01) / 1000,),
        conditioning_note="n11 n00 - n10 n01 cancels when the two products are close; "
        "points with |ad - bc| < 1e-3 (ad + bc) are excluded",
    ),
)
