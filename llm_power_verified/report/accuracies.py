"""A thin call kept while the CLI moves to :func:`~.dispatch.render` (issue 25, step 6)."""

from __future__ import annotations

from llm_power_verified.report.dispatch import render

__all__ = ["render_accuracies"]


def render_accuracies(audit, output: str = "table", *, pairs: str = "top", width: int = 100) -> str:
    """:func:`~.dispatch.render`."""
    return render(audit, output, pairs=pairs, width=width)
