"""Design effect of clustered items and the cluster-adjusted N* (paper Section 6.4).

Items in a cluster of size m whose paired differences share a common
(exchangeable) correlation ICC have

    Var(sum of D in the cluster) = m sigma^2 + m (m - 1) ICC sigma^2,

against m sigma^2 for independent items, so the variance of the mean, and
hence N*, grows by the design effect DE = 1 + (m - 1) ICC (Kish 1965).  For
G clusters of unequal sizes m_g (N = sum m_g items) the variance of the mean
of all N differences is sigma^2 / N [1 + ICC (sum m_g^2 / N - 1)] exactly
(``derive_unequal_design_effect``): the same design effect at the
size-weighted size m_w = sum m_g^2 / N, which is the mean size N / G only for
equal clusters.  The paper (Section 6.4) uses the mean cluster size; the audit
uses m_w.  A negative ICC is truncated at zero.
"""

import sympy as sp

from derivations._codegen import GeneratedFunction
from derivations._symbols import cluster_size, icc, required_n


def derive_design_effect():
    """Variance of a cluster total with exchangeable correlation, over the independent one."""
    sigma_squared = sp.Symbol("sigma_squared", positive=True)
    i, j = sp.symbols("i j", integer=True, positive=True)
    size = sp.Symbol("m", integer=True, positive=True)
    # Sum of Cov(D_i, D_j) over the m x m block: sigma^2 on the diagonal,
    # ICC sigma^2 off it; the double sum over all (i, j) minus the diagonal.
    all_pairs = sp.summation(sp.summation(icc * sigma_squared, (j, 1, size)), (i, 1, size))
    diagonal_as_icc = sp.summation(icc * sigma_squared, (i, 1, size))
    diagonal = sp.summation(sigma_squared, (i, 1, size))
    total = diagonal + all_pairs - diagonal_as_icc
    effect = sp.factor(sp.simplify(total / (size * sigma_squared)))
    return sp.expand(effect).subs(size, cluster_size).collect(icc)


def derive_unequal_design_effect():
    """Variance of the sum over G clusters of sizes m_g, over the independent N sigma^2, as 1 + ICC (m_w - 1).

    Returns (that ratio, m_w = Q / N) in N = sum m_g and Q = sum m_g^2 for a symbolic number of clusters G;
    the ratio equals ``DESIGN_EFFECT`` at cluster size m_w (``tests/power/test_weighted_cluster_size.py``).
    """
    sigma_squared = sp.Symbol("sigma_squared", positive=True)
    g, groups = sp.Symbol("g", integer=True, positive=True), sp.Symbol("G", integer=True, positive=True)
    sizes = sp.IndexedBase("m", positive=True)
    # Clusters are independent: the variance of the sum is the sum of the cluster totals' variances (the block above).
    per_cluster = sizes[g] * sigma_squared + sizes[g] * (sizes[g] - 1) * icc * sigma_squared
    total = sp.factor_terms(sp.Sum(sp.expand(per_cluster), (g, 1, groups)).expand().doit())
    items, squares = sp.Sum(sizes[g], (g, 1, groups)), sp.Sum(sizes[g] ** 2, (g, 1, groups))
    # Name the two sums N and Q so that the ratio simplifies as a rational function of them.
    n_items, square_sum = sp.symbols("N Q", positive=True)
    ratio = sp.simplify((total / (items * sigma_squared)).subs({items: n_items, squares: square_sum}))
    return ratio, square_sum / n_items


DESIGN_EFFECT = derive_design_effect()

FUNCTIONS = (
    GeneratedFunction(
        name="design_effect",
        args=(cluster_size, icc),
        expr=DESIGN_EFFECT,
        summary="Design effect 1 + (m - 1) ICC for clusters of size m (size-weighted, sum m_g^2 / N, when unequal).",
        equations="paper Section 6.4",
        domain={"cluster_size": (1.0, 1e5), "icc": (-0.5, 1.0)},
        conditions=(DESIGN_EFFECT,),
        log_scale=frozenset({"cluster_size"}),
        well_conditioned=(DESIGN_EFFECT - sp.Rational(1, 1000),),
        conditioning_note="1 + (m - 1) ICC cancels for negative ICC near -1/(m - 1)",
    ),
    GeneratedFunction(
        name="cluster_adjusted_required_n",
        args=(required_n, cluster_size, icc),
        expr=required_n * DESIGN_EFFECT,
        summary="Cluster-adjusted N*: the IID N* times the design effect.",
        equations="paper Section 6.4, Table 4",
        domain={"required_n": (1.0, 1e9), "cluster_size": (1.0, 1e5), "icc": (-0.5, 1.0)},
        conditions=(DESIGN_EFFECT,),
        log_scale=frozenset({"required_n", "cluster_size"}),
        well_conditioned=(DESIGN_EFFECT - sp.Rational(1, 1000),),
        conditioning_note="1 + (m - 1) ICC cancels for negative ICC near -1/(m - 1)",
    ),
)
