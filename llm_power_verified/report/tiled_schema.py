"""The JSON schema of a tiled audit's ``_report.json``, from the audit report's schema (so from the contract).

The summary shares its parts with ``audit --format json``: the pair rows (``adjacent``) and their column names
(``pairs_columns``), the model rows (``ranking``, with the neighbourhood's two ranks), ``multiplicity`` and
``verdicts`` are those of ``audit.schema.json``; what is the tiled audit's own is declared here.
:func:`tiled_schema` takes the audit schema (:func:`~llm_power_verified.report.schemas.audit_schema`) rather than
importing it, so that ``report/schemas.py`` generates and checks ``report/tiled_audit.schema.json`` with the others
(``llm-power-verified contract regenerate|check``).
"""

from __future__ import annotations

import copy
from pathlib import Path

from llm_power_verified.leaderboard.tile_document import TILED_SCHEMA_ID
from llm_power_verified.report.json_types import FLOAT, STRINGS

__all__ = ["TILED_SCHEMA_FILE", "tiled_schema"]

#: The schema file (package data, beside the audit's).
TILED_SCHEMA_FILE = Path(__file__).resolve().parent / "tiled_audit.schema.json"

_COUNT = {"type": "integer", "minimum": 0}
_SETTINGS = ("alpha", "power", "n_resamples", "seed", "correction", "min_effect")


def _ranking(audit: dict) -> dict:
    """The model rows: the audit's, without letters (not formed), with the neighbourhood's ranks."""
    items = copy.deepcopy(audit["ranking"]["items"])
    del items["properties"]["letters"]
    items["required"] = [name for name in items["required"] if name != "letters"] + ["tied_first", "tied_last"]
    for name, end in (("tied_first", "highest"), ("tied_last", "lowest")):
        items["properties"][name] = {
            "type": "integer",
            "minimum": 1,
            "description": f"the {end} rank of the models not significantly different from this one under Holm over "
            "all pairs (its own rank when none)",
        }
    return {"type": "array", "minItems": 2, "items": items}


def tiled_schema(audit: dict) -> dict:
    """The JSON Schema (draft 2020-12) of ``_report.json``.

    Parameters
    ----------
    audit : dict
        The per-item audit's schema (:func:`~llm_power_verified.report.schemas.audit_schema` of "binary+graded").

    Returns
    -------
    dict
        The schema.
    """
    parts = audit["properties"]
    settings = copy.deepcopy(parts["settings"])
    settings["properties"] = {name: settings["properties"][name] for name in _SETTINGS}
    settings["required"] = list(_SETTINGS)
    by_gap = copy.deepcopy(parts["resolution_by_gap"])
    del by_gap["items"]["properties"]["r_median"]  # a median over every pair is not summed from the bands
    by_gap["items"]["required"].remove("r_median")
    files = {"type": "array", "items": {"type": "string", "pattern": r"^band-[0-9]{5}\.parquet$"}}
    properties = {
        "schema": {"const": TILED_SCHEMA_ID},
        "kind": {"const": "tiled-audit"},
        "mode": {"const": "all"},
        "headline": {**STRINGS, "minItems": 3, "description": "the in-memory audit's headline of the same facts"},
        "models": {"type": "integer", "minimum": 2},
        "items": {"type": "integer", "minimum": 1},
        "pairs": {**_COUNT, "description": "rows in the band files, K (K - 1) / 2"},
        "bands": {**_COUNT, "description": "band files"},
        "files": {**files, "description": "the band files, in pair-table order"},
        "pairs_columns": {**parts["pairs_columns"], "description": "the pair columns every band file holds"},
        "settings": settings,
        "multiplicity": parts["multiplicity"],
        "holm_rejections": {**_COUNT, "description": "pairs significant under Holm over all pairs"},
        "resolved_pairs": {**_COUNT, "description": "pairs with q >= 1"},
        "median_rho": {**FLOAT, "description": "the median observed rho of every pair (0 when none is defined)"},
        "smallest_resolvable_gap": {**FLOAT, "description": "the minimum detectable gap at N, at median_rho"},
        "verdicts": parts["verdicts"],
        "by_gap": by_gap,
        "adjacent": {**parts["pairs"], "description": "the adjacent pairs' rows, every column"},
        "ranking": _ranking(parts),
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://{TILED_SCHEMA_ID}",
        "$comment": audit["$comment"],
        "title": "llm-power-verified tiled audit summary",
        "description": "The summary `audit --tiles` writes as _report.json beside the band files (the pair table). "
        'Infinities are the strings "inf"/"-inf"; undefined values are null. Every key is declared.',
        "type": "object",
        "required": list(properties),
        "properties": properties,
        "additionalProperties": False,
    }
