"""The input options of the commands that read results, each declared once for argparse ``parents=``.

With them, the functions that read what they name.

* :func:`input_options`: per-item results (INPUT... and every option of their readers), read by :func:`read_matrix`;
* :func:`accuracy_options`: a table of one accuracy per model, read by :func:`read_accuracy_table`.

Nothing here imports numpy: ``--help`` pays only for argparse; the readers are imported when they read.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.errors import CommandError
from llm_power_verified.cli.options import SCORE_KIND_HELP
from llm_power_verified.cli.parents import Given, given
from llm_power_verified.cli.streams import print_note
from llm_power_verified.cli.value_types import SIZE
from llm_power_verified.io.input_kinds import INPUT_FORMATS

__all__ = [
    "accuracy_options",
    "check_json_report",
    "check_out_format",
    "input_options",
    "read_accuracy_table",
    "read_matrix",
]

#: Output names whose suffix says a format: --out must then agree with --format (any other name takes any format).
_SUFFIX_FORMATS = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".html": "html",
    ".htm": "html",
    ".md": "markdown",
    ".markdown": "markdown",
}


@docfill(returns="parent_parser")
def input_options(*, required: bool = False) -> argparse.ArgumentParser:
    """INPUT... (per-item results: a score table, lm-eval folders or Inspect logs) and every option of their readers.

    Parameters
    ----------
    required : bool, default False
        True: at least one INPUT; False: none reads the shipped example (:func:`read_matrix`).
    """
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "inputs",
        nargs="+" if required else "*",
        metavar="INPUT",
        help="score table, harness output (lm-eval or lighteval folders, HELM runs, Inspect or OpenAI evals logs) "
        "or JSON records" + ("" if required else " (none: the shipped example)"),
    )
    group = parent.add_argument_group("per-item input")
    group.add_argument("--item-column", default="item_id", help="table column holding the item id")
    group.add_argument("--cluster-column", help="column holding each item's cluster label")
    group.add_argument("--model-column", default="model", help="long tables: the model column")
    group.add_argument("--score-column", default="score", help="long tables: the score column")
    group.add_argument(
        "--on-missing",
        choices=("error", "intersect"),
        default="error",
        help="an item some model lacks: error (default) or intersect (keep the items every model has, with a note)",
    )
    group.add_argument("--scores", choices=("auto", "binary", "graded"), default="auto", help=SCORE_KIND_HELP)
    group.add_argument(
        "--missing-cluster",
        choices=("error", "drop", "own"),
        default="error",
        action=Given,
        help="an item without a cluster label: error (default), drop the item, or make it its own cluster",
    )
    group.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
        default="auto",
        help="the reader, where an input could be two formats (auto: told from the paths and the files' beginnings)",
    )
    group.add_argument("--task", help="lm-eval, lighteval: task or group name")
    group.add_argument(
        "--metric",
        help="per-item metric: lm-eval (acc, acc_norm, exact_match, ...), HELM stat (quasi_exact_match, ...), "
        "lighteval metric, OpenAI evals event type and field (default match events' correct)",
    )
    group.add_argument("--filter", help="lm-eval: filter name when the task has several")
    group.add_argument(
        "--run", metavar="latest|STAMP", help="lm-eval, lighteval: which run when a folder holds several"
    )
    group.add_argument(
        "--align-on",
        choices=("id", "hash"),
        default="id",
        help="lm-eval, lighteval: pair items by id (default) or by the content hashes the files carry",
    )
    group.add_argument("--split", help="HELM: the split when the stat has several")
    group.add_argument("--perturbation", help="HELM: read this perturbation's instances (default: the unperturbed)")
    group.add_argument("--run-spec", metavar="PATTERN", help="HELM suite folder: the run folders to read")
    group.add_argument("--scorer", help="Inspect: scorer name when a log has several")
    group.add_argument(
        "--epochs",
        choices=("first", "mean", "all", "error"),
        default="error",
        help="items scored several times (Inspect epochs, HELM train trials, repeated OpenAI evals events): all "
        "keeps each as a generation (item means, with the within/between split), mean averages them, first keeps "
        "the first; error (default) refuses several, so that none is dropped silently",
    )
    group.add_argument(
        "--repeat-column",
        metavar="NAME",
        help="long tables with several generations per item: the column naming each row's repeat (epoch, sample, "
        "seed, run); one row per (item, model, repeat)",
    )
    group.add_argument(
        "--repeat-pattern",
        metavar="PATTERN",
        help="wide tables with one column per (model, repeat): how a header names them, e.g. '{model}@{repeat}' "
        "or '{model}_seed{repeat}'",
    )
    records = parent.add_argument_group("JSON or JSON Lines with declared fields")
    records.add_argument("--records", metavar="POINTER", help="where the list of records is in a JSON document")
    records.add_argument("--item-field", metavar="FIELD", help="each record's item id (chooses this reader)")
    records.add_argument("--score-field", metavar="FIELD", help="each record's score (chooses this reader)")
    records.add_argument("--model-field", metavar="FIELD", help="each record's model (default: one file per model)")
    records.add_argument("--repeat-field", metavar="FIELD", help="each record's repeat (several generations per item)")
    records.add_argument("--cluster-field", metavar="FIELD", help="each record's cluster label")
    return parent


def read_matrix(arguments):
    """The score matrix of :func:`input_options`' INPUT... (the shipped example when there is none, with a note).

    Parameters
    ----------
    arguments : argparse.Namespace
        The parsed command line, with :func:`input_options`' options.

    Returns
    -------
    ScoreMatrix
        The matrix ``read_scores`` reads from the inputs, or the shipped example.
    """
    check_out_format(arguments)
    if getattr(arguments, "reference", None) is not None and arguments.mode != "reference":
        raise CommandError(
            f"--reference {arguments.reference!r} applies to --mode reference; --mode is {arguments.mode}, "
            "so it would be ignored: leave it out, or add --mode reference"
        )
    matrix = _read(arguments)
    if matrix.clusters is None:
        for dest, flag in (("n_cluster_resamples", "--n-cluster-resamples"), ("missing_cluster", "--missing-cluster")):
            value = getattr(arguments, dest, None)
            if given(arguments, dest) and value != 0:  # 0 cluster resamples says what is true without clusters
                raise CommandError(
                    f"{flag} {value} applies to items with clusters (--cluster-column); INPUT has none, "
                    "so it would be ignored: leave it out"
                )
    return matrix


def _read(arguments):
    if not arguments.inputs:
        from llm_power_verified.examples import shipped_example

        print_note(
            "no INPUT given: reading the shipped example (MMLU-Pro top-10 reconstructed from the paper's "
            "Appendix E; its clusters are MMLU-Pro's category sizes assigned at random, a null check)"
        )
        return shipped_example()
    from llm_power_verified.io import read_scores

    return read_scores(
        [Path(path) for path in arguments.inputs],
        item_column=arguments.item_column,
        cluster_column=arguments.cluster_column,
        model_column=arguments.model_column,
        score_column=arguments.score_column,
        on_missing=arguments.on_missing,
        score_kind=arguments.scores,
        missing_cluster=arguments.missing_cluster,
        task=arguments.task,
        metric=arguments.metric,
        filter=arguments.filter,
        scorer=arguments.scorer,
        epochs=arguments.epochs,
        repeat_column=arguments.repeat_column,
        repeat_pattern=arguments.repeat_pattern,
        **{
            name: getattr(arguments, name)
            for name in (
                "input_format",
                "split",
                "perturbation",
                "run_spec",
                "run",
                "align_on",
                "records",
                "item_field",
                "score_field",
                "model_field",
                "repeat_field",
                "cluster_field",
            )
        },
    )


@docfill(returns="parent_parser")
def accuracy_options() -> argparse.ArgumentParser:
    """FILE... (one accuracy per model: a table, or a harness result file per model) and their readers' options."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="one accuracy per model: a CSV/TSV, Parquet or JSON Lines table with model, accuracy and (or --n) "
        "n columns, percent or fractions (the report says which it read); or one harness result file per model "
        "(lm-eval results_*.json, lighteval results JSON, Inspect logs, HELM run folders or stats.json), N from "
        "the files",
    )
    group = parent.add_argument_group("accuracies input")
    group.add_argument(
        "--n", type=SIZE, help="the benchmark size N, when the table has no n column (or lighteval result files)"
    )
    group.add_argument("--model-column", default="model", action=Given, help="table: the model column")
    group.add_argument("--accuracy-column", default="accuracy", action=Given, help="table: the accuracy column")
    group.add_argument(
        "--accuracy-scale",
        choices=("auto", "percent", "fraction"),
        default="auto",
        action=Given,
        help="read accuracies as percentages or fractions (auto: percent when the values carry %% signs, "
        "the column is named so, or values exceed 1 and so does their median; fractions when none "
        "exceeds 1; a few values over 1 among fractions is refused as ambiguous; values that "
        "contradict the column's name are refused)",
    )
    group.add_argument(
        "--approximate-accuracies",
        action="store_true",
        help="accept accuracies that no whole count k out of N gives at their printed digits "
        "(macro-averages, values rounded elsewhere): listed in the report's notes instead of refused",
    )
    files = parent.add_argument_group("result files (one per model)")
    files.add_argument("--task", help="lm-eval, lighteval: the task or group, when a file holds several")
    files.add_argument("--metric", help="the metric (lm-eval, lighteval, Inspect) or HELM stat, when there are several")
    files.add_argument("--filter", help="lm-eval: the filter, when the metric has several")
    files.add_argument("--scorer", help="Inspect: the scorer, when a log has several")
    files.add_argument("--split", help="HELM: the split, when the stat has several")
    return parent


@docfill("arguments")
def read_accuracy_table(arguments):
    """The accuracies table of :func:`accuracy_options`' FILE...: one table, or one result file per model.

    Returns
    -------
    AccuracyTable
        The table ``read_accuracies`` reads (:func:`~llm_power_verified.io.accuracy_table.read_accuracies`), or the
        one ``read_aggregates`` builds from result files (:func:`~llm_power_verified.io.aggregates.read_aggregates`).
    """
    check_out_format(arguments)
    from llm_power_verified.io.accuracy_table import read_accuracies
    from llm_power_verified.io.aggregates import is_result_file, read_aggregates, table_refusal

    paths, harness = [Path(path) for path in arguments.files], ("task", "metric", "filter", "scorer", "split")
    aggregates = len(paths) > 1 or is_result_file(paths[0])
    refusal = None if aggregates else table_refusal(paths[0])
    if refusal is not None:  # a folder (a HELM suite), a samples file, an OpenAI evals log: no table
        raise refusal
    if aggregates:
        for dest in ("model_column", "accuracy_column", "accuracy_scale"):
            if given(arguments, dest):
                raise CommandError(
                    f"--{dest.replace('_', '-')} {getattr(arguments, dest)!r} applies to a table of accuracies; "
                    "FILE... are result files, so it would be ignored: leave it out"
                )
        return read_aggregates(
            paths,
            n=arguments.n,
            approximate=arguments.approximate_accuracies,
            **{dest: getattr(arguments, dest) for dest in harness},
        )
    for dest in harness:
        if getattr(arguments, dest) is not None:
            raise CommandError(
                f"--{dest} {getattr(arguments, dest)!r} applies to harness result files; {paths[0]} is a table of "
                "accuracies, so it would be ignored: leave it out"
            )
    return read_accuracies(
        paths[0],
        n=arguments.n,
        model_column=arguments.model_column,
        accuracy_column=arguments.accuracy_column,
        scale=arguments.accuracy_scale,
        approximate=arguments.approximate_accuracies,
    )


def check_out_format(arguments) -> None:
    """Refuse an --out whose suffix names another format than --format (``o.parquet`` with json, ``o.json`` with table).

    Parameters
    ----------
    arguments : argparse.Namespace
        The parsed command line; without --out or --format nothing is checked.

    Raises
    ------
    CommandError
        The suffix and the format disagree: the message names both and the fix.  A name whose suffix is no
        format's (``report.txt``, ``report``) takes any format.
    """
    out, chosen = getattr(arguments, "out", None), getattr(arguments, "format", None)
    if out and Path(out).suffix.lower() in (".gz", ".bz2", ".xz", ".zst", ".zip"):
        raise CommandError(
            f"--out {out}: reports are written uncompressed, so a compressed name would hold plain text; drop "
            f"{Path(out).suffix} (compress the file afterwards if needed)"
        )
    named = _SUFFIX_FORMATS.get(Path(out).suffix.lower()) if out and chosen else None
    if named is not None and named != chosen:
        default = " (the default)" if chosen == "table" else ""
        raise CommandError(
            f"--out {out} names a {named} file but --format is {chosen}{default}: add --format {named}, "
            f"or name the file for {chosen} output"
        )


def check_json_report(path) -> None:
    """Refuse, before reading, a report that ``plan report`` cannot read.

    ``plan report`` reads the JSON report (audit --format json).

    Parameters
    ----------
    path : str or Path
        The report given.

    Raises
    ------
    CommandError
        The file is a Parquet report (by its magic bytes or name), or its name says CSV, JSON Lines, HTML or Markdown.
        A missing or unreadable file is left to the reader, which says so.
    """
    path = Path(path)
    try:
        with path.open("rb") as stream:
            start = stream.read(4)
    except OSError:
        return
    kind = (
        "Parquet"
        if start == b"PAR1"
        else {
            "parquet": "Parquet",
            "pq": "Parquet",
            "csv": "CSV",
            "jsonl": "JSON Lines",
            "ndjson": "JSON Lines",
            "html": "HTML",
            "htm": "HTML",
            "md": "Markdown",
        }.get(path.suffix.lower().lstrip("."))
    )
    if kind:
        raise CommandError(
            f"plan report reads the JSON report (audit --format json); {path} is a {kind} report: write "
            "the audit again with --format json --out FILE.json and give that file"
        )
