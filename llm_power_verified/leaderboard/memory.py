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

from llm_power_verified.errors import ArgumentError

__all__ = [
    "LINEAR_MODELS",
    "RANKING_BYTES_PER_CELL",
    "all_pairs_computed",
    "audit_memory",
    "check_audit_memory",
    "memory_budget",
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


def audit_memory(models: int, items: int, mode: str, family: str, streamed: bool, binary: bool = True) -> int:
    """Estimated peak bytes of an audit: the ranking's K x K tables, copies of the score matrix, the pair rows kept.

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

    Returns
    -------
    int
        Bytes.

    Examples
    --------
    >>> f"{audit_memory(20_000, 3, 'adjacent', 'adjacent', False) / 1e9:.2f} GB"
    '0.33 GB'
    >>> f"{audit_memory(20_000, 3, 'adjacent', 'all', False) / 1e9:.1f} GB"
    '28.8 GB'
    """
    every = models * (models - 1) // 2
    reported = every if mode == "all" else models - 1
    family_only = every if family == "all" and mode != "all" else 0
    quadratic = all_pairs_computed(models, mode, family)
    return (
        (
            ranking_memory(models)
            if quadratic
            else _LINEAR_MODEL_BYTES * models + _BLOCK_BYTES + 8 * (not binary) * models * items
        )
        + 24 * models * items
        + (_KEPT_PAIR_BYTES if streamed else _PAIR_ROW_BYTES) * reported
        + _FAMILY_PAIR_BYTES * family_only
    )


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


def check_audit_memory(models: int, items: int, mode: str, family: str, streamed: bool, binary: bool = True) -> None:
    """Refuse, before allocating, an audit whose estimated memory exceeds the budget.

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
        0/1 scores.

    Raises
    ------
    ArgumentError
        One line with the figures and the remedy (stream the pair table, or audit fewer models).
    """
    need = audit_memory(models, items, mode, family, streamed, binary)
    budget, reason = memory_budget()
    if need <= budget:
        return
    quadratic = all_pairs_computed(models, mode, family)
    if not streamed and audit_memory(models, items, mode, family, True, binary) <= budget:
        remedy = "stream the pair table instead (--format parquet --out FILE, or stream_audit)"
    elif quadratic:
        most = int((budget / ranking_memory(1)) ** 0.5)
        remedy = f"audit fewer models at once (about {most:,} fit)"
    else:
        remedy = "audit fewer models or items at once"
    if quadratic:
        linear = (
            f" (mode and family adjacent or reference compute nothing over all pairs above {LINEAR_MODELS:,} models)"
        )
        why = (
            f"the ranking tests all {models * (models - 1) // 2:,} pairs, so memory grows as the square of the number "
            f"of models{linear if models > LINEAR_MODELS else ''}; {remedy}"
        )
    else:
        why = f"the scores and the {models - 1:,} reported pairs alone need that; {remedy}"
    raise ArgumentError(
        f"auditing {models:,} models x {items:,} items (mode {mode}) needs about {need / 1e9:,.1f} GB, over the "
        f"{budget / 1e9:,.1f} GB this run may use ({reason}): {why}"
    )
