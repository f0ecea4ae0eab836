"""Required N for a paired t-test on graded scores, normal approximation.

For graded scores the paired difference D has mean delta and standard
deviation sigma_D estimated from the data.  Replacing the t distribution by
the normal gives Eq. 3 with the standardised effect d_z = delta / sigma_D:

    N = (z_{1-alpha/2} + z_{1-beta})^2 / d_z^2.

It underestimates the exact noncentral-t answer by roughly z^2/2 items at
small N; the numeric package solves the exact noncentral-t equation.
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._symbols import alpha, delta, mean_diff, power, sd_diff, sides, variance
from derivations.wald import REQUIRED_N


def derive_required_n_normal():
    """Eq. 3 with sigma_D^2 = sd_diff^2 and delta = mean_diff."""
    return sp.factor(REQUIRED_N.subs({variance: sd_diff**2, delta: mean_diff}))


REQUIRED_N_NORMAL = derive_required_n_normal()

FUNCTIONS = (
    GeneratedFunction(
        name="required_n_paired_t_normal",
        args=(mean_diff, sd_diff, alpha, power, sides),
        expr=REQUIRED_N_NORMAL,
        summary="Normal-approximation N for a paired t-test with mean difference and SD of differences.",
        equations="paper Eq. 3 for graded scores (Appendix J parametric_required_n_paired)",
        domain={
            "mean_diff": (-2.0, 2.0),
            "sd_diff": (1e-4, 2.0),
            "alpha": (1e-12, 0.5),
            "power": (0.5, 1 - 1e-9),
            "sides": (1, 2),
        },
        conditions=(sp.Abs(mean_diff) - sp.Rational(1, 10**9), power - alpha),
        log_scale=frozenset({"alpha"}),
        integer_args=frozenset({"sides"}),
    ),
)
