"""The memory an audit needs, estimated before it allocates, and the budget it may use.

The ranking tests all K (K - 1) / 2 pairs, so memory grows as the square of the number of models;
:func:`check_audit_memory` refuses an audit over the budget with one line naming the figures and the remedy.
"""

from __future__ import annotations

import os

from llm_power_verified.errors import ArgumentError

__all__ = ["RANKING_BYTES_PER_CELL", "audit_memory", "check_audit_memory", "memory_budget", "ranking_memory"]

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


def audit_memory(models: int, items: int, mode: str, family: str, streamed: bool) -> int:
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

    Returns
    -------
    int
        Bytes.
    """
    every = models * (models - 1) // 2
    reported = every if mode == "all" else models - 1
    family_only = every if family == "all" and mode != "all" else 0
    return (
        ranking_memory(models)
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


def check_audit_memory(models: int, items: int, mode: str, family: str, streamed: bool) -> None:
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

    Raises
    ------
    ArgumentError
        One line with the figures and the remedy (stream the pair table, or audit fewer models).
    """
    need = audit_memory(models, items, mode, family, streamed)
    budget, reason = memory_budget()
    if need <= budget:
        return
    if not streamed and audit_memory(models, items, mode, family, True) <= budget:
        remedy = "stream the pair table instead (--format parquet --out FILE, or stream_audit)"
    else:
        most = int((budget / ranking_memory(1)) ** 0.5)
        remedy = f"audit fewer models at once (about {most:,} fit)"
    raise ArgumentError(
        f"auditing {models:,} models x {items:,} items (mode {mode}) needs about {need / 1e9:,.1f} GB, over the "
        f"{budget / 1e9:,.1f} GB this run may use ({reason}): the ranking tests all {models * (models - 1) // 2:,} "
        f"pairs, so memory grows as the square of the number of models; {remedy}"
    )
