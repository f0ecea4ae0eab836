"""A tiled audit's summary as a JSON-ready document: what ``TiledAudit.to_dict()`` and ``_report.json`` hold.

One document for the library and the command line: ``TiledAudit.to_dict()``
(:class:`~llm_power_verified.leaderboard.tiled_audit.TiledAudit`) returns it (so that ``io.json_ready(result)`` and
``json.dumps`` take a tiled audit), and :func:`~llm_power_verified.report.tiled.tiled_document` adds the headline's
sentences (worded by the report) for ``_report.json``, whose schema is ``report/tiled_audit.schema.json``.
"""

from __future__ import annotations

import pandas as pd

from llm_power_verified.io.output import json_ready

__all__ = ["TILED_SCHEMA_ID", "band_files", "summary_document"]

#: The ``schema`` member of the document (the id of ``report/tiled_audit.schema.json``).
TILED_SCHEMA_ID = "llm-power-verified/tiled-audit/1"


def band_files(bands: int) -> list[str]:
    """The band files' names, in pair-table order.

    Parameters
    ----------
    bands : int
        The bands.

    Returns
    -------
    list of str
        ``band-00000.parquet`` onwards.
    """
    return [f"band-{index:05d}.parquet" for index in range(bands)]


def _records(frame: pd.DataFrame) -> list[dict]:
    """A frame's rows as JSON-ready dicts (column order kept; NaN null, infinities "inf"/"-inf")."""
    return json_ready(frame.to_dict(orient="records"))


def summary_document(result) -> dict:
    """The JSON-ready summary of a tiled audit.

    Parameters
    ----------
    result : TiledAudit
        The tiled audit.

    Returns
    -------
    dict
        ``schema``, ``kind``, ``mode``, the counts (``models``, ``items``, ``pairs``, ``bands``), ``files``,
        ``pairs_columns`` (the columns every band file holds), ``settings``, ``multiplicity``, ``holm_rejections``
        (significant under Holm over all pairs), ``resolved_pairs``, ``median_rho`` (of every pair, as the headline
        states it), ``smallest_resolvable_gap``, ``verdicts``, ``by_gap``, ``adjacent`` (the adjacent pairs' rows,
        every column) and ``ranking`` (a row per model: Holm rank interval, neighbourhood, tier).
    """
    facts = result.headline
    return json_ready(
        {
            "schema": TILED_SCHEMA_ID,
            "kind": "tiled-audit",
            "mode": "all",
            "models": len(result.ranking),
            "items": result.n_items,
            "pairs": result.pairs_written,
            "bands": result.bands,
            "files": band_files(result.bands),
            "pairs_columns": list(result.pairs_columns),
            "settings": result.settings,
            "multiplicity": result.multiplicity,
            "holm_rejections": result.tiers.significant_pairs,
            "resolved_pairs": result.tiers.resolved_pairs,
            "median_rho": facts.median_rho,
            "smallest_resolvable_gap": facts.smallest_resolvable_gap,
            "verdicts": result.verdicts,
            "by_gap": [
                {"bucket": b.bucket, "pairs": b.pairs, "unresolved": b.unresolved, "r_worst": b.r_worst}
                for b in result.by_gap
            ],
            "adjacent": _records(result.adjacent),
            "ranking": _records(result.ranking.drop(columns=["letters"], errors="ignore")),
        }
    )
