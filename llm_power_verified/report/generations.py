"""The "Several generations per item" section and headline line of a per-item report whose items have generations.

With several generations per item the audit runs on the item means and adds the within/between split
(:mod:`llm_power_verified.leaderboard.generations`).  The headline names the share of the adjacent gaps' noise
that more generations could remove; the section shows, per model, K, the per-generation noise sigma_w^2, the
between-item variance sigma_b^2 and the generation share, and per adjacent pair the q curve at K' = 1, 2, 5, 10, 20
generations and its limit: where the limit stays below 1 only more items help.  Pairs whose method-of-moments
item variance is negative are named (their estimate is taken as 0 for the curve).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from llm_power_verified.contract.generation_columns import CURVE_COLUMNS
from llm_power_verified.leaderboard.generations import clustered_curve
from llm_power_verified.leaderboard.summaries import GenerationSummary
from llm_power_verified.report.cells import cell, fmt, plural
from llm_power_verified.report.table import grid

__all__ = ["generations_line", "generations_section"]

#: Pairs named in a sentence of the section before "and k more".
_NAMED = 10


def _per_item(summary: GenerationSummary) -> str:
    """The generations read: "5 epochs per item", or "2 to 5 trials per item" when the counts differ."""
    low, high, label = summary.count_low, summary.count_high, summary.label
    return plural(low, label) + " per item" if low == high else f"{low:,} to {plural(high, label)} per item"


def _percent(share: float) -> str:
    return f"{share:.0%}"


def generations_line(summary: GenerationSummary, adjacent_pairs: int) -> str:
    """The headline's line: the generations read and the share of the adjacent gaps' noise they could remove.

    Parameters
    ----------
    summary : GenerationSummary
        The audit's ``generations`` summary.
    adjacent_pairs : int
        The adjacent pairs reported.

    Returns
    -------
    str
        One line (plain text).

    Examples
    --------
    >>> from llm_power_verified.leaderboard.summaries import GenerationSummary
    >>> summary = GenerationSummary("epoch", 5, 5, True, {}, 0.23, 0.08, 0.41, 1 / 0.77, 0, 0, 3)
    >>> generations_line(summary, 3)[:68]
    'Generations: 5 epochs per item; generation noise is 23% of the varia'
    """
    start = f"Generations: {_per_item(summary)}"
    median = summary.adjacent_share_median
    if median is None:
        if not adjacent_pairs:
            return f"{start}; no adjacent pair reported (the split per pair is in the pair table)."
        return f"{start}; the generation share of the adjacent gaps is n/a (their item-mean differences do not vary)."
    low, high = summary.adjacent_share_low, summary.adjacent_share_high
    spread = "" if _percent(low) == _percent(high) else f"; {_percent(low)}-{_percent(high)}"
    effect = summary.design_effect_median
    if effect is not None and summary.q_limit_ratio is not None and math.isfinite(summary.q_limit_ratio):
        line = (
            f"{start}; generation noise is {_percent(median)} of the variance of the adjacent gaps (median{spread}), "
            f"but with the clusters' design effect (median {effect:.3g}) the between-cluster part does not shrink "
            "with generations: with unlimited generations q would be at most "
            f"{summary.q_limit_ratio:.3g} times today's clustered q (median over the adjacent pairs)"
        )
    elif summary.q_limit_ratio is not None and math.isfinite(summary.q_limit_ratio):
        line = (
            f"{start}; generation noise is {_percent(median)} of the variance of the adjacent gaps (median{spread}): "
            "more generations per item could remove at most that; with unlimited generations q would be at most "
            f"{summary.q_limit_ratio:.3g} times today's at the median share (1 / (1 - share))"
        )
    else:
        line = (
            f"{start}; generation noise is all of the variance of the adjacent gaps at the median (estimated share "
            f"{_percent(median)}{spread}: the method-of-moments item part is 0 or less), so the estimate sets no "
            "limit to what more generations could do for q"
        )
    beyond = summary.adjacent_beyond_generations
    if beyond:
        line += (
            f"; {beyond} of {adjacent_pairs} adjacent gaps {'stays' if beyond == 1 else 'stay'} unresolved however "
            f"many generations (q at unlimited generations{' with the clusters' if effect is not None else ''} < 1): "
            "only more items resolve " + ("it" if beyond == 1 else "them")
        )
    return line + "."


def _named(rows: pd.DataFrame, keys: dict[str, str], after: list[str] | None = None) -> str:
    names = [f"{keys.get(a, a)} vs {keys.get(b, b)}" for a, b in zip(rows["model_a"], rows["model_b"], strict=True)]
    names = names if after is None else [name + text for name, text in zip(names, after, strict=True)]
    more = len(names) - _NAMED
    return ", ".join(names[:_NAMED]) + (f" and {more:,} more" if more > 0 else "")


def _model_table(summary: GenerationSummary, keys: dict[str, str], markdown: bool) -> list[str]:
    headers = ["model", "generations/item", "sigma_w^2", "sigma_b^2", "gen. share"]
    rows = [
        [
            keys.get(name, name),
            fmt(split.generations, 3) if split.fewest == split.most else f"{split.fewest}-{split.most}",
            fmt(split.within_variance, 3),
            fmt(split.between_variance, 3),
            fmt(split.generation_share, 3),
        ]
        for name, split in summary.models.items()
    ]
    lines = [grid(headers, rows, markdown)]
    over = [keys.get(name, name) for name, split in summary.models.items() if (split.generation_share or 0) > 1]
    if over:
        lines.append(
            f"A generation share above 1 ({', '.join(over)}): sigma_b^2 is estimated negative, not distinguishable "
            "from 0 (the generation noise explains all of the item means' variance); planning takes it as 0."
        )
    return lines


def _fixed(adjacent: pd.DataFrame, clustered: bool) -> np.ndarray:
    """The part of each pair's noise more generations do not shrink: max(sigma_item^2, 0) (+ (deff - 1) variance)."""
    between = adjacent["gap_between_variance"].to_numpy(dtype=float)
    fixed = np.maximum(between, 0.0)
    if clustered:
        variance = between + adjacent["gap_within_part"].to_numpy(dtype=float)
        fixed = fixed + (adjacent["design_effect"].to_numpy(dtype=float) - 1.0) * variance
    return fixed


def _pair_lines(adjacent: pd.DataFrame, keys: dict[str, str], facts, markdown: bool) -> list[str]:
    """The q curve of the adjacent pairs, then where more generations resolve a gap and where only items do."""
    n_items, clustered = facts.n_items, "design_effect" in adjacent
    shown = ("delta", "q", "gap_generation_share")
    headers = ["A", "B", "gap", "q today", "gen. share", "q(1)", "q(2)", "q(5)", "q(10)", "q(20)", "q(inf)"]
    if clustered:
        curve = clustered_curve(n_items, adjacent, facts.alpha, facts.power)
        today = adjacent["q"].to_numpy(dtype=float) / adjacent["design_effect"].to_numpy(dtype=float)
        headers[3] = "q/deff today"
    else:
        curve, today = adjacent[list(CURVE_COLUMNS)].to_numpy(dtype=float), adjacent["q"].to_numpy(dtype=float)
    rows = [
        [keys.get(row["model_a"], row["model_a"]), keys.get(row["model_b"], row["model_b"]), cell(row, "delta")]
        + [fmt(today[index], 3), cell(row, "gap_generation_share")]
        + [fmt(value, 3) for value in curve[index]]
        for index, (_, row) in enumerate(adjacent[["model_a", "model_b", *shown]].iterrows())
    ]
    lines = [grid(headers, rows, markdown)]
    limit = curve[:, -1]
    negative = adjacent["gap_between_variance"].to_numpy(dtype=float) < 0
    items_only = adjacent[limit < 1]
    if len(items_only):
        lines.append(
            f"Only more items help (q stays below 1 however many generations at N = {n_items:,}): "
            f"{_named(items_only, keys)}."
        )
    helped = (today < 1) & (limit >= 1) & ~negative
    if helped.any():
        # q(K') = c / (b + w / K') with b the part generations do not shrink: q(K') >= 1 from K' = w / (c - b).
        within = adjacent["gap_within_variance"].to_numpy(dtype=float)[helped]
        fixed = _fixed(adjacent, clustered)[helped]
        needed = np.ceil(within / (curve[helped, 0] * (fixed + within) - fixed))
        after = [f" (from about {plural(int(count), 'generation')} per item)" for count in needed]
        lines.append(f"More generations per item alone could resolve: {_named(adjacent[helped], keys, after)}.")
    unknown = adjacent[(today < 1) & negative]
    if len(unknown):
        lines.append(
            f"Between part estimated negative, not distinguishable from 0 (the curve treats it as 0, so its limit is "
            f"inf; whether generations alone resolve them the data do not tell): {_named(unknown, keys)}."
        )
    return lines


def generations_section(audit, keys: dict[str, str], head: str, markdown: bool) -> list[str]:
    """The section's lines ([] without generations).

    Parameters
    ----------
    audit : Audit
        A per-item audit (in memory or streamed).
    keys : dict of str to str
        Model name -> its name in the tables (a key such as M1 for long names).
    head : str
        The section heading prefix.
    markdown : bool
        Markdown (True) or the terminal's plain text.

    Returns
    -------
    list of str
        The lines, a blank line first.
    """
    summary: GenerationSummary | None = getattr(audit.headline, "generations", None)
    if summary is None:
        return []
    kind = "every generation 0/1" if summary.binary else "graded generations"
    lines = [
        "",
        f"{head}Several generations per item ({_per_item(summary)}, {kind}; the audit is on the item means)",
        "Per model: the variance of its item means split into per-generation noise sigma_w^2 / (generations per "
        "item) and items sigma_b^2 (method of moments, derivations/repeats.py; sigma_b^2 may be negative: the "
        "estimate as it is).",
        *_model_table(summary, keys, markdown),
    ]
    pairs: pd.DataFrame = audit.pairs
    adjacent = pairs[pairs["adjacent"].to_numpy(dtype=bool)]
    if len(adjacent):
        facts = audit.headline
        clusters = (
            "with the clusters' design effect deff (the between-cluster part (deff - 1) x the gap's variance does "
            "not shrink with generations; 'q/deff today' is the clustered q)"
            if "design_effect" in adjacent
            else "the items taken as independent"
        )
        lines += [
            "",
            f"q with K' generations per item for both models (adjacent pairs, N = {facts.n_items:,}, each at alpha "
            f"{facts.alpha:g}; the item part sigma_item^2 and the pair's per-generation noise sigma_wA^2 + "
            f"sigma_wB^2 estimated from these data; {clusters}):",
            *_pair_lines(adjacent, keys, facts, markdown),
        ]
    within = pairs["gap_within_part"].to_numpy(dtype=float)
    flat = pairs[(pairs["gap_between_variance"].to_numpy(dtype=float) + within == 0) & (within > 0)]
    if len(flat):  # a streamed audit keeps the adjacent rows: the note counts them all
        lines.append(
            f"Item-mean differences that do not vary although the generations do: {_named(flat, keys)} (the paired "
            "t has variance 0; its p and q rest on item means that agree by chance: more items are needed)."
        )
    negative = pairs[pairs["gap_between_variance"].to_numpy(dtype=float) < 0]
    if summary.negative_between:
        listed = "" if not len(negative) else f": {_named(negative, keys)}"
        if len(negative) and len(negative) < summary.negative_between:  # a streamed audit keeps the adjacent rows
            listed = f" (adjacent ones: {_named(negative, keys)})"
        lines.append(
            f"Negative item variance sigma_item^2 (method of moments; not distinguishable from 0, taken as 0 for the "
            "curve) in "
            f"{summary.negative_between:,} of {summary.reported_pairs:,} reported pairs{listed}."
        )
    return lines
