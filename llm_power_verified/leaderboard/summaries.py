"""The audit's summaries across pairs, as typed frozen results.

:class:`Multiplicity` (the declared family, its N* inflations and rejections),
:class:`ClusterSummary` (ICC, design effect and the cluster checks),
:class:`Tiers`, :class:`Verdicts` (the paper's Table 5 row) and
:class:`GapBucket` (one row of its Table 3).  ``to_dict()`` gives the keys of
the JSON report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from llm_power_verified.results import Result

__all__ = [
    "GAP_BUCKETS",
    "VERDICT_COLUMNS",
    "ClusterBootstrap",
    "ClusterSummary",
    "GapBucket",
    "GapsOfInterest",
    "GenerationSummary",
    "Inflation",
    "ModelGenerations",
    "Multiplicity",
    "Tiers",
    "Verdicts",
    "resolution_by_gap",
    "verdict_table",
]


@dataclass(frozen=True, repr=False)
class Inflation(Result):
    """N* inflation factors of the declared family: N*_family = factor x N*.

    Attributes
    ----------
    bonferroni, sidak, bh : float
        ((z_{1-level/2} + z_power) / (z_{1-alpha/2} + z_power))^2 at the correction's level: alpha / m, Sidak's
        1 - (1 - alpha)^(1/m), and BH's alpha R / m at its R rejections (``derivations/multiplicity.py``).
    holm : str
        Holm's is per pair (alpha / (m - k + 1) at step k of the observed p-value order, the level Holm tests the pair
        at only if steps 1 to k - 1 all reject: conditional, past the step where Holm stops too), so it is
        described, not a number.
    """

    bonferroni: float
    sidak: float
    bh: float
    holm: str


@dataclass(frozen=True, repr=False)
class Multiplicity(Result):
    """The declared multiplicity family and what it does to the verdicts.

    Attributes
    ----------
    family : str
        The declared family ("adjacent", "all" or "reference").
    family_size : int
        m, its comparisons.
    arbiter : str
        The test whose p-values are adjusted ("exact McNemar" or "paired t").
    inflation : Inflation
        The N* inflation factors.
    bh_rejections : int
        R, the pairs BH rejects at alpha.
    bh_level : float
        BH's per-comparison level alpha max(R, 1) / m.
    e_bh_rejections : int or None
        The pairs e-BH rejects on the anytime-valid e-values.
    """

    family: str
    family_size: int
    arbiter: str
    inflation: Inflation
    bh_rejections: int
    bh_level: float
    e_bh_rejections: int | None


@dataclass(frozen=True, repr=False)
class GapsOfInterest(Result):
    """The adjacent pairs against a declared smallest gap of interest DELTA (``--min-effect``), counted.

    Attributes
    ----------
    min_effect : float
        DELTA, in score units.
    adjacent_pairs : int
        The adjacent pairs reported.
    resolved : int
        Those whose q(DELTA) = N / N*(DELTA) >= 1, each pair at alpha.
    undefined : int
        Those with no q(DELTA): a discordance below DELTA (0/1 scores) or the same difference on every item (graded).
    required_n : int or None
        The N that resolves a true gap of DELTA in every adjacent pair where it is defined, each pair at alpha.
    required_n_family : int or None
        The same at the family's planning level (as ``plan`` plans).
    equivalence : dict of str to int
        The adjacent pairs by the four outcomes of the equivalence analysis within +-DELTA (each pair at alpha).
    """

    min_effect: float
    adjacent_pairs: int
    resolved: int
    undefined: int
    required_n: int | None
    required_n_family: int | None
    equivalence: dict[str, int]


@dataclass(frozen=True, repr=False)
class ModelGenerations(Result):
    """One model's split of the variance of its item means into generation noise and items (method of moments).

    Attributes
    ----------
    generations : float
        Mean generations per item, K.
    fewest, most : int
        The fewest and the most generations of one of its items.
    within_variance : float
        sigma_w^2, the per-generation noise (the mean of the items' sample variances over their generations).
    between_variance : float
        sigma_b^2 = the variance of the item means - mean_i(s_i^2 / K_i); may be negative (reported as it is).
    generation_share : float or None
        within_part / item_mean_variance (None where the item means do not vary); above 1 where between_variance is
        negative (not distinguishable from 0).
    within_part : float
        mean_i(s_i^2 / K_i): the generation-noise part of the variance of the item means.
    item_mean_variance : float
        The sample variance (divisor N - 1) of the item means: within_part + between_variance.
    """

    generations: float
    fewest: int
    most: int
    within_variance: float
    between_variance: float
    generation_share: float | None
    within_part: float
    item_mean_variance: float


@dataclass(frozen=True, repr=False)
class GenerationSummary(Result):
    """Several generations per item: the split per model, and what more generations could do for the adjacent gaps.

    Attributes
    ----------
    label : str
        What one generation is called in the input ("epoch", the repeat column's name).
    count_low, count_high : int
        The fewest and the most generations of an (item, model) cell.
    binary : bool
        Every generation was scored 0 or 1 (the item means are graded either way).
    models : dict of str to ModelGenerations
        Per model, in rank order.
    adjacent_share_median, adjacent_share_low, adjacent_share_high : float or None
        The median, smallest and largest ``gap_generation_share`` of the adjacent pairs where it is defined: the
        share of the variance of the gap that more generations per item could remove (None without such a pair).
    q_limit_ratio : float or None
        How many times today's q the q of an adjacent pair would at most be with unlimited generations: without
        clusters 1 / (1 - adjacent_share_median) (inf at a share of 1 or more; None without a share); with item
        clusters the adjacent pairs' median of q_clustered_generations_inf / (q / design effect), the
        between-cluster part of the noise not shrinking with generations.
    adjacent_beyond_generations : int
        Adjacent pairs with a gap that no number of generations resolves at this N (q_generations_inf < 1, with
        clusters q_clustered_generations_inf < 1): only more items help them.
    negative_between : int
        Reported pairs whose method-of-moments sigma_item^2 is negative (not distinguishable from 0; taken as 0 for
        the q curve).
    reported_pairs : int
        The pairs reported.
    design_effect_median : float or None
        With item clusters, the adjacent pairs' median design effect (None without clusters or adjacent pairs).
    flat_gaps : int
        Reported pairs whose item-mean differences do not vary (variance 0) although their generations do: their
        p = 0 and q = inf rest on item means that agree by chance.
    """

    label: str
    count_low: int
    count_high: int
    binary: bool
    models: dict[str, ModelGenerations]
    adjacent_share_median: float | None
    adjacent_share_low: float | None
    adjacent_share_high: float | None
    q_limit_ratio: float | None
    adjacent_beyond_generations: int
    negative_between: int
    reported_pairs: int
    design_effect_median: float | None = None
    flat_gaps: int = 0


@dataclass(frozen=True, repr=False)
class ClusterBootstrap(Result):
    """Cluster bootstrap of the unresolved-pair count (clusters resampled, IID inputs held fixed).

    Attributes
    ----------
    n_resamples : int
        Cluster resamples.
    seed : tuple of int
        The seed and the stream key behind them.
    unresolved_count_distribution : dict of str to float
        Share of resamples per unresolved count.
    unresolved_p05, unresolved_p95 : float
        Its 5th and 95th percentiles.
    held_fixed : str
        What is held fixed, in words.
    """

    n_resamples: int
    seed: tuple[int, int]
    unresolved_count_distribution: dict[str, float]
    unresolved_p05: float
    unresolved_p95: float
    held_fixed: str


@dataclass(frozen=True, repr=False)
class ClusterSummary(Result):
    """Cluster diagnostics across the reported pairs (paper Section 6.4, Appendices F and G).

    Attributes
    ----------
    n_clusters : int
        Clusters.
    mean_cluster_size : float
        m-bar = N / G, the mean cluster size.
    weighted_cluster_size : float
        m_w = sum m_g^2 / N, the size-weighted cluster size: the m of the design effect 1 + (m_w - 1) max(ICC, 0)
        (the mean size only when the clusters are equal).
    cluster_sizes : dict of str to int
        Size of each cluster.
    median_icc : float
        Median ICC over the pairs.
    icc_range : tuple of float
        (lowest, highest) ICC.
    unresolved_iid, unresolved_clustered : int
        Unresolved pairs as if the items were independent, and with the design effect.
    bootstrap : ClusterBootstrap or None
        The cluster bootstrap (None without resamples).
    leave_one_cluster_out : dict of str to int or None
        Unresolved count with each cluster left out.
    difficulty_quartiles_median_icc : float or None
        Median ICC with the items clustered by difficulty quartile instead.
    random_clusters_median_icc : float
        Median ICC under random clusters of the same sizes (a null reference).
    alternative_definitions : dict of str to int
        Unresolved count under other cluster definitions.
    """

    n_clusters: int
    mean_cluster_size: float
    weighted_cluster_size: float
    cluster_sizes: dict[str, int]
    median_icc: float
    icc_range: tuple[float, float]
    unresolved_iid: int
    unresolved_clustered: int
    bootstrap: ClusterBootstrap | None
    leave_one_cluster_out: dict[str, int | None]
    difficulty_quartiles_median_icc: float | None
    random_clusters_median_icc: float
    alternative_definitions: dict[str, int]


@dataclass(frozen=True, repr=False)
class Tiers(Result):
    """Letters per model from the all-pairs significance decisions, and the secondary adjacent-break tiers.

    Attributes
    ----------
    adjacent : dict of str to int or None
        Tier number per model from walking down the ranking and starting a new tier after each resolved (q >= 1)
        adjacent pair (it chains: a power view); None without adjacent pairs.
    letters : dict of str to str
        Letters per model: two models share a letter exactly when their difference is not significant under
        ``procedure``.
    procedure : str
        The all-pairs procedure behind the letters.
    significant_pairs, resolved_pairs : int or None
        Counts over all K (K - 1) / 2 pairs, whatever the mode; None in a linear mode above
        ``LINEAR_MODELS`` (leaderboard/memory.py) models (not computed).
    total_pairs : int
        K (K - 1) / 2.
    """

    adjacent: dict[str, int] | None
    letters: dict[str, str]
    procedure: str
    significant_pairs: int | None
    resolved_pairs: int | None
    total_pairs: int


@dataclass(frozen=True, repr=False)
class Verdicts(Result):
    """Unresolved-pair counts under each procedure (the paper's Table 5); None where a procedure does not apply.

    Attributes
    ----------
    fixed_n : int
        Unresolved with each pair at alpha (q < 1).
    bonferroni, holm, benjamini_hochberg : int
        Unresolved in the family under each correction's N* inflation: alpha / m; Holm's step level (conditional on the
        earlier steps rejecting, see :class:`Inflation`); BH's alpha R / m at its R rejections.
    rho_minus, rho_plus : int
        Unresolved at rho-hat -/+ 0.10.
    clustered : int or None
        Unresolved with the design effect (None without clusters).
    anytime_valid : int or None
        Unresolved under the anytime-valid N_av, N < N_av (None for graded scores); a count of failures, unlike the
        headline's count of e-BH significances.
    pairs : int
        The reported pairs.
    """

    _keys: ClassVar[dict[str, str]] = {
        "fixed_n": "fixed-n",
        "benjamini_hochberg": "benjamini-hochberg",
        "rho_minus": "rho-0.10",
        "rho_plus": "rho+0.10",
        "anytime_valid": "anytime-valid",
    }

    fixed_n: int
    bonferroni: int
    holm: int
    benjamini_hochberg: int
    rho_minus: int
    rho_plus: int
    clustered: int | None
    anytime_valid: int | None
    pairs: int


@dataclass(frozen=True, repr=False)
class GapBucket(Result):
    """Unresolved pairs and r = N*/N = 1/q in one abs(delta) bucket (a row of the paper's Table 3).

    Attributes
    ----------
    bucket : str
        The abs(delta) range.
    pairs, unresolved : int
        Pairs in it, and those unresolved.
    r_median, r_worst : float
        Median and largest r = N*/N.
    """

    bucket: str
    pairs: int
    unresolved: int
    r_median: float
    r_worst: float


GAP_BUCKETS = ((0.0, 0.01), (0.01, 0.02), (0.02, 0.05), (0.05, 0.15), (0.15, math.inf))


def resolution_by_gap(pairs: pd.DataFrame) -> tuple[GapBucket, ...]:
    """Unresolved pairs and r = N*/N = 1/q by abs(delta) bucket (the paper's Table 3); empty buckets are left out.

    Parameters
    ----------
    pairs : pandas.DataFrame
        A pair table (columns ``delta``, ``q`` and ``resolved``).

    Returns
    -------
    tuple of GapBucket
        One per non-empty bucket.
    """
    rows = []
    gap = pairs["delta"].abs().to_numpy()
    ratio = np.where(pairs["q"] > 0, 1 / pairs["q"].where(pairs["q"] > 0, np.nan), np.inf)
    for low, high in (*GAP_BUCKETS, (0.0, math.inf)):
        everything = (low, high) == (0.0, math.inf)
        inside = np.ones(gap.size, bool) if everything else (gap > low) & (gap <= high) if low > 0 else gap <= high
        if not inside.any():
            continue
        label = (
            "all"
            if everything
            else (f"<= {high:.0%}" if low == 0 else f"> {low:.0%}" if math.isinf(high) else f"{low:.0%}-{high:.0%}")
        )
        rows.append(
            GapBucket(
                bucket=label,
                pairs=int(inside.sum()),
                unresolved=int((~pairs["resolved"].to_numpy()[inside]).sum()),
                r_median=float(np.median(ratio[inside])),
                r_worst=float(np.max(ratio[inside])),
            )
        )
    return tuple(rows)


#: Each verdict's resolved column of the pair table (clustered: with clusters; anytime-valid: 0/1 scores).
VERDICT_COLUMNS = {
    "fixed_n": "resolved",
    "bonferroni": "resolved_bonferroni",
    "holm": "resolved_holm",
    "benjamini_hochberg": "resolved_bh",
    "rho_minus": "resolved_rho_minus",
    "rho_plus": "resolved_rho_plus",
    "clustered": "resolved_cluster",
    "anytime_valid": "resolved_anytime",
}


def verdict_table(pairs: pd.DataFrame, clusters: ClusterSummary | None) -> Verdicts:
    """Unresolved-pair counts across procedures (the paper's Table 5).

    Parameters
    ----------
    pairs : pandas.DataFrame
        A pair table (the ``resolved*`` columns).
    clusters : ClusterSummary or None
        The cluster diagnostics (None without clusters).

    Returns
    -------
    Verdicts
        The counts.
    """
    counted = {"clustered": clusters is not None, "anytime_valid": "resolved_anytime" in pairs}
    return Verdicts(
        **{
            field: int((~pairs[column].astype(bool)).sum()) if counted.get(field, True) else None
            for field, column in VERDICT_COLUMNS.items()
        },
        pairs=len(pairs),
    )
