"""Command line: ``llm-power-verified design`` and ``llm-power-verified derivations``.

Errors print one line on stderr and exit with status 2; there is never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence

PROGRAM = "llm-power-verified"


class CommandError(Exception):
    """A user error the CLI reports in one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # noqa: D401 - argparse hook
        raise CommandError(message)


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
    design.add_argument("--p-a", type=float, help="accuracy of model A, in (0, 1)")
    design.add_argument("--p-b", type=float, help="accuracy of model B, in (0, 1)")
    design.add_argument("--rho", type=float, help="correlation of the per-item 0/1 scores")
    design.add_argument("--a", type=int, help="items both models solve (optional with --b --c --n)")
    design.add_argument("--b", type=int, help="items only model A solves")
    design.add_argument("--c", type=int, help="items only model B solves")
    design.add_argument("--n", type=int, help="benchmark size (number of paired items)")
    design.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    design.add_argument("--power", type=float, default=0.8, help="target power (default 0.8)")
    design.add_argument(
        "--alternative", choices=("two-sided", "larger", "smaller"), default="two-sided",
        help="alternative hypothesis; 'larger' means p_a > p_b (default two-sided)",
    )
    design.add_argument("--json", action="store_true", help="print one JSON object")

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
    from llm_power_verified.design import design_from_counts, design_paired_binary

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


def _run_derivations(action: str) -> tuple[str, int]:
    try:
        import derivations  # noqa: F401  (needs SymPy and the repository checkout)
        from derivations.__main__ import main as derivations_main
    except ImportError as error:
        raise CommandError(f"the derivations package is not importable here ({error})") from None
    status = derivations_main(["--check"] if action == "check" else [])
    return "", status


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    try:
        arguments = parser.parse_args(argv)
        if arguments.command is None:
            parser.print_help()
            return 0
        if arguments.command == "design":
            print(_run_design(arguments))
            return 0
        _, status = _run_derivations(arguments.action)
        return status
    except (CommandError, ValueError, TypeError) as error:
        message = " ".join(str(error).split())
        print(f"{PROGRAM}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
