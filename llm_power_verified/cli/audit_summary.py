"""``llm-power-verified audit --summary FILE``: the resolution audit of a leaderboard that prints accuracies only."""

from __future__ import annotations

import argparse

from llm_power_verified.cli.options import CORRELATION, SIZE, CommandError, print_note, terminal_width, write_report_chunks, wrote

__all__ = ["add_options", "run"]

#: Per-item options that mean nothing for accuracies; given with --summary they are refused, not ignored.
_PER_ITEM = {"inputs": "INPUT", "cluster_column": "--cluster-column", "reference": "--reference", "scheduler": "--scheduler",
             "workers": "--workers", "plot": "--plot", "task": "--task", "metric": "--metric", "filter": "--filter", "scorer": "--scorer",
             "columns": "--columns", "wide": "--wide"}


def add_options(parser: argparse.ArgumentParser) -> None:
    """The --summary options of ``audit``."""
    group = parser.add_argument_group("accuracies only (--summary)")
    group.add_argument("--summary", metavar="FILE",
                       help="audit a leaderboard from one accuracy per model: a CSV/TSV, Parquet or JSON Lines table with "
                            "model, accuracy and (or --n) n columns; percent or fractions (the report says which it read)")
    group.add_argument("--n", type=SIZE, help="--summary: the benchmark size N, when the table has no n column")
    group.add_argument("--accuracy-column", default="accuracy", help="--summary: the accuracy column")
    group.add_argument("--accuracy-scale", choices=("auto", "percent", "fraction"), default="auto",
                       help="--summary: read accuracies as percentages or fractions (auto: percent when a value exceeds 1, the "
                            "values carry %% signs or the column is named so; fractions otherwise)")
    group.add_argument("--rho", type=CORRELATION, help="--summary: verdicts at this assumed correlation too, labelled as an assumption")
    group.add_argument("--rho-range", type=CORRELATION, nargs=2, metavar=("LO", "HI"),
                       help="--summary: verdicts over this assumed range of correlations too, labelled as an assumption")


#: Per-item options with a default: given another value with --summary they are refused too.
_PER_ITEM_DEFAULTS = {"on_missing": ("--on-missing", "error"), "scores": ("--scores", "auto"), "missing_cluster": ("--missing-cluster", "error"),
                      "epochs": ("--epochs", "first"), "n_resamples": ("--n-resamples", 500),
                      "n_cluster_resamples": ("--n-cluster-resamples", 1000), "n_rank_resamples": ("--n-rank-resamples", 0),
                      "item_column": ("--item-column", "item_id"), "score_column": ("--score-column", "score"), "seed": ("--seed", 0)}


def _check(arguments) -> None:
    given = [flag for name, flag in _PER_ITEM.items() if getattr(arguments, name, None)]
    given += [flag for name, (flag, default) in _PER_ITEM_DEFAULTS.items() if getattr(arguments, name) != default]
    if given:
        raise CommandError(f"{given[0]} is for per-item results; --summary audits accuracies only (drop one of them)")
    if arguments.mode == "reference":
        raise CommandError("--summary supports --mode adjacent or all")
    if arguments.fail_on == "not-significant":
        raise CommandError("--fail-on not-significant needs per-item results (accuracies alone give no test); use --fail-on unresolved")
    if arguments.format == "parquet":
        raise CommandError("--summary writes table, markdown, html, json, jsonl or csv (the pair table is small)")
    if arguments.rho is not None and arguments.rho_range:
        raise CommandError("give --rho or --rho-range, not both")
    if arguments.rho_range and arguments.rho_range[0] > arguments.rho_range[1]:
        raise CommandError(f"--rho-range {arguments.rho_range[0]:g} {arguments.rho_range[1]:g}: LO must not exceed HI")
    if arguments.family not in (None, arguments.mode):
        raise CommandError("--summary's family is the pairs of --mode (adjacent: K - 1, all: K (K - 1) / 2); drop --family")


def run(arguments) -> tuple[str, int]:
    from llm_power_verified.io import check_outputs, write_text
    from llm_power_verified.io.output import terminal_lines
    from llm_power_verified.io.accuracy_table import read_accuracies
    from llm_power_verified.leaderboard.accuracies import audit_accuracies
    from llm_power_verified.report.accuracies import render_accuracies

    _check(arguments)
    check_outputs({"--out": arguments.out}, [arguments.summary])
    table = read_accuracies(arguments.summary, n=arguments.n, model_column=arguments.model_column,
                            accuracy_column=arguments.accuracy_column, scale=arguments.accuracy_scale)
    audit = audit_accuracies(table, arguments.mode, alpha=arguments.alpha, power=arguments.power, correction=arguments.correction,
                             rho=arguments.rho, rho_range=tuple(arguments.rho_range) if arguments.rho_range else None)
    width = arguments.width or terminal_width()
    text = render_accuracies(audit, arguments.format, pairs=arguments.pairs, width=width)
    status = 0
    if arguments.fail_on == "unresolved":
        failing = int((audit.pairs.loc[audit.pairs["adjacent"], "verdict_family"] != "resolved").sum())
        if failing:
            print_note(f"llm-power-verified: gate failed: {failing} adjacent pairs are not resolved at every admissible rho")
        status = 1 if failing else 0
    if arguments.out:
        # A text report gets what the terminal would (no control or bidirectional character raw); data is written as it is.
        write_text(arguments.out, text if arguments.format in ("json", "jsonl", "csv") else terminal_lines(text))
        return wrote(arguments.out, status)
    if arguments.format in ("json", "jsonl", "csv"):  # data, written as it is (the terminal guard is for text reports)
        write_report_chunks([(text.rstrip("\n") + "\n").encode("utf-8")])
        return status
    return text.rstrip("\n"), status
