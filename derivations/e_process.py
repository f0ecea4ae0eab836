"""Mixture e-processes and the normal-mixture confidence-sequence boundary (paper Appendix C, Eq. 24).

Discordant-sign e-process.  Given b + c = n discordant pairs, b of them won by
model A, the signs are i.i.d. Bernoulli(1/2) under H0.  Mixing the likelihood
ratio theta^b (1 - theta)^c / (1/2)^n over a prior on theta gives an
e-process (Eq. 24).  With a Beta(a, b') prior the integral is a Beta function:

    e_n = 2^n B(a + b, b' + c) / B(a, b').

The paper's default mixes over the discrete grid theta in {0.01, ..., 0.49,
0.51, ..., 0.99} with equal weights; that sum needs no derivation and is
evaluated in log space by the package.

Normal-mixture boundary (Howard, Ramdas, McAuliffe and Sekhon 2021, Annals of
Statistics 49(2), Section 3 and Proposition 5's two-sided normal mixture).
For a sum S_t of differences whose increments are sub-Gaussian with
intrinsic time V_t, exp(lambda S_t - lambda^2 V_t / 2) is a supermartingale
for every lambda; mixing lambda ~ N(0, 1/rho) gives

    M_t = sqrt(rho / (V_t + rho)) exp(S_t^2 / (2 (V_t + rho))),

and Ville's inequality makes {|S_t| >= sqrt((V_t + rho) log((V_t + rho) / (rho alpha^2)))}
an event of probability at most alpha over all t.
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._symbols import alpha, b, c, prior_a, prior_b, rho_mix, s_sum, v_intrinsic

theta = sp.Symbol("theta", positive=True)


def derive_beta_mixture_e():
    """2^n B(a + b, b' + c) / B(a, b'), checked against the integral at integer exponents."""
    closed = 2 ** (b + c) * sp.beta(prior_a + b, prior_b + c) / sp.beta(prior_a, prior_b)
    for values in (
        {prior_a: 1, prior_b: 1, b: 3, c: 2},
        {prior_a: 2, prior_b: 2, b: 5, c: 1},
        {prior_a: 3, prior_b: 1, b: 0, c: 4},
    ):
        density = theta ** (prior_a - 1) * (1 - theta) ** (prior_b - 1) / sp.beta(prior_a, prior_b)
        ratio = theta**b * (1 - theta) ** c / sp.Rational(1, 2) ** (b + c)
        integral = sp.integrate((ratio * density).subs(values), (theta, 0, 1))
        if abs(sp.N(integral - closed.subs(values), 40)) > sp.Float("1e-35"):
            raise AssertionError("Beta-mixture e-value differs from its integral")
    return closed


def derive_log_beta_mixture_e():
    """The log of e_n in log-gamma form."""
    closed = derive_beta_mixture_e()
    log_form = (
        (b + c) * sp.log(2)
        + sp.loggamma(prior_a + b)
        + sp.loggamma(prior_b + c)
        - sp.loggamma(prior_a + b + prior_b + c)
        - sp.loggamma(prior_a)
        - sp.loggamma(prior_b)
        + sp.loggamma(prior_a + prior_b)
    )
    check = {prior_a: sp.Rational(3, 2), prior_b: 2, b: 7, c: 4}
    if abs(sp.N(sp.exp(log_form.subs(check)) - closed.subs(check), 40)) > sp.Float("1e-30"):
        raise AssertionError("log form differs from the closed form")
    return log_form


def derive_normal_mixture():
    """Mix exp(lambda s - lambda^2 v / 2) over lambda ~ N(0, 1/rho) by completing the square."""
    lam = sp.Symbol("lambda", real=True)
    quadratic, linear = sp.Symbol("A", positive=True), sp.Symbol("B", real=True)
    gaussian = sp.integrate(sp.exp(-quadratic * lam**2 + linear * lam), (lam, -sp.oo, sp.oo), conds="none")
    exponent = sp.expand(lam * s_sum - lam**2 * v_intrinsic / 2 - rho_mix * lam**2 / 2)
    mixture = sp.sqrt(rho_mix / (2 * sp.pi)) * gaussian.subs(
        {quadratic: -exponent.coeff(lam, 2), linear: exponent.coeff(lam, 1)}
    )
    return sp.simplify(mixture)


def derive_log_normal_mixture():
    """The log of the normal-mixture e-value, expanded."""
    return sp.expand_log(sp.log(derive_normal_mixture()), force=True)


def derive_boundary():
    """Smallest s > 0 with M = 1/alpha: the two-sided boundary on |S_t|."""
    positive = sp.Symbol("s", positive=True)
    equation = sp.Eq(derive_log_normal_mixture().subs(s_sum, positive), sp.log(1 / alpha))
    (solution,) = sp.solve(equation, positive)
    arranged = sp.sqrt((v_intrinsic + rho_mix) * sp.log((v_intrinsic + rho_mix) / (rho_mix * alpha**2)))
    probe = {v_intrinsic: 37, rho_mix: 5, alpha: sp.Rational(1, 20)}
    if abs(sp.N((solution - arranged).subs(probe), 40)) > sp.Float("1e-30"):
        raise AssertionError("boundary arrangement differs from the solution")
    return arranged


LOG_BETA_MIXTURE = derive_log_beta_mixture_e()
LOG_NORMAL_MIXTURE = derive_log_normal_mixture()
BOUNDARY = derive_boundary()

FUNCTIONS = (
    GeneratedFunction(
        name="log_e_beta_mixture",
        args=(b, c, prior_a, prior_b),
        expr=LOG_BETA_MIXTURE,
        summary="log e-value of the Beta(prior_a, prior_b) mixture over the discordant signs (b won by A, c by B).",
        equations="paper Eq. 24 with a Beta prior",
        domain={"b": (0.0, 200.0), "c": (0.0, 200.0), "prior_a": (0.5, 10.0), "prior_b": (0.5, 10.0)},
        integer_args=frozenset({"b", "c"}),
        # log e is a difference of log-gamma values of size ~ n log n (n = b + c + prior_a + prior_b), so its
        # absolute error is about eps n log n (measured 3.9e-13 at n = 341); a relative error of 1e-12 is
        # meaningful only where |log e| >= 1e-3 (n + 2) log(n + 2), which allows a factor of 4 over eps n log n.
        well_conditioned=(
            sp.Abs(LOG_BETA_MIXTURE)
            - sp.Rational(1, 1000) * (b + c + prior_a + prior_b + 2) * sp.log(b + c + prior_a + prior_b + 2),
        ),
        conditioning_note="log e is a difference of log-gamma values of size ~ n log n; where |log e| < 1e-3 (n + 2) "
        "log(n + 2) only its absolute accuracy (about eps n log n) is meaningful (the package's log-space evaluation "
        "covers large n)",
    ),
    GeneratedFunction(
        name="log_e_normal_mixture",
        args=(s_sum, v_intrinsic, rho_mix),
        expr=LOG_NORMAL_MIXTURE,
        summary="log of the normal-mixture supermartingale sqrt(rho/(v + rho)) exp(s^2 / (2 (v + rho))).",
        equations="Howard et al. (2021), two-sided normal mixture",
        domain={"s": (-1e6, 1e6), "v": (1e-3, 1e7), "rho_mix": (1e-3, 1e5)},
        log_scale=frozenset({"v", "rho_mix"}),
        well_conditioned=(sp.Abs(LOG_NORMAL_MIXTURE) - sp.Rational(1, 10),),
        conditioning_note="the two terms cancel where the mixture is near 1",
    ),
    GeneratedFunction(
        name="normal_mixture_boundary",
        args=(v_intrinsic, rho_mix, alpha),
        expr=BOUNDARY,
        summary="Two-sided normal-mixture boundary on |S_t|, crossed with probability <= alpha over all t.",
        equations="Howard et al. (2021), Ville's inequality",
        domain={"v": (1e-3, 1e9), "rho_mix": (1e-3, 1e6), "alpha": (1e-10, 0.5)},
        log_scale=frozenset({"v", "rho_mix", "alpha"}),
    ),
)
