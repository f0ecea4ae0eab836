"""``llm-power-verified plan``: how many items (and clusters) resolve a target, and how long a monitored test runs."""

from __future__ import annotations

import argparse

from llm_power_verified.cli.options import (
    PROBABILITY,
    SIZE,
    CommandError,
    alpha_power_options,
    marginal_options,
    number,
    render_rows,
)
from llm_power_verified.io.output import json_text

__all__ = ["add_parser", "run"]

TOP = number(integer=True, low=2, high=1_000_000)
HORIZON = number(integer=True, low=100, high=50_000_000)
ICC = number(low=-1, high=1)


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be whole numbers separated by commas; got {text[:40]!r}") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"cluster sizes must be whole numbers >= 1; got {text[:40]!r}")
    return sizes


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "plan",
        parents=[marginal_options(), alpha_power_options()],
        help="items (and clusters) that resolve a target; stopping N of a monitored test",
        description=(
            "Plan a benchmark.  One gap: --p-a --p-b --rho [--family-size M --correction C] gives the items that resolve it; "
            "--icc adds the trade-off between items per cluster and clusters (design effect); --anytime adds the expected "
            "and 90th-percentile stopping N of the monitored (e-process) test, from the exact distribution of the "
            "discordant sequence.  From an audit: --from INPUT ... (per-item results, as audit reads them) or --summary FILE "
            "(accuracies only) gives the items that resolve every adjacent pair among the top --top models, and how many "
            "more that is."
        ),
    )
    parser.add_argument("--from", dest="inputs", nargs="+", metavar="INPUT", help="per-item results to plan from (as audit reads them)")
    parser.add_argument("--summary", metavar="FILE", help="accuracies-only leaderboard to plan from (as audit --summary reads it)")
    parser.add_argument("--report", metavar="JSON", help="a saved audit report to plan from (audit [--summary] --format json)")
    parser.add_argument("--n", type=SIZE, help="--summary: the benchmark size, when the table has no n column")
    parser.add_argument("--accuracy-scale", choices=("auto", "percent", "fraction"), default="auto", help="--summary: accuracy scale")
    parser.add_argument("--accuracy-column", default="accuracy", help="--summary: the accuracy column")
    parser.add_argument("--cluster-column", help="--from: the column of each item's cluster label (adds the clustered plan)")
    parser.add_argument("--item-column", default="item_id", help="--from: the item id column")
    parser.add_argument("--scores", choices=("auto", "binary", "graded"), default="auto", help="--from: score kind")
    parser.add_argument("--top", type=TOP, help="plan for the adjacent pairs among the top K models (default: all)")
    parser.add_argument("--family-size", type=SIZE, default=1, help="one gap: comparisons in the declared family")
    parser.add_argument("--correction", choices=("bonferroni", "holm", "bh", "sidak", "none"), default="holm",
                        help="the family's correction (Holm and BH are planned at alpha/m, the level that guarantees the power)")
    parser.add_argument("--icc", type=ICC, help="one gap: intra-cluster correlation of the differences, for the cluster trade-off")
    parser.add_argument("--cluster-sizes", type=_sizes, help="items per cluster to tabulate (default 1,2,5,...,1000)")
    parser.add_argument("--anytime", action="store_true", help="add the monitored test's stopping N (expected and --quantile)")
    parser.add_argument("--mixture", choices=("grid", "beta", "two-point"), default="grid", help="--anytime: the e-process mixture")
    parser.add_argument("--quantile", type=PROBABILITY, default=0.9, help="--anytime: the stopping-N quantile (default 0.9)")
    parser.add_argument("--horizon", type=HORIZON,
                        help="--anytime: discordant items followed (above 200,000 the distribution is simulated)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


#: Options that belong to one source, with their defaults: given another value for another source they are refused.
_SOURCE_OPTIONS = {
    "items": {"cluster_column": ("--cluster-column", None), "item_column": ("--item-column", "item_id"), "scores": ("--scores", "auto")},
    "accuracies": {"n": ("--n", None), "accuracy_scale": ("--accuracy-scale", "auto"), "accuracy_column": ("--accuracy-column", "accuracy")},
    "gap": {"family_size": ("--family-size", 1), "icc": ("--icc", None)},
}
_ANYTIME_OPTIONS = {"mixture": ("--mixture", "grid"), "quantile": ("--quantile", 0.9), "horizon": ("--horizon", None)}


def _refuse_unused(arguments, source: str) -> None:
    """Every option given must be used by this source: nothing is ignored silently."""
    for owner, options in _SOURCE_OPTIONS.items():
        for name, (flag, default) in options.items():
            if owner != source and getattr(arguments, name) != default:
                raise CommandError(f"{flag} is for {'one gap' if owner == 'gap' else '--from' if owner == 'items' else '--summary'}; "
                                   f"this plan is from {'one gap' if source == 'gap' else 'an audit'}")
    if not arguments.anytime:
        for name, (flag, default) in _ANYTIME_OPTIONS.items():
            if getattr(arguments, name) != default:
                raise CommandError(f"{flag} is for --anytime")
    if source == "gap" and arguments.top is not None:
        raise CommandError("--top chooses models of an audit; one gap has none (give --family-size for its family)")
    if source == "gap" and arguments.cluster_sizes and arguments.icc is None:
        raise CommandError("--cluster-sizes needs --icc (the cluster trade-off is at an intra-cluster correlation)")


def _source(arguments):
    """The plan's source: a gap, per-item results, accuracies or a saved report; refuses mixtures and unused options."""
    given = [name for name, value in (("--from", arguments.inputs), ("--summary", arguments.summary), ("--report", arguments.report))
             if value]
    marginals = [arguments.p_a, arguments.p_b]
    if len(given) > 1:
        raise CommandError(f"give one of --from, --summary and --report, not {' and '.join(given)}")
    if not given:
        if None in marginals or arguments.rho is None:
            raise CommandError("give --p-a --p-b --rho (one gap), --from INPUT (per-item results), --summary FILE (accuracies) "
                               "or --report JSON (a saved audit)")
        source = "gap"
    else:
        if any(value is not None for value in marginals):
            raise CommandError(f"--p-a and --p-b describe one gap; {given[0]} plans from the audit's own figures")
        if arguments.inputs and arguments.rho is not None:
            raise CommandError("--rho is measured from per-item results; it is for --summary (an assumed correlation)")
        source = "items" if arguments.inputs else "accuracies" if arguments.summary else "report"
    _refuse_unused(arguments, source)
    return source


def _audit(arguments, source: str):
    """The audit's figures: a saved report, or an audit run now (accuracies only, or per-item without resamples)."""
    from llm_power_verified.plan import AuditFigures, read_audit_report

    if source == "report":
        return read_audit_report(arguments.report)
    return AuditFigures.of(_run_audit(arguments, source))


def _run_audit(arguments, source: str):
    if source == "accuracies":
        from llm_power_verified.io.accuracy_table import read_accuracies
        from llm_power_verified.leaderboard.accuracies import audit_accuracies

        table = read_accuracies(arguments.summary, n=arguments.n, accuracy_column=arguments.accuracy_column, scale=arguments.accuracy_scale)
        return audit_accuracies(table, alpha=arguments.alpha, power=arguments.power, correction="none")
    from llm_power_verified.io import read_scores
    from llm_power_verified.leaderboard.audit import audit_leaderboard

    matrix = read_scores(arguments.inputs if len(arguments.inputs) > 1 else arguments.inputs[0], item_column=arguments.item_column,
                         cluster_column=arguments.cluster_column, score_kind=arguments.scores)
    return audit_leaderboard(matrix, "adjacent", alpha=arguments.alpha, power=arguments.power, n_resamples=0, n_cluster_resamples=0)


def _stopping(arguments, p_a: float, p_b: float, rho: float) -> dict:
    from llm_power_verified.sequential.stopping import stopping_time

    return stopping_time(p_a, p_b, rho, alpha=arguments.alpha, mixture=arguments.mixture, quantile=arguments.quantile,
                         horizon=arguments.horizon).to_dict()


def _gap(arguments) -> tuple[dict, list[str]]:
    from llm_power_verified.plan import cluster_tradeoff, plan_gap

    plan = plan_gap(arguments.p_a, arguments.p_b, arguments.rho, alpha=arguments.alpha, power=arguments.power,
                    family_size=arguments.family_size, correction=arguments.correction)
    document = {"plan": plan.to_dict()}
    lines = [(f"gap {plan.p_a:g} - {plan.p_b:g} at rho {plan.rho:g}: sigma_D^2 = {plan.variance:.6g}; family of {plan.family_size}, "
             f"level {plan.level:.4g} ({plan.level_reason})"),
             f"items that resolve it: {plan.items:,.0f} (N* = {plan.required_n:.6g}; {plan.required_n_at_alpha:.6g} at alpha itself)"]
    if arguments.icc is not None:
        table = cluster_tradeoff(plan.required_n, arguments.icc, arguments.cluster_sizes)
        document["clusters"] = table.to_dict(orient="records")
        lines += ["", f"clusters at ICC {arguments.icc:g} (design effect 1 + (m - 1) ICC):", _tradeoff(table)]
    return document, lines


def _tradeoff(table) -> str:
    rows = [{"m": int(row.items_per_cluster), "de": float(row.design_effect), "items": f"{int(row.items):,}",
             "clusters": f"{int(row.clusters):,}"} for row in table.itertuples()]
    return render_rows(rows, [("m", "items per cluster"), ("de", "design effect"), ("items", "items"), ("clusters", "clusters")], "table")


def _leaderboard(arguments, source: str) -> tuple[dict, list[str], object]:
    from llm_power_verified.plan import plan_leaderboard

    figures = _audit(arguments, source)
    plan = plan_leaderboard(figures, arguments.top, correction=arguments.correction, rho=arguments.rho)
    lines = [f"adjacent pairs among the top {plan.top}: a family of {plan.family_size}, level {plan.level:.4g} ({plan.level_reason})",
             f"benchmark now: {plan.n_items:,} items"]
    for scenario, required in plan.required_n.items():
        more = plan.more_items[scenario]
        label = {"observed": "at the observed rho-hat", "clustered": "with the observed clusters (design effect)",
                 "rho_min": "at each pair's smallest admissible rho (worst case)", "rho_max": "at each pair's largest admissible rho (best case)",
                 "assumed": f"ASSUMING rho = {arguments.rho}"}[scenario]
        lines.append(f"  {label}: N = {required:,.0f} items resolve every one; " +
                     ("already enough" if more == 0 else f"{more:,.0f} more items of the same kind") + f" (limiting pair: {plan.limiting[scenario]})")
    lines += [f"note: {note}" for note in plan.notes]
    document = {"plan": plan.to_dict()}
    if "clustered" in plan.required_n and "icc" in figures.pairs and figures.mean_cluster_size:
        lines += _clustered_tradeoff(arguments, figures, plan, document)
    elif arguments.cluster_sizes:
        raise CommandError("--cluster-sizes needs an audit with clusters (--cluster-column, or a report that has them)")
    return document, lines, figures


def _clustered_tradeoff(arguments, figures, plan, document: dict) -> list[str]:
    """The limiting pair's trade-off at its observed ICC, the observed mean cluster size among the rows."""
    from llm_power_verified.plan import cluster_tradeoff
    from llm_power_verified.plan.clusters import DEFAULT_SIZES

    model_a, model_b = plan.limiting["clustered"].split(" vs ", 1)
    row = figures.pairs[(figures.pairs["model_a"] == model_a) & (figures.pairs["model_b"] == model_b)].iloc[0]
    limiting = plan.pairs[(plan.pairs["model_a"] == model_a) & (plan.pairs["model_b"] == model_b)].iloc[0]
    mean_size = round(figures.mean_cluster_size)
    sizes = sorted(set(arguments.cluster_sizes or DEFAULT_SIZES) | {max(mean_size, 1)})
    table = cluster_tradeoff(float(limiting["required_n_observed"]), float(row["icc"]), sizes)
    document["clusters"] = {"pair": plan.limiting["clustered"], "icc": float(row["icc"]), "mean_cluster_size": figures.mean_cluster_size,
                            "table": table.to_dict(orient="records")}
    return ["", (f"clusters for {plan.limiting['clustered']} at its observed ICC {float(row['icc']):.4g} (now {figures.n_clusters} "
                f"clusters of {figures.mean_cluster_size:.0f} items on average):"), _tradeoff(table)]


def _limiting_cells(arguments, figures, document: dict) -> tuple[float, float, float]:
    """(p_a, p_b, rho) of the pair that limits the plan, for --anytime."""
    if figures.accuracies and arguments.rho is None:
        raise CommandError("--anytime from accuracies needs an assumed --rho (the stopping time depends on it)")
    if not figures.binary:
        raise CommandError("--anytime plans the 0/1 e-process; the audit holds graded scores")
    limiting = document["plan"]["limiting"]["assumed" if figures.accuracies else "observed"]
    model_a, model_b = limiting.split(" vs ", 1)
    row = figures.pairs[(figures.pairs["model_a"] == model_a) & (figures.pairs["model_b"] == model_b)].iloc[0]
    return float(row["p_a"]), float(row["p_b"]), arguments.rho if figures.accuracies else float(row["rho"])


def run(arguments) -> str:
    source = _source(arguments)
    if source == "gap":
        document, lines = _gap(arguments)
        cells = (arguments.p_a, arguments.p_b, arguments.rho)
    else:
        document, lines, figures = _leaderboard(arguments, source)
        cells = _limiting_cells(arguments, figures, document) if arguments.anytime else None
    if arguments.anytime:
        p_a, p_b, rho = cells
        stopping = _stopping(arguments, p_a, p_b, rho)
        document["anytime"] = stopping
        se = f" (Monte Carlo SE {stopping['expected_n_se']:.3g} and {stopping['quantile_n_se']:.3g})" if stopping["method"] == "simulation" else ""
        lines += ["", (f"monitored test ({arguments.mixture} mixture, stop at e >= {1 / arguments.alpha:g}) for {p_a:g} vs {p_b:g} at rho {rho:g}, "
                      f"{stopping['method']}{se}:"),
                  _stopping_line(stopping, arguments.quantile)]
    return json_text(document) if arguments.json else "\n".join(lines)


def _stopping_line(stopping: dict, quantile: float) -> str:
    crossed = stopping["probability_crossed"]
    where = f"P(crossing within {stopping['horizon']:,} discordant items) = {crossed:.6f}"
    if crossed < 1 - 1e-6:
        mean = (f"some runs do not cross within the horizon, so the expected stopping N is beyond it (a larger --horizon shows "
                f"more); mean {stopping['expected_n']:,.0f} among the runs that cross within it")
    else:
        mean = f"expected stopping N {stopping['expected_n']:,.0f}"
    value = stopping["quantile_n"]
    return f"  {mean}; {quantile:g} quantile " + ("never reached" if value == float("inf") else f"{value:,.0f}") + f"; {where}"
