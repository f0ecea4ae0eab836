"""``llm-power-verified design``: N*, MDE, q and power of one paired binary design.

The design is given by accuracies and rho or by a 2x2 table.
"""

from __future__ import annotations

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.parents import alpha_power_options, marginal_options
from llm_power_verified.cli.text_tables import format_value
from llm_power_verified.cli.value_types import COUNT, SIZE
from llm_power_verified.io.output import json_text

__all__ = ["add_parser", "run"]


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``design`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "design",
        parents=[marginal_options(), alpha_power_options()],
        help="N*, MDE, q and power for a paired binary comparison",
        description=(
            "From accuracies and correlation (--p-a --p-b --rho) or from an observed 2x2 table "
            "(--b --c --n [--a]), print sigma_D^2, N* (unrounded and integer), MDE, q and power at N, "
            "the admissible rho interval, the shortcut n_h and Lemma 1's C."
        ),
    )
    parser.add_argument("--a", type=COUNT, help="items both models solve (optional with --b --c --n)")
    parser.add_argument("--b", type=COUNT, help="items only model A solves")
    parser.add_argument("--c", type=COUNT, help="items only model B solves")
    parser.add_argument("--n", type=SIZE, help="benchmark size (number of paired items)")
    parser.add_argument(
        "--alternative",
        choices=("two-sided", "larger", "smaller"),
        default="two-sided",
        help="alternative hypothesis; 'larger' means p_a > p_b (default two-sided)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


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
    ("shortcut_ratio", "n_h / N*"),
    ("shortcut_constant", "C(p, rho) at midpoint (Eq. 11)"),
)


@docfill("arguments", returns="cli_report")
def run(arguments) -> str:
    """Run ``llm-power-verified design`` on the parsed command line."""
    from llm_power_verified.power.design import design_from_counts, design_paired_binary

    marginal = [arguments.p_a, arguments.p_b, arguments.rho]
    table = [arguments.b, arguments.c]
    if any(value is not None for value in table):
        if any(value is not None for value in marginal):
            raise CommandError("give either --p-a --p-b --rho or --b --c --n, not both")
        if arguments.b is None or arguments.c is None or arguments.n is None:
            raise CommandError("--b, --c and --n are all required for a design from counts")
        report = design_from_counts(
            arguments.b,
            arguments.c,
            arguments.n,
            a=arguments.a,
            alpha=arguments.alpha,
            power=arguments.power,
            alternative=arguments.alternative,
        )
    else:
        if any(value is None for value in marginal):
            raise CommandError("design needs --p-a, --p-b and --rho, or --b, --c and --n")
        if arguments.a is not None:
            raise CommandError("--a goes with --b --c --n")
        report = design_paired_binary(
            arguments.p_a,
            arguments.p_b,
            arguments.rho,
            alpha=arguments.alpha,
            power=arguments.power,
            n=arguments.n,
            alternative=arguments.alternative,
        )
    if arguments.json:
        return json_text(report.to_dict())
    header = []
    if report.p_a is not None:
        header.append(
            f"p_A = {format_value(report.p_a)}, p_B = {format_value(report.p_b)}, rho = {format_value(report.rho)}"
        )
    if report.counts is not None:
        counts = report.counts
        header.append(
            f"table: a = {format_value(counts['a'])}, b = {counts['b']}, c = {counts['c']}, n = {counts['n']}"
        )
    header.append(f"alpha = {format_value(report.alpha)}, power = {format_value(report.power)}, {report.alternative}")
    width = max(len(label) for _, label in _LABELS)
    rows = [f"{label:<{width}}  {format_value(getattr(report, key))}" for key, label in _LABELS]
    return "\n".join([*header, "", *rows])
