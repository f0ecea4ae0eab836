"""The option groups of the commands that read or write an audit, each declared once and given to a command through
argparse ``parents=``: a command is offered only the options it uses, so none has to be refused.

* :func:`input_options`: per-item results (INPUT... and every option of their readers), read by :func:`read_matrix`;
* :func:`accuracy_options`: a table of one accuracy per model;
* :func:`compute_options`: resamples, seed and where the blocks of pairs are computed;
* :func:`output_options`: the report's format, file and view;
* :func:`family_options`: the pairs reported and the declared multiplicity family;
* :func:`anytime_options`: the monitored (e-process) test of a plan.

Nothing here imports numpy: ``--help`` pays only for argparse.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from llm_power_verified.cli.options import (
    AUDIT_RESAMPLES,
    MAX_AUDIT_RESAMPLES,
    POSITIVE_COUNT,
    PROBABILITY,
    SCORE_KIND_HELP,
    SEED,
    SIZE,
    WIDTH,
    number,
    print_note,
)
from llm_power_verified.contract import CORRECTIONS, FAMILIES, FORMATS, PAIR_LISTS
from llm_power_verified.contract.views import COLUMN_CHOICES

__all__ = ["ACCURACY_FORMATS", "HORIZON", "accuracy_options", "anytime_options",
           "column_list", "compute_options", "family_options", "input_options", "output_options", "read_matrix"]

#: The accuracies-only audit writes every format but Parquet (its pair table is small).
ACCURACY_FORMATS = tuple(name for name in FORMATS if name != "parquet")
HORIZON = number(integer=True, low=100, high=50_000_000)


def _parent(title: str) -> tuple[argparse.ArgumentParser, argparse._ArgumentGroup]:
    parent = argparse.ArgumentParser(add_help=False)
    return parent, parent.add_argument_group(title)


def input_options(*, required: bool = False) -> argparse.ArgumentParser:
    """INPUT... (per-item results: a score table, lm-eval folders or Inspect logs) and every option of their readers.

    Parameters
    ----------
    required : bool, default False
        True: at least one INPUT; False: none reads the shipped example (:func:`read_matrix`).

    Returns
    -------
    argparse.ArgumentParser
        A parent parser (``add_help=False``) for a command's ``parents=``.
    """
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("inputs", nargs="+" if required else "*", metavar="INPUT",
                        help="score table, lm-eval folders or Inspect logs" + ("" if required else " (none: the shipped example)"))
    group = parent.add_argument_group("per-item input")
    group.add_argument("--item-column", default="item_id", help="table column holding the item id")
    group.add_argument("--cluster-column", help="column holding each item's cluster label")
    group.add_argument("--model-column", default="model", help="long tables: the model column")
    group.add_argument("--score-column", default="score", help="long tables: the score column")
    group.add_argument("--on-missing", choices=("error", "intersect"), default="error",
                       help="an item some model lacks: error (default) or intersect (keep the items every model has, with a note)")
    group.add_argument("--scores", choices=("auto", "binary", "graded"), default="auto", help=SCORE_KIND_HELP)
    group.add_argument("--missing-cluster", choices=("error", "drop", "own"), default="error",
                       help="an item without a cluster label: error (default), drop the item, or make it its own cluster")
    group.add_argument("--task", help="lm-eval: task or group name")
    group.add_argument("--metric", help="lm-eval: per-item metric (acc, acc_norm, exact_match, ...)")
    group.add_argument("--filter", help="lm-eval: filter name when the task has several")
    group.add_argument("--scorer", help="Inspect: scorer name when a log has several")
    group.add_argument("--epochs", choices=("first", "mean", "error"), default="first",
                       help="Inspect: repeated epochs: first keeps each log's lowest epoch (default), mean averages them, error refuses")
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
    if not arguments.inputs:
        from llm_power_verified.examples import shipped_example

        print_note("no INPUT given: auditing the shipped example (MMLU-Pro top-10 reconstructed from the paper's "
                   "Appendix E; its clusters are MMLU-Pro's category sizes assigned at random, a null check)")
        return shipped_example()
    from llm_power_verified.io import read_scores

    return read_scores([Path(path) for path in arguments.inputs], item_column=arguments.item_column,
                       cluster_column=arguments.cluster_column, model_column=arguments.model_column,
                       score_column=arguments.score_column, on_missing=arguments.on_missing, score_kind=arguments.scores,
                       missing_cluster=arguments.missing_cluster, task=arguments.task, metric=arguments.metric,
                       filter=arguments.filter, scorer=arguments.scorer, epochs=arguments.epochs)


def accuracy_options() -> argparse.ArgumentParser:
    """FILE (one accuracy per model) and the options of its reader.

    Returns
    -------
    argparse.ArgumentParser
        A parent parser (``add_help=False``) for a command's ``parents=``.
    """
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("file", metavar="FILE",
                        help="one accuracy per model: a CSV/TSV, Parquet or JSON Lines table with model, accuracy and (or --n) "
                             "n columns; percent or fractions (the report says which it read)")
    group = parent.add_argument_group("accuracies input")
    group.add_argument("--n", type=SIZE, help="the benchmark size N, when the table has no n column")
    group.add_argument("--model-column", default="model", help="the model column")
    group.add_argument("--accuracy-column", default="accuracy", help="the accuracy column")
    group.add_argument("--accuracy-scale", choices=("auto", "percent", "fraction"), default="auto",
                       help="read accuracies as percentages or fractions (auto: percent when the values carry %% signs, "
                            "the column is named so, or values exceed 1 and so does their median; fractions when none "
                            "exceeds 1; a few values over 1 among fractions is refused as ambiguous)")
    return parent


def read_accuracy_table(arguments):
    """The accuracies table of :func:`accuracy_options`' FILE."""
    from llm_power_verified.io.accuracy_table import read_accuracies

    return read_accuracies(arguments.file, n=arguments.n, model_column=arguments.model_column,
                           accuracy_column=arguments.accuracy_column, scale=arguments.accuracy_scale)


def compute_options() -> argparse.ArgumentParser:
    """Resamples, their seed, the progress bar and where the blocks of pairs are computed.

    Returns
    -------
    argparse.ArgumentParser
        A parent parser (``add_help=False``) for a command's ``parents=``.
    """
    parent, group = _parent("computation")
    group.add_argument("--n-resamples", type=AUDIT_RESAMPLES, default=500,
                       help=f"bootstrap resamples per pair, 0 (skip) to {MAX_AUDIT_RESAMPLES:,} (default 500)")
    group.add_argument("--n-cluster-resamples", type=AUDIT_RESAMPLES, default=1000,
                       help=f"cluster bootstrap resamples, 0 to {MAX_AUDIT_RESAMPLES:,} (default 1000)")
    group.add_argument("--n-rank-resamples", type=AUDIT_RESAMPLES, default=0,
                       help="item resamples for a bootstrap rank interval per model, 0 (skip) to "
                            f"{MAX_AUDIT_RESAMPLES:,}; the Holm rank interval is always shown")
    group.add_argument("--seed", type=SEED, default=0, help="seed of every resample (default 0)")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="compute the blocks of pairs on an existing Dask cluster (tcp://host:8786, as 'dask scheduler' prints; "
                            "needs the dask extra on the client and the workers)")
    group.add_argument("--workers", type=POSITIVE_COUNT,
                       help="compute the blocks of pairs on a local Dask cluster of this many processes (needs the dask extra; "
                            "at most the CPUs available, or 4 if fewer); the results do not depend on it")
    group.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    return parent


def column_list(text: str) -> list[str]:
    """--columns: comma-separated pair-table column names.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    list of str
        The names, in the order given.

    Raises
    ------
    argparse.ArgumentTypeError
        For an unknown name, or none.
    """
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in COLUMN_CHOICES]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"unknown column {(unknown or [text])[0]!r}; choose from {', '.join(COLUMN_CHOICES)}")
    return names


def output_options(*, per_item: bool) -> argparse.ArgumentParser:
    """--format, --out, --pairs, --width; with ``per_item`` also --columns, --wide and --plot (the per-item report's view).

    Parameters
    ----------
    per_item : bool
        True for the commands that read per-item results (their formats include parquet).

    Returns
    -------
    argparse.ArgumentParser
        A parent parser (``add_help=False``) for a command's ``parents=``.
    """
    parent, group = _parent("report")
    if per_item:
        group.add_argument("--format", choices=FORMATS, default="table",
                           help="report format: table, markdown, html (one self-contained page with sortable tables and figures); "
                                "machine formats with every pair, written block by block: json (the whole report), jsonl and csv "
                                "(the pair table), parquet (the pair table with the rest of the report in its metadata; needs --out; "
                                "the only format that never holds the pair table in memory, for audits of thousands of models)")
    else:
        group.add_argument("--format", choices=ACCURACY_FORMATS, default="table",
                           help="report format: table, markdown, html (one self-contained page); json (the whole report), "
                                "jsonl and csv (the pair table)")
    group.add_argument("--out", help="write the report to this file (atomically; never over an input)")
    group.add_argument("--pairs", choices=PAIR_LISTS, default=PAIR_LISTS[0],
                       help=("pairs listed by table, markdown and html: the 200 (html: 5,000) closest in rank, every pair, or none; "
                             "the machine formats always hold every pair") if per_item else
                            ("pairs listed by table, markdown and html: the adjacent pairs, every pair, or none; "
                             "the machine formats always hold every pair"))
    group.add_argument("--width", type=WIDTH, help="terminal report width (default: the terminal's, or 100 when not a terminal)")
    if per_item:
        group.add_argument("--columns", type=column_list, help=f"pair-table columns, comma-separated (from: {', '.join(COLUMN_CHOICES)})")
        group.add_argument("--wide", action="store_true", help="terminal report: every column, whole model names")
        group.add_argument("--plot", metavar="DIR_OR_IMAGE",
                           help="save the figures: a folder gets resolution, efficiency and forest plots as PNG and SVG; "
                                "a .png/.svg/.pdf file gets the resolution plot (needs the plots extra)")
    return parent


def family_options(modes: tuple[str, ...]) -> argparse.ArgumentParser:
    """--mode (one of ``modes``) and --correction; with the reference mode also --reference and --family.

    Parameters
    ----------
    modes : tuple of str
        The --mode choices; the first is the default.

    Returns
    -------
    argparse.ArgumentParser
        A parent parser (``add_help=False``) for a command's ``parents=``.
    """
    parent, group = _parent("pairs and multiplicity")
    group.add_argument("--mode", choices=modes, default=modes[0],
                       help="which pairs to report" + ("" if "reference" in modes else "; they are the declared family too "
                                                       "(adjacent: K - 1 pairs, all: K (K - 1) / 2)"))
    if "reference" in modes:
        group.add_argument("--reference", help="reference model for --mode reference")
        group.add_argument("--family", choices=FAMILIES, help="declared multiplicity family (default: the mode)")
    group.add_argument("--correction", choices=CORRECTIONS, default=CORRECTIONS[0],
                       help="the declared family's correction behind the 'significant' verdict")
    return parent


class _ImpliesAnytime(argparse.Action):
    """Stores the value and turns --anytime on: a setting of the monitored test asks for it."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values)
        namespace.anytime = True


def anytime_options() -> argparse.ArgumentParser:
    """--anytime and the monitored test's settings (each of which implies --anytime).

    Returns
    -------
    argparse.ArgumentParser
        A parent parser (``add_help=False``) for a command's ``parents=``.
    """
    parent, group = _parent("monitored test")
    group.add_argument("--anytime", action="store_true",
                       help="add the monitored test's stopping N (expected and --quantile), from the exact distribution of "
                            "the discordant sequence")
    group.add_argument("--mixture", choices=("grid", "beta", "two-point"), default="grid", action=_ImpliesAnytime,
                       help="the e-process mixture (implies --anytime)")
    group.add_argument("--quantile", type=PROBABILITY, default=0.9, action=_ImpliesAnytime,
                       help="the stopping-N quantile (implies --anytime)")
    group.add_argument("--horizon", type=HORIZON, action=_ImpliesAnytime,
                       help="discordant items followed (above 200,000 the distribution is simulated; implies --anytime)")
    return parent
