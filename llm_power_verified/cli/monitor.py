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
            "p-value min(1, 1/sup e) and time-uniform confidence sequences for the mean difference.  0/1 scores: the "
            "mixture e-process of the discordant pairs.  Graded scores in [0, 1]: the hedged betting e-process and "
            "confidence sequence and the empirical-Bernstein one (Waudby-Smith and Ramdas 2024), beside the "
            "Hoeffding-type normal mixture."
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
    lines.append(f"{'n':>8} {'b':>7} {'c':>7} {'mean diff':>11} {'log e':>10}  {'confidence sequence':<26}")
    for row in rows:
        flag = "  <- first crossing" if row["n"] == first else ""
        lines.append(
            f"{row['n']:>8} {row['b']:>7} {row['c']:>7} {row['mean_difference']:>11.5f} {row['log_e']:>10.4f}  "
            f"[{row['cs_low']:.5f}, {row['cs_high']:.5f}]{flag}"
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
    ]
    return "\n".join(lines)


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
    ]
    return "\n".join(lines)
