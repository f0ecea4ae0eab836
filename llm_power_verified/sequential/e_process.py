"""Anytime-valid monitoring: mixture e-processes on the discordant signs, the anytime-valid p-value, e-BH.

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

The anytime-valid required N built on this e-process is defined and found in
:mod:`llm_power_verified.sequential.crossing` (simulated: :mod:`llm_power_verified.sequential.anytime`).

References
----------
Ville, J. (1939). Etude critique de la notion de collectif.  Wang, R. and Ramdas, A. (2022).
False discovery rate control with e-values. J. R. Stat. Soc. B 84(3), 822-852.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import gammaln

from llm_power_verified._docstrings import docfill
from llm_power_verified._validation import check_count, finish
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.binomial import deviance, stirling_error
from llm_power_verified.inference.cells import as_binary_vector
from llm_power_verified.results import Result

__all__ = [
    "MIXTURES",
    "EProcessPath",
    "anytime_pvalue",
    "e_bh",
    "e_process",
    "first_crossing",
    "log_e_real",
    "log_e_value",
]

MIXTURES = ("grid", "beta", "two-point")
GRID = np.concatenate([np.arange(1, 50), np.arange(51, 100)]) / 100.0
TWO_POINT = np.array([0.4, 0.6])
_LOG_2 = math.log(2.0)
_LOG_2PI = math.log(2 * math.pi)


def _check_mixture(mixture: str) -> None:
    if mixture not in MIXTURES:
        raise ArgumentError(f"mixture must be one of {MIXTURES}; got {mixture!r}")


def _log_e_discrete(b: np.ndarray, c: np.ndarray, thetas: np.ndarray) -> np.ndarray:
    log_win = np.log1p(2 * thetas - 1)  # log(2 theta)
    log_loss = np.log1p(1 - 2 * thetas)  # log(2 (1 - theta))
    return _log_mean_exp(b[..., None] * log_win + c[..., None] * log_loss, thetas.size)


def _log_mean_exp(terms: np.ndarray, size: int) -> np.ndarray:
    """Log of (sum of exp(terms) over the last axis) / size, max-shifted (logsumexp's checks took 1.7 s of 2.0 s)."""
    largest = terms.max(axis=-1)
    return largest + np.log(np.exp(terms - largest[..., None]).sum(axis=-1)) - math.log(size)


_GRID_LOG_WIN = np.log1p(2 * GRID - 1)
_GRID_LOG_LOSS = np.log1p(1 - 2 * GRID)
#: Terms this far below the largest are left out of a windowed sum: 98 of them change e by < 98 e^-50 = 2e-20 relative.
_NEGLIGIBLE = 50.0
_HALF_WIDTHS = (4, 8, 16)


def _log_e_grid(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The grid mixture's log e, summing only the thetas near b / (b + c) where that is exact to rounding.

    Why hand-written: summing all 98 thetas for each of an all-pairs audit's 12.5 M e-values (5,000
    models) was 60% of its time.  The log term b log(2 theta) + c log(2 (1 - theta)) is concave in theta,
    maximal at b / (b + c) with curvature (b + c)^3 / (b c) >= 4 (b + c), so it falls by 50 within roughly
    5 / sqrt(b + c); a window of 2h + 1 grid points is tried once h steps of 0.01 cover that.  The sizing is
    a guess; the check makes the sum exact: when a window end that is not the grid's end lies less than 50
    below the window's largest term, the element is summed over the whole grid.  The terms left out are
    below e^-50 times the largest: the sum changes by less than 2e-20 relative, far below one rounding.
    """
    out = np.empty(b.shape)
    total = b + c
    # Grid steps within which the term can fall by 50 (plus 2 for the grid's gap at 1/2 and rounding).
    needed = np.ceil(5.0 / np.sqrt(np.maximum(total, 1.0)) / 0.01) + 2
    pending = np.ones(b.shape, dtype=bool)
    centre = np.searchsorted(GRID, b / np.maximum(total, 1.0))
    for half in _HALF_WIDTHS:
        chosen = np.flatnonzero(pending & (needed <= half))
        if chosen.size == 0:
            continue
        start = np.clip(centre[chosen] - half, 0, GRID.size - 2 * half - 1)
        index = start[:, None] + np.arange(2 * half + 1)
        terms = b[chosen, None] * _GRID_LOG_WIN[index] + c[chosen, None] * _GRID_LOG_LOSS[index]
        largest = terms.max(axis=1)
        low_end_ok = (start == 0) | (terms[:, 0] <= largest - _NEGLIGIBLE)
        high_end_ok = (start + 2 * half == GRID.size - 1) | (terms[:, -1] <= largest - _NEGLIGIBLE)
        good = low_end_ok & high_end_ok
        out[chosen[good]] = _log_mean_exp(terms[good], GRID.size)
        pending[chosen[good]] = False
    rest = np.flatnonzero(pending)
    if rest.size:
        out[rest] = _log_e_discrete(b[rest], c[rest], GRID)
    return out


def _log_beta_plus(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Log B(x, y) + (x + y) log 2, free of cancellation for large x, y (Stirling and deviance form).

    With s = x + y, m = s / 2 and bd0(x, m) = x log(x/m) + m - x >= 0:
    log B(x, y) + s log 2 = log(2 pi)/2 + log(s / (x y))/2 + bd0(x, m) + bd0(y, m)
    + stirl(x) + stirl(y) - stirl(s), from Gamma(z) = sqrt(2 pi) z^(z - 1/2) e^(-z + stirl(z)).
    """
    s = x + y
    half = s / 2
    return (
        0.5 * _LOG_2PI
        + 0.5 * (np.log(s) - np.log(x) - np.log(y))
        + deviance(x, half)
        + deviance(y, half)
        + stirling_error(x)
        + stirling_error(y)
        - stirling_error(s)
    )


def _log_e_beta(b: np.ndarray, c: np.ndarray, a: float, a2: float) -> np.ndarray:
    shape = np.broadcast(b, c).shape
    x = (np.broadcast_to(b, shape) + a).astype(np.float64).ravel()
    y = (np.broadcast_to(c, shape) + a2).astype(np.float64).ravel()
    prior = float(gammaln(a) + gammaln(a2) - gammaln(a + a2))
    value = _log_beta_plus(x, y) - (a + a2) * _LOG_2 - prior
    return value.reshape(shape)


def log_e_real(b: np.ndarray, c: np.ndarray, mixture: str = "grid") -> np.ndarray:
    """Log e of a discrete mixture at real-valued counts b, c >= 0: the anytime-valid N's real-valued threshold.

    Parameters
    ----------
    b, c : numpy.ndarray
        Real-valued discordant counts >= 0 (float arrays of one shape; not checked: the sum over theta is
        defined for any b and c).
    mixture : {"grid", "two-point"}, default "grid"
        The discrete mixture over theta (the Beta mixture is refused).

    Returns
    -------
    numpy.ndarray
        log e(b, c), the same formula as :func:`log_e_value` at real b and c.

    Examples
    --------
    >>> round(float(log_e_real(np.array([30.5]), np.array([10.0]))[0]), 6)
    3.667943
    """
    if mixture == "grid":
        return _log_e_grid(b, c)
    if mixture == "two-point":
        return _log_e_discrete(b, c, TWO_POINT)
    raise ArgumentError(f"log_e_real takes the discrete mixtures 'grid' and 'two-point'; got {mixture!r}")


@docfill("counts", "mixture", "prior")
def log_e_value(b: Any, c: Any, mixture: str = "grid", prior: tuple[float, float] = (1.0, 1.0)) -> float | np.ndarray:
    """Log e-value after b discordant pairs won by A and c won by B.

    Parameters
    ----------
    %(counts)s
    %(mixture)s
    %(prior)s

    Returns
    -------
    float or numpy.ndarray
        log e, the natural log of the e-value: finite however large e is.

    Notes
    -----
    e = sum_theta w(theta) theta^b (1 - theta)^c / (1/2)^(b + c) for the discrete mixtures; for the Beta(a, a')
    prior e = 2^(b + c) B(a + b, a' + c) / B(a, a'), derived in ``derivations/e_process.py``.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Appendix C,
    Equation 24; Waudby-Smith, I. and Ramdas, A. (2024). Estimating means of bounded
    random variables by betting. J. R. Stat. Soc. B 86(1), 1-27.

    Examples
    --------
    >>> abs(round(float(log_e_value(0, 0)), 12))  # 0.0 or -0.0, by numpy version
    0.0
    >>> round(float(log_e_value(30, 10)), 4)
    3.4742
    >>> round(float(log_e_value(30, 10, mixture="beta")), 6)
    3.454324
    """
    _check_mixture(mixture)
    b = check_count("b", b).astype(np.float64)
    c = check_count("c", c).astype(np.float64)
    b, c = np.broadcast_arrays(b, c)
    if mixture == "beta":
        a, a2 = (float(v) for v in prior)
        if not (a > 0 and a2 > 0):
            raise ArgumentError(f"prior must be two positive Beta parameters; got {prior!r}")
        return finish(_log_e_beta(b, c, a, a2))
    out = np.empty(b.shape)
    flat_b, flat_c, flat_out = b.ravel(), c.ravel(), out.reshape(-1)
    for start in range(0, flat_b.size, 20_000):
        sl = slice(start, start + 20_000)
        if mixture == "grid":
            flat_out[sl] = _log_e_grid(flat_b[sl], flat_c[sl])
        else:
            flat_out[sl] = _log_e_discrete(flat_b[sl], flat_c[sl], TWO_POINT)
    return finish(out)


@dataclass(frozen=True, repr=False)
class EProcessPath(Result):
    """The e-process over items in arrival order; every array is indexed by item (t = index + 1).

    Attributes
    ----------
    b, c
        Cumulative discordant counts (int64): items won by A, items won by B.
    log_e
        log e_t at the counts (b_t, c_t).
    mean_difference
        (b_t - c_t) / t, the running accuracy gap.
    running_max_log_e
        max_{s <= t} log e_s; the anytime-valid p-value after t items is min(1, exp(-that)).
    mixture
        The mixture over theta behind ``log_e``.
    """

    b: np.ndarray
    c: np.ndarray
    log_e: np.ndarray
    mean_difference: np.ndarray
    running_max_log_e: np.ndarray
    mixture: str

    def first_crossing(self, alpha: float) -> int | None:
        """The first item t at which e_t >= 1/alpha (Ville's rejection time), None if it never crosses."""
        return first_crossing(self.log_e, alpha)


def first_crossing(log_e: np.ndarray, alpha: float) -> int | None:
    """The first item t (1-based) of a log e-process path with e_t >= 1/alpha, None if it never crosses.

    Parameters
    ----------
    log_e : array_like
        log e_t of one path, item by item in arrival order.
    alpha : float
        Significance level, in (0, 1).

    Returns
    -------
    int or None
        The smallest t with log e_t >= log(1/alpha) (Ville's rejection time), None if there is none.

    Examples
    --------
    >>> first_crossing(np.log([1.0, 5.0, 25.0, 10.0]), 0.05)
    3
    """
    crossed = np.flatnonzero(np.asarray(log_e) >= math.log(1 / alpha))
    return int(crossed[0]) + 1 if crossed.size else None


@docfill("mixture", "prior", derivation="e_process")
def e_process(
    scores_a: Any, scores_b: Any, mixture: str = "grid", prior: tuple[float, float] = (1.0, 1.0)
) -> EProcessPath:
    """The e-process over two aligned 0/1 score vectors in arrival order.

    Parameters
    ----------
    scores_a, scores_b : array_like
        The two models' 0/1 scores, aligned item by item, in arrival order (one-dimensional, the same length).
    %(mixture)s
    %(prior)s

    Returns
    -------
    EProcessPath
        The cumulative discordant counts, log e_t, the running gap and the running maximum of log e_t.

    Notes
    -----
    After t items with b_t won by A and c_t by B, log e_t = log sum_theta w(theta) theta^b_t (1 - theta)^c_t
    + (b_t + c_t) log 2.  Under H0 (equal accuracies) e_t is a nonnegative martingale, so
    P(sup_t e_t >= 1/alpha) <= alpha (Ville 1939): the test may be stopped at any item.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Appendix C,
    Equation 24; Ville, J. (1939). Etude critique de la notion de collectif.

    Examples
    --------
    >>> path = e_process([1, 1, 0, 1, 1, 1] * 20, [0, 1, 0, 0, 1, 0] * 20)
    >>> int(path.b[-1]), int(path.c[-1]), path.first_crossing(0.05)
    (60, 0, 16)
    """
    a = as_binary_vector("scores_a", scores_a)
    b_scores = as_binary_vector("scores_b", scores_b)
    if a.size != b_scores.size:
        raise ArgumentError(f"scores_a and scores_b must have the same length; got {a.size} and {b_scores.size}")
    wins = np.cumsum((a == 1) & (b_scores == 0))
    losses = np.cumsum((a == 0) & (b_scores == 1))
    log_e = np.asarray(log_e_value(wins, losses, mixture, prior), dtype=np.float64)
    t = np.arange(1, a.size + 1)
    return EProcessPath(
        b=wins,
        c=losses,
        log_e=log_e,
        mean_difference=(wins - losses) / t,
        running_max_log_e=np.maximum.accumulate(log_e),
        mixture=mixture,
    )


def anytime_pvalue(log_e: Any) -> float:
    """min(1, 1 / sup e) from a trajectory of log e-values (or a single value).

    Parameters
    ----------
    log_e : array_like
        log e_t of one path (or one log e-value).

    Returns
    -------
    float
        The anytime-valid p-value after the last item, in (0, 1].

    Notes
    -----
    p_t = min(1, 1 / max_{s <= t} e_s).  By Ville's inequality P(exists t: p_t <= alpha)
    <= alpha under H0, so the p-value may be read at any item, including one chosen
    after looking.

    References
    ----------
    Ramdas, A., Grunwald, P., Vovk, V. and Shafer, G. (2023). Game-theoretic statistics
    and safe anytime-valid inference. Statist. Sci. 38(4), 576-601.

    Examples
    --------
    >>> round(anytime_pvalue([0.0, 1.5, 3.2, 2.0]), 6)
    0.040762
    """
    values = np.atleast_1d(np.asarray(log_e, dtype=np.float64))
    return float(min(1.0, math.exp(-max(float(np.max(values)), 0.0))))


def e_bh(log_e_values: Any, alpha: float = 0.05) -> np.ndarray:
    """e-BH (Wang and Ramdas 2022): reject the k* largest e-values, k* = max{k : e_(k) >= m / (alpha k)}.

    Parameters
    ----------
    log_e_values : array_like
        The log e-values of the m hypotheses of the family (one-dimensional).
    alpha : float, default 0.05
        The false discovery rate to control, in (0, 1).

    Returns
    -------
    numpy.ndarray
        Boolean, True for each rejected hypothesis, in the order given.

    Notes
    -----
    With e_(1) >= ... >= e_(m) the ordered e-values, k* = max{k : e_(k) >= m / (alpha
    k)}; the k* largest are rejected.  The false discovery rate is at most alpha under
    any dependence between the e-values.

    References
    ----------
    Wang, R. and Ramdas, A. (2022). False discovery rate control with e-values. J. R.
    Stat. Soc. B 84(3), 822-852.

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
