"""Paired tests for graded (non-binary) per-item scores.

* :func:`paired_t_test`: t = mean(D) / (sd(D) / sqrt(n)) on n - 1 degrees of
  freedom, computed here directly (and checked against ``scipy.stats.ttest_rel``
  in the tests); log p comes from scipy's log survival function of t, and,
  below 1e-260 where that fails, from a log-space incomplete beta.
* :func:`wilcoxon_signed_rank`: ``scipy.stats.wilcoxon`` (zero differences
  dropped, the "wilcox" zero method; exact null distribution for small n
  without ties, normal approximation otherwise, as scipy decides).

:func:`batched_paired_t_pvalues` and :func:`batched_wilcoxon_pvalues` run
the same two tests on every row of a 2-D array of differences at once, each
row treated as its own one-dimensional scipy call (so a row's zeros or ties
change only that row's method); the Monte Carlo grids use them.

Power and required n of the paired t-test are in :mod:`llm_power_verified.power.paired_t`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified._validation import as_array, describe_index
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.binomial import log_t_survival
from llm_power_verified.results import Result

__all__ = [
    "GradedTestResult",
    "batched_paired_t_pvalues",
    "batched_wilcoxon_pvalues",
    "paired_t_test",
    "wilcoxon_signed_rank",
]


@dataclass(frozen=True, repr=False)
class GradedTestResult(Result):
    """Statistic, two-sided p-value and its log for a paired graded-score test.

    Attributes
    ----------
    statistic : float
        t for the paired t-test, W+ (scipy's statistic) for the Wilcoxon test.
    pvalue, log_pvalue : float
        The two-sided p-value and its natural log (finite for the t-test however small p is).
    method : str
        "paired-t" or "wilcoxon".
    n_items : int
        Number of paired items.
    mean_difference : float
        The mean of the differences scores_a - scores_b.
    """

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
            raise ArgumentError(f"{name} must be one-dimensional; got shape {array.shape}")
        bad = ~np.isfinite(array)
        if bad.any():
            raise ArgumentError(f"{name} must be finite; got {array[bad][0]!r}{describe_index(bad)}")
        arrays.append(array)
    a, b = arrays
    if a.size != b.size:
        raise ArgumentError(f"scores_a and scores_b must have the same length; got {a.size} and {b.size}")
    if a.size < 2:
        raise ArgumentError(f"a paired test needs at least 2 items; got {a.size}")
    return a, b


@docfill("scores", returns="graded")
def paired_t_test(scores_a: Any, scores_b: Any) -> GradedTestResult:
    """Two-sided paired t-test of H0: E[X_A - X_B] = 0.

    Constant differences give t = +/-inf and p = 0 if the mean is not zero,
    and t = 0, p = 1 if every difference is zero.

    Notes
    -----
    t = D-bar / (s_D / sqrt(n)) with n - 1 degrees of freedom; p = 2 P(T_{n-1} >= abs(t)),
    computed in logs so that it does not underflow (scipy's ``t.logsf``, and
    :func:`~llm_power_verified.inference.binomial.log_t_survival` below 1e-260).
    No closed form is generated (power and N are in ``derivations/paired_t.py``).

    References
    ----------
    Student (1908). The probable error of a mean. Biometrika 6(1), 1-25.

    Examples
    --------
    >>> result = paired_t_test([0.9, 0.7, 0.8, 0.6], [0.6, 0.65, 0.7, 0.55])
    >>> round(result.statistic, 4), round(result.pvalue, 4)
    (2.1004, 0.1265)
    """
    # Lazy: scipy.stats adds about 1.2 s to `import llm_power_verified` (measured), which loads this room.
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


@docfill("scores", returns="graded")
def wilcoxon_signed_rank(scores_a: Any, scores_b: Any) -> GradedTestResult:
    """Two-sided Wilcoxon signed-rank test on the paired differences (scipy's implementation).

    Notes
    -----
    W+ = sum of the ranks of abs(D_i) over the positive D_i (zeros dropped, ties mid-
    ranked); exact null distribution for small n without ties, the normal approximation
    with the tie correction otherwise (scipy's ``method="auto"``).  Every difference zero gives
    W+ = 0 and p = 1.  No ``derivations/`` module.

    References
    ----------
    Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics Bulletin
    1(6), 80-83.

    Examples
    --------
    >>> round(wilcoxon_signed_rank([0.9, 0.7, 0.8, 0.6, 0.75], [0.6, 0.65, 0.7, 0.55, 0.7]).pvalue, 4)
    0.0625
    """
    # Lazy: scipy.stats adds about 1.2 s to `import llm_power_verified` (measured), which loads this room.
    from scipy import stats

    a, b = _aligned(scores_a, scores_b)
    differences = a - b
    if np.all(differences == 0):
        return GradedTestResult(0.0, 1.0, 0.0, "wilcoxon", a.size, 0.0)
    result = stats.wilcoxon(a, b, zero_method="wilcox", alternative="two-sided")
    pvalue = float(result.pvalue)
    return GradedTestResult(
        float(result.statistic),
        pvalue,
        math.log(pvalue) if pvalue > 0 else -math.inf,
        "wilcoxon",
        a.size,
        float(differences.mean()),
    )


def _batched_differences(differences: Any) -> np.ndarray:
    array = np.asarray(differences, dtype=float)
    if array.ndim != 2:
        raise ArgumentError(f"differences must be two-dimensional (replicates, items); got shape {array.shape}")
    if array.shape[1] < 2:
        raise ArgumentError(f"a paired test needs at least 2 items per row; got {array.shape[1]}")
    if not np.isfinite(array).all():
        bad = ~np.isfinite(array)
        raise ArgumentError(f"differences must be finite; got {array[bad][0]!r}{describe_index(bad)}")
    return array


@docfill("differences_rows", returns="row_pvalues")
def batched_paired_t_pvalues(differences: Any) -> np.ndarray:
    """Two-sided paired t-test p-value of every row of a (replicates, n) array of differences.

    Notes
    -----
    Equal, row for row, to ``scipy.stats.ttest_rel(b, a).pvalue`` with
    differences b - a (a row of zeros gives NaN and a row of equal non-zero differences 0, as scipy does):
    2 P(T_k > abs(t)) = I_{k / (k + t^2)}(k / 2, 1 / 2), k = n - 1, by ``scipy.special.betainc``.
    No ``derivations/`` module.

    Examples
    --------
    >>> batched_paired_t_pvalues([[0.3, 0.05, 0.1, 0.05], [0.1, -0.1, 0.2, -0.2]]).round(4)
    array([0.1265, 1.    ])
    """
    return paired_t_rows(_batched_differences(differences))


def paired_t_rows(array: np.ndarray) -> np.ndarray:
    """:func:`batched_paired_t_pvalues` on a finite float64 (rows, n) array, unchecked."""
    # Lazy: scipy.stats adds about 1.2 s to `import llm_power_verified` (measured), which loads this room.
    from scipy import special

    n = array.shape[1]
    mean = array.mean(axis=1)
    spread = np.sqrt(np.square(array - mean[:, None]).sum(axis=1) / (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = mean / (spread / math.sqrt(n))
    degrees = n - 1
    # 2 P(T_k > |t|) = I_{k / (k + t^2)}(k / 2, 1 / 2), the form scipy's own t distribution uses
    return special.betainc(degrees / 2, 0.5, degrees / (degrees + statistic**2))


@functools.lru_cache(maxsize=64)
def _signed_rank_null_cdf(n: int) -> np.ndarray:
    """P(W+ <= k), k = 0 .. n(n+1)/2, of the signed-rank statistic on n untied non-zero differences."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    top = 0
    for rank in range(1, n + 1):  # exact integer counts up to 2^50 are exact in float64
        counts[rank : top + rank + 1] += counts[: top + 1].copy()
        top += rank
    return np.cumsum(counts) / 2.0**n


@docfill("differences_rows", returns="row_pvalues")
def batched_wilcoxon_pvalues(differences: Any) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank p-value of every row, each row as ``scipy.stats.wilcoxon(row)``.

    Notes
    -----
    scipy's defaults per row: zero differences dropped ("wilcox"); rows of at
    most 50 items without zeros or ties use the exact null distribution, the
    others the normal approximation with the tie correction and no continuity
    correction.  Rows of at most 13 items with zeros or ties (scipy permutes
    those) are handed to scipy itself.  A row of zeros only gives NaN.  Rows hold at most 5,791 items.
    No ``derivations/`` module.

    Examples
    --------
    >>> batched_wilcoxon_pvalues([[0.3, 0.05, 0.1, 0.05, 0.05]]).round(4)
    array([0.0625])
    """
    return wilcoxon_rows(_batched_differences(differences))


def wilcoxon_rows(array: np.ndarray) -> np.ndarray:
    """:func:`batched_wilcoxon_pvalues` on a finite float64 (rows, n) array, unchecked.

    Ranks come from one sort of 64-bit keys: the bits of d rotated left by one,
    so that |d|'s bits order the keys and the sign bit sits in the lowest bit.
    The negative rank sum is then a 0/1 vector times the positions (a float32
    matrix-vector product, exact for sums below 2^24); ties are found exactly
    by comparing neighbouring keys without their lowest bit, and only rows
    with ties are re-ranked with midranks.
    """
    # Lazy: scipy.stats adds about 1.2 s to `import llm_power_verified` (measured), which loads this room.
    from scipy import special, stats

    rows, n = array.shape
    if n >= 5792:  # n (n + 1) / 2 must stay below 2^24 for the float32 product
        raise ArgumentError(f"batched_wilcoxon_pvalues supports rows of at most 5,791 items; got {n}")
    bits = (array + 0.0).view(np.uint64)  # + 0.0 turns -0.0 into +0.0
    keys = np.left_shift(bits, np.uint64(1))
    keys |= bits >> np.uint64(63)
    keys.sort(axis=1)
    negative = (keys & np.uint64(1)).astype(np.float32)
    zeros = np.count_nonzero(keys <= 1, axis=1)
    count = n - zeros
    negatives = negative.sum(axis=1, dtype=np.float64)
    # zeros sort first, so a non-zero difference at position j (0-based) has rank j + 1 - zeros
    negative_rank_sum = negative @ np.arange(1, n + 1, dtype=np.float32) - zeros * negatives
    rank_sum = count * (count + 1) / 2 - negative_rank_sum
    tie_term = np.zeros(rows)
    tied = np.any(((keys[:, 1:] ^ keys[:, :-1]) < 2) & (keys[:, 1:] > 1), axis=1)
    if tied.any():
        subset = np.where(array[tied] == 0, np.nan, array[tied])
        midranks = stats.rankdata(np.abs(subset), axis=1, nan_policy="omit")
        rank_sum[tied] = np.nansum(np.where(subset > 0, midranks, 0.0), axis=1)
        # sum of t^3 - t over runs of equal non-zero |d|: runs of the sorted keys without their sign bit
        values = (keys[tied] >> np.uint64(1)).ravel()
        starts = np.ones(values.size, dtype=bool)
        starts[1:] = values[1:] != values[:-1]
        starts[::n] = True  # every row starts a run
        first = np.flatnonzero(starts)
        sizes = np.diff(np.append(first, values.size)).astype(float)
        nonzero = values[first] != 0
        tie_term[tied] = np.bincount(
            first[nonzero] // n, weights=sizes[nonzero] ** 3 - sizes[nonzero], minlength=int(tied.sum())
        )
    pvalue = np.ones(rows)
    exact = (n <= 50) & (zeros == 0) & ~tied
    if exact.any():
        cdf = _signed_rank_null_cdf(n)
        statistic = np.rint(rank_sum[exact]).astype(np.int64)
        upper = 1.0 - np.where(statistic > 0, cdf[np.maximum(statistic - 1, 0)], 0.0)
        pvalue[exact] = np.clip(2.0 * np.minimum(cdf[statistic], upper), 0.0, 1.0)
    approximate = ~exact & (count > 0)
    if n <= 13:
        permuted = approximate.copy()
        approximate[:] = False
        for row in np.flatnonzero(permuted):
            pvalue[row] = float(stats.wilcoxon(array[row]).pvalue)
    if approximate.any():
        m = count[approximate].astype(float)
        spread = np.sqrt((m * (m + 1) * (2 * m + 1) - tie_term[approximate] / 2) / 24)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (rank_sum[approximate] - m * (m + 1) / 4) / spread
        pvalue[approximate] = 2.0 * special.ndtr(-np.abs(z))
    pvalue[count == 0] = np.nan
    return pvalue
