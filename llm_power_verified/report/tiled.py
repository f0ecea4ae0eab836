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
from llm_power_verified.io.output import write_chunks
from llm_power_verified.report.cells import plural
from llm_power_verified.report.headline import headline_lines
from llm_power_verified.report.view import ROW_LIMIT

__all__ = ["REPORT_NAME", "tiled_document", "tiled_lines", "write_tiled_report"]

#: The summary's file name in the dataset's folder (dataset readers skip names starting with "_").
REPORT_NAME = "_report.json"
#: The adjacent pairs' columns the terminal shows.
_ADJACENT_SHOWN = ("rank_a", "model_a", "model_b", "delta", "p_exact", "p_holm", "q", "resolved", "significant")


def tiled_document(result) -> dict:
    """The summary of a tiled audit as a JSON-ready document: what ``_report.json`` holds.

    Parameters
    ----------
    result : TiledAudit
        The tiled audit.

    Returns
    -------
    dict
        ``result.to_dict()`` (:func:`~llm_power_verified.leaderboard.tile_document.summary_document`) with the
        headline's sentences after ``mode``: the in-memory audit's headline
        (:func:`~llm_power_verified.report.headline.headline_lines`) of the same facts.  The schema is
        ``report/tiled_audit.schema.json``.
    """
    summary = result.to_dict()
    head = {key: summary.pop(key) for key in ("schema", "kind", "mode")}
    return {**head, "headline": headline_lines(result.headline), **summary}


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


def tiled_lines(document: dict, pairs: str = "top", limit: int = ROW_LIMIT) -> list[str]:
    """The summary for the terminal: the headline, counts, the adjacent pairs and each model's neighbourhood.

    Parameters
    ----------
    document : dict
        :func:`tiled_document`'s document.
    pairs : {"top", "all", "none"}, default "top"
        The adjacent pairs and ranking rows listed: at most ``limit`` of each (the top of the ranking), every one, or
        none; ``_report.json`` holds them all.
    limit : int, default ``ROW_LIMIT``
        The "top" limit.

    Returns
    -------
    list of str
        The lines; names are escaped for the terminal.
    """
    family, verdicts = document["multiplicity"], document["verdicts"]
    total = document["pairs"]
    lines = [
        *document["headline"],
        "",
        f"tiled all-pairs audit: {document['models']:,} models, {document['items']:,} items, {plural(total, 'pair')} "
        f"in {plural(document['bands'], 'band file')}",
        f"family (all pairs): {family['family_size']:,}; rejected: Holm {document['holm_rejections']:,}, "
        f"BH {family['bh_rejections']:,}, e-BH {family['e_bh_rejections']:,}",
        f"resolved at fixed N (exact McNemar): {document['resolved_pairs']:,} of {total:,}",
        "unresolved pairs: "
        + ", ".join(f"{name} {count:,}" for name, count in verdicts.items() if name != "pairs" and count is not None),
        "",
    ]
    adjacent = _listed(document["adjacent"], pairs, limit)
    lines += [f"adjacent pairs{_more(adjacent, document['adjacent'], 'adjacent pairs')}:"]
    if adjacent:
        lines.append("  " + "  ".join(_ADJACENT_SHOWN))
    lines += ["  " + "  ".join(_cell(row[name]) for name in _ADJACENT_SHOWN) for row in adjacent]
    ranking = _listed(document["ranking"], pairs, limit)
    lines += [
        "",
        "ranking (Holm rank interval; neighbourhood: the ranks of the models not significantly different)"
        f"{_more(ranking, document['ranking'], 'models')}:",
    ]
    if ranking:
        lines.append("  rank  model  mean_score  rank_low-rank_high  tied_first-tied_last")
    for row in ranking:
        lines.append(
            f"  {row['rank']}  {terminal_text(row['model'])}  {row['mean_score']:.4f}  "
            f"{row['rank_low']}-{row['rank_high']}  {row['tied_first']}-{row['tied_last']}"
        )
    return lines


def _listed(rows: list[dict], pairs: str, limit: int) -> list[dict]:
    """The rows the terminal lists under ``--pairs``."""
    return [] if pairs == "none" else rows if pairs == "all" else rows[:limit]


def _more(listed: list[dict], rows: list[dict], noun: str) -> str:
    """The note of a list cut short: how many are shown, and where the rest are."""
    if len(listed) == len(rows):
        return ""
    return (
        f" ({len(listed):,} of {len(rows):,} {noun} listed; --pairs all lists every one, {REPORT_NAME} in the folder "
        "holds them all)"
    )


def _cell(value) -> str:
    """One adjacent-pair cell as text: names escaped, floats to four significant digits."""
    if isinstance(value, str):
        return terminal_text(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
