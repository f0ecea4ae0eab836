"""A saved audit report as the input of a plan: ``audit --format json`` (per-item) or ``audit --summary --format json``.

Only what the plan needs is read (the pair table's ranks, gaps, requirements or
accuracies and admissible interval, the sizes and the operating point), and each
of it is checked: a report of another schema, a pair without a needed key, or a
value of the wrong type is refused naming the file, the pair and the key.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from llm_power_verified.io.errors import InputError
from llm_power_verified.io.text import read_text
from llm_power_verified.plan.targets import AuditFigures

__all__ = ["read_audit_report"]

_PER_ITEM = "llm-power-verified/audit/2"
_SUMMARY = "llm-power-verified/audit-summary/1"
_NEEDED = {_PER_ITEM: ("model_a", "model_b", "rank_a", "rank_b", "delta", "p_a", "p_b", "rho", "required_n"),
           _SUMMARY: ("model_a", "model_b", "rank_a", "rank_b", "delta", "p_a", "p_b", "rho_min", "rho_max")}


def _number(value, where: str) -> float:
    if value in ("inf", "-inf"):
        return math.inf if value == "inf" else -math.inf
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: {value!r} is not a number")
    return float(value)


def _field(document: dict, path: tuple[str, ...], source: str):
    value = document
    for key in path:
        if not isinstance(value, dict) or key not in value:
            raise InputError(f"{source}: the report has no {'.'.join(path)}; is it an audit JSON report of this package?")
        value = value[key]
    return value


def read_audit_report(path: str | Path) -> AuditFigures:
    """The :class:`AuditFigures` of a saved JSON audit report (schema audit/2 or audit-summary/1)."""
    path = Path(path)
    source = str(path)
    try:
        document = json.loads(read_text(path))
    except json.JSONDecodeError as error:
        raise InputError(f"{source}: not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    schema = document.get("schema") if isinstance(document, dict) else None
    if schema not in _NEEDED:
        raise InputError(f"{source}: schema {schema!r} is not an audit report ({_PER_ITEM!r} or {_SUMMARY!r}); "
                         "write one with llm-power-verified audit --format json")
    pairs = _field(document, ("pairs",), source)
    if not isinstance(pairs, list):
        raise InputError(f"{source}: pairs must be a list")
    rows = []
    for index, record in enumerate(pairs):
        where = f"{source}, pairs[{index}]"
        if not isinstance(record, dict):
            raise InputError(f"{where}: not an object")
        missing = [key for key in _NEEDED[schema] if key not in record]
        if missing:
            raise InputError(f"{where}: no {missing[0]!r}; plans need the full pair table (audit --format json writes it)")
        row = {key: record[key] if key in ("model_a", "model_b") else _number(record[key], f"{where}.{key}") for key in _NEEDED[schema]}
        for key in ("design_effect", "icc"):
            if key in record:
                row[key] = _number(record[key], f"{where}.{key}")
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        raise InputError(f"{source}: the report has no pairs")
    frame[["rank_a", "rank_b"]] = frame[["rank_a", "rank_b"]].astype(int)
    settings = _field(document, ("settings",), source)
    summary = schema == _SUMMARY
    n_items = int(_field(document, ("data", "n_items"), source))
    clusters = None if summary else document.get("clusters")
    return AuditFigures(pairs=frame, n_models=int(_field(document, ("data", "n_models"), source)), n_items=n_items,
                        alpha=float(settings["alpha"]), power=float(settings["power"]), accuracies=summary,
                        mean_cluster_size=None if not clusters else float(clusters["mean_cluster_size"]),
                        n_clusters=None if not clusters else int(clusters["n_clusters"]), source=source,
                        binary=True if summary else bool(_field(document, ("data", "binary"), source)))
