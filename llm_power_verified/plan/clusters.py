"""The cluster trade-off of a planned benchmark: items per cluster against number of clusters (paper Section 6.4).

Items in clusters of size m whose paired differences share an intra-cluster
correlation ICC inflate N* by the design effect DE = 1 + (m - 1) ICC (derived
in ``derivations/design_effect.py``).  For a required IID N*, clusters of m
items need N* DE items in ceil(N* DE / m) clusters: few large clusters cost
items, many small ones cost clusters.  Unequal clusters of sizes m_g have the
design effect of equal ones of the size-weighted size sum m_g^2 / N.  The ICC planned for is in [0, 1]: the
paper counts a negative ICC as 0 (it would shrink DE below 1, and the formula
admits it only down to -1/(m - 1), -0.001 at the largest size tabulated), so
a negative one is refused rather than silently counted as 0; a caller holding
an observed negative estimate passes max(ICC, 0) and says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from llm_power_verified._validation import ceil_sample_size, check_scalar
from llm_power_verified.errors import ArgumentError
from llm_power_verified.power.clustering import design_effect

__all__ = ["DEFAULT_SIZES", "ICC_RANGE_REASON", "cluster_tradeoff"]

DEFAULT_SIZES = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
#: Why a planned ICC lies in [0, 1] (the refusals of ``cluster_tradeoff`` and of ``plan gap --icc`` say it).
ICC_RANGE_REASON = (
    "a planned intra-cluster correlation runs from 0 for independent items to 1; the design effect "
    "1 + (m - 1) ICC counts a negative ICC as 0, as paper Section 6.4 does"
)


def cluster_tradeoff(required_n: float, icc: float, sizes: Sequence[int] | None = None) -> pd.DataFrame:
    """One row per cluster size: ``items_per_cluster``, ``design_effect``, ``items`` (whole) and ``clusters`` (whole).

    Parameters
    ----------
    required_n : float
        N*, the IID requirement (> 0, finite).
    icc : float
        Intra-cluster correlation of the paired differences, in [0, 1] (a negative ICC is refused: the paper counts
        it as 0).
    sizes : sequence of int, optional
        Cluster sizes m to tabulate (whole numbers >= 1, sorted and deduplicated); default ``DEFAULT_SIZES``.

    Returns
    -------
    pandas.DataFrame
        One row per size: ``items_per_cluster`` m, ``design_effect`` DE, ``items`` ceil(N* DE) and ``clusters``
        ceil(items / m).

    Notes
    -----
    DE = 1 + (m - 1) ICC (paper Section 6.4), derived in ``derivations/design_effect.py``
    (:func:`~llm_power_verified.power.clustering.design_effect`).

    Examples
    --------
    >>> table = cluster_tradeoff(433, icc=0.036, sizes=[1, 10, 859])
    >>> table["items"].tolist(), table["clusters"].tolist()
    ([433, 574, 13808], [433, 58, 17])
    """
    check_scalar("required_n", required_n, low=0, low_open=True)
    try:
        icc = check_scalar("icc", icc, low=0, high=1)
    except ArgumentError as error:
        raise ArgumentError(f"{error} ({ICC_RANGE_REASON})") from None
    if math.isinf(required_n):
        raise ArgumentError("required_n is infinite (a zero gap): no number of items or clusters resolves it")
    sizes = list(DEFAULT_SIZES if sizes is None else sizes)
    for size in sizes:
        check_scalar("cluster size", size, low=1, integer=True)
    m = np.asarray(sorted({int(size) for size in sizes}), dtype=np.float64)
    effect = np.asarray(design_effect(m, float(icc)), dtype=np.float64)
    items = np.asarray(ceil_sample_size(required_n * effect), dtype=np.int64)
    return pd.DataFrame(
        {
            "items_per_cluster": m.astype(np.int64),
            "design_effect": effect,
            "items": items,
            "clusters": np.ceil(items / m).astype(np.int64),
        }
    )
