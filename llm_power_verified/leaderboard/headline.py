"""The headline's facts, computed by the audit: what a leaderboard maintainer asks first, as numbers.

How big the benchmark is; how many adjacent gaps (and how many of all pairs)
are significant and resolved, at fixed n, under the declared family, with
clusters and anytime-valid; the smallest gap this benchmark resolves; and the
N that would resolve every adjacent gap.  The in-memory and the streamed audit
fill the same :class:`Headline` from the same rows (the adjacent pairs are the
rows whose ``adjacent`` column is true), so their headlines agree; the wording
is :mod:`llm_power_verified.report.headline`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.summaries import Tiers
from llm_power_verified.power.correlation import admissible_rho_interval
from llm_power_verified.power.sample_size import (
    minimum_detectable_effect,
    paired_difference_variance,
)
from llm_power_verified.results import Result

__all__ = ["ADJACENT_VERDICTS", "Headline", "VerdictCount", "headline_facts", "smallest_resolvable_gap"]

#: The adjacent pairs' verdict columns the headline counts, when the pair table has them.
ADJACENT_VERDICTS = ("significant", "resolved", "significant_clustered", "significant_anytime")


@dataclass(frozen=True, repr=False)
class VerdictCount(Result):
    """k of m: ``count`` pairs with the verdict out of the ``defined`` for which it is defined (None outside the family)."""

    count: int
    defined: int


@dataclass(frozen=True, repr=False)
class Headline(Result):
    """The facts of an audit's headline.

    ``adjacent``: per verdict column present (:data:`ADJACENT_VERDICTS`), its
    count among the ``adjacent_pairs`` adjacent pairs reported (empty when none
    is: in mode "reference", only the reference's neighbours in the ranking are).
    ``smallest_resolvable_gap`` is the MDE at N, at the ``median_rho`` of the
    reported pairs and the ``mean_score`` of all models (:func:`smallest_resolvable_gap`).
    ``required_n_all_adjacent``: the largest N* of the adjacent pairs (None when
    none is reported, or when ``zero_gap_pairs`` of them have a gap of 0 and no N
    resolves them).
    """

    n_items: int
    n_models: int
    binary: bool
    n_clusters: int | None
    alpha: float
    power: float
    family: str
    family_size: int
    correction: str
    adjacent_pairs: int
    adjacent: dict[str, VerdictCount]
    total_pairs: int
    significant_pairs: int
    resolved_pairs: int
    procedure: str
    smallest_resolvable_gap: float
    median_rho: float
    mean_score: float
    required_n_all_adjacent: int | None
    zero_gap_pairs: int

    @property
    def score_kind(self) -> str:
        """"0/1" or "graded"."""
        return "0/1" if self.binary else "graded"


def smallest_resolvable_gap(matrix: ScoreMatrix, pairs: pd.DataFrame, alpha: float, power: float) -> tuple[float, float, float]:
    """(MDE, median rho, mean score): the gap resolved at N, at the median observed rho of the reported ``pairs``.

    Binary: sigma_D^2 from the paper's Eq. 5 at p_A = p_B = p, the mean score of
    all models (2 p (1 - p)(1 - rho)); graded: the median variances of the two
    models' scores in place of p (1 - p).  MDE by Eq. 4 (the generated formulas).
    ``pairs`` needs ``rho`` (and, graded, ``variance_a`` and ``variance_b``).
    """
    rho = float(np.nanmedian(pairs["rho"])) if np.isfinite(pairs["rho"]).any() else 0.0
    mean = float(matrix.scores.mean())
    if matrix.binary:
        # Two models with the same accuracy p cannot have any rho: the Frechet bounds give [-min(p, 1-p)/max(p, 1-p), 1]
        # (a 2-item table a = (1, 0), b = (0, 1) has rho-hat -1 at p = 1/2, where the bound is -1 only in the limit).
        interval = admissible_rho_interval(mean, mean) if 0.0 < mean < 1.0 else None
        clipped = float(np.clip(rho, interval.low, interval.high)) if interval is not None else 0.0
        variance = float(paired_difference_variance(mean, mean, clipped)) if interval is not None else 0.0
    else:
        spread = float(np.median(np.sqrt(pairs["variance_a"] * pairs["variance_b"])))
        variance = max(float(np.median(pairs["variance_a"] + pairs["variance_b"])) - 2 * rho * spread, 0.0)
    gap = float(minimum_detectable_effect(matrix.n_items, variance, alpha, power))
    return gap, rho, mean


def _count(frame: pd.DataFrame, column: str) -> VerdictCount:
    values = frame[column]
    return VerdictCount(count=int((values == True).sum()), defined=int(values.notna().sum()))  # noqa: E712 - object columns hold None


def headline_facts(matrix: ScoreMatrix, *, alpha: float, power: float, family: str, family_size: int, correction: str,
                   n_clusters: int | None, reported: pd.DataFrame, adjacent: pd.DataFrame, tiers: Tiers) -> Headline:
    """The :class:`Headline` of an audit: ``reported`` the pair rows of the mode (at least their ``rho`` and, graded, variance
    columns), ``adjacent`` those of its rows whose ``adjacent`` column is true (every column)."""
    gap, rho, mean = smallest_resolvable_gap(matrix, reported, alpha, power)
    required = adjacent["required_n"].to_numpy(dtype=np.float64) if len(adjacent) else np.empty(0)
    zero_gap = int(np.isinf(required).sum())
    return Headline(
        n_items=matrix.n_items, n_models=matrix.n_models, binary=matrix.binary, n_clusters=n_clusters, alpha=alpha, power=power,
        family=family, family_size=family_size, correction=correction, adjacent_pairs=len(adjacent),
        adjacent={column: _count(adjacent, column) for column in ADJACENT_VERDICTS if column in adjacent} if len(adjacent) else {},
        total_pairs=tiers.total_pairs, significant_pairs=tiers.significant_pairs, resolved_pairs=tiers.resolved_pairs,
        procedure=tiers.procedure, smallest_resolvable_gap=gap, median_rho=rho, mean_score=mean,
        required_n_all_adjacent=math.ceil(float(required.max())) if required.size and not zero_gap else None,
        zero_gap_pairs=zero_gap,
    )
