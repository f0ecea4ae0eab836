"""Required N* evaluated at an observed paired 2x2 table.

With b items solved only by A and c only by B out of N, the plug-in cell
probabilities are p10 = b/N and p01 = c/N, the observed gap is
delta-hat = (b - c)/N, and the paired variance is the discordant-cell form of
Eq. 5.  Substituting into Eq. 3 gives N* as a function of (b, c, N) only:

    N* = (z_{1-alpha/2} + z_{1-beta})^2 (N (b + c) - (b - c)^2) / (b - c)^2.

This equals Eq. 6 at the observed (p_A, p_B, rho-hat), since rho-hat is the
phi coefficient of the same table (paper Tables 6-7).
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._symbols import alpha, b, c, delta, n, p01, p10, power, sides, variance
from derivations.paired_variance import VARIANCE_FROM_CELLS
from derivations.wald import REQUIRED_N, RESOLUTION_RATIO, WALD_K


def derive_plug_in():
    """Cell probabilities, gap and variance at the observed counts."""
    cells = {p10: b / n, p01: c / n}
    return {delta: (b - c) / n, variance: VARIANCE_FROM_CELLS.subs(cells)}


def derive_required_n_from_counts():
    """Eq. 3 with the plug-in gap and variance, as a function of (b, c, N).

    Arranged as K (N (b + c) - (b - c)^2) / (b - c)^2, checked against the
    substitution.
    """
    substituted = REQUIRED_N.subs(derive_plug_in())
    arranged = WALD_K * (n * (b + c) - (b - c) ** 2) / (b - c) ** 2
    if sp.cancel(substituted - arranged) != 0:
        raise AssertionError("counts arrangement differs from Eq. 3 at the plug-in")
    return arranged


def derive_resolution_ratio_from_counts():
    """The resolution ratio q = N / N* at the plug-in, arranged like N* above."""
    substituted = RESOLUTION_RATIO.subs(derive_plug_in())
    arranged = n * (b - c) ** 2 / (WALD_K * (n * (b + c) - (b - c) ** 2))
    if sp.cancel(substituted - arranged) != 0:
        raise AssertionError("counts arrangement differs from Definition 1 at the plug-in")
    return arranged


REQUIRED_N_FROM_COUNTS = derive_required_n_from_counts()
RESOLUTION_RATIO_FROM_COUNTS = derive_resolution_ratio_from_counts()

_domain = {
    "b": (0.0, 1e7),
    "c": (0.0, 1e7),
    "n": (1.0, 1e8),
    "alpha": (1e-12, 0.5),
    "power": (0.5, 1 - 1e-9),
    "sides": (1, 2),
}
_conditions = (n - b - c + sp.Rational(1, 2), sp.Abs(b - c) - sp.Rational(1, 2), power - alpha)
_well_conditioned = (n * (b + c) - (b - c) ** 2 - n * (b + c) / 1000,)
_note = (
    "N (b + c) - (b - c)^2 cancels when almost every item is discordant in one direction "
    "(sigma_D^2 near 0); points where it is below 1e-3 N (b + c) are excluded"
)

FUNCTIONS = (
    GeneratedFunction(
        name="required_n_from_counts",
        args=(b, c, n, alpha, power, sides),
        expr=REQUIRED_N_FROM_COUNTS,
        summary="Unrounded N* at an observed paired table with discordant counts b, c out of n.",
        equations="paper Eq. 6 at the observed (p_A, p_B, rho-hat)",
        domain=_domain,
        conditions=_conditions,
        well_conditioned=_well_conditioned,
        conditioning_note=_note,
        log_scale=frozenset({"b", "c", "n", "alpha"}),
        integer_args=frozenset({"b", "c", "n", "sides"}),
    ),
    GeneratedFunction(
        name="resolution_ratio_from_counts",
        args=(b, c, n, alpha, power, sides),
        expr=RESOLUTION_RATIO_FROM_COUNTS,
        summary="Resolution ratio q = N / N* at an observed paired table.",
        equations="paper Definition 1 with Eq. 6",
        domain=_domain,
        conditions=(n - b - c + sp.Rational(1, 2), power - alpha),
        well_conditioned=_well_conditioned,
        conditioning_note=_note,
        log_scale=frozenset({"b", "c", "n", "alpha"}),
        integer_args=frozenset({"b", "c", "n", "sides"}),
    ),
)
