"""The accuracies-only verdicts over the rounding of the printed digits.

A printed accuracy stands for every whole count k of correct items whose k / N rounds to it: 92.8 at N = 14,042 is
any k from 13,024 to 13,037 (:func:`llm_power_verified.io.accuracy_table.read_accuracies` computes the range).  A
pair is resolved only when it is resolved at every admissible rho AND at every pair of counts the two printed values
allow, and at the printed values themselves; unresolved likewise.  A verdict that differs between two allowed count
pairs "depends on the printed digits" (the ``rounding`` columns).  A model whose printed value no count gives
(``--approximate-accuracies``) contributes its printed value only.

Where the extremes lie (why four corners and the printed pair decide, whatever N)
---------------------------------------------------------------------------------
Let model A's allowed accuracies span [a_lo, a_hi] and B's [b_lo, b_hi]; write d = p_a - p_b and s = p_a + p_b.
For 0/1 scores the discordance P(A != B) is psi = p_a + p_b - 2 p11, and sigma_D^2 = psi - d^2.  At rho_min
(paper Eq. 8; Frechet's lower bound p11 = max(0, s - 1)) psi = min(s, 2 - s); at rho_max (Eq. 7, p11 = min(p_a,
p_b)) psi = abs(d).  With K = (z_{1-alpha/2} + z_{1-beta})^2, N* (Eq. 6) is therefore

    N*(rho_min) = K (min(s, 2 - s) / d^2 - 1),    N*(rho_max) = K (1 / abs(d) - 1).

* N*(rho_max) depends on abs(d) alone and falls as abs(d) grows: over the box it is largest at the smallest abs(d) (the
  corner C- = (a_lo, b_hi) when its gap d0 = a_lo - b_hi > 0; infinite when the box reaches d = 0, which the
  whole counts then attain, since a_lo - b_hi <= 0 <= a_hi - b_lo and the count differences run through every whole
  number between) and smallest at the largest abs(d), at C+ = (a_hi, b_lo) or, when d0 < 0, at C-.
* f = min(s, 2 - s) / d^2.  Take a point with d > 0 and d0 > 0: d = d0 + delta with delta = (p_a - a_lo) +
  (b_hi - p_b) >= 0, and abs(s - s0) <= delta, so (min(s, 2 - s) is 1-Lipschitz in s) psi <= psi0 + delta and
  f <= (psi0 + delta) / (d0 + delta)^2.  Now (psi0 + delta) d0^2 - psi0 (d0 + delta)^2 = delta (d0^2 - 2 psi0 d0 -
  psi0 delta) <= 0 because psi0 >= d0 (the discordance is at least the gap).  So f <= f(C-): the most items at
  rho_min are at C- (infinite when d0 <= 0).  Against C+ with gap d1 = a_hi - b_lo, a point with d = d1 - delta > 0
  has psi >= psi1 - delta and (psi1 - delta) d1^2 - psi1 (d1 - delta)^2 = delta (2 psi1 d1 - d1^2 - psi1 delta) >=
  delta d1 (psi1 - d1) >= 0 (delta < d1), so f >= f(C+).  Points with d < 0 mirror this with the roles of the
  corners swapped, so the fewest items at rho_min are at C+ or (when d0 < 0) at C-.

Both statements hold at any level (K is a common factor).  The verdict of one point is resolved when N >= N* at
rho_min (strict level), unresolved when N < N* at rho_max (lenient level), "depends on p-value order" when neither but
N < N* at rho_max at the strict level, else "depends on rho"; so whether every point shares one verdict is decided by
the extremes above (:func:`rounding_verdicts`).  ``tests/leaderboard/test_accuracy_rounding.py`` checks this
against an enumeration of every allowed count pair on small N.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from llm_power_verified.leaderboard.accuracy_verdicts import VERDICTS
from llm_power_verified.power.correlation import admissible_rho_interval
from llm_power_verified.power.critical import agreement_share, critical_correlation
from llm_power_verified.power.sample_size import required_n_paired_binary
from llm_power_verified.results import Result

__all__ = [
    "ROUNDING",
    "CountBoxes",
    "add_rounding",
    "count_boxes",
    "critical_ranges",
    "required_at",
    "required_extremes",
    "rounding_verdicts",
]

#: The rounding columns' values: the allowed counts cannot change the verdict, or they can.
ROUNDING = ("no effect", "depends on the printed digits")
#: At most this many count pairs per pair are enumerated for the rho_c and agreement ranges (then a grid) ...
ENUMERATED_PAIRS = 1 << 16
#: ... and at most this many over all pairs (a large family gets a smaller share each, at least 4,096).
ENUMERATED_TOTAL = 1 << 24


@dataclass(frozen=True, repr=False)
class CountBoxes(Result):
    """Per pair, the accuracies the printed values allow: [a_lo, a_hi] x [b_lo, b_hi], and the printed pair.

    Attributes
    ----------
    a_lo, a_hi, b_lo, b_hi : numpy.ndarray
        The smallest and largest allowed accuracy of model A and of model B (count / N; the printed value for a
        model no count gives).
    p_a, p_b : numpy.ndarray
        The printed accuracies.
    counts_a, counts_b : numpy.ndarray
        (low, high) count rows per pair, int64, shape (pairs, 2); equal to -1 for a model no count gives.
    """

    a_lo: np.ndarray
    a_hi: np.ndarray
    b_lo: np.ndarray
    b_hi: np.ndarray
    p_a: np.ndarray
    p_b: np.ndarray
    counts_a: np.ndarray
    counts_b: np.ndarray


def count_boxes(pairs: pd.DataFrame, ranking: pd.DataFrame, n: int) -> CountBoxes:
    """The allowed accuracies of each pair's two models.

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pairs, with ``rank_a`` and ``rank_b`` (:func:`~.accuracy_verdicts.accuracy_pairs`).
    ranking : pandas.DataFrame
        One row per model in rank order, with ``accuracy``, ``count_low``, ``count_high`` and ``consistent``.
    n : int
        N.

    Returns
    -------
    CountBoxes
        The boxes.
    """
    consistent = ranking["consistent"].to_numpy(bool)
    accuracy = ranking["accuracy"].to_numpy(float)
    counts = np.where(
        consistent[:, None], ranking[["count_low", "count_high"]].to_numpy(np.int64), np.int64(-1)
    ).reshape(-1, 2)
    low = np.where(consistent, counts[:, 0] / n, accuracy)
    high = np.where(consistent, counts[:, 1] / n, accuracy)
    first, second = pairs["rank_a"].to_numpy() - 1, pairs["rank_b"].to_numpy() - 1
    return CountBoxes(
        *(low[first], high[first], low[second], high[second]),
        *(accuracy[first], accuracy[second], counts[first], counts[second]),
    )


def required_at(p_a: np.ndarray, p_b: np.ndarray, end: str, level, power: float) -> np.ndarray:
    """N* (Eq. 6) at one end of the admissible interval of rho ("low": rho_min, "high": rho_max); inf at a gap of 0.

    Parameters
    ----------
    p_a, p_b : numpy.ndarray
        The accuracies, each in (0, 1).
    end : {"low", "high"}
        The end of the admissible interval.
    level : float or numpy.ndarray
        The two-sided level.
    power : float
        Target power.

    Returns
    -------
    numpy.ndarray
        N*, unrounded.
    """
    interval = admissible_rho_interval(p_a, p_b)
    rho = np.atleast_1d(interval.low if end == "low" else interval.high)
    return np.atleast_1d(required_n_paired_binary(p_a, p_b, rho, alpha=level, power=power))


def required_extremes(boxes: CountBoxes, end: str, level, power: float) -> tuple[np.ndarray, np.ndarray]:
    """The most and the fewest items (N*) over the allowed counts and the printed pair, at one end of rho.

    Parameters
    ----------
    boxes : CountBoxes
        The allowed accuracies (:func:`count_boxes`).
    end : {"low", "high"}
        rho_min or rho_max of each point's admissible interval.
    level : float or numpy.ndarray
        The two-sided level.
    power : float
        Target power.

    Returns
    -------
    tuple of numpy.ndarray
        The most and the fewest, per pair (the most is inf when the allowed counts reach a gap of 0).

    Notes
    -----
    The most lies at the corner of the smallest gap (a_lo, b_hi), the fewest at the corner of the largest (a_hi,
    b_lo) or, when the counts allow the order to flip, at (a_lo, b_hi): the module notes prove it.
    """
    narrow = required_at(boxes.a_lo, boxes.b_hi, end, level, power)  # C-: the smallest gap
    wide = required_at(boxes.a_hi, boxes.b_lo, end, level, power)  # C+: the largest gap
    printed = required_at(boxes.p_a, boxes.p_b, end, level, power)
    gap = boxes.a_lo - boxes.b_hi
    most = np.where(gap > 0, narrow, np.inf)
    fewest = np.where(gap < 0, np.minimum(narrow, wide), wide)
    return np.maximum(most, printed), np.minimum(fewest, printed)


def rounding_verdicts(
    boxes: CountBoxes, printed: np.ndarray, n: int, strict, lenient, power: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The verdict over every admissible rho and every allowed pair of counts, and whether the counts can change it.

    Parameters
    ----------
    boxes : CountBoxes
        The allowed accuracies (:func:`count_boxes`).
    printed : numpy.ndarray
        The verdict at the printed accuracies (kept when the counts cannot change it).
    n : int
        N.
    strict, lenient : float or numpy.ndarray
        The levels at rho_min and at rho_max (both alpha for the verdict at alpha).
    power : float
        Target power.

    Returns
    -------
    tuple of numpy.ndarray
        The verdict (resolved only if resolved at every rho and count pair, unresolved likewise, "depends on
        p-value order" if unresolved at every one at the strict level, else "depends on rho"); the rounding value
        (``ROUNDING``); the most items the gap could need (N* at rho_min at the smallest gap, strict level); and the
        fewest (N* at rho_max at the largest gap, lenient level).
    """
    most_resolve, fewest_resolve = required_extremes(boxes, "low", strict, power)
    most_lenient, fewest_lenient = required_extremes(boxes, "high", lenient, power)
    most_strict, fewest_strict = required_extremes(boxes, "high", strict, power)
    all_resolved, any_resolved = n >= most_resolve, n >= fewest_resolve
    all_unresolved, any_unresolved = n < fewest_lenient, n < most_lenient
    all_order, any_order = n < fewest_strict, n < most_strict
    single = all_resolved | all_unresolved | (all_order & ~any_unresolved) | (~any_resolved & ~any_order)
    robust = np.where(
        all_resolved, VERDICTS[0], np.where(all_unresolved, VERDICTS[1], np.where(all_order, VERDICTS[3], VERDICTS[2]))
    )
    return np.where(single, printed, robust), np.where(single, ROUNDING[0], ROUNDING[1]), most_resolve, fewest_lenient


def _axis(low: int, high: int, printed: float, n: int, size: int) -> np.ndarray:
    """A model's allowed accuracies: every count, or ``size`` evenly spaced ones (ends included); none: the printed."""
    if low < 0:
        return np.array([printed])
    return (np.arange(low, high + 1) if high - low < size else np.unique(np.linspace(low, high, size).round())) / n


def critical_ranges(boxes: CountBoxes, n: int, alpha: float, power: float) -> tuple[np.ndarray, ...]:
    """Per pair, the range of rho_c and of the agreement share over the count pairs whose verdict depends on rho.

    Every allowed count pair (and the printed pair) is evaluated when there are at most ``ENUMERATED_PAIRS`` of
    them (at most ``ENUMERATED_TOTAL`` over all pairs, at least 4,096 each); otherwise an evenly spaced grid of
    counts on each axis, ends included.

    Parameters
    ----------
    boxes : CountBoxes
        The allowed accuracies (:func:`count_boxes`).
    n : int
        N.
    alpha, power : float
        The operating point.

    Returns
    -------
    tuple of numpy.ndarray
        rho_c low and high, the agreement share low and high (NaN where no allowed count pair depends on rho), and
        per pair whether the ranges come from a grid.
    """
    pairs = boxes.p_a.size
    rho_low, rho_high, share_low, share_high = (np.full(pairs, np.nan) for _ in range(4))
    limit = min(ENUMERATED_PAIRS, max(4096, ENUMERATED_TOTAL // max(pairs, 1)))
    side = int(np.sqrt(limit))
    sizes = (boxes.counts_a[:, 1] - boxes.counts_a[:, 0] + 1) * (boxes.counts_b[:, 1] - boxes.counts_b[:, 0] + 1)
    gridded = (sizes > limit) & (boxes.counts_a[:, 0] >= 0) & (boxes.counts_b[:, 0] >= 0)
    for row in range(pairs):
        size = side if gridded[row] else limit
        first = _axis(*boxes.counts_a[row], boxes.p_a[row], n, size)
        second = _axis(*boxes.counts_b[row], boxes.p_b[row], n, size)
        p_a, p_b = (grid.ravel() for grid in np.meshgrid(first, second, indexing="ij"))
        p_a, p_b = np.append(p_a, boxes.p_a[row]), np.append(p_b, boxes.p_b[row])
        depends = (required_at(p_a, p_b, "low", alpha, power) > n) & (n >= required_at(p_a, p_b, "high", alpha, power))
        if not depends.any():
            continue
        p_a, p_b = p_a[depends], p_b[depends]
        rho_c = np.atleast_1d(critical_correlation(p_a, p_b, n, alpha=alpha, power=power))
        interval = admissible_rho_interval(p_a, p_b)  # rho_c lies in it up to rounding error: clip for the share
        share = np.atleast_1d(agreement_share(p_a, p_b, np.clip(rho_c, interval.low, interval.high)))
        rho_low[row], rho_high[row], share_low[row], share_high[row] = (
            rho_c.min(),
            rho_c.max(),
            share.min(),
            share.max(),
        )
    return rho_low, rho_high, share_low, share_high, gridded


def add_rounding(
    pairs: pd.DataFrame, ranking: pd.DataFrame, n: int, alpha: float, power: float, strict, lenient
) -> int:
    """Make ``verdict`` and ``verdict_family`` hold over the allowed counts, and add the rounding columns (in place).

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pairs with their verdicts at the printed accuracies (:func:`~.accuracy_verdicts.add_verdicts`).
    ranking : pandas.DataFrame
        One row per model in rank order, with the allowed counts.
    n : int
        N.
    alpha, power : float
        The operating point.
    strict, lenient : float
        The family's levels (:func:`~.accuracy_verdicts.family_levels`).

    Returns
    -------
    int
        How many pairs' rho_c and agreement ranges come from a grid of their counts (too many count pairs to list).

    Examples
    --------
    >>> import pandas as pd
    >>> from llm_power_verified.io.accuracy_table import read_accuracies
    >>> from llm_power_verified.leaderboard.accuracies import audit_accuracies
    >>> mmlu = pd.DataFrame({"model": ["o3-low", "o1"], "accuracy": ["92.8", "91.8"]})
    >>> pair = audit_accuracies(read_accuracies(mmlu, n=14042)).pairs.iloc[0]
    >>> pair["verdict"], pair["rounding"], round(float(pair["required_n_worst"]))
    ('depends on rho', 'depends on the printed digits', 14773)
    """
    boxes = count_boxes(pairs, ranking, n)
    verdict, rounding, most, fewest = rounding_verdicts(boxes, pairs["verdict"].to_numpy(), n, alpha, alpha, power)
    family, rounding_family, _, _ = rounding_verdicts(
        boxes, pairs["verdict_family"].to_numpy(), n, strict, lenient, power
    )
    pairs["verdict"], pairs["verdict_family"] = verdict, family
    pairs["rounding"], pairs["rounding_family"] = rounding, rounding_family
    pairs["required_n_worst"], pairs["required_n_best"] = most, fewest
    rho_low, rho_high, share_low, share_high, gridded = critical_ranges(boxes, n, alpha, power)
    pairs["rho_critical_low"], pairs["rho_critical_high"] = rho_low, rho_high
    pairs["agreement_critical_low"], pairs["agreement_critical_high"] = share_low, share_high
    return int(gridded.sum())
