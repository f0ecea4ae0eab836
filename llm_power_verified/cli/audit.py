"""``llm-power-verified audit``: The main job: the resolution audit of a leaderboard from per-item results."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from llm_power_verified.cli import audit_summary
from llm_power_verified.cli.options import (
    AUDIT_RESAMPLES,
    EXIT_CODES,
    INPUT_RULES,
    MAX_AUDIT_RESAMPLES,
    POSITIVE_COUNT,
    PROGRAM,
    SCORE_KIND_HELP,
    SEED,
    WIDTH,
    CommandError,
    HelpFormatter,
    alpha_power_options,
    print_note,
    progress_bar,
    terminal_width,
    write_report_chunks,
    wrote,
)

#: Kept in step with llm_power_verified.leaderboard.decisions.CORRECTIONS and report.rendering.PAIR_VIEW
#: (tests/test_cli.py checks); repeated here so that `--help` does not import the audit.
CORRECTIONS = ("holm", "bonferroni", "sidak", "bh", "none")
PAIR_VIEW = ("delta", "p_adjusted", "significant", "q", "resolved", "significant_clustered", "significant_anytime", "required_n",
             "mde", "rho", "b", "c", "p_exact", "p_midp", "t", "p_t", "boot_ci", "required_n_interval", "shortcut_ratio")


def column_list(text: str) -> list[str]:
    """--columns: comma-separated pair-table column names."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in PAIR_VIEW]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"unknown column {(unknown or [text])[0]!r}; choose from {', '.join(PAIR_VIEW)}")
    return names

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
        epilog=INPUT_RULES + "\n\n" + EXIT_CODES,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("inputs", nargs="*", metavar="INPUT", help="score table, lm-eval folders or Inspect logs (none: the shipped example)")
    parser.add_argument("--mode", choices=("adjacent", "all", "reference"), default="adjacent", help="which pairs to report")
    parser.add_argument("--reference", help="reference model for --mode reference")
    parser.add_argument("--family", choices=("adjacent", "all", "reference"),
                        help="declared multiplicity family (default: the mode)")
    parser.add_argument("--correction", choices=CORRECTIONS, default="holm",
                        help="the declared family's correction behind the 'significant' verdict")
    parser.add_argument("--format", choices=("table", "markdown", "html", "json", "jsonl", "csv", "parquet"), default="table",
                        help="report format: table, markdown, html (one self-contained page with sortable tables and figures); "
                             "machine formats with every pair, written block by block: json (the whole report), jsonl and csv "
                             "(the pair table), parquet (the pair table with the rest of the report in its metadata; needs --out; "
                             "the only format that never holds the pair table in memory, for audits of thousands of models)")
    parser.add_argument("--out", help="write the report to this file (atomically; never over an input)")
    parser.add_argument("--pairs", choices=("top", "all", "none"), default="top",
                        help="pairs listed by table, markdown and html: the 200 (html: 5,000) closest in rank, every pair, or none; "
                             "the machine formats always hold every pair")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="compute the blocks of pairs on an existing Dask cluster (tcp://host:8786, as 'dask scheduler' prints; "
                             "needs the dask extra on the client and the workers)")
    parser.add_argument("--workers", type=POSITIVE_COUNT,
                        help="compute the blocks of pairs on a local Dask cluster of this many processes (needs the dask extra; "
                             "at most the CPUs available, or 4 if fewer); the results do not depend on it")
    parser.add_argument("--plot", metavar="DIR_OR_IMAGE",
                        help="save the figures: a folder gets resolution, efficiency and forest plots as PNG and SVG; "
                             "a .png/.svg/.pdf file gets the resolution plot (needs the plots extra)")
    parser.add_argument("--width", type=WIDTH, help="terminal report width (default: the terminal's, or 100 when not a terminal)")
    parser.add_argument("--columns", type=column_list, help=f"pair-table columns, comma-separated (from: {', '.join(PAIR_VIEW)})")
    parser.add_argument("--wide", action="store_true", help="terminal report: every column, whole model names")
    parser.add_argument("--fail-on", choices=("unresolved", "not-significant"),
                        help="exit 1 when any adjacent pair is unresolved (or not significant): a gate for pipelines")
    parser.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--item-column", default="item_id", help="table column holding the item id")
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
    parser.add_argument("--epochs", choices=("first", "mean", "error"), default="first", help="Inspect: repeated epochs: first keeps each log's lowest epoch (default), mean averages them, error refuses")
    parser.add_argument("--n-resamples", "--n-bootstrap", dest="n_resamples", type=AUDIT_RESAMPLES, default=500,
                        help=f"bootstrap resamples per pair, 0 (skip) to {MAX_AUDIT_RESAMPLES:,} (default 500; --n-bootstrap is the old name)")
    parser.add_argument("--n-cluster-resamples", "--cluster-bootstrap", dest="n_cluster_resamples", type=AUDIT_RESAMPLES, default=1000,
                        help=f"cluster bootstrap resamples, 0 to {MAX_AUDIT_RESAMPLES:,} (default 1000; --cluster-bootstrap is the old name)")
    parser.add_argument("--n-rank-resamples", type=AUDIT_RESAMPLES, default=0,
                        help="item resamples for a bootstrap rank interval per model, 0 (skip) to "
                             f"{MAX_AUDIT_RESAMPLES:,}; the Holm rank interval is always shown")
    parser.add_argument("--seed", type=SEED, default=0, help="seed of every resample (default 0)")
    audit_summary.add_options(parser)


def _load_input(arguments):
    from llm_power_verified.io import read_scores

    paths = [Path(p) for p in arguments.inputs]
    if not paths:
        from llm_power_verified.examples import shipped_example

        matrix = shipped_example()
        print_note("no INPUT given: auditing the shipped example (MMLU-Pro top-10 reconstructed from the paper's "
                   "Appendix E; its clusters are MMLU-Pro's category sizes assigned at random, a null check)")
        return matrix, []
    matrix = read_scores(paths, item_column=arguments.item_column, cluster_column=arguments.cluster_column,
                         model_column=arguments.model_column, score_column=arguments.score_column,
                         on_missing=arguments.on_missing, score_kind=arguments.scores,
                         missing_cluster=arguments.missing_cluster, task=arguments.task, metric=arguments.metric,
                         filter=arguments.filter, scorer=arguments.scorer, epochs=arguments.epochs)
    return matrix, paths


def run(arguments) -> str | tuple[str, int] | int:
    from llm_power_verified.io import check_outputs

    if arguments.summary:
        return audit_summary.run(arguments)
    _refuse_summary_options(arguments)

    plot_folder = _plot_folder(arguments.plot)
    outputs = {"--out": arguments.out, "--plot": None if plot_folder else arguments.plot}
    if plot_folder and plot_folder.is_dir():
        outputs.update({f"--plot {name}": plot_folder / name for name in _FIGURE_FILES})
    elif plot_folder:
        outputs["--plot"] = plot_folder  # made after the audit; checked now as a new file would be
    if arguments.format == "parquet":
        if not arguments.out:
            raise CommandError("--format parquet needs --out FILE (Parquet is a binary file, not terminal output)")
        if arguments.plot:
            raise CommandError("--plot needs the pair table in memory; --format parquet streams it to the file (plot from another format)")
    if arguments.scheduler and arguments.workers:
        raise CommandError("give --scheduler (an existing Dask cluster) or --workers (a local one), not both")
    check_outputs(outputs, arguments.inputs)
    matrix, _ = _load_input(arguments)
    with _backend(arguments) as backend, progress_bar(quiet=arguments.quiet) as progress:
        options = dict(reference=arguments.reference, family=arguments.family, alpha=arguments.alpha, power=arguments.power,
                       n_resamples=arguments.n_resamples, seed=arguments.seed, correction=arguments.correction,
                       n_rank_resamples=arguments.n_rank_resamples, progress=progress, backend=backend)
        if arguments.format == "parquet":
            from llm_power_verified.report.machine import write_audit_parquet
            from llm_power_verified.report.rendering import streamed_summary

            result = write_audit_parquet(matrix, arguments.out, arguments.mode, **options)
            return wrote(arguments.out, _gate(result.adjacent, arguments.fail_on), streamed_summary(result),
                         f": {result.pairs_written:,} pairs")
        from llm_power_verified.leaderboard.audit import audit_leaderboard

        result = audit_leaderboard(matrix, arguments.mode, n_cluster_resamples=arguments.n_cluster_resamples, **options)
    if plot_folder or arguments.plot:
        from llm_power_verified.report.plots import plot_resolution, write_figures

        if plot_folder:
            _make_folder(plot_folder)
            write_figures(result, plot_folder)
        else:
            plot_resolution(result, arguments.plot)
    status = _gate(result.pairs, arguments.fail_on)
    if arguments.format in ("json", "jsonl", "csv"):
        from llm_power_verified.io import write_chunks
        from llm_power_verified.report.machine import audit_chunks

        chunks = audit_chunks(result, arguments.format)
        if arguments.out:
            write_chunks(arguments.out, chunks)
            return wrote(arguments.out, status)
        write_report_chunks(chunks)
        return status
    if arguments.format == "html":
        from llm_power_verified.report.html import render_html

        text = render_html(result, pairs=arguments.pairs)
    else:
        from llm_power_verified.report.rendering import render

        width = arguments.width or terminal_width()
        text = render(result, arguments.format, width=width, columns=arguments.columns, wide=arguments.wide, pairs=arguments.pairs)
    if arguments.out:
        from llm_power_verified.io.output import terminal_lines, write_text

        # The file gets what the terminal would: no control or bidirectional character of an input, raw.
        write_text(arguments.out, terminal_lines(text))
        return wrote(arguments.out, status)
    return text.rstrip("\n"), status


def _refuse_summary_options(arguments) -> None:
    for name in ("n", "rho", "rho_range"):
        if getattr(arguments, name) is not None:
            raise CommandError(f"--{name.replace('_', '-')} belongs to --summary FILE (accuracies only); per-item audits measure rho")
    for name, default in (("accuracy_column", "accuracy"), ("accuracy_scale", "auto")):
        if getattr(arguments, name) != default:
            raise CommandError(f"--{name.replace('_', '-')} belongs to --summary FILE (accuracies only)")


@contextlib.contextmanager
def _backend(arguments):
    """The backend the options ask for: this process, or a Dask cluster (closed at the end)."""
    from llm_power_verified.parallel import LocalBackend, backend_for

    if not (arguments.scheduler or arguments.workers):
        yield LocalBackend()
        return
    try:
        backend = backend_for("dask", workers=arguments.workers, scheduler=arguments.scheduler)
    except ImportError as error:
        raise CommandError(str(error)) from None
    with backend:
        yield backend


_FIGURE_FILES = [f"{name}.{kind}" for name in ("resolution", "efficiency", "forest") for kind in ("png", "svg")]


def _plot_folder(plot: str | None) -> Path | None:
    """--plot names a folder unless it ends in an image suffix; the folder is made only when the figures are written
    (after the input is read and the audit done), so a refused input leaves nothing behind."""
    if not plot or Path(plot).suffix.lower() in (".png", ".svg", ".pdf"):
        return None
    folder = Path(plot)
    if folder.exists() and not folder.is_dir():
        raise CommandError(f"--plot {plot}: not a folder (give a folder, or an image file ending in .png, .svg or .pdf)")
    if not folder.parent.is_dir():
        raise CommandError(f"--plot {plot}: the folder {folder.parent} does not exist")
    return folder


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(exist_ok=True)
    except OSError as error:
        raise CommandError(f"--plot {folder}: the folder cannot be made ({error.strerror})") from None


def _gate(pairs, fail_on: str | None) -> int:
    """Exit status of --fail-on: 1 when any adjacent pair of ``pairs`` is unresolved (or not significant), else 0."""
    if fail_on is None:
        return 0
    adjacent = pairs[(pairs["rank_b"] - pairs["rank_a"]).abs() == 1]
    if not len(adjacent):
        raise CommandError("--fail-on looks at adjacent pairs; this audit reports none (use --mode adjacent or all)")
    column = "resolved" if fail_on == "unresolved" else "significant"
    failing = int((~adjacent[column].astype(bool)).sum())
    if failing:
        print_note(f"{PROGRAM}: gate failed: {failing} of {len(adjacent)} adjacent pairs {fail_on.replace('-', ' ')}")
    return 1 if failing else 0
