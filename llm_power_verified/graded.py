"""Paired tests for graded (non-binary) per-item scores.

* :func:`paired_t_test`: t = mean(D) / (sd(D) / sqrt(n)) on n - 1 degrees of
  freedom, computed here directly (and checked against ``scipy.stats.ttest_rel``
  in the tests); log p comes from scipy's log survival function of t, and,
  below 1e-260 where that fails, from a log-space incomplete beta.
* :func:`wilcoxon_signed_rank`: ``scipy.stats.wilcoxon`` (zero differences
  dropped, the "wilcox" zero method; exact null distribution for small n
  without ties, normal approximation otherwise, as scipy decides).

Power and required n of the paired t-test are in :mod:`llm_power_verified.paired_t`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified._binomial import log_t_survival
from llm_power_verified._validation import as_array, describe_index

__all__ = ["GradedTestResult", "paired_t_test", "wilcoxon_signed_rank"]


@dataclass(frozen=True)
class GradedTestResult:
    """Statistic, two-sided p-value and its log for a paired graded-score test."""

    statistic: float
    pvalue: float
    log_pvalue: float
    method: str
    n_items: int
    mean_difference: float


def _aligned(scores_a: Any, scores_b: Any) -> tuple[np.ndarray, np.ndarray]:
    arrays = []
    for name, values in (("scores_a", scores_a), ("scores_b", scores_b)):
        array = as_array(name, values)
        if array.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional; got shape {array.shape}")
        bad = ~np.isfinite(array)
        if bad.any():
            raise ValueError(f"{name} must be finite; got {array[bad][0]!r}{describe_index(bad)}")
        arrays.append(array)
    a, b = arrays
    if a.size != b.size:
        raise ValueError(f"scores_a and scores_b must have the same length; got {a.size} and {b.size}")
    if a.size < 2:
        raise ValueError(f"a paired test needs at least 2 items; got {a.size}")
    return a, b


def paired_t_test(scores_a: Any, scores_b: Any) -> GradedTestResult:
    """Two-sided paired t-test of H0: E[X_A - X_B] = 0.

    Constant differences give t = +/-inf and p = 0 if the mean is not zero,
    and t = 0, p = 1 if every difference is zero.

    Examples
    --------
    >>> result = paired_t_test([0.9, 0.7, 0.8, 0.6], [0.6, 0.65, 0.7, 0.55])
    >>> round(result.statistic, 4), round(result.pvalue, 4)
    (2.1004, 0.1265)
    """
    from scipy import stats

    a, b = _aligned(scores_a, scores_b)
    differences = a - b
    n = differences.size
    mean = float(differences.mean())
    spread = float(differences.std(ddof=1))
    if spread == 0:
        if mean == 0:
            return GradedTestResult(0.0, 1.0, 0.0, "paired-t", n, mean)
        return GradedTestResult(math.copysign(math.inf, mean), 0.0, -math.inf, "paired-t", n, mean)
    statistic = mean / (spread / math.sqrt(n))
    log_tail = float(stats.t.logsf(abs(statistic), n - 1))
    if not log_tail > -600:  # scipy's logsf loses accuracy, then underflows to -inf, out here
        log_tail = log_t_survival(abs(statistic), n - 1)
    log_p = math.log(2.0) + log_tail
    log_p = min(log_p, 0.0)
    return GradedTestResult(statistic, math.exp(log_p), log_p, "paired-t", n, mean)


def wilcoxon_signed_rank(scores_a: Any, scores_b: Any) -> GradedTestResult:
    """Two-sided Wilcoxon signed-rank test on the paired differences (scipy's implementation).

    Examples
    --------
    >>> round(wilcoxon_signed_rank([0.9, 0.7, 0.8, 0.6, 0.75], [0.6, 0.65, 0.7, 0.55, 0.7]).pvalue, 4)
    0.0625
    """
    from scipy import stats

    a, b = _aligned(scores_a, scores_b)
    differences = a - b
    if np.all(differences == 0):
        return GradedTestResult(0.0, 1.0, 0.0, "wilcoxon", a.size, 0.0)
    result = stats.wilcoxon(a, b, zero_method="wilcox", alternative="two-sided")
    pvalue = float(result.pvalue)
    return GradedTestResult(float(result.statistic), pvalue, math.log(pvalue) if pvalue > 0 else -math.inf, "wilcoxon", a.size, float(differences.mean()))
