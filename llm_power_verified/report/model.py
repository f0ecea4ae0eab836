"""The report model every format renders: headline first, then models, pairs, sections and the legend.

:func:`headline` answers, in a few lines, what a leaderboard maintainer asks
first: how big the benchmark is; how many adjacent gaps (and how many of all
pairs) are significant and resolved, at fixed n, under the declared family,
with clusters and anytime-valid; the smallest gap this benchmark resolves; and
the N that would resolve every adjacent gap.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from llm_power_verified.leaderboard.audit import AuditResult
from llm_power_verified.power.correlation import admissible_rho_interval
from llm_power_verified.power.sample_size import (
    minimum_detectable_effect,
    paired_difference_variance,
)

__all__ = ["adjacent_pairs", "headline", "smallest_resolvable_gap"]


def adjacent_pairs(result: AuditResult) -> pd.DataFrame:
    """The reported pairs of adjacent ranks (empty in mode "reference" unless the reference is a neighbour)."""
    pairs = result.pairs
    return pairs[(pairs["rank_b"] - pairs["rank_a"]).abs() == 1]


def smallest_resolvable_gap(result: AuditResult) -> tuple[float, float, float]:
    """(MDE, median rho, mean score): the gap resolved at N, at the median observed rho of the reported pairs.

    Binary: sigma_D^2 from the paper's Eq. 5 at p_A = p_B = p, the mean score of
    all models (2 p (1 - p)(1 - rho)); graded: the median variances of the two
    models' scores in place of p (1 - p).  MDE by Eq. 4 (the generated formulas).
    """
    pairs = result.pairs
    rho = float(np.nanmedian(pairs["rho"])) if np.isfinite(pairs["rho"]).any() else 0.0
    mean = float(result.matrix.scores.mean())
    if result.matrix.binary:
        # Two models with the same accuracy p cannot have any rho: the Frechet bounds give [-min(p, 1-p)/max(p, 1-p), 1]
        # (a 2-item table a = (1, 0), b = (0, 1) has rho-hat -1 at p = 1/2, where the bound is -1 only in the limit).
        interval = admissible_rho_interval(mean, mean) if 0.0 < mean < 1.0 else None
        clipped = float(np.clip(rho, interval.low, interval.high)) if interval is not None else 0.0
        variance = float(paired_difference_variance(mean, mean, clipped)) if interval is not None else 0.0
    else:
        spread = float(np.median(np.sqrt(pairs["variance_a"] * pairs["variance_b"])))
        variance = max(float(np.median(pairs["variance_a"] + pairs["variance_b"])) - 2 * rho * spread, 0.0)
    gap = float(minimum_detectable_effect(result.matrix.n_items, variance, result.alpha, result.power))
    return gap, rho, mean


def _count(frame: pd.DataFrame, column: str) -> str:
    """"k/m": k pairs with the verdict out of the m for which it is defined (None outside the declared family)."""
    if column not in frame:
        return "n/a"
    values = frame[column]
    return f"{int((values == True).sum())}/{int(values.notna().sum())}"  # noqa: E712 - object columns hold None


def headline(result: AuditResult) -> list[str]:
    """The headline lines (plain text; the renderers escape and format them)."""
    matrix = result.matrix
    clusters = f", {result.clusters.n_clusters} item clusters" if result.clusters is not None else ""
    lines = [f"{matrix.n_items:,} items x {matrix.n_models} models, {'0/1' if matrix.binary else 'graded'} scores{clusters}; "
             f"alpha {result.alpha:g}, power {result.power:g}; family '{result.family}' (m = {result.family_size}), "
             f"correction {result.correction}."]
    adjacent = adjacent_pairs(result)
    if len(adjacent):
        extras = []
        if "significant_clustered" in adjacent:
            extras.append(f"significant with clusters {_count(adjacent, 'significant_clustered')}")
        if "significant_anytime" in adjacent:
            extras.append(f"anytime-valid {_count(adjacent, 'significant_anytime')}")
        lines.append(f"Adjacent gaps: significant {_count(adjacent, 'significant')}, resolved (q >= 1) {_count(adjacent, 'resolved')}"
                     + "".join(f", {extra}" for extra in extras) + ".")
    tiers = result.tiers
    lines.append(f"All {tiers.total_pairs:,} pairs: significant {tiers.significant_pairs:,} ({tiers.procedure}), "
                 f"resolved {tiers.resolved_pairs:,}.")
    gap, rho, mean = smallest_resolvable_gap(result)
    if gap < 1.0:
        lines.append(f"Smallest gap this benchmark resolves: {gap:.3g} (at the median observed rho {rho:.2f} and mean score {mean:.3f}).")
    else:  # scores lie in [0, 1], so no gap between two mean scores exceeds 1
        lines.append(f"No gap is resolvable with {matrix.n_items:,} items: the minimum detectable effect is {gap:.3g}, over 1, the "
                     f"largest possible gap (at the median observed rho {rho:.2f} and mean score {mean:.3f}).")
    if len(adjacent):
        required = adjacent["required_n"].to_numpy(dtype=np.float64)
        if np.isinf(required).any():
            lines.append(f"No N resolves every adjacent gap: {int(np.isinf(required).sum())} adjacent pair(s) have a gap of 0.")
        else:
            lines.append(f"N that would resolve every adjacent gap: {math.ceil(float(required.max())):,} items "
                         f"(now {matrix.n_items:,}).")
    return lines
