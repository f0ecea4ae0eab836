"""Clusters in one named comparison: the pair's design effect, and the cluster-robust interval (``--method cluster``).

The fixed-N intervals (score, t, bootstrap) treat the items as independent.  When the items come in clusters
(passages with several questions, a benchmark's subjects) and the per-item difference D_i = candidate - baseline is
correlated within them, the variance of the mean gap is larger than sigma^2 / N by the design effect
DE = 1 + (m_w - 1) ICC (:func:`~llm_power_verified.power.clustering.design_effect`, at the size-weighted cluster size
m_w = sum m_g^2 / N and the one-way ANOVA ICC of the differences, as the audit computes it), and such an interval is
too narrow by a factor of about sqrt(DE).

``--method cluster`` is the cluster-robust (sandwich) interval of the mean difference: the regression of D on a
constant with the variance clustered by the labels, as statsmodels' ``OLS(d, ones).fit(cov_type="cluster")``
computes it (the small-sample factor G / (G - 1), and (N - 1) / (N - K) = 1 with K = 1 regressor),

    se^2 = G / (G - 1) * sum_g (sum_{i in g} (D_i - mean D))^2 / N^2,

and Student's t on G - 1 degrees of freedom (statsmodels' ``use_t=True``) for the interval and the one-sided tests.
It assumes the clusters are a sample from a larger population of clusters (Cameron and Miller 2015); with few
clusters (under about 20-50) it is approximate, and a fixed set of strata (a benchmark's subjects, all of them
present) is not a sample of clusters: there the independent interval is the one that answers the question.
"""

from __future__ import annotations

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.power.clustering import design_effect, icc_oneway

__all__ = ["cluster_note", "cluster_robust", "pair_design_effect"]


def _groups(labels, size: int) -> tuple[np.ndarray, int]:
    """The cluster index of each item and the number of clusters G."""
    _, index = np.unique(np.asarray(labels, dtype=object).astype(str), return_inverse=True)
    if index.size != size:
        raise ArgumentError(f"{index.size} cluster labels for {size} items")
    return index, int(index.max()) + 1


def pair_design_effect(differences, labels) -> tuple[float, float, int] | None:
    """The design effect of the pair's mean difference, as the audit computes it (ICC truncated at 0).

    Parameters
    ----------
    differences : array_like
        The per-item differences candidate - baseline.
    labels : sequence
        The cluster of each item.

    Returns
    -------
    tuple or None
        (DE, the one-way ANOVA ICC of the differences, G); None when the ICC is not estimable (one cluster, every
        cluster a single item, or differences that do not vary).

    Examples
    --------
    >>> effect, icc, groups = pair_design_effect([1, 1, 0, 0, 1, 0], ["a", "a", "b", "b", "c", "c"])
    >>> round(effect, 3), round(icc, 3), groups
    (1.5, 0.5, 3)
    """
    values = np.asarray(differences, dtype=np.float64)
    index, groups = _groups(labels, values.size)
    if groups < 2 or groups == values.size or np.ptp(values) == 0:
        return None
    icc = icc_oneway(values, index)
    if not np.isfinite(icc):
        return None
    weighted_size = float(np.sum(np.bincount(index).astype(float) ** 2) / values.size)
    return float(design_effect(weighted_size, icc)), float(icc), groups


def cluster_note(differences, labels, method: str) -> str:
    """The note on the clusters: the pair's design effect and what the interval does with the clusters.

    Parameters
    ----------
    differences : array_like
        The per-item differences.
    labels : sequence
        The cluster of each item.
    method : str
        The interval's method ("cluster": the interval accounts for them).

    Returns
    -------
    str
        One sentence.
    """
    found = pair_design_effect(differences, labels)
    if found is None:
        effect = "design effect not estimable (one cluster, single-item clusters or constant differences)"
        narrow = ""
    else:
        value, icc, groups = found
        effect = (
            f"{groups:,} clusters, ICC of the differences {icc:.4f}, design effect {value:.2f} (the variance of d "
            f"about {value:.2f} times the independent one's)"
        )
        narrow = f", about {value**0.5:.2f} times too narrow" if value > 1 else ""
    if method == "cluster":
        return f"clusters: {effect}; the interval is cluster-robust (t on G - 1 degrees of freedom)"
    if method == "betting":
        return f"clusters: {effect}; the confidence sequence treats the items as independent{narrow}"
    return (
        f"clusters: {effect}; the interval treats the items as independent{narrow} if the clusters are a sample "
        "of a larger population (then use --method cluster; a fixed set of strata is not one)"
    )


def cluster_robust(
    differences, labels, bounds: tuple[float, float], confidence: float
) -> tuple[tuple[float, float], float, float, float, int]:
    """The cluster-robust interval of the mean difference and the one-sided t tests against the two boundaries.

    Parameters
    ----------
    differences : array_like
        The per-item differences candidate - baseline.
    labels : sequence
        The cluster of each item; at least two clusters.
    bounds : tuple of float
        (low, high): ``p_low`` is the p of H0: d <= low, ``p_high`` that of H0: d >= high.
    confidence : float
        The interval's level, 1 - 2 alpha.

    Returns
    -------
    tuple
        ((L, U), p_low, p_high, se, G).

    Raises
    ------
    ArgumentError
        Fewer than two clusters, or a standard error of 0 (every cluster's differences sum to the mean's share).

    Examples
    --------
    >>> (low, high), p_low, p_high, se, groups = cluster_robust([1, 0, 0, 1, 1, 1], list("aabbcc"), (0, 0), 0.9)
    >>> round(low, 3), round(high, 3), round(se, 4), groups
    (0.18, 1.153, 0.1667, 3)
    """
    # Lazy: scipy.stats costs a few tenths of a second at import; only --method cluster needs it.
    from scipy.stats import t as student

    values = np.asarray(differences, dtype=np.float64)
    index, groups = _groups(labels, values.size)
    if groups < 2:
        raise ArgumentError(
            f"--method cluster needs at least 2 clusters; the input has {groups}: give --cluster-column a column "
            "that splits the items, or leave --method cluster out"
        )
    n, mean = values.size, float(values.mean())
    sums = np.bincount(index, weights=values - mean, minlength=groups)
    se = float(np.sqrt(groups / (groups - 1) * np.sum(sums**2)) / n)
    if not se > 0:
        raise ArgumentError(
            "--method cluster: the cluster-robust standard error is 0 (every cluster's differences average to the "
            "overall mean); leave --method cluster out"
        )
    df = groups - 1
    half = float(student.ppf((1 + confidence) / 2, df)) * se
    p_low = float(student.sf((mean - bounds[0]) / se, df))
    p_high = float(student.cdf((mean - bounds[1]) / se, df))
    return (mean - half, mean + half), p_low, p_high, se, groups
