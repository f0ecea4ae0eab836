"""Drivers of the counted Holm, Benjamini-Hochberg and e-BH decisions over a chunk factory, and rank bounds.

The per-chunk summaries and the client's bookkeeping are in
:mod:`~llm_power_verified.inference.threshold_counts` (its docstring says what counts can and cannot decide).  Here a
callable that returns a fresh iterable of chunks is passed over until every decision is settled, counting Holm's and
BH's thresholds in the same pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.threshold_counts import (
    DEFAULT_BINS,
    StepState,
    absorb,
    check_alpha,
    checked_values,
    chunk_counts,
    decided_rejections,
    next_plan,
    start,
    step_thresholds,
)
from llm_power_verified.results import Result

__all__ = ["EBHDecision", "FamilyDecisions", "e_bh_decision", "family_decisions", "rank_bounds"]


@dataclass(frozen=True, repr=False)
class FamilyDecisions(Result):
    """Holm's and Benjamini-Hochberg's decisions for a family given in chunks.

    Attributes
    ----------
    family_size : int
        m.
    alpha : float
        The level (family-wise for Holm, false discovery rate for BH).
    holm_rejections : int
        R_holm, the number of pairs Holm rejects.
    holm_cut : float
        A pair is rejected by Holm exactly when its p-value is <= holm_cut (the step threshold t_max(R, 1)).
    bh_rejections : int
        R_bh.
    bh_cut : float
        A pair is rejected by BH exactly when its p-value is <= bh_cut (u_max(R, 1), within an ulp or two of
        alpha R / m).
    bh_level : float
        alpha max(R, 1) / max(m, 1), the level reported beside BH (as the leaderboard's family context computes it).
    passes : int
        Passes over the chunks (one more when m was counted).
    bins : int
        The most thresholds counted for one procedure in one pass (each chunk's summary has one more count).
    known_pvalues : numpy.ndarray
        Every threshold counted (sorted), for :func:`rank_bounds`.
    known_below : numpy.ndarray
        F at those thresholds.
    """

    family_size: int
    alpha: float
    holm_rejections: int
    holm_cut: float
    bh_rejections: int
    bh_cut: float
    bh_level: float
    passes: int
    bins: int
    known_pvalues: np.ndarray
    known_below: np.ndarray


def _run(chunks: Callable[[], Iterable[Any]], states: list[StepState], bins: int, max_passes: int) -> list[StepState]:
    """Passes over the chunks until every state is decided."""
    for _ in range(max_passes):
        plans = [(index, next_plan(state, bins)) for index, state in enumerate(states)]
        plans = [(index, plan) for index, plan in plans if plan is not None]
        if not plans:
            return states
        totals = [np.zeros(plan.edges.size + 1, dtype=np.int64) for _, plan in plans]
        for number, values in enumerate(chunks()):
            for total, counts in zip(totals, chunk_counts(values, [plan for _, plan in plans], number), strict=True):
                total += counts
        for (index, plan), total in zip(plans, totals, strict=True):
            states[index] = absorb(states[index], plan, total)
    if any(decided_rejections(state) is None for state in states):
        raise ArgumentError(f"not decided within max_passes={max_passes}; give a larger max_passes or bins")
    return states


def _prepare(
    chunks: Callable[[], Iterable[Any]], family_size: int | None, alpha: float, max_passes: int
) -> tuple[int, int, float]:
    """m, the passes spent counting it (one when not given), and alpha, checked."""
    alpha = check_alpha(alpha)
    if isinstance(max_passes, bool) or int(max_passes) != max_passes or max_passes < 1:
        raise ArgumentError(f"max_passes must be a whole number >= 1; got {max_passes!r}")
    if family_size is not None:
        return family_size, 0, alpha
    return sum(int(np.asarray(values).size) for values in chunks()), 1, alpha


def _cut(state: StepState, rejections: int) -> float:
    if state.family_size == 0:
        return -np.inf if state.procedure != "e-bh" else np.inf
    return float(step_thresholds(state.procedure, [max(rejections, 1)], state.family_size, state.alpha)[0])


def family_decisions(
    chunks: Callable[[], Iterable[Any]],
    family_size: int | None = None,
    alpha: float = 0.05,
    bins: int = DEFAULT_BINS,
    max_passes: int = 16,
) -> FamilyDecisions:
    """Holm's and Benjamini-Hochberg's exact decisions for p-values given in chunks, in a few passes.

    Parameters
    ----------
    chunks : callable
        Returns a fresh iterable of one-dimensional arrays of p-values each time it is called (the family is
        passed over once per pass, in any order and any chunk sizes).
    family_size : int, optional
        m; counted by one extra pass over the chunks when not given.
    alpha : float, default 0.05
        The level, in (0, 1).
    bins : int, default 65536
        The most thresholds one pass counts at per procedure.
    max_passes : int, default 16
        Refuse (ArgumentError) a family not decided in this many passes.

    Returns
    -------
    FamilyDecisions
        R and the cut (rejected exactly when p <= cut) of each procedure, and the passes used.

    Notes
    -----
    Holm: R = min{i : F(t_i) < i} - 1; BH: R = max{i : F(u_i) >= i}, with F(t) = #{p <= t} and t_i, u_i from
    ``step_thresholds``.  Each equals ``sum(adjust_pvalues(p, method) <= alpha)`` over the whole family.

    References
    ----------
    Holm (1979) Scand. J. Stat. 6, 65-70; Benjamini and Hochberg (1995) JRSS B 57, 289-300.

    Examples
    --------
    >>> parts = [np.array([0.01, 0.04]), np.array([0.03])]
    >>> result = family_decisions(lambda: iter(parts), alpha=0.05)
    >>> result.holm_rejections, result.bh_rejections, result.passes
    (1, 3, 2)
    """
    m, size_pass, alpha = _prepare(chunks, family_size, alpha, max_passes)
    holm, bh = _run(chunks, [start("holm", m, alpha), start("bh", m, alpha)], bins, int(max_passes))
    holm_rejections, bh_rejections = decided_rejections(holm), decided_rejections(bh)
    known = np.concatenate([holm.edges[1:-1], bh.edges[1:-1]])
    order = np.argsort(known, kind="stable")
    return FamilyDecisions(
        family_size=m,
        alpha=alpha,
        holm_rejections=holm_rejections,
        holm_cut=_cut(holm, holm_rejections),
        bh_rejections=bh_rejections,
        bh_cut=_cut(bh, bh_rejections),
        bh_level=alpha * max(bh_rejections, 1) / max(m, 1),
        passes=max(holm.passes, bh.passes) + size_pass,
        bins=max(holm.largest_plan, bh.largest_plan),
        known_pvalues=known[order],
        known_below=np.concatenate([holm.below[1:-1], bh.below[1:-1]])[order],
    )


@dataclass(frozen=True, repr=False)
class EBHDecision(Result):
    """e-BH's decision for a family of e-values given in chunks.

    Attributes
    ----------
    family_size : int
        m.
    alpha : float
        The false discovery rate controlled.
    rejections : int
        R, the number of hypotheses rejected.
    log_e_cut : float
        A hypothesis is rejected exactly when its log e-value is >= log_e_cut (log(m / (alpha max(R, 1)))).
    passes : int
        Passes over the chunks.
    bins : int
        The most thresholds counted in one pass.
    """

    family_size: int
    alpha: float
    rejections: int
    log_e_cut: float
    passes: int
    bins: int


def e_bh_decision(
    chunks: Callable[[], Iterable[Any]],
    family_size: int | None = None,
    alpha: float = 0.05,
    bins: int = DEFAULT_BINS,
    max_passes: int = 16,
) -> EBHDecision:
    """e-BH's exact decision for log e-values given in chunks, in a few passes.

    Parameters
    ----------
    chunks : callable
        Returns a fresh iterable of one-dimensional arrays of log e-values each time it is called.
    family_size : int, optional
        m; counted by one extra pass when not given.
    alpha : float, default 0.05
        The false discovery rate, in (0, 1).
    bins : int, default 65536
        The most thresholds one pass counts at.
    max_passes : int, default 16
        Refuse (ArgumentError) a family not decided in this many passes.

    Returns
    -------
    EBHDecision
        R and the cut (rejected exactly when log e >= log_e_cut).

    Notes
    -----
    R = max{k : #{log e >= log(m / (alpha k))} >= k}, the count form of
    ``e_bh``'s k* = max{k : e_(k) >= m / (alpha k)}.

    References
    ----------
    Wang, R. and Ramdas, A. (2022). False discovery rate control with e-values. J. R. Stat. Soc. B 84, 822-852.

    Examples
    --------
    >>> parts = [np.log([100.0, 30.0]), np.log([2.0, 0.5])]
    >>> e_bh_decision(lambda: iter(parts), alpha=0.1).rejections
    2
    """
    m, size_pass, alpha = _prepare(chunks, family_size, alpha, max_passes)
    (state,) = _run(chunks, [start("e-bh", m, alpha)], bins, int(max_passes))
    rejections = decided_rejections(state)
    return EBHDecision(
        family_size=m,
        alpha=alpha,
        rejections=rejections,
        log_e_cut=-_cut(state, rejections),
        passes=state.passes + size_pass,
        bins=state.largest_plan,
    )


def rank_bounds(pvalues: Any, decisions: FamilyDecisions) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on each p-value's rank in the whole family from the counts the passes gathered (no other chunk).

    Parameters
    ----------
    pvalues : array_like
        Some p-values of the family (a chunk).
    decisions : FamilyDecisions
        The family's decisions, with the thresholds counted and F at each.

    Returns
    -------
    tuple of numpy.ndarray
        (lowest, highest) possible rank k (1-based, ties in input order) of each p-value: 1 + the count at the
        largest known threshold below it, and the count at the smallest known threshold at or above it (m if none).
        Holm's level alpha / (m - k + 1) lies between the levels of the two; it is exact where they are equal.

    Examples
    --------
    >>> parts = [np.array([0.01, 0.04]), np.array([0.03])]
    >>> low, high = rank_bounds(parts[0], family_decisions(lambda: iter(parts)))
    >>> low.tolist(), high.tolist()
    ([1, 3], [1, 3])
    """
    array = checked_values(pvalues, "holm", "pvalues")
    known, below = decisions.known_pvalues, decisions.known_below
    at = np.searchsorted(known, array, side="left")
    lowest = np.where(at > 0, below[np.maximum(at - 1, 0)], 0) + 1 if known.size else np.ones(array.size, np.int64)
    highest = below[np.minimum(at, known.size - 1)] if known.size else np.full(array.size, decisions.family_size)
    highest = np.where(at < known.size, highest, decisions.family_size)
    return lowest.astype(np.int64), highest.astype(np.int64)
