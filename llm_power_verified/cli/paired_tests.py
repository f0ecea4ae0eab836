"""``llm-power-verified test``: Every paired test variant on a 2x2 table or two aligned score files."""

from __future__ import annotations

import math

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.options import EXIT_CODES_NO_GATE, INPUT_RULES, SCORE_KIND_HELP, HelpFormatter
from llm_power_verified.cli.value_types import COUNT, PROBABILITY, RESAMPLES, SEED, SIZE
from llm_power_verified.contract import MAX_RESAMPLES
from llm_power_verified.io.escaping import terminal_text
from llm_power_verified.io.output import json_text

__all__ = ["add_parser", "run"]


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``test`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "test",
        help="every paired test variant on a 2x2 table or two aligned score files",
        description=(
            "McNemar chi-square (with and without continuity correction), exact and mid-p tests and the "
            "paired bootstrap for binary scores; paired t, Wilcoxon and the bootstrap for graded scores. "
            "Give --b --c [--n] or two files of aligned per-item scores (one number per line; a "
            "non-numeric first line is taken as a header)."
        ),
        epilog=INPUT_RULES + "\n\n" + EXIT_CODES_NO_GATE,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="two files: scores of model A, then model B")
    parser.add_argument("--b", type=COUNT, help="items only model A solves")
    parser.add_argument("--c", type=COUNT, help="items only model B solves")
    parser.add_argument("--n", type=SIZE, help="number of items (needed for the bootstrap)")
    parser.add_argument(
        "--two-sided-rule",
        choices=("double", "no-more-likely"),
        default="double",
        help="two-sided rule of the mid-p test (default double; the exact test's p is the same under both)",
    )
    parser.add_argument("--confidence", type=PROBABILITY, default=0.95, help="bootstrap interval level (default 0.95)")
    parser.add_argument(
        "--n-resamples",
        type=RESAMPLES,
        default=10_000,
        help=f"bootstrap resamples, 100 to {MAX_RESAMPLES:,} (default 10000)",
    )
    parser.add_argument(
        "--bootstrap-interval",
        choices=("percentile", "bca", "studentized"),
        default="percentile",
        help="bootstrap interval (default percentile)",
    )
    parser.add_argument("--seed", type=SEED, default=0, help="bootstrap seed (default 0; same seed, same output)")
    parser.add_argument("--scores", choices=("auto", "binary", "graded"), default="auto", help=SCORE_KIND_HELP)
    parser.add_argument("--json", action="store_true", help="print a JSON list, one object per variant")


@docfill("arguments", returns="cli_report")
def run(arguments) -> str:
    """Run ``llm-power-verified test`` on the parsed command line."""
    from llm_power_verified.inference.bootstrap import paired_bootstrap, paired_bootstrap_counts
    from llm_power_verified.inference.graded import paired_t_test, wilcoxon_signed_rank
    from llm_power_verified.inference.mcnemar import binary_counts, mcnemar_all

    options = dict(
        n_resamples=arguments.n_resamples,
        confidence=arguments.confidence,
        interval=arguments.bootstrap_interval,
        seed=arguments.seed,
    )
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
            _both, b, c, _ = binary_counts(scores_a, scores_b)
            n = matrix.n_items
        else:
            for name, result in (
                ("paired-t", paired_t_test(scores_a, scores_b)),
                ("wilcoxon", wilcoxon_signed_rank(scores_a, scores_b)),
            ):
                rows.append(
                    {
                        "method": name,
                        "statistic": result.statistic,
                        "pvalue": result.pvalue,
                        "log_pvalue": result.log_pvalue,
                    }
                )
            boot = paired_bootstrap(scores_a, scores_b, **options)
            header = f"graded scores, n = {matrix.n_items}, mean difference = {boot.estimate:.6g}"
        header_notes = "".join(f"\nnote: {terminal_text(note)}" for note in matrix.notes)
    else:
        if arguments.b is None or arguments.c is None:
            raise CommandError("test needs --b and --c, or two score files")
        b, c, n, binary = arguments.b, arguments.c, arguments.n, True
        header_notes = ""
        if n is not None and b + c > n:
            raise CommandError(f"--b {b} plus --c {c} exceed --n {n}; the discordant counts are part of the n items")
    if binary:
        for name, result in mcnemar_all(b, c, arguments.two_sided_rule).items():
            rows.append(
                {
                    "method": name,
                    "statistic": result.statistic,
                    "pvalue": result.pvalue,
                    "log_pvalue": result.log_pvalue,
                    "b": int(b),
                    "c": int(c),
                }
            )
        boot = paired_bootstrap_counts(b, c, n, **options) if n is not None else None
        header = f"binary scores: b = {b}, c = {c}" + (
            f", n = {n}" if n is not None else " (give --n for the bootstrap)"
        )
    header += header_notes
    if boot is not None:
        rows.append(_bootstrap_row(boot, arguments.seed))
    if arguments.json:
        return json_text(rows)
    return _text_report(header, rows, with_bootstrap=boot is not None)


def _bootstrap_row(boot, seed: int) -> dict:
    """The bootstrap's row of the report: its estimate, p-value (and log), interval and resampling settings."""
    log_p = math.log(boot.pvalue) if boot.pvalue > 0 else -math.inf
    return {
        "method": f"bootstrap-{boot.interval}",
        "statistic": boot.estimate,
        "pvalue": boot.pvalue,
        "log_pvalue": log_p,
        "ci_low": boot.ci_low,
        "ci_high": boot.ci_high,
        "confidence": boot.confidence,
        "n_resamples": boot.n_resamples,
        "seed": seed,
    }


def _text_report(header: str, rows: list[dict], with_bootstrap: bool) -> str:
    """The text report: the header, one line per test variant, and the bootstrap p-value's definition when it ran."""
    lines = [header, "", f"{'variant':<22} {'statistic':>12} {'p-value':>12} {'log p-value':>14}  note"]
    for row in rows:
        note = ""
        if "ci_low" in row:
            note = f"{row['confidence']:.0%} CI [{row['ci_low']:.6g}, {row['ci_high']:.6g}], B = {row['n_resamples']}"
        lines.append(
            f"{row['method']:<22} {row['statistic']:>12.6g} {row['pvalue']:>12.4g} {row['log_pvalue']:>14.6g}  "
            f"{note}".rstrip()
        )
    if with_bootstrap:
        lines += [
            "",
            "bootstrap p-value: min(1, 2(k + 1)/(B + 1)), k the smaller of #{D* <= 0} and #{D* >= 0}",
            "over the B resampled differences: never 0 (at least 2/(B + 1))",
        ]
    return "\n".join(lines)
