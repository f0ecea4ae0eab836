"""Rendering an audit: terminal table, Markdown, JSON, CSV and plots."""

from llm_power_verified.report.render import (
    PAIR_COLUMNS,
    checklist,
    plot_resolution,
    render,
    save_figure,
    to_json_document,
)

__all__ = [
    "PAIR_COLUMNS",
    "checklist",
    "plot_resolution",
    "render",
    "save_figure",
    "to_json_document",
]
