"""Design effect of topic clusters and the cluster-adjusted required N.

Items that share a topic are not independent: with mean cluster size m and
intra-cluster correlation ICC of the paired difference, the variance of the
mean difference, and N*, grow by the design effect DE = 1 + (m - 1) ICC
(printed from ``derivations/design_effect.py``).  Following the paper's
Table 4, a negative ICC estimate is truncated at zero by default.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llm_power_verified._generated import design_effect as _design_effect
from llm_power_verified._validation import as_array, check_in_open_interval, check_positive, describe_index, finish

__all__ = ["cluster_adjusted_required_n", "design_effect"]


def _validate(cluster_size: Any, icc: Any, truncate_negative_icc: bool):
    cluster_size = as_array("cluster_size", cluster_size)
    bad = ~np.isnan(cluster_size) & ~((cluster_size >= 1) & np.isfinite(cluster_size))
    if bad.any():
        raise ValueError(f"cluster_size must be a finite number >= 1; got {cluster_size[bad].flat[0]:g}{describe_index(bad)}")
    icc = check_in_open_interval("icc", icc, -1.0, 1.0 + 1e-12)
    if truncate_negative_icc:
        icc = np.where(icc < 0, 0.0, icc)
    effect = _design_effect.design_effect(cluster_size, icc)
    bad = ~np.isnan(effect) & (effect <= 0)
    if bad.any():
        raise ValueError(
            "icc is below -1/(cluster_size - 1), which no exchangeable correlation can reach; "
            f"design effect would be {effect[bad].flat[0]:g}{describe_index(bad)}"
        )
    return cluster_size, icc, effect


def design_effect(cluster_size: Any, icc: Any, truncate_negative_icc: bool = True):
    """Design effect 1 + (m - 1) ICC for clusters of (mean) size m.

    Examples
    --------
    >>> round(design_effect(859, 0.001), 3)
    1.858
    >>> design_effect(859, -0.0003)
    1.0
    """
    _, _, effect = _validate(cluster_size, icc, truncate_negative_icc)
    return finish(effect)


def cluster_adjusted_required_n(required_n: Any, cluster_size: Any, icc: Any, truncate_negative_icc: bool = True):
    """The IID N* multiplied by the design effect (paper Section 6.4).

    Examples
    --------
    >>> round(cluster_adjusted_required_n(433, 859, 0.036), 1)
    13807.5
    """
    required_n = check_positive("required_n", required_n, allow_zero=True, allow_inf=True)
    cluster_size, icc, _ = _validate(cluster_size, icc, truncate_negative_icc)
    return finish(_design_effect.cluster_adjusted_required_n(required_n, cluster_size, icc))
