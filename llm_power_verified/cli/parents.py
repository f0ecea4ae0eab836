"""The option groups of the commands, each declared once and given to a command through argparse ``parents=``.

A command is offered only the options it uses, so none has to be refused.  The options of the inputs are in
:mod:`~llm_power_verified.cli.inputs`.

* :func:`compute_options`: resamples, seed and where the blocks of pairs are computed;
* :func:`output_options`: the report's format, file and view;
* :func:`family_options`: the pairs reported and the declared multiplicity family;
* :func:`anytime_options`: the monitored (e-process) test of a plan;
* :func:`alpha_power_options`, :func:`marginal_options`, :func:`format_options`: the level and power, the two
  accuracies and their correlation, and the format of the small commands.

Nothing here imports numpy: ``--help`` pays only for argparse.
"""

from __future__ import annotations

import argparse

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.path_types import output_path, plot_path
from llm_power_verified.cli.tiled import memory_size
from llm_power_verified.cli.value_types import (
    ALPHA,
    AUDIT_RESAMPLES,
    CORRELATION,
    HORIZON,
    MAX_AUDIT_RESAMPLES,
    MIN_EFFECT,
    MIN_RESAMPLES,
    POSITIVE_COUNT,
    PROBABILITY,
    SEED,
    WIDTH,
    column_list,
)
from llm_power_verified.contract import CORRECTIONS, FAMILIES, FORMATS, PAIR_LISTS
from llm_power_verified.contract.views import COLUMN_CHOICES

__all__ = [
    "ACCURACY_FORMATS",
    "Given",
    "alpha_power_options",
    "anytime_options",
    "compute_options",
    "family_options",
    "format_options",
    "given",
    "marginal_options",
    "min_effect_options",
    "output_options",
]

#: The accuracies-only audit writes every format but Parquet (its pair table is small).
ACCURACY_FORMATS = tuple(name for name in FORMATS if name != "parquet")


def _parent(title: str) -> tuple[argparse.ArgumentParser, argparse._ArgumentGroup]:
    parent = argparse.ArgumentParser(add_help=False)
    return parent, parent.add_argument_group(title)


@docfill(returns="parent_parser")
def alpha_power_options(*, power: bool = True) -> argparse.ArgumentParser:
    """--alpha (and --power), with their checks, help and defaults.

    Parameters
    ----------
    power : bool, default True
        False: --alpha only (a command that tests rather than plans).
    """
    group = argparse.ArgumentParser(add_help=False)
    group.add_argument("--alpha", type=ALPHA, default=0.05, help="significance level, in [1e-100, 1) (default 0.05)")
    if power:
        group.add_argument("--power", type=PROBABILITY, default=0.80, help="target power (default 0.8)")
    return group


@docfill(returns="parent_parser")
def min_effect_options() -> argparse.ArgumentParser:
    """--min-effect DELTA: the smallest gap of interest, in score units, in [2^-53, 1)."""
    parent, group = _parent("smallest gap of interest")
    group.add_argument(
        "--min-effect",
        type=MIN_EFFECT,
        metavar="DELTA",
        help=(
            "the smallest gap that matters, in score units, in [2^-53, 1) (0.02 = 2 points): adds per pair "
            "the power and q at a true gap of DELTA and the equivalence test within +-DELTA"
        ),
    )
    return parent


@docfill(returns="parent_parser")
def marginal_options(
    defaults: tuple[float, float, float] | None = None, *, required: bool = False
) -> argparse.ArgumentParser:
    """--p-a --p-b --rho: the two accuracies and the correlation of one comparison.

    Parameters
    ----------
    defaults : tuple of three floats, optional
        (p_a, p_b, rho) the options default to (and their help says so); None: no defaults.
    required : bool, default False
        True: each of the three must be given.
    """
    group = argparse.ArgumentParser(add_help=False)
    p_a, p_b, rho = defaults or (None, None, None)
    suffix = (lambda value: f" (default {value:g})") if defaults else (lambda value: "")
    group.add_argument(
        "--p-a",
        type=PROBABILITY,
        default=p_a,
        required=required,
        help="accuracy of model A, in (0, 1)" + suffix(p_a or 0),
    )
    group.add_argument(
        "--p-b",
        type=PROBABILITY,
        default=p_b,
        required=required,
        help="accuracy of model B, in (0, 1)" + suffix(p_b or 0),
    )
    group.add_argument(
        "--rho",
        type=CORRELATION,
        default=rho,
        required=required,
        help="correlation of the per-item 0/1 scores, in [-1, 1]" + suffix(rho or 0),
    )
    return group


@docfill(returns="parent_parser")
def format_options(choices: tuple[str, ...], default: str) -> argparse.ArgumentParser:
    """--format CHOICE and --json (the same as --format json), for the small commands' reports.

    Parameters
    ----------
    choices : tuple of str
        The formats the command writes.
    default : str
        The format without --format.
    """
    group = argparse.ArgumentParser(add_help=False)
    group.add_argument(
        "--format", choices=choices, default=default, action=_FormatOrJson, help=f"output format (default {default})"
    )
    group.add_argument(
        "--json", action=_FormatOrJson, nargs=0, default=False, help="same as --format json (not with --format)"
    )
    return group


class _FormatOrJson(argparse.Action):
    """--format or --json, not both: --format markdown --json would drop one of them without a word."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        """Store the value (True for --json); refuse it when the other option was typed before it."""
        other = "--json" if self.dest == "format" else "--format"
        if given(namespace, other.lstrip("-")):
            parser.error("give --format or --json, not both: --json is --format json, and one of them would be ignored")
        setattr(namespace, self.dest, values if self.dest == "format" else True)
        vars(namespace).setdefault("given_options", set()).add(self.dest)


@docfill(returns="parent_parser")
def compute_options() -> argparse.ArgumentParser:
    """Resamples, their seed, the progress bar and where the blocks of pairs are computed."""
    parent, group = _parent("computation")
    group.add_argument(
        "--n-resamples",
        type=AUDIT_RESAMPLES,
        default=500,
        help=f"bootstrap resamples per pair: 0 (skip) or {MIN_RESAMPLES} to {MAX_AUDIT_RESAMPLES:,} (default 500)",
    )
    group.add_argument(
        "--n-cluster-resamples",
        type=AUDIT_RESAMPLES,
        default=1000,
        action=Given,
        help=f"cluster bootstrap resamples: 0 (skip) or {MIN_RESAMPLES} to {MAX_AUDIT_RESAMPLES:,} (default 1000; "
        "only with clusters)",
    )
    group.add_argument(
        "--n-rank-resamples",
        type=AUDIT_RESAMPLES,
        default=0,
        help=f"item resamples for a bootstrap rank interval per model: 0 (skip) or {MIN_RESAMPLES} to "
        f"{MAX_AUDIT_RESAMPLES:,}; the Holm rank interval is always shown",
    )
    group.add_argument("--seed", type=SEED, default=0, help="seed of every resample (default 0)")
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="compute the blocks of pairs on an existing Dask cluster (tcp://host:8786, as 'dask scheduler' prints; "
        "needs the dask extra on the client and the workers)",
    )
    group.add_argument(
        "--workers",
        type=POSITIVE_COUNT,
        help="compute the blocks of pairs on a local Dask cluster of this many processes (needs the dask extra; "
        "at most the CPUs available, or 4 if fewer); the results do not depend on it",
    )
    group.add_argument(
        "--worker-memory",
        type=memory_size,
        metavar="SIZE",
        help="with --workers: each local worker's memory limit (2GB, 512MiB; Dask spills, pauses and restarts a "
        "worker past it); default Dask's share of the machine's memory",
    )
    group.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    return parent


@docfill(returns="parent_parser")
def output_options(*, per_item: bool) -> argparse.ArgumentParser:
    """--format, --out, --pairs, --width; with ``per_item`` also --columns, --wide and --plot.

    The last three are the per-item report's view.

    Parameters
    ----------
    per_item : bool
        True for the commands that read per-item results (their formats include parquet).
    """
    parent, group = _parent("report")
    if per_item:
        group.add_argument(
            "--format",
            choices=FORMATS,
            default="table",
            help="report format: table, markdown, html (one self-contained page with sortable tables and figures); "
            "machine formats with every pair, written block by block: json (the whole report), jsonl and csv "
            "(the pair table), parquet (the pair table with the rest of the report in its metadata; needs --out; "
            "the only format that never holds the pair table in memory, for audits of thousands of models)",
        )
    else:
        group.add_argument(
            "--format",
            choices=ACCURACY_FORMATS,
            default="table",
            help="report format: table, markdown, html (one self-contained page); json (the whole report), "
            "jsonl and csv (the pair table)",
        )
    group.add_argument(
        "--out",
        type=output_path,
        help="write the report to this file (atomically; never over an input); a name ending in a "
        "format's suffix (.json .jsonl .csv .parquet .html .md) must match --format, any other "
        "name takes any format",
    )
    group.add_argument(
        "--pairs",
        choices=PAIR_LISTS,
        default=PAIR_LISTS[0],
        help=(
            "pairs listed by table, markdown and html: the 200 (html: 5,000) closest in rank, every pair, or none; "
            "the machine formats always hold every pair"
        )
        if per_item
        else (
            "pairs listed by table, markdown and html: the adjacent pairs, every pair, or none; "
            "the machine formats always hold every pair"
        ),
    )
    group.add_argument(
        "--width", type=WIDTH, help="terminal report width (default: the terminal's, or 100 when not a terminal)"
    )
    if per_item:
        group.add_argument(
            "--columns",
            type=column_list,
            help=f"pair-table columns, comma-separated: table and markdown show some of {', '.join(COLUMN_CHOICES)}; "
            "csv, jsonl and parquet write 'default' (the default set: names, ranks, gap, each test's p, N*, q and "
            "the verdicts; parquet's default), 'all' (csv's and jsonl's default) or pair columns, with default to "
            "add to it (default,icc; every name in the documentation's reference/columns); json holds every column",
        )
        group.add_argument("--wide", action="store_true", help="terminal report: every column, whole model names")
        group.add_argument(
            "--plot",
            metavar="DIR_OR_IMAGE",
            type=plot_path,
            help="save the figures: a folder gets resolution, efficiency and forest plots as PNG and SVG; "
            "a .png/.svg/.pdf file gets the resolution plot (another image suffix such as .jpg is "
            "refused; a path without one is a folder; needs the plots extra)",
        )
    return parent


@docfill(returns="parent_parser")
def family_options(modes: tuple[str, ...]) -> argparse.ArgumentParser:
    """--mode (one of ``modes``) and --correction; with the reference mode also --reference and --family.

    Parameters
    ----------
    modes : tuple of str
        The --mode choices; the first is the default.
    """
    parent, group = _parent("pairs and multiplicity")
    group.add_argument(
        "--mode",
        choices=modes,
        default=modes[0],
        help="which pairs to report"
        + (
            ""
            if "reference" in modes
            else "; they are the declared family too (adjacent: K - 1 pairs, all: K (K - 1) / 2)"
        ),
    )
    if "reference" in modes:
        group.add_argument("--reference", help="reference model for --mode reference")
        group.add_argument("--family", choices=FAMILIES, help="declared multiplicity family (default: the mode)")
    group.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default=CORRECTIONS[0],
        help="the declared family's correction behind the 'significant' verdict",
    )
    return parent


class Given(argparse.Action):
    """Stores the value and records that the option was typed (:func:`given`).

    An option that cannot apply to the input is refused only when the user gave it, never because of its default.

    Parameters
    ----------
    option_strings, dest, nargs, const, default, type, choices, required, help, metavar : object
        ``argparse.Action``'s own, as ``add_argument`` passes them.
    """

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        """Store ``values`` in the option's attribute and add the attribute to ``namespace.given_options``."""
        setattr(namespace, self.dest, values)
        vars(namespace).setdefault("given_options", set()).add(self.dest)


def given(arguments, dest: str) -> bool:
    """True when the option stored in ``dest`` (with :class:`Given`) was typed on the command line.

    Parameters
    ----------
    arguments : argparse.Namespace
        The parsed command line.
    dest : str
        The option's attribute ("n_cluster_resamples").

    Returns
    -------
    bool
        Whether it was typed (a default does not count).
    """
    return dest in getattr(arguments, "given_options", ())


class _ImpliesAnytime(argparse.Action):
    """Stores the value and turns --anytime on: a setting of the monitored test asks for it."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values)
        namespace.anytime = True


@docfill(returns="parent_parser")
def anytime_options() -> argparse.ArgumentParser:
    """--anytime and the monitored test's settings (each of which implies --anytime)."""
    parent, group = _parent("monitored test")
    group.add_argument(
        "--anytime",
        action="store_true",
        help="add the monitored test's stopping N (expected and --quantile), from the exact distribution of "
        "the discordant sequence",
    )
    group.add_argument(
        "--mixture",
        choices=("grid", "beta", "two-point"),
        default="grid",
        action=_ImpliesAnytime,
        help="the e-process mixture (implies --anytime)",
    )
    group.add_argument(
        "--quantile",
        type=PROBABILITY,
        default=0.9,
        action=_ImpliesAnytime,
        help="the stopping-N quantile (implies --anytime)",
    )
    group.add_argument(
        "--horizon",
        type=HORIZON,
        action=_ImpliesAnytime,
        help="discordant items followed, in [100, 500,000] (above 200,000 the distribution is simulated from 4,000 "
        "paths; implies --anytime)",
    )
    return parent
