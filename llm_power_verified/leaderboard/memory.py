"""The memory an audit needs, estimated before it allocates, and the budget it may use.

The ranking tests all K (K - 1) / 2 pairs, so memory grows as the square of the number of models;
:func:`check_audit_memory` refuses an audit over the budget with one line naming the figures and the remedy.

An audit whose mode and family are both linear (adjacent or reference: K - 1 pairs) computes the all-pairs
quantities (the ranking's Holm over all pairs: rank intervals, letters, significant pairs; the resolved count over all
pairs) only up to ``LINEAR_MODELS`` models (:func:`all_pairs_computed`).  Above, it forms no K x K array and its
memory is linear in K: the all-pairs work would be K / 2 times the reported pairs' (10,000 times at 20,000 models),
and K x K tables of 48 bytes a cell (19 GB at 20,000 models) for a report whose letters no one could read; mode "all"
computes them at any K.
"""

from __future__ import annotations

import os

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.leaderboard.blocks import PAIR_BLOCK
from llm_power_verified.leaderboard.cluster_blocks import BLOCK_BYTES as BOOTSTRAP_BLOCK_BYTES
from llm_power_verified.leaderboard.streams import canonical_item_order

__all__ = [
    "LINEAR_MODELS",
    "RANKING_BYTES_PER_CELL",
    "all_pairs_computed",
    "audit_memory",
    "audit_sizes",
    "check_audit_memory",
    "cluster_memory",
    "memory_budget",
    "memory_parts",
    "ranking_memory",
]

#: The most models for which an audit of linear mode and family (adjacent, reference) computes the all-pairs
#: quantities: 2,000 models are 1,999,000 pairs, about 1 s and 190 MB of K x K tables; above, they are skipped.
LINEAR_MODELS = 2_000

#: Peak bytes per cell of the K x K table that the ranking allocates: the pair counts (int64 and the float32 product),
#: the all-pairs indices, p-values and Holm's sort, the adjusted-p table and the letters' boolean tables. Measured 45 at
#: K = 4,000 (697 MiB over the interpreter's own, 3 items, adjacent mode); 48 leaves a margin.
RANKING_BYTES_PER_CELL = 48
#: Peak bytes per reported pair beyond the ranking: a row of the in-memory pair table (every column) and the columns a
#: streamed audit keeps; and per pair of an "all" family that the mode does not report (indices, p-values, Holm's sort).
#: Measured at K = 2,000, mode all, 3 items: 764 and 58 bytes per pair; rounded up (the z_wald column adds 8: 772 <
#: 800). The streamed audit has since kept rho (8 bytes) and, graded, the two variances (16) for the headline's smallest
#: resolvable gap: 58 + 24, rounded up to 88.
_PAIR_ROW_BYTES, _KEPT_PAIR_BYTES, _FAMILY_PAIR_BYTES = 800, 88, 48
#: Without the all-pairs quantities (:func:`all_pairs_computed` False): peak bytes per model beyond its pair row (the
#: ranking's row, pair indices, the family's keys, the packed scores, the concatenation of the pair table) and a block
#: of pairs' working memory (the paired bootstrap's resamples x PAIR_BLOCK). Measured at 20,000 models x 3 items, mode
#: adjacent: 2.5 KB per model with the 800 of its row and no resamples, 125 MB more with 500; rounded up.
_LINEAR_MODEL_BYTES, _BLOCK_BYTES = 2_000, 256 << 20
#: A bootstrap block is at most this many float64 arrays of resamples x its pairs (so at most that of all pairs).
_BLOCK_ARRAYS = 16
#: Bytes per score cell the audit adds to the matrix it is given (which the budget already counts as in use): putting
#: items and models in canonical order gathers the float64 scores once (``np.ix_``) while the caller still holds
#: them: one copy, 8 bytes a cell (16 were measured from 200 x 2,000 to 3,000 x 10,000 when the rows and then the
#: columns were gathered in two steps); a matrix already in canonical order adds none of it.
SCORE_COPY_BYTES = 8
#: Memory an audit adds whatever its size: resident, up to 60 MB measured after a first audit in the process (the exact
#: tests' caches, lazily imported modules); in address space (what an address-space limit counts), up to 150 MB more
#: than the resident growth (graded, 3,000 x 5,000: the threads' malloc arenas of 64 MB and stacks of 8 MB). The
#: estimate is the parts' sum times 1 + ``MARGIN`` plus ``FIXED_BYTES``: over every resident and address-space growth
#: measured (tests/leaderboard/test_memory_estimate.py).
FIXED_BYTES, MARGIN = 160 << 20, 0.10
#: Peak bytes of the clustered diagnostics (:class:`~llm_power_verified.power.clustering.ClusterStatistics`, two
#: alive at once: the given labels' and an alternative definition's). Graded scores keep the per-cluster cross products
#: (clusters x K x K float64) three at once (the statistics', an alternative's per-cluster products and their stack);
#: whole-number scores keep instead a copy of the scores grouped by cluster (at most 8 bytes a cell) and form each
#: pair's products in parts (a K x K product of one cluster, or three arrays of ``_PRODUCT_PART`` values). Per
#: cluster and pair of a block: the arrays alive at once (sums of D and D^2, the cross-product gathers, the counts
#: and weights of leave-one-cluster-out). The clusters x items indicator is formed for the cluster sums.
_CROSS_COPIES, _GROUPED_COPIES, _CLUSTER_PAIR_ARRAYS, _PRODUCT_PART = 3, 2, 8, 3 * 8 << 22


def all_pairs_computed(models: int, mode: str, family: str) -> bool:
    """Whether an audit computes the quantities over all K (K - 1) / 2 pairs (the module notes).

    Parameters
    ----------
    models : int
        K, the models.
    mode : {"adjacent", "all", "reference"}
        The pairs reported.
    family : {"adjacent", "all", "reference"}
        The declared family.

    Returns
    -------
    bool
        True for mode or family "all", or at most ``LINEAR_MODELS`` models.

    Examples
    --------
    >>> all_pairs_computed(20_000, "adjacent", "adjacent"), all_pairs_computed(20_000, "adjacent", "all")
    (False, True)
    """
    return mode == "all" or family == "all" or models <= LINEAR_MODELS


def ranking_memory(n_models: int) -> int:
    """Estimated peak bytes of :func:`~llm_power_verified.leaderboard.ranking.model_table` and the all-pairs counts.

    The estimate grows as K^2.

    Parameters
    ----------
    n_models : int
        K.

    Returns
    -------
    int
        Bytes.

    Examples
    --------
    >>> f"{ranking_memory(20_000) / 1e9:.1f} GB"
    '19.2 GB'
    """
    return RANKING_BYTES_PER_CELL * n_models * n_models


def cluster_memory(
    models: int, items: int, clusters: int, pairs: int, n_cluster_resamples: int = 0, binary: bool = True
) -> int:
    """Estimated peak bytes of the clustered diagnostics (ICC, leave-one-cluster-out, alternatives, bootstrap).

    Parameters
    ----------
    models : int
        K, the models.
    items : int
        N, the items.
    clusters : int
        G, the distinct cluster labels (0: no clusters).
    pairs : int
        The reported pairs (their per-cluster sums are formed a block of ``PAIR_BLOCK`` pairs at a time).
    n_cluster_resamples : int, default 0
        R, the cluster bootstrap's resamples (its blocks take at most ``cluster_blocks.BLOCK_BYTES``).
    binary : bool, default True
        Whole-number scores (no clusters x K x K products; see the module's constants).

    Returns
    -------
    int
        Bytes: G x K x K cross products (graded) or grouped copies of the scores (whole numbers), G x block pair
        arrays, the G x N indicator, the bootstrap's blocks and weights.

    Examples
    --------
    >>> f"{cluster_memory(200, 3_000, 3_000, 19_900) / 1e9:.1f} GB"
    '4.0 GB'
    >>> f"{cluster_memory(500, 12_032, 14, 499, 1000) / 1e9:.2f} GB"
    '0.26 GB'
    """
    if not clusters:
        return 0
    block = min(pairs, PAIR_BLOCK)
    # A block never holds more than its resamples x pairs (up to 16 float64 arrays of them): small audits stay small.
    bootstrap_block = min(BOOTSTRAP_BLOCK_BYTES, _BLOCK_ARRAYS * 8 * n_cluster_resamples * pairs)
    bootstrap = bootstrap_block + 8 * n_cluster_resamples * clusters if n_cluster_resamples else 0
    if binary:
        products = 8 * _GROUPED_COPIES * items * models + max(8 * models * models, _PRODUCT_PART)
    else:
        products = 8 * _CROSS_COPIES * clusters * models * models
    return products + 8 * clusters * (_CLUSTER_PAIR_ARRAYS * block + items + models) + bootstrap


def audit_sizes(matrix, n_resamples: int, n_cluster_resamples: int) -> dict:
    """The keywords of :func:`check_audit_memory` that describe a matrix and the audit's resamples.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores.
    n_resamples : int
        The paired bootstrap's resamples.
    n_cluster_resamples : int
        The cluster bootstrap's resamples.

    Returns
    -------
    dict
        ``clusters`` (distinct labels, 0 without), ``n_resamples``, ``n_cluster_resamples`` (0 without clusters) and
        ``ordered`` (items and models already in the canonical order of ``streams.canonical_order``: no copy).
    """
    clusters = 0 if matrix.clusters is None else len(set(matrix.clusters))
    rows = canonical_item_order(matrix.item_ids)
    names = np.asarray(matrix.models, dtype=object).astype(str)
    ordered = bool(np.all(rows == np.arange(rows.size)) and np.all(names[:-1] <= names[1:]))
    return {
        "clusters": clusters,
        "n_resamples": n_resamples,
        "n_cluster_resamples": n_cluster_resamples if clusters else 0,
        "ordered": ordered,
    }


def memory_parts(
    models: int,
    items: int,
    mode: str,
    family: str,
    streamed: bool,
    binary: bool = True,
    *,
    clusters: int = 0,
    n_resamples: int | None = None,
    n_cluster_resamples: int = 0,
    ordered: bool = False,
) -> dict[str, int]:
    """The parts of :func:`audit_memory`, in bytes, by what holds them.

    Parameters
    ----------
    models, items : int
        K and N.
    mode, family : str
        The audit's mode and family.
    streamed : bool
        The pair table goes to a sink block by block.
    binary : bool, default True
        0/1 scores.
    clusters : int, default 0
        Distinct cluster labels (0: none).
    n_resamples : int, optional
        The paired bootstrap's resamples (None: counted as some).
    n_cluster_resamples : int, default 0
        The cluster bootstrap's resamples.
    ordered : bool, default False
        The matrix is already in canonical order (no reordering copy).

    Returns
    -------
    dict of str to int
        Bytes by what holds them.
    """
    every = models * (models - 1) // 2
    reported = every if mode == "all" else models - 1
    family_only = every if family == "all" and mode != "all" else 0
    block = _BLOCK_BYTES if n_resamples is None else min(_BLOCK_BYTES, _BLOCK_ARRAYS * 8 * n_resamples * reported)
    parts = {
        "copies of the score matrix": (0 if ordered else SCORE_COPY_BYTES) * models * items,
        "the pair table": (_KEPT_PAIR_BYTES if streamed else _PAIR_ROW_BYTES) * reported
        + _FAMILY_PAIR_BYTES * family_only,
    }
    at_once = f"{clusters:,} clusters x {min(reported, PAIR_BLOCK):,} pairs at once"
    products = "" if binary else f" and {clusters:,} x {models:,} x {models:,} cross products"
    parts[f"the clusters' per-pair sums ({at_once}){products}"] = cluster_memory(
        models, items, clusters, reported, n_cluster_resamples, binary
    )
    if all_pairs_computed(models, mode, family):
        parts[f"the {models:,} x {models:,} arrays over all pairs"] = ranking_memory(models)
        parts["the bootstrap's blocks"] = block
    else:
        parts["per-model rows and the bootstrap's blocks"] = (
            _LINEAR_MODEL_BYTES * models + block + 8 * (not binary) * models * items
        )
    return parts


def audit_memory(
    models: int,
    items: int,
    mode: str,
    family: str,
    streamed: bool,
    binary: bool = True,
    *,
    clusters: int = 0,
    n_resamples: int | None = None,
    n_cluster_resamples: int = 0,
    ordered: bool = False,
) -> int:
    """Estimated peak bytes an audit adds to the score matrix it is given (an upper bound with a margin).

    The matrix itself is not counted: :func:`memory_budget` counts it as in use.

    Parameters
    ----------
    models : int
        K, the models.
    items : int
        N, the items.
    mode : {"adjacent", "all", "reference"}
        The pairs reported.
    family : {"adjacent", "all", "reference"}
        The declared family.
    streamed : bool
        Whether the pair table is streamed (only the summary columns kept).
    binary : bool, default True
        0/1 scores (graded scores in a linear mode keep a centred copy of the scores, 8 bytes a cell).
    clusters : int, default 0
        G, the item clusters (0: none).
    n_resamples : int, optional
        The paired bootstrap's resamples; None counts its blocks.
    n_cluster_resamples : int, default 0
        The cluster bootstrap's resamples.
    ordered : bool, default False
        Whether the matrix is already in canonical order (then it is not copied).

    Returns
    -------
    int
        Bytes: the parts' sum (``memory_parts``) times 1 + ``MARGIN``, plus ``FIXED_BYTES``.

    Examples
    --------
    >>> f"{audit_memory(20_000, 3, 'adjacent', 'adjacent', False) / 1e9:.2f} GB"
    '0.53 GB'
    >>> f"{audit_memory(20_000, 3, 'adjacent', 'all', False) / 1e9:.1f} GB"
    '32.2 GB'
    """
    parts = memory_parts(
        models,
        items,
        mode,
        family,
        streamed,
        binary,
        clusters=clusters,
        n_resamples=n_resamples,
        n_cluster_resamples=n_cluster_resamples,
        ordered=ordered,
    )
    return int(sum(parts.values()) * (1 + MARGIN)) + FIXED_BYTES


def memory_budget() -> tuple[int, str]:
    """The bytes an audit may use, and why.

    Returns
    -------
    budget : int
        Half of the machine's memory, or less when an address-space limit (ulimit -v) leaves less.
    reason : str
        Which, in words.
    """
    try:
        budget, reason = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2, "half of this machine's memory"
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): assume 16 GB
        budget, reason = 8 << 30, "half of an assumed 16 GB"
    try:
        # Optional dependency: the resource module exists on Unix only.
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        with open("/proc/self/statm") as status:
            in_use = int(status.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return budget, reason
    if limit != resource.RLIM_INFINITY and limit - in_use < budget:
        return max(limit - in_use, 0), "what the address-space limit (ulimit -v) leaves"
    return budget, reason


def _most_models(budget: int, items: int, mode: str, family: str, streamed: bool, binary: bool, sizes) -> int:
    """The most models whose audit's estimate fits the budget (a bisection; the estimate grows with the models)."""
    low, high = 1, 2
    while audit_memory(high, items, mode, family, streamed, binary, **sizes) <= budget:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        fits = audit_memory(middle, items, mode, family, streamed, binary, **sizes) <= budget
        low, high = (middle, high) if fits else (low, middle)
    return low


def check_audit_memory(
    models: int, items: int, mode: str, family: str, streamed: bool, binary: bool = True, **sizes
) -> None:
    """Refuse, before allocating, an audit whose estimated memory exceeds the budget.

    Parameters
    ----------
    models, items, mode, family, streamed, binary
        As :func:`audit_memory` takes them.
    **sizes
        Its keywords: ``clusters``, ``n_resamples``, ``n_cluster_resamples``, ``ordered``.

    Raises
    ------
    ArgumentError
        One line with the figures, the largest parts and the remedy (stream the pair table, coarser clusters, mode
        adjacent, or fewer models).
    """
    need = audit_memory(models, items, mode, family, streamed, binary, **sizes)
    budget, reason = memory_budget()
    if need <= budget:
        return
    parts = sorted(memory_parts(models, items, mode, family, streamed, binary, **sizes).items(), key=lambda p: -p[1])
    largest = " and ".join(f"{name} ({size / 1e9:,.2f} GB)" for name, size in parts[:2] if size >= need / 10)
    quadratic = all_pairs_computed(models, mode, family)
    clusters, remedies = sizes.get("clusters", 0), []
    if not streamed and audit_memory(models, items, mode, family, True, binary, **sizes) <= budget:
        remedies.append("stream the pair table (--format parquet --out FILE, or stream_audit)")
    if clusters and "clusters' per-pair" in parts[0][0]:
        remedies.append(
            f"give --cluster-column a label with fewer than {clusters:,} values (a cluster groups many items)"
        )
    if (
        sizes.get("n_resamples", 1)
        and audit_memory(models, items, mode, family, streamed, binary, **{**sizes, "n_resamples": 0}) <= budget
    ):
        remedies.append("--n-resamples 0 (no paired bootstrap)")
    if mode == "all" and audit_memory(models, items, "adjacent", "adjacent", streamed, binary, **sizes) <= budget:
        remedies.append("use --mode adjacent")
    if quadratic:
        linear = (
            f"; mode and family adjacent or reference compute nothing over all pairs above {LINEAR_MODELS:,} models"
        )
        most = _most_models(budget, items, mode, family, streamed, binary, sizes)
        if most >= 2:
            remedies.append(
                f"audit fewer models at once (about {most:,} fit{linear if models > LINEAR_MODELS else ''})"
            )
        else:
            remedies.append(f"give the run more memory (ulimit -v){linear if models > LINEAR_MODELS else ''}")
    else:
        remedies.append("audit fewer models or items at once")
    label = f", {clusters:,} clusters" if clusters else ""
    raise ArgumentError(
        f"auditing {models:,} models x {items:,} items (mode {mode}{label}) needs about {need / 1e9:,.1f} GB, over the "
        f"{budget / 1e9:,.1f} GB this run may use ({reason}): mostly {largest}; to fit, {', or '.join(remedies)}"
    )
