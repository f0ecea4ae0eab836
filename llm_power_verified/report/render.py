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
undefined values null).  CSV is the per-pair table, one row per pair.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.output import (
    csv_text,
    json_ready,
    json_text,
    markdown_text,
    terminal_text,
)
from llm_power_verified.leaderboard.audit import AuditResult
from llm_power_verified.report.legend import MODEL_COLUMNS, PAIR_COLUMNS, VERDICT_RULES
from llm_power_verified.report.model import headline
from llm_power_verified.report.table import grid

__all__ = ["OUTPUTS", "PAIR_COLUMNS", "PAIR_VIEW", "SCHEMA", "checklist", "details", "fmt", "render", "to_json_document"]

SCHEMA = "llm-power-verified/audit/2"
OUTPUTS = ("table", "markdown", "json", "csv")
#: Longest model name shown whole in the terminal pair table; longer names become keys M1, M2, ...
NAME_LIMIT = 18
#: Pair rows shown in text formats (the smallest q first when there are more); JSON and CSV have all.
ROW_LIMIT = 200
_VERDICTS = ("significant", "resolved", "significant_clustered", "significant_anytime")
_BINARY_VIEW = ("delta", "p_adjusted", "significant", "q", "resolved", "significant_clustered", "significant_anytime",
                "required_n", "mde", "rho", "b", "c", "p_exact", "p_midp", "boot_ci", "required_n_interval", "shortcut_ratio")
_GRADED_VIEW = ("delta", "p_adjusted", "significant", "q", "resolved", "significant_clustered", "required_n", "mde", "rho",
                "t", "p_t", "boot_ci")
#: Pair-table columns (``--columns`` names) and their headers, in order of importance.
PAIR_VIEW = {"delta": "delta", "p_adjusted": "p adj", "significant": "signif.", "q": "q", "resolved": "resolved",
             "significant_clustered": "signif. clusters", "significant_anytime": "anytime", "required_n": "N*", "mde": "MDE",
             "rho": "rho", "b": "b", "c": "c", "p_exact": "p exact", "p_midp": "p mid-p", "t": "t", "p_t": "p t",
             "boot_ci": "boot CI", "required_n_interval": "N* 5-95%", "shortcut_ratio": "n_h/N*"}
_DIGITS = {"rho": 3, "q": 3, "mde": 3, "p_adjusted": 3, "p_exact": 3, "p_midp": 3, "p_t": 3, "t": 3, "shortcut_ratio": 3}
_COMPOSITE = {"boot_ci": "paired bootstrap interval of the gap at 1 - alpha",
              "required_n_interval": "bootstrap 5th-95th percentiles of N* (finite where a resampled gap is not 0, even when N* is inf)"}


def render(result: AuditResult, output: str = "table", *, width: int = 100, columns: list[str] | None = None,
           wide: bool = False) -> str:
    """The report as text: ``output`` one of "table" (terminal), "markdown", "json" or "csv"."""
    if output == "json":
        return json_text(to_json_document(result))
    if output == "csv":
        pairs = result.pairs.copy()
        for column in pairs.columns:
            if pd.api.types.is_object_dtype(pairs[column]) or pd.api.types.is_string_dtype(pairs[column]):
                pairs[column] = pairs[column].map(lambda value: csv_text(value) if isinstance(value, str) else value)
        return pairs.to_csv(index=False)
    if output not in ("table", "markdown"):
        raise ArgumentError(f"output must be one of {OUTPUTS}; got {output!r}")
    markdown = output == "markdown"
    head = "## " if markdown else ""
    escape = markdown_text if markdown else terminal_text
    view = _pair_view(result, columns)
    keys = _keys(result, markdown or wide)
    lines = [f"{head}Resolution audit: {escape(result.matrix.source)}", ""]
    lines += [escape(line) for line in headline(result)]
    lines += [f"note: {escape(note)}" for note in result.notes]
    lines += ["", f"{head}Models", _models_table(result, keys, markdown, width, wide)]
    table, view = _pairs_table(result, view, keys, markdown, width, wide)
    lines += ["", f"{head}Pairs", *table]
    lines += _sections(result, keys, head, markdown)
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
    return [column for column in (_BINARY_VIEW if result.matrix.binary else _GRADED_VIEW) if _available(result.pairs, column)]


def _available(pairs: pd.DataFrame, column: str) -> bool:
    return {"boot_ci": "boot_ci_low", "required_n_interval": "required_n_p05"}.get(column, column) in pairs


def _keys(result: AuditResult, whole: bool) -> dict[str, str]:
    """Model name -> what the pair table shows: the name itself, or the key M<rank> when names are long."""
    names = result.ranking["model"].tolist()
    if whole or max(len(name) for name in names) <= NAME_LIMIT:
        return {name: name for name in names}
    return {name: f"M{rank}" for name, rank in zip(names, result.ranking["rank"])}


def _cell(row: pd.Series, column: str) -> str:
    if column in _VERDICTS:
        value = row.get(column)
        return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else ("yes" if value else "no")
    if column == "boot_ci":
        return f"[{fmt(row['boot_ci_low'])}, {fmt(row['boot_ci_high'])}]"
    if column == "required_n_interval":
        return f"[{fmt(row['required_n_p05'])}, {fmt(row['required_n_p95'])}]"
    if column in ("b", "c"):
        return fmt(int(row[column]))
    return fmt(row[column], _DIGITS.get(column, 4))


def _pairs_table(result: AuditResult, view: list[str], keys: dict[str, str], markdown: bool, width: int,
                 wide: bool) -> tuple[list[str], list[str]]:
    """The pair table and the columns it shows: cut to ``width`` in order of importance (terminal), all otherwise."""
    pairs = result.pairs
    shown = pairs if len(pairs) <= ROW_LIMIT else pairs.sort_values("q", kind="stable").head(ROW_LIMIT)
    lines = [f"({ROW_LIMIT} pairs with the smallest q of {len(pairs):,}; JSON and CSV have all)"] if len(pairs) > ROW_LIMIT else []
    names = [[keys[a], keys[b]] for a, b in zip(shown["model_a"], shown["model_b"])]
    records = [row for _, row in shown.iterrows()]
    cells = {column: [_cell(row, column) for row in records] for column in view}
    chosen = list(view)
    if not (markdown or wide):
        chosen = []
        used = sum(max([len(header), *(len(name[index]) for name in names)]) + 2 for index, header in enumerate(("A", "B")))
        for column in view:
            needed = max([len(PAIR_VIEW[column]), *(len(cell) for cell in cells[column])]) + 2
            if used + needed > width and len(chosen) >= 4:
                break
            chosen.append(column)
            used += needed
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


def _sections(result: AuditResult, keys: dict[str, str], head: str, markdown: bool) -> list[str]:
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
    if "resolved_anytime" in result.pairs:
        lines += ["", f"{head}Anytime-valid (grid-mixture e-process at N)"]
        rows = [[keys[r["model_a"]], keys[r["model_b"]], fmt(r["log_e"], 4), fmt(r["p_anytime_at_n"], 3), fmt(r["required_n_anytime"]),
                 fmt(r["anytime_inflation"], 3), "yes" if r["resolved_anytime"] else "no"]
                for _, r in result.pairs.head(ROW_LIMIT).iterrows()]
        lines.append(grid(["A", "B", "log e_N", "p anytime at N", "N_av", "N_av/N*", "resolved anytime"], rows, markdown))
    lines += _cluster_section(result, result.pairs.head(ROW_LIMIT), keys, head, markdown)
    lines += ["", f"{head}Reporting checklist (paper Appendix I)"]
    if markdown:
        lines.append(grid(["quantity", "this audit", "why"], [[c["quantity"], c["value"], c["why"]] for c in checklist(result)], markdown))
    else:
        lines += [f"{c['quantity']}: {terminal_text(c['value'])} ({c['why']})" for c in checklist(result)]
    return lines


def details(result: AuditResult) -> list[str]:
    """The report's sections after the pair table, as plain text lines (the HTML page shows them preformatted)."""
    return _sections(result, {name: name for name in result.ranking["model"]}, "", False)


def _legend(view: list[str], result: AuditResult, markdown: bool) -> list[str]:
    """One line per verdict rule present and per column shown, once per report."""
    entries = [(name, rule) for name, rule in VERDICT_RULES.items() if name in result.pairs]
    entries += [(f"{PAIR_VIEW[column]} ({column})", PAIR_COLUMNS.get(column) or _COMPOSITE[column])
                for column in view if column not in VERDICT_RULES]
    entries += [("mean score [interval]", MODEL_COLUMNS["ci_low"].removesuffix(", low end")),
                ("rank interval", f"[best, worst]: {MODEL_COLUMNS['rank_low']}; {MODEL_COLUMNS['rank_high']}"),
                ("letters", MODEL_COLUMNS["letters"])]
    if "rank_boot_low" in result.ranking:
        entries.append(("bootstrap ranks", f"{MODEL_COLUMNS['rank_boot_low']}; {MODEL_COLUMNS['rank_boot_high']}"))
    if "tier" in result.ranking:
        entries.append(("tier", MODEL_COLUMNS["tier"]))
    bullet = "- " if markdown else ""
    escape = markdown_text if markdown else terminal_text
    return [f"{bullet}{escape(name)}: {escape(text)}" for name, text in entries]


def to_json_document(result: AuditResult) -> dict:
    """The JSON report (``audit.schema.json``): headline and legend first, then every table in full."""
    return json_ready({
        "schema": SCHEMA,
        "source": result.matrix.source,
        "headline": headline(result),
        "legend": {"verdicts": VERDICT_RULES, "models": MODEL_COLUMNS,
                   "pairs": {key: value for key, value in PAIR_COLUMNS.items() if key in result.pairs}},
        "notes": list(result.notes),
        "settings": {"mode": result.mode, "family": result.family, "family_size": result.family_size, "alpha": result.alpha,
                     "power": result.power, "seed": result.seed, "n_resamples": result.n_resamples, "correction": result.correction},
        "data": {"n_items": result.matrix.n_items, "n_models": result.matrix.n_models, "binary": result.matrix.binary,
                 "clustered": result.matrix.clusters is not None},
        "ranking": result.ranking.to_dict(orient="records"),
        "pairs": result.pairs.to_dict(orient="records"),
        "multiplicity": result.multiplicity,
        "clusters": result.clusters,
        "verdicts": result.verdicts,
        "resolution_by_gap": result.by_gap,
        "tiers": result.tiers,
        "checklist": checklist(result),
    })


def checklist(result: AuditResult) -> list[dict]:
    """The paper's Appendix I checklist, filled in for this audit."""
    pairs = result.pairs
    binary = result.matrix.binary
    arbiters = "McNemar chi-square, exact, mid-p; paired bootstrap" if binary else "paired t; paired bootstrap"
    has_interval = "required_n_p05" in pairs
    return [
        {"quantity": "delta-hat", "value": f"{len(pairs)} gaps, |delta| from {pairs['delta'].abs().min():.4g} to {pairs['delta'].abs().max():.4g}", "why": "headline effect"},
        {"quantity": "paired test", "value": arbiters, "why": "matches the metric"},
        {"quantity": "N", "value": f"{result.matrix.n_items} paired items", "why": "budget"},
        {"quantity": "delta_MDE", "value": f"median {pairs['mde'].median():.4g} (Eq. 4)", "why": "current-N resolution"},
        {"quantity": "q = N/N*", "value": f"{int(pairs['resolved'].sum())} of {len(pairs)} pairs have q >= 1", "why": "gap supported when q >= 1"},
        {"quantity": "N* CI", "value": (f"B = {result.n_resamples} bootstrap; {int((pairs['required_n_p05'] > result.matrix.n_items).sum())} pairs robustly unresolved (5th percentile > N)" if has_interval else "not computed (n_resamples = 0)"), "why": "does the N* interval straddle N"},
        {"quantity": "multiplicity", "value": f"family '{result.family}' of {result.family_size}; Bonferroni x{result.multiplicity.inflation.bonferroni:.3g}; BH {result.multiplicity.bh_rejections} rejections", "why": "family-level claims"},
        {"quantity": "per-item raw matrix", "value": f"{result.matrix.n_items} x {result.matrix.n_models} scores from {result.matrix.source}", "why": "third-party check"},
    ]


def fmt(value, digits: int = 4) -> str:
    """A number for the text tables: 4 significant digits, thousands separators from 100, scientific below 1e-3 and from 1e6."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, float):
        if math.isinf(value):
            return "inf"
        if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
            return f"{value:.{digits - 1}e}"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    return str(value)


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
        lines.append("leave one cluster out: " + ", ".join(f"{name} {count}" for name, count in loco.items()))
        lines.append("other cluster definitions: " + ", ".join(f"{name} {count}" for name, count in clusters.alternative_definitions.items()))
        cluster_rows = [[keys[r["model_a"]], keys[r["model_b"]], fmt(r["icc"], 3), fmt(r["design_effect"], 3), fmt(r["required_n_cluster"]),
                         "resolved" if r["resolved_cluster"] else "UNRESOLVED"] for _, r in show_pairs.iterrows()]
        lines.append(grid(["A", "B", "ICC(D)", "DE", "N* cluster", "verdict"], cluster_rows, markdown))
    return lines
