"""``llm-power-verified plan repeats``: items against generations per item, the cheapest (N, K) that resolves a gap.

The variances come from a pilot with several generations per item (read as audit reads it, with --repeat-column,
--repeat-pattern or --epochs all) or are declared (--variances BETWEEN WITHIN); the plan of each pair is
:func:`~llm_power_verified.repeats.planning.plan_generations` (N(K) and K* derived in ``derivations/repeats.py``).
"""

from __future__ import annotations

import argparse
import itertools
import math

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.inputs import input_options, read_matrix
from llm_power_verified.cli.parents import alpha_power_options
from llm_power_verified.cli.text_tables import render_rows
from llm_power_verified.cli.value_types import MIN_EFFECT, number
from llm_power_verified.contract.choices import MIN_GAP
from llm_power_verified.io.escaping import terminal_text
from llm_power_verified.io.output import json_text
from llm_power_verified.numeric import exact

__all__ = ["add_parser", "run"]

#: Both models generate K answers per item (the cost model's m).
MODELS = 2
TOP = number(integer=True, low=2, high=1_000_000, summary="The top models planned (--top)")
K_MAX = number(integer=True, low=1, high=1000, summary="The most generations per item tabulated (--k-max)")
COST = number(low=0, low_open=True, high=1e15, summary="A cost (--cost-item, --cost-generation)")
GAP = number(low=MIN_GAP, high=1, summary="A target gap (--gap)")
#: Scores are in [0, 1]: the difference of two item means varies by at most 1, and the two models' per-generation
#: sample variances (each at most 1/2) sum to at most 1.
VARIANCE = number(low=0, high=1, summary="A variance (--variances)")
DERIVATION = "derivations/repeats.py"
#: The most items the exact plan solves for (N(K) at K = 1 in the normal approximation, larger N with more K).
MOST_ITEMS = 1e7
#: Below this ratio of V(k_max) to gap^2 (a gap of 10^8 standard deviations) the plan is two items at every K.
LEAST_VARIANCE_RATIO = 1e-16
#: The fewest pilot items planned on (2 give variances on 1 degree of freedom), and below how many a note says how
#: uncertain the variances are (see ``_few_items``).
MIN_PILOT_ITEMS = 3
FEW_PILOT_ITEMS = 10
#: Where the options of a pilot INPUT do not apply.
_DECLARED = "--variances declares the variances, so there is no pilot INPUT"


def _add_options(command: argparse.ArgumentParser) -> None:
    """The target, the declared variances or the pilot's pairs, and the cost model of ``plan repeats``.

    Added to the command itself: argparse copies a parent's mutually exclusive groups out of their titled group.
    """
    group = command.add_argument_group("target, pairs and costs")
    target = group.add_mutually_exclusive_group()
    target.add_argument(
        "--gap",
        type=GAP,
        metavar="D",
        help="the gap to resolve, in score units, in [2^-53, 1] (0.02 = 2 points; default from a pilot: each "
        "pair's observed gap; needed with --variances)",
    )
    target.add_argument(
        "--min-effect",
        type=MIN_EFFECT,
        metavar="DELTA",
        help="the declared smallest gap of interest, in [2^-53, 1): plan a true gap of DELTA in every pair",
    )
    group.add_argument(
        "--variances",
        nargs=2,
        type=VARIANCE,
        metavar=("BETWEEN", "WITHIN"),
        help="declared variances instead of a pilot INPUT, each in [0, 1]: BETWEEN the item part of the variance "
        "of the per-item difference, WITHIN the sum of the two models' per-generation (within-item) variances",
    )
    pairs = group.add_mutually_exclusive_group()
    pairs.add_argument("--top", type=TOP, help="a pilot's adjacent pairs among the top K models (default: all)")
    pairs.add_argument("--pair", nargs=2, metavar=("A", "B"), help="a pilot's one pair of models A and B")
    group.add_argument("--k-max", type=K_MAX, default=20, help="the most generations per item tabulated, in [1, 1000]")
    group.add_argument(
        "--cost-item", type=COST, default=1.0, help="the cost of one more item apart from its generations, > 0"
    )
    group.add_argument(
        "--cost-generation", type=COST, default=1.0, help="the cost of one generation of one model on one item, > 0"
    )
    group.add_argument("--json", action="store_true", help="print one JSON object")


def add_parser(sources) -> None:
    """Add ``plan repeats`` (its options and help) to the subcommands of ``plan``.

    Parameters
    ----------
    sources : argparse._SubParsersAction
        ``plan``'s subcommands (gap, items, accuracies, report).
    """
    command = sources.add_parser(
        "repeats",
        parents=[input_options(), alpha_power_options()],
        help="items against generations per item: the cheapest (N, K) that resolves a gap",
        description=(
            "Plan items N against generations per item K: for each pair, the N that resolves the gap at each K = "
            "1..--k-max (exact paired-t power on the item means), its cost N (cost_item + 2 K cost_generation), the "
            "cheapest (N, K) and K*, the K beyond which one more generation buys less precision than its cost spent "
            "on items.  The variances come from a pilot INPUT... with several generations per item, read as audit "
            "reads it (--repeat-column, --repeat-pattern or --epochs all), or from --variances BETWEEN WITHIN."
        ),
    )
    for action in command._actions:  # argparse keeps no public handle on a parent's positional: its help here
        if action.dest == "inputs":
            action.help = "a pilot with several generations per item: score table or Inspect logs (or --variances)"
    _add_options(command)


def _check_declared(arguments, parser_defaults: dict) -> tuple[float, float]:
    """The declared (between, within), after refusing what a declared plan would ignore or cannot plan."""
    if arguments.inputs:
        raise CommandError(f"give a pilot INPUT or --variances, not both ({_DECLARED}): leave one out")
    for dest, default in parser_defaults.items():
        if getattr(arguments, dest, default) != default:
            flag = "--" + dest.replace("_", "-")
            raise CommandError(f"{flag} reads a pilot INPUT; {_DECLARED}, so it would be ignored: leave it out")
    for flag, value in (("--top", arguments.top), ("--pair", arguments.pair)):
        if value is not None:
            raise CommandError(f"{flag} chooses a pilot's pairs; {_DECLARED}, so it would be ignored: leave it out")
    if arguments.gap is None and arguments.min_effect is None:
        raise CommandError("--variances needs the gap to resolve: add --gap D or --min-effect DELTA")
    between, within = arguments.variances
    if between == 0 and within == 0:
        raise CommandError(
            "--variances 0 0: the differences would not vary, so any N resolves any gap; declare a positive "
            "BETWEEN or WITHIN"
        )
    return between, within


def _input_defaults() -> dict:
    """Each option of a pilot INPUT and its default (a declared plan refuses any other value)."""
    defaults = vars(input_options().parse_args([]))
    del defaults["inputs"]
    return defaults


def _pairs(arguments, matrix) -> list[tuple[int, int]]:
    """(higher, lower) model indices: the adjacent pairs among the top --top models, or --pair A B.

    The ranking is the audit's own (:func:`~llm_power_verified.leaderboard.pairs.rank_models` on the canonically
    ordered matrix), so the adjacent pairs are the audit's.
    """
    from llm_power_verified.leaderboard.pairs import rank_models

    names = list(matrix.models)
    if arguments.pair is not None:
        first, second = arguments.pair
        for name in (first, second):
            if name not in names:
                shown = ", ".join(repr(terminal_text(model)) for model in names[:10])
                shown += ", ..." if len(names) > 10 else ""
                raise CommandError(f"--pair: model {terminal_text(name)!r} is not in INPUT (its models: {shown})")
        if first == second:
            raise CommandError(f"--pair {terminal_text(first)!r} {terminal_text(second)!r}: name two different models")
        return [(names.index(first), names.index(second))]
    order = [int(index) for index in rank_models(matrix)]
    if arguments.top is not None and arguments.top > len(order):
        raise CommandError(f"--top {arguments.top}: INPUT has {len(order)} models; give --top {len(order)} or fewer")
    order = order[: arguments.top or len(order)]
    return list(itertools.pairwise(order))


def _pilot(arguments) -> tuple[list[dict], list[str], dict]:
    """Per pair of the pilot: names, observed gap and the variances of its split; the input's notes; what it is."""
    import numpy as np

    from llm_power_verified.leaderboard.streams import canonical_order
    from llm_power_verified.repeats.means import model_means
    from llm_power_verified.repeats.split import pair_split

    if arguments.cluster_column is not None:
        raise CommandError(
            f"--cluster-column {terminal_text(arguments.cluster_column)}: plan repeats plans independent items (no "
            "design effect of clusters), so it would be ignored: leave it out"
        )
    matrix = canonical_order(read_matrix(arguments))  # the audit's order: its ranking and its split's sums
    if matrix.generations is None:
        raise CommandError(
            "plan repeats needs a pilot with several generations per (item, model); INPUT has one score per cell: "
            "read its repeats with --repeat-column NAME (long tables), --repeat-pattern PATTERN (wide tables) or "
            "--epochs all (Inspect logs), or declare --variances BETWEEN WITHIN"
        )
    few = _few_items(matrix.n_items)
    pairs = _pairs(arguments, matrix)
    first, second = (np.array(side, dtype=np.int64) for side in zip(*pairs, strict=True))
    split = pair_split(matrix, first, second)
    means = model_means(matrix)  # the audit's: exact for 0/1 generations, so a tie is a gap of 0
    fewest, most = matrix.generations.count_range
    rows = [
        {
            "model_a": matrix.models[a],
            "model_b": matrix.models[b],
            "observed_gap": float(means[a] - means[b]),
            "gap_variance": float(split.gap_variance[index]),
            "within_part": float(split.within_part[index]),
            "between_variance": float(split.between_variance[index]),
            "within_variance": float(split.within_variance[index]),
            "generation_share": float(split.generation_share[index]),
        }
        for index, (a, b) in enumerate(pairs)
    ]
    counts = f"{fewest}" if fewest == most else f"{fewest} to {most}"
    pilot = {
        "items": matrix.n_items,
        "models": len(matrix.models),
        "generations": [fewest, most],
        "label": matrix.generations.label,
        "text": f"pilot: {matrix.n_items:,} items, {len(matrix.models)} models, {counts} "
        f"{matrix.generations.label}s per (item, model)",
    }
    return rows, [*matrix.notes, *few], pilot


def _few_items(items: int) -> list[str]:
    """Refuse a pilot of fewer than MIN_PILOT_ITEMS items; below FEW_PILOT_ITEMS, the note of how uncertain it is.

    The variances planned on are estimated from the pilot's items: on n - 1 degrees of freedom their 95% interval
    spans a factor of about 5,000 at 2 items (nothing to plan on) and still about 7 at 10.
    """
    from llm_power_verified.repeats.planning import pilot_variance_range

    if items < MIN_PILOT_ITEMS:
        spread = "no variance across items to plan on"
        if items == 2:
            low, high = pilot_variance_range(items)
            spread = f"variances on 1 degree of freedom (the true one {low:.2g} to {high:,.0f} times the estimate, 95%)"
        raise CommandError(
            f"INPUT: the pilot has {items} item{'s' if items != 1 else ''}, so {spread}: a pilot needs at least "
            f"{MIN_PILOT_ITEMS} items ({FEW_PILOT_ITEMS} or more to plan on)"
        )
    if items >= FEW_PILOT_ITEMS:
        return []
    low, high = pilot_variance_range(items)
    return [
        f"the pilot has only {items} items: its variances rest on {items - 1} degrees of freedom (the true ones may "
        f"be {low:.2g} to {high:.3g} times the estimates, 95% chi-square interval), and every N below scales with "
        f"them; a pilot of {FEW_PILOT_ITEMS} or more items plans more surely"
    ]


def _target(arguments, row: dict) -> tuple[float | None, str]:
    """The gap planned for a pair, and whose it is; None for a tied pilot pair without a declared gap."""
    if arguments.min_effect is not None:
        return arguments.min_effect, "--min-effect"
    if arguments.gap is not None:
        return arguments.gap, "--gap"
    observed = row["observed_gap"]
    return (abs(observed) if observed != 0 else None), "observed"


def _plan_row(arguments, row: dict) -> dict:
    """The pair's plan (its table of N and cost by K) added to its row; a pair no N can resolve says why."""
    from llm_power_verified.repeats.planning import plan_generations

    gap, whose = _target(arguments, row)
    row = {**row, "gap": gap, "gap_source": whose}
    if gap is None:
        return {**row, "skipped": "tied in the pilot: a gap of 0 is never resolved (give --gap D or --min-effect D)"}
    if max(row["between_variance"], 0.0) + row["within_variance"] == 0:
        return {**row, "skipped": "the pilot's item differences do not vary: any N resolves any gap"}
    beyond = _beyond_the_plan(arguments, row, gap)
    if beyond:
        return {**row, "skipped": beyond}
    plan = plan_generations(
        gap,
        row["between_variance"],
        row["within_variance"],
        alpha=arguments.alpha,
        power=arguments.power,
        cost_item=arguments.cost_item,
        cost_generation=arguments.cost_generation,
        k_max=arguments.k_max,
        models=MODELS,
    )
    found = plan.to_dict()
    found["table"] = plan.table.to_dict(orient="records")
    if row.get("gap_variance") == 0 and row["within_variance"] > 0:
        found["notes"] = [
            "the pilot's item-mean differences do not vary (variance 0) although its generations do: their agreement "
            "is chance on these items, so the plan rests on the generation noise alone; a pilot with more items tells",
            *found["notes"],
        ]
    return {**row, **found}


def _beyond_the_plan(arguments, row: dict, gap: float) -> str | None:
    """Why the exact plan is not solved for this gap and these variances (None: it is).

    Beyond MOST_ITEMS items the exact t is the normal answer to a fraction of an item and its whole-N search takes
    seconds per K; beyond a gap of 10^8 standard deviations every K needs the two items a paired t needs.
    """
    from llm_power_verified._generated.repeats import item_mean_variance, required_items_repeated

    between = max(row["between_variance"], 0.0)
    items = required_items_repeated(gap, between, row["within_variance"], 1.0, arguments.alpha, arguments.power, 2)
    if items > MOST_ITEMS:
        return (
            f"about {items:.3g} items at K = 1 (normal approximation): beyond the {MOST_ITEMS:.0e} items this plan "
            "solves; a gap this small is beyond any benchmark (plan a larger --gap or --min-effect)"
        )
    if item_mean_variance(between, row["within_variance"], float(arguments.k_max)) < LEAST_VARIANCE_RATIO * gap**2:
        return "the gap is over 10^8 standard deviations of an item's difference: two items resolve it at every K"
    return None


def _cost(value: float) -> str:
    return f"{value:,.0f}" if value >= 1000 else f"{value:.4g}"


def _count(value) -> str:
    return "inf" if math.isinf(value) else f"{value:,.0f}"


def _k_star(value: float, between: float) -> str:
    """K* in words: below 1, unbounded (a between part of 0), or not estimable (a between part estimated below 0)."""
    if between < 0:
        return "K* not estimable (the between part is estimated negative, not distinguishable from 0: see the note)"
    if math.isinf(value):
        return "K* = inf (the item part is 0: generations always pay)"
    if value < 1:
        return f"K* = {value:.3g} < 1: one generation per item"
    return f"K* = {value:.3g}"


def _table(row: dict) -> str:
    best = row["best_generations"]
    rows = [
        {
            "k": str(entry["generations"]),
            "items": _count(entry["items"]),
            "cost": _cost(entry["cost"]),
            "power": f"{entry['power']:.4f}",
            "best": "<- cheapest" if entry["generations"] == best else "",
        }
        for entry in row["table"]
    ]
    columns = [("k", "K"), ("items", "items N"), ("cost", "cost"), ("power", "power"), ("best", "")]
    return "\n".join(line.rstrip() for line in render_rows(rows, columns, "table").splitlines())  # no padding after


def _pair_name(row: dict) -> str:
    if row.get("model_a") is None:
        return "declared"
    return f"{terminal_text(row['model_a'])} vs {terminal_text(row['model_b'])}"


def _pair_line(row: dict) -> str:
    gap = row["gap"] or 0.0
    shown = f"{gap:.4g}" if row["gap_source"] == "observed" else exact(gap)  # a declared gap as typed
    head = f"{_pair_name(row)}: gap {shown} ({row['gap_source']})"
    if "skipped" in row:
        return f"{head}: {row['skipped']}"
    return (
        f"{head}, between {row['between_variance']:.4g}, within {row['within_variance']:.4g} (per generation, both "
        f"models): cheapest N = {_count(row['best_items'])} items x K = {row['best_generations']}, cost "
        f"{_cost(row['best_cost'])}; {_k_star(row['crossover_generations'], row['between_variance'])}"
    )


def _lines(arguments, rows: list[dict], pilot: dict | None) -> list[str]:
    lines = [
        f"plan repeats: the items N and generations per item K that resolve each gap with power {arguments.power:g} "
        f"at alpha {arguments.alpha:g} (two-sided paired t on the item means, exact noncentral t; each pair at alpha)",
        f"cost model: cost = N x (cost_item + {MODELS} x K x cost_generation) = N x ({arguments.cost_item:g} + "
        f"{MODELS} K x {arguments.cost_generation:g}): both models generate K per item",
        f"N(K) and K* derived in {DERIVATION}; K* is where one more generation buys less precision than its cost "
        "spent on items",
        pilot["text"] if pilot else "declared variances (no pilot)",
        "",
    ]
    lines += [_pair_line(row) for row in rows]
    planned = [row for row in rows if "skipped" not in row]
    if planned:
        costliest = max(planned, key=lambda row: row["best_cost"])
        others = ", the costliest to resolve (every pair's: --json, or --pair A B)" if len(rows) > 1 else ""
        whose = "" if costliest["model_a"] is None else f" for {_pair_name(costliest)}{others}"
        lines += ["", f"N and cost by K{whose}:", _table(costliest)]
    for row in planned:
        whose = "" if row["model_a"] is None else f" ({_pair_name(row)})"
        lines += [f"note{whose}: {terminal_text(note)}" for note in row["notes"]]
    return lines


@docfill("arguments", returns="cli_report")
def run(arguments) -> str:
    """Run ``llm-power-verified plan repeats`` on the parsed command line."""
    if arguments.variances is not None:
        between, within = _check_declared(arguments, _input_defaults())
        rows = [{"model_a": None, "model_b": None, "between_variance": between, "within_variance": within}]
        input_notes, pilot = [], None
    elif not arguments.inputs:
        raise CommandError(
            "plan repeats needs a pilot INPUT... with several generations per item, or --variances BETWEEN WITHIN"
        )
    else:
        rows, input_notes, pilot = _pilot(arguments)
    rows = [_plan_row(arguments, row) for row in rows]
    if pilot is None and "skipped" in rows[0]:
        flag = "--gap" if arguments.gap is not None else "--min-effect"
        raise CommandError(
            f"{flag} {exact(rows[0]['gap'])} at --variances {exact(between)} {exact(within)}: {rows[0]['skipped']}"
        )
    document = {
        "plan": {
            "source": "pilot" if pilot else "declared",
            "pilot": pilot and {key: value for key, value in pilot.items() if key != "text"},
            "alpha": arguments.alpha,
            "power": arguments.power,
            "cost_item": arguments.cost_item,
            "cost_generation": arguments.cost_generation,
            "models": MODELS,
            "k_max": arguments.k_max,
            "cost_model": "cost = N (cost_item + models K cost_generation)",
            "derivation": DERIVATION,
            "pairs": rows,
        },
        "input_notes": input_notes,
    }
    if arguments.json:
        return json_text(document)
    return "\n".join([*(f"note: {terminal_text(note)}" for note in input_notes), *_lines(arguments, rows, pilot)])
