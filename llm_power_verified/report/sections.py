"""The report's sections after the pair table, for any audit.

They hold what each kind of audit says beyond its headline and tables.

A per-item audit: resolution by gap, unresolved pairs across procedures,
multiplicity, anytime-valid verdicts (when computed), clusters (when the
matrix has them) and the paper's reporting checklist (Appendix I), which the
JSON report holds too (:func:`checklist`).  An accuracies-only audit has no
section of its own: its verdict counts are its headline's.
"""

from __future__ import annotations

import pandas as pd

from llm_power_verified.io.escaping import markdown_text, terminal_text
from llm_power_verified.report.cells import fmt, item_count, plural
from llm_power_verified.report.table import grid

__all__ = ["ChecklistTally", "checklist", "details", "text_sections"]


def text_sections(audit, listed: pd.DataFrame, keys: dict[str, str], head: str, markdown: bool) -> list[str]:
    """The report's sections after the pair table, as text lines.

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.
    listed : pandas.DataFrame
        The pairs the report lists.
    keys : dict of str to str
        Model name -> its name in the tables (a key such as M1 for long names).
    head : str
        The section heading prefix.
    markdown : bool
        Markdown (True) or the terminal's plain text.

    Returns
    -------
    list of str
        The lines.
    """
    if audit.kind == "accuracies":
        return []
    lines = ["", f"{head}Resolution by gap (r = N*/N; r > 1 is unresolved)"]
    lines.append(
        grid(
            ["|delta|", "pairs", "unresolved", "r median", "r worst"],
            [
                [b.bucket, f"{b.pairs:,}", f"{b.unresolved:,}", fmt(b.r_median, 3), fmt(b.r_worst, 3)]
                for b in audit.by_gap
            ],
            markdown,
        )
    )
    lines += ["", f"{head}Unresolved pairs across procedures (of {audit.verdicts.pairs:,})"]
    lines.append(
        grid(
            ["procedure", "unresolved"],
            [
                [_PROCEDURES.get(name, name), "n/a" if value is None else f"{value:,}"]
                for name, value in audit.verdicts.to_dict().items()
                if name != "pairs"
            ],
            markdown,
        )
    )
    lines += [""] * markdown + [
        _holm_steps(audit, keys, markdown_text if markdown else terminal_text)
    ]  # Markdown: a blank line ends the table (GFM reads a next line as a row)
    lines += ["", f"{head}Multiplicity", _multiplicity(audit)]
    if "resolved_anytime" in audit.pairs and len(listed):
        lines += ["", f"{head}Anytime-valid (grid-mixture e-process at N)"]
        rows = [
            [
                keys[r["model_a"]],
                keys[r["model_b"]],
                fmt(r["log_e"], 4),
                fmt(r["p_anytime_at_n"], 3),
                item_count(r["required_n_anytime"]),
                fmt(r["anytime_inflation"], 3),
                "yes" if r["resolved_anytime"] else "no",
            ]
            for _, r in listed.iterrows()
        ]
        lines.append(
            grid(["A", "B", "log e_N", "p anytime at N", "N_av", "N_av/N*", "resolved anytime"], rows, markdown)
        )
    lines += _clusters(audit, listed, keys, head, markdown)
    lines += ["", f"{head}Reporting checklist (paper Appendix I)"]
    if markdown:
        lines.append(
            grid(
                ["quantity", "this audit", "why"],
                [[c["quantity"], c["value"], c["why"]] for c in checklist(audit)],
                markdown,
            )
        )
    else:
        lines += [f"{c['quantity']}: {terminal_text(c['value'])} ({c['why']})" for c in checklist(audit)]
    return lines


def details(audit, listed: pd.DataFrame) -> list[str]:
    """The sections as plain text lines with the models named in full (the HTML page shows them preformatted).

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.
    listed : pandas.DataFrame
        The pairs the report lists.

    Returns
    -------
    list of str
        The lines.
    """
    return text_sections(audit, listed, {name: name for name in audit.ranking["model"]}, "", False)


#: What each row of "Unresolved pairs across procedures" counts: the pairs whose N exceeds that procedure's N*
#: (the JSON report's ``verdicts`` keys are the names on the left).
_PROCEDURES = {
    "fixed-n": "fixed-n (N < N*, each pair at alpha)",
    "bonferroni": "bonferroni (N < N* at alpha/m)",
    "holm": "holm (N < N* at alpha/(m-k+1), step k)",
    "benjamini-hochberg": "benjamini-hochberg (N < N* at alpha R/m)",
    "rho-0.10": "rho-0.10 (N < N* at rho - 0.10)",
    "rho+0.10": "rho+0.10 (N < N* at rho + 0.10)",
    "clustered": "clustered (N < N* x design effect)",
    "anytime-valid": "anytime-valid (N < N_av)",
}


def _holm_steps(audit, keys: dict[str, str], escape) -> str:
    """What the holm row's level is: conditional on the earlier steps rejecting; which pairs Holm never reached here.

    The pairs are named as in the tables (``keys``), escaped for the format (``escape``): names are input.
    """
    text = (
        "holm: the pair at step k of the observed p-value order is counted at alpha/(m-k+1), the level Holm tests it "
        "at "
        "only if steps 1 to k-1 all reject (conditional; bonferroni's alpha/m is the level guaranteed in advance)"
    )
    pairs = audit.pairs
    raw = next((name for name in ("p_exact", "p_t") if name in pairs), None)
    if "p_holm" not in pairs or raw is None:
        return text + "."
    family = pairs[pairs["p_holm"].notna()]
    waiting = family[~(family["p_holm"] <= audit.alpha)].sort_values(["p_holm", raw], kind="stable")
    if len(waiting) <= 1:
        return text + f"; Holm reached every step here (m = {len(family):,})."
    stop = len(family) - len(waiting) + 1
    names = [
        f"{escape(keys.get(a, a))} vs {escape(keys.get(b, b))}"
        for a, b in zip(waiting["model_a"].iloc[1:], waiting["model_b"].iloc[1:], strict=True)
    ]
    past = f" ({', '.join(names)})" if len(names) <= 5 else ""  # more are a count, not a list
    return (
        text + f"; Holm stopped at step {stop:,} of {len(family):,} here, so {plural(len(names), 'pair')} past "
        f"it{past} {'is' if len(names) == 1 else 'are'} counted at a level Holm did not reach."
    )


def _multiplicity(audit) -> str:
    multiplicity = audit.multiplicity
    e_bh = (
        f"; e-BH: {plural(multiplicity.e_bh_rejections, 'rejection')}"
        if multiplicity.e_bh_rejections is not None
        else ""
    )
    return (
        f"family '{multiplicity.family}' of {plural(multiplicity.family_size, 'comparison')}, arbiter "
        f"{multiplicity.arbiter}, "
        f"correction {audit.correction}; N* inflation: Bonferroni x{multiplicity.inflation.bonferroni:.4g}, "
        f"Sidak x{multiplicity.inflation.sidak:.4g}, BH x{multiplicity.inflation.bh:.4g} "
        f"({plural(multiplicity.bh_rejections, 'BH rejection')}); Holm per step{e_bh}"
    )


def _clusters(audit, listed: pd.DataFrame, keys: dict[str, str], head: str, markdown: bool) -> list[str]:
    """The cluster diagnostics (none when the matrix has no clusters)."""
    clusters = audit.clusters
    if clusters is None:
        return []
    lines = [
        "",
        f"{head}Clusters",
        f"{clusters.n_clusters} clusters, mean size {clusters.mean_cluster_size:.1f}, size-weighted sum m^2/N "
        f"{clusters.weighted_cluster_size:.1f} (the design effect's m); median ICC(D) {clusters.median_icc:.4g} "
        f"(range {clusters.icc_range[0]:.3g} to {clusters.icc_range[1]:.3g}); unresolved {clusters.unresolved_iid} "
        "IID -> "
        f"{clusters.unresolved_clustered} clustered",
    ]
    if clusters.bootstrap is not None:
        distribution = ", ".join(f"{k}: {v:.1%}" for k, v in clusters.bootstrap.unresolved_count_distribution.items())
        lines.append(f"cluster bootstrap (B = {clusters.bootstrap.n_resamples}): unresolved count {distribution}")
    loco = clusters.leave_one_cluster_out
    if all(count is None for count in loco.values()):
        lines.append(
            "leave one cluster out: not estimable (with one cluster left, the ICC has no between-cluster variance)"
        )
    else:
        lines.append("leave one cluster out: " + ", ".join(f"{name} {count}" for name, count in loco.items()))
    lines.append(
        "other cluster definitions: "
        + ", ".join(f"{name} {count}" for name, count in clusters.alternative_definitions.items())
    )
    rows = [
        [
            keys[r["model_a"]],
            keys[r["model_b"]],
            fmt(r["icc"], 3),
            fmt(r["design_effect"], 3),
            item_count(r["required_n_cluster"]),
            "resolved" if r["resolved_cluster"] else "UNRESOLVED",
        ]
        for _, r in listed.iterrows()
    ]
    lines.append(grid(["A", "B", "ICC(D)", "DE", "N* cluster", "verdict"], rows, markdown))
    return lines


class ChecklistTally:
    """The pair-table figures the checklist needs, gathered block by block.

    A streamed audit never holds its pair table: the Parquet writer hands each block to ``add`` as it writes it, so
    the checklist covers every pair written, as the JSON report's covers every pair in memory.

    Attributes
    ----------
    pairs : int
        Rows seen.
    """

    _COLUMNS = ("delta", "mde", "resolved", "required_n_p05")

    def __init__(self) -> None:
        self.pairs = 0
        self._parts: dict[str, list[pd.Series]] = {name: [] for name in self._COLUMNS}

    def add(self, frame) -> None:
        """Count one block of the pair table (a pandas DataFrame or a pyarrow Table)."""
        names = list(frame.columns) if isinstance(frame, pd.DataFrame) else frame.column_names
        present = [name for name in self._COLUMNS if name in names]
        block = frame[present] if isinstance(frame, pd.DataFrame) else frame.select(present).to_pandas()
        self.pairs += len(block)
        for name in present:
            self._parts[name].append(block[name])

    def column(self, name: str) -> pd.Series | None:
        """Every value of ``name`` seen, or None when no block had the column."""
        parts = self._parts[name]
        return pd.concat(parts, ignore_index=True) if parts else None


def _median_mde(mde: pd.Series) -> str:
    """The checklist's MDE: the median of the pairs' own MDEs (not the headline's MDE at the median rho and mean score).

    A pair with a plug-in variance of 0 (the same difference on every item) has no MDE (NaN, JSON null): no gap
    is detectable from it, so such pairs are left out and counted.
    """
    defined = mde[mde > 0]
    zero = len(mde) - len(defined)
    text = (
        f"median of the pairs' own MDEs {defined.median():.4g} ({plural(len(defined), 'pair')}; Eq. 4, each at its own "
        "variance)"
        if len(defined)
        else "n/a"
    )
    return text + (f"; n/a for {plural(zero, 'pair')} with a plug-in variance of 0" if zero else "")


def checklist(audit, tally: ChecklistTally | None = None) -> list[dict]:
    """The paper's Appendix I checklist, filled in for a per-item audit.

    Parameters
    ----------
    audit : AuditResult or StreamedAudit
        A per-item audit.
    tally : ChecklistTally, optional
        Its pair table's figures, gathered while the table was written (a streamed audit); default: from
        ``audit.pairs`` (an audit in memory).

    Returns
    -------
    list of dict
        One dict per checklist item.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Appendix I.
    """
    if tally is None:
        tally = ChecklistTally()
        tally.add(audit.pairs)
    matrix = audit.matrix
    arbiters = "McNemar chi-square, exact, mid-p" if matrix.binary else "paired t"
    arbiters += "; paired bootstrap" if audit.n_resamples else " (no paired bootstrap: n_resamples = 0)"
    bootstrap = tally.column("required_n_p05")
    if bootstrap is not None:
        robust = int((bootstrap > matrix.n_items).sum())
        interval = (
            f"B = {audit.n_resamples} bootstrap; {plural(robust, 'pair')} robustly unresolved (5th percentile > N)"
        )
    elif audit.n_resamples and not matrix.binary:
        interval = (
            f"computed for 0/1 scores only (graded scores: the B = {audit.n_resamples} paired bootstrap gives the "
            "gap's interval boot_ci and p_bootstrap)"
        )
    else:
        interval = "not computed (n_resamples = 0)"
    gaps, count, resolved = tally.column("delta").abs(), tally.pairs, int(tally.column("resolved").sum())
    return [
        {
            "quantity": "delta-hat",
            "value": f"{plural(count, 'gap')}, |delta| from {gaps.min():.4g} to {gaps.max():.4g}",
            "why": "headline effect",
        },
        {"quantity": "paired test", "value": arbiters, "why": "matches the metric"},
        {"quantity": "N", "value": f"{matrix.n_items} paired items", "why": "budget"},
        {"quantity": "delta_MDE", "value": _median_mde(tally.column("mde")), "why": "current-N resolution"},
        {
            "quantity": "q = N/N*",
            "value": f"{resolved} of {plural(count, 'pair')} {'has' if resolved == 1 else 'have'} q >= 1",
            "why": "gap supported when q >= 1",
        },
        {"quantity": "N* CI", "value": interval, "why": "does the N* interval straddle N"},
        {
            "quantity": "multiplicity",
            "value": f"family '{audit.family}' of {audit.family_size:,}; Bonferroni "
            f"x{audit.multiplicity.inflation.bonferroni:.3g}; BH "
            f"{plural(audit.multiplicity.bh_rejections, 'rejection')}",
            "why": "family-level claims",
        },
        {
            "quantity": "per-item raw matrix",
            "value": f"{matrix.n_items:,} x {matrix.n_models:,} scores from {matrix.source}",
            "why": "third-party check",
        },
    ]
