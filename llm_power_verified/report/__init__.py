"""Rendering an audit: terminal table, Markdown, HTML, JSON, JSON Lines, CSV, Parquet and plots.

The names below are loaded on first use (PEP 562): the CLI's option tables
import :mod:`.table` only, so ``llm-power-verified --help`` does not import the
audit, pandas and scipy behind :mod:`.rendering`."""

from __future__ import annotations

import importlib

_EXPORTS = {
    "PAIR_COLUMNS": "rendering",
    "checklist": "rendering",
    "grid": "table",
    "headline": "model",
    "plot_resolution": "plots",
    "read_audit_metadata": "machine",
    "render": "rendering",
    "render_html": "html",
    "write_figures": "plots",
    "save_figure": "plots",
    "to_json_document": "rendering",
    "write_audit_parquet": "machine",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
