"""Design effect of clustered items and the cluster-adjusted N* (paper Section 6.4).

Items in a cluster of size m whose paired differences share a common
(exchangeable) correlation ICC have

    Var(sum of D in the cluster) = m sigma^2 + m (m - 1) ICC sigma^2,

against m sigma^2 for independent items, so the variance of the mean, and
hence N*, grows by the design effect DE = 1 + (m - 1) ICC (Kish 1965).  The
paper uses the mean cluster size and truncates a negative ICC at zero.
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


DESIGN_EFFECT = derive_design_effect()

FUNCTIONS = (
    GeneratedFunction(
        name="design_effect",
        args=(cluster_size, icc),
        expr=DESIGN_EFFECT,
        summary="Design effect 1 + (m - 1) ICC for clusters of (mean) size m.",
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
