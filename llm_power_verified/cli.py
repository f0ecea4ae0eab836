"""Command line: ``llm-power-verified design | test | derivations``.

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

    test = commands.add_parser(
        "test",
        help="every paired test variant on a 2x2 table or two aligned score files",
        description=(
            "McNemar chi-square (with and without continuity correction), exact and mid-p tests and the "
            "paired bootstrap for binary scores; paired t, Wilcoxon and the bootstrap for graded scores. "
            "Give --b --c [--n] or two files of aligned per-item scores (one number per line; a "
            "non-numeric first line is taken as a header)."
        ),
    )
    test.add_argument("files", nargs="*", metavar="FILE", help="two files: scores of model A, then model B")
    test.add_argument("--b", type=int, help="items only model A solves")
    test.add_argument("--c", type=int, help="items only model B solves")
    test.add_argument("--n", type=int, help="number of items (needed for the bootstrap)")
    test.add_argument("--two-sided", choices=("double", "no-more-likely"), default="double",
                      help="two-sided rule of the exact and mid-p tests (default double)")
    test.add_argument("--confidence", type=float, default=0.95, help="bootstrap interval level (default 0.95)")
    test.add_argument("--n-resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    test.add_argument("--bootstrap-method", choices=("percentile", "bca", "studentized"), default="percentile")
    test.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0; same seed, same output)")
    test.add_argument("--json", action="store_true", help="print a JSON list, one object per variant")

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


def _read_scores(path: str) -> list[float]:
    try:
        with open(path, encoding="utf-8") as stream:
            lines = [line.strip() for line in stream]
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror}") from None
    values = []
    for number, line in enumerate(lines, start=1):
        if not line:
            continue
        try:
            values.append(float(line.split(",")[0]))
        except ValueError:
            if number == 1:
                continue  # header
            raise CommandError(f"{path}, line {number}: not a number: {line[:40]!r}") from None
    if not values:
        raise CommandError(f"{path} has no scores")
    return values


def _json_number(value: float):
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _run_test(arguments) -> str:
    from llm_power_verified.bootstrap import paired_bootstrap, paired_bootstrap_counts
    from llm_power_verified.graded import paired_t_test, wilcoxon_signed_rank
    from llm_power_verified.mcnemar import binary_counts, mcnemar_all

    options = dict(n_resamples=arguments.n_resamples, confidence=arguments.confidence,
                   method=arguments.bootstrap_method, seed=arguments.seed)
    rows = []
    header = ""
    if arguments.files:
        if len(arguments.files) != 2 or arguments.b is not None or arguments.c is not None:
            raise CommandError("give two score files, or --b and --c, not both")
        scores_a, scores_b = (_read_scores(path) for path in arguments.files)
        if len(scores_a) != len(scores_b):
            raise CommandError(f"the files hold {len(scores_a)} and {len(scores_b)} scores; they must be aligned item by item")
        binary = all(v in (0.0, 1.0) for v in scores_a + scores_b)
        if binary:
            both, b, c, _ = binary_counts(scores_a, scores_b)
            n = len(scores_a)
        else:
            for name, result in (("paired-t", paired_t_test(scores_a, scores_b)), ("wilcoxon", wilcoxon_signed_rank(scores_a, scores_b))):
                rows.append({"method": name, "statistic": result.statistic, "pvalue": result.pvalue, "log_pvalue": result.log_pvalue})
            boot = paired_bootstrap(scores_a, scores_b, **options)
            header = f"graded scores, n = {len(scores_a)}, mean difference = {boot.estimate:.6g}"
    else:
        if arguments.b is None or arguments.c is None:
            raise CommandError("test needs --b and --c, or two score files")
        b, c, n, binary = arguments.b, arguments.c, arguments.n, True
    if binary:
        for name, result in mcnemar_all(b, c, arguments.two_sided).items():
            rows.append({"method": name, "statistic": result.statistic, "pvalue": result.pvalue,
                         "log_pvalue": result.log_pvalue, "b": int(b), "c": int(c)})
        boot = paired_bootstrap_counts(b, c, n, **options) if n is not None else None
        header = f"binary scores: b = {b}, c = {c}" + (f", n = {n}" if n is not None else " (give --n for the bootstrap)")
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
        if arguments.command == "test":
            print(_run_test(arguments))
            return 0
        _, status = _run_derivations(arguments.action)
        return status
    except (CommandError, ValueError, TypeError) as error:
        message = " ".join(str(error).split())
        print(f"{PROGRAM}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
