"""The accuracies-only audit in every format: terminal table, Markdown, HTML, JSON, JSON Lines, CSV.

The same shape as the per-item report: a headline first (the three verdict
kinds over the adjacent gaps, the scale the accuracies were read on, any
inconsistency between the printed accuracies and N), the models, the pairs,
and a legend that defines every column shown.  Verdicts at an assumed
correlation are labelled as assumptions wherever they appear.
"""

from __future__ import annotations

import html
from collections.abc import Iterator

import numpy as np
import pandas as pd

from llm_power_verified.contract import (
    ACCURACIES_VIEW,
    ASSUMED_VIEW,
    COMPOSITES,
    DROP_ORDER,
    PAIR_LISTS,
    SCHEMA_IDS,
    header,
    legend,
    pair_columns,
)
from llm_power_verified.contract import FORMATS as ALL_FORMATS
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.output import json_ready
from llm_power_verified.leaderboard.accuracies import AccuracyAudit, VerdictCounts
from llm_power_verified.report.html import html_page, sortable_table
from llm_power_verified.report.machine import csv_chunks, json_chunks, jsonl_chunks
from llm_power_verified.report.rendering import fmt
from llm_power_verified.report.table import grid

__all__ = ["ACCURACY_PAIR_COLUMNS", "SUMMARY_SCHEMA", "accuracy_chunks", "accuracy_document", "render_accuracies", "reported_pairs"]

SUMMARY_SCHEMA = SCHEMA_IDS["accuracies"]
FORMATS = tuple(name for name in ALL_FORMATS if name != "parquet")

#: Every pair column the legend defines (the accuracies-only columns, then the two composite cells of the terminal).
#: ``delta`` keeps its accuracies wording here until both audits share one gap column (issue 25, step 4).
ACCURACY_PAIR_COLUMNS = {
    **legend(["delta"] + [item.name for item in pair_columns("accuracies") if item.audits == {"accuracies"}]),
    "delta": "p_a - p_b, the printed gap (model_a is ranked above model_b)",
    **{name: COMPOSITES[name].meaning for name in ("rho_interval", "required_n_range")},
}


def _counts(counts: VerdictCounts, total: int) -> str:
    text = (f"resolved at every admissible rho {counts.resolved}/{total}, unresolved at every one {counts.unresolved}/{total}, "
            f"depends on rho {counts.depends_on_rho}/{total}")
    return text + (f", depends on the p-value order {counts.depends_on_order}/{total}" if counts.depends_on_order else "")


def headline(audit: AccuracyAudit) -> list[str]:
    """The report's first lines (plain text)."""
    table, adjacent = audit.table, int(audit.pairs["adjacent"].sum())
    lines = [(f"{len(table.models)} models, N = {table.n:,} items, accuracies only (read as "
             f"{'percentages' if table.scale == 'percent' else 'fractions'}); alpha {audit.alpha:g}, power {audit.power:g}; "
             f"family '{audit.mode}' (m = {audit.family_size:,}), correction {audit.correction}."),
             f"Adjacent gaps: {_counts(audit.adjacent, adjacent)}.",
             f"Under {audit.correction}: {_counts(audit.adjacent_family, adjacent)}."]
    depends = audit.pairs[audit.pairs["adjacent"] & (audit.pairs["verdict"] == "depends on rho")]
    if len(depends):
        lines.append(f"The 'depends on rho' gaps need the two models to agree on {fmt(float(depends['agreement_critical'].min()))} to "
                     f"{fmt(float(depends['agreement_critical'].max()))} of the items (median "
                     f"{fmt(float(depends['agreement_critical'].median()))}); per-item results would settle them.")
    if audit.adjacent_assumed is not None:
        counts = audit.adjacent_assumed
        lines.append(f"ASSUMING {audit.assumption} (an assumption, not a measurement): resolved {counts.resolved}/{adjacent}, "
                     f"unresolved {counts.unresolved}/{adjacent}" + (f", depends {counts.depends_on_rho}/{adjacent}" if counts.depends_on_rho else "") + ".")
    return lines


def _models_rows(audit: AccuracyAudit) -> tuple[list[str], list[list[str]]]:
    headers = ["rank", "model", "accuracy", "printed", "correct items k (of N)", "line"]
    rows = []
    for _, row in audit.ranking.iterrows():
        low, high = int(row["count_low"]), int(row["count_high"])
        counts = "none: inconsistent" if low > high else f"{low:,}" if low == high else f"{low:,} to {high:,}"
        rows.append([str(row["rank"]), str(row["model"]), f"{row['accuracy']:.6g}", str(row["printed"]), counts, str(row["line"])])
    return headers, rows


def _view(audit: AccuracyAudit) -> list[str]:
    return list(ACCURACIES_VIEW) + (list(ASSUMED_VIEW) if audit.assumption else [])


def _label(column: str, audit: AccuracyAudit) -> str:
    return header(column).format(correction=audit.correction)


def _pair_rows(audit: AccuracyAudit, listed: str) -> pd.DataFrame:
    pairs = reported_pairs(audit)
    if listed == "none":
        return pairs.iloc[:0]
    return pairs if listed == "all" else pairs[pairs["adjacent"]]


#: The critical correlations, reported only inside the admissible interval.
_CRITICAL = ("rho_critical", "rho_critical_family")


def reported_pairs(audit: AccuracyAudit) -> pd.DataFrame:
    """The pair table as every format reports it: a critical correlation outside [rho_min, rho_max] (rho_c = -33
    for a gap resolved at every admissible rho, inf for a zero gap) is not a correlation the pair can have, and is
    reported as none (NaN: null in JSON, empty in CSV, "none" in the text formats); the verdict beside it says
    which way it lies.  :attr:`AccuracyAudit.pairs` keeps the closed form's value."""
    pairs = audit.pairs.copy()
    low, high = pairs["rho_min"].to_numpy(), pairs["rho_max"].to_numpy()
    for column in _CRITICAL:
        if column in pairs:
            value = pairs[column].to_numpy(dtype=float)
            pairs[column] = np.where((value >= low) & (value <= high), value, np.nan)
    return pairs


def _cell(row: pd.Series, column: str) -> str:
    if column == "rho_interval":
        return f"[{row['rho_min']:.3f}, {row['rho_max']:.3f}]"
    if column == "required_n_range":
        return f"{fmt(float(row['required_n_rho_max']))} to {fmt(float(row['required_n_rho_min']))}"
    value = row[column]
    if column in _CRITICAL and pd.isna(value):
        return "none"
    return fmt(value.item() if hasattr(value, "item") else value)


def _fitted(audit: AccuracyAudit, shown: pd.DataFrame, columns: list[str], width: int) -> tuple[list[str], list[list[str]], int]:
    """Terminal rows, dropping columns in :data:`~llm_power_verified.contract.DROP_ORDER` until the table fits ``width`` (the count dropped)."""
    dropped = 0
    while True:
        rows = [[f"#{row['rank_a']}", f"#{row['rank_b']}"] + [_cell(row, c) for c in columns] for _, row in shown.iterrows()]
        table = grid(["A", "B"] + [_label(c, audit) for c in columns], rows, False)
        candidates = [c for c in DROP_ORDER if c in columns]
        if max(len(line) for line in table.split("\n")) <= width or not candidates:
            return columns, rows, dropped
        columns = [c for c in columns if c != candidates[0]]
        dropped += 1


def _text(audit: AccuracyAudit, markdown: bool, listed: str, width: int) -> str:
    head = "## " if markdown else ""
    lines = [f"{'# ' if markdown else ''}Resolution audit from accuracies only: {audit.table.source}", ""]
    lines += [f"- {line}" if markdown else line for line in headline(audit)]
    lines += [f"note: {note}" for note in audit.notes]
    lines += ["", f"{head}Models", grid(*_models_rows(audit), markdown)]
    shown, view = _pair_rows(audit, listed), _view(audit)
    # The terminal names models by rank (the model table above maps ranks to names) and folds each interval into one
    # cell, so that the table stays narrow; Markdown, HTML and the machine formats keep names and every column.
    compact = [c for c in view if c not in ("rho_min", "rho_max", "required_n_rho_min", "required_n_rho_max")]
    columns = view if markdown else ["delta", "rho_interval", "required_n_range"] + compact[1:]
    if len(shown):
        dropped = 0
        if markdown:
            rows = [[str(row["model_a"]), str(row["model_b"])] + [_cell(row, c) for c in columns] for _, row in shown.iterrows()]
        else:
            columns, rows, dropped = _fitted(audit, shown, columns, width)
        more = f" ({dropped} more column{'s' if dropped > 1 else ''} with a wider --width or --format markdown)" if dropped else ""
        lines += ["", f"{head}Pairs" + ("" if listed == "all" else " (adjacent; --pairs all lists every pair)") + more,
                  grid(["A", "B"] + [_label(c, audit) for c in columns], rows, markdown)]
    legend = [f"{'- ' if markdown else ''}{_label(c, audit)}: {ACCURACY_PAIR_COLUMNS[c]}" for c in columns]
    lines += ["", f"{head}Legend", *([] if markdown else ["A, B: the models' ranks in the model table"]), *legend]
    return "\n".join(lines) + "\n"


def accuracy_document(audit: AccuracyAudit) -> dict:
    """The JSON report without its pairs (JSON-ready)."""
    table = audit.table
    return json_ready({
        "schema": SUMMARY_SCHEMA, "source": table.source, "headline": headline(audit),
        "legend": {key: value for key, value in ACCURACY_PAIR_COLUMNS.items() if key in audit.pairs},
        "notes": list(audit.notes),
        "settings": {"mode": audit.mode, "family_size": audit.family_size, "alpha": audit.alpha, "power": audit.power,
                     "correction": audit.correction, "assumption": audit.assumption},
        "data": {"n_items": table.n, "n_models": len(table.models), "scale": table.scale, "scale_reason": table.scale_reason,
                 "consistent": bool(table.consistent.all())},
        "verdicts": {"adjacent": audit.adjacent, "adjacent_family": audit.adjacent_family, "adjacent_assumed": audit.adjacent_assumed},
        "ranking": audit.ranking.to_dict(orient="records"),
    })


def accuracy_chunks(audit: AccuracyAudit, output: str) -> Iterator[bytes]:
    """The audit in a machine format ("json": the whole report; "jsonl", "csv": the pair table)."""
    if output == "json":
        return json_chunks(accuracy_document(audit), reported_pairs(audit))
    if output == "jsonl":
        return jsonl_chunks([reported_pairs(audit)])
    if output == "csv":
        return csv_chunks([reported_pairs(audit)])
    raise ArgumentError(f"output must be 'json', 'jsonl' or 'csv'; got {output!r}")


def _html(audit: AccuracyAudit, listed: str) -> str:
    headers, rows = _models_rows(audit)
    models = sortable_table("models", [(h, h) for h in headers], [[(cell, None) for cell in row] for row in rows])
    view, shown = _view(audit), _pair_rows(audit, listed)
    def cell(row: pd.Series, column: str) -> tuple[str, object]:
        value = row[column]
        value = value.item() if hasattr(value, "item") else value
        return _cell(row, column), None if isinstance(value, str) else value  # text cells sort as text, numbers by value

    pair_rows = [[(str(row["model_a"]), None), (str(row["model_b"]), None)] + [cell(row, c) for c in view] for _, row in shown.iterrows()]
    pairs = sortable_table("pairs", [("model_a", "A"), ("model_b", "B")] + [(c, _label(c, audit)) for c in view], pair_rows)
    legend = "".join(f"<dt>{html.escape(_label(c, audit))}</dt><dd>{html.escape(ACCURACY_PAIR_COLUMNS[c])}</dd>" for c in view)
    parts = ['<section id="headline"><ul>' + "".join(f"<li>{html.escape(line)}</li>" for line in headline(audit)) + "</ul>"
             + "".join(f"<p>note: {html.escape(note)}</p>" for note in audit.notes) + "</section>",
             f'<section id="legend"><h2>Legend</h2><dl>{legend}</dl></section>', "<h2>Models</h2>", models,
             "<h2>Pairs</h2>", f'<div class="scroll">{pairs}</div>']
    return html_page(f"Resolution audit from accuracies only: {audit.table.source}", parts)


def render_accuracies(audit: AccuracyAudit, output: str = "table", *, pairs: str = "top", width: int = 100) -> str:
    """The audit as text: "table", "markdown", "html", or a machine format ("json", "jsonl", "csv") as one string.

    ``pairs``: "top" (the adjacent pairs; the default), "all" or "none": the pairs the text formats list.
    ``width``: the terminal table drops its least needed columns until the pair table fits (Markdown keeps all).
    """
    if output not in FORMATS:
        raise ArgumentError(f"output must be one of {FORMATS}; got {output!r}")
    if pairs not in PAIR_LISTS:
        raise ArgumentError(f"pairs must be 'top', 'all' or 'none'; got {pairs!r}")
    if output in ("table", "markdown"):
        return _text(audit, output == "markdown", pairs, width)
    if output == "html":
        return _html(audit, pairs)
    return b"".join(accuracy_chunks(audit, output)).decode("utf-8")
