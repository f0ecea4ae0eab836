"""The audit's summaries across pairs, as typed frozen results.

:class:`Multiplicity` (the declared family, its N* inflations and rejections),
:class:`ClusterSummary` (ICC, design effect and the cluster checks),
:class:`Tiers`, :class:`Verdicts` (the paper's Table 5 row) and
:class:`GapBucket` (one row of its Table 3).  ``to_dict()`` gives the keys of
the JSON report.
"""

from __future__ import annotations

from dataclasses import dataclass

from llm_power_verified.results import Result

__all__ = ["ClusterBootstrap", "ClusterSummary", "GapBucket", "Inflation", "Multiplicity", "Tiers", "Verdicts"]


@dataclass(frozen=True, repr=False)
class Inflation(Result):
    """N* inflation factors of the declared family: N*_family = factor x N*.

    ``holm`` is per pair (alpha / (m - k + 1) at step k), so it is described, not a number.
    """

    bonferroni: float
    sidak: float
    bh: float
    holm: str


@dataclass(frozen=True, repr=False)
class Multiplicity(Result):
    """The declared multiplicity family and what it does to the verdicts."""

    family: str
    family_size: int
    arbiter: str
    inflation: Inflation
    bh_rejections: int
    bh_level: float
    e_bh_rejections: int | None


@dataclass(frozen=True, repr=False)
class ClusterBootstrap(Result):
    """Cluster bootstrap of the unresolved-pair count (clusters resampled, IID inputs held fixed)."""

    n_resamples: int
    seed: tuple[int, int]
    unresolved_count_distribution: dict[str, float]
    unresolved_p05: float
    unresolved_p95: float
    held_fixed: str


@dataclass(frozen=True, repr=False)
class ClusterSummary(Result):
    """Cluster diagnostics across the reported pairs (paper Section 6.4, Appendices F and G)."""

    n_clusters: int
    mean_cluster_size: float
    cluster_sizes: dict[str, int]
    median_icc: float
    icc_range: tuple[float, float]
    unresolved_iid: int
    unresolved_clustered: int
    bootstrap: ClusterBootstrap | None
    leave_one_cluster_out: dict[str, int]
    difficulty_quartiles_median_icc: float | None
    random_clusters_median_icc: float
    alternative_definitions: dict[str, int]


@dataclass(frozen=True, repr=False)
class Tiers(Result):
    """Letters per model from the all-pairs significance decisions (``procedure``), and the secondary adjacent-break tiers.

    ``letters``: two models share a letter exactly when their difference is not
    significant under ``procedure``.  ``adjacent``: tier number from walking
    down the ranking and starting a new tier after each resolved (q >= 1)
    adjacent pair; None without adjacent pairs.  It chains and is a power view.
    ``significant_pairs`` and ``resolved_pairs`` count all K (K - 1) / 2 pairs,
    whatever the mode.
    """

    adjacent: dict[str, int] | None
    letters: dict[str, str]
    procedure: str
    significant_pairs: int
    resolved_pairs: int
    total_pairs: int


@dataclass(frozen=True, repr=False)
class Verdicts(Result):
    """Unresolved-pair counts under each procedure (the paper's Table 5); None where a procedure does not apply."""

    _keys = {"fixed_n": "fixed-n", "benjamini_hochberg": "benjamini-hochberg", "rho_minus": "rho-0.10",
             "rho_plus": "rho+0.10", "anytime_valid": "anytime-valid"}

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
    """Unresolved pairs and r = N*/N = 1/q in one |delta| bucket (a row of the paper's Table 3)."""

    bucket: str
    pairs: int
    unresolved: int
    r_median: float
    r_worst: float
