"""``llm-power-verified plan gap | items | accuracies | report | repeats``: how many items resolve a target.

How many items (and clusters) resolve a target, and how long a monitored test runs.  One subcommand per source, each
offered only the options it uses.
"""

from __future__ import annotations

import argparse

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli import plan_repeats
from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.inputs import (
    accuracy_options,
    check_json_report,
    input_options,
    read_accuracy_table,
    read_matrix,
)
from llm_power_verified.cli.options import Parser
from llm_power_verified.cli.parents import alpha_power_options, anytime_options, marginal_options
from llm_power_verified.cli.plan_min_effect import min_effect_cells, min_effect_lines, report_min_effect, scenario_lines
from llm_power_verified.cli.text_tables import render_rows
from llm_power_verified.cli.value_types import MIN_EFFECT, SIZE, number, size_list
from llm_power_verified.contract import CORRECTIONS
from llm_power_verified.io.output import json_text
from llm_power_verified.numeric import exact

__all__ = ["add_parser", "run"]

TOP = number(integer=True, low=2, high=1_000_000)
_ICC_RANGE = number(low=0, high=1)


def _icc(text: str) -> float:
    """--icc: a planned ICC, in [0, 1], refused with the reason (see ``plan.clusters.ICC_RANGE_REASON``)."""
    from llm_power_verified.plan.clusters import ICC_RANGE_REASON

    try:
        return _ICC_RANGE(text)
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"{error} ({ICC_RANGE_REASON})") from None


def _options(
    *, top: bool, cluster_sizes: str | None, rho: str | None = None, correction: bool = True, min_effect: str = ""
) -> argparse.ArgumentParser:
    """The options every plan has (--json), with --top, --correction, --cluster-sizes and --rho where they apply.

    A saved report is planned with the correction it was written with, so ``plan report`` has no --correction.
    """
    parent = argparse.ArgumentParser(add_help=False)
    if top:
        parent.add_argument("--top", type=TOP, help="plan for the adjacent pairs among the top K models (default: all)")
    if correction:
        parent.add_argument(
            "--correction",
            choices=CORRECTIONS,
            default=CORRECTIONS[0],
            help="the family's correction (Holm and BH are planned at alpha/m, the level that guarantees the power)",
        )
    if cluster_sizes:
        parent.add_argument(
            "--cluster-sizes",
            type=size_list,
            help=f"items per cluster to tabulate ({cluster_sizes}; default 1,2,5,...,1000)",
        )
    if rho:
        parent.add_argument("--rho", type=number(low=-1, high=1), help=rho)
    if top:
        parent.add_argument(
            "--min-effect",
            type=MIN_EFFECT,
            metavar="DELTA",
            help="a smallest gap of interest in score units, in [2^-53, 1) (0.02 = 2 points): also plan "
            f"the items that resolve a true gap of DELTA in each pair, {min_effect}, at the same level",
        )
    parent.add_argument("--json", action="store_true", help="print one JSON object")
    return parent


_ASSUMED_RHO = "an assumed correlation for every pair, labelled as an assumption (needed by --anytime)"
#: Where each subcommand's --min-effect plans a true gap of DELTA.
_AT_ITEMS = "at its observed discordance (0/1 scores) or observed variance of the differences (graded)"
_AT_ACCURACIES = (
    "at the discordance implied by each end of its admissible rho and by --rho (accuracies have no observed "
    "discordance)"
)
_AT_REPORT = (
    f"{_AT_ITEMS}, or for an accuracies-only report at the discordance implied by each end of its admissible rho and "
    "by --rho; default: the report's settings.min_effect (null: none)"
)


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``plan`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "plan",
        help="items (and clusters) that resolve a target; stopping N of a monitored test",
        description=(
            "Plan a benchmark.  plan gap: the items that resolve one gap at a correlation, in a declared family, with "
            "the trade-off between items per cluster and clusters (--icc) and the expected and 90th-percentile "
            "stopping "
            "N of the monitored (e-process) test (--anytime).  plan items | accuracies | report: from an audit of "
            "per-item results (read as audit reads them), of accuracies only (as audit-accuracies reads them) or a "
            "saved JSON report, the items that resolve every adjacent pair among the top --top models, and how many "
            "more that is.  plan repeats: items against generations per item, the cheapest (N, K) that resolves "
            "each gap, from a pilot with several generations per item or declared variances."
        ),
    )
    sources = parser.add_subparsers(
        dest="source", metavar="SOURCE", required=True, parser_class=Parser, help="what the plan starts from"
    )
    gap = sources.add_parser(
        "gap",
        parents=[
            marginal_options(required=True),
            alpha_power_options(),
            anytime_options(),
            _options(top=False, cluster_sizes="needs --icc"),
        ],
        help="one gap --p-a --p-b --rho: the items that resolve it",
        description="The items that resolve one gap at a correlation, in a declared family of --family-size "
        "comparisons.",
    )
    gap.add_argument("--family-size", type=SIZE, default=1, help="comparisons in the declared family")
    gap.add_argument(
        "--icc", type=_icc, help="intra-cluster correlation of the differences, in [0, 1], for the cluster trade-off"
    )
    items = sources.add_parser(
        "items",
        parents=[
            input_options(required=True),
            alpha_power_options(),
            anytime_options(),
            _options(top=True, cluster_sizes="needs --cluster-column", min_effect=_AT_ITEMS),
        ],
        help="per-item results INPUT...: the items that resolve every adjacent pair",
        description="Plan from an audit of per-item results, read exactly as audit reads them (without resamples).",
    )
    items.set_defaults(rho=None)  # measured from the items, never assumed
    accuracies = sources.add_parser(
        "accuracies",
        parents=[
            accuracy_options(),
            alpha_power_options(),
            anytime_options(),
            _options(top=True, cluster_sizes=None, rho=_ASSUMED_RHO, min_effect=_AT_ACCURACIES),
        ],
        help="one accuracy per model (a table, or result files FILE...): the items that resolve every adjacent pair",
        description=(
            "Plan from an audit of accuracies only, read as audit-accuracies reads them: at each pair's smallest "
            "and largest admissible rho, and at an assumed --rho."
        ),
    )
    accuracies.set_defaults(cluster_sizes=None)  # accuracies have no clusters
    report = sources.add_parser(
        "report",
        parents=[
            anytime_options(),
            _options(
                top=True,
                cluster_sizes="needs a report with clusters",
                rho=_ASSUMED_RHO + "; accuracies-only reports",
                correction=False,
                min_effect=_AT_REPORT,
            ),
        ],
        help="a saved audit report JSON: the items that resolve every adjacent pair",
        description=(
            "Plan from a report saved by audit --format json or audit-accuracies --format json, at its alpha, power "
            "and correction (its settings.correction)."
        ),
    )
    report.set_defaults(correction=None)  # the report's own
    report.add_argument("report", metavar="JSON", help="the saved report")
    plan_repeats.add_parser(sources)


def _check_gap(arguments) -> None:
    if arguments.cluster_sizes and arguments.icc is None:
        raise CommandError("--cluster-sizes needs --icc (the cluster trade-off is at an intra-cluster correlation)")


def _audit(arguments):
    """The audit's figures and the notes of how its input was read.

    The figures come from a saved report, or an audit run now (accuracies only, or per-item without resamples); the
    notes
    (the scale of the accuracies, inconsistent inputs, rows left out) are as audit prints them.
    """
    from llm_power_verified.plan import AuditFigures, read_audit_report

    if arguments.source == "report":
        check_json_report(arguments.report)  # a Parquet/CSV/JSONL report: say which format plan report reads
        return read_audit_report(arguments.report), ()
    if arguments.source == "accuracies":
        from llm_power_verified.leaderboard.accuracies import audit_accuracies

        source = read_accuracy_table(arguments)
        audit = audit_accuracies(source, alpha=arguments.alpha, power=arguments.power, correction="none")
    else:
        from llm_power_verified.leaderboard.audit import audit_leaderboard

        source = read_matrix(arguments)
        audit = audit_leaderboard(
            source, "adjacent", alpha=arguments.alpha, power=arguments.power, n_resamples=0, n_cluster_resamples=0
        )
    return AuditFigures.of(audit), tuple(source.notes)


def _stopping(arguments, p_a: float, p_b: float, rho: float, alpha: float) -> dict:
    from llm_power_verified.sequential.stopping import stopping_time

    return stopping_time(
        p_a, p_b, rho, alpha=alpha, mixture=arguments.mixture, quantile=arguments.quantile, horizon=arguments.horizon
    ).to_dict()


def _gap(arguments) -> tuple[dict, list[str]]:
    from llm_power_verified.plan import cluster_tradeoff, plan_gap

    plan = plan_gap(
        arguments.p_a,
        arguments.p_b,
        arguments.rho,
        alpha=arguments.alpha,
        power=arguments.power,
        family_size=arguments.family_size,
        correction=arguments.correction,
    )
    document = {"plan": plan.to_dict()}
    lines = [
        (
            f"gap {plan.p_a:g} - {plan.p_b:g} at rho {plan.rho:g}: sigma_D^2 = {plan.variance:.6g}; family of "
            f"{plan.family_size}, "
            f"level {plan.level:.4g} ({plan.level_reason})"
        ),
        f"items that resolve it: {plan.items:,.0f} (N* = {plan.required_n:.6g}; {plan.required_n_at_alpha:.6g} at "
        "alpha itself)",
    ]
    if arguments.icc is not None:
        table = cluster_tradeoff(plan.required_n, arguments.icc, arguments.cluster_sizes)
        document["clusters"] = table.to_dict(orient="records")
        lines += ["", f"clusters at ICC {arguments.icc:g} (design effect 1 + (m - 1) ICC):", _tradeoff(table)]
    return document, lines


def _tradeoff(table) -> str:
    rows = [
        {
            "m": int(row.items_per_cluster),
            "de": float(row.design_effect),
            "items": f"{int(row.items):,}",
            "clusters": f"{int(row.clusters):,}",
        }
        for row in table.itertuples()
    ]
    return render_rows(
        rows,
        [("m", "items per cluster"), ("de", "design effect"), ("items", "items"), ("clusters", "clusters")],
        "table",
    )


def _leaderboard(arguments, rho: float | None) -> tuple[dict, list[str], object]:
    from llm_power_verified.plan import plan_leaderboard
    from llm_power_verified.plan.figures import generations_per_item

    figures, input_notes = _audit(arguments)
    min_effect, whose_delta = report_min_effect(arguments.min_effect, figures.min_effect, arguments.source == "report")
    plan = plan_leaderboard(figures, arguments.top, correction=arguments.correction, rho=rho, min_effect=min_effect)
    whose = " (the report's settings.correction)" if arguments.source == "report" else ""
    lines = [
        f"adjacent pairs among the top {plan.top}: a family of {plan.family_size}, correction "
        f"{plan.correction}{whose}, "
        f"level {plan.level:.4g} ({plan.level_reason})",
        f"benchmark now: {plan.n_items:,} items"
        + (f", {generations_per_item(figures.generations)}" if figures.generations else ""),
    ]
    lines += scenario_lines(plan, rho)
    if plan.min_effect is not None:
        lines += min_effect_lines(plan, rho, whose_delta)
    lines += [f"note: {note}" for note in (*input_notes, *plan.notes)]
    document = {"plan": plan.to_dict(), "input_notes": list(input_notes)}
    if arguments.source == "report":
        document["report_min_effect"] = figures.min_effect  # the audit's own DELTA, beside the plan's
    if "clustered" in plan.required_n and "icc" in figures.pairs and figures.mean_cluster_size:
        lines += _clustered_tradeoff(arguments, figures, plan, document)
    elif arguments.cluster_sizes:
        raise CommandError("--cluster-sizes needs an audit with clusters (--cluster-column, or a report that has them)")
    return document, lines, figures


def _clustered_tradeoff(arguments, figures, plan, document: dict) -> list[str]:
    """The limiting pair's trade-off at its observed ICC, the observed size-weighted cluster size among the rows."""
    from llm_power_verified.plan import cluster_tradeoff
    from llm_power_verified.plan.clusters import DEFAULT_SIZES

    model_a, model_b = plan.limiting["clustered"].split(" vs ", 1)
    row = figures.pairs[(figures.pairs["model_a"] == model_a) & (figures.pairs["model_b"] == model_b)].iloc[0]
    limiting = plan.pairs[(plan.pairs["model_a"] == model_a) & (plan.pairs["model_b"] == model_b)].iloc[0]
    # Equal clusters of the size-weighted size sum m^2/N have the design effect of the observed unequal ones.
    weighted_size = figures.weighted_cluster_size or figures.mean_cluster_size
    sizes = sorted(set(arguments.cluster_sizes or DEFAULT_SIZES) | {max(round(weighted_size), 1)})
    icc = float(row["icc"])
    table = cluster_tradeoff(
        float(limiting["required_n_observed"]), max(icc, 0.0), sizes
    )  # a negative estimate counts as 0
    document["clusters"] = {
        "pair": plan.limiting["clustered"],
        "icc": icc,
        "icc_planned": max(icc, 0.0),
        "mean_cluster_size": figures.mean_cluster_size,
        "weighted_cluster_size": weighted_size,
        "table": table.to_dict(orient="records"),
    }
    counted = ", counted as 0 as the paper counts a negative ICC," if icc < 0 else ""
    return [
        "",
        (
            f"clusters for {plan.limiting['clustered']} at its observed ICC {icc:.4g}{counted} (now "
            f"{figures.n_clusters} "
            f"clusters of {figures.mean_cluster_size:.0f} items on average, {weighted_size:.0f} size-weighted (sum "
            "m^2/N, "
            f"the design effect's m)):"
        ),
        _tradeoff(table),
    ]


def _limiting_cells(figures, document: dict, rho: float | None) -> tuple[float, float, float]:
    """(p_a, p_b, rho) of the pair that limits the plan, for --anytime."""
    if figures.accuracies and rho is None:
        raise CommandError("--anytime from accuracies needs an assumed --rho (the stopping time depends on it)")
    if not figures.binary:
        raise CommandError("--anytime plans the 0/1 e-process; the audit holds graded scores")
    limiting = document["plan"]["limiting"]["assumed" if figures.accuracies else "observed"]
    model_a, model_b = limiting.split(" vs ", 1)
    row = figures.pairs[(figures.pairs["model_a"] == model_a) & (figures.pairs["model_b"] == model_b)].iloc[0]
    return float(row["p_a"]), float(row["p_b"]), rho if figures.accuracies else float(row["rho"])


@docfill("arguments", returns="cli_report")
def run(arguments) -> str:
    """Run ``llm-power-verified plan`` on the parsed command line."""
    if arguments.source == "repeats":
        return plan_repeats.run(arguments)
    if arguments.source == "gap":
        _check_gap(arguments)
        document, lines = _gap(arguments)
        cells, alpha, figures = (arguments.p_a, arguments.p_b, arguments.rho), arguments.alpha, None
    else:
        rho = arguments.rho
        document, lines, figures = _leaderboard(arguments, rho)
        cells = _limiting_cells(figures, document, rho) if arguments.anytime else None
        alpha = figures.alpha  # a saved report's own level
    if arguments.anytime:
        lines += _anytime(arguments, document, cells, alpha, figures)
    return json_text(document) if arguments.json else "\n".join(lines)


def _anytime(arguments, document: dict, cells, alpha: float, figures) -> list[str]:
    """The monitored test's stopping N at the family's level (document["anytime"]), and at a true gap of DELTA."""
    from llm_power_verified.sequential.stopping import stopping_time_at_cells

    p_a, p_b, rho = cells
    level, why = _monitored_level(alpha, document["plan"]["family_size"], document["plan"]["correction"])
    stopping = _stopping(arguments, p_a, p_b, rho, level)  # its "alpha" is the level used
    document["anytime"] = stopping
    head = f"monitored test ({arguments.mixture} mixture, stop at e >= {1 / level:g}: {why})"
    lines = [
        "",
        f"{head} for {p_a:g} vs {p_b:g} at rho {rho:g}, {stopping['method']}{_se(stopping)}:",
        _stopping_line(stopping, arguments.quantile),
    ]
    found = min_effect_cells(document["plan"], figures.accuracies) if figures is not None else None
    if found is not None:
        pair, psi, p10, p01 = found
        at_delta = stopping_time_at_cells(
            p10, p01, level, arguments.mixture, arguments.quantile, arguments.horizon
        ).to_dict()
        document["anytime_min_effect"] = {"pair": pair, "discordance": psi, **at_delta}
        delta = document["plan"]["min_effect"]
        lines += [
            f"at a true gap of {exact(delta)} in {pair} (psi {psi:.4g}: p10 = {p10:.4g}, p01 = {p01:.4g}), the same "
            f"threshold, {at_delta['method']}{_se(at_delta)}:",
            _stopping_line(at_delta, arguments.quantile),
        ]
    return lines


def _se(stopping: dict) -> str:
    if stopping["method"] != "simulation":
        return ""
    return f" (Monte Carlo SE {stopping['expected_n_se']:.3g} and {stopping['quantile_n_se']:.3g})"


def _monitored_level(alpha: float, family_size: int, correction: str) -> tuple[float, str]:
    """The monitored test's level in the declared family, and why: Bonferroni on the e-values, alpha / m.

    Each of m e-processes stopped at e >= m / alpha rejects a true null with probability at most alpha / m (Ville's
    inequality), so the family-wise error is at most alpha under any dependence; Sidak's level needs independence
    and Holm's or BH's steps depend on the other pairs, so every correction but "none" monitors at alpha / m.
    """
    if correction == "none" or family_size == 1:
        return alpha, "1/alpha, each comparison at alpha" + (" (correction none)" if family_size > 1 else "")
    return alpha / family_size, (
        f"m/alpha, Bonferroni on the e-values over the family of {family_size}, valid under any dependence"
    )


def _stopping_line(stopping: dict, quantile: float) -> str:
    crossed = stopping["probability_crossed"]
    where = f"P(crossing within {stopping['horizon']:,} discordant items) = {crossed:.6f}"
    if crossed < 1 - 1e-6:
        mean = (
            "some runs do not cross within the horizon, so the expected stopping N is beyond it (a larger --horizon "
            "shows "
            f"more); mean {stopping['expected_n']:,.0f} among the runs that cross within it"
        )
    else:
        mean = f"expected stopping N {stopping['expected_n']:,.0f}"
    value = stopping["quantile_n"]
    return (
        f"  {mean}; {quantile:g} quantile "
        + ("never reached" if value == float("inf") else f"{value:,.0f}")
        + f"; {where}"
    )
