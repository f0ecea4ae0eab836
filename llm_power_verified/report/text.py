"""Any audit as text: the terminal table and Markdown, in one order for every kind of audit.

The skeleton is one: the title, the headline (:mod:`llm_power_verified.report.headline`) and notes,
the model table, the pair table, the sections (:mod:`.sections`) and the
legend, which defines every column shown, once.  What differs by kind is the
content: a per-item audit's model table (mean score and its interval, rank
interval, letters, tier), its default pair view (``columns`` picks others,
``wide`` shows all) and verdict rules; an accuracies-only audit's model table
(accuracies and the counts they allow) and its view, whose intervals the
terminal folds into one cell each and whose models it names by rank.

The terminal's one width rule (:func:`fitted`): while the pair table (fixed
columns such as the two models, then the view's columns, two spaces between
columns) is wider than ``width``, the next column of the view's drop order
that is still shown goes, until the table fits or only ``keep`` columns are
left.  The per-item view drops from its end (its order is the order of
importance) and keeps at least 4 columns; the accuracies-only view drops
``DROP_ORDER``.  A per-item report also
shortens long model names to keys M1, M2, ... and wraps its prose at
``width``.  Markdown keeps every column and name whole.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Sequence

import pandas as pd

from llm_power_verified.contract import (
    BINARY_VIEW,
    COMPOSITES,
    DROP_ORDER,
    GRADED_VIEW,
    VERDICT_RULES,
    WHEN,
    column,
    header,
    legend,
)
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.escaping import markdown_text, terminal_text
from llm_power_verified.leaderboard.memory import LINEAR_MODELS
from llm_power_verified.report.cells import cell
from llm_power_verified.report.gaps import gaps_section
from llm_power_verified.report.generations import generations_section
from llm_power_verified.report.headline import headline
from llm_power_verified.report.sections import text_sections
from llm_power_verified.report.table import grid
from llm_power_verified.report.view import (
    PAIR_VIEW,
    accuracy_models,
    accuracy_view,
    label,
    meaning,
    shown_pairs,
    with_adjacent,
)

__all__ = ["NAME_LIMIT", "column_width", "fitted", "text_report"]

#: Longest model name shown whole in the terminal pair table; longer names become keys M1, M2, ...
NAME_LIMIT = 18
#: The accuracies-only intervals the terminal folds into one cell each (``rho_interval``, ``required_n_range``).
_FOLDED = ("rho_min", "rho_max", "required_n_rho_min", "required_n_rho_max")


def column_width(label: str, cells: Iterable[str]) -> int:
    """The width a text-table column takes: its longest cell or its label.

    Parameters
    ----------
    label : str
        The column's label.
    cells : iterable of str
        Its cells.

    Returns
    -------
    int
        The width in characters.

    Examples
    --------
    >>> column_width("q", ["0.25", "12.5"])
    4
    """
    return max([len(label), *(len(text) for text in cells)])


def fitted(
    columns: Sequence[str],
    widths: dict[str, int],
    fixed: Sequence[int],
    width: int,
    drop_order: Sequence[str],
    keep: int = 0,
) -> list[str]:
    """The columns kept for a table of at most ``width`` characters (see the module notes).

    Parameters
    ----------
    columns : sequence of str
        The candidate columns, in view order.
    widths : dict of str to int
        Each column's width (:func:`column_width`).
    fixed : sequence of int
        The widths of the columns always shown.
    width : int
        The table's width limit in characters.
    drop_order : sequence of str
        The columns that may be dropped, in that order, until the table fits (two spaces between columns); the others
        are always kept.
    keep : int, default 0
        Dropping stops when no more than ``keep`` columns are left.

    Returns
    -------
    list of str
        The columns kept, in their order.

    Examples
    --------
    >>> fitted(["a", "b", "c"], {"a": 5, "b": 5, "c": 5}, [10], 25, ("c", "b"))
    ['a', 'b']
    """
    chosen = list(columns)

    def total() -> int:
        return sum(fixed) + sum(widths[name] for name in chosen) + 2 * (len(fixed) + len(chosen) - 1)

    while total() > width and len(chosen) > keep:
        candidates = [name for name in drop_order if name in chosen]
        if not candidates:
            break
        chosen.remove(candidates[0])
    return chosen


def text_report(
    audit,
    output: str = "table",
    *,
    width: int = 100,
    columns: list[str] | None = None,
    wide: bool = False,
    pairs: str = "top",
) -> str:
    """An audit as the terminal table or Markdown (the dispatcher has checked the options).

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.
    output : {"table", "markdown"}, default "table"
        The terminal's plain columns, or Markdown.
    width : int, default 100
        The terminal table's width in characters.
    columns : list of str, optional
        The per-item pair columns shown (``COLUMN_CHOICES``); default: the view's.
    wide : bool, default False
        Every column of the view, model names whole.
    pairs : {"top", "all", "none"}, default "top"
        Which pairs are listed (:func:`~.view.shown_pairs`).

    Returns
    -------
    str
        The report.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.leaderboard.audit import audit_leaderboard
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float)
    >>> audit = audit_leaderboard(from_array(scores, models=["x", "y", "z"]), n_resamples=0)
    >>> text_report(audit, "markdown").splitlines()[0]
    '## Resolution audit: array'
    """
    markdown = output == "markdown"
    accuracies = audit.kind == "accuracies"
    head = "## " if markdown else ""
    # The accuracies-only report is a Markdown list under a level-1 title, its prose as it is; the per-item report's
    # prose is escaped for its format and wraps at the width.
    prose = terminal_text if accuracies or not markdown else markdown_text
    bullet = "- " if markdown and accuracies else ""
    title = (
        f"{'# ' if markdown else ''}Resolution audit from accuracies only" if accuracies else f"{head}Resolution audit"
    )
    lines = [f"{title}: {prose(audit.source)}", ""]
    lines += [bullet + prose(line) for line in headline(audit)]
    lines += [f"note: {prose(note)}" for note in audit.notes]
    keys = _keys(audit, markdown or wide)
    lines += ["", f"{head}Models", grid(*_models(audit, keys, markdown, width, wide), markdown)]
    listed = shown_pairs(audit, pairs)
    if accuracies:
        table, view = _accuracy_pairs(audit, listed, markdown, width, pairs)
    else:
        table, view = _item_pairs(
            audit, listed, _item_view(audit, columns), keys, markdown, None if markdown or wide else width - 2, pairs
        )
        dropped = _not_shown(audit, columns)
        if "mde" in view and (~(listed["mde"] > 0)).any():
            dropped = (dropped + " " if dropped else "") + (
                "(MDE n/a: the difference is the same on every item (no item on "
                "which the two differ, or all discordant one way), so the plug-in "
                "variance is 0 and states no detectable gap)"
            )
        table = table[:1] + ([dropped] if dropped else []) + table[1:]
    lines += [*(["", head + table[0]] if table else []), *table[1:]]
    lines += [] if accuracies else gaps_section(audit, keys, head, markdown)
    lines += [] if accuracies else generations_section(audit, keys, head, markdown)
    lines += text_sections(audit, listed, keys, head, markdown)
    entries = _legend(audit, view, markdown)
    lines += [
        "",
        f"{head}Legend",
        *[f"{'- ' if markdown else ''}{prose(name)}: {prose(text)}" for name, text in entries],
    ]
    if not (accuracies or markdown or wide):
        lines = [_wrap(line, width) for line in lines]  # prose wraps; the tables (one string each) were fitted above
    return "\n".join(lines) + "\n"


def _wrap(line: str, width: int) -> str:
    """A prose line wrapped at ``width`` with a two-space hanging indent; a table (several lines) as it is."""
    if "\n" in line or len(line) <= width:
        return line
    return "\n".join(textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False))


def _keys(audit, whole: bool) -> dict[str, str]:
    """Model name -> what a per-item pair table shows: the name itself, or the key M<rank> when names are long."""
    names = audit.ranking["model"].tolist()
    if whole or audit.kind == "accuracies" or max(len(name) for name in names) <= NAME_LIMIT:
        return {name: name for name in names}
    return {name: f"M{rank}" for name, rank in zip(names, audit.ranking["rank"], strict=True)}


def _fit(
    shown: pd.DataFrame,
    names: list[list[str]],
    view: list[str],
    labels: Callable[[str], str],
    width: int | None,
    drop_order: Sequence[str],
    keep: int,
) -> tuple[list[str], list[list[str]]]:
    """The columns kept (all when ``width`` is None) and the pair rows.

    A pair row is the two ``names`` cells, then the kept columns' cells.
    """
    records = [row for _, row in shown.iterrows()]
    cells = {name: [cell(row, name) for row in records] for name in view}
    chosen = list(view)
    if width is not None:
        fixed = [column_width(header, (name[index] for name in names)) for index, header in enumerate(("A", "B"))]
        chosen = fitted(
            view, {name: column_width(labels(name), cells[name]) for name in view}, fixed, width, drop_order, keep
        )
    return chosen, [name + [cells[column][index] for column in chosen] for index, name in enumerate(names)]


def _item_view(audit, columns: list[str] | None) -> list[str]:
    """The per-item pair-table columns to show, in order (the model names always come first)."""
    if columns:
        unknown = [name for name in columns if name not in PAIR_VIEW]
        if unknown:
            raise ArgumentError(f"--columns: unknown column {unknown[0]!r}; choose from {', '.join(PAIR_VIEW)}")
        return [name for name in columns if _available(audit.pairs, name)]
    return [name for name in (BINARY_VIEW if audit.kind == "binary" else GRADED_VIEW) if _available(audit.pairs, name)]


_SCORES = {"binary": "0/1", "graded": "graded"}


def _not_shown(audit, columns: list[str] | None) -> str | None:
    """The note naming the ``--columns`` asked for that this audit does not have, and why.

    None when every one is shown.
    """
    reasons: dict[str, list[str]] = {}
    for name in columns or []:
        if name in PAIR_VIEW and not _available(audit.pairs, name):
            declared = column(COMPOSITES[name].parts[0] if name in COMPOSITES else name)
            if audit.kind not in declared.audits:
                kinds = [_SCORES[kind] for kind in sorted(declared.audits) if kind in _SCORES]
                why = f"for {' and '.join(kinds)} scores only (these scores are {_SCORES.get(audit.kind, audit.kind)})"
            else:
                why = f"only {WHEN[declared.when]}" if declared.when in WHEN else "not computed in this audit"
            reasons.setdefault(why, []).append(name)
    if not reasons:
        return None
    return "(not shown: " + "; ".join(f"{', '.join(names)}: {why}" for why, names in reasons.items()) + ")"


def _available(pairs: pd.DataFrame, name: str) -> bool:
    return (COMPOSITES[name].parts[0] if name in COMPOSITES else name) in pairs


def _item_pairs(
    audit, shown: pd.DataFrame, view: list[str], keys: dict[str, str], markdown: bool, width: int | None, listed: str
) -> tuple[list[str], list[str]]:
    """The per-item pair section (heading first) and the columns it shows: cut to ``width`` in order of importance."""
    total = len(audit.pairs)
    if listed == "none":
        return ["Pairs", f"({total:,} pairs not listed (--pairs none); the machine formats have all)"], view
    lines = ["Pairs"]
    if len(shown) < total:
        lines.append(
            f"({len(shown)} pairs closest in rank of {total:,}; --pairs all lists every pair; the machine formats "
            "have all)"
        )
    names = [[keys[a], keys[b]] for a, b in zip(shown["model_a"], shown["model_b"], strict=True)]
    view = with_adjacent(shown, view)
    chosen, rows = _fit(shown, names, view, _item_label, width, view[::-1], 4)
    if len(chosen) < len(view):
        lines.append(
            f"({len(view) - len(chosen)} more columns with --wide, --columns or a wider --width; Markdown, JSON and "
            "CSV have all)"
        )
    lines.append(grid(["A", "B"] + [_item_label(name) for name in chosen], rows, markdown))
    return lines, chosen


def _item_label(name: str) -> str:
    return PAIR_VIEW[name] if name in PAIR_VIEW else header(name)


def _accuracy_pairs(audit, shown: pd.DataFrame, markdown: bool, width: int, listed: str) -> tuple[list[str], list[str]]:
    """The accuracies-only pair section (heading first; none without pairs listed) and the columns it shows.

    The terminal names models by rank (the model table maps ranks to names) and folds each interval into one cell,
    dropping columns in ``DROP_ORDER`` until the table fits; Markdown keeps names and every column.
    """
    view = accuracy_view(audit)
    compact = [name for name in view if name not in _FOLDED]
    columns = view if markdown else ["delta", "rho_interval", "required_n_range", *compact[1:]]
    if not len(shown):
        return [], columns
    if markdown:  # the terminal names the models by rank, which shows the adjacent pairs already
        columns = with_adjacent(shown, columns)
        names = [[str(a), str(b)] for a, b in zip(shown["model_a"], shown["model_b"], strict=True)]
    else:
        names = [[f"#{a}", f"#{b}"] for a, b in zip(shown["rank_a"], shown["rank_b"], strict=True)]
    chosen, rows = _fit(
        shown, names, columns, lambda name: label(audit, name), None if markdown else width, DROP_ORDER, 0
    )
    dropped = len(columns) - len(chosen)
    more = (
        f" ({dropped} more column{'s' if dropped > 1 else ''} with a wider --width or --format markdown)"
        if dropped
        else ""
    )
    heading = "Pairs" + ("" if listed == "all" else " (adjacent; --pairs all lists every pair)") + more
    return [heading, grid(["A", "B"] + [label(audit, name) for name in chosen], rows, markdown)], chosen


def _models(audit, keys: dict[str, str], markdown: bool, width: int, wide: bool) -> tuple[list[str], list[list[str]]]:
    """The model table's headers and rows."""
    if audit.kind == "accuracies":
        return accuracy_models(audit)
    ranking = audit.ranking
    keyed = any(keys[name] != name for name in ranking["model"])
    tiered, booted, lettered = "tier" in ranking, "rank_boot_low" in ranking, _lettered(audit)
    rows = []
    for _, row in ranking.iterrows():
        cells = [str(row["rank"])] + ([keys[row["model"]]] if keyed else []) + [row["model"]]
        cells += [
            f"{row['mean_score']:.4f} [{row['ci_low']:.4f}, {row['ci_high']:.4f}]",
            "n/a" if pd.isna(row["rank_low"]) else f"[{row['rank_low']}, {row['rank_high']}]",
        ]
        cells += [f"[{row['rank_boot_low']}, {row['rank_boot_high']}]"] if booted else []
        rows.append(cells + ([row["letters"]] if lettered else []) + ([str(row["tier"])] if tiered else []))
    headers = ["rank"] + (["key"] if keyed else []) + ["model", "mean score [interval]", "rank interval"]
    headers += (
        (["bootstrap ranks"] if booted else []) + (["letters"] if lettered else []) + (["tier"] if tiered else [])
    )
    if not (markdown or wide):  # long names are shortened in the middle to what the width leaves them
        at = headers.index("model")
        others = sum(max([len(h), *(len(r[i]) for r in rows)]) + 2 for i, h in enumerate(headers) if i != at)
        room = max(12, width - others)
        for cells in rows:
            if len(cells[at]) > room:
                cells[at] = cells[at][: room // 2 - 1] + "..." + cells[at][-(room - room // 2 - 2) :]
    return headers, rows


def _lettered(audit) -> bool:
    """Whether the ranking has the all-pairs Holm columns (rank interval, letters): not in a linear mode past 2,000."""
    return bool(audit.ranking["rank_low"].notna().any())


def _legend(audit, view: list[str], markdown: bool) -> list[tuple[str, str]]:
    """(name, meaning) for every verdict rule present and every column shown, once per report."""
    if audit.kind == "accuracies":
        return (
            []
            if markdown
            else [("A, B", "the models' ranks in the model table (adjacent pairs: ranks that differ by 1)")]
        ) + [(label(audit, name), meaning(audit, name)) for name in view]
    model = legend(("ci_low", "rank_low", "rank_high", "letters", "rank_boot_low", "rank_boot_high", "tier"))
    entries = [(name, rule) for name, rule in VERDICT_RULES.items() if name in audit.pairs]
    entries += [
        (f"{_item_label(name)} ({name})", COMPOSITES[name].meaning if name in COMPOSITES else column(name).meaning)
        for name in view
        if name not in VERDICT_RULES
    ]
    entries.append(("mean score [interval]", model["ci_low"].removesuffix(", low end")))
    if _lettered(audit):
        entries += [
            ("rank interval", f"[best, worst]: {model['rank_low']}; {model['rank_high']}"),
            ("letters", model["letters"]),
        ]
    else:  # a linear mode above LINEAR_MODELS models: no Holm over all pairs (the notes say why)
        entries.append(
            (
                "rank interval",
                f"n/a in this audit: mode {audit.mode} computes nothing over all pairs above {LINEAR_MODELS:,} models "
                "(no letters either); where computed, [best, worst] from Holm over all pairs",
            )
        )
    if "rank_boot_low" in audit.ranking:
        entries.append(("bootstrap ranks", f"{model['rank_boot_low']}; {model['rank_boot_high']}"))
    if "tier" in audit.ranking:
        entries.append(("tier", model["tier"]))
    return entries
