"""Paired bootstrap for the mean difference of two models' per-item scores.

The paper's Definition 2: resample items with replacement, recompute the mean difference D-bar on each resample, and
reject H0: E[D] = 0 at level alpha when 0 lies outside the percentile interval.  Besides the percentile interval
this module gives the BCa interval (Efron 1987) and the studentized (bootstrap-t) interval (Hall 1992, Ch. 3).

Binary scores never need the items themselves: a resample is a multinomial draw of the three cell counts that matter
(only A right, only B right, concordant), so the cost is O(B) whatever N is.  Graded scores resample item indices in
chunks.

The bootstrap p-value is the percentile test's (paper Definition 2) counted as a Monte Carlo p-value, never 0
(:func:`percentile_pvalue`); p <= alpha when 0 is outside the equal-tailed percentile interval at level 1 - alpha, up
to the resampling grid (the +1 of (k + 1) / (B + 1) moves the boundary by one resample).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from llm_power_verified._validation import as_array, check_count, check_scalar, describe_index
from llm_power_verified.contract import MAX_RESAMPLES
from llm_power_verified.errors import ArgumentError
from llm_power_verified.results import Result

__all__ = [
    "BootstrapResult",
    "ideal_bootstrap_below",
    "ideal_bootstrap_contains_zero",
    "paired_bootstrap",
    "paired_bootstrap_counts",
    "percentile_pvalue",
]

INTERVALS = ("percentile", "bca", "studentized")
_CHUNK_VALUES = 4_000_000


@dataclass(frozen=True, repr=False)
class BootstrapResult(Result):
    """Paired bootstrap interval and test for the mean difference D-bar = mean(X_A - X_B).

    Attributes
    ----------
    estimate : float
        Observed mean difference.
    ci_low, ci_high : float
        Two-sided interval at ``confidence`` by ``interval``.
    pvalue : float
        Percentile-test p-value (see the module notes).
    standard_error : float
        Standard deviation of the bootstrap replicates.
    interval, confidence, n_resamples, n_items
        What was computed.
    """

    estimate: float
    ci_low: float
    ci_high: float
    pvalue: float
    standard_error: float
    interval: str
    confidence: float
    n_resamples: int
    n_items: int


def _generator(rng: np.random.Generator | None, seed: int | None) -> np.random.Generator:
    if rng is not None and seed is not None:
        raise ArgumentError("give rng or seed, not both")
    if rng is not None:
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
        return rng
    return np.random.default_rng(seed)


def _check_options(n_resamples: int, confidence: float, interval: str) -> None:
    check_scalar("n_resamples", n_resamples, low=100, high=MAX_RESAMPLES, integer=True)
    check_scalar("confidence", confidence, low=0, high=1, low_open=True, high_open=True)
    if interval not in INTERVALS:
        raise ArgumentError(f"interval must be one of {INTERVALS}; got {interval!r}")


def percentile_pvalue(resampled: np.ndarray, axis: int | None = None) -> float | np.ndarray:
    """Two-sided percentile-bootstrap p-value of "no difference": min(1, 2 (k + 1) / (B + 1)).

    The paper's Definition 2 with the Monte Carlo count convention: k = min(#{D* <= 0}, #{D* >= 0}) of the B
    resamples.

    Parameters
    ----------
    resampled : array_like
        The B resampled estimates D* (a batch: one axis of resamples).
    axis : int, optional
        The resample axis of a batch (one p-value per other index); default: all values are one set.

    Returns
    -------
    float or numpy.ndarray
        min(1, 2 (k + 1) / (B + 1)), in [2 / (B + 1), 1].

    Notes
    -----
    Counting the observed sample among the resamples, (k + 1) / (B + 1), keeps the test valid at every B and makes
    the p-value positive: its smallest value is 2 / (B + 1), which reads "p is at most about 2 / B at this B", never
    0.

    References
    ----------
    Davison, A. C. and Hinkley, D. V. (1997). Bootstrap Methods and their Application, Eq. 4.11.  North, B. V.,
    Curtis, D. and Sham, P. C. (2002). A note on the calculation of empirical P values from Monte Carlo procedures.
    Am. J. Hum. Genet. 71, 439-441.

    Examples
    --------
    >>> percentile_pvalue(np.array([-0.1, 0.2, 0.3, 0.4]))   # k = 1 of B = 4: 2 (1 + 1) / 5
    0.8
    >>> percentile_pvalue(np.full(999, 0.5))                   # k = 0 of B = 999: 2 / 1000
    0.002
    """
    resampled = np.asarray(resampled)
    size = resampled.size if axis is None else resampled.shape[axis]
    below = np.count_nonzero(resampled <= 0, axis=axis)
    above = np.count_nonzero(resampled >= 0, axis=axis)
    result = np.minimum(1.0, 2 * (np.minimum(below, above) + 1) / (size + 1))
    return float(result) if np.ndim(result) == 0 else result


def _bca_levels(replicates, estimate, jackknife_values, jackknife_weights, tail_probabilities):
    """Adjusted percentile levels of the BCa interval."""
    less = np.count_nonzero(replicates < estimate) + 0.5 * np.count_nonzero(replicates == estimate)
    proportion = np.clip(less / replicates.size, 1 / replicates.size, 1 - 1 / replicates.size)
    bias = ndtri(proportion)
    mean = np.sum(jackknife_weights * jackknife_values) / np.sum(jackknife_weights)
    deviation = mean - jackknife_values
    denominator = 6 * np.sum(jackknife_weights * deviation**2) ** 1.5
    acceleration = np.sum(jackknife_weights * deviation**3) / denominator if denominator > 0 else 0.0
    z = ndtri(tail_probabilities)
    return ndtr(bias + (bias + z) / (1 - acceleration * (bias + z)))


def _interval(interval, replicates, estimate, confidence, standard_errors=None, observed_se=None, jackknife=None):
    tails = np.array([(1 - confidence) / 2, (1 + confidence) / 2])
    if interval == "percentile":
        low, high = np.quantile(replicates, tails)
    elif interval == "bca":
        values, weights = jackknife
        levels = _bca_levels(replicates, estimate, values, weights, tails)
        low, high = np.quantile(replicates, levels)
    else:
        if observed_se == 0:
            # Every paired difference is the same value: each resample equals the estimate, and the
            # bootstrap-t interval degenerates to that point (documented in paired_bootstrap).
            return float(estimate), float(estimate)
        usable = standard_errors > 0
        if not usable.any():
            raise ArgumentError(
                "no bootstrap resample has a positive standard error, so the studentized interval is "
                "undefined; use interval='percentile' (--bootstrap-interval percentile)"
            )
        t = (replicates[usable] - estimate) / standard_errors[usable]
        t_low, t_high = np.quantile(t, tails)
        low, high = estimate - t_high * observed_se, estimate - t_low * observed_se
    return float(low), float(high)


def _summarise(
    interval, replicates, estimate, confidence, n_items, standard_errors, observed_se, jackknife
) -> BootstrapResult:
    """Interval, percentile-test p-value and standard error of a set of bootstrap replicates."""
    low, high = _interval(interval, replicates, estimate, confidence, standard_errors, observed_se, jackknife)
    return BootstrapResult(
        estimate=float(estimate),
        ci_low=low,
        ci_high=high,
        pvalue=percentile_pvalue(replicates),
        standard_error=float(np.std(replicates, ddof=1)),
        interval=interval,
        confidence=confidence,
        n_resamples=int(replicates.size),
        n_items=n_items,
    )


def paired_bootstrap_counts(
    b: int,
    c: int,
    n: int,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    interval: str = "percentile",
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> BootstrapResult:
    """Paired bootstrap for binary scores from the discordant counts alone.

    Parameters
    ----------
    b, c, n : int
        Items only A solves, only B solves, and all items (b + c <= n, n >= 1).
    n_resamples : int, default 10000
        Number of bootstrap resamples B (>= 100).
    confidence : float, default 0.95
        Confidence level of the two-sided interval, in (0, 1).
    interval : {"percentile", "bca", "studentized"}, default "percentile"
        The bootstrap interval.
    rng, seed : numpy.random.Generator or int, optional
        The source of every random draw, or the seed of a ``numpy.random.Generator`` created for it (not both).

    Returns
    -------
    BootstrapResult
        The estimate (b - c)/n, the interval, the percentile-test p-value and the bootstrap standard error.

    Notes
    -----
    A resample of n items is a multinomial draw of (b*, c*, n - b* - c*) with probabilities (b, c, n - b - c)/n,
    D* = (b* - c*)/n.  The BCa acceleration uses the exact jackknife, which for 0/1 data has three distinct values.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Definition 2; Efron and Tibshirani (1993),
    Ch. 12-14.

    Examples
    --------
    >>> result = paired_bootstrap_counts(98, 94, 1172, seed=1)
    >>> round(result.ci_low, 6), round(result.ci_high, 6), round(result.pvalue, 6)
    (-0.020478, 0.026451, 0.80212)
    """
    _check_options(n_resamples, confidence, interval)
    b_value, c_value, n_value = (
        float(check_count(name, value, minimum=minimum))
        for name, value, minimum in (("b", b, 0), ("c", c, 0), ("n", n, 1))
    )
    if b_value + c_value > n_value:
        raise ArgumentError(f"b + c must not exceed n; got b = {b_value:g}, c = {c_value:g}, n = {n_value:g}")
    generator = _generator(rng, seed)
    n_items = int(n_value)
    probabilities = np.array([b_value, c_value, n_value - b_value - c_value]) / n_value
    draws = generator.multinomial(n_items, probabilities, size=int(n_resamples))
    replicates = (draws[:, 0] - draws[:, 1]) / n_value
    estimate = (b_value - c_value) / n_value
    standard_errors = observed_se = jackknife = None
    if interval == "studentized":
        variances = (draws[:, 0] + draws[:, 1]) / n_value - replicates**2
        standard_errors = np.sqrt(np.maximum(variances, 0.0) / n_value)
        observed_se = np.sqrt(max((b_value + c_value) / n_value - estimate**2, 0.0) / n_value)
    if interval == "bca":
        denominator = n_value - 1
        values = np.array([(b_value - 1 - c_value), (b_value - c_value + 1), (b_value - c_value)]) / denominator
        jackknife = (values, np.array([b_value, c_value, n_value - b_value - c_value]))
    return _summarise(interval, replicates, estimate, confidence, n_items, standard_errors, observed_se, jackknife)


def _scores(name: str, values: Any) -> np.ndarray:
    array = as_array(name, values)
    if array.ndim != 1:
        raise ArgumentError(f"{name} must be one-dimensional; got shape {array.shape}")
    if array.size < 2:
        raise ArgumentError(f"{name} needs at least 2 items; got {array.size}")
    bad = ~np.isfinite(array)
    if bad.any():
        raise ArgumentError(f"{name} must be finite; got {array[bad][0]!r}{describe_index(bad)}")
    return array


def paired_bootstrap(
    scores_a: Any,
    scores_b: Any,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    interval: str = "percentile",
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> BootstrapResult:
    """Paired bootstrap of the mean difference from two aligned per-item score vectors.

    0/1 scores are reduced to their discordant counts and handled by :func:`paired_bootstrap_counts` (identical in
    distribution, O(B) cost); graded scores resample item indices, in chunks of about 4e6 values.

    Parameters
    ----------
    scores_a, scores_b : array_like
        The two models' per-item scores, aligned item by item (one-dimensional, the same length >= 2, finite).
    n_resamples : int, default 10000
        Number of bootstrap resamples B (>= 100).
    confidence : float, default 0.95
        Confidence level of the two-sided interval, in (0, 1).
    interval : {"percentile", "bca", "studentized"}, default "percentile"
        The bootstrap interval (studentized: a point when every paired difference is the same value).
    rng, seed : numpy.random.Generator or int, optional
        The source of every random draw, or the seed of a ``numpy.random.Generator`` created for it (not both).

    Returns
    -------
    BootstrapResult
        The estimate mean(x_A - x_B), the interval, the percentile-test p-value and the bootstrap standard error.

    Notes
    -----
    Items are resampled with replacement, the same items for both models: D-bar* = mean(x_A[i*] - x_B[i*]).
    Percentile interval (q_{(1-c)/2}, q_{(1+c)/2}) of the D-bar*; BCa adjusts the levels by the bias z0 and the
    jackknife acceleration; the studentized interval uses (D-bar* - D-bar) / se*.  The p-value is the percentile
    test's min(1, 2 (k + 1) / (B + 1)), k = min(#{D-bar* <= 0}, #{D-bar* >= 0}) of the B resamples
    (:func:`percentile_pvalue`).

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Definition 2; Efron, B. and Tibshirani, R.
    J. (1993). An Introduction to the Bootstrap. Chapman & Hall, Ch. 12-14; Hall, P. (1992). The Bootstrap and
    Edgeworth Expansion. Springer, Ch. 3.

    Examples
    --------
    >>> result = paired_bootstrap([0.9, 0.7, 0.8, 0.6, 0.75], [0.6, 0.65, 0.7, 0.55, 0.7], n_resamples=2000, seed=3)
    >>> round(result.estimate, 6), round(result.ci_low, 6), round(result.ci_high, 6)
    (0.11, 0.05, 0.21)
    """
    _check_options(n_resamples, confidence, interval)
    a = _scores("scores_a", scores_a)
    b = _scores("scores_b", scores_b)
    if a.shape != b.shape:
        raise ArgumentError(f"scores_a and scores_b must have the same length; got {a.size} and {b.size}")
    binary = np.all((a == 0) | (a == 1)) and np.all((b == 0) | (b == 1))
    if binary:
        only_a = int(np.count_nonzero((a == 1) & (b == 0)))
        only_b = int(np.count_nonzero((a == 0) & (b == 1)))
        return paired_bootstrap_counts(only_a, only_b, a.size, n_resamples, confidence, interval, rng, seed)
    generator = _generator(rng, seed)
    differences = a - b
    n_items = differences.size
    estimate = float(differences.mean())
    chunk = max(1, _CHUNK_VALUES // n_items)
    replicates = np.empty(int(n_resamples))
    second_moments = np.empty(int(n_resamples))
    for start in range(0, int(n_resamples), chunk):
        stop = min(start + chunk, int(n_resamples))
        indices = generator.integers(0, n_items, size=(stop - start, n_items))
        sample = differences[indices]
        replicates[start:stop] = sample.mean(axis=1)
        second_moments[start:stop] = (sample**2).mean(axis=1)
    standard_errors = observed_se = jackknife = None
    if interval == "studentized":
        standard_errors = np.sqrt(np.maximum(second_moments - replicates**2, 0.0) * n_items / (n_items - 1) / n_items)
        observed_se = float(differences.std(ddof=1) / np.sqrt(n_items))
    if interval == "bca":
        total = differences.sum()
        jackknife = ((total - differences) / (n_items - 1), np.ones(n_items))
    return _summarise(interval, replicates, estimate, confidence, n_items, standard_errors, observed_se, jackknife)


def ideal_bootstrap_below(b: int, c: int, n: int) -> tuple[float, float]:
    """P(D* < 0) and P(D* <= 0) under the item bootstrap of binary scores with B = infinity, exactly.

    A resample has m* ~ Binomial(n, (b + c)/n) discordant items and b* | m* ~ Binomial(m*, b/(b + c)), so
    D* = (2 b* - m*)/n; both tails are sums over m* within 12 standard deviations of its mean (the rest is below 1e-30).

    Parameters
    ----------
    b, c, n : int
        Items only A solves, only B solves, and all items (b + c >= 1, b + c <= n; not checked).

    Returns
    -------
    tuple of float
        (P(D* < 0), P(D* <= 0)).

    Examples
    --------
    >>> [round(p, 6) for p in ideal_bootstrap_below(98, 94, 1172)]
    [0.372654, 0.400282]
    """
    # Lazy: scipy.stats costs 0.7 s at import and nothing else in this module needs it (the audit's start-up, issue 15)
    from scipy.stats import binom

    psi, theta = (b + c) / n, b / (b + c)
    spread = 12 * math.sqrt(n * psi * (1 - psi)) + 10
    totals = np.arange(max(0, int(n * psi - spread)), min(n, int(n * psi + spread)) + 1)
    weights = binom.pmf(totals, n, psi)
    below = float(np.sum(weights * binom.cdf(np.ceil(totals / 2) - 1, totals, theta)))  # 2 b* - m* < 0
    at_or_below = float(np.sum(weights * binom.cdf(totals // 2, totals, theta)))  # 2 b* - m* <= 0
    return below, at_or_below


def ideal_bootstrap_contains_zero(b: int, c: int, n: int, confidence: float = 0.95) -> tuple[bool, float]:
    """Whether the percentile interval of the ideal (B = infinity) bootstrap contains 0, and P(D* <= 0).

    Parameters
    ----------
    b, c, n : int
        Items only A solves, only B solves, and all items (b + c >= 1, b + c <= n; not checked).
    confidence : float, default 0.95
        Confidence level of the equal-tailed percentile interval, in (0, 1).

    Returns
    -------
    tuple of (bool, float)
        Whether 0 lies in the interval (P(D* <= 0) >= t and P(D* < 0) <= 1 - t, t = (1 - confidence)/2), P(D* <= 0).

    Examples
    --------
    >>> contains, below = ideal_bootstrap_contains_zero(98, 94, 1172)
    >>> contains, round(below, 6)
    (True, 0.400282)
    """
    below, at_or_below = ideal_bootstrap_below(b, c, n)
    tail = (1 - confidence) / 2
    return at_or_below >= tail and below <= 1 - tail, at_or_below
