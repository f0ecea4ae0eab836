"""Command line: ``llm-power-verified audit | design | test | crosscheck | audit-calculator | derivations``.

Errors print one line on stderr and exit with status 2; there is never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

from llm_power_verified._validation import MAX_COUNT, MAX_RESAMPLES, check_scalar

PROGRAM = "llm-power-verified"


class CommandError(Exception):
    """A user error the CLI reports in one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # noqa: D401 - argparse hook
        raise CommandError(message)


def _number(*, integer: bool = False, **limits):
    """An argparse type: parse, then the one range check (finite, within limits) before any work."""

    def parse(text: str):
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {'a whole number' if integer else 'a number'}; got {text[:40]!r}") from None
        try:
            return check_scalar("value", value, integer=integer, **limits)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error).removeprefix("value ")) from None

    return parse


PROBABILITY = _number(low=0, high=1, low_open=True, high_open=True)
CORRELATION = _number(low=-1, high=1)
COUNT = _number(integer=True, low=0, high=MAX_COUNT)
SIZE = _number(integer=True, low=1, high=MAX_COUNT)
POSITIVE = _number(low=0, low_open=True)
SEED = _number(integer=True, low=0, high=2**63 - 1)
#: Resample counts are bounded so that a typo cannot exhaust memory (a bootstrap of B resamples holds B x pairs values).
MAX_AUDIT_RESAMPLES = 100_000
RESAMPLES = _number(integer=True, low=100, high=MAX_RESAMPLES)
AUDIT_RESAMPLES = _number(integer=True, low=0, high=MAX_AUDIT_RESAMPLES)
CHECKPOINTS = _number(integer=True, low=1, high=1_000_000)
SCORE_KIND_HELP = ("score kind: binary (every score 0 or 1), graded (any score in [0, 1]), or auto (default: binary when every "
                   "score is 0 or 1; refuses a 0/1 model column with a few stray values, naming the first)")


INPUT_RULES = """\
input rules (README, "Input formats and rules"):
  items are aligned by id (item column, lm-eval (task, doc_id), Inspect sample id), never by position,
  except in plain score files and wide tables without an id column; UTF-8 (a BOM and CRLF are fine);
  a blank line, a wrong field count, a duplicate model/item/(item, model) row or a repeated JSON key
  is an error naming the line; scores are finite numbers in [0, 1]; an empty cell, NA, NaN or null is
  missing (error unless --on-missing intersect); --scores auto refuses a 0/1 column with a few stray
  values (pass --scores graded for partial credit); a missing cluster label is an error unless
  --missing-cluster drop|own; a model constant on every item is kept (rho undefined for its pairs).
  Damaged lm-eval lines and Inspect members (bad CRC, oversized or malformed) are refused by name.
outputs: --out and --plot are checked before any work, written atomically (a symlink's target is
  written; a FIFO or device is written directly) and never over an input or each other.
exit status: 0 success, 2 input or usage error (one line on stderr)."""


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROGRAM, description="Resolution diagnostics for paired LLM comparisons.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    design = commands.add_parser(
        "design",
        help="N*, MDE, q and power for a paired binary comparison",
        description=(
            "From accuracies and correlation (--p-a --p-b --rho) or from an observed 2x2 table "
            "(--b --c --n [--a]), print sigma_D^2, N* (unrounded and integer), MDE, q and power at N, "
            "the admissible rho interval, the shortcut n_h and Lemma 1's C."
        ),
    )
    design.add_argument("--p-a", type=PROBABILITY, help="accuracy of model A, in (0, 1)")
    design.add_argument("--p-b", type=PROBABILITY, help="accuracy of model B, in (0, 1)")
    design.add_argument("--rho", type=CORRELATION, help="correlation of the per-item 0/1 scores")
    design.add_argument("--a", type=COUNT, help="items both models solve (optional with --b --c --n)")
    design.add_argument("--b", type=COUNT, help="items only model A solves")
    design.add_argument("--c", type=COUNT, help="items only model B solves")
    design.add_argument("--n", type=SIZE, help="benchmark size (number of paired items)")
    design.add_argument("--alpha", type=PROBABILITY, default=0.05, help="significance level (default 0.05)")
    design.add_argument("--power", type=PROBABILITY, default=0.8, help="target power (default 0.8)")
    design.add_argument(
        "--alternative", choices=("two-sided", "larger", "smaller"), default="two-sided",
        help="alternative hypothesis; 'larger' means p_a > p_b (default two-sided)",
    )
    design.add_argument("--json", action="store_true", help="print one JSON object")

    test = commands.add_parser(
        "test",
        help="every paired test variant on a 2x2 table or two aligned score files",
        description=(
            "McNemar chi-square (with and without continuity correction), exact and mid-p tests and the "
            "paired bootstrap for binary scores; paired t, Wilcoxon and the bootstrap for graded scores. "
            "Give --b --c [--n] or two files of aligned per-item scores (one number per line; a "
            "non-numeric first line is taken as a header)."
        ),
        epilog=INPUT_RULES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    test.add_argument("files", nargs="*", metavar="FILE", help="two files: scores of model A, then model B")
    test.add_argument("--b", type=COUNT, help="items only model A solves")
    test.add_argument("--c", type=COUNT, help="items only model B solves")
    test.add_argument("--n", type=SIZE, help="number of items (needed for the bootstrap)")
    test.add_argument("--two-sided", choices=("double", "no-more-likely"), default="double",
                      help="two-sided rule of the exact and mid-p tests (default double)")
    test.add_argument("--confidence", type=PROBABILITY, default=0.95, help="bootstrap interval level (default 0.95)")
    test.add_argument("--n-resamples", type=RESAMPLES, default=10_000, help=f"bootstrap resamples, 100 to {MAX_RESAMPLES:,} (default 10000)")
    test.add_argument("--bootstrap-method", choices=("percentile", "bca", "studentized"), default="percentile")
    test.add_argument("--seed", type=SEED, default=0, help="bootstrap seed (default 0; same seed, same output)")
    test.add_argument("--scores", choices=("auto", "binary", "graded"), default="auto", help=SCORE_KIND_HELP)
    test.add_argument("--json", action="store_true", help="print a JSON list, one object per variant")

    audit = commands.add_parser(
        "audit",
        help="resolution audit of a leaderboard from per-item results (the main job)",
        description=(
            "Per-pair resolution report for K models: gap, discordant counts, rho-hat, the four arbiters, "
            "N*, q = N/N*, MDE, verdict, bootstrap interval on N*, rho sensitivity, the shortcut, multiplicity, "
            "clusters, tiers and the paper's reporting checklist.  INPUT: a wide or long table (CSV, Parquet, "
            "JSON Lines), lm-evaluation-harness folders (one per model; --task, --metric), or Inspect logs "
            "(.eval/.json, one per model).  With no INPUT, runs on the shipped MMLU-Pro top-10 example."
        ),
        epilog=INPUT_RULES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    audit.add_argument("inputs", nargs="*", metavar="INPUT")
    audit.add_argument("--mode", choices=("adjacent", "all", "reference"), default="adjacent")
    audit.add_argument("--reference", help="reference model for --mode reference")
    audit.add_argument("--family", choices=("adjacent", "all", "reference"),
                       help="declared multiplicity family (default: the mode)")
    audit.add_argument("--format", choices=("table", "markdown", "json", "csv"), default="table")
    audit.add_argument("--out", help="write the report to this file (atomically; never over an input)")
    audit.add_argument("--plot", help="also save the resolution and efficiency plots to this image file")
    audit.add_argument("--item-column", default="item_id")
    audit.add_argument("--cluster-column", help="column holding each item's cluster label")
    audit.add_argument("--model-column", default="model", help="long tables: the model column")
    audit.add_argument("--score-column", default="score", help="long tables: the score column")
    audit.add_argument("--on-missing", choices=("error", "intersect"), default="error",
                       help="an item some model lacks: error (default) or intersect (keep the items every model has, with a note)")
    audit.add_argument("--scores", choices=("auto", "binary", "graded"), default="auto", help=SCORE_KIND_HELP)
    audit.add_argument("--missing-cluster", choices=("error", "drop", "own"), default="error",
                       help="an item without a cluster label: error (default), drop the item, or make it its own cluster")
    audit.add_argument("--task", help="lm-eval: task or group name")
    audit.add_argument("--metric", help="lm-eval: per-item metric (acc, acc_norm, exact_match, ...)")
    audit.add_argument("--filter", help="lm-eval: filter name when the task has several")
    audit.add_argument("--scorer", help="Inspect: scorer name when a log has several")
    audit.add_argument("--epochs", choices=("first", "mean", "error"), default="first", help="Inspect: repeated epochs (default: keep epoch 1)")
    audit.add_argument("--alpha", type=PROBABILITY, default=0.05, help="significance level (default 0.05)")
    audit.add_argument("--power", type=PROBABILITY, default=0.80, help="target power (default 0.8)")
    audit.add_argument("--n-bootstrap", type=AUDIT_RESAMPLES, default=500, help=f"bootstrap resamples per pair, 0 (skip) to {MAX_AUDIT_RESAMPLES:,} (default 500)")
    audit.add_argument("--cluster-bootstrap", type=AUDIT_RESAMPLES, default=1000, help=f"cluster bootstrap resamples, 0 to {MAX_AUDIT_RESAMPLES:,} (default 1000)")
    audit.add_argument("--seed", type=SEED, default=0, help="seed of every resample (default 0)")

    monitor = commands.add_parser(
        "monitor",
        help="anytime-valid e-process trajectory of a pair, in arrival order",
        description=(
            "Reads two files of aligned 0/1 per-item scores in arrival order (one number per line) and prints the "
            "mixture e-process trajectory at checkpoints, the first item at which e >= 1/alpha, the anytime-valid "
            "p-value min(1, 1/sup e) and the time-uniform confidence sequence for the mean difference."
        ),
    )
    monitor.add_argument("files", nargs=2, metavar="FILE", help="0/1 scores of model A, then model B, one per line, in arrival order")
    monitor.add_argument("--mixture", choices=("grid", "beta", "two-point"), default="grid")
    monitor.add_argument("--alpha", type=PROBABILITY, default=0.05, help="significance level (default 0.05)")
    monitor.add_argument("--checkpoints", type=CHECKPOINTS, default=20, help="rows printed along the trajectory (default 20)")
    monitor.add_argument("--plot", help="save log e_n against n, with the log(1/alpha) line, to this image file")
    monitor.add_argument("--json", action="store_true")

    reproduce = commands.add_parser(
        "reproduce",
        help="printed numbers of the source papers beside values recomputed from their stated inputs",
        description="Each row: location, quantity, stated inputs, printed, computed, relative difference, verdict, reason.",
    )
    reproduce.add_argument("--paper", choices=("all", "main", "embedding", "sample-size"), default="all")
    reproduce.add_argument("--format", choices=("markdown", "json"), default="markdown")
    reproduce.add_argument("--json", action="store_true", help="same as --format json")

    crosscheck = commands.add_parser(
        "crosscheck",
        help="what each power calculator returns for a paired comparison, and the (1 - rho) shortcut",
        description=(
            "Run R's pwr and stats (through Rscript) and statsmodels, reproduce G*Power's and Cohen's "
            "documented formulas, and compare each tool's per-arm output, that output times (1 - rho), "
            "and the correct paired N*.  Defaults: the paper's Table 1 case."
        ),
    )
    crosscheck.add_argument("--p-a", type=PROBABILITY, default=0.65)
    crosscheck.add_argument("--p-b", type=PROBABILITY, default=0.60)
    crosscheck.add_argument("--rho", type=CORRELATION, default=0.30)
    crosscheck.add_argument("--alpha", type=PROBABILITY, default=0.05)
    crosscheck.add_argument("--power", type=PROBABILITY, default=0.80)
    crosscheck.add_argument("--grid", action="store_true", help="also compare n_h/N* with Lemma 1 over a (p, rho, delta) grid")
    crosscheck.add_argument("--format", choices=("table", "markdown", "json"), default="table")
    crosscheck.add_argument("--json", action="store_true", help="same as --format json")

    audit_calculator = commands.add_parser(
        "audit-calculator",
        help="which calculator convention produced a sample size, and the correct paired N*",
        description=(
            "Given the design and a claimed paired N (or a tool name and its native output), name the "
            "convention it matches (one-sample arcsine, two-sample arcsine, unpaired Wald, two-proportion z, "
            "the (1 - rho) shortcut, correct paired) and the factor to the correct N*."
        ),
    )
    audit_calculator.add_argument("--p-a", type=PROBABILITY, required=True)
    audit_calculator.add_argument("--p-b", type=PROBABILITY, required=True)
    audit_calculator.add_argument("--rho", type=CORRELATION, required=True)
    audit_calculator.add_argument("--alpha", type=PROBABILITY, default=0.05)
    audit_calculator.add_argument("--power", type=PROBABILITY, default=0.80)
    audit_calculator.add_argument("--claimed-n", type=POSITIVE, help="the paired sample size to audit")
    audit_calculator.add_argument("--tool", help="a tool whose native output you multiplied by (1 - rho): "
                                  "pwr.p.test, pwr.2p.test, NormalIndPower, power.prop.test, miller")
    audit_calculator.add_argument("--tool-output", type=POSITIVE, help="the tool's native (per-arm) output")
    audit_calculator.add_argument("--format", choices=("table", "markdown", "json"), default="table")
    audit_calculator.add_argument("--json", action="store_true", help="same as --format json")

    derivations = commands.add_parser(
        "derivations",
        help="regenerate or check the code generated from derivations/",
        description="Run the SymPy derivations (needs the repository's derivations/ package).",
    )
    derivations.add_argument("action", choices=("regenerate", "check"))
    return parser


def _format(value) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        if math.isinf(value):
            return "inf"
        return f"{value:.7g}"
    return str(value)


_LABELS = (
    ("delta", "gap delta = p_A - p_B"),
    ("variance", "sigma_D^2 (Eq. 5)"),
    ("required_n", "N* unrounded (Eq. 6)"),
    ("required_n_integer", "N* (integer, ceiling)"),
    ("required_n_connor", "Connor (1987) N"),
    ("n", "benchmark size N"),
    ("mde", "MDE at N (Eq. 4)"),
    ("resolution_ratio", "q = N / N*"),
    ("power_at_n", "power at N (two tails)"),
    ("rho_min", "admissible rho, lower (Eq. 8)"),
    ("rho_max", "admissible rho, upper (Eq. 7)"),
    ("shortcut_n", "shortcut n_h (Eq. 9)"),
    ("shortcut_to_required", "n_h / N*"),
    ("shortcut_constant", "C(p, rho) at midpoint (Eq. 11)"),
)


def _run_design(arguments) -> str:
    from llm_power_verified.planning.design import design_from_counts, design_paired_binary

    marginal = [arguments.p_a, arguments.p_b, arguments.rho]
    table = [arguments.b, arguments.c]
    if any(value is not None for value in table):
        if any(value is not None for value in marginal):
            raise CommandError("give either --p-a --p-b --rho or --b --c --n, not both")
        if arguments.b is None or arguments.c is None or arguments.n is None:
            raise CommandError("--b, --c and --n are all required for a design from counts")
        report = design_from_counts(
            arguments.b, arguments.c, arguments.n, a=arguments.a,
            alpha=arguments.alpha, power=arguments.power, alternative=arguments.alternative,
        )
    else:
        if any(value is None for value in marginal):
            raise CommandError("design needs --p-a, --p-b and --rho, or --b, --c and --n")
        if arguments.a is not None:
            raise CommandError("--a goes with --b --c --n")
        report = design_paired_binary(
            arguments.p_a, arguments.p_b, arguments.rho, alpha=arguments.alpha, power=arguments.power,
            n=arguments.n, alternative=arguments.alternative,
        )
    if arguments.json:
        return json.dumps(report.to_dict(), indent=2)
    header = []
    if report.p_a is not None:
        header.append(f"p_A = {_format(report.p_a)}, p_B = {_format(report.p_b)}, rho = {_format(report.rho)}")
    if report.counts is not None:
        counts = report.counts
        header.append(f"table: a = {_format(counts['a'])}, b = {counts['b']}, c = {counts['c']}, n = {counts['n']}")
    header.append(f"alpha = {_format(report.alpha)}, power = {_format(report.power)}, {report.alternative}")
    width = max(len(label) for _, label in _LABELS)
    rows = [f"{label:<{width}}  {_format(getattr(report, key))}" for key, label in _LABELS]
    return "\n".join(header + [""] + rows)


def _json_number(value: float):
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _run_test(arguments) -> str:
    from llm_power_verified.inference.bootstrap import paired_bootstrap, paired_bootstrap_counts
    from llm_power_verified.inference.graded import paired_t_test, wilcoxon_signed_rank
    from llm_power_verified.inference.mcnemar import binary_counts, mcnemar_all

    options = dict(n_resamples=arguments.n_resamples, confidence=arguments.confidence,
                   method=arguments.bootstrap_method, seed=arguments.seed)
    rows = []
    header = ""
    if arguments.files:
        if len(arguments.files) != 2 or arguments.b is not None or arguments.c is not None:
            raise CommandError("give two score files, or --b and --c, not both")
        from llm_power_verified.io import read_score_files

        matrix = read_score_files(*arguments.files, score_kind=arguments.scores)
        scores_a, scores_b = matrix.scores[:, 0], matrix.scores[:, 1]
        binary = matrix.binary
        if binary:
            both, b, c, _ = binary_counts(scores_a, scores_b)
            n = matrix.n_items
        else:
            for name, result in (("paired-t", paired_t_test(scores_a, scores_b)), ("wilcoxon", wilcoxon_signed_rank(scores_a, scores_b))):
                rows.append({"method": name, "statistic": result.statistic, "pvalue": result.pvalue, "log_pvalue": result.log_pvalue})
            boot = paired_bootstrap(scores_a, scores_b, **options)
            header = f"graded scores, n = {matrix.n_items}, mean difference = {boot.estimate:.6g}"
        header_notes = "".join(f"\nnote: {note}" for note in matrix.notes)
    else:
        if arguments.b is None or arguments.c is None:
            raise CommandError("test needs --b and --c, or two score files")
        b, c, n, binary = arguments.b, arguments.c, arguments.n, True
        header_notes = ""
        if n is not None and b + c > n:
            raise CommandError(f"--b {b} plus --c {c} exceed --n {n}; the discordant counts are part of the n items")
    if binary:
        for name, result in mcnemar_all(b, c, arguments.two_sided).items():
            rows.append({"method": name, "statistic": result.statistic, "pvalue": result.pvalue,
                         "log_pvalue": result.log_pvalue, "b": int(b), "c": int(c)})
        boot = paired_bootstrap_counts(b, c, n, **options) if n is not None else None
        header = f"binary scores: b = {b}, c = {c}" + (f", n = {n}" if n is not None else " (give --n for the bootstrap)")
    header += header_notes
    if boot is not None:
        log_p = math.log(boot.pvalue) if boot.pvalue > 0 else -math.inf
        rows.append({"method": f"bootstrap-{boot.method}", "statistic": boot.estimate, "pvalue": boot.pvalue,
                     "log_pvalue": log_p, "ci_low": boot.ci_low, "ci_high": boot.ci_high,
                     "confidence": boot.confidence, "n_resamples": boot.n_resamples, "seed": arguments.seed})
    if arguments.json:
        return json.dumps([{key: _json_number(value) for key, value in row.items()} for row in rows], indent=2)
    lines = [header, "", f"{'variant':<22} {'statistic':>12} {'p-value':>12} {'log p-value':>14}  note"]
    for row in rows:
        note = ""
        if "ci_low" in row:
            note = f"{row['confidence']:.0%} CI [{row['ci_low']:.6g}, {row['ci_high']:.6g}], B = {row['n_resamples']}"
        lines.append(f"{row['method']:<22} {row['statistic']:>12.6g} {row['pvalue']:>12.4g} {row['log_pvalue']:>14.6g}  {note}".rstrip())
    return "\n".join(lines)


def _render(rows: list[dict], columns: list[tuple[str, str]], output: str) -> str:
    def cell(value):
        if value is None:
            return "-"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float):
            return _format(value)
        return str(value)

    if output == "markdown":
        lines = ["| " + " | ".join(title for _, title in columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(cell(row.get(key)) for key, _ in columns) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(title), *(len(cell(row.get(key))) for row in rows)) for key, title in columns]
    lines = ["  ".join(title.ljust(width) for (_, title), width in zip(columns, widths))]
    lines += ["  ".join(cell(row.get(key)).ljust(width) for (key, _), width in zip(columns, widths)) for row in rows]
    return "\n".join(lines)


def _run_crosscheck(arguments) -> str:
    try:
        from crosscheck.calculators import as_dicts, lemma1_grid, paper_discrepancies, table1_rows
    except ImportError as error:
        raise CommandError(f"the crosscheck package is not importable here ({error})") from None
    if arguments.p_a == arguments.p_b:
        raise CommandError(f"--p-a and --p-b are both {arguments.p_a:g}: at a zero gap no sample size reaches the power, "
                           "so every calculator's n is infinite; give two different accuracies")
    if arguments.power <= arguments.alpha:
        raise CommandError(f"--power {arguments.power:g} must exceed --alpha {arguments.alpha:g}")
    try:
        rows = table1_rows(arguments.p_a, arguments.p_b, arguments.rho, arguments.alpha, arguments.power)
    except RuntimeError as error:  # R failed on an input it cannot solve
        raise CommandError(f"a third-party calculator failed on these inputs ({error})") from None
    notes = paper_discrepancies(rows)
    grid = lemma1_grid() if arguments.grid else None
    output = "json" if arguments.json else arguments.format
    if output == "json":
        document = {"case": {"p_a": arguments.p_a, "p_b": arguments.p_b, "rho": arguments.rho,
                             "alpha": arguments.alpha, "power": arguments.power},
                    "rows": as_dicts(rows), "paper_discrepancies": notes}
        if grid is not None:
            document["lemma1_grid"] = {"cells": grid[0], "summary": grid[1]}
        return json.dumps(document, indent=2, default=str)
    columns = [("tool", "tool"), ("convention", "convention"), ("per_arm", "per-arm"),
               ("times_one_minus_rho", "x(1-rho)"), ("ratio_to_required", "/ N*"),
               ("paper_per_arm", "paper per-arm"), ("paper_times_one_minus_rho", "paper x(1-rho)"),
               ("agrees_with_paper", "agrees"), ("verdict", "verdict")]
    text = [f"p_A = {arguments.p_a}, p_B = {arguments.p_b}, rho = {arguments.rho}, alpha = {arguments.alpha}, power = {arguments.power}", ""]
    text.append(_render(as_dicts(rows), columns, output))
    sources = sorted({f"{row.tool}: {row.source}" for row in rows})
    text += ["", "sources:"] + [f"  {line}" for line in sources]
    if notes:
        text += ["", "where a tool's real output differs from the paper's Table 1:"] + [f"  {note}" for note in notes]
    if grid is not None:
        text += ["", "Lemma 1: exact n_h/N* against 1/2 + c2 delta^2 (+ c4 delta^4), worst absolute error per band:"]
        text.append(_render(grid[1], [("delta_band", "delta band"), ("cells", "admissible cells"),
                                      ("worst_deviation_from_half", "max |n_h/N* - 1/2|"),
                                      ("worst_error_order_2", "order-2 error"), ("worst_error_order_4", "order-4 error")], output))
    return "\n".join(text)


def _run_audit_calculator(arguments) -> str:
    from llm_power_verified.planning.conventions import TOOL_CONVENTIONS, matches_convention, audit_claimed_n, convention_values

    note = None
    if arguments.tool is not None or arguments.tool_output is not None:
        if arguments.claimed_n is not None:
            raise CommandError("give --claimed-n, or --tool with --tool-output, not both")
        if arguments.tool not in TOOL_CONVENTIONS or arguments.tool_output is None:
            known = ", ".join(TOOL_CONVENTIONS)
            raise CommandError(f"--tool must be one of {known}, with --tool-output; got {arguments.tool!r}")
        values = convention_values(arguments.p_a, arguments.p_b, arguments.rho, arguments.alpha, arguments.power)
        convention = TOOL_CONVENTIONS[arguments.tool]
        expected = values[convention]
        consistent = matches_convention(expected, arguments.tool_output)
        note = (f"{arguments.tool} returns the {convention} value, {expected:.2f} here; the given output "
                f"{arguments.tool_output:g} {'is consistent with it' if consistent else 'does NOT match it: check the inputs'}. "
                f"Audited: that output x (1 - rho) = {arguments.tool_output * (1 - arguments.rho):.2f}.")
        claimed = arguments.tool_output * (1 - arguments.rho)
    else:
        if arguments.claimed_n is None:
            raise CommandError("audit-calculator needs --claimed-n, or --tool and --tool-output")
        claimed = arguments.claimed_n
    audit = audit_claimed_n(arguments.p_a, arguments.p_b, arguments.rho, claimed, arguments.alpha, arguments.power)
    output = "json" if arguments.json else arguments.format
    if output == "json":
        document = {"claimed_n": audit.claimed_n, "required_n": audit.required_n, "required_n_integer": audit.required_n_integer,
                    "factor": audit.factor, "matches": list(audit.matches), "closest": audit.closest,
                    "verdict": audit.verdict, "conventions": audit.values, "tool_note": note}
        return json.dumps(document, indent=2)
    rows = [{"convention": name, "value": value, "ratio": claimed / value if value else None,
             "match": name in audit.matches} for name, value in audit.values.items()]
    text = ([note, ""] if note else []) + [audit.verdict, ""]
    text.append(_render(rows, [("convention", "convention"), ("value", "n (unrounded)"),
                               ("ratio", "claimed / n"), ("match", "matches")], output))
    return "\n".join(text)


def _load_audit_input(arguments):
    from llm_power_verified.io import read_scores

    paths = [Path(p) for p in arguments.inputs]
    if not paths:
        from llm_power_verified.examples import shipped_example

        matrix = shipped_example()
        print("no INPUT given: auditing the shipped example (MMLU-Pro top-10 reconstructed from the paper's "
              "Appendix E; its clusters are MMLU-Pro's category sizes assigned at random, a null check)", file=sys.stderr)
        return matrix, []
    matrix = read_scores(paths, item_column=arguments.item_column, cluster_column=arguments.cluster_column,
                         model_column=arguments.model_column, score_column=arguments.score_column,
                         on_missing=arguments.on_missing, score_kind=arguments.scores,
                         missing_cluster=arguments.missing_cluster, task=arguments.task, metric=arguments.metric,
                         filter=arguments.filter, scorer=arguments.scorer, epochs=arguments.epochs)
    return matrix, paths


def _run_audit(arguments) -> str:
    from llm_power_verified.leaderboard.audit import audit_leaderboard
    from llm_power_verified.io import check_outputs, write_text
    from llm_power_verified.report.render import plot_resolution, render

    check_outputs({"--out": arguments.out, "--plot": arguments.plot}, arguments.inputs)
    matrix, inputs = _load_audit_input(arguments)
    show = sys.stderr.isatty()

    def progress(message: str) -> None:
        if show:
            print(f"  ... {message}", file=sys.stderr)

    result = audit_leaderboard(
        matrix, arguments.mode, reference=arguments.reference, family=arguments.family, alpha=arguments.alpha,
        power=arguments.power, n_bootstrap=arguments.n_bootstrap, seed=arguments.seed,
        cluster_bootstrap=arguments.cluster_bootstrap, progress=progress,
    )
    text = render(result, arguments.format)
    if arguments.plot:
        plot_resolution(result, arguments.plot)
    if arguments.out:
        write_text(arguments.out, text)
        return f"wrote {arguments.out}"
    return text.rstrip("\n")


def _run_monitor(arguments) -> str:
    import numpy as np

    from llm_power_verified.sequential.e_process import anytime_pvalue, confidence_sequence, e_process

    from llm_power_verified.io import check_outputs, read_score_files

    check_outputs({"--plot": arguments.plot}, arguments.files)
    matrix = read_score_files(*arguments.files, score_kind="binary")
    scores_a, scores_b = matrix.scores[:, 0], matrix.scores[:, 1]
    trajectory = e_process(scores_a, scores_b, arguments.mixture)
    differences = np.asarray(scores_a) - np.asarray(scores_b)
    sequence = confidence_sequence(differences, arguments.alpha)
    threshold = math.log(1 / arguments.alpha)
    crossed = np.flatnonzero(trajectory["log_e"] >= threshold)
    first = int(crossed[0]) + 1 if crossed.size else None
    n = differences.size
    marks = {int(t) for t in np.unique(np.linspace(1, n, max(min(arguments.checkpoints, n), 1)).astype(int))}
    if first:
        marks.add(first)
    marks = sorted(marks)
    rows = [{"n": int(t), "b": int(trajectory["b"][t - 1]), "c": int(trajectory["c"][t - 1]),
             "mean_difference": float(trajectory["mean_difference"][t - 1]), "log_e": float(trajectory["log_e"][t - 1]),
             "cs_low": float(sequence.lower[t - 1]), "cs_high": float(sequence.upper[t - 1])} for t in marks]
    summary = {"items": n, "mixture": arguments.mixture, "alpha": arguments.alpha, "first_crossing": first,
               "anytime_pvalue": anytime_pvalue(trajectory["log_e"]), "max_log_e": float(np.max(trajectory["log_e"])),
               "confidence_sequence_rho": sequence.rho}
    if arguments.plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise CommandError("plots need matplotlib: pip install 'llm-power-verified[plots]'") from None
        figure, axis = plt.subplots(figsize=(7, 4))
        axis.plot(np.arange(1, n + 1), trajectory["log_e"], color="tab:blue", label=f"log e_n ({arguments.mixture} mixture)")
        axis.axhline(threshold, linestyle="--", color="black", label="log(1/alpha)")
        axis.set_xlabel("items n")
        axis.set_ylabel("log e_n")
        axis.legend()
        figure.tight_layout()
        from llm_power_verified.report.render import save_figure

        save_figure(figure, arguments.plot)
    if arguments.json:
        return json.dumps({"summary": summary, "trajectory": rows}, indent=2)
    lines = [f"note: {note}" for note in matrix.notes]
    lines += [f"{n} items in arrival order; {arguments.mixture} mixture; reject when e >= 1/alpha = {1 / arguments.alpha:g}", ""]
    lines.append(f"{'n':>8} {'b':>7} {'c':>7} {'mean diff':>11} {'log e':>10}  {'confidence sequence':<26}")
    for row in rows:
        flag = "  <- first crossing" if row["n"] == first else ""
        lines.append(f"{row['n']:>8} {row['b']:>7} {row['c']:>7} {row['mean_difference']:>11.5f} {row['log_e']:>10.4f}  "
                     f"[{row['cs_low']:.5f}, {row['cs_high']:.5f}]{flag}")
    lines += ["", f"first crossing: {'item ' + str(first) if first else 'none'}; anytime-valid p-value min(1, 1/sup e) = {summary['anytime_pvalue']:.4g}"]
    return "\n".join(lines)


def _run_reproduce(arguments) -> str:
    from dataclasses import asdict

    from llm_power_verified.reproduce import reproduce

    rows = reproduce(arguments.paper)
    if arguments.json or arguments.format == "json":
        records = [asdict(row) for row in rows]
        for record in records:
            record["computed"] = record["computed"] if math.isfinite(record["computed"]) else None
        return json.dumps(records, indent=2)
    agreeing = sum(row.verdict == "agrees" for row in rows)
    differing = sum(row.verdict == "differs" for row in rows)
    lines = [f"{agreeing} of {len(rows)} printed values follow from their stated inputs; {differing} differ; "
             f"{len(rows) - agreeing - differing} cannot be recomputed from what the paper states", "",
             "| paper | location | quantity | printed | computed | rel. diff. | verdict | reason |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        difference = "-" if row.relative_difference is None else f"{row.relative_difference:.2e}"
        computed = f"{row.computed:.6g}" if math.isfinite(row.computed) else "-"
        lines.append(f"| {row.paper} | {row.location} | {row.quantity} | {row.printed} | {computed} | {difference} | {row.verdict} | {row.reason} |")
    return "\n".join(lines)


def _run_derivations(action: str) -> tuple[str, int]:
    try:
        import derivations  # noqa: F401  (needs SymPy and the repository checkout)
        from derivations.__main__ import main as derivations_main
    except ImportError as error:
        raise CommandError(f"the derivations package is not importable here ({error})") from None
    status = derivations_main(["--check"] if action == "check" else [])
    return "", status


_COMMANDS = {
    "audit": _run_audit,
    "design": _run_design,
    "test": _run_test,
    "monitor": _run_monitor,
    "crosscheck": _run_crosscheck,
    "reproduce": _run_reproduce,
    "audit-calculator": _run_audit_calculator,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    try:
        arguments = parser.parse_args(argv)
        if arguments.command is None:
            parser.print_help()
            return 0
        runner = _COMMANDS.get(arguments.command)
        if runner is not None:
            print(runner(arguments))
            return 0
        _, status = _run_derivations(arguments.action)
        return status
    except (CommandError, ValueError, TypeError, OSError) as error:
        message = " ".join(str(error).split())
        print(f"{PROGRAM}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
