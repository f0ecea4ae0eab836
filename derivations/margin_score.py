"""Score test for a difference of paired proportions against a margin (Tango 1998; Nam 1997).

The paired 2x2 table has cells n11, b = n10 (only A right), c = n01 (only B right), n00, with n items and cell
probabilities p11, p10, p01, p00.  The gap is d = p10 - p01.  Under H0: d = margin the restricted maximum
likelihood estimate (RMLE) maximises the multinomial log-likelihood subject to p10 = p01 + margin.  For a fixed
concordant mass 1 - p10 - p01 the likelihood n11 log p11 + n00 log p00 is largest at p11 : p00 = n11 : n00, so
the profile log-likelihood of p01 is, up to a constant,

    l(p01) = b log(p01 + margin) + c log(p01) + (n - b - c) log(1 - 2 p01 - margin).

Clearing the denominators of dl/dp01 = 0 gives the quadratic of Tango (1998, Eq. 3)

    2n p01^2 + B p01 + C = 0,  B = -b - c + (2n - b + c) margin,  C = -c margin (1 - margin),

whose larger root (-B + sqrt(B^2 - 4AC)) / (2A), A = 2n, is the RMLE p01~ (``derive_tango_root`` shows that the
root SymPy finds is Tango's printed one).  The score statistic is

    Z = (b - c - n margin) / sqrt(n (p10~ + p01~ - margin^2)),   p10~ = p01~ + margin.

The printed root cancels when B > 0 (a large margin against few discordant items) and B^2 - 4AC cancels when
C > 0 (margin < 0).  The generated RMLE is therefore written without either cancellation: for margin >= 0 the
larger root as (-B + sqrt(D)) / (2A) when B < 0 and as -2C / (B + sqrt(D)) otherwise (the same number:
``derive_stable_root`` checks it), and for margin < 0 through the mirror symmetry
p01~(b, c, margin) = p01~(c, b, -margin) - margin (swap the models).  The null variance p10~ + p01~ - margin^2
is generated as 2 min(p10~, p01~) + abs(margin) (1 - abs(margin)), a sum of terms >= 0 (``derive_null_variance``;
checked equal at exact points), so that it keeps its digits as abs(margin) -> 1.

Power and N (Nam 1997): for true cells p10, p01 the RMLE converges to the root of the same quadratic with
b/n -> p10 and c/n -> p01; call its variance sigma_0^2 = p10* + p01* - margin^2, and the true variance of a paired
difference sigma_1^2 = p10 + p01 - d^2.  The one-sided test of H0: d <= margin rejects when Z >= z_{1-alpha}; with
the gap estimate approximately N(d, sigma_1^2 / n) its power is

    Phi((sqrt(n) (d - margin) - z_{1-alpha} sigma_0) / sigma_1),

and setting it to 1 - beta gives N = (z_{1-alpha} sigma_0 + z_{1-beta} sigma_1)^2 / (d - margin)^2.  The test of
H0: d >= margin is the same on the swapped cells (d -> -d, margin -> -margin).  Equivalence (both one-sided tests
reject) has power P_lower + P_upper - 1 under the same normal approximation of the gap estimate (clipped at 0) and
no closed-form N; :mod:`llm_power_verified.inference.margin_power` solves it by bisection on the generated power.

Tango, T. (1998). Equivalence test and confidence interval for the difference in proportions for the
paired-sample design. Statistics in Medicine 17, 891-908.
Nam, J. (1997). Establishing equivalence of two treatments and sample size requirements in matched-pairs design.
Biometrics 53, 1422-1430.
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._functions import NormalCDF, NormalUpperQuantile
from derivations._symbols import alpha, b, c, n, p01, p10, power

margin = sp.Symbol("margin", real=True)
_root = sp.Symbol("p01_tilde", positive=True)
_gap = sp.Symbol("gap", nonnegative=True)


def derive_profile_loglik():
    """The profile log-likelihood of p01 under H0: p10 - p01 = margin (concordant cells profiled out)."""
    return b * sp.log(_root + margin) + c * sp.log(_root) + (n - b - c) * sp.log(1 - 2 * _root - margin)


def derive_score_quadratic():
    """Coefficients (A, B, C) of the score equation dl/dp01 = 0 with its denominators cleared."""
    score = sp.diff(derive_profile_loglik(), _root)
    numerator = sp.numer(sp.together(score))
    coefficients = sp.Poly(sp.expand(-numerator), _root).all_coeffs()
    if len(coefficients) != 3:
        raise ArithmeticError(f"the score equation is not quadratic in p01: {coefficients}")
    return tuple(sp.factor(coefficient) for coefficient in coefficients)


def _tango_coefficients(count_b=b, count_c=c, size=n, gap=margin):
    """Tango's (1998) printed coefficients A, B, C."""
    return 2 * size, -count_b - count_c + (2 * size - count_b + count_c) * gap, -count_c * gap * (1 - gap)


def derive_tango_root():
    """The larger root of the score quadratic, after checking it is Tango's printed root."""
    quadratic_a, quadratic_b, quadratic_c = derive_score_quadratic()
    tango = _tango_coefficients()
    if any(
        sp.simplify(mine - printed) != 0
        for mine, printed in zip((quadratic_a, quadratic_b, quadratic_c), tango, strict=True)
    ):
        raise ArithmeticError("the score equation's coefficients differ from Tango's (1998) printed ones")
    roots = sp.solve(quadratic_a * _root**2 + quadratic_b * _root + quadratic_c, _root)
    printed = (-tango[1] + sp.sqrt(tango[1] ** 2 - 4 * tango[0] * tango[2])) / (2 * tango[0])
    if not any(sp.simplify(root - printed) == 0 for root in roots):
        raise ArithmeticError("Tango's printed root is not a root of the score equation")
    return printed


def derive_stable_root(count_b=b, count_c=c, size=n):
    """Tango's root at a margin g >= 0, written so that neither branch cancels (checked equal to the printed one).

    Returned in the symbol ``_gap`` (g >= 0), which :func:`derive_restricted_p01` replaces by abs(margin).
    """
    quadratic_a, quadratic_b, quadratic_c = _tango_coefficients(count_b, count_c, size, _gap)
    discriminant = quadratic_b**2 - 4 * quadratic_a * quadratic_c
    printed = (-quadratic_b + sp.sqrt(discriminant)) / (2 * quadratic_a)
    rationalised = -2 * quadratic_c / (quadratic_b + sp.sqrt(discriminant))
    if sp.simplify(sp.radsimp(printed - rationalised)) != 0:
        raise ArithmeticError("the rationalised root differs from Tango's printed root")
    # B >= 0 and C = 0: the roots are 0 and -B/A <= 0, and the rationalised form would be 0/0.
    return sp.Piecewise((printed, quadratic_b < 0), (0, sp.Eq(quadratic_c, 0)), (rationalised, True))


def derive_restricted_p01(count_b=b, count_c=c, size=n):
    """The RMLE p01~ for any margin in (-1, 1): the stable root, mirrored for margin < 0.

    Both branches see the gap abs(margin) >= 0, where C <= 0 and the discriminant B^2 - 4AC >= B^2 cannot cancel
    (numpy evaluates the branch it does not select as well, and it must stay finite there).
    """
    direct = derive_stable_root(count_b, count_c, size).subs(_gap, sp.Abs(margin))
    mirrored = derive_stable_root(count_c, count_b, size).subs(_gap, sp.Abs(margin)) + sp.Abs(margin)
    return sp.Piecewise((direct, margin >= 0), (mirrored, True))


RESTRICTED_P01 = derive_restricted_p01()
TANGO_ROOT = derive_tango_root()


def derive_null_variance(count_b=b, count_c=c, size=n):
    """p10~ + p01~ - margin^2 written without cancellation: 2 min(p10~, p01~) + abs(margin) (1 - abs(margin)).

    For margin >= 0, p10~ = p01~ + margin gives 2 p01~ + margin (1 - margin); for margin < 0 the mirror image.
    Every term is >= 0, where the plain sum loses all digits as abs(margin) -> 1.
    """
    gap = sp.Abs(margin)
    smaller = sp.Piecewise(
        (derive_stable_root(count_b, count_c, size), margin >= 0), (derive_stable_root(count_c, count_b, size), True)
    ).subs(_gap, gap)
    return 2 * smaller + gap * (1 - gap)


def _check_null_variance(variance):
    """Check the cancellation-free form against 2 p01~ + margin - margin^2 at exact points of both signs."""
    plain = 2 * derive_restricted_p01() + margin - margin**2
    for point in ((3, 5, 20, sp.Rational(1, 10)), (3, 5, 20, sp.Rational(-1, 4)), (0, 7, 9, sp.Rational(-1, 2))):
        values = dict(zip((b, c, n, margin), point, strict=True))
        if sp.simplify((variance - plain).subs(values)) != 0:
            raise ArithmeticError(f"the cancellation-free variance differs from p10~ + p01~ - margin^2 at {point}")
    return variance


NULL_VARIANCE = _check_null_variance(derive_null_variance())


def derive_score_z():
    """Tango's score statistic Z = (b - c - n margin) / sqrt(n (p10~ + p01~ - margin^2))."""
    return (b - c - n * margin) / sp.sqrt(n * NULL_VARIANCE)


def derive_null_sd_at_cells():
    """sigma_0: the score statistic's null sd per item at the limit of the RMLE under true cells p10, p01."""
    # A, B and C are homogeneous of degree one in (b, c, n), so the root at (n p10, n p01, n) is the root at
    # (p10, p01, 1) for every n.
    limit = derive_null_variance(p10, p01, 1)
    scaled = derive_null_variance(p10 * n, p01 * n, n)
    check = {p10: sp.Rational(3, 10), p01: sp.Rational(1, 10), n: 7}
    for gap in (sp.Rational(1, 10), sp.Rational(-1, 5), sp.Rational(1, 2)):
        if sp.simplify((scaled - limit).subs({**check, margin: gap})) != 0:
            raise ArithmeticError("the RMLE at expected counts depends on n")
    return sp.sqrt(limit)


def derive_true_sd():
    """sigma_1: the true sd of a paired difference, sqrt(p10 + p01 - (p10 - p01)^2)."""
    return sp.sqrt(p10 + p01 - (p10 - p01) ** 2)


NULL_SD = derive_null_sd_at_cells()
TRUE_SD = derive_true_sd()
_z_alpha = NormalUpperQuantile(alpha)
_z_beta = NormalUpperQuantile(1 - power)


def derive_one_sided_power():
    """Nam's power of the score test of H0: d <= margin (reject when Z >= z_{1-alpha})."""
    return NormalCDF((sp.sqrt(n) * (p10 - p01 - margin) - _z_alpha * NULL_SD) / TRUE_SD)


def derive_one_sided_required_n():
    """Solve the one-sided power equation for n (Nam 1997)."""
    root_n = sp.Symbol("root_n", positive=True)
    sigma_0, sigma_1, gap = sp.symbols("sigma_0 sigma_1 gap", positive=True)
    equation = sp.Eq((root_n * gap - _z_alpha * sigma_0) / sigma_1, _z_beta)
    (solution,) = sp.solve(equation, root_n)
    return (solution**2).subs({sigma_0: NULL_SD, sigma_1: TRUE_SD, gap: p10 - p01 - margin})


SCORE_Z = derive_score_z()
ONE_SIDED_POWER = derive_one_sided_power()
ONE_SIDED_REQUIRED_N = derive_one_sided_required_n()

# Counts from 1 (a zero count makes the unselected branch of the stable root 0/0; the public functions and
# tests/inference/test_margin.py cover zero counts); the table's n holds both discordant counts.
_counts_domain = {"b": (1.0, 1e6), "c": (1.0, 1e6), "n": (1.0, 1e7), "margin": (-0.999999, 0.999999)}
_counts_conditions = (n - b - c + sp.Rational(1, 2), sp.Abs(margin) - sp.Rational(1, 10**12))
_cells_domain = {"p10": (1e-9, 1.0), "p01": (1e-9, 1.0), "margin": (-0.999, 0.999)}
_cells_conditions = (1 - p10 - p01, sp.Abs(margin) - sp.Rational(1, 10**12))
_counts = frozenset({"b", "c", "n"})

FUNCTIONS = (
    GeneratedFunction(
        name="restricted_p01_tango",
        args=(b, c, n, margin),
        expr=RESTRICTED_P01,
        summary="Tango's restricted MLE of p01 under H0: p10 - p01 = margin (the stable form of his root).",
        equations="Tango (1998) Eq. 3",
        domain=_counts_domain,
        conditions=_counts_conditions,
        log_scale=_counts,
        integer_args=_counts,
    ),
    GeneratedFunction(
        name="margin_null_variance_tango",
        args=(b, c, n, margin),
        expr=NULL_VARIANCE,
        summary="p10~ + p01~ - margin^2 at Tango's restricted MLE: n times the null variance of the gap estimate.",
        equations="Tango (1998) Eq. 2 denominator",
        domain=_counts_domain,
        conditions=_counts_conditions,
        log_scale=_counts,
        integer_args=_counts,
    ),
    GeneratedFunction(
        name="margin_score_z_tango",
        args=(b, c, n, margin),
        expr=SCORE_Z,
        summary="Tango's score statistic for H0: p10 - p01 = margin.",
        equations="Tango (1998) Eq. 2",
        domain=_counts_domain,
        conditions=_counts_conditions,
        well_conditioned=(sp.Abs(b - c - n * margin) - (b + c + n * sp.Abs(margin)) / 1000,),
        conditioning_note="b - c - n margin cancels where the margin is near the observed gap",
        log_scale=_counts,
        integer_args=_counts,
    ),
    GeneratedFunction(
        name="power_score_one_sided",
        args=(p10, p01, n, margin, alpha),
        expr=ONE_SIDED_POWER,
        summary="Nam's power of the score test of H0: p10 - p01 <= margin at true cells p10, p01.",
        equations="Nam (1997) Section 3",
        domain={**_cells_domain, "n": (1.0, 1e9), "alpha": (1e-12, 0.5)},
        conditions=_cells_conditions,
        well_conditioned=(p10 + p01 - (p10 - p01) ** 2 - (p10 + p01) / 1000,),
        conditioning_note="sigma_1^2 = psi - d^2 cancels when nearly every discordant item goes one way",
        log_scale=frozenset({"p10", "p01", "n", "alpha"}),
    ),
    GeneratedFunction(
        name="required_n_score_one_sided",
        args=(p10, p01, margin, alpha, power),
        expr=ONE_SIDED_REQUIRED_N,
        summary="Nam's unrounded N for the one-sided score test of H0: p10 - p01 <= margin.",
        equations="Nam (1997) Section 3",
        domain={**_cells_domain, "alpha": (1e-12, 0.5), "power": (0.5, 1 - 1e-9)},
        conditions=(*_cells_conditions, p10 - p01 - margin - sp.Rational(1, 10**9), power - alpha),
        well_conditioned=(p10 + p01 - (p10 - p01) ** 2 - (p10 + p01) / 1000,),
        conditioning_note="sigma_1^2 = psi - d^2 cancels when nearly every discordant item goes one way",
        log_scale=frozenset({"p10", "p01", "alpha"}),
    ),
)
