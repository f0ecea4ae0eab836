"""Rendering an audit: terminal table, Markdown, HTML, JSON, JSON Lines, CSV, Parquet and plots.

:func:`~llm_power_verified.report.dispatch.render` (the report as text) and
:func:`~llm_power_verified.report.dispatch.write` (to a file or standard
output, streaming Parquet) are the one place that chooses a format
(:mod:`.dispatch`); :func:`~llm_power_verified.report.report_data.document` is the JSON report without its pairs.
The names below are loaded on first use (PEP 562): the CLI's option tables
import :mod:`.table` only, so ``llm-power-verified --help`` does not import the
audit, pandas and scipy behind the renderers.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "document": "report_data",
    "plot_resolution": "plots",
    "read_audit_metadata": "machine",
    "render": "dispatch",
    "write": "dispatch",
    "write_figures": "plots",
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
