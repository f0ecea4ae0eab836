"""The terminal's one width rule: which pair-table columns a text table of ``width`` characters keeps.

Both audits' terminal tables fit the same way: while the table (fixed columns
such as the two models, then the view's columns, two spaces between columns)
is wider than ``width``, the next column of the view's drop order that is
still shown goes, until the table fits or only ``keep`` columns are left.
The per-item view drops from its end (its order is the order of importance)
and keeps at least 4 columns; the accuracies-only view drops
:data:`~llm_power_verified.contract.DROP_ORDER`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["column_width", "fitted"]


def column_width(label: str, cells: Iterable[str]) -> int:
    """The width a text-table column takes: its longest cell or its label."""
    return max([len(label), *(len(text) for text in cells)])


def fitted(columns: Sequence[str], widths: dict[str, int], fixed: Sequence[int], width: int, drop_order: Sequence[str],
           keep: int = 0) -> list[str]:
    """The ``columns`` kept (in their order) for a table of at most ``width`` characters (see the module notes).

    ``widths``: each column's width (:func:`column_width`); ``fixed``: the widths of the columns always shown.
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
