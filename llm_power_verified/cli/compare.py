"""``llm-power-verified compare``: one named comparison, a candidate against a baseline, as a gate with three verdicts.

Exit status 0 pass, 1 fail, 3 inconclusive (``--inconclusive pass|fail`` maps it), 2 an input or usage error.
"""

from __future__ import annotations

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.inputs import input_options, read_matrix
from llm_power_verified.cli.options import INPUT_RULES, HelpFormatter
from llm_power_verified.cli.parents import alpha_power_options, format_options
from llm_power_verified.cli.path_types import output_path
from llm_power_verified.cli.value_types import RESAMPLES, SEED, number
from llm_power_verified.contract.documents import COMPARE_EXIT_CODES, COMPARE_METHODS, COMPARE_TESTS

__all__ = ["EXIT_STATUS", "add_parser", "run"]

#: The exit statuses, for ``--help`` and the docs.
EXIT_STATUS = (
    "exit status: "
    + "; ".join(f"{code} {name}" for name, code in COMPARE_EXIT_CODES.items())
    + " (--inconclusive pass|fail maps 3 to 0 or 1); 2 an input or usage error (one line on stderr)"
)
MARGIN = number(low=0, high=1, high_open=True, summary="A margin in score units (--margin)")


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``compare`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "compare",
        parents=[input_options(), alpha_power_options(), format_options(("text", "markdown", "json"), "text")],
        help="one named comparison, candidate against baseline: pass, fail or inconclusive (a CI gate)",
        description=(
            "Compares --candidate with --baseline on the items of the input (any input audit reads, or two plain "
            "score files, one model each) and reads a verdict from the (1 - 2 alpha) interval of d = candidate - "
            "baseline: pass when the whole interval lies in the test's alternative (superiority d > m, "
            "non-inferiority d > -m, equivalence -m < d < m), fail when none of it does, inconclusive otherwise "
            "(then the report gives the N that would decide, with the observed values taken as the truth).  0/1 "
            "scores: Tango's score interval and tests; graded: the paired t; either: the paired bootstrap, or with "
            "clusters the cluster-robust t (--method cluster).  With several generations per item (--repeat-column, "
            "--repeat-pattern, --epochs all) the test runs on the item means and the report adds the split of the "
            "gap's noise (between items, within items) and q at K' generations per item."
        ),
        epilog=INPUT_RULES + "\n\n" + EXIT_STATUS,
        formatter_class=HelpFormatter,
    )
    group = parser.add_argument_group("comparison")
    group.add_argument("--baseline", required=True, metavar="NAME", help="the baseline model (as the input names it)")
    group.add_argument(
        "--candidate", required=True, metavar="NAME", help="the candidate model; d = candidate - baseline"
    )
    group.add_argument("--test", choices=COMPARE_TESTS, default=COMPARE_TESTS[0], help="the claim a pass shows")
    group.add_argument(
        "--margin",
        type=MARGIN,
        help="m in score units (0.02 = 2 points): default 0 for superiority; required, > 0, for the other two",
    )
    group.add_argument(
        "--method",
        choices=[method for method in COMPARE_METHODS if method != "betting"],
        help="the interval: score (0/1 scores' default), t (graded scores' default), bootstrap, or cluster (the "
        "cluster-robust t on G - 1 degrees of freedom; needs --cluster-column or an input with clusters)",
    )
    group.add_argument(
        "--n-resamples", type=RESAMPLES, default=2000, help="bootstrap resamples (--method bootstrap; default 2000)"
    )
    group.add_argument("--seed", type=SEED, default=0, help="the bootstrap's seed (default 0; same seed, same output)")
    group.add_argument(
        "--anytime",
        action="store_true",
        help="anytime-valid: the items in input order, the (1 - alpha) hedged betting confidence sequence of the gap "
        "d (Waudby-Smith and Ramdas), which gives an interval for d and so decides against any margin; reports the "
        "item at which the verdict was reached.  monitor's test of d = 0 on 0/1 scores (a mixture e-process on the "
        "discordant pairs) is a different procedure and can decide earlier",
    )
    group.add_argument(
        "--inconclusive",
        choices=("pass", "fail"),
        help="exit with this verdict's status when the comparison is inconclusive (default: status 3)",
    )
    group.add_argument("--out", type=output_path, help="write the report to this file (atomically) instead of stdout")


def _check(arguments) -> float:
    """The margin, after refusing option combinations that would be ignored or are incomplete."""
    margin = arguments.margin
    if margin is None:
        if arguments.test != "superiority":
            raise CommandError(f"--test {arguments.test} needs --margin m > 0 (in score units: 0.02 = 2 points)")
        margin = 0.0
    if arguments.method != "bootstrap":
        for flag, dest, default in (("--n-resamples", "n_resamples", 2000), ("--seed", "seed", 0)):
            if getattr(arguments, dest) != default:
                raise CommandError(f"{flag} applies to --method bootstrap only, so it would be ignored: leave it out")
    if arguments.anytime and arguments.method is not None:
        raise CommandError(
            f"--method {arguments.method}: --anytime uses a betting confidence sequence; leave --method out"
        )
    return margin


@docfill("arguments", returns="cli_report")
def run(arguments):
    """Run ``llm-power-verified compare`` on the parsed command line."""
    from llm_power_verified.comparison import compare, exit_code
    from llm_power_verified.comparison.record import report, verdict_sentence

    margin = _check(arguments)
    if arguments.json:  # --json is --format json, also for --out's check of the file's suffix
        arguments.format = "json"
    from llm_power_verified.io import check_outputs

    # Before any work: an --out that is an input (or inside an input folder) is refused, as audit refuses it.
    check_outputs({"--out": arguments.out}, arguments.inputs)
    matrix = read_matrix(arguments)
    result = compare(
        matrix,
        arguments.baseline,
        arguments.candidate,
        arguments.test,
        margin,
        arguments.alpha,
        arguments.method,
        power=arguments.power,
        n_resamples=arguments.n_resamples,
        seed=arguments.seed,
        anytime=arguments.anytime,
    )
    status = exit_code(result.verdict, arguments.inconclusive)
    text = report(result, arguments.format, arguments.inputs, arguments.inconclusive)
    if arguments.out is None:
        return text, status
    from llm_power_verified.cli.streams import wrote
    from llm_power_verified.io.output import write_text

    write_text(arguments.out, text + "\n")
    return wrote(arguments.out, status, [verdict_sentence(result)])
