"""Render a leaderboard audit: terminal table, Markdown, JSON, CSV and plots.

JSON schema ``llm-power-verified/audit/1`` (stable; new keys may be added):

``schema``, ``source``, ``notes``
``settings``: mode, family, family_size, alpha, power, seed, n_bootstrap
``data``: n_items, n_models, binary, clustered
``ranking``: list of {rank, model, mean_score}
``pairs``: list of per-pair records; the keys are the columns of
    :attr:`AuditResult.pairs` (see :data:`PAIR_COLUMNS` for their meaning);
    infinities are the strings "inf"/"-inf", undefined values null
``multiplicity``: family, family_size, arbiter, inflation factors, BH rejections
``clusters``: null, or the cluster summary (ICC, design effect, bootstrap,
    leave-one-cluster-out, alternative definitions)
``verdicts``: unresolved-pair counts per procedure (the paper's Table 5)
``resolution_by_gap``: pairs, unresolved and r = N*/N by |delta| bucket (Table 3)
``tiers``: adjacent-rank tiers and the compact letter display
``checklist``: the paper's Appendix I reporting checklist, filled in

CSV output is the per-pair table, one row per pair, same columns.
"""

from __future__ import annotations

import io as _stdio
import math
from pathlib import Path

import numpy as np
import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.output import (
    csv_text,
    json_ready,
    json_text,
    markdown_text,
    terminal_text,
    write_bytes,
)
from llm_power_verified.leaderboard.audit import AuditResult
from llm_power_verified.report.table import grid

__all__ = ["PAIR_COLUMNS", "checklist", "render", "save_figure", "to_json_document", "plot_resolution"]

SCHEMA = "llm-power-verified/audit/1"

PAIR_COLUMNS = {
    "model_a": "higher-ranked model (or the reference)",
    "model_b": "the other model",
    "delta": "gap: mean score of A minus B",
    "p_a": "accuracy (mean score) of A", "p_b": "accuracy of B",
    "a": "items both solve", "b": "items only A solves", "c": "items only B solves", "d": "items neither solves",
    "rho": "correlation of the per-item scores (phi for 0/1)",
    "p_chi2": "McNemar chi-square p", "p_exact": "exact McNemar p", "log_p_exact": "its natural log", "p_midp": "mid-p",
    "t": "paired t statistic (graded)", "p_t": "paired t p (graded)",
    "boot_ci_low": "paired bootstrap interval for the gap, low", "boot_ci_high": "high", "p_bootstrap": "bootstrap p",
    "variance": "sigma_D^2", "required_n": "N* (Eq. 6; Eq. 3 for graded)", "connor_n": "Connor's N",
    "required_n_p05": "bootstrap 5th percentile of N*", "required_n_p95": "95th percentile",
    "mde": "minimum detectable effect at N", "q": "resolution ratio N / N*", "resolved": "q >= 1",
    "required_n_rho_minus": "N* at rho - 0.10 (clamped)", "required_n_rho_plus": "N* at rho + 0.10",
    "shortcut_n": "(1 - rho) K/h^2 shortcut", "shortcut_ratio": "shortcut / N*",
    "unpaired_n": "unpaired per-arm N", "efficiency_gain": "unpaired N / paired N*",
    "p_bonferroni": "adjusted p", "p_sidak": "adjusted p", "p_holm": "adjusted p", "p_bh": "BH-adjusted p",
    "required_n_bonferroni": "N* x Bonferroni inflation", "required_n_holm": "N* x Holm step inflation",
    "log_e": "log e-value of the grid-mixture e-process at the observed counts", "p_anytime": "min(1, 1/e)",
    "required_n_anytime": "anytime-valid N (boundary definition)", "q_anytime": "N / N_av", "anytime_inflation": "N_av / N*",
    "rejected_e_bh": "e-BH rejection over the family", "rejected_bh": "BH rejection over the family",
    "icc": "ICC of D over clusters", "design_effect": "1 + (m - 1) ICC+", "required_n_cluster": "N* x DE",
}


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


def to_json_document(result: AuditResult) -> dict:
    return json_ready({
        "schema": SCHEMA,
        "source": result.matrix.source,
        "notes": list(result.notes),
        "settings": {"mode": result.mode, "family": result.family, "family_size": result.family_size, "alpha": result.alpha,
                     "power": result.power, "seed": result.seed, "n_resamples": result.n_resamples},
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


def _fmt(value, digits: int = 4) -> str:
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


def render(result: AuditResult, output: str = "table") -> str:
    """Text rendering: "table" (terminal), "markdown", "json" or "csv"."""
    if output == "json":
        return json_text(to_json_document(result))
    if output == "csv":
        pairs = result.pairs.copy()
        for column in pairs.columns:
            if pd.api.types.is_object_dtype(pairs[column]) or pd.api.types.is_string_dtype(pairs[column]):
                pairs[column] = pairs[column].map(lambda value: csv_text(value) if isinstance(value, str) else value)
        return pairs.to_csv(index=False)
    if output not in ("table", "markdown"):
        raise ArgumentError(f"output must be table, markdown, json or csv; got {output!r}")
    markdown = output == "markdown"
    head = "## " if markdown else ""
    escape = markdown_text if markdown else terminal_text
    matrix = result.matrix
    lines = [f"{head}Resolution audit: {escape(matrix.source)}", "",
             f"{matrix.n_items:,} items x {matrix.n_models} models, {'binary' if matrix.binary else 'graded'} scores; "
             f"mode {result.mode}; family '{result.family}' (m = {result.family_size}); alpha = {result.alpha}, power = {result.power}; seed {result.seed}"]
    for note in result.notes:
        lines.append(f"note: {escape(note)}")
    lines += ["", f"{head}Pairs"]
    pairs = result.pairs
    show_pairs = pairs if len(pairs) <= 200 else pairs.sort_values("q").head(200)
    if len(pairs) > 200:
        lines.append(f"(the 200 pairs with the smallest q of {len(pairs):,}; JSON and CSV have all)")
    binary = matrix.binary
    headers = ["A", "B", "delta", "rho", "b", "c", "p chi2", "p exact", "p mid-p", "boot CI", "N*", "N* 5-95%", "q", "MDE", "verdict", "n_h/N*"]
    if not binary:
        headers = ["A", "B", "delta", "rho", "t", "p t", "boot CI", "N*", "q", "MDE", "verdict"]
    rows = []
    for _, row in show_pairs.iterrows():
        interval = f"[{_fmt(row.get('boot_ci_low'))}, {_fmt(row.get('boot_ci_high'))}]" if "boot_ci_low" in row else "-"
        verdict = "resolved" if row["resolved"] else "UNRESOLVED"
        if binary:
            n_interval = f"[{_fmt(row.get('required_n_p05'))}, {_fmt(row.get('required_n_p95'))}]" if "required_n_p05" in row else "-"
            rows.append([row["model_a"], row["model_b"], _fmt(row["delta"]), _fmt(row["rho"], 3), _fmt(int(row["b"])), _fmt(int(row["c"])),
                         _fmt(row["p_chi2"], 3), _fmt(row["p_exact"], 3), _fmt(row["p_midp"], 3), interval, _fmt(row["required_n"]),
                         n_interval, _fmt(row["q"], 3), _fmt(row["mde"], 3), verdict, _fmt(row["shortcut_ratio"], 3)])
        else:
            rows.append([row["model_a"], row["model_b"], _fmt(row["delta"]), _fmt(row["rho"], 3), _fmt(row["t"], 3), _fmt(row["p_t"], 3),
                         interval, _fmt(row["required_n"]), _fmt(row["q"], 3), _fmt(row["mde"], 3), verdict])
    lines.append(grid(headers, rows, markdown))
    lines += ["", f"{head}Resolution by gap (r = N*/N; r > 1 is unresolved)"]
    lines.append(grid(["|delta|", "pairs", "unresolved", "r median", "r worst"],
                       [[b.bucket, str(b.pairs), str(b.unresolved), _fmt(b.r_median, 3), _fmt(b.r_worst, 3)] for b in result.by_gap], markdown))
    lines += ["", f"{head}Verdicts across procedures (unresolved pairs of {result.verdicts.pairs})"]
    verdict_rows = [[name, "n/a" if value is None else str(value)] for name, value in result.verdicts.to_dict().items() if name != "pairs"]
    lines.append(grid(["procedure", "unresolved"], verdict_rows, markdown))
    multiplicity = result.multiplicity
    lines += ["", f"{head}Multiplicity",
              f"family '{multiplicity.family}' of {multiplicity.family_size} comparisons, arbiter {multiplicity.arbiter}; "
              f"N* inflation: Bonferroni x{multiplicity.inflation.bonferroni:.4g}, Sidak x{multiplicity.inflation.sidak:.4g}, "
              f"BH x{multiplicity.inflation.bh:.4g} ({multiplicity.bh_rejections} BH rejections); Holm per step"
              + (f"; e-BH on the grid-mixture e-values: {multiplicity.e_bh_rejections} rejections" if multiplicity.e_bh_rejections is not None else "")]
    if "resolved_anytime" in result.pairs:
        lines += ["", f"{head}Anytime-valid (grid-mixture e-process; N_av: boundary definition, see llm_power_verified.sequential)"]
        anytime_rows = [[r["model_a"], r["model_b"], _fmt(r["log_e"], 4), _fmt(r["p_anytime"], 3), _fmt(r["required_n_anytime"]),
                         _fmt(r["anytime_inflation"], 3), _fmt(r["q_anytime"], 3), "resolved" if r["resolved_anytime"] else "UNRESOLVED"]
                        for _, r in show_pairs.iterrows()]
        lines.append(grid(["A", "B", "log e", "p anytime", "N_av", "N_av/N*", "q_av", "verdict"], anytime_rows, markdown))
    lines += _cluster_section(result, show_pairs, head, markdown)
    lines += _tiers_and_checklist(result, head, markdown)
    return "\n".join(lines) + "\n"


def _cluster_section(result: AuditResult, show_pairs: pd.DataFrame, head: str, markdown: bool) -> list[str]:
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
        cluster_rows = [[r["model_a"], r["model_b"], _fmt(r["icc"], 3), _fmt(r["design_effect"], 3), _fmt(r["required_n_cluster"]),
                         "resolved" if r["resolved_cluster"] else "UNRESOLVED"] for _, r in show_pairs.iterrows()]
        lines.append(grid(["A", "B", "ICC(D)", "DE", "N* cluster", "verdict"], cluster_rows, markdown))
    return lines



def _tiers_and_checklist(result: AuditResult, head: str, markdown: bool) -> list[str]:
    """Tiers (adjacent breaks and letters) and the paper's Appendix I checklist."""
    lines: list[str] = []
    lines += ["", f"{head}Tiers"]
    ranking_rows = []
    adjacent = result.tiers.adjacent
    letters = result.tiers.letters
    for _, row in result.ranking.iterrows():
        model = row["model"]
        ranking_rows.append([str(row["rank"]), model, _fmt(float(row["mean_score"])),
                             str(adjacent[model]) if adjacent else "-", letters[model] if letters else "-"])
    lines.append(grid(["rank", "model", "mean score", "tier (adjacent breaks)", "letters (all pairs)"], ranking_rows, markdown))
    lines += ["", f"{head}Reporting checklist (paper Appendix I)"]
    lines.append(grid(["quantity", "this audit", "why"], [[c["quantity"], c["value"], c["why"]] for c in checklist(result)], markdown))
    return lines


def save_figure(figure, path: str | Path) -> None:
    """Save a matplotlib figure through the one writer (format from the suffix, PNG by default) and close it."""
    # Optional dependency (extra plots): imported where it is used, so the package works without it.
    import matplotlib.pyplot as plt

    path = Path(path)
    buffer = _stdio.BytesIO()
    try:
        figure.savefig(buffer, format=(path.suffix.lstrip(".").lower() or "png"), dpi=120)
    finally:
        plt.close(figure)
    write_bytes(path, buffer.getvalue())


def plot_resolution(result: AuditResult, path: str | Path) -> None:
    """r = N*/N per pair on a log scale with the r = 1 line (the paper's Figures 2-3), and the
    efficiency gain against 1/(1 - rho) (Figure 1), saved as one image (needs matplotlib)."""
    try:
        # Optional dependency (extra plots): imported where it is used, so the package works without it.
        import matplotlib

        matplotlib.use("Agg")
        # Optional dependency (extra plots): imported where it is used, so the package works without it.
        import matplotlib.pyplot as plt
    except ImportError:
        raise ArgumentError("plots need matplotlib: pip install 'llm-power-verified[plots]'") from None
    pairs = result.pairs.sort_values("q", ascending=False)
    ratio = np.where(pairs["q"] > 0, 1 / pairs["q"].replace(0, np.nan), np.nan)
    ratio = np.nan_to_num(ratio, nan=np.nanmax(ratio[np.isfinite(ratio)]) * 10 if np.isfinite(ratio).any() else 10.0)
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [f"{a} vs {b}" for a, b in zip(pairs["model_a"], pairs["model_b"])]
    colours = ["tab:red" if r > 1 else "tab:blue" for r in ratio]
    axes[0].bar(range(len(ratio)), ratio, color=colours)
    axes[0].axhline(1.0, linestyle="--", color="black")
    axes[0].set_yscale("log")
    axes[0].set_ylabel("r = N* / N")
    axes[0].set_title(f"Resolution per pair ({int((ratio > 1).sum())} of {len(ratio)} unresolved)")
    if len(labels) <= 30:
        axes[0].set_xticks(range(len(labels)), labels, rotation=70, ha="right", fontsize=7)
    rho = pairs["rho"].to_numpy()
    gain = pairs["efficiency_gain"].to_numpy()
    axes[1].scatter(rho, gain, facecolors="none", edgecolors="tab:blue", label="unpaired N / paired N*")
    grid = np.linspace(max(np.nanmin(rho), -0.5), min(np.nanmax(rho), 0.99), 200) if np.isfinite(rho).any() else np.linspace(0, 0.9, 200)
    axes[1].plot(grid, 1 / (1 - grid), linestyle="--", color="black", label="1 / (1 - rho)")
    axes[1].set_xlabel("rho")
    axes[1].set_ylabel("efficiency gain")
    axes[1].set_title("Efficiency of the paired design")
    axes[1].legend()
    figure.tight_layout()
    save_figure(figure, path)
