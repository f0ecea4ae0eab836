"""Shared parameter descriptions (every room), written once and filled into docstrings by :func:`docfill`.

In the manner of scipy's ``doccer``: a function decorated with ``@docfill("p_a", "rho", "alpha", returns="required_n",
derivation="wald")`` gets a numpydoc Parameters section with those entries (in that order) and a Returns section,
inserted before its first other section, and its Notes name the derivation module.  The wording follows the
parameter glossary, so that one name means one thing in every signature and every docstring.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

Function = TypeVar("Function", bound=Callable)

_ALTERNATIVE = (
    'alternative : {"two-sided", "larger", "smaller"}, default "two-sided"',
    'The alternative hypothesis: "larger" is H1: p_a > p_b, "smaller" is H1: p_a < p_b.',
)

#: Parameter entries: name -> (numpydoc header line, description).
PARAMETERS = {
    "p_a": ("p_a, p_b : array_like", "Accuracies of models A and B, each in (0, 1)."),
    "rho": (
        "rho : array_like",
        "Correlation of the two models' per-item 0/1 scores (the phi coefficient), inside the "
        "admissible interval of the marginals "
        "(:func:`~llm_power_verified.power.correlation.admissible_rho_interval`).",
    ),
    "alpha": ("alpha : array_like, default 0.05", "Significance level, in (0, 1)."),
    "power": ("power : array_like, default 0.8", "Target power 1 - beta, in (alpha, 1)."),
    "alternative": _ALTERNATIVE,
    "counts": (
        "b, c : array_like",
        "Discordant counts: b items only model A solves, c items only model B solves (whole numbers >= 0).",
    ),
    "n_table": ("n : array_like", "Number of paired items, a whole number >= 1 and at least b + c."),
    "n": ("n : array_like", "Number of paired items, > 0."),
    "variance": ("variance : array_like", "Variance sigma_D^2 of the per-item difference, >= 0."),
    "delta": ("delta : array_like", "The gap p_a - p_b, or the mean difference, to detect (any sign)."),
    "p": ("p : array_like", "The midpoint accuracy (p_a + p_b) / 2, in (0, 1)."),
    "rho_open": ("rho : array_like", "Correlation of the per-item 0/1 scores, in (-1, 1)."),
    "convention": (
        'convention : {"two-sample", "one-sample"}, default "two-sample"',
        '"two-sample": two independent arms, n = 2K/h^2 per arm (R ``pwr.2p.test``, statsmodels '
        '``NormalIndPower``).  "one-sample": n = K/h^2 (R ``pwr.p.test``; the per-arm value in the '
        "paper's Table 1).",
    ),
    "order": ("order : {2, 4}, default 4", "The order in delta through which the series is taken."),
    "epsilon": ("epsilon : float", "The tolerance on the deviation of n_h / N* from 1/2, > 0."),
    "cells": (
        "a, b, c, d : array_like",
        "The paired 2x2 cells: items both models solve, only model A, only model B, neither (whole numbers >= 0).",
    ),
    # Scalar forms, for functions that take one comparison (the sequential room's and the design report's).
    "alpha_float": ("alpha : float, default 0.05", "Significance level, in (0, 1)."),
    "power_float": ("power : float, default 0.8", "Target power 1 - beta, in (0, 1)."),
    "counts_int": (
        "b, c : int",
        "Discordant counts: b items only model A solves, c items only model B solves (whole numbers >= 0).",
    ),
    "n_int": ("n : int", "Number of paired items, a whole number >= 1 and at least b + c."),
    "mixture": (
        'mixture : {"grid", "beta", "two-point"}, default "grid"',
        "The e-process's mixture over theta, the "
        'probability that model A wins a discordant item: "grid" (theta in {0.01, ..., 0.49, 0.51, ..., 0.99}, '
        'equal weights), "beta" (a Beta(a, a\') prior, ``prior``) or "two-point" (theta in {0.4, 0.6}).',
    ),
    "prior": (
        "prior : tuple of two floats, default (1.0, 1.0)",
        '(a, a\'), the Beta prior of the "beta" mixture, both > 0; the other mixtures ignore it.',
    ),
    "differences": (
        "differences : array_like",
        "Per-item paired differences x_A - x_B in [-1, 1], in arrival order "
        "(one-dimensional; 2-D arrays are paths x items where stated).",
    ),
    "differences_path": (
        "differences : array_like",
        "Per-item paired differences x_A - x_B in [-1, 1], in arrival order (one path, 1-D).",
    ),
    "alpha_bets": (
        "alpha : float, default 0.05",
        "Tunes the bets (the plug-in aims at a level-alpha test); the e-process is valid at every level.",
    ),
    "seed": (
        "seed : int, default 0",
        "Seed of the ``numpy.random.Generator`` behind every random draw; the same seed gives the same output.",
    ),
    # The inference room's (McNemar family, graded tests).
    "two_sided_rule": (
        'two_sided_rule : {"double", "no-more-likely"}, default "double"',
        'Two-sided rule of the mid-p test: "double" doubles the smaller tail; "no-more-likely" sums '
        "the outcomes no more likely than the observed one.  They differ only at b = c.",
    ),
    "scores": (
        "scores_a, scores_b : array_like",
        "The two models' per-item scores, aligned item by item "
        "(one-dimensional, the same length, at least 2 items, finite).",
    ),
    # The plan room's (one gap, one family).
    "p_a_float": ("p_a, p_b : float", "Accuracies of models A and B, each in (0, 1)."),
    "rho_float": (
        "rho : float",
        "Correlation of the two models' per-item 0/1 scores (the phi coefficient), inside the "
        "admissible interval of the marginals.",
    ),
    "family_size": ("family_size : int, default 1", "m, the number of comparisons in the declared family (>= 1)."),
    "correction": (
        'correction : {"holm", "bonferroni", "sidak", "bh", "none"}',
        'The multiplicity correction of the family ("none": each comparison tested at alpha).',
    ),
    "differences_rows": (
        "differences : array_like",
        "Paired differences, shape (rows, n): each row one replicate of n items (n >= 2, finite).",
    ),
    # The io room's (the readers of per-item results).
    "score_kind": (
        'score_kind : {"auto", "binary", "graded"}, default "auto"',
        '"binary" needs every score to be 0 or '
        '1; "graded" takes the scores as they are; "auto" decides from the whole matrix: graded when more than '
        "max(2, 5% of the items) scores are neither 0 nor 1, and refused as damaged binary data when fewer "
        "(:mod:`llm_power_verified.io.matrix`).  ``--scores``.",
    ),
    "on_missing": (
        'on_missing : {"error", "intersect"}, default "error"',
        "A missing score (an empty cell, an item "
        'one model lacks): "error" refuses it naming the line; "intersect" keeps the items every model has, '
        "with a note.  ``--on-missing``.",
    ),
    "missing_cluster": (
        'missing_cluster : {"error", "drop", "own"}, default "error"',
        "An item without a cluster label "
        '(empty, NA, nan, null, None, n/a): "error" refuses it, "drop" leaves it out, "own" makes it a '
        "cluster of its own (both with a note).  ``--missing-cluster``.",
    ),
    "item_column": ('item_column : str, default "item_id"', "The item-id column (``--item-column``)."),
    "cluster_column": (
        "cluster_column : str, optional",
        "The column of cluster labels (``--cluster-column``); None: no clusters.",
    ),
    "long_columns": (
        'model_column, score_column : str, default "model", "score"',
        "The model and score columns of a "
        "long table (``--model-column``, ``--score-column``); a table with both is read as long.",
    ),
    "score_range": (
        "score_range : tuple of two floats or None, default (0.0, 1.0)",
        'The range every score must lie in; None allows any finite real (with score_kind="graded" only).',
    ),
    "source_name": ("source : str", 'What messages and the matrix call the input (a file name, "DataFrame").'),
    "exact_ids": (
        "exact_ids : bool, default False",
        "Keep item ids exactly as written: a harness file's ids are exact strings (JSON, Parquet), so ``'q1 '`` and "
        "``'q1'`` are two items there; False drops the blanks around an id, as for a table's cells.",
    ),
    "lines": (
        "lines : array_like, optional",
        "Where each row came from, for messages: a line number, or a place such "
        'as "file, line 3"; default: lines 2, 3, ... (the header is line 1).',
    ),
    "output_path": (
        "path : str or pathlib.Path",
        "The output: a regular file (written atomically), a named descriptor "
        "(``/dev/stdout``, ``/dev/fd/N``), a character device or a FIFO (the rules of "
        ":mod:`llm_power_verified.io.output`).",
    ),
    "where": ("where : str", "The file (and member or line) that messages name."),
    # The simulation room's.
    "n_simulations": ("n_simulations : int", "Simulated datasets (replicates) per cell, a whole number >= 1."),
    "n_resamples": ("n_resamples : int", "Bootstrap resamples per simulated dataset."),
    "rng": ("rng : numpy.random.Generator", "The source of every random draw (seeded by the caller)."),
    "sizes": (
        "sizes : array_like of int",
        "The benchmark sizes n of the curve: increasing whole numbers >= 2, at least two.",
    ),
    # The parallel room's (the backends' map).
    "map_function": (
        "function : callable",
        "Called as ``function(*shared, *task)``; a module-level function, since "
        "process and remote workers import it by name.",
    ),
    "tasks": ("tasks : iterable of sequence", "One tuple of a call's own arguments per task."),
    "shared": (
        "shared : sequence, default ()",
        "Arguments every call shares, passed before the task's own (sent to each worker once).",
    ),
    # The cli room's (each command's add_parser and run; the options themselves are documented by --help).
    "commands": ("commands : argparse._SubParsersAction", "The subcommands of the main parser (``build_parser``)."),
    "arguments": ("arguments : argparse.Namespace", "The parsed command line."),
    "option_text": ("text : str", "The option's value, as typed."),
}

#: Returns entries: name -> (type, description).
RETURNS = {
    "required_n": (
        "float or numpy.ndarray",
        "N*, unrounded (:func:`~llm_power_verified.power.sample_size."
        "ceil_sample_size` gives the integer requirement); inf where the gap is 0 or a one-sided "
        "alternative points the other way.",
    ),
    "per_arm_n": ("float or numpy.ndarray", "The per-arm sample size, unrounded; inf where p_a = p_b."),
    "ratio": ("float or numpy.ndarray", "The resolution ratio q = N / N*; 0 where N* is infinite."),
    "mde": (
        "float or numpy.ndarray",
        "The minimum detectable effect: the smallest absolute gap detected with the target power.",
    ),
    "variance": ("float or numpy.ndarray", "sigma_D^2, the variance of the per-item difference."),
    "critical_value": (
        "float or numpy.ndarray",
        "z_{1 - alpha/2} for a two-sided test, z_{1 - alpha} for a one-sided one.",
    ),
    "required_n_connor": (
        "float or numpy.ndarray",
        "Connor's N, unrounded; inf where the gap is 0 or a one-sided alternative points the other way.",
    ),
    "power": ("float or numpy.ndarray", "The power of the test, in [alpha, 1) for a two-sided test."),
    "cohens_h": ("float or numpy.ndarray", "Cohen's h, with the sign of p_a - p_b."),
    "shortcut_n": ("float or numpy.ndarray", "n_h, unrounded; inf where p_a = p_b."),
    "shortcut_ratio": ("float or numpy.ndarray", "n_h / N*; at p_a = p_b its limit, 1/2."),
    "shortcut_constant": ("float or numpy.ndarray", "C(p, rho), >= 0."),
    "series": ("float or numpy.ndarray", "The truncated series for n_h / N*."),
    "delta_star": ("DeltaStar", "The leading-order and the exact delta*, and what limits the exact one."),
    "mcnemar": (
        "McNemarResult",
        "statistic, pvalue (0.0 only where it underflows), log_pvalue (finite however "
        "small p is), method, the counts b and c, alternative and two_sided_rule; floats, or arrays for "
        "array input.",
    ),
    "graded": ("GradedTestResult", "statistic, the two-sided pvalue and its log, method, n_items and mean_difference."),
    "row_pvalues": ("numpy.ndarray", "The two-sided p-value of each row, shape (rows,)."),
    "score_matrix": (
        "ScoreMatrix",
        "The validated (items x models) scores with the models, item ids, cluster labels, "
        "score kind, source and the reader's notes (:class:`~llm_power_verified.io.matrix.ScoreMatrix`).",
    ),
    "output_written": ("pathlib.Path", "The file written (the resolved target), or the descriptor's name as given."),
    "cli_report": ("str", "The report, which ``main`` prints."),
    "cli_gated": (
        "tuple of (str, int) or int",
        'The report (or the "wrote PATH" line of ``--out``) with the exit status '
        "(1: the command's gate failed), which ``main`` prints; or the status alone when the report went to "
        "standard output already (a machine format, or ``--out`` naming standard output).",
    ),
    "cli_status": ("int", "The exit status: 0, or 1 when ``check`` finds a stale file."),
    "parent_parser": ("argparse.ArgumentParser", "A parent parser (``add_help=False``) for a command's ``parents=``."),
}

_SECTION = re.compile(r"^( *)(Returns|Notes|References|Examples|See Also)\n\1-+\n", re.M)
_WIDTH = 116


def _entry(header: str, description: str, indent: str) -> list[str]:
    lines, line = [], ""
    for word in description.split(" "):
        if line and len(indent) + 4 + len(line) + 1 + len(word) > _WIDTH:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [indent + header, *(f"{indent}    {text}" for text in [*lines, line])]


def docfill(*names: str, returns: str | None = None, derivation: str | None = None) -> Callable[[Function], Function]:
    """Decorate a function of the power room with its shared sections and the derivation it comes from.

    The Parameters (``names``, keys of :data:`PARAMETERS`) and Returns (a key of :data:`RETURNS`) sections are
    inserted, and "Derived in ``derivations/<derivation>.py``." is added to its Notes.

    A docstring that writes its own Parameters section (for parameters of its own) marks where each shared entry
    goes with a line ``%(name)s``, in the manner of scipy's ``doccer``; every name must then be placed so.  A
    docstring without sections (a summary only) gets them at its end.
    """

    def decorate(function: Function) -> Function:
        doc = function.__doc__
        if doc is None:  # python -OO strips docstrings
            return function
        first = _SECTION.search(doc)
        if first is None:  # a summary only: the sections go at its end, indented as the function's body
            doc = doc.rstrip() + "\n\n" + "    " * (function.__qualname__.count(".") + 1)
            first = re.compile(r"(?P<indent> *)$").search(doc)
        indent = first.group(1)
        block = []
        if re.search(rf"^{indent}Parameters\n", doc, re.M):
            for name in names:
                entry = PARAMETERS[name]
                doc, placed = re.subn(
                    rf"^( *)%\({name}\)s$",
                    lambda m, entry=entry: "\n".join(_entry(*entry, m.group(1))),
                    doc,
                    flags=re.M,
                )
                if placed != 1:
                    raise ValueError(f"{function.__qualname__}: its Parameters places %({name})s {placed} times")
            first = _SECTION.search(doc) or re.compile(r" *$").search(doc)  # Parameters only: the rest at its end
        else:
            block = [f"{indent}Parameters", f"{indent}----------"]
            for name in names:
                block += _entry(*PARAMETERS[name], indent)
        if returns is not None:
            type_, description = RETURNS[returns]
            block += ["", f"{indent}Returns", f"{indent}-------", *_entry(type_, description, indent)]
        if block:
            doc = doc[: first.start()] + "\n".join(block).lstrip("\n") + "\n\n" + doc[first.start() :]
            doc = doc.rstrip(" ")
        if derivation is not None:
            notes = re.search(rf"^{indent}Notes\n{indent}-+\n", doc, re.M)
            after = re.compile(rf"^{indent}(References|Examples|See Also)\n", re.M).search(doc, notes.end())
            end = after.start() if after else len(doc)
            doc = doc[:end].rstrip() + f"\n\n{indent}Derived in ``derivations/{derivation}.py``.\n\n" + doc[end:]
        function.__doc__ = doc
        return function

    return decorate
