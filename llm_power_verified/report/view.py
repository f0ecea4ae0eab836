"""What the human-readable formats (text and HTML) show of any audit: the pairs listed, the column labels and meanings.

The machine formats hold every pair and column; the text and HTML formats
list the pairs ``pairs`` chooses: "all", "none", or "top": for a per-item
audit the ``limit`` pairs closest in rank (higher ranks first), for an
accuracies-only audit the adjacent pairs.  Labels are the contract's headers
(:func:`~llm_power_verified.contract.views.header`, with the audit's correction
filled in); meanings are the contract's, or the report legend's
(:func:`~.report_data.report_legend`: the accuracies-only ``delta`` is the
printed gap).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from llm_power_verified.contract import (
    ACCURACIES_VIEW,
    ASSUMED_VIEW,
    COLUMN_CHOICES,
    COMPOSITES,
    MIXED_PAIRS_VIEW,
    column,
    header,
)
from llm_power_verified.report.cells import reported_pairs
from llm_power_verified.report.report_data import report_legend

__all__ = [
    "PAIR_VIEW",
    "ROW_LIMIT",
    "accuracy_models",
    "accuracy_view",
    "label",
    "meaning",
    "shown_pairs",
    "with_adjacent",
]

#: Pair rows the text formats list with ``pairs="top"`` (the closest in rank); the machine formats have all.
ROW_LIMIT = 200
#: Per-item pair-table columns (``--columns`` names) and their headers, in order of importance.
PAIR_VIEW = {name: header(name) for name in COLUMN_CHOICES}


def shown_pairs(audit, pairs: str = "top", limit: int = ROW_LIMIT) -> pd.DataFrame:
    """The pairs a text or HTML format lists (see the module notes), as every format reports them.

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.
    pairs : {"top", "all", "none"}, default "top"
        "top": an accuracies-only audit's adjacent pairs, or at most ``limit`` per-item pairs, the closest in rank.
    limit : int, default 200
        The "top" limit of a per-item audit.

    Returns
    -------
    pandas.DataFrame
        The rows listed (:func:`~.cells.reported_pairs`).
    """
    table = reported_pairs(audit.pairs)
    if pairs == "none":
        return table.iloc[:0]
    if pairs == "all":
        return table
    if audit.kind == "accuracies":
        return table[table["adjacent"]]
    if len(table) <= limit:
        return table
    distance = (table["rank_b"] - table["rank_a"]).abs().to_numpy()
    order = np.lexsort((np.minimum(table["rank_a"], table["rank_b"]).to_numpy(), distance))
    return table.iloc[np.sort(order[:limit])]


def with_adjacent(shown: pd.DataFrame, view: list[str]) -> list[str]:
    """A pair view, with ``MIXED_PAIRS_VIEW`` (``adjacent``) first when the listed pairs are not all adjacent.

    Parameters
    ----------
    shown : pandas.DataFrame
        The pairs listed (:func:`shown_pairs`).
    view : list of str
        The view entries otherwise shown.

    Returns
    -------
    list of str
        ``view`` as it is when every listed pair is adjacent (the column would say yes on every row), else with
        ``adjacent`` first: a listing of every pair mixes the adjacent family with the rest, and a reader must tell
        which are which.
    """
    if shown["adjacent"].to_numpy(dtype=bool).all():
        return list(view)
    return [*MIXED_PAIRS_VIEW, *(name for name in view if name not in MIXED_PAIRS_VIEW)]


def label(audit, name: str) -> str:
    """The text tables' label of a view entry, with the audit's correction where the header names it.

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.
    name : str
        A view entry (a declared column or a composite).

    Returns
    -------
    str
        The label.
    """
    return header(name).format(correction=audit.correction)


def meaning(audit, name: str) -> str:
    """The legend's text of an accuracies-only view entry.

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.
    name : str
        A view entry (a declared column or a composite).

    Returns
    -------
    str
        A composite's meaning, or the report legend's.
    """
    if name in COMPOSITES:
        return COMPOSITES[name].meaning
    return report_legend(audit).get(name) or column(name).meaning  # a shared column (adjacent) by its declaration


def accuracy_view(audit) -> list[str]:
    """The accuracies-only pair view: the contract's, and the assumed-rho verdicts when the audit assumed a rho.

    Parameters
    ----------
    audit : AccuracyAudit
        An accuracies-only audit.

    Returns
    -------
    list of str
        The view entries, in order.
    """
    return list(ACCURACIES_VIEW) + (list(ASSUMED_VIEW) if audit.assumption else [])


def accuracy_models(audit) -> tuple[list[str], list[list[str]]]:
    """The accuracies-only model table as text: rank, model, accuracy, printed, counts and line.

    Parameters
    ----------
    audit : AccuracyAudit
        An accuracies-only audit.

    Returns
    -------
    headers : list of str
        The column labels.
    rows : list of list of str
        One row per model.
    """
    headers = ["rank", "model", "accuracy", "printed", "correct items k (of N)", "line"]
    rows = []
    for _, row in audit.ranking.iterrows():
        low, high = int(row["count_low"]), int(row["count_high"])
        counts = "none: inconsistent" if low > high else f"{low:,}" if low == high else f"{low:,} to {high:,}"
        rows.append(
            [
                str(row["rank"]),
                str(row["model"]),
                f"{row['accuracy']:.6g}",
                str(row["printed"]),
                counts,
                str(row["line"]),
            ]
        )
    return headers, rows
