"""Anytime-valid monitoring: mixture e-processes, confidence sequences, e-BH.

A leaderboard that updates continuously can be monitored and stopped at any
time with the Type-I error still controlled, because an e-process e_n
satisfies P(sup_n e_n >= 1/alpha) <= alpha under H0 (Ville's inequality).

E-process on the discordant signs (paper Appendix C, Eq. 24).  After b + c
discordant pairs, b won by model A,

    e = sum_theta w(theta) theta^b (1 - theta)^c / (1/2)^(b + c).

Mixtures (``mixture``):

* ``"grid"`` (default everywhere, the paper's): theta in {0.01, ..., 0.49,
  0.51, ..., 0.99}, equal weights;
* ``"beta"``: a Beta(a, b') prior, e = 2^n B(a + b, b' + c) / B(a, b')
  (derived in ``derivations/e_process.py``), evaluated here in a Stirling form
  whose terms never cancel, so it stays exact for n = 10^6 and beyond;
* ``"two-point"``: theta in {0.4, 0.6}, equal weights.

All values are logs: e-values of 1e300 and far beyond neither overflow nor
lose digits.  Reject when e >= 1/alpha; the anytime-valid p-value is
min(1, 1 / sup_n e_n).

Anytime-valid required N (this module's definition).  The fixed-n N* solves
N = ((z_{1-alpha/2} + z_{1-beta}) sigma_D / |delta|)^2.  Replacing
z_{1-alpha/2} by the time-uniform threshold u(M) (the smallest |z| =
|b - c| / sqrt(M) at which e reaches 1/alpha with M discordant pairs),
evaluated at the expected discordant count M = psi N, gives the fixed point

    N_av = ((u(psi N_av) + z_{1-beta}) sigma_D / |delta|)^2,

the number of items at which the monitored test reaches the target power
under the normal approximation.  The inflation is N_av / N*.  A second,
simulated definition (:func:`required_n_anytime_simulated`) is the
(1 - beta) quantile of the e-process's first crossing time.

References
----------
Ville, J. (1939). Etude critique de la notion de collectif.
Howard, S. R., Ramdas, A., McAuliffe, J., Sekhon, J. (2021). Time-uniform,
nonparametric, nonasymptotic confidence sequences. Ann. Statist. 49(2), 1055-1080.
Wang, R., Ramdas, A. (2022). False discovery rate control with e-values.
JRSS-B 84(3), 822-852.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import gammaln, logsumexp

from llm_power_verified.inference.binomial import deviance, stirling_error
from llm_power_verified._validation import check_count, finish

__all__ = ["MIXTURES", "anytime_pvalue", "e_bh", "e_process", "log_e_value"]

MIXTURES = ("grid", "beta", "two-point")
GRID = np.concatenate([np.arange(1, 50), np.arange(51, 100)]) / 100.0
TWO_POINT = np.array([0.4, 0.6])
_LOG_2 = math.log(2.0)
_LOG_2PI = math.log(2 * math.pi)


def _check_mixture(mixture: str) -> None:
    if mixture not in MIXTURES:
        raise ValueError(f"mixture must be one of {MIXTURES}; got {mixture!r}")


def _log_e_discrete(b: np.ndarray, c: np.ndarray, thetas: np.ndarray) -> np.ndarray:
    log_win = np.log1p(2 * thetas - 1)  # log(2 theta)
    log_loss = np.log1p(1 - 2 * thetas)  # log(2 (1 - theta))
    terms = b[..., None] * log_win + c[..., None] * log_loss
    return logsumexp(terms, axis=-1) - math.log(thetas.size)


def _log_beta_plus(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """log B(x, y) + (x + y) log 2, free of cancellation for large x, y (Stirling and deviance form).

    With s = x + y, m = s / 2 and bd0(x, m) = x log(x/m) + m - x >= 0:
    log B(x, y) + s log 2 = log(2 pi)/2 + log(s / (x y))/2 + bd0(x, m) + bd0(y, m)
    + stirl(x) + stirl(y) - stirl(s), from Gamma(z) = sqrt(2 pi) z^(z - 1/2) e^(-z + stirl(z)).
    """
    s = x + y
    half = s / 2
    return (0.5 * _LOG_2PI + 0.5 * (np.log(s) - np.log(x) - np.log(y)) + deviance(x, half) + deviance(y, half)
            + stirling_error(x) + stirling_error(y) - stirling_error(s))


def _log_e_beta(b: np.ndarray, c: np.ndarray, a: float, a2: float) -> np.ndarray:
    shape = np.broadcast(b, c).shape
    x = (np.broadcast_to(b, shape) + a).astype(np.float64).ravel()
    y = (np.broadcast_to(c, shape) + a2).astype(np.float64).ravel()
    prior = float(gammaln(a) + gammaln(a2) - gammaln(a + a2))
    value = _log_beta_plus(x, y) - (a + a2) * _LOG_2 - prior
    return value.reshape(shape)


def log_e_value(b: Any, c: Any, mixture: str = "grid", prior: tuple[float, float] = (1.0, 1.0)):
    """log e-value after b discordant pairs won by A and c won by B.

    Examples
    --------
    >>> round(float(log_e_value(0, 0)), 12)
    0.0
    >>> round(float(log_e_value(30, 10)), 4)
    3.4742
    """
    _check_mixture(mixture)
    b = check_count("b", b).astype(np.float64)
    c = check_count("c", c).astype(np.float64)
    b, c = np.broadcast_arrays(b, c)
    if mixture == "beta":
        a, a2 = (float(v) for v in prior)
        if not (a > 0 and a2 > 0):
            raise ValueError(f"prior must be two positive Beta parameters; got {prior!r}")
        return finish(_log_e_beta(b, c, a, a2))
    thetas = GRID if mixture == "grid" else TWO_POINT
    out = np.empty(b.shape)
    flat_b, flat_c, flat_out = b.ravel(), c.ravel(), out.reshape(-1)
    for start in range(0, flat_b.size, 100_000):
        sl = slice(start, start + 100_000)
        flat_out[sl] = _log_e_discrete(flat_b[sl], flat_c[sl], thetas)
    return finish(out)


def e_process(scores_a: Any, scores_b: Any, mixture: str = "grid", prior=(1.0, 1.0)) -> dict:
    """The e-process over two aligned 0/1 score vectors in arrival order.

    Returns arrays indexed by item (1-based position t = index + 1): cumulative
    b and c, log e_t, the running mean difference, and the first item at which
    e reaches each of 1/0.05 and 1/0.01 (None if never).
    """
    from llm_power_verified.inference.mcnemar import as_binary_vector

    a = as_binary_vector("scores_a", scores_a)
    b_scores = as_binary_vector("scores_b", scores_b)
    if a.size != b_scores.size:
        raise ValueError(f"scores_a and scores_b must have the same length; got {a.size} and {b_scores.size}")
    wins = np.cumsum((a == 1) & (b_scores == 0))
    losses = np.cumsum((a == 0) & (b_scores == 1))
    log_e = np.asarray(log_e_value(wins, losses, mixture, prior), dtype=np.float64)
    t = np.arange(1, a.size + 1)
    return {"b": wins, "c": losses, "log_e": log_e, "mean_difference": (wins - losses) / t,
            "running_max_log_e": np.maximum.accumulate(log_e)}


def anytime_pvalue(log_e: Any) -> float:
    """min(1, 1 / sup e) from a trajectory of log e-values (or a single value)."""
    values = np.atleast_1d(np.asarray(log_e, dtype=np.float64))
    return float(min(1.0, math.exp(-max(float(np.max(values)), 0.0))))


def e_bh(log_e_values: Any, alpha: float = 0.05) -> np.ndarray:
    """e-BH (Wang and Ramdas 2022): reject the k* largest e-values, k* = max{k : e_(k) >= m / (alpha k)}.

    Takes log e-values; returns a boolean array of rejections.

    Examples
    --------
    >>> e_bh(np.log([100.0, 30.0, 2.0, 0.5]), alpha=0.1).tolist()
    [True, True, False, False]
    """
    values = np.asarray(log_e_values, dtype=np.float64)
    m = values.size
    order = np.argsort(-values, kind="stable")
    k = np.arange(1, m + 1)
    passes = values[order] >= np.log(m / (alpha * k))
    rejected = np.zeros(m, dtype=bool)
    if passes.any():
        largest = int(np.max(np.flatnonzero(passes))) + 1
        rejected[order[:largest]] = True
    return rejected


