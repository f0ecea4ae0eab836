"""``llm-power-verified monitor``: The anytime-valid e-process trajectory of a pair, in arrival order."""

from __future__ import annotations

from pathlib import Path

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.options import SCORE_KIND_HELP
from llm_power_verified.cli.parents import alpha_power_options
from llm_power_verified.cli.value_types import CHECKPOINTS
from llm_power_verified.io.escaping import terminal_text
from llm_power_verified.io.output import json_text

__all__ = ["add_parser", "run"]


#: The image formats matplotlib writes without extra packages, by suffix (a --plot of another suffix is refused).
_PLOT_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".eps", ".ps")


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``monitor`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "monitor",
        parents=[alpha_power_options(power=False)],
        help="anytime-valid e-process trajectory of a pair, in arrival order",
        description=(
            "Reads two files of aligned per-item scores in arrival order (one number per line) and prints the "
            "e-process trajectory at checkpoints, the first item at which e >= 1/alpha, the anytime-valid "
            "p-value min(1, 1/sup e), time-uniform confidence sequences, and which procedure decides (the e-process; "
            "the sequences that are not its dual can differ from it).  0/1 scores: the mixture e-process of the "
            "discordant pairs, the confidence sequence for the win share among discordant items inverted from it, "
            "and the Hoeffding-type one for the mean difference.  Graded scores in [0, 1]: the hedged betting "
            "e-process and confidence sequence and the empirical-Bernstein one (Waudby-Smith and Ramdas 2024), "
            "beside the Hoeffding-type normal mixture."
        ),
    )
    parser.add_argument(
        "files", nargs=2, metavar="FILE", help="scores of model A, then model B, one per line, in arrival order"
    )
    parser.add_argument("--scores", choices=("auto", "binary", "graded"), default="auto", help=SCORE_KIND_HELP)
    parser.add_argument(
        "--method",
        choices=("betting", "empirical-bernstein"),
        default="betting",
        help="graded scores: the e-process behind the crossing and the p-value",
    )
    parser.add_argument(
        "--mixture",
        choices=("grid", "beta", "two-point"),
        default="grid",
        help="0/1 scores: mixture over theta of the e-process",
    )
    parser.add_argument(
        "--checkpoints", type=CHECKPOINTS, default=20, help="rows printed along the trajectory (default 20)"
    )
    parser.add_argument("--plot", help="save log e_n against n, with the log(1/alpha) line, to this image file")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


@docfill("arguments", returns="cli_report")
def run(arguments) -> str:
    """Run ``llm-power-verified monitor`` on the parsed command line."""
    import numpy as np

    from llm_power_verified.io import check_outputs, read_score_files
    from llm_power_verified.io.detect import refuse_twins
    from llm_power_verified.sequential import anytime_pvalue, confidence_sequence, e_process
    from llm_power_verified.sequential.dual import win_share_sequence

    if arguments.plot and Path(arguments.plot).suffix.lower() not in _PLOT_SUFFIXES:
        raise CommandError(
            f"--plot {arguments.plot}: {Path(arguments.plot).suffix or 'no suffix'} is not an image format the figure "
            f"is written as; name a {', '.join(_PLOT_SUFFIXES)} file"
        )
    check_outputs({"--plot": arguments.plot}, arguments.files)
    refuse_twins([Path(name) for name in arguments.files if Path(name).exists()])
    matrix = read_score_files(*arguments.files, score_kind=arguments.scores)
    if not matrix.binary:
        return _graded(arguments, matrix)
    if arguments.method != "betting":
        raise CommandError("--method chooses the graded e-process; 0/1 scores use --mixture")
    scores_a, scores_b = matrix.scores[:, 0], matrix.scores[:, 1]
    trajectory = e_process(scores_a, scores_b, arguments.mixture)
    differences = np.asarray(scores_a) - np.asarray(scores_b)
    sequence = confidence_sequence(differences, arguments.alpha)
    dual = win_share_sequence(trajectory.b, trajectory.c, arguments.alpha, arguments.mixture)
    first = trajectory.first_crossing(arguments.alpha)
    n = differences.size
    marks = _marks(n, arguments.checkpoints, first)
    rows = [
        {
            "n": int(t),
            "b": int(trajectory.b[t - 1]),
            "c": int(trajectory.c[t - 1]),
            "mean_difference": float(trajectory.mean_difference[t - 1]),
            "log_e": float(trajectory.log_e[t - 1]),
            "theta_low": float(dual.lower[t - 1]),
            "theta_high": float(dual.upper[t - 1]),
            "cs_low": float(sequence.lower[t - 1]),
            "cs_high": float(sequence.upper[t - 1]),
        }
        for t in marks
    ]
    summary = {
        "items": n,
        "mixture": arguments.mixture,
        "alpha": arguments.alpha,
        "first_crossing": first,
        "p_anytime_running": anytime_pvalue(trajectory.log_e),
        "p_anytime_at_n": anytime_pvalue(trajectory.log_e[-1]),
        "max_log_e": float(np.max(trajectory.log_e)),
        "confidence_sequence_mixture_scale": sequence.mixture_scale,
        **_binary_decision(first, arguments.alpha, dual, sequence),
    }
    if arguments.plot:
        from llm_power_verified.report.plots import plot_trajectory

        plot_trajectory(trajectory, arguments.alpha, arguments.plot)
    if arguments.json:
        return json_text({"summary": summary, "trajectory": rows})
    lines = [f"note: {terminal_text(note)}" for note in matrix.notes]
    lines += [
        f"{n} items in arrival order; {arguments.mixture} mixture; reject when e >= 1/alpha = {1 / arguments.alpha:g}",
        "",
    ]
    lines.append(
        f"{'n':>8} {'b':>7} {'c':>7} {'mean diff':>11} {'log e':>10}  {'win share (dual CS)':<19}  "
        "mean diff (Hoeffding CS)"
    )
    for row in rows:
        flag = "  <- first crossing" if row["n"] == first else ""
        lines.append(
            f"{row['n']:>8} {row['b']:>7} {row['c']:>7} {row['mean_difference']:>11.5f} {row['log_e']:>10.4f}  "
            f"{'[' + format(row['theta_low'], '.4f') + ', ' + format(row['theta_high'], '.4f') + ']':<19}  "
            f"[{row['cs_low']:+.5f}, {row['cs_high']:+.5f}]{flag}"
        )
    lines += [
        "",
        (
            f"first crossing: {'item ' + str(first) if first else 'none'}; "
            f"p_anytime_running = min(1, 1/sup_t e_t) = {summary['p_anytime_running']:.4g} (valid at any stopping "
            "time); "
            f"p_anytime_at_n = min(1, 1/e_N) = {summary['p_anytime_at_n']:.4g} (the audit's value, from the final "
            "counts)"
        ),
        f"decision: {summary['decision']['statement']}",
        f"win share: {summary['win_share_sequence']['meaning']}",
        f"mean diff: {summary['mean_difference_sequence']['why_it_can_differ']}",
    ]
    return "\n".join(lines)


def _binary_decision(first: int | None, alpha: float, dual, sequence) -> dict:
    """Which procedure decides, and what each confidence sequence is (JSON ``summary`` keys, printed as notes)."""
    if first is None:
        outcome, statement = "no decision", "none yet: the e-process has not reached 1/alpha, and the test decides"
    else:
        outcome = "A better" if dual.lower[first - 1] > 0.5 else "B better"
        statement = (
            f"{outcome} (equal accuracies rejected at item {first}, where e first reached 1/alpha = {1 / alpha:g}); "
            "the e-process is the test and decides"
        )
    contains_zero = bool(sequence.lower[-1] <= 0 <= sequence.upper[-1])
    return {
        "decision": {
            "procedure": "mixture e-process on the discordant pairs",
            "rule": "reject equal accuracies at the first item with e_t >= 1/alpha",
            "decided_at": first,
            "outcome": outcome,
            "statement": statement,
        },
        "win_share_sequence": {
            "dual_to_the_test": True,
            "lower": float(dual.lower[-1]),
            "upper": float(dual.upper[-1]),
            "excludes_half": bool(dual.excludes_half[-1]),
            "meaning": _WIN_SHARE,
        },
        "mean_difference_sequence": {
            "method": "Hoeffding-type normal mixture (Howard et al. 2021) on the per-item differences in [-1, 1]",
            "dual_to_the_test": False,
            "contains_zero_at_n": contains_zero,
            "why_it_can_differ": _HOEFFDING,
        },
    }


#: What the dual confidence sequence of 0/1 scores is.
_WIN_SHARE = (
    "theta = p10 / (p10 + p01), the share of discordant items won by A, inverted from the same e-process family "
    "(running intersection): it excludes 1/2 exactly from the first crossing on, so it never disagrees with the test; "
    "theta > 1/2 means A is more accurate"
)
#: Why the mean-difference sequence of 0/1 scores can contain 0 after the test rejects.
_HOEFFDING = (
    "an interval estimate of p_A - p_B from a different, non-dual procedure: it bounds each difference by [-1, 1] "
    "(variance proxy 1) whatever the share of ties, while the e-process uses only the discordant items; it is wider "
    "and can still contain 0 after the test has rejected (it is not the test)"
)


def _marks(n: int, checkpoints: int, first: int | None) -> list[int]:
    import numpy as np

    marks = {int(t) for t in np.unique(np.linspace(1, n, max(min(checkpoints, n), 1)).astype(int))}
    return sorted(marks | ({first} if first else set()))


def _graded(arguments, matrix) -> str:
    """Graded scores: the betting (or empirical-Bernstein) e-process and the three confidence sequences."""
    import numpy as np

    from llm_power_verified.sequential import anytime_pvalue, confidence_sequence
    from llm_power_verified.sequential.betting import (
        betting_confidence_sequence,
        betting_e_process,
        empirical_bernstein_confidence_sequence,
    )

    if arguments.mixture != "grid" or arguments.plot:
        raise CommandError("--mixture and --plot are for 0/1 scores; graded scores use --method")
    differences = matrix.scores[:, 0] - matrix.scores[:, 1]
    path = betting_e_process(differences, arguments.alpha, arguments.method)
    first = path.first_crossing(arguments.alpha)
    n = differences.size
    marks = _marks(n, arguments.checkpoints, first)
    sequences = {
        "betting": betting_confidence_sequence(differences, arguments.alpha, refine_at=marks),
        "eb": empirical_bernstein_confidence_sequence(differences, arguments.alpha),
        "hoeffding": confidence_sequence(differences, arguments.alpha),
    }
    rows = [
        {
            "n": t,
            "mean_difference": float(path.mean_difference[t - 1]),
            "log_e": float(path.log_e[t - 1]),
            **{
                f"{name}_{end}": float(getattr(sequence, "lower" if end == "low" else "upper")[t - 1])
                for name, sequence in sequences.items()
                for end in ("low", "high")
            },
        }
        for t in marks
    ]
    summary = {
        "items": n,
        "scores": "graded",
        "method": arguments.method,
        "alpha": arguments.alpha,
        "first_crossing": first,
        "p_anytime_running": anytime_pvalue(path.log_e),
        "p_anytime_at_n": anytime_pvalue(path.log_e[-1]),
        "max_log_e": float(np.max(path.log_e)),
        "width_at_n": {name: float(sequence.upper[-1] - sequence.lower[-1]) for name, sequence in sequences.items()},
        **_graded_decision(first, arguments, path, sequences),
    }
    if arguments.json:
        return json_text({"summary": summary, "trajectory": rows})
    lines = [f"note: {terminal_text(note)}" for note in matrix.notes]
    lines += [
        (
            f"{n} items in arrival order, graded scores; {arguments.method} e-process; reject when e >= 1/alpha = "
            f"{1 / arguments.alpha:g}"
        ),
        (
            "confidence sequences for the mean difference: betting (hedged capital), "
            "empirical Bernstein, and the Hoeffding-type normal mixture for comparison"
        ),
        "",
    ]
    lines.append(
        f"{'n':>8} {'mean diff':>11} {'log e':>10}  {'betting':<22} {'empirical Bernstein':<22} {'Hoeffding':<22}"
    )
    for row in rows:
        flag = "  <- first crossing" if row["n"] == first else ""
        cells = "".join(
            f" [{row[name + '_low']:+.4f}, {row[name + '_high']:+.4f}]" for name in ("betting", "eb", "hoeffding")
        )
        lines.append(f"{row['n']:>8} {row['mean_difference']:>11.5f} {row['log_e']:>10.4f} {cells}{flag}")
    widths = summary["width_at_n"]
    lines += [
        "",
        (
            f"first crossing: {'item ' + str(first) if first else 'none'}; p_anytime_running = min(1, 1/sup_t e_t) = "
            f"{summary['p_anytime_running']:.4g}; width at n: betting {widths['betting']:.4g}, empirical Bernstein "
            f"{widths['eb']:.4g}, Hoeffding {widths['hoeffding']:.4g}"
        ),
        f"decision: {summary['decision']['statement']}",
        *(f"{_NAMES[name]}: {text}" for name, text in summary["confidence_sequences"].items()),
    ]
    return "\n".join(lines)


_NAMES = {"betting": "betting", "eb": "empirical Bernstein", "hoeffding": "Hoeffding"}


def _graded_decision(first: int | None, arguments, path, sequences: dict) -> dict:
    """Graded scores: which procedure decides, and which of the three sequences is its dual (JSON ``summary`` keys)."""
    threshold = 1 / arguments.alpha
    if first is None:
        outcome, statement = "no decision", f"none yet: the {arguments.method} e-process has not reached 1/alpha"
    else:
        outcome = "A better" if path.mean_difference[first - 1] > 0 else "B better"
        statement = (
            f"{outcome} (mean difference 0 rejected at item {first}, where the {arguments.method} e-process first "
            f"reached 1/alpha = {threshold:g}); the e-process is the test and decides"
        )
    dual = "betting" if arguments.method == "betting" else None
    explained = {
        "betting": (
            "the hedged-capital family of the betting e-process inverted at each item: it excludes 0 exactly when "
            "that item's e_t >= 1/alpha (exact at the printed rows, one grid step wider between them); pointwise, "
            "so after a crossing e_t may fall back and the interval contain 0 again while the test has decided"
        ),
        "eb": "the empirical-Bernstein sequence (two one-sided bounds at alpha/2 each): "
        + (
            "its e-process is the one that decides here, but the sequence is not its exact dual"
            if not dual
            else "a different procedure from the betting test; it can differ from it"
        ),
        "hoeffding": "a Hoeffding-type normal mixture with variance proxy 1 whatever the data: a different, wider, "
        "non-dual procedure; it can contain 0 after the test has rejected",
    }
    if not dual:
        explained["betting"] = "a different procedure from the empirical-Bernstein test; it can differ from it"
    return {
        "decision": {
            "procedure": f"{arguments.method} e-process of the differences",
            "rule": "reject mean difference 0 at the first item with e_t >= 1/alpha",
            "decided_at": first,
            "outcome": outcome,
            "statement": statement,
            "dual_sequence": dual,
        },
        "confidence_sequences": explained,
        "contains_zero_at_n": {
            name: bool(sequence.lower[-1] <= 0 <= sequence.upper[-1]) for name, sequence in sequences.items()
        },
    }
