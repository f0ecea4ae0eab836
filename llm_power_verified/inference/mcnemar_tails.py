"""The binomial tails of McNemar's exact and mid-p tests: the discordant count b given b + c, Binomial(b + c, 1/2).

Both are lower tails of the half binomial (:func:`~llm_power_verified.inference.binomial.log_lower_tail_half`), in
log space, so that they stay accurate far below 1e-300; :mod:`~llm_power_verified.inference.mcnemar` builds its
p-values from them.
"""

from __future__ import annotations

import math

import numpy as np

from llm_power_verified.inference.binomial import log_lower_tail_half, log_pmf_half

__all__ = ["log_smaller_tail_half", "log_upper_tail_half"]

_LOG_2 = math.log(2.0)


def log_smaller_tail_half(
    b: np.ndarray, c: np.ndarray, with_pmf: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Log P(X <= min(b, c)) and log P(X = min(b, c)) for X ~ Binomial(b + c, 1/2), 0 where b + c = 0.

    Parameters
    ----------
    b, c : numpy.ndarray
        Discordant counts, float arrays of whole numbers >= 0 of one shape (checked by the caller).
    with_pmf : bool, default True
        Whether to return the log pmf too; zeros in its place otherwise.

    Returns
    -------
    smaller, total, log_tail, log_pmf : numpy.ndarray
        min(b, c), b + c, log P(X <= min(b, c)) and log P(X = min(b, c)) (both 0 where b + c = 0).

    Notes
    -----
    :func:`~llm_power_verified.inference.binomial.log_lower_tail_half` at k = min(b, c) <= n/2, n = b + c > 0;
    no ``derivations/`` module.

    Examples
    --------
    >>> smaller, total, log_tail, log_pmf = log_smaller_tail_half(np.array([1.0]), np.array([7.0]))
    >>> round(float(np.exp(log_tail[0])), 6), round(float(np.exp(log_pmf[0])), 6)
    (0.035156, 0.03125)
    """
    smaller = np.minimum(b, c)
    total = b + c
    log_tail = np.zeros(total.shape)
    log_pmf = np.zeros(total.shape)
    some = total > 0
    if some.all():
        log_tail, log_pmf = log_lower_tail_half(smaller, total, with_pmf)
    elif some.any():
        log_tail[some], pmf = log_lower_tail_half(smaller[some], total[some], with_pmf)
        if with_pmf:
            log_pmf[some] = pmf
    return smaller, total, log_tail, log_pmf


def log_upper_tail_half(favour: np.ndarray, against: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Log P(X >= favour) and log P(X = favour) for X ~ Binomial(favour + against, 1/2), 0 where both are 0.

    Parameters
    ----------
    favour, against : numpy.ndarray
        The discordant counts for and against a one-sided alternative, float arrays of whole numbers >= 0 of one
        shape (checked by the caller).

    Returns
    -------
    log_upper, log_pmf : numpy.ndarray
        log P(X >= favour) and log P(X = favour).

    Notes
    -----
    With n = favour + against and k = favour: P(X >= k) = P(X <= n - k) is summed directly while n - k <= n/2; past
    the middle it is 1 - P(X <= k - 1) with k - 1 < n/2, so both branches are lower tails of the half binomial
    (:func:`~llm_power_verified.inference.binomial.log_lower_tail_half`), accurate in the far tail.
    No ``derivations/`` module.

    Examples
    --------
    >>> log_upper, log_pmf = log_upper_tail_half(np.array([7.0]), np.array([1.0]))
    >>> round(float(np.exp(log_upper[0])), 6), round(float(np.exp(log_pmf[0])), 6)
    (0.035156, 0.03125)
    """
    total = favour + against
    log_upper = np.zeros(total.shape)
    log_pmf = np.zeros(total.shape)
    direct = (total > 0) & (favour >= against)
    if direct.any():
        log_upper[direct], log_pmf[direct] = log_lower_tail_half(against[direct], total[direct])
    other = (total > 0) & (favour < against) & (favour > 0)
    if other.any():
        log_below, _ = log_lower_tail_half(favour[other] - 1, total[other])
        log_upper[other] = np.log1p(-np.exp(log_below))
        log_pmf[other] = log_pmf_half(favour[other], total[other])
    none = (total > 0) & (favour == 0) & (against > 0)
    log_pmf[none] = -total[none] * _LOG_2
    return log_upper, log_pmf
