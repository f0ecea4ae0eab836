"""Thin calls kept while the CLI moves to :func:`~.dispatch.render` and :func:`~.dispatch.write` (issue 25, step 6)."""

from __future__ import annotations

from llm_power_verified.report.dispatch import render as _render
from llm_power_verified.report.headline import headline

__all__ = ["render", "streamed_summary"]


def render(result, output: str = "table", **view) -> str:
    """:func:`~.dispatch.render`."""
    return _render(result, output, **view)


def streamed_summary(result) -> list[str]:
    """:func:`~.headline.headline` of a streamed audit."""
    return headline(result)
