"""Ingestion and output: every input becomes one validated score matrix, every output goes through one writer.

Readers (one module each): wide/long tables (:mod:`.tables`, files by :mod:`.table_files`; several generations
per item by :mod:`.repeated_tables`), two plain score
files (:mod:`.plain`), lm-evaluation-harness folders (:mod:`.lm_eval`), Inspect logs (:mod:`.inspect_logs`);
:func:`~llm_power_verified.io.detect.read_scores` (:mod:`.detect`) picks one.  All of them end in
:func:`~llm_power_verified.io.matrix.build_matrix`, which applies the rules (finite scores in range, no silent
switch of score kind, unique names, cluster labels) and returns a :class:`~llm_power_verified.io.matrix.ScoreMatrix`
or raises :class:`~llm_power_verified.io.errors.InputError` naming the file, line or cell, the value and what is
allowed.  :mod:`.output` writes every file the tool produces (:mod:`.output_paths` checks the paths first), and
:mod:`.escaping` makes every name safe to show.

The names below are loaded on first use (PEP 562), so that importing one light module of this
package (the writer, the errors) does not import pandas.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "AlignmentError": "errors",
    "InputError": "errors",
    "OutputError": "errors",
    "SCORE_KINDS": "matrix",
    "ScoreMatrix": "matrix",
    "build_matrix": "matrix",
    "check_outputs": "output_paths",
    "from_array": "matrix",
    "from_long": "tables",
    "from_long_repeated": "repeated_tables",
    "from_wide": "tables",
    "from_wide_repeated": "repeated_tables",
    "input_kind": "input_kinds",
    "json_ready": "output",
    "json_text": "output",
    "open_output": "output",
    "read_inspect": "inspect_logs",
    "read_lm_eval": "lm_eval",
    "read_score_file": "plain",
    "read_score_files": "plain",
    "read_scores": "detect",
    "read_table": "table_files",
    "write_bytes": "output",
    "write_chunks": "output",
    "write_table": "table_writer",
    "write_text": "output",
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
