"""``llm-power-verified audit-accuracies FILE...``: the resolution audit of a leaderboard of accuracies only."""

from __future__ import annotations

import argparse

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.inputs import accuracy_options, read_accuracy_table
from llm_power_verified.cli.options import EXIT_CODES, PROGRAM, HelpFormatter
from llm_power_verified.cli.parents import alpha_power_options, family_options, output_options
from llm_power_verified.cli.streams import print_note, terminal_width, write_report_chunks, wrote
from llm_power_verified.cli.value_types import CORRELATION
from llm_power_verified.contract import ACCURACY_MODES, MACHINE_FORMATS

__all__ = ["add_parser", "run"]


class _Range(argparse.Action):
    """--rho-range LO HI, refused by argparse when LO exceeds HI."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        low, high = values
        if low > high:
            raise argparse.ArgumentError(self, f"{low:g} {high:g}: LO must not exceed HI")
        setattr(namespace, self.dest, (low, high))


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``audit-accuracies`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "audit-accuracies",
        parents=[
            accuracy_options(),
            family_options(ACCURACY_MODES),
            output_options(per_item=False),
            alpha_power_options(),
        ],
        help="resolution audit of a leaderboard that prints one accuracy per model",
        description=(
            "The audit of a leaderboard without per-item results: one accuracy per model and the benchmark size N.  "
            "The correlation rho of two models' scores is unknown; the accuracies bound it, and each gap is resolved "
            "at "
            "every admissible rho, unresolved at every one, or depends on rho (rho_c: the correlation at which it is "
            "resolved, and the share of items the two models must agree on).  A printed accuracy stands for every "
            "count of correct items that rounds to it: each verdict holds at all of them, and a verdict another "
            "allowed count would change says 'depends on the printed digits' (column rounding).  --rho or --rho-range "
            "add verdicts at an assumed correlation, labelled as an assumption.  FILE is a table of accuracies, or "
            "FILE... are harness result files, one per model (N from the files).  Per-item results: audit INPUT..."
        ),
        epilog=EXIT_CODES,
        formatter_class=HelpFormatter,
    )
    assumption = parser.add_argument_group("assumed correlation").add_mutually_exclusive_group()
    assumption.add_argument(
        "--rho", type=CORRELATION, help="verdicts at this assumed correlation too, labelled as an assumption"
    )
    assumption.add_argument(
        "--rho-range",
        type=CORRELATION,
        nargs=2,
        metavar=("LO", "HI"),
        action=_Range,
        help="verdicts over this assumed range of correlations too, labelled as an assumption",
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="as audit's --quiet (no progress bar on stderr): this command never shows one, so it changes nothing; "
        "accepted so that one script can pass it to both",
    )
    parser.add_argument(
        "--fail-on",
        choices=("unresolved",),
        help="exit 1 unless every adjacent pair is resolved under the correction at every admissible rho: "
        "a gate for pipelines (accuracies alone give no test, so no not-significant)",
    )


@docfill("arguments", returns="cli_gated")
def run(arguments) -> tuple[str, int] | int:
    """Run ``llm-power-verified audit-accuracies`` on the parsed command line."""
    from llm_power_verified.io import check_outputs
    from llm_power_verified.leaderboard.accuracies import audit_accuracies
    from llm_power_verified.report.dispatch import render, write

    check_outputs({"--out": arguments.out}, arguments.files)
    table = read_accuracy_table(arguments)
    audit = audit_accuracies(
        table,
        arguments.mode,
        alpha=arguments.alpha,
        power=arguments.power,
        correction=arguments.correction,
        rho=arguments.rho,
        rho_range=arguments.rho_range,
    )
    view = {"pairs": arguments.pairs, "width": arguments.width or terminal_width()}
    status = 0
    if arguments.fail_on == "unresolved":
        failing = int((audit.pairs.loc[audit.pairs["adjacent"], "verdict_family"] != "resolved").sum())
        if failing:
            print_note(
                f"{PROGRAM}: gate failed: {failing} adjacent pairs are not resolved at every admissible rho and every "
                f"count of correct items the printed accuracies allow"
            )
        status = 1 if failing else 0
    if arguments.out:
        write(audit, arguments.format, arguments.out, **view)
        return wrote(arguments.out, status)
    text = render(audit, arguments.format, **view)
    if arguments.format in MACHINE_FORMATS:  # data, written as it is (the terminal guard is for text reports)
        write_report_chunks([(text.rstrip("\n") + "\n").encode("utf-8")])
        return status
    return text.rstrip("\n"), status
