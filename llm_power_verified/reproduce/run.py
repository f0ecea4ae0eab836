"""Running the reproduction: every stored printed value and claim recomputed and given a verdict.

See :mod:`.verdicts` for the verdicts.
"""

from __future__ import annotations

import math

from llm_power_verified.errors import ArgumentError
from llm_power_verified.reproduce import (
    pairs_needed,
    pairs_needed_claims,
    pairwise_power,
    resolution_diagnostics,
    resolution_diagnostics_adjustments,
    resolution_diagnostics_claims,
    resolution_diagnostics_claims_adjustments,
    resolution_diagnostics_claims_benchmarks,
    resolution_diagnostics_claims_theory,
    resolution_diagnostics_simulated,
)
from llm_power_verified.reproduce.records import PAPERS, Printed, ReproductionRow
from llm_power_verified.reproduce.verdicts import verdict_of

__all__ = ["claim_rows", "printed_values", "reproduce"]


def _resolution_diagnostics_rows() -> list[Printed]:
    """The main paper's printed values in report order.

    Tables first, in the order the report has always listed them.
    """
    closed, adjusted, simulated = (
        resolution_diagnostics,
        resolution_diagnostics_adjustments,
        resolution_diagnostics_simulated,
    )
    return (
        closed.table_1_rows()
        + closed.lemma_rows()
        + adjusted.multiplicity_rows()
        + closed.tables_6_7_rows()
        + closed.table_11_rows()
        + adjusted.table_4_rows()
        + adjusted.table_9_rows()
        + adjusted.anytime_rows()
        + adjusted.table_5_rows()
        + closed.table_3_rows()
        + simulated.table_2_rows()
        + simulated.table_10_rows()
        + simulated.appendix_b_rows()
    )


def claim_rows(paper: str) -> list[Printed]:
    """The sentence-level claims of one paper ("main" includes the one-page summary's).

    Parameters
    ----------
    paper : {"main", "embedding", "sample-size"}
        The paper's ``--paper`` key.

    Returns
    -------
    list of Printed
        The claims, in report order.
    """
    if paper == "main":
        return (
            resolution_diagnostics_claims.introduction_claims()
            + resolution_diagnostics_claims_theory.theory_claims()
            + resolution_diagnostics_claims.calibration_claims()
            + resolution_diagnostics_claims_benchmarks.oll_v1_claims()
            + resolution_diagnostics_claims_benchmarks.mmlu_pro_claims()
            + resolution_diagnostics_claims_adjustments.multiplicity_and_cluster_claims()
            + resolution_diagnostics_claims_adjustments.anytime_claims()
            + resolution_diagnostics_claims.summary_claims()
        )
    if paper == "sample-size":
        return pairwise_power.sample_size_claims()
    return pairs_needed_claims.embedding_claims()


_TABLES = {
    "main": _resolution_diagnostics_rows,
    "embedding": pairs_needed.embedding_rows,
    "sample-size": pairwise_power.sample_size_rows,
}


def printed_values(paper: str = "all") -> list[Printed]:
    """The stored printed values and claims of one paper ("main", "embedding", "sample-size") or of all.

    Parameters
    ----------
    paper : {"all", "main", "embedding", "sample-size"}, default "all"
        The paper's ``--paper`` key, or "all".

    Returns
    -------
    list of Printed
        The tables' values first, then the claims, paper by paper in report order.

    Raises
    ------
    llm_power_verified.errors.ArgumentError
        For another ``paper``.
    """
    keys = [entry.key for entry in PAPERS]
    if paper != "all" and paper not in keys:
        raise ArgumentError(f"paper must be one of {[*keys, 'all']}; got {paper!r}")
    return [entry for key in (keys if paper == "all" else [paper]) for entry in _TABLES[key]() + claim_rows(key)]


def reproduce(paper: str = "all") -> list[ReproductionRow]:
    """Recompute every stored printed value and compare.

    See :mod:`llm_power_verified.reproduce.verdicts` for the rules.

    Parameters
    ----------
    paper : {"all", "main", "embedding", "sample-size"}, default "all"
        The paper's ``--paper`` key, or "all".

    Returns
    -------
    list of ReproductionRow
        One row per printed value or claim, in the order of :func:`printed_values`.

    Examples
    --------
    >>> from llm_power_verified.reproduce import reproduce
    >>> row = reproduce("sample-size")[0]
    >>> row.printed, round(row.computed, 2), row.verdict
    ('65,920', 131861.18, 'differs')
    """
    rows = []
    for entry in printed_values(paper):
        computed = math.nan if entry.kind == "not-reproducible" else float(entry.compute())
        relative, verdict, reason = verdict_of(entry, computed)
        rows.append(
            ReproductionRow(
                entry.paper.name,
                entry.location,
                entry.quantity,
                entry.inputs,
                entry.printed,
                computed,
                relative,
                verdict,
                reason,
                entry.claim,
            )
        )
    return rows
