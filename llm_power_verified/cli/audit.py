"""``llm-power-verified audit``: The main job: the resolution audit of a leaderboard from per-item results."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from llm_power_verified.cli.options import (
    AUDIT_RESAMPLES,
    INPUT_RULES,
    MAX_AUDIT_RESAMPLES,
    SCORE_KIND_HELP,
    SEED,
    alpha_power_options,
)

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "audit",
        parents=[alpha_power_options()],
        help="resolution audit of a leaderboard from per-item results (the main job)",
        description=(
            "Per-pair resolution report for K models: gap, discordant counts, rho-hat, the four arbiters, "
            "N*, q = N/N*, MDE, verdict, bootstrap interval on N*, rho sensitivity, the shortcut, multiplicity, "
            "clusters, tiers and the paper's reporting checklist.  INPUT: a wide or long table (CSV, Parquet, "
            "JSON Lines), lm-evaluation-harness folders (one per model; --task, --metric), or Inspect logs "
            "(.eval/.json, one per model).  With no INPUT, runs on the shipped MMLU-Pro top-10 example."
        ),
        epilog=INPUT_RULES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("inputs", nargs="*", metavar="INPUT")
    parser.add_argument("--mode", choices=("adjacent", "all", "reference"), default="adjacent")
    parser.add_argument("--reference", help="reference model for --mode reference")
    parser.add_argument("--family", choices=("adjacent", "all", "reference"),
                       help="declared multiplicity family (default: the mode)")
    parser.add_argument("--format", choices=("table", "markdown", "json", "csv"), default="table")
    parser.add_argument("--out", help="write the report to this file (atomically; never over an input)")
    parser.add_argument("--plot", help="also save the resolution and efficiency plots to this image file")
    parser.add_argument("--item-column", default="item_id")
    parser.add_argument("--cluster-column", help="column holding each item's cluster label")
    parser.add_argument("--model-column", default="model", help="long tables: the model column")
    parser.add_argument("--score-column", default="score", help="long tables: the score column")
    parser.add_argument("--on-missing", choices=("error", "intersect"), default="error",
                       help="an item some model lacks: error (default) or intersect (keep the items every model has, with a note)")
    parser.add_argument("--scores", choices=("auto", "binary", "graded"), default="auto", help=SCORE_KIND_HELP)
    parser.add_argument("--missing-cluster", choices=("error", "drop", "own"), default="error",
                       help="an item without a cluster label: error (default), drop the item, or make it its own cluster")
    parser.add_argument("--task", help="lm-eval: task or group name")
    parser.add_argument("--metric", help="lm-eval: per-item metric (acc, acc_norm, exact_match, ...)")
    parser.add_argument("--filter", help="lm-eval: filter name when the task has several")
    parser.add_argument("--scorer", help="Inspect: scorer name when a log has several")
    parser.add_argument("--epochs", choices=("first", "mean", "error"), default="first", help="Inspect: repeated epochs (default: keep epoch 1)")
    parser.add_argument("--n-resamples", "--n-bootstrap", dest="n_resamples", type=AUDIT_RESAMPLES, default=500,
                        help=f"bootstrap resamples per pair, 0 (skip) to {MAX_AUDIT_RESAMPLES:,} (default 500; --n-bootstrap is the old name)")
    parser.add_argument("--n-cluster-resamples", "--cluster-bootstrap", dest="n_cluster_resamples", type=AUDIT_RESAMPLES, default=1000,
                        help=f"cluster bootstrap resamples, 0 to {MAX_AUDIT_RESAMPLES:,} (default 1000; --cluster-bootstrap is the old name)")
    parser.add_argument("--seed", type=SEED, default=0, help="seed of every resample (default 0)")


def _load_input(arguments):
    from llm_power_verified.io import read_scores

    paths = [Path(p) for p in arguments.inputs]
    if not paths:
        from llm_power_verified.examples import shipped_example

        matrix = shipped_example()
        print("no INPUT given: auditing the shipped example (MMLU-Pro top-10 reconstructed from the paper's "
              "Appendix E; its clusters are MMLU-Pro's category sizes assigned at random, a null check)", file=sys.stderr)
        return matrix, []
    matrix = read_scores(paths, item_column=arguments.item_column, cluster_column=arguments.cluster_column,
                         model_column=arguments.model_column, score_column=arguments.score_column,
                         on_missing=arguments.on_missing, score_kind=arguments.scores,
                         missing_cluster=arguments.missing_cluster, task=arguments.task, metric=arguments.metric,
                         filter=arguments.filter, scorer=arguments.scorer, epochs=arguments.epochs)
    return matrix, paths


def run(arguments) -> str:
    from llm_power_verified.io import check_outputs, write_text
    from llm_power_verified.leaderboard.audit import audit_leaderboard
    from llm_power_verified.report.render import plot_resolution, render

    check_outputs({"--out": arguments.out, "--plot": arguments.plot}, arguments.inputs)
    matrix, inputs = _load_input(arguments)
    show = sys.stderr.isatty()

    def progress(message: str) -> None:
        if show:
            print(f"  ... {message}", file=sys.stderr)

    result = audit_leaderboard(
        matrix, arguments.mode, reference=arguments.reference, family=arguments.family, alpha=arguments.alpha,
        power=arguments.power, n_resamples=arguments.n_resamples, seed=arguments.seed,
        n_cluster_resamples=arguments.n_cluster_resamples, progress=progress,
    )
    text = render(result, arguments.format)
    if arguments.plot:
        plot_resolution(result, arguments.plot)
    if arguments.out:
        write_text(arguments.out, text)
        return f"wrote {arguments.out}"
    return text.rstrip("\n")
