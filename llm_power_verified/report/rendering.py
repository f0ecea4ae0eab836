"""Render a leaderboard audit: terminal table, Markdown, JSON and CSV, all in one order.

Text formats: the title and headline (:func:`.model.headline`), the model
table (rank, mean score and its interval, rank interval, letters, tier), the
pair table, then the sections (resolution by gap, unresolved pairs across
procedures, multiplicity, anytime-valid, clusters, the paper's checklist) and
the legend, which defines every verdict rule and every column shown, once.
The terminal format fits ``width`` columns (long model names become keys M1,
M2, ... listed in the model table; ``columns`` picks the pair columns, ``wide``
shows all); Markdown keeps every column and name whole.

JSON follows ``llm_power_verified/report/audit.schema.json`` (schema
``llm-power-verified/audit/2``; infinities are the strings "inf"/"-inf",
undefined values null).  CSV and JSON Lines are the per-pair table, one row
per pair.  The machine formats are written piece by piece by
:mod:`.machine`; :func:`render` joins the pieces for callers that want text.

Text formats list the pairs ``pairs`` chooses: "top" (default) the
:data:`ROW_LIMIT` pairs closest in rank (adjacent pairs first, higher ranks
first), "all" every pair, "none" no pair table.  The machine formats always
hold every pair.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from llm_power_verified.contract import BINARY_VIEW, COLUMN_CHOICES, COMPOSITES, FORMATS, GRADED_VIEW, PAIR_LISTS, VERDICT_RULES, column, header, legend
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.output import (
    markdown_text,
    terminal_text,
)
from llm_power_verified.leaderboard.audit import AuditResult
from llm_power_verified.report.cells import cell as _cell
from llm_power_verified.report.cells import fmt
from llm_power_verified.report.report_data import SCHEMA, checklist  # noqa: F401 - SCHEMA: tests/test_audit.py imports it from here
from llm_power_verified.report.headline import headline
from llm_power_verified.report.machine import chunks
from llm_power_verified.report.machine import to_json_document  # noqa: F401 - tests/test_audit.py and test_scale.py import it from here
from llm_power_verified.report.table import grid
from llm_power_verified.report.text import column_width, fitted

__all__ = ["OUTPUTS", "PAIR_LISTS", "PAIR_VIEW", "details", "fmt", "render", "shown_pairs", "streamed_summary"]

OUTPUTS = tuple(name for name in FORMATS if name not in ("html", "parquet"))
#: Longest model name shown whole in the terminal pair table; longer names become keys M1, M2, ...
NAME_LIMIT = 18
#: Pair rows the text formats list with ``pairs="top"`` (the closest in rank); the machine formats have all.
ROW_LIMIT = 200
#: Pair-table columns (``--columns`` names) and their headers, in order of importance.
PAIR_VIEW = {name: header(name) for name in COLUMN_CHOICES}


def render(result: AuditResult, output: str = "table", *, width: int = 100, columns: list[str] | None = None,
           wide: bool = False, pairs: str = "top") -> str:
    """The report as text: ``output`` one of "table" (terminal), "markdown", "json", "jsonl" or "csv".

    ``pairs`` ("top", "all" or "none") chooses the pairs the table and Markdown formats list.
    """
    if output in ("json", "jsonl", "csv"):
        return b"".join(chunks(result, output)).decode("utf-8")
    if output not in ("table", "markdown"):
        raise ArgumentError(f"output must be one of {OUTPUTS}; got {output!r}")
    if pairs not in PAIR_LISTS:
        raise ArgumentError(f"pairs must be one of {PAIR_LISTS}; got {pairs!r}")
    markdown = output == "markdown"
    head = "## " if markdown else ""
    escape = markdown_text if markdown else terminal_text
    view = _pair_view(result, columns)
    keys = _keys(result, markdown or wide)
    lines = [f"{head}Resolution audit: {escape(result.matrix.source)}", ""]
    lines += [escape(line) for line in headline(result)]
    lines += [f"note: {escape(note)}" for note in result.notes]
    lines += ["", f"{head}Models", _models_table(result, keys, markdown, width, wide)]
    listed = shown_pairs(result, pairs)
    if pairs != "none":
        table, view = _pairs_table(result, listed, view, keys, markdown, width, wide)
        lines += ["", f"{head}Pairs", *table]
    else:
        lines += ["", f"{head}Pairs", f"({len(result.pairs):,} pairs not listed (--pairs none); the machine formats have all)"]
    lines += _sections(result, listed, keys, head, markdown)
    lines += ["", f"{head}Legend", *_legend(view, result, markdown)]
    if not (markdown or wide):
        # Prose lines wrap at the width (tables are single strings with line breaks and are fitted above).
        lines = [_wrap(line, width) for line in lines]
    return "\n".join(lines) + "\n"


def _wrap(line: str, width: int) -> str:
    """A prose line wrapped at ``width`` with a two-space hanging indent; a table (several lines) as it is."""
    if "\n" in line or len(line) <= width:
        return line
    return "\n".join(textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False))


def _pair_view(result: AuditResult, columns: list[str] | None) -> list[str]:
    """The pair-table columns to show, in order (the model names always come first)."""
    if columns:
        unknown = [column for column in columns if column not in PAIR_VIEW]
        if unknown:
            raise ArgumentError(f"--columns: unknown column {unknown[0]!r}; choose from {', '.join(PAIR_VIEW)}")
        return [column for column in columns if _available(result.pairs, column)]
    return [column for column in (BINARY_VIEW if result.matrix.binary else GRADED_VIEW) if _available(result.pairs, column)]


def _available(pairs: pd.DataFrame, name: str) -> bool:
    return (COMPOSITES[name].parts[0] if name in COMPOSITES else name) in pairs


def _keys(result: AuditResult, whole: bool) -> dict[str, str]:
    """Model name -> what the pair table shows: the name itself, or the key M<rank> when names are long."""
    names = result.ranking["model"].tolist()
    if whole or max(len(name) for name in names) <= NAME_LIMIT:
        return {name: name for name in names}
    return {name: f"M{rank}" for name, rank in zip(names, result.ranking["rank"])}


def shown_pairs(result: AuditResult, pairs: str = "top", limit: int = ROW_LIMIT) -> pd.DataFrame:
    """The pairs a text format lists: all, none, or ("top") at most ``limit`` closest in rank, higher ranks first."""
    table = result.pairs
    if pairs == "none":
        return table.iloc[:0]
    if pairs == "all" or len(table) <= limit:
        return table
    distance = (table["rank_b"] - table["rank_a"]).abs().to_numpy()
    order = np.lexsort((np.minimum(table["rank_a"], table["rank_b"]).to_numpy(), distance))
    return table.iloc[np.sort(order[:limit])]


def _pairs_table(result: AuditResult, shown: pd.DataFrame, view: list[str], keys: dict[str, str], markdown: bool, width: int,
                 wide: bool) -> tuple[list[str], list[str]]:
    """The pair table and the columns it shows: cut to ``width`` in order of importance (terminal), all otherwise."""
    pairs = result.pairs
    lines = [f"({len(shown)} pairs closest in rank of {len(pairs):,}; --pairs all lists every pair; the machine formats have all)"] \
        if len(shown) < len(pairs) else []
    names = [[keys[a], keys[b]] for a, b in zip(shown["model_a"], shown["model_b"])]
    records = [row for _, row in shown.iterrows()]
    cells = {column: [_cell(row, column) for row in records] for column in view}
    chosen = list(view)
    if not (markdown or wide):
        fixed = [column_width(header, (name[index] for name in names)) for index, header in enumerate(("A", "B"))]
        widths = {column: column_width(PAIR_VIEW[column], cells[column]) for column in view}
        # The view is in order of importance: cut from its end, keeping 4 columns at least; 2 characters of margin.
        chosen = fitted(view, widths, fixed, width - 2, view[::-1], keep=4)
        if len(chosen) < len(view):
            lines.append(f"({len(view) - len(chosen)} more columns with --wide or --columns; Markdown, JSON and CSV have all)")
    rows = [name + [cells[column][index] for column in chosen] for index, name in enumerate(names)]
    lines.append(grid(["A", "B"] + [PAIR_VIEW[column] for column in chosen], rows, markdown))
    return lines, chosen


def _models_table(result: AuditResult, keys: dict[str, str], markdown: bool, width: int, wide: bool) -> str:
    """Rank, key (when names are long), model, mean score [interval], rank interval, letters, adjacent tier."""
    ranking = result.ranking
    keyed = any(keys[name] != name for name in ranking["model"])
    tiered = "tier" in ranking
    booted = "rank_boot_low" in ranking
    rows = []
    for _, row in ranking.iterrows():
        cells = [str(row["rank"])] + ([keys[row["model"]]] if keyed else []) + [row["model"]]
        cells += [f"{row['mean_score']:.4f} [{row['ci_low']:.4f}, {row['ci_high']:.4f}]", f"[{row['rank_low']}, {row['rank_high']}]"]
        cells += [f"[{row['rank_boot_low']}, {row['rank_boot_high']}]"] if booted else []
        cells += [row["letters"]] + ([str(row["tier"])] if tiered else [])
        rows.append(cells)
    headers = ["rank"] + (["key"] if keyed else []) + ["model", "mean score [interval]", "rank interval"]
    headers += ["bootstrap ranks"] if booted else []
    headers += ["letters"]
    headers += ["tier"] if tiered else []
    if not (markdown or wide):
        at = headers.index("model")
        others = sum(max([len(h), *(len(r[i]) for r in rows)]) + 2 for i, h in enumerate(headers) if i != at)
        room = max(12, width - others)
        for cells in rows:
            if len(cells[at]) > room:
                cells[at] = cells[at][: room // 2 - 1] + "..." + cells[at][-(room - room // 2 - 2):]
    return grid(headers, rows, markdown)


def _sections(result: AuditResult, listed: pd.DataFrame, keys: dict[str, str], head: str, markdown: bool) -> list[str]:
    """Resolution by gap, unresolved pairs across procedures, multiplicity, anytime-valid, clusters, the checklist."""
    lines = ["", f"{head}Resolution by gap (r = N*/N; r > 1 is unresolved)"]
    lines.append(grid(["|delta|", "pairs", "unresolved", "r median", "r worst"],
                      [[b.bucket, str(b.pairs), str(b.unresolved), fmt(b.r_median, 3), fmt(b.r_worst, 3)] for b in result.by_gap], markdown))
    lines += ["", f"{head}Unresolved pairs across procedures (of {result.verdicts.pairs})"]
    lines.append(grid(["procedure", "unresolved"], [[name, "n/a" if value is None else str(value)]
                                                    for name, value in result.verdicts.to_dict().items() if name != "pairs"], markdown))
    multiplicity = result.multiplicity
    lines += ["", f"{head}Multiplicity",
              f"family '{multiplicity.family}' of {multiplicity.family_size} comparisons, arbiter {multiplicity.arbiter}, "
              f"correction {result.correction}; N* inflation: Bonferroni x{multiplicity.inflation.bonferroni:.4g}, "
              f"Sidak x{multiplicity.inflation.sidak:.4g}, BH x{multiplicity.inflation.bh:.4g} ({multiplicity.bh_rejections} BH "
              "rejections); Holm per step" + (f"; e-BH: {multiplicity.e_bh_rejections} rejections" if multiplicity.e_bh_rejections is not None else "")]
    if "resolved_anytime" in result.pairs and len(listed):
        lines += ["", f"{head}Anytime-valid (grid-mixture e-process at N)"]
        rows = [[keys[r["model_a"]], keys[r["model_b"]], fmt(r["log_e"], 4), fmt(r["p_anytime_at_n"], 3), fmt(r["required_n_anytime"]),
                 fmt(r["anytime_inflation"], 3), "yes" if r["resolved_anytime"] else "no"]
                for _, r in listed.iterrows()]
        lines.append(grid(["A", "B", "log e_N", "p anytime at N", "N_av", "N_av/N*", "resolved anytime"], rows, markdown))
    lines += _cluster_section(result, listed, keys, head, markdown)
    lines += ["", f"{head}Reporting checklist (paper Appendix I)"]
    if markdown:
        lines.append(grid(["quantity", "this audit", "why"], [[c["quantity"], c["value"], c["why"]] for c in checklist(result)], markdown))
    else:
        lines += [f"{c['quantity']}: {terminal_text(c['value'])} ({c['why']})" for c in checklist(result)]
    return lines


def details(result: AuditResult, pairs: str = "top") -> list[str]:
    """The report's sections after the pair table, as plain text lines (the HTML page shows them preformatted)."""
    return _sections(result, shown_pairs(result, pairs), {name: name for name in result.ranking["model"]}, "", False)


def _legend(view: list[str], result: AuditResult, markdown: bool) -> list[str]:
    """One line per verdict rule present and per column shown, once per report."""
    model = legend(("ci_low", "rank_low", "rank_high", "letters", "rank_boot_low", "rank_boot_high", "tier"))
    entries = [(name, rule) for name, rule in VERDICT_RULES.items() if name in result.pairs]
    entries += [(f"{PAIR_VIEW[name]} ({name})", COMPOSITES[name].meaning if name in COMPOSITES else column(name).meaning)
                for name in view if name not in VERDICT_RULES]
    entries += [("mean score [interval]", model["ci_low"].removesuffix(", low end")),
                ("rank interval", f"[best, worst]: {model['rank_low']}; {model['rank_high']}"),
                ("letters", model["letters"])]
    if "rank_boot_low" in result.ranking:
        entries.append(("bootstrap ranks", f"{model['rank_boot_low']}; {model['rank_boot_high']}"))
    if "tier" in result.ranking:
        entries.append(("tier", model["tier"]))
    bullet = "- " if markdown else ""
    escape = markdown_text if markdown else terminal_text
    return [f"{bullet}{escape(name)}: {escape(text)}" for name, text in entries]


def streamed_summary(result) -> list[str]:
    """The headline of a streamed audit (its facts worded as every audit's are): what the CLI prints after a Parquet audit."""
    return headline(result)


def _cluster_section(result: AuditResult, show_pairs: pd.DataFrame, keys: dict[str, str], head: str, markdown: bool) -> list[str]:
    """The cluster diagnostics (none when the matrix has no clusters)."""
    lines: list[str] = []
    if result.clusters is not None:
        clusters = result.clusters
        lines += ["", f"{head}Clusters",
                  f"{clusters.n_clusters} clusters, mean size {clusters.mean_cluster_size:.1f}; median ICC(D) {clusters.median_icc:.4g} "
                  f"(range {clusters.icc_range[0]:.3g} to {clusters.icc_range[1]:.3g}); unresolved {clusters.unresolved_iid} IID -> "
                  f"{clusters.unresolved_clustered} clustered"]
        if clusters.bootstrap is not None:
            distribution = ", ".join(f"{k}: {v:.1%}" for k, v in clusters.bootstrap.unresolved_count_distribution.items())
            lines.append(f"cluster bootstrap (B = {clusters.bootstrap.n_resamples}): unresolved count {distribution}")
        loco = clusters.leave_one_cluster_out
        if all(count is None for count in loco.values()):
            lines.append("leave one cluster out: not estimable (with one cluster left, the ICC has no between-cluster variance)")
        else:
            lines.append("leave one cluster out: " + ", ".join(f"{name} {count}" for name, count in loco.items()))
        lines.append("other cluster definitions: " + ", ".join(f"{name} {count}" for name, count in clusters.alternative_definitions.items()))
        cluster_rows = [[keys[r["model_a"]], keys[r["model_b"]], fmt(r["icc"], 3), fmt(r["design_effect"], 3), fmt(r["required_n_cluster"]),
                         "resolved" if r["resolved_cluster"] else "UNRESOLVED"] for _, r in show_pairs.iterrows()]
        lines.append(grid(["A", "B", "ICC(D)", "DE", "N* cluster", "verdict"], cluster_rows, markdown))
    return lines
