"""The ``crosscheck`` command: What each power calculator returns for a paired comparison, and the (1 - rho) shortcut.

The command is run as ``llm-power-verified crosscheck``.
"""

from __future__ import annotations

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.parents import alpha_power_options, format_options, marginal_options
from llm_power_verified.cli.repository import repository_module
from llm_power_verified.cli.text_tables import render_rows
from llm_power_verified.io.output import json_text

__all__ = ["add_parser", "run"]


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``crosscheck`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "crosscheck",
        parents=[
            marginal_options((0.65, 0.60, 0.30)),
            alpha_power_options(),
            format_options(("table", "markdown", "json"), "table"),
        ],
        help="what each power calculator returns for a paired comparison, and the (1 - rho) shortcut",
        description=(
            "Run R's pwr and stats (through Rscript) and statsmodels, reproduce G*Power's and Cohen's "
            "documented formulas, and compare each tool's per-arm output, that output times (1 - rho), "
            "and the correct paired N*.  Defaults: the paper's Table 1 case."
        ),
    )
    parser.add_argument(
        "--grid", action="store_true", help="also compare n_h/N* with Lemma 1 over a (p, rho, delta) grid"
    )


@docfill("arguments", returns="cli_report")
def run(arguments) -> str:
    """Run ``llm-power-verified crosscheck`` on the parsed command line."""
    calculators = repository_module("crosscheck.calculators")
    as_dicts, lemma1_grid = calculators.as_dicts, calculators.lemma1_grid
    paper_discrepancies, table1_rows = calculators.paper_discrepancies, calculators.table1_rows
    if arguments.p_a == arguments.p_b:
        raise CommandError(
            f"--p-a and --p-b are both {arguments.p_a:g}: at a zero gap no sample size reaches the power, "
            "so every calculator's n is infinite; give two different accuracies"
        )
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
        document = {
            "case": {
                "p_a": arguments.p_a,
                "p_b": arguments.p_b,
                "rho": arguments.rho,
                "alpha": arguments.alpha,
                "power": arguments.power,
            },
            "rows": as_dicts(rows),
            "paper_discrepancies": notes,
        }
        if grid is not None:
            document["lemma1_grid"] = {"cells": grid[0], "summary": grid[1]}
        return json_text(document)
    columns = [
        ("tool", "tool"),
        ("convention", "convention"),
        ("per_arm", "per-arm"),
        ("times_one_minus_rho", "x(1-rho)"),
        ("ratio_to_required", "/ N*"),
        ("paper_per_arm", "paper per-arm"),
        ("paper_times_one_minus_rho", "paper x(1-rho)"),
        ("agrees_with_paper", "agrees"),
        ("verdict", "verdict"),
    ]
    text = [
        f"p_A = {arguments.p_a}, p_B = {arguments.p_b}, rho = {arguments.rho}, alpha = {arguments.alpha}, power = "
        f"{arguments.power}",
        "",
    ]
    text.append(render_rows(as_dicts(rows), columns, output))
    sources = sorted({f"{row.tool}: {row.source}" for row in rows})
    text += ["", "sources:"] + [f"  {line}" for line in sources]
    if notes:
        text += ["", "where a tool's real output differs from the paper's Table 1:"] + [f"  {note}" for note in notes]
    if grid is not None:
        text += ["", "Lemma 1: exact n_h/N* against 1/2 + c2 delta^2 (+ c4 delta^4), worst absolute error per band:"]
        text.append(
            render_rows(
                grid[1],
                [
                    ("delta_band", "delta band"),
                    ("cells", "admissible cells"),
                    ("worst_deviation_from_half", "max |n_h/N* - 1/2|"),
                    ("worst_error_order_2", "order-2 error"),
                    ("worst_error_order_4", "order-4 error"),
                ],
                output,
            )
        )
    return "\n".join(text)
