"""Anytime-valid inference for graded paired differences in [-1, 1]: betting and empirical Bernstein.

The differences D_i are mapped to X_i = (D_i + 1) / 2 in [0, 1]: the mean m of X is the mean difference's (2m - 1).

* **Hedged betting capital** (Waudby-Smith and Ramdas 2024, Section 4): for a
  candidate mean m, K_t(m) = theta K_t^+(m) + (1 - theta) K_t^-(m) with
  K_t^+(m) = prod (1 + lambda_i^+ (X_i - m)) and K_t^-(m) = prod (1 - lambda_i^- (X_i - m)),
  theta = 1/2.  The bet lambda_i is the predictable plug-in
  sqrt(2 log(2/alpha) / (sigma_{i-1}^2 i log(1 + i))), with the running mean and
  variance estimates of the items before i (started at 1/2 and 1/4), truncated at c/m and c/(1 - m) (c = 1/2)
  so that every factor stays positive.  Under mean m, K_t(m) is a nonnegative martingale with K_0 = 1, so by
  Ville's inequality P(sup_t K_t(m) >= 1/alpha) <= alpha: K_t(1/2) is an e-process for "no difference", and
  {m : K_t(m) < 1/alpha} a confidence sequence.
* **Empirical Bernstein** (the same paper, Theorem 2): with v_i = 4 (X_i - mu_{i-1})^2,
  psi(lambda) = (-log(1 - lambda) - lambda) / 4 and bets truncated at 1/2,
  the interval sum(lambda_i X_i) / sum(lambda_i) -/+ (log(2/alpha) + sum v_i psi(lambda_i)) / sum(lambda_i)
  is a closed-form confidence sequence; exp(+/- sum lambda_i (X_i - m) - sum v_i psi(lambda_i)),
  averaged over the two signs, is its e-process.

Both adapt to the variance of the differences; the Hoeffding-type normal mixture of :mod:`.confidence` uses
the worst case for [-1, 1] whatever the data.  Both are hand-written: no maintained Python package on the
registries this project installs from provides them (``confseq`` is not there); the capital is computed in log
space over blocks of items, vectorised over paths and candidate means.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.results import Result
from llm_power_verified.sequential.e_process import first_crossing

__all__ = [
    "GradedConfidenceSequence",
    "GradedEProcessPath",
    "betting_confidence_sequence",
    "betting_e_process",
    "betting_log_e",
    "empirical_bernstein_confidence_sequence",
    "empirical_bernstein_log_e",
]

#: Bet truncation: |lambda| <= c / m and c / (1 - m) (hedged capital), |lambda| <= c (empirical Bernstein).
TRUNCATION = 0.5
#: Candidate means on [0, 1] for the betting confidence sequence, before the endpoints are refined.
GRID_POINTS = 1001
#: Items per block: bounds the (rows x items) arrays of one block.
ITEM_BLOCK = 4096


def check_differences(differences: Any) -> np.ndarray:
    """Paired differences as a float array (1-D, or 2-D: paths x items) in [-1, 1], refused by index otherwise."""
    values = np.asarray(differences, dtype=np.float64)
    if values.ndim not in (1, 2) or values.shape[-1] == 0:
        raise ArgumentError("differences must be a non-empty 1-D array (or 2-D: paths x items)")
    bad = ~np.isfinite(values) | (values < -1) | (values > 1)
    if bad.any():
        index = np.unravel_index(int(np.argmax(bad)), values.shape)
        raise ArgumentError(
            f"differences must lie in [-1, 1]; got {float(values[index])!r} at index "
            f"{tuple(int(i) for i in index) if values.ndim > 1 else int(index[0])}"
        )
    return values


def check_alpha(alpha: float) -> None:
    """Refuse an ``alpha`` outside (0, 1), naming it."""
    if not 0 < alpha < 1:
        raise ArgumentError(f"alpha must lie in (0, 1); got {alpha!r}")


def _plug_in(x: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(bets lambda_i, predictable means mu_{i-1}) for each row of x in [0, 1] (paths x items)."""
    t = np.arange(1, x.shape[-1] + 1, dtype=np.float64)
    mean = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    variance = (0.25 + np.cumsum((x - mean) ** 2, axis=-1)) / (t + 1)
    previous_mean = np.concatenate([np.full((*x.shape[:-1], 1), 0.5), mean[..., :-1]], axis=-1)
    previous_variance = np.concatenate([np.full((*x.shape[:-1], 1), 0.25), variance[..., :-1]], axis=-1)
    bets = np.sqrt(2 * math.log(2 / alpha) / (previous_variance * t * np.log1p(t)))
    return bets, previous_mean


def _log_capital_blocks(x: np.ndarray, bets: np.ndarray, means: np.ndarray) -> Iterator[tuple[slice, np.ndarray]]:
    """Log K_t(m) of the hedged capital, block by block of items: (items slice, array (means x rows x items in block)).

    ``means``: candidate means m (1-D); x and bets: rows x items.
    """
    m = means[:, None, None]
    log_up = np.zeros((means.size, x.shape[0]))
    log_down = np.zeros_like(log_up)
    for start in range(0, x.shape[1], ITEM_BLOCK):
        block = slice(start, min(start + ITEM_BLOCK, x.shape[1]))
        # The truncated bets of this block only: means x rows x items in the block (the whole path's would hold
        # means x items, 16 KB per item at 1,001 grid means).
        up = np.minimum(bets[..., block], TRUNCATION / m)
        down = np.minimum(bets[..., block], TRUNCATION / (1 - m))
        gap = x[None, :, block] - m
        cumulative_up = log_up[..., None] + np.cumsum(np.log1p(up * gap), axis=-1)
        cumulative_down = log_down[..., None] + np.cumsum(np.log1p(-down * gap), axis=-1)
        log_up, log_down = cumulative_up[..., -1], cumulative_down[..., -1]
        yield block, np.logaddexp(cumulative_up, cumulative_down) + math.log(0.5)


@docfill("differences", "alpha_bets")
def betting_log_e(differences: Any, alpha: float = 0.05) -> np.ndarray:
    """Log e_t of the hedged betting e-process for 'mean difference 0', at every item (same shape as ``differences``).

    Parameters
    ----------
    %(differences)s
    %(alpha_bets)s

    Returns
    -------
    numpy.ndarray
        log K_t(1/2), the shape of ``differences``.

    Notes
    -----
    With X_i = (D_i + 1) / 2: K_t(1/2) = (prod (1 + lambda_i^+ (X_i - 1/2)) + prod (1 - lambda_i^- (X_i - 1/2))) / 2,
    the bets lambda_i the truncated predictable plug-in of the module notes.

    References
    ----------
    Waudby-Smith, I. and Ramdas, A. (2024). Estimating means of bounded random
    variables by betting. J. R. Statist. Soc. B 86(1), 1-27.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> bool(betting_log_e(rng.uniform(-0.6, 1.0, 500))[-1] > math.log(20))   # mean difference 0.2
    True
    """
    values = check_differences(differences)
    check_alpha(alpha)
    rows = np.atleast_2d(values)
    x = (rows + 1) / 2
    bets, _ = _plug_in(x, alpha)
    out = np.empty_like(x)
    for block, log_k in _log_capital_blocks(x, bets, np.array([0.5])):
        out[:, block] = log_k[0]
    return out.reshape(values.shape)


@docfill("differences", "alpha_bets")
def empirical_bernstein_log_e(differences: Any, alpha: float = 0.05) -> np.ndarray:
    """Log e_t of the two-sided empirical-Bernstein e-process for 'mean difference 0' (same shape as ``differences``).

    Parameters
    ----------
    %(differences)s
    %(alpha_bets)s

    Returns
    -------
    numpy.ndarray
        log e_t, the shape of ``differences``.

    Notes
    -----
    With S = sum lambda_i (X_i - 1/2), V = sum v_i psi(lambda_i) (module notes): e_t = (e^(S - V) + e^(-S - V)) / 2.

    References
    ----------
    Waudby-Smith, I. and Ramdas, A. (2024). Estimating means of bounded random
    variables by betting. J. R. Statist. Soc. B 86(1), 1-27.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> round(float(empirical_bernstein_log_e(rng.uniform(-0.6, 1.0, 500))[-1]), 6)
    18.13844
    """
    values = check_differences(differences)
    check_alpha(alpha)
    x = (np.atleast_2d(values) + 1) / 2
    bets, previous_mean = _plug_in(x, alpha)
    bets = np.minimum(bets, TRUNCATION)
    penalty = np.cumsum(4 * (x - previous_mean) ** 2 * (-np.log1p(-bets) - bets) / 4, axis=-1)
    drift = np.cumsum(bets * (x - 0.5), axis=-1)
    return (np.logaddexp(drift - penalty, -drift - penalty) + math.log(0.5)).reshape(values.shape)


@dataclass(frozen=True, repr=False)
class GradedConfidenceSequence(Result):
    """Time-uniform confidence sequence for the mean paired difference; ``lower[t-1]``, ``upper[t-1]`` after t items.

    Attributes
    ----------
    mean, lower, upper : numpy.ndarray
        The running mean difference and the interval after t items, at index t - 1.
    alpha : float
        The level: every interval covers the mean simultaneously with probability at least 1 - alpha.
    method : str
        "betting" (hedged capital; endpoints to the grid's 0.002 in D, outward, refined to 1e-9 at ``refined_at``)
        or "empirical-bernstein" (closed form).
    refined_at : tuple of int
        The items t whose endpoints were refined by bisection.
    """

    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    alpha: float
    method: str
    refined_at: tuple[int, ...] = ()


@docfill("differences_path", "alpha_float")
def empirical_bernstein_confidence_sequence(differences: Any, alpha: float = 0.05) -> GradedConfidenceSequence:
    """Predictable plug-in empirical-Bernstein confidence sequence (Waudby-Smith and Ramdas 2024, Theorem 2).

    Parameters
    ----------
    %(differences_path)s
    %(alpha_float)s

    Returns
    -------
    GradedConfidenceSequence
        The running means and intervals, ``method`` "empirical-bernstein".

    Notes
    -----
    On X = (D + 1) / 2: sum(lambda_i X_i) / sum(lambda_i) -/+ (log(2/alpha) + sum v_i psi(lambda_i)) /
    sum(lambda_i), clipped to [0, 1] and mapped back by D = 2 X - 1 (module notes).

    References
    ----------
    Waudby-Smith, I. and Ramdas, A. (2024). Estimating means of bounded random
    variables by betting. J. R. Statist. Soc. B 86(1), 1-27.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> cs = empirical_bernstein_confidence_sequence(rng.uniform(-0.5, 0.7, 2000))
    >>> round(float(cs.lower[-1]), 6), round(float(cs.upper[-1]), 6)
    (0.072715, 0.127643)
    """
    values = check_differences(differences)
    if values.ndim != 1:
        raise ArgumentError("differences must be one path (1-D) for a confidence sequence")
    check_alpha(alpha)
    x = (values + 1) / 2
    bets, previous_mean = _plug_in(x[None, :], alpha)
    bets = np.minimum(bets[0], TRUNCATION)
    total = np.cumsum(bets)
    centre = np.cumsum(bets * x) / total
    radius = (math.log(2 / alpha) + np.cumsum(4 * (x - previous_mean[0]) ** 2 * (-np.log1p(-bets) - bets) / 4)) / total
    mean = np.cumsum(values) / np.arange(1, values.size + 1)
    lower, upper = np.maximum(centre - radius, 0.0), np.minimum(centre + radius, 1.0)
    return GradedConfidenceSequence(mean, 2 * lower - 1, 2 * upper - 1, alpha, "empirical-bernstein")


def _capital_at(x: np.ndarray, bets: np.ndarray, m: float, t: int) -> float:
    """Log K_t(m) after the first t items (one path)."""
    *_, (_, log_k) = _log_capital_blocks(x[None, :t], bets[None, :t], np.array([m]))
    return float(log_k[0, 0, -1])


def _refine(x: np.ndarray, bets: np.ndarray, t: int, inside: float, outside: float, threshold: float) -> float:
    """Bisection between a mean inside the set (capital below 1/alpha) and one outside; returns the outer end."""
    for _ in range(40):
        middle = (inside + outside) / 2
        if _capital_at(x, bets, middle, t) < threshold:
            inside = middle
        else:
            outside = middle
    return outside


@docfill("differences_path", "alpha_float")
def betting_confidence_sequence(
    differences: Any, alpha: float = 0.05, refine_at: Any = None
) -> GradedConfidenceSequence:
    """Hedged-capital betting confidence sequence for the mean difference (Waudby-Smith and Ramdas 2024, Section 4).

    At every t the interval is the hull of the grid means whose capital is
    below 1/alpha, widened to the next grid point on each side (so it holds
    the exact set); at the items in ``refine_at`` (default: the last) each
    endpoint is refined by bisection to 1e-9.

    Parameters
    ----------
    %(differences_path)s
    %(alpha_float)s
    refine_at : int or array_like of int, optional
        Items t (1..n) whose endpoints are refined; default the last.

    Returns
    -------
    GradedConfidenceSequence
        The running means and intervals, ``method`` "betting".

    Notes
    -----
    On X = (D + 1) / 2 the set after t items is {m : K_t(m) < 1/alpha}, K_t(m) the hedged capital of the module
    notes; by Ville's inequality it covers the mean at every t with probability at least 1 - alpha.

    References
    ----------
    Waudby-Smith, I. and Ramdas, A. (2024). Estimating means of bounded random
    variables by betting. J. R. Statist. Soc. B 86(1), 1-27.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> cs = betting_confidence_sequence(rng.uniform(-0.5, 0.7, 2000))
    >>> bool(cs.lower[-1] < 0.1 < cs.upper[-1])
    True
    >>> round(float(cs.lower[-1]), 6), round(float(cs.upper[-1]), 6)
    (0.076419, 0.129057)
    """
    values = check_differences(differences)
    if values.ndim != 1:
        raise ArgumentError("differences must be one path (1-D) for a confidence sequence")
    check_alpha(alpha)
    x = (values + 1) / 2
    bets = _plug_in(x[None, :], alpha)[0][0]
    grid = np.linspace(0.0, 1.0, GRID_POINTS)[1:-1]
    threshold = math.log(1 / alpha)
    lower, upper = np.empty(values.size), np.empty(values.size)
    for block, log_k in _log_capital_blocks(x[None, :], bets[None, :], grid):
        accepted = log_k[:, 0, :] < threshold
        first = np.argmax(accepted, axis=0)
        last = grid.size - 1 - np.argmax(accepted[::-1], axis=0)
        # One grid step outward (0 and 1 bound every mean); an empty set cannot occur at the grid's resolution but is
        # kept honest.
        lower[block] = np.where(accepted.any(axis=0), np.concatenate([[0.0], grid])[first], 0.0)
        upper[block] = np.where(accepted.any(axis=0), np.concatenate([grid, [1.0]])[last + 1], 1.0)
    times = [values.size] if refine_at is None else sorted({int(t) for t in np.atleast_1d(refine_at)})
    for t in times:
        if not 1 <= t <= values.size:
            raise ArgumentError(f"refine_at must name items 1..{values.size}; got {t}")
        centre = float(np.clip((0.5 + x[:t].sum()) / (t + 1), grid[0], grid[-1]))
        if _capital_at(x, bets, centre, t) < threshold:
            lower[t - 1] = _refine(x, bets, t, centre, lower[t - 1], threshold) if lower[t - 1] > 0 else 0.0
            upper[t - 1] = _refine(x, bets, t, centre, upper[t - 1], threshold) if upper[t - 1] < 1 else 1.0
    mean = np.cumsum(values) / np.arange(1, values.size + 1)
    return GradedConfidenceSequence(mean, 2 * lower - 1, 2 * upper - 1, alpha, "betting", tuple(times))


@dataclass(frozen=True, repr=False)
class GradedEProcessPath(Result):
    """The betting e-process of graded differences over items in arrival order (t = index + 1).

    Attributes
    ----------
    mean_difference, log_e, running_max_log_e : numpy.ndarray
        The running mean difference, log e_t and max_{s <= t} log e_s after t items, at index t - 1.
    method : str
        "betting" or "empirical-bernstein".
    """

    mean_difference: np.ndarray
    log_e: np.ndarray
    running_max_log_e: np.ndarray
    method: str

    def first_crossing(self, alpha: float) -> int | None:
        """The first item t at which e_t >= 1/alpha, None if it never crosses."""
        return first_crossing(self.log_e, alpha)


@docfill("differences_path", "alpha_bets")
def betting_e_process(differences: Any, alpha: float = 0.05, method: str = "betting") -> GradedEProcessPath:
    """The e-process path for 'mean difference 0': ``method`` "betting" (hedged capital) or "empirical-bernstein".

    Parameters
    ----------
    %(differences_path)s
    %(alpha_bets)s
    method : {"betting", "empirical-bernstein"}, default "betting"
        :func:`betting_log_e` or :func:`empirical_bernstein_log_e`.

    Returns
    -------
    GradedEProcessPath
        log e_t, its running maximum and the running mean difference.

    Notes
    -----
    Reject "mean difference 0" at the first t with e_t >= 1/alpha (``GradedEProcessPath.first_crossing``).

    References
    ----------
    Waudby-Smith, I. and Ramdas, A. (2024). Estimating means of bounded random
    variables by betting. J. R. Statist. Soc. B 86(1), 1-27.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> betting_e_process(rng.uniform(-0.6, 1.0, 500)).first_crossing(0.05)
    39
    """
    if method not in ("betting", "empirical-bernstein"):
        raise ArgumentError(f"method must be 'betting' or 'empirical-bernstein'; got {method!r}")
    values = check_differences(differences)
    if values.ndim != 1:
        raise ArgumentError("differences must be one path (1-D)")
    log_e = betting_log_e(values, alpha) if method == "betting" else empirical_bernstein_log_e(values, alpha)
    mean = np.cumsum(values) / np.arange(1, values.size + 1)
    return GradedEProcessPath(mean, log_e, np.maximum.accumulate(log_e), method)
