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

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from llm_power_verified._validation import ceil_sample_size
from llm_power_verified.inference.margin import EQUIVALENCE_OUTCOMES
from llm_power_verified.inference.multiplicity import guaranteed_level, inflation_at_level
from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.memory import LINEAR_MODELS
from llm_power_verified.leaderboard.summaries import GenerationSummary, Tiers
from llm_power_verified.power.correlation import admissible_rho_interval
from llm_power_verified.power.sample_size import minimum_detectable_effect, paired_difference_variance
from llm_power_verified.results import Result

__all__ = [
    "ADJACENT_VERDICTS",
    "IMPRACTICAL_ITEMS",
    "REFERENCE_VERDICTS",
    "Headline",
    "VerdictCount",
    "all_pairs_route",
    "headline_facts",
    "skipped_all_pairs_note",
    "smallest_resolvable_gap",
]

#: The adjacent pairs' verdict columns the headline counts, when the pair table has them.
ADJACENT_VERDICTS = ("significant", "resolved", "significant_clustered", "significant_anytime", "resolved_min_effect")
#: The reference comparisons' verdict columns the headline counts (family "reference"), when the pair table has them.
REFERENCE_VERDICTS = ("significant", "resolved", "significant_clustered", "significant_anytime")
#: An N* above this many items is no practical N: more items than any benchmark holds (the largest hold millions); a
#: near-zero gap (graded scores: a difference of means of about 1e-6) needs that many.
IMPRACTICAL_ITEMS = 1_000_000_000


@dataclass(frozen=True, repr=False)
class VerdictCount(Result):
    """k of m: ``count`` pairs with a verdict out of the ``defined`` for which it is defined.

    Attributes
    ----------
    count : int
        Pairs with the verdict.
    defined : int
        Pairs for which it is defined (a decision is None outside the family).
    """

    count: int
    defined: int


@dataclass(frozen=True, repr=False)
class Headline(Result):
    """The facts of a per-item audit's headline (:mod:`llm_power_verified.report.headline` words them).

    Attributes
    ----------
    n_items, n_models : int
        N and K.
    binary : bool
        0/1 scores (False: graded).
    n_clusters : int or None
        Clusters (None without).
    alpha, power : float
        The operating point.
    family : str
        The declared family.
    family_size : int
        m.
    correction : str
        The family's correction.
    adjacent_pairs : int
        The adjacent pairs reported (in mode "reference", only the reference's neighbours in the ranking).
    adjacent : dict of str to VerdictCount
        Per verdict column present (``ADJACENT_VERDICTS``), its count among them.
    total_pairs : int
        All K (K - 1) / 2 pairs.
    significant_pairs, resolved_pairs : int or None
        Those significant (Holm over all pairs) and resolved (q >= 1); None when the audit computes nothing over all
        pairs (:func:`~llm_power_verified.leaderboard.memory.all_pairs_computed`).
    procedure : str
        The all-pairs procedure.
    smallest_resolvable_gap : float
        The MDE at N, at ``median_rho`` and ``mean_score`` (:func:`smallest_resolvable_gap`).
    median_rho : float
        Median observed rho of the reported pairs.
    mean_score : float
        Mean score of all models.
    required_n_all_adjacent : int or None
        The largest N* of the adjacent pairs, each pair at alpha (no multiplicity); None when none is reported, or
        when ``zero_gap_pairs`` of them have a gap of 0 (no N resolves them).
    zero_gap_pairs : int
        Adjacent pairs with a gap of 0.
    adjacent_family_size : int
        K - 1, the adjacent pairs of the whole ranking: the family ``plan`` plans every adjacent gap in.
    adjacent_family_level : float
        The level that guarantees the power in that family under ``correction`` whatever the p-values
        (:func:`~llm_power_verified.inference.multiplicity.guaranteed_level`: alpha / m for Bonferroni, Holm and BH).
    required_n_all_adjacent_family : int or None
        The largest N* of the adjacent pairs at ``adjacent_family_level`` (what ``plan report`` answers for the same
        report); None when ``required_n_all_adjacent`` is.
    min_effect : float or None
        The smallest gap of interest DELTA (``--min-effect``); None without one (and the fields below are empty).
    equivalence : dict of str to int
        The adjacent pairs by the four outcomes of the equivalence analysis at margin DELTA, in the order of
        ``EQUIVALENCE_OUTCOMES`` (empty without DELTA).
    min_effect_undefined : int
        Adjacent pairs whose discordance is below DELTA (0/1 scores; graded: a variance of 0), where q(DELTA) is n/a.
    required_n_min_effect : int or None
        The largest N*(DELTA) of the adjacent pairs where it is defined, each pair at alpha: the N that resolves a
        true gap of DELTA in each of them at its observed discordance; None without DELTA or without such a pair.
    required_n_min_effect_family : int or None
        The same at ``adjacent_family_level``.
    generations : GenerationSummary or None
        With several generations per item, the split and the share of the adjacent gaps' noise more generations
        could remove (:mod:`~llm_power_verified.leaderboard.generations`); None without.
    reference : dict of str to VerdictCount
        Family "reference": per verdict column present (``REFERENCE_VERDICTS``), its count among the K - 1
        comparisons with the reference (empty in the other families); a streamed audit counts the columns it keeps.
    impractical_pairs : int
        Adjacent pairs with a finite N* above ``IMPRACTICAL_ITEMS`` (each pair at alpha): no practical N resolves them.
    hardest_pair : tuple of (str, str) or None
        The adjacent pair with the largest finite N* (None without one, or without model names).
    hardest_gap : float or None
        Its gap, mean score of A minus B.
    hardest_required_n : int or None
        Its N*, each pair at alpha.
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
    significant_pairs: int | None
    resolved_pairs: int | None
    procedure: str
    smallest_resolvable_gap: float
    median_rho: float
    mean_score: float
    required_n_all_adjacent: int | None
    zero_gap_pairs: int
    adjacent_family_size: int
    adjacent_family_level: float
    required_n_all_adjacent_family: int | None
    min_effect: float | None = None
    equivalence: dict[str, int] = field(default_factory=dict)
    min_effect_undefined: int = 0
    required_n_min_effect: int | None = None
    required_n_min_effect_family: int | None = None
    generations: GenerationSummary | None = None
    # Not compared: a streamed audit keeps fewer verdict columns of the reported pairs (pair_table._KEPT has "resolved"
    # but not yet "significant", "significant_anytime"), so its counts are a subset of the in-memory audit's.
    reference: dict[str, VerdictCount] = field(default_factory=dict)
    impractical_pairs: int = 0
    hardest_pair: tuple[str, str] | None = None
    hardest_gap: float | None = None
    hardest_required_n: int | None = None

    @property
    def score_kind(self) -> str:
        """The score kind: "0/1" or "graded"."""
        return "0/1" if self.binary else "graded"


def smallest_resolvable_gap(
    matrix: ScoreMatrix, pairs: pd.DataFrame, alpha: float, power: float
) -> tuple[float, float, float]:
    """The gap resolved at N, at the median observed rho of the reported pairs.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores audited.
    pairs : pandas.DataFrame
        The reported pairs (``rho``; graded: ``variance_a`` and ``variance_b``).
    alpha : float
        Two-sided level, in (0, 1).
    power : float
        Target power, in (alpha, 1).

    Returns
    -------
    mde : float
        The minimum detectable gap.
    median_rho : float
        The median rho used.
    mean_score : float
        The mean score of all models, p.

    Notes
    -----
    Binary: sigma_D^2 from the paper's Eq. 5 at p_A = p_B = p, 2 p (1 - p)(1 - rho); graded: the median variances
    of the two models' scores in place of p (1 - p).  MDE = (z_{1-alpha/2} + z_power) sqrt(sigma_D^2 / N) (Eq. 4,
    ``derivations/wald.py``).
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


def headline_facts(
    matrix: ScoreMatrix,
    *,
    alpha: float,
    power: float,
    family: str,
    family_size: int,
    correction: str,
    n_clusters: int | None,
    reported: pd.DataFrame,
    adjacent: pd.DataFrame,
    tiers: Tiers,
    min_effect: float | None = None,
    generations: GenerationSummary | None = None,
) -> Headline:
    """The :class:`Headline` of a per-item audit.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores audited.
    alpha : float
        Two-sided level, in (0, 1).
    power : float
        Target power, in (alpha, 1).
    family : str
        The declared family.
    family_size : int
        m.
    correction : str
        The family's correction.
    n_clusters : int or None
        Clusters (None without).
    reported : pandas.DataFrame
        The pair rows of the mode (at least ``rho`` and, graded, the variance columns).
    adjacent : pandas.DataFrame
        Those of its rows whose ``adjacent`` column is true (every column).
    tiers : Tiers
        The audit's tiers (the all-pairs counts).
    min_effect : float, optional
        The smallest gap of interest DELTA (the adjacent rows then have its columns).
    generations : GenerationSummary, optional
        The split of several generations per item
        (:class:`~llm_power_verified.leaderboard.generations.GenerationColumns`).

    Returns
    -------
    Headline
        The facts.
    """
    gap, rho, mean = smallest_resolvable_gap(matrix, reported, alpha, power)
    required = adjacent["required_n"].to_numpy(dtype=np.float64) if len(adjacent) else np.empty(0)
    zero_gap = int(np.isinf(required).sum())
    # The family plan plans "every adjacent gap" in: the K - 1 adjacent pairs at the level that guarantees the power
    # (plan.targets.plan_leaderboard: N* times the inflation, then rounded up, in the same order so the two agree).
    family_pairs = max(matrix.n_models - 1, 1)
    level = float(guaranteed_level(correction, family_pairs, alpha))
    inflation = float(inflation_at_level(level, alpha, power))
    family_required = required * inflation
    whole = required.size and not zero_gap
    return Headline(
        n_items=matrix.n_items,
        n_models=matrix.n_models,
        binary=matrix.binary,
        n_clusters=n_clusters,
        alpha=alpha,
        power=power,
        family=family,
        family_size=family_size,
        correction=correction,
        adjacent_pairs=len(adjacent),
        adjacent={column: _count(adjacent, column) for column in ADJACENT_VERDICTS if column in adjacent}
        if len(adjacent)
        else {},
        total_pairs=tiers.total_pairs,
        significant_pairs=tiers.significant_pairs,
        resolved_pairs=tiers.resolved_pairs,
        procedure=tiers.procedure,
        smallest_resolvable_gap=gap,
        median_rho=rho,
        mean_score=mean,
        required_n_all_adjacent=int(ceil_sample_size(float(required.max()))) if whole else None,
        zero_gap_pairs=zero_gap,
        adjacent_family_size=family_pairs,
        adjacent_family_level=level,
        required_n_all_adjacent_family=int(ceil_sample_size(float(family_required.max()))) if whole else None,
        **({} if min_effect is None else _min_effect_facts(adjacent, min_effect, inflation)),
        generations=generations,
        # Family "reference" is mode "reference" (the audit refuses any other pairing): the reported rows are the
        # K - 1 comparisons with the reference.
        reference={column: _count(reported, column) for column in REFERENCE_VERDICTS if column in reported}
        if family == "reference" and len(reported)
        else {},
        **_hardest(adjacent, required),
    )


def _hardest(adjacent: pd.DataFrame, required: np.ndarray) -> dict:
    """The adjacent pairs no practical N resolves, and the one with the largest finite N* (its names, gap and N*)."""
    finite = np.isfinite(required)
    if not finite.any():
        return {}
    at = int(np.flatnonzero(finite)[np.argmax(required[finite])])
    row = adjacent.iloc[at]
    named = "model_a" in adjacent and "model_b" in adjacent
    return {
        "impractical_pairs": int((required[finite] > IMPRACTICAL_ITEMS).sum()),
        "hardest_pair": (str(row["model_a"]), str(row["model_b"])) if named else None,
        "hardest_gap": float(row["delta"]) if "delta" in adjacent else None,
        "hardest_required_n": int(ceil_sample_size(float(required[at]))),
    }


def all_pairs_route(binary: bool, clustered: bool, generations: bool) -> str:
    """The command that tests all pairs where a linear mode skips them, as the report words it.

    Parameters
    ----------
    binary : bool
        0/1 scores (``--tiles`` takes only those).
    clustered : bool
        The items have clusters (``--tiles`` takes none).
    generations : bool
        Several generations per item (``--tiles`` takes none).

    Returns
    -------
    str
        ``audit --mode all --tiles`` and what it does, or ``--mode all`` where tiles do not apply.

    Examples
    --------
    >>> all_pairs_route(True, False, False).split(" (")[0]
    '`audit --mode all --tiles --format parquet --out FOLDER`'
    """
    if binary and not clustered and not generations:
        return (
            "`audit --mode all --tiles --format parquet --out FOLDER` (row bands, optionally on --workers or "
            "--scheduler; writes a folder of Parquet bands and the summary)"
        )
    return (
        "`audit --mode all` (its memory grows as the square of the models; --tiles takes 0/1 scores only, without "
        "clusters or generations)"
    )


def skipped_all_pairs_note(n_models: int, mode: str, route: str) -> str:
    """The note of a linear-mode audit above ``LINEAR_MODELS`` models: what is skipped, why and what computes it.

    Parameters
    ----------
    n_models : int
        K.
    mode : str
        The linear mode ("adjacent" or "reference").
    route : str
        :func:`all_pairs_route`'s command.

    Returns
    -------
    str
        The note.

    Examples
    --------
    >>> "K x K arrays" in skipped_all_pairs_note(2_500, "adjacent", "`audit --mode all`")
    True
    """
    return (
        f"{n_models:,} models, mode {mode}: nothing over all {n_models * (n_models - 1) // 2:,} pairs is computed "
        f"above {LINEAR_MODELS:,} models: an all-pairs pass needs K x K arrays, and this mode keeps memory linear in "
        "the models. So the rank intervals (Holm over all pairs) are n/a, there are no letters, and the significant "
        f"and resolved counts over all pairs are n/a; {route} computes them at this size"
    )


def _min_effect_facts(adjacent: pd.DataFrame, min_effect: float, inflation: float) -> dict:
    """The headline's facts of the smallest gap of interest: the adjacent pairs' outcomes and the N for DELTA."""
    required = adjacent["required_n_min_effect"].to_numpy(dtype=np.float64) if len(adjacent) else np.empty(0)
    undefined = int(np.isnan(required).sum())
    whole = required.size > undefined  # the pairs where a true gap of DELTA is possible at the observed discordance
    required = required[~np.isnan(required)]
    outcomes = adjacent["equivalence"].to_numpy(dtype=object) if len(adjacent) else np.empty(0, dtype=object)
    return {
        "min_effect": float(min_effect),
        "equivalence": {outcome: int((outcomes == outcome).sum()) for outcome in EQUIVALENCE_OUTCOMES},
        "min_effect_undefined": undefined,
        "required_n_min_effect": int(ceil_sample_size(float(required.max()))) if whole else None,
        "required_n_min_effect_family": int(ceil_sample_size(float((required * inflation).max()))) if whole else None,
    }
