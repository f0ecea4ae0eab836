"""``llm-power-verified audit``: The main job: the resolution audit of a leaderboard from per-item results."""

from __future__ import annotations

import contextlib
from pathlib import Path

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.inputs import input_options, read_matrix
from llm_power_verified.cli.options import EXIT_CODES, INPUT_RULES, PROGRAM, HelpFormatter
from llm_power_verified.cli.parents import (
    alpha_power_options,
    compute_options,
    family_options,
    min_effect_options,
    output_options,
)
from llm_power_verified.cli.path_types import PLOT_SUFFIXES
from llm_power_verified.cli.streams import print_note, progress_bar, terminal_width, write_report_chunks, wrote
from llm_power_verified.cli.value_types import number
from llm_power_verified.contract import COLUMN_CHOICES, MACHINE_FORMATS, MODES, TEXT_FORMATS

__all__ = ["add_parser", "run"]


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``audit`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "audit",
        parents=[
            input_options(),
            family_options(MODES),
            output_options(per_item=True),
            compute_options(),
            alpha_power_options(),
            min_effect_options(),
        ],
        help="resolution audit of a leaderboard from per-item results (the main job)",
        description=(
            "Per-pair resolution report for K models: gap, discordant counts, rho-hat, the four arbiters, "
            "N*, q = N/N*, MDE, verdict, bootstrap interval on N*, rho sensitivity, the shortcut, multiplicity, "
            "clusters, tiers and the paper's reporting checklist.  INPUT: a wide or long table (CSV, Parquet, "
            "JSON Lines), or each model's harness output: lm-evaluation-harness folders (--task, --metric; also "
            "the Open LLM Leaderboard details, --run), Inspect logs (.eval/.json), HELM run folders (--metric), "
            "lighteval details, OpenAI evals logs (.jsonl), or any JSON with declared fields (--item-field, "
            "--score-field).  With no INPUT, runs on the shipped MMLU-Pro top-10 example.  "
            "A leaderboard that prints one accuracy per model: audit-accuracies FILE."
        ),
        epilog=INPUT_RULES + "\n\n" + EXIT_CODES,
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "--fail-on",
        choices=("unresolved", "not-significant"),
        help="exit 1 when any adjacent pair is unresolved (or not significant): a gate for pipelines",
    )
    parser.add_argument(
        "--tiles",
        action="store_true",
        help="all pairs of 0/1 scores in row bands (each band forms its own counts, on --workers or --scheduler "
        "too): --out is a folder of band-NNNNN.parquet files (the --columns of --format parquet, the default set "
        "unless asked; in name order, the pair table) and _report.json (the summary, also printed, cut like --pairs); "
        "needs --mode all and --format parquet; no clusters, generations or graded scores",
    )
    parser.add_argument(
        "--band-pairs",
        type=number(integer=True, low=1, high=10**9, summary="The pairs of a band (--band-pairs)"),
        metavar="N",
        help="with --tiles: about how many pairs a band (one task, one file) holds (default 500,000); whole rows of "
        "the rank order, so a band holds at least N pairs unless it is the last",
    )


@docfill("arguments", returns="cli_gated")
def run(arguments) -> str | tuple[str, int] | int:
    """Run ``llm-power-verified audit`` on the parsed command line."""
    from llm_power_verified.cli.tiled import check_compute, check_tiled, run_tiled
    from llm_power_verified.io import check_outputs

    check_compute(arguments)
    if arguments.scheduler and arguments.workers:
        raise CommandError("give --scheduler (an existing Dask cluster) or --workers (a local one), not both")
    if arguments.tiles:
        folder = check_tiled(arguments)
        matrix = read_matrix(arguments)
        with _backend(arguments) as backend:
            return run_tiled(arguments, matrix, backend, folder, _gate)
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
            raise CommandError(
                "--plot needs the pair table in memory; --format parquet streams it to the file (plot from another "
                "format)"
            )
    if arguments.mode == "reference" and arguments.reference is None:
        raise CommandError(
            "--mode reference needs --reference NAME: the model every other model is compared with "
            "(one of the models' names); add --reference, or choose another --mode"
        )
    columns = _pair_columns(arguments.format, arguments.columns)
    check_outputs(outputs, arguments.inputs)
    matrix = read_matrix(arguments)
    from llm_power_verified.leaderboard.audit import AuditSettings
    from llm_power_verified.leaderboard.request import AuditRequest
    from llm_power_verified.report.dispatch import render, write

    settings = AuditSettings(
        mode=arguments.mode,
        reference=arguments.reference,
        family=arguments.family,
        alpha=arguments.alpha,
        power=arguments.power,
        n_resamples=arguments.n_resamples,
        seed=arguments.seed,
        n_cluster_resamples=arguments.n_cluster_resamples,
        correction=arguments.correction,
        n_rank_resamples=arguments.n_rank_resamples,
        min_effect=arguments.min_effect,
    )
    with _backend(arguments) as backend, progress_bar(quiet=arguments.quiet) as progress:
        request = AuditRequest(matrix, settings, backend=backend, progress=progress)
        if arguments.format == "parquet":
            written = write(request, "parquet", arguments.out, columns=columns)  # streamed, or run in memory (clusters)
            return _wrote_report(arguments.out, written, _gate(written.pairs, arguments.fail_on))
        result = request.run()
    if plot_folder or arguments.plot:
        from llm_power_verified.report.plots import plot_resolution, write_figures

        if plot_folder:
            _make_folder(plot_folder)
            write_figures(result, plot_folder)
        else:
            plot_resolution(result, arguments.plot)
    status = _gate(result.pairs, arguments.fail_on)
    view = {"pairs": arguments.pairs}
    if arguments.format in ("table", "markdown"):
        view.update(width=arguments.width or terminal_width(), columns=columns, wide=arguments.wide)
    elif arguments.format in MACHINE_FORMATS:
        view.update(columns=columns)
    if arguments.out:
        write(result, arguments.format, arguments.out, **view)
        return (
            _wrote_report(arguments.out, result, status) if arguments.format == "json" else wrote(arguments.out, status)
        )
    if arguments.format in MACHINE_FORMATS:
        from llm_power_verified.report.machine import chunks

        write_report_chunks(chunks(result, arguments.format, columns))
        return status
    return render(result, arguments.format, **view).rstrip("\n"), status


@contextlib.contextmanager
def _backend(arguments):
    """The backend the options ask for: this process, or a Dask cluster (closed at the end)."""
    from llm_power_verified.parallel import DaskBackend, LocalBackend

    if not (arguments.scheduler or arguments.workers):
        yield LocalBackend()
        return
    try:
        backend = DaskBackend(
            scheduler=arguments.scheduler, workers=arguments.workers, memory_limit=arguments.worker_memory
        )
    except ImportError as error:
        raise CommandError(str(error)) from None
    with backend:
        yield backend


def _pair_columns(output: str, columns: list[str] | None) -> list[str] | None:
    """--columns for the format asked, checked before any work; Parquet's default is the contract's default set.

    Table, markdown and html take the text view's names; csv and jsonl every column unless asked; json holds every
    column (its schema requires them).
    """
    if output in TEXT_FORMATS:
        other = [name for name in columns or () if name not in COLUMN_CHOICES]
        if other:
            raise CommandError(
                f"--columns {other[0]}: --format {output} shows the text view's columns "
                f"({', '.join(COLUMN_CHOICES)}); default, all and the other pair columns choose what csv, jsonl and "
                "parquet write"
            )
        return columns
    if output == "json" and columns and set(columns) != {"all"}:
        raise CommandError(
            f"--columns {','.join(columns)}: the JSON report holds every pair column (audit.schema.json requires "
            "them); choose columns with --format csv, jsonl or parquet, or give --columns all"
        )
    return ["default"] if columns is None and output == "parquet" else columns


_FIGURE_FILES = [f"{name}.{kind}" for name in ("resolution", "efficiency", "forest") for kind in ("png", "svg")]


def _plot_folder(plot: str | None) -> Path | None:
    """--plot names a folder unless it ends in an image suffix.

    The folder is made only when the figures are written (after the input is read and the audit done), so a refused
    input leaves nothing behind.
    """
    if not plot or Path(plot).suffix.lower() in PLOT_SUFFIXES:
        return None
    folder = Path(plot)
    if folder.exists() and not folder.is_dir():
        raise CommandError(
            f"--plot {plot}: not a folder (give a folder, or an image file ending in .png, .svg or .pdf)"
        )
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
    adjacent = pairs[pairs["adjacent"]]
    if not len(adjacent):
        raise CommandError("--fail-on looks at adjacent pairs; this audit reports none (use --mode adjacent or all)")
    column = "resolved" if fail_on == "unresolved" else "significant"
    failing = int((~adjacent[column].astype(bool)).sum())
    if failing:
        print_note(f"{PROGRAM}: gate failed: {failing} of {len(adjacent)} adjacent pairs {fail_on.replace('-', ' ')}")
    return 1 if failing else 0


def _wrote_report(path: str, written, status: int):
    """What a report document written to ``--out`` (JSON, Parquet) prints: "wrote PATH: N pairs" and the headline.

    Neither file is read in a terminal, so the command shows what it found (the text formats hold the headline).
    """
    from llm_power_verified.report.headline import headline

    count = getattr(written, "pairs_written", len(written.pairs))
    return wrote(path, status, headline(written), f": {count:,} pairs")
