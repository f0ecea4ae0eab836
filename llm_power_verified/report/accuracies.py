"""The accuracies-only audit in every format: terminal table, Markdown, HTML, JSON, JSON Lines, CSV.

The same shape as the per-item report: a headline first (the three verdict
kinds over the adjacent gaps, the scale the accuracies were read on, any
inconsistency between the printed accuracies and N), the models, the pairs,
and a legend that defines every column shown.  Verdicts at an assumed
correlation are labelled as assumptions wherever they appear.
"""

from __future__ import annotations

import html
import pandas as pd

from llm_power_verified.contract import (
    ACCURACIES_VIEW,
    ASSUMED_VIEW,
    COMPOSITES,
    DROP_ORDER,
    FORMATS,
    MACHINE_FORMATS,
    PAIR_LISTS,
    header,
)
from llm_power_verified.errors import ArgumentError
from llm_power_verified.leaderboard.accuracies import AccuracyAudit
from llm_power_verified.report.cells import cell as _cell
from llm_power_verified.report.cells import reported_pairs
from llm_power_verified.report.report_data import report_legend
from llm_power_verified.report.headline import headline
from llm_power_verified.report.html import html_page, sortable_table
from llm_power_verified.report.machine import chunks
from llm_power_verified.report.table import grid
from llm_power_verified.report.text import column_width, fitted

__all__ = ["render_accuracies", "text_or_html"]


def _meaning(column: str, audit: AccuracyAudit) -> str:
    """The legend's text of a view entry: the report's legend, or a composite's meaning."""
    return COMPOSITES[column].meaning if column in COMPOSITES else report_legend(audit)[column]


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
    pairs = reported_pairs(audit.pairs)
    if listed == "none":
        return pairs.iloc[:0]
    return pairs if listed == "all" else pairs[pairs["adjacent"]]


def _fitted(audit: AccuracyAudit, shown: pd.DataFrame, columns: list[str], width: int) -> tuple[list[str], list[list[str]], int]:
    """Terminal rows, dropping columns in :data:`~llm_power_verified.contract.DROP_ORDER` until the table fits ``width`` (the count dropped)."""
    names = [[f"#{row['rank_a']}", f"#{row['rank_b']}"] for _, row in shown.iterrows()]
    cells = {c: [_cell(row, c) for _, row in shown.iterrows()] for c in columns}
    fixed = [column_width(header, (name[index] for name in names)) for index, header in enumerate(("A", "B"))]
    chosen = fitted(columns, {c: column_width(_label(c, audit), cells[c]) for c in columns}, fixed, width, DROP_ORDER)
    rows = [name + [cells[c][index] for c in chosen] for index, name in enumerate(names)]
    return chosen, rows, len(columns) - len(chosen)


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
    legend = [f"{'- ' if markdown else ''}{_label(c, audit)}: {_meaning(c, audit)}" for c in columns]
    lines += ["", f"{head}Legend", *([] if markdown else ["A, B: the models' ranks in the model table"]), *legend]
    return "\n".join(lines) + "\n"


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
    legend = "".join(f"<dt>{html.escape(_label(c, audit))}</dt><dd>{html.escape(_meaning(c, audit))}</dd>" for c in view)
    parts = ['<section id="headline"><ul>' + "".join(f"<li>{html.escape(line)}</li>" for line in headline(audit)) + "</ul>"
             + "".join(f"<p>note: {html.escape(note)}</p>" for note in audit.notes) + "</section>",
             f'<section id="legend"><h2>Legend</h2><dl>{legend}</dl></section>', "<h2>Models</h2>", models,
             "<h2>Pairs</h2>", f'<div class="scroll">{pairs}</div>']
    return html_page(f"Resolution audit from accuracies only: {audit.table.source}", parts)


def text_or_html(audit: AccuracyAudit, output: str, *, pairs: str = "top", width: int = 100) -> str:
    """The audit as "table", "markdown" or "html" (the dispatcher, :func:`~.dispatch.render`, checked the options).

    ``pairs``: "top" (the adjacent pairs), "all" or "none": the pairs listed.
    ``width``: the terminal table drops its least needed columns until the pair table fits (Markdown keeps all).
    """
    if output == "html":
        return _html(audit, pairs)
    return _text(audit, output == "markdown", pairs, width)


def render_accuracies(audit: AccuracyAudit, output: str = "table", *, pairs: str = "top", width: int = 100) -> str:
    """The audit as text in any format but Parquet (kept while the CLI moves to :func:`~.dispatch.render`, which checks the
    options once and calls :func:`text_or_html` or :func:`~.machine.chunks` as this does)."""
    if output not in FORMATS or output == "parquet":
        raise ArgumentError(f"output must be one of {FORMATS[:-1]}; got {output!r}")
    if pairs not in PAIR_LISTS:
        raise ArgumentError(f"pairs must be 'top', 'all' or 'none'; got {pairs!r}")
    if output in MACHINE_FORMATS:
        return b"".join(chunks(audit, output)).decode("utf-8")
    return text_or_html(audit, output, pairs=pairs, width=width)
