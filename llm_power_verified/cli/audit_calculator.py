"""``llm-power-verified audit-calculator``: which convention a calculator implements, and how far it is from the truth.

Given one claimed sample size (``--claimed-n``, or ``--tool`` with its native output), it names the convention that
number matches and gives the correct paired N*.  Given a calculator (``--python module:function`` or ``--command
TEMPLATE``), it checks the function over a grid, seeded random points and a property search with
:func:`~llm_power_verified.testing.conformance.check_calculator` and writes the conformance report
(:mod:`~llm_power_verified.report.conformance`): the convention found against the one claimed, the error against
the claim and against the correct quantity kept apart, the failures with minimal counterexamples, and the deviation
map.
"""

from __future__ import annotations

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.calculator_sources import COMMAND_TIMEOUT, PYTHON_TIMEOUT
from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.parents import alpha_power_options, format_options, marginal_options
from llm_power_verified.cli.path_types import output_path
from llm_power_verified.cli.text_tables import render_rows
from llm_power_verified.cli.value_types import POSITIVE, SEED, number

__all__ = ["QUANTITY_CHOICES", "add_parser", "run"]

#: --quantity's choices, each a key of QUANTITIES with dashes for underscores.
QUANTITY_CHOICES = ("required-n", "pvalue", "power-paired-t", "required-n-paired-t")
_EXAMPLES = number(integer=True, low=1, high=100_000, summary="Property-search examples (--max-examples)")
_SECONDS = number(low=0, low_open=True, high=86_400, summary="Seconds per call (--timeout)")
_TOLERANCE = number(low=0, low_open=True, high=1, summary="A relative tolerance (--tolerance)")


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``audit-calculator`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "audit-calculator",
        parents=[
            marginal_options(),
            alpha_power_options(),
            format_options(("table", "markdown", "json", "html"), "table"),
        ],
        help="which calculator convention produced a sample size (or a calculator function implements), and how far "
        "it is from the correct paired N*",
        description=(
            "Given the design and a claimed paired N (or a tool name and its native output), name the "
            "convention it matches (one-sample arcsine, two-sample arcsine, unpaired Wald, two-proportion z, "
            "the (1 - rho) shortcut, correct paired) and the factor to the correct N*.  Given a calculator "
            "(--python module:function, or --command for a tool in another language), check it over a grid, "
            "seeded random points and a property search, and report the convention it implements, its error "
            "against its claim and against the correct quantity, its failures with minimal counterexamples, and "
            "the deviation map (html: with a figure)."
        ),
    )
    parser.add_argument("--claimed-n", type=POSITIVE, help="the paired sample size to audit")
    parser.add_argument(
        "--tool",
        help="a tool whose native output you multiplied by (1 - rho): "
        "pwr.p.test, pwr.2p.test, NormalIndPower, power.prop.test, miller",
    )
    parser.add_argument("--tool-output", type=POSITIVE, help="the tool's native (per-arm) output")
    _function_options(parser)


def _function_options(parser) -> None:
    """The options of a calculator audit (--python or --command)."""
    group = parser.add_argument_group("auditing a calculator function")
    group.add_argument(
        "--python",
        metavar="MODULE:FUNCTION",
        help="a Python function to check: module:function (importable from the current folder or the installed "
        "packages) or path/to/file.py:function; it is called with keyword arguments (see --quantity) in a separate "
        "process, so that nothing it does (exit, print, fork, change folder) reaches the audit",
    )
    group.add_argument(
        "--command",
        metavar="TEMPLATE",
        dest="command_template",  # not "command": the subcommand's name is stored there
        help="a command to check, for tools in other languages: split as a shell would (no shell runs it), "
        "{p_a} {p_b} {rho} {alpha} {power} (or the quantity's arguments) replaced by each call's values; the "
        "value is the one number on the last non-empty line of its output (R's NA, NaN, Inf understood)",
    )
    group.add_argument(
        "--quantity",
        choices=QUANTITY_CHOICES,
        default=QUANTITY_CHOICES[0],
        help="what the calculator computes: required-n (p_a, p_b, rho, alpha, power), pvalue (b, c: McNemar's "
        "two-sided p), power-paired-t (n, effect_size, alpha), required-n-paired-t (effect_size, alpha, power) "
        "(default required-n)",
    )
    group.add_argument(
        "--argument-map",
        metavar="MAP",
        help="adapt another signature, comma-separated: ours=theirs (pass p_a as theirs; --python only), ours=- "
        "(do not pass it: the tool has no such input), theirs:=VALUE (a constant passed at every call)",
    )
    group.add_argument(
        "--claims", metavar="CONVENTION", help="the convention the calculator claims to compute (judged separately)"
    )
    group.add_argument("--tolerance", type=_TOLERANCE, help="relative tolerance (default: the quantity's)")
    group.add_argument("--seed", type=SEED, default=0, help="seed of the random points (default 0)")
    group.add_argument(
        "--max-examples",
        type=_EXAMPLES,
        default=100,
        help="examples per property search (default 100; fewer for a slow tool)",
    )
    group.add_argument(
        "--grid",
        choices=("default", "small"),
        default="default",
        help="the grid of points (default), or small: every third point, for slow tools",
    )
    group.add_argument(
        "--timeout",
        type=_SECONDS,
        metavar="SECONDS",
        help=f"time limit per call (default {COMMAND_TIMEOUT:g} s for --command, {PYTHON_TIMEOUT:g} s for --python); "
        "a call past it is a timeout failure (its process group is killed), and no larger count total is "
        "called after it",
    )
    group.add_argument("--strict", action="store_true", help="exit with status 1 when the calculator does not conform")
    group.add_argument(
        "--out",
        type=output_path,
        metavar="PATH",
        help="write the report to this file (atomically; never over an input)",
    )


@docfill("arguments", returns="cli_report")
def run(arguments) -> str | int | tuple[str, int]:
    """Run ``llm-power-verified audit-calculator`` on the parsed command line."""
    if arguments.python is not None or arguments.command_template is not None:
        # Lazy: the calculator audit loads the testing layer (hypothesis, mpmath), which a claimed N does not need.
        from llm_power_verified.cli.calculator_audit import audit_function

        return audit_function(arguments)
    _refuse_function_options(arguments)
    missing = [
        flag
        for flag, value in (("--p-a", arguments.p_a), ("--p-b", arguments.p_b), ("--rho", arguments.rho))
        if value is None
    ]
    if missing:
        raise CommandError(
            f"the following arguments are required: {', '.join(missing)} (or audit a calculator: --python "
            "MODULE:FUNCTION or --command TEMPLATE)"
        )
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
    if output == "html":
        raise CommandError("--format html is the report of a calculator audit (--python or --command)")
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


def _refuse_function_options(arguments) -> None:
    """A calculator audit's option given without --python or --command would be ignored: refuse it."""
    defaults = {"argument_map": None, "claims": None, "tolerance": None, "seed": 0, "max_examples": 100}
    defaults |= {"grid": "default", "timeout": None, "strict": False, "out": None, "quantity": QUANTITY_CHOICES[0]}
    for dest, default in defaults.items():
        if getattr(arguments, dest) != default:
            flag = "--" + dest.replace("_", "-")
            raise CommandError(
                f"{flag} applies to a calculator audit: add --python MODULE:FUNCTION or --command TEMPLATE"
            )
