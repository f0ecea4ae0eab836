"""``llm-power-verified audit-calculator``: Which calculator convention produced a sample size.

It also gives the correct paired N*.
"""

from __future__ import annotations

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.parents import alpha_power_options, format_options, marginal_options
from llm_power_verified.cli.text_tables import render_rows
from llm_power_verified.cli.value_types import POSITIVE

__all__ = ["add_parser", "run"]


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``audit-calculator`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "audit-calculator",
        parents=[marginal_options(), alpha_power_options(), format_options(("table", "markdown", "json"), "table")],
        help="which calculator convention produced a sample size, and the correct paired N*",
        description=(
            "Given the design and a claimed paired N (or a tool name and its native output), name the "
            "convention it matches (one-sample arcsine, two-sample arcsine, unpaired Wald, two-proportion z, "
            "the (1 - rho) shortcut, correct paired) and the factor to the correct N*."
        ),
    )
    parser.add_argument("--claimed-n", type=POSITIVE, help="the paired sample size to audit")
    parser.add_argument(
        "--tool",
        help="a tool whose native output you multiplied by (1 - rho): "
        "pwr.p.test, pwr.2p.test, NormalIndPower, power.prop.test, miller",
    )
    parser.add_argument("--tool-output", type=POSITIVE, help="the tool's native (per-arm) output")


@docfill("arguments", returns="cli_report")
def run(arguments) -> str:
    """Run ``llm-power-verified audit-calculator`` on the parsed command line."""
    missing = [
        flag
        for flag, value in (("--p-a", arguments.p_a), ("--p-b", arguments.p_b), ("--rho", arguments.rho))
        if value is None
    ]
    if missing:
        raise CommandError(f"the following arguments are required: {', '.join(missing)}")
    from llm_power_verified.power.conventions import (
        TOOL_CONVENTIONS,
        audit_claimed_n,
        convention_values,
        matches_convention,
    )

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
        note = (
            f"{arguments.tool} returns the {convention} value, {expected:.2f} here; the given output "
            f"{arguments.tool_output:g} "
            f"{'is consistent with it' if consistent else 'does NOT match it: check the inputs'}. "
            f"Audited: that output x (1 - rho) = {arguments.tool_output * (1 - arguments.rho):.2f}."
        )
        claimed = arguments.tool_output * (1 - arguments.rho)
    else:
        if arguments.claimed_n is None:
            raise CommandError("audit-calculator needs --claimed-n, or --tool and --tool-output")
        claimed = arguments.claimed_n
    audit = audit_claimed_n(arguments.p_a, arguments.p_b, arguments.rho, claimed, arguments.alpha, arguments.power)
    output = "json" if arguments.json else arguments.format
    if output == "json":
        document = {
            "claimed_n": audit.claimed_n,
            "required_n": audit.required_n,
            "required_n_integer": audit.required_n_integer,
            "factor": audit.factor,
            "matches": list(audit.matches),
            "doubled": list(audit.doubled),
            "closest": audit.closest,
            "verdict": audit.verdict,
            "conventions": audit.values,
            "tool_note": note,
        }
        # Lazy: the JSON writer imports numpy (0.1 s) through the results module, which `--help` does not need.
        from llm_power_verified.io.output import json_text

        return json_text(document)
    rows = [
        {
            "convention": name,
            "value": value,
            "ratio": claimed / value if value else None,
            "match": name in audit.matches,
        }
        for name, value in audit.values.items()
    ]
    text = ([note, ""] if note else []) + [audit.verdict, ""]
    text.append(
        render_rows(
            rows,
            [("convention", "convention"), ("value", "n (unrounded)"), ("ratio", "claimed / n"), ("match", "matches")],
            output,
        )
    )
    return "\n".join(text)
