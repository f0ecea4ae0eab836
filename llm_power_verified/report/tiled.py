"""The summary-first report of a tiled all-pairs audit: headline lines, and ``_report.json`` beside the band files.

A tiled audit (:func:`~llm_power_verified.leaderboard.tiled_audit.tiled_audit`) writes its pair table as one Parquet
file per band into a folder; what it holds on the client is the summary: the family's and the verdicts' counts, the
adjacent pairs and each model's Holm rank interval and neighbourhood.  :func:`tiled_document` is that summary as a
JSON document, :func:`write_tiled_report` writes it as ``_report.json`` into the same folder, and
:func:`tiled_lines` words it for the terminal.

The document is a file of its own rather than Parquet key-value metadata: the band files are written by the workers
before the rank intervals are known (they need every band's decisions), and one summary beside the files is read
without opening any of them.  Its name starts with an underscore so that dataset readers (pyarrow.dataset,
``pandas.read_parquet(folder)``, Dask, Spark) skip it, as they skip ``_metadata`` and ``_SUCCESS``.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from llm_power_verified.io.escaping import terminal_text
from llm_power_verified.io.output import json_ready, write_chunks
from llm_power_verified.report.machine import pair_records

__all__ = ["REPORT_NAME", "tiled_document", "tiled_lines", "write_tiled_report"]

#: The summary's file name in the dataset's folder (dataset readers skip names starting with "_").
REPORT_NAME = "_report.json"
#: The adjacent pairs' columns the terminal shows.
_ADJACENT_SHOWN = ("rank_a", "model_a", "model_b", "delta", "p_exact", "p_holm", "q", "resolved", "significant")


def tiled_document(result, *, items: int, settings: dict) -> dict:
    """The summary of a tiled audit as a JSON-ready document.

    Parameters
    ----------
    result : TiledAudit
        The tiled audit.
    items : int
        The items the models were scored on.
    settings : dict
        The audit's settings (alpha, power, correction, resamples, seed, min_effect), recorded as given.

    Returns
    -------
    dict
        ``kind``, ``mode``, the counts (``models``, ``items``, ``pairs``, ``bands``, ``files``), ``settings``,
        ``multiplicity`` (family size, BH and e-BH rejections), ``holm_rejections`` (significant pairs under Holm over
        all pairs), ``resolved_pairs``, ``verdicts`` (unresolved pairs per procedure), ``by_gap``, ``adjacent`` (the
        adjacent pairs' rows, every column) and ``ranking`` (one row per model: rank interval, neighbourhood, tier).
        NaN is null and infinities "inf"/"-inf", as in every JSON output.
    """
    by_gap = [
        {"bucket": b.bucket, "pairs": b.pairs, "unresolved": b.unresolved, "r_worst": b.r_worst} for b in result.by_gap
    ]
    return json_ready(
        {
            "kind": "tiled-audit",
            "mode": "all",
            "models": len(result.ranking),
            "items": items,
            "pairs": result.pairs_written,
            "bands": result.bands,
            "files": [f"band-{index:05d}.parquet" for index in range(result.bands)],
            "settings": settings,
            "multiplicity": result.multiplicity,
            "holm_rejections": result.tiers.significant_pairs,
            "resolved_pairs": result.tiers.resolved_pairs,
            "verdicts": result.verdicts,
            "by_gap": by_gap,
            "adjacent": pair_records(result.adjacent),
            "ranking": pair_records(result.ranking.drop(columns=["letters"], errors="ignore")),
        }
    )


def write_tiled_report(document: dict, folder: str | Path) -> Path:
    """Write the summary as ``_report.json`` into the dataset's folder (atomically).

    Parameters
    ----------
    document : dict
        :func:`tiled_document`'s document.
    folder : str or pathlib.Path
        The folder holding the band files.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    return write_chunks(Path(folder) / REPORT_NAME, [orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"])


def tiled_lines(document: dict) -> list[str]:
    """The summary for the terminal: headline counts, the adjacent pairs, each model's interval and neighbourhood.

    Parameters
    ----------
    document : dict
        :func:`tiled_document`'s document.

    Returns
    -------
    list of str
        The lines; names are escaped for the terminal.
    """
    family, verdicts = document["multiplicity"], document["verdicts"]
    pairs = document["pairs"]
    lines = [
        f"tiled all-pairs audit: {document['models']:,} models, {document['items']:,} items, {pairs:,} pairs in "
        f"{document['bands']:,} band files",
        f"family (all pairs): {family['family_size']:,}; rejected: Holm {document['holm_rejections']:,}, "
        f"BH {family['bh_rejections']:,}, e-BH {family['e_bh_rejections']:,}",
        f"resolved at fixed N (exact McNemar): {document['resolved_pairs']:,} of {pairs:,}",
        "unresolved pairs: "
        + ", ".join(f"{name} {count:,}" for name, count in verdicts.items() if name != "pairs" and count is not None),
        "",
        "adjacent pairs:",
        "  " + "  ".join(_ADJACENT_SHOWN),
    ]
    for row in document["adjacent"]:
        lines.append("  " + "  ".join(_cell(row[name]) for name in _ADJACENT_SHOWN))
    lines += [
        "",
        "ranking (Holm rank interval; neighbourhood: the ranks of the models not significantly different):",
        "  rank  model  mean_score  rank_low-rank_high  tied_first-tied_last",
    ]
    for row in document["ranking"]:
        lines.append(
            f"  {row['rank']}  {terminal_text(row['model'])}  {row['mean_score']:.4f}  "
            f"{row['rank_low']}-{row['rank_high']}  {row['tied_first']}-{row['tied_last']}"
        )
    return lines


def _cell(value) -> str:
    """One adjacent-pair cell as text: names escaped, floats to four significant digits."""
    if isinstance(value, str):
        return terminal_text(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
