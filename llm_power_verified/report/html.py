"""The audit as one self-contained HTML page: headline and legend first, sortable tables, inline SVG figures.

Nothing is fetched: styles, the sorting script and the figures (SVG from
matplotlib, when the ``plots`` extra is installed) are inside the file, and
every text taken from the input (model names, the source) is HTML-escaped, its control and bidirectional
characters shown as escapes (:func:`~llm_power_verified.io.escaping.terminal_text`), as on the terminal.
Click a column header to sort by it (numbers numerically, ``inf`` last).
The script marks ``<body data-ready="ok">`` when it has run, and with the
address fragment ``#selftest`` it sorts the pair table by q and records
``data-selftest="sorted"``: the browser test reads both from the rendered DOM.
"""

from __future__ import annotations

import html
import math

import pandas as pd

from llm_power_verified.contract import VERDICT_RULES, legend
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.escaping import terminal_lines, terminal_text
from llm_power_verified.report.cells import cell, fmt
from llm_power_verified.report.gaps import gaps_section
from llm_power_verified.report.generations import generations_section
from llm_power_verified.report.headline import headline
from llm_power_verified.report.plots import svg_figures
from llm_power_verified.report.sections import details
from llm_power_verified.report.view import (
    PAIR_VIEW,
    accuracy_models,
    accuracy_view,
    label,
    meaning,
    shown_pairs,
    with_adjacent,
)

__all__ = ["HTML_ROW_LIMIT", "html_page", "html_report", "sortable_table"]

#: Pair rows the page lists with pairs="top" (the closest in rank beyond that); the machine formats have all.
HTML_ROW_LIMIT = 5000

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #1a1a1a; line-height: 1.4; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ccc; }
#headline li { margin: .2em 0; } dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }
dt { font-weight: 600; } dd { margin: 0; }
table { border-collapse: collapse; font-size: .85em; margin: .5em 0; }
th, td { border: 1px solid #ddd; padding: .2em .5em; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; cursor: pointer; position: sticky; top: 0; } td.name { text-align: left; }
td.yes { background: #e6f4ea; } td.no { background: #fdecea; } pre { font-size: .8em; overflow-x: auto; }
div.scroll { overflow-x: auto; } figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
"""

_SCRIPT = """
(function () {
  window.addEventListener("error", function (event) { document.body.dataset.errors = String(event.message); });
  function key(cell) {
    var value = cell.getAttribute("data-value");
    if (value === null) { return cell.textContent; }
    if (value === "inf") { return Infinity; } if (value === "-inf") { return -Infinity; }
    if (value === "") { return NaN; }
    return parseFloat(value);
  }
  function sort(table, column, ascending) {
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[column]), y = key(b.cells[column]);
      if (typeof x === "number" && typeof y === "number") {
        if (isNaN(x)) { return 1; } if (isNaN(y)) { return -1; }
        return ascending ? x - y : y - x;
      }
      return ascending ? String(x).localeCompare(String(y)) : String(y).localeCompare(String(x));
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.addEventListener("click", function () {
        var ascending = header.getAttribute("data-order") !== "ascending";
        header.setAttribute("data-order", ascending ? "ascending" : "descending");
        sort(table, column, ascending);
      });
    });
  });
  if (location.hash === "#selftest") {
    var table = document.getElementById("pairs"), headers = table.tHead.rows[0].cells, column = -1;
    for (var i = 0; i < headers.length; i++) { if (headers[i].getAttribute("data-column") === "q") { column = i; } }
    headers[column].click();
    var values = Array.prototype.map.call(table.tBodies[0].rows, function (row) { return key(row.cells[column]); });
    var ordered = values.every(function (value, index) { return index === 0 || !(value < values[index - 1]); });
    document.body.dataset.selftest = ordered ? "sorted" : "unsorted";
  }
  document.body.dataset.ready = "ok";
})();
"""


def _text(value: str) -> str:
    """Text from an input for the page: controls and bidirectional characters as escapes, then HTML-escaped."""
    return html.escape(terminal_text(value))


def _value(value) -> str:
    """The data-value attribute that sorts a cell: the number, "inf"/"-inf", or "" when undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value) if isinstance(value, float) else str(value)


def sortable_table(identifier: str, headers: list[tuple[str, str]], rows: list[list[tuple[str, object]]]) -> str:
    """A sortable HTML table (a click on a header sorts by that column).

    Parameters
    ----------
    identifier : str
        The table's HTML id.
    headers : list of (str, str)
        (column key, label) per column.
    rows : list of list of (str, object)
        Per cell, (text, sort value), the sort value None for a text column.

    Returns
    -------
    str
        The escaped ``<table>`` element.
    """
    head = "".join(f'<th data-column="{_text(key)}">{_text(label)}</th>' for key, label in headers)
    body = []
    for row in rows:
        cells = []
        for text, value in row:
            classes = "name" if value is None else ("yes" if text == "yes" else "no" if text == "no" else "")
            attribute = "" if value is None else f' data-value="{html.escape(_value(value))}"'
            cells.append(f'<td class="{classes}"{attribute}>{_text(text)}</td>')
        body.append(f'<tr class="{identifier[:-1]}">' + "".join(cells) + "</tr>")
    return (
        f'<table class="sortable" id="{identifier}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def html_report(audit, *, figures: bool = True, pairs: str = "top") -> str:
    """An audit as one self-contained HTML page (the dispatcher has checked the options).

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.
    figures : bool, default True
        The inline SVG figures of a per-item audit in memory (they need the ``plots`` extra; without it they are left
        out, with a note).
    pairs : {"top", "all", "none"}, default "top"
        "top" lists at most ``HTML_ROW_LIMIT`` pairs of a per-item audit, the closest in rank (an accuracies-only
        audit's
        adjacent pairs); "all" every pair; "none" none.

    Returns
    -------
    str
        The page.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.leaderboard.audit import audit_leaderboard
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float)
    >>> audit = audit_leaderboard(from_array(scores, models=["x", "y", "z"]), n_resamples=0)
    >>> html_report(audit, figures=False).startswith("<!DOCTYPE html>")
    True
    """
    per_item = audit.kind != "accuracies"
    title = (
        f"Resolution audit: {audit.source}" if per_item else f"Resolution audit from accuracies only: {audit.source}"
    )
    shown = shown_pairs(audit, pairs, HTML_ROW_LIMIT)
    legend_entries = (
        list(_item_legend(audit).items())
        if per_item
        else [(label(audit, c), meaning(audit, c)) for c in accuracy_view(audit)]
    )
    parts = [
        '<section id="headline"><ul>'
        + "".join(f"<li>{_text(line)}</li>" for line in headline(audit))
        + "</ul>"
        + "".join(f"<p>note: {_text(note)}</p>" for note in audit.notes)
        + "</section>",
        '<section id="legend"><h2>Legend</h2><dl>'
        + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in legend_entries)
        + "</dl></section>",
        "<h2>Models</h2>",
        _item_models(audit) if per_item else _accuracy_models(audit),
        "<h2>Pairs</h2>",
    ]
    if per_item:  # how many of the pairs are listed (an empty line when all are)
        parts.append(
            f"<p>{len(shown):,} pairs closest in rank of {len(audit.pairs):,} (--pairs all lists every pair); "
            "the machine formats have all.</p>"
            if len(shown) < len(audit.pairs)
            else ""
        )
    # A listing that mixes adjacent pairs with others says which are which, as the text tables do.
    columns = with_adjacent(shown, _item_columns(audit) if per_item else accuracy_view(audit))
    headers = [(c, PAIR_VIEW.get(c, c.replace("_", " ")) if per_item else label(audit, c)) for c in columns]
    headers = [("model_a", "model a" if per_item else "A"), ("model_b", "model b" if per_item else "B"), *headers]
    rows = [
        [(str(row["model_a"]), None), (str(row["model_b"]), None)] + [_cell(audit, row, c) for c in columns]
        for _, row in shown.iterrows()
    ]
    parts.append(f'<div class="scroll">{sortable_table("pairs", headers, rows)}</div>')
    if per_item:
        parts += _figures(audit) if figures else []
        parts += [
            "<h2>Details</h2>",
            "<pre>"
            + html.escape(
                terminal_lines(
                    "\n".join(
                        [
                            *gaps_section(audit, {}, "", False),
                            *generations_section(audit, {}, "", False),
                            *details(audit, shown_pairs(audit, pairs)),
                        ]
                    )
                )
            )
            + "</pre>",
        ]
    return html_page(title, parts)


def _item_legend(audit) -> dict[str, str]:
    """The per-item page's legend: the verdict rules, the pair columns shown, the model columns."""
    return {
        **VERDICT_RULES,
        **legend(c for c in _item_columns(audit) if c in audit.pairs),
        **{f"{c} (models)": meaning for c, meaning in legend(("rank_low", "rank_high", "letters", "tier")).items()},
    }


def _item_models(audit) -> str:
    ranking = audit.ranking
    columns = [
        c
        for c in (
            "rank",
            "model",
            "mean_score",
            "ci_low",
            "ci_high",
            "rank_low",
            "rank_high",
            "rank_boot_low",
            "rank_boot_high",
            "letters",
            "tier",
        )
        if c in ranking
    ]
    rows = [
        [
            (
                fmt(row[c]) if c not in ("model", "letters") else str(row[c]),
                None if c in ("model", "letters") else row[c],
            )
            for c in columns
        ]
        for _, row in ranking.iterrows()
    ]
    return sortable_table("models", [(c, c.replace("_", " ")) for c in columns], rows)


def _accuracy_models(audit) -> str:
    headers, rows = accuracy_models(audit)
    return sortable_table("models", [(h, h) for h in headers], [[(text, None) for text in row] for row in rows])


def _item_columns(audit) -> list[str]:
    """The per-item page's pair columns: every ``--columns`` choice present, and the anytime and cluster p-values."""
    pairs = audit.pairs
    extras = ("p_anytime_at_n", "p_cluster", "margin_ci_low", "margin_ci_high")
    return [c for c in PAIR_VIEW if c in pairs] + [c for c in extras if c in pairs]


def _cell(audit, row: pd.Series, column: str) -> tuple[str, object]:
    """A pair cell: its text and its sort value (None: sorts as text)."""
    value = row[column]
    value = value.item() if hasattr(value, "item") else value
    if audit.kind == "accuracies":
        return cell(row, column), None if isinstance(value, str) else value  # at the column's digits
    if isinstance(value, bool) or column in VERDICT_RULES:
        return ("-" if pd.isna(value) else "yes" if value else "no"), None if pd.isna(value) else bool(value)
    return fmt(value), value


def html_page(title: str, parts: list[str]) -> str:
    """One self-contained page: the title, the parts, the styles and the sorting script inline.

    Parameters
    ----------
    title : str
        The page title (escaped here).
    parts : list of str
        The body's parts, already escaped HTML.

    Returns
    -------
    str
        The page.
    """
    head = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        (
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            "script-src 'unsafe-inline'; img-src data:\">"
        ),
        f"<title>{_text(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_text(title)}</h1>",
    ]
    return "\n".join(head + parts + [f"<script>{_SCRIPT}</script></body></html>"]) + "\n"


def _figures(result) -> list[str]:
    try:
        drawn = svg_figures(result)
    except ArgumentError:
        return ["<h2>Figures</h2>", "<p>figures need matplotlib: pip install 'llm-power-verified[plots]'</p>"]
    svg = [figure[figure.index("<svg") :] for figure in drawn.values()]
    return ["<h2>Figures</h2>"] + [
        f'<figure id="figure-{name}">{body}</figure>' for name, body in zip(drawn, svg, strict=True)
    ]
