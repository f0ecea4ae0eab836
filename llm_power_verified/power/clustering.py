"""Design effect of topic clusters and the cluster-adjusted required N.

Items that share a topic are not independent: with intra-cluster correlation
ICC of the paired difference, the variance of the mean difference, and N*,
grow by the design effect DE = 1 + (m - 1) ICC (printed from
``derivations/design_effect.py``), where for clusters of sizes m_g (N items)
m is the size-weighted cluster size sum m_g^2 / N, the mean size only when
the clusters are equal.  Following the paper's Table 4, a negative ICC
estimate is truncated at zero by default.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified._generated import design_effect as _design_effect
from llm_power_verified._validation import as_array, check_in_open_interval, check_positive, describe_index, finish
from llm_power_verified.errors import ArgumentError
from llm_power_verified.results import Result

__all__ = ["cluster_adjusted_required_n", "design_effect"]


def _validate(cluster_size: Any, icc: Any, truncate_negative_icc: bool):
    cluster_size = as_array("cluster_size", cluster_size)
    bad = ~np.isnan(cluster_size) & ~((cluster_size >= 1) & np.isfinite(cluster_size))
    if bad.any():
        raise ArgumentError(
            f"cluster_size must be a finite number >= 1; got {cluster_size[bad].flat[0]:g}{describe_index(bad)}"
        )
    icc = check_in_open_interval("icc", icc, -1.0, 1.0 + 1e-12)
    if truncate_negative_icc:
        icc = np.where(icc < 0, 0.0, icc)
    effect = _design_effect.design_effect(cluster_size, icc)
    bad = ~np.isnan(effect) & (effect <= 0)
    if bad.any():
        raise ArgumentError(
            "icc is below -1/(cluster_size - 1), which no exchangeable correlation can reach; "
            f"design effect would be {effect[bad].flat[0]:g}{describe_index(bad)}"
        )
    return cluster_size, icc, effect


def design_effect(cluster_size: Any, icc: Any, truncate_negative_icc: bool = True) -> float | np.ndarray:
    """Design effect 1 + (m - 1) ICC for clusters of size m (size-weighted, sum m_g^2 / N, when unequal).

    Parameters
    ----------
    cluster_size : array_like
        Items per cluster, >= 1: for unequal clusters the size-weighted size sum m_g^2 / N.
    icc : array_like
        Intra-cluster correlation of the per-item differences, in [-1, 1].
    truncate_negative_icc : bool, default True
        Count a negative ICC as 0 (as the paper does); False keeps it, giving a design effect below 1.

    Returns
    -------
    float or numpy.ndarray
        The design effect, the factor by which clustering multiplies the required N.

    Notes
    -----
    DE = 1 + (m - 1) ICC; negative ICCs are truncated at 0 unless asked not to.  For G clusters of sizes m_g
    (N = sum m_g items) under the one-way random-effects (exchangeable) model the variance of the mean difference is
    exactly sigma^2 / N [1 + ICC (sum m_g^2 / N - 1)] (``derive_unequal_design_effect``), so m is the size-weighted
    size sum m_g^2 / N, which is the mean size N / G only for equal clusters (the paper's Section 6.4 uses the mean).

    Printed from ``derivations/design_effect.py``.

    References
    ----------
    Kish, L. (1965). Survey Sampling. Wiley, Section 5.4; Donner, Birkett and Buck
    (1981), Am. J. Epidemiol. 114, 906-914.

    Examples
    --------
    >>> round(design_effect(859, 0.001), 3)
    1.858
    >>> design_effect(859, -0.0003)
    1.0
    """
    _, _, effect = _validate(cluster_size, icc, truncate_negative_icc)
    return finish(effect)


def cluster_adjusted_required_n(
    required_n: Any, cluster_size: Any, icc: Any, truncate_negative_icc: bool = True
) -> float | np.ndarray:
    """The IID N* multiplied by the design effect (paper Section 6.4).

    Parameters
    ----------
    required_n : array_like
        The N* of independent items, >= 0.
    cluster_size : array_like
        Items per cluster, >= 1: for unequal clusters the size-weighted size sum m_g^2 / N (see :func:`design_effect`).
    icc : array_like
        Intra-cluster correlation of the per-item differences, in [-1, 1].
    truncate_negative_icc : bool, default True
        Count a negative ICC as 0 (as the paper does); False keeps it, giving a design effect below 1.

    Returns
    -------
    float or numpy.ndarray
        N* times the design effect, unrounded.

    Notes
    -----
    N*_cluster = DE x N*, with DE = 1 + (m - 1) ICC (ICC truncated at 0 by default).

    The design effect from ``derivations/design_effect.py``.

    References
    ----------
    Donner, A., Birkett, N. and Buck, C. (1981). Randomization by cluster: sample size
    requirements and analysis. Am. J. Epidemiol. 114(6), 906-914; Resolution Diagnostics
    for Paired LLM Evaluation (arXiv 2605.30315), Section 6.4 and Appendix F.

    Examples
    --------
    >>> round(cluster_adjusted_required_n(433, 859, 0.036), 1)
    13807.5
    """
    required_n = check_positive("required_n", required_n, allow_zero=True, allow_inf=True)
    cluster_size, icc, _ = _validate(cluster_size, icc, truncate_negative_icc)
    return finish(_design_effect.cluster_adjusted_required_n(required_n, cluster_size, icc))


#: Whole-number scores keep every pair's per-cluster products (16-bit counts) when they take at most this many bytes.
CACHED_CROSS_BYTES = 128_000_000
#: Rows copied at a time into the items sorted by cluster.
_ROWS = 1024
#: Up to this many clusters, the cross term is formed cluster by cluster.
_FEW_CLUSTERS = 64
#: Values per part of a pair-by-pair product of whole-number scores (:meth:`ClusterStatistics.pair_cross`).
_PART = 1 << 22


def _exact_sums(scores: np.ndarray) -> bool:
    """Whole-number scores whose every sum of products is exact in float64 (so its order of terms does not matter)."""
    if scores.size == 0 or not np.issubdtype(scores.dtype, np.number):
        return False
    largest = max(float(np.max(scores)), -float(np.min(scores)))
    if not (np.isfinite(largest) and largest**2 * scores.shape[0] < 2.0**53):
        return False
    return all(np.array_equal(part, np.rint(part)) for part in np.array_split(scores, -(-scores.shape[0] // 1024)))


def _small_counts(scores: np.ndarray, sizes: np.ndarray) -> bool:
    """Non-negative whole-number scores whose per-cluster sums of products fit 16 bits."""
    largest = float(np.max(scores))
    return bool(float(np.min(scores)) >= 0 and largest**2 * float(np.max(sizes)) < 2.0**16)


def _exact_dtype(scores: np.ndarray, sizes: np.ndarray):
    """float32 when every per-cluster sum of products of the whole-number scores is below 2^24 (exact), else float64."""
    largest = max(float(np.max(scores)), -float(np.min(scores)))
    return np.float32 if largest**2 * float(np.max(sizes)) < 2.0**24 else np.float64


class ClusterStatistics:
    """Per-cluster sufficient statistics of every model's scores.

    With ``n[g]`` items in cluster g, ``sums[g, k]`` the sum of model k's scores
    and ``cross[g, k, l]`` the sum of products of models k and l, every
    pair's per-cluster sums of D = X_k - X_l and of D^2 follow, and so does
    the one-way ANOVA ICC of D for any weighting of the clusters (a
    bootstrap resample, a leave-one-out drop) without touching the items again.

    Whole-number scores (binary, counts) make every sum exact, whatever the order of its terms, so the products
    ``cross`` are formed per pair when asked for (``pair_cross``: clusters x pairs, never clusters x models x
    models); other scores keep the clusters x models x models products of the per-cluster matrix products, whose
    last bits depend on BLAS's order of summation.

    Parameters
    ----------
    scores : numpy.ndarray
        The (items x models) score matrix.
    labels : array_like
        The cluster of each item; at least two clusters.
    """

    def __init__(self, scores: np.ndarray, labels) -> None:
        labels = np.asarray(labels)
        self.names, index = np.unique(labels, return_inverse=True)
        if self.names.size < 2:
            which = f"every item is in cluster {str(self.names[0])[:80]!r}" if self.names.size else "no cluster labels"
            raise ArgumentError(
                f"clusters: {which}; at least two clusters are needed for an ICC (leave out --cluster-column, or give "
                "a column with two or more values)"
            )
        groups = self.names.size
        self.n = np.bincount(index, minlength=groups).astype(np.float64)
        self.cross: np.ndarray | None = None
        if not _exact_sums(scores):
            indicator = np.zeros((groups, scores.shape[0]))
            indicator[index, np.arange(scores.shape[0])] = 1.0
            self.sums = indicator @ scores
            del indicator
            self.cross = np.stack([scores[index == g].T @ scores[index == g] for g in range(groups)])
            return
        # Whole numbers: the items sorted by cluster (in their order within it), copied a slice of rows at a time.
        order = np.argsort(index, kind="stable")
        self._grouped = np.empty(scores.shape, dtype=_exact_dtype(scores, self.n))
        for start in range(0, order.size, _ROWS):
            self._grouped[start : start + _ROWS] = scores[order[start : start + _ROWS]]
        self._bounds = np.concatenate(([0], np.cumsum(self.n).astype(np.intp)))
        clusters = [self._grouped[start:stop] for start, stop in itertools.pairwise(self._bounds)]
        self.sums = np.stack([items.sum(axis=0, dtype=np.float64) for items in clusters])
        self._squares = np.stack([np.square(items, dtype=np.float64).sum(axis=0) for items in clusters])
        # Few models: every pair's per-cluster products as 16-bit counts (small beside the clusters x pairs arrays),
        # so that each block of pairs only picks its own; many models: formed per block (pair_cross).
        self._counts = None
        models = scores.shape[1]
        if _small_counts(scores, self.n) and groups * models * models * 2 <= CACHED_CROSS_BYTES:
            self._counts = np.stack([(items.T @ items).astype(np.uint16) for items in clusters])

    def pair_cross(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """``cross[:, first, second]``, shape (clusters, pairs), formed for these pairs only (whole-number scores).

        A few clusters: cluster by cluster, one matrix product of the pairs' distinct first models with their distinct
        second models (all pairs, a reference).  Many clusters (a label per item), or pairs whose distinct models make
        that product large (adjacent pairs): the items' products pair by pair, summed per cluster, in parts of about
        ``_PART`` values.  Whole-number scores make every sum exact, in any order.
        """
        if self.cross is not None:
            return self.cross[:, first, second]
        if self._counts is not None:
            return self._counts[:, first, second].astype(np.float64)
        rows, row_of = np.unique(first, return_inverse=True)
        columns, column_of = np.unique(second, return_inverse=True)
        if self.n.size <= _FEW_CLUSTERS and rows.size * columns.size <= 4 * (first.size + columns.size):
            result = np.empty((self.n.size, first.size))
            for group, (start, stop) in enumerate(itertools.pairwise(self._bounds)):
                items = self._grouped[start:stop]
                result[group] = (items[:, rows].T @ items[:, columns])[row_of, column_of]
            return result
        step = max(1, _PART // self._grouped.shape[0])
        parts = []
        for lower in range(0, first.size, step):
            part = slice(lower, lower + step)
            products = self._grouped[:, first[part]] * self._grouped[:, second[part]]
            parts.append(np.add.reduceat(products, self._bounds[:-1], axis=0, dtype=np.float64))
        return np.concatenate(parts, axis=1) if parts else np.empty((self.n.size, 0))

    def pair_sums(
        self, first: np.ndarray, second: np.ndarray, cross: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(sum of D, sum of D^2) per cluster, shape (clusters, pairs); ``cross``: ``pair_cross``, if formed."""
        total = self.sums[:, first] - self.sums[:, second]
        if self.cross is not None:
            squares = self.cross[:, first, first] + self.cross[:, second, second] - 2 * self.cross[:, first, second]
        else:
            cross = self.pair_cross(first, second) if cross is None else cross
            squares = self._squares[:, first] + self._squares[:, second] - 2 * cross
        return total, squares

    def weighting(self, weights: np.ndarray | None = None) -> ClusterWeighting:
        """What every pair's ICC needs of a weighting of the clusters, computed once for all blocks of pairs.

        ``weights`` (clusters,) or (replicates, clusters) counts how often each cluster enters (1 everywhere by
        default).
        """
        w = np.ones(self.n.size) if weights is None else np.asarray(weights, dtype=np.float64)
        size = w @ self.n
        groups = w.sum(axis=-1)
        squared = w @ self.n**2
        # The special values of the divisions are handled in icc_from_sums, case by case.
        with np.errstate(divide="ignore", invalid="ignore"):
            n0 = (size - squared / size) / (groups - 1)
        return ClusterWeighting(weights=w, size=size, groups=groups, n0=n0, weighted_size=squared / size)

    def icc(
        self, first: np.ndarray, second: np.ndarray, weights: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """One-way ANOVA ICC of D for each pair, and the size-weighted cluster size of the design effect.

        ``weights`` (clusters,) or (replicates, clusters) counts how often each
        cluster enters (1 everywhere by default); a result has shape
        (pairs,) or (replicates, pairs).

        Notes
        -----
        With cluster totals S_g, sizes n_g, N = sum n_g, G clusters:
        MSB = (sum S_g^2 / n_g - S^2 / N) / (G - 1), MSW = (sum D^2 - sum S_g^2 / n_g) / (N - G),
        n0 = (N - sum n_g^2 / N) / (G - 1), ICC = (MSB - MSW) / (MSB + (n0 - 1) MSW).  The size-weighted cluster
        size sum w_g n_g^2 / sum w_g n_g, the m of the design effect for unequal clusters (:func:`design_effect`).
        """
        weighting = self.weighting(weights)
        return self.icc_from_sums(*self.pair_sums(first, second), weighting), weighting.weighted_size

    def icc_from_sums(
        self, total: np.ndarray, squares: np.ndarray, weighting: ClusterWeighting, product=np.matmul
    ) -> np.ndarray:
        """The ICC of D from the pairs' per-cluster sums (:meth:`pair_sums`) under a :meth:`weighting`.

        The formula of :meth:`icc`, evaluated in place (each operation of each element as written there, so the
        result does not depend on how many pairs are passed at once, for a given product ``weights @ sums``).
        ``product(weights, sums)`` forms those products (``weights @ sums`` by default; in blocks of pairs, one that
        gives each pair the bits of the all-pairs product).
        """
        w = weighting.weights
        between = product(w, total**2 / self.n[:, None])
        msb = product(w, total)
        msw = product(w, squares)
        vector = np.ndim(weighting.size) > 0
        size = weighting.size[:, None] if vector else weighting.size
        groups = weighting.groups[:, None] if vector else weighting.groups
        n0 = weighting.n0[:, None] if vector else weighting.n0
        # The special values of the divisions are handled below, case by case.
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            np.square(msb, out=msb)
            np.divide(msb, size, out=msb)
            np.subtract(between, msb, out=msb)
            np.divide(msb, groups - 1, out=msb)
            np.subtract(msw, between, out=msw)
            np.divide(msw, size - groups, out=msw)
            icc = np.subtract(msb, msw, out=between)
            np.multiply(n0 - 1, msw, out=msw)
            np.add(msb, msw, out=msw)
            np.divide(icc, msw, out=icc)
        # One cluster (a leave-one-out drop of two): no between-cluster mean square (G - 1 = 0), so the ICC is not
        # estimable: NaN.  Every cluster a single item (N = G): no within-cluster pair, the design effect is 1
        # whatever the ICC: 0.  A constant difference D (both mean squares 0): no variance to apportion: 0.
        np.copyto(icc, 0.0, where=~np.isfinite(icc))
        np.copyto(icc, np.nan, where=np.broadcast_to(groups < 2, icc.shape))
        return icc


@dataclass(frozen=True, repr=False)
class ClusterWeighting(Result):
    """A weighting of the clusters and what every pair's ICC needs of it (``ClusterStatistics.weighting``).

    Attributes
    ----------
    weights : numpy.ndarray
        (clusters,) or (replicates, clusters): how often each cluster enters.
    size, groups : numpy.ndarray or float
        Items (sum w_g n_g) and clusters (sum w_g) of each replicate.
    n0 : numpy.ndarray or float
        The adjusted mean cluster size (N - sum w_g n_g^2 / N) / (G - 1).
    weighted_size : numpy.ndarray or float
        The size-weighted cluster size sum w_g n_g^2 / N of the design effect.
    """

    weights: np.ndarray
    size: np.ndarray | float
    groups: np.ndarray | float
    n0: np.ndarray | float
    weighted_size: np.ndarray | float


def icc_oneway(values, labels) -> float:
    r"""One-way ANOVA intraclass correlation of ``values`` grouped by ``labels`` (unbalanced groups).

    Parameters
    ----------
    values : array_like
        One number per item.
    labels : array_like
        The group (cluster) of each item, as many as ``values``; at least two groups, one of them with two or more
        items.

    Returns
    -------
    float
        The one-way ANOVA ICC, (MSB - MSW) / (MSB + (n0 - 1) MSW), with n0 the adjusted mean group size of unbalanced
        groups; it can be negative.

    Notes
    -----
    .. math:: \rho_I = \frac{MSB - MSW}{MSB + (n_0 - 1)\,MSW},
              \quad n_0 = \frac{N - \sum_g n_g^2 / N}{G - 1}

    with MSB and MSW the between- and within-group mean squares of G groups of n_g items (N in all).  No derivation
    module: the estimator is the textbook one.

    References
    ----------
    Donner, A. and Koval, J. J. (1980). The estimation of intraclass correlation in the analysis of family data.
    Biometrics 36, 19-25; Kish (1965), Survey Sampling, Section 5.4.

    Examples
    --------
    >>> round(icc_oneway([1, 1, 1, 0, 0, 0], ["a", "a", "a", "b", "b", "b"]), 3)
    1.0
    """
    values = np.asarray(values, dtype=np.float64)
    names, index = np.unique(np.asarray(labels), return_inverse=True)
    n = np.bincount(index).astype(float)
    totals = np.bincount(index, weights=values)
    size, groups = values.size, names.size
    if groups < 2 or size == groups:
        raise ArgumentError(
            f"icc_oneway: {groups} group(s) of {size} values; the ICC needs at least two groups and a group of "
            "two or more values (between- and within-group variation)"
        )
    between = np.sum(totals**2 / n) - values.sum() ** 2 / size
    within = np.sum(values**2) - np.sum(totals**2 / n)
    msb, msw = between / (groups - 1), within / (size - groups)
    n0 = (size - np.sum(n**2) / size) / (groups - 1)
    return float((msb - msw) / (msb + (n0 - 1) * msw))


__all__ += ["ClusterStatistics", "ClusterWeighting", "icc_oneway"]
