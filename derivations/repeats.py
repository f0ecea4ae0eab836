"""Several generations per item: the two-level variance, its method-of-moments split, N*(K), q(K) and K*.

Model (a one-way random-effects model per model, e.g. Searle, Casella and McCulloch 1992, Ch. 3): generation j of
item i scores y_ij = mu + b_i + e_ij, with b_i and e_ij independent, zero mean, Var b_i = sigma_b^2 (between items)
and Var e_ij = sigma_w^2 (within an item, one generation).  Item i has K_i generations, mean ybar_i and sample
variance s2_i (divisor K_i - 1).  Only second moments enter, so "independent" can be read as "uncorrelated, e_ij
of mean zero given the item": 0/1 generations with Var(e_ij | item) = p_i (1 - p_i) fit, sigma_w^2 being the mean of
those over items.  Derived below:

* Var(ybar_i) = sigma_b^2 + sigma_w^2 / K_i and E[s2_i] = sigma_w^2 (each by expanding the second moments of the
  independent terms, for a general K through the sums' closed forms and checked term by term for K = 1..6);
* the sample variance of independent item means with variances v_i has expectation mean_i v_i (expanded for
  n = 2..6 items with symbolic v_i), so with unequal K_i the method-of-moments estimator
  sample_variance(ybar) - mean_i s2_i / K_i is unbiased for sigma_b^2;
* a pair (A, B): D_i = ybar_Ai - ybar_Bi has Var(D_i) = sigma_item^2 + sigma_wA^2 / K_A + sigma_wB^2 / K_B (the
  item-level difference and the two models' generation noise independent), Var(Dbar) = Var(D_i) / N; with K
  generations of both models the within part is (sigma_wA^2 + sigma_wB^2) / K, the pair's ``within_variance`` / K;
* N*(K) = (z_{1-alpha/sides} + z_power)^2 (sigma_item^2 + sigma_w^2 / K) / d^2 (paper Eq. 3, ``wald.REQUIRED_N``,
  with that variance), q(K) = N / N*(K);
* the cost C(K) = N*(K) (c_I + m K c_G) of N*(K) items, each costing c_I plus K generations of m models at c_G:
  dC/dK = 0 has the one positive root K* = sqrt(c_I sigma_w^2 / (m c_G sigma_item^2)), where d2C/dK2 > 0 (a minimum);
* the share of Var(ybar) (or of Var(D_i)) that more generations could remove: (sigma_w^2 / K) / Var.
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._symbols import alpha, delta, n, power, sides, variance
from derivations.wald import REQUIRED_N

gap = sp.Symbol("gap", real=True)
between_variance = sp.Symbol("between_variance", positive=True)
within_variance = sp.Symbol("within_variance", positive=True)
generations = sp.Symbol("generations", positive=True)
cost_item = sp.Symbol("cost_item", positive=True)
cost_generation = sp.Symbol("cost_generation", positive=True)
models = sp.Symbol("models", positive=True, integer=True)
mu = sp.Symbol("mu", real=True)


def expectation(expr, noise):
    """E[expr] for a polynomial of degree <= 2 in independent zero-mean terms ``noise`` (symbol -> variance).

    Every monomial is a product of the terms: E[X] = 0, E[X Y] = E[X] E[Y] = 0 for independent X != Y, E[X^2] =
    Var X; whatever does not involve a term is constant.
    """
    symbols = list(noise)
    total = sp.S.Zero
    for powers, coefficient in sp.Poly(sp.expand(expr), *symbols).terms():
        degree = sum(powers)
        if degree > 2:
            raise ValueError("only second moments are declared")
        if degree == 0:
            total += coefficient
        elif degree == 2 and max(powers) == 2:
            total += coefficient * noise[symbols[powers.index(2)]]
    return sp.expand(total)


def derive_item_mean_variance():
    """Var(ybar) = Var(b) + Var(sum_j e_j) / K^2, the sum of K independent variances sigma_w^2 being K sigma_w^2."""
    j = sp.Symbol("j", integer=True, positive=True)
    noise_of_sum = sp.Sum(within_variance, (j, 1, generations)).doit()
    return between_variance + noise_of_sum / generations**2


def derive_item_mean_variance_expanded(count: int):
    """Var(ybar) for ``count`` generations by expanding E[(ybar - mu)^2] term by term."""
    b = sp.Symbol("b")
    errors = sp.symbols(f"e1:{count + 1}")
    item_mean = mu + b + sum(errors) / count
    noise = {b: between_variance, **{e: within_variance for e in errors}}
    return expectation((item_mean - mu) ** 2, noise)


def derive_within_expectation():
    """E[s2] for K generations: sum_j (e_j - ebar)^2 = sum_j e_j^2 - K ebar^2, so E = K sigma_w^2 - sigma_w^2."""
    noise_of_ebar = derive_item_mean_variance().subs(between_variance, 0)
    return sp.simplify((generations * within_variance - generations * noise_of_ebar) / (generations - 1))


def derive_within_expectation_expanded(count: int):
    """E[s2] for ``count`` generations by expanding the sample variance of y_j = mu + b + e_j term by term."""
    b = sp.Symbol("b")
    errors = sp.symbols(f"e1:{count + 1}")
    scores = [mu + b + e for e in errors]
    mean = sum(scores) / count
    sample_variance = sum((y - mean) ** 2 for y in scores) / (count - 1)
    return expectation(sample_variance, {b: between_variance, **{e: within_variance for e in errors}})


def derive_sample_variance_bias(items: int):
    """E[sample variance of X_1..X_n] - mean(v_i) for independent X_i = m + u_i, Var u_i = v_i: zero."""
    deviations = sp.symbols(f"u1:{items + 1}")
    variances = sp.symbols(f"v1:{items + 1}", positive=True)
    values = [mu + u for u in deviations]
    mean = sum(values) / items
    sample_variance = sum((x - mean) ** 2 for x in values) / (items - 1)
    return sp.simplify(
        expectation(sample_variance, dict(zip(deviations, variances, strict=True))) - sum(variances) / items
    )


def derive_moment_estimator_bias(items: int):
    """E[sample_variance(ybar) - mean_i s2_i / K_i] - sigma_b^2 with a symbolic K_i per item: zero."""
    counts = sp.symbols(f"K1:{items + 1}", positive=True)
    expected_sample_variance = sum(derive_item_mean_variance().subs(generations, k) for k in counts) / items
    expected_within_part = sum(derive_within_expectation() / k for k in counts) / items
    return sp.simplify(expected_sample_variance - expected_within_part - between_variance)


def derive_pair_gap_variance():
    """Var(D_i) for D_i = c_i + ebar_A - ebar_B: the item-level difference plus both models' generation noise."""
    within_a, within_b, count_a, count_b, item_level = sp.symbols(
        "within_variance_a within_variance_b generations_a generations_b item_variance", positive=True
    )
    c, noise_a, noise_b = sp.symbols("c ebar_a ebar_b")
    variance_of = derive_item_mean_variance().subs(between_variance, 0)
    noise = {
        c: item_level,
        noise_a: variance_of.subs({within_variance: within_a, generations: count_a}),
        noise_b: variance_of.subs({within_variance: within_b, generations: count_b}),
    }
    return expectation((c + noise_a - noise_b) ** 2, noise), (item_level, within_a, within_b, count_a, count_b)


def derive_mean_gap_variance():
    """Var(Dbar) = Var(sum_i D_i) / N^2 over N independent items, each with Var(D_i)."""
    i = sp.Symbol("i", integer=True, positive=True)
    pair_variance, _ = derive_pair_gap_variance()
    return sp.Sum(pair_variance, (i, 1, n)).doit() / n**2


def derive_pair_equal_generations():
    """Var(D_i) with K generations of both models, written as sigma_item^2 + within_variance / K."""
    pair_variance, (item_level, within_a, within_b, count_a, count_b) = derive_pair_gap_variance()
    equal = pair_variance.subs({count_a: generations, count_b: generations, item_level: between_variance})
    as_pair = derive_item_mean_variance().subs(within_variance, within_a + within_b)
    return equal, as_pair


def derive_required_items():
    """N*(K): Eq. 3 (``wald.REQUIRED_N``) at the gap d with the variance of an item-mean difference at K."""
    return REQUIRED_N.subs({variance: ITEM_MEAN_VARIANCE, delta: gap})


#: (z_{1-alpha/sides} + z_power)^2 / d^2, positive for d != 0: the factor of N*(K) that does not depend on K.
scale = sp.Symbol("scale", positive=True)


def derive_cost(factor=None):
    """C(K) = N*(K) (c_I + m K c_G): every item costs c_I plus K generations of each of m models.

    ``factor`` replaces (z_{1-alpha/sides} + z_power)^2 / d^2 (e.g. by the positive symbol ``scale``).
    """
    required = REQUIRED_ITEMS if factor is None else factor * ITEM_MEAN_VARIANCE
    return required * (cost_item + models * generations * cost_generation)


def derive_optimal_generations():
    """K* solving dC/dK = 0: the one positive root, and d2C/dK2 there (positive: a minimum).

    N*(K) is ``scale`` (z_{1-alpha/sides} + z_power)^2 / d^2 > 0 times Var(D_i) at K; the positive factor changes
    neither the root nor the sign of the curvature.
    """
    cost = derive_cost(scale)
    (root,) = sp.solve(sp.diff(cost, generations), generations)
    curvature = sp.simplify(sp.diff(cost, generations, 2).subs(generations, root))
    return root, curvature


def derive_generation_share():
    """The part sigma_w^2 / K of Var(ybar) (or Var(D_i)) over the whole: what more generations could remove."""
    return (within_variance / generations) / ITEM_MEAN_VARIANCE


ITEM_MEAN_VARIANCE = derive_item_mean_variance()
REQUIRED_ITEMS = derive_required_items()
RESOLUTION_RATIO = n / REQUIRED_ITEMS
OPTIMAL_GENERATIONS, OPTIMAL_CURVATURE = derive_optimal_generations()
GENERATION_SHARE = derive_generation_share()

_variances = {"between_variance": (1e-8, 4.0), "within_variance": (1e-8, 4.0), "generations": (1.0, 1000.0)}
_alpha_power = {"alpha": (1e-12, 0.5), "power": (0.5, 1 - 1e-9), "sides": (1, 2)}

FUNCTIONS = (
    GeneratedFunction(
        name="item_mean_variance",
        args=(between_variance, within_variance, generations),
        expr=ITEM_MEAN_VARIANCE,
        summary="Variance of an item mean over K generations, sigma_b^2 + sigma_w^2 / K.",
        equations="one-way random-effects model y_ij = mu + b_i + e_ij",
        domain=_variances,
        log_scale=frozenset({"generations"}),
    ),
    GeneratedFunction(
        name="required_items_repeated",
        args=(gap, between_variance, within_variance, generations, alpha, power, sides),
        expr=REQUIRED_ITEMS,
        summary="Unrounded items N*(K) for a paired Wald test of item means over K generations of both models.",
        equations="paper Eq. 3 with Var(D_i) = sigma_item^2 + sigma_w^2 / K",
        domain={"gap": (-2.0, 2.0), **_variances, **_alpha_power},
        conditions=(sp.Abs(gap) - sp.Rational(1, 10**9), power - alpha),
        log_scale=frozenset({"alpha", "generations"}),
        integer_args=frozenset({"sides"}),
    ),
    GeneratedFunction(
        name="resolution_ratio_repeated",
        args=(n, gap, between_variance, within_variance, generations, alpha, power, sides),
        expr=RESOLUTION_RATIO,
        summary="Resolution ratio q(K) = N / N*(K) with K generations of both models per item.",
        equations="paper Definition 1 with Var(D_i) = sigma_item^2 + sigma_w^2 / K",
        domain={"n": (1.0, 1e9), "gap": (-2.0, 2.0), **_variances, **_alpha_power},
        conditions=(power - alpha,),
        log_scale=frozenset({"alpha", "n", "generations"}),
        integer_args=frozenset({"sides"}),
    ),
    GeneratedFunction(
        name="optimal_generations",
        args=(cost_item, cost_generation, models, between_variance, within_variance),
        expr=OPTIMAL_GENERATIONS,
        summary="K* minimising the cost N*(K) (c_I + m K c_G) over real K > 0.",
        equations="dC/dK = 0 for C(K) = N*(K) (c_I + m K c_G)",
        domain={
            "cost_item": (1e-6, 1e6),
            "cost_generation": (1e-6, 1e6),
            "models": (1, 5),
            "between_variance": (1e-8, 4.0),
            "within_variance": (1e-8, 4.0),
        },
        log_scale=frozenset({"cost_item", "cost_generation", "between_variance", "within_variance"}),
        integer_args=frozenset({"models"}),
    ),
    GeneratedFunction(
        name="generation_share",
        args=(between_variance, within_variance, generations),
        expr=GENERATION_SHARE,
        summary="Share (sigma_w^2 / K) / (sigma_b^2 + sigma_w^2 / K) of the variance more generations could remove.",
        equations="one-way random-effects model y_ij = mu + b_i + e_ij",
        domain=_variances,
        log_scale=frozenset({"generations"}),
    ),
)
