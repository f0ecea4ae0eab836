"""``llm-power-verified reproduce``: Printed numbers of the source papers beside values recomputed.

The values are recomputed from the papers' stated inputs.
"""

from __future__ import annotations

import math

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.parents import format_options
from llm_power_verified.io.output import json_text

__all__ = ["add_parser", "run"]


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``reproduce`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "reproduce",
        parents=[format_options(("markdown", "json"), "markdown")],
        help="printed numbers of the source papers beside values recomputed from their stated inputs",
        description="Each row: location, quantity or claim, stated inputs, printed, computed, relative difference, "
        "verdict, reason.",
    )
    parser.add_argument(
        "--paper",
        choices=("all", "main", "embedding", "sample-size"),
        default="all",
        help="which source paper to reproduce: main (Resolution Diagnostics for Paired LLM Evaluation, arXiv "
        "2605.30315), "
        "embedding (How Many Test Pairs Do You Need?), sample-size (Power Analysis for Pairwise Model "
        "Comparisons on Reasoning Benchmarks), or all",
    )


@docfill("arguments", returns="cli_report")
def run(arguments) -> str:
    """Run ``llm-power-verified reproduce`` on the parsed command line."""
    from dataclasses import asdict

    from llm_power_verified.reproduce import reproduce

    rows = reproduce(arguments.paper)
    if arguments.json or arguments.format == "json":
        return json_text([asdict(row) for row in rows])
    claims = [row for row in rows if row.claim]
    agreeing = sum(row.verdict == "agrees" for row in claims)
    differing = sum(row.verdict == "differs" for row in claims)
    checks = len(rows) - len(claims)
    lines = [
        f"{agreeing} of {len(claims)} printed values and claims follow from their stated inputs; {differing} differ; "
        f"{len(claims) - agreeing - differing} cannot be recomputed from what the paper states"
        + (f"; {checks} further rows are this package's own checks" if checks else ""),
        "",
        "| paper | location | quantity | printed | computed | rel. diff. | verdict | reason |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        difference = "-" if row.relative_difference is None else f"{row.relative_difference:.2e}"
        computed = f"{row.computed:.6g}" if math.isfinite(row.computed) else "-"
        lines.append(
            f"| {row.paper} | {row.location} | {row.quantity} | {row.printed} | {computed} | {difference} | "
            f"{row.verdict} | {row.reason} |"
        )
    return "\n".join(lines)
