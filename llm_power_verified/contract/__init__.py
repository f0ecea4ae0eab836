"""The output contract: every column, view, choice, verdict rule and schema id of the reports, declared once.

Standard library only (``import llm_power_verified.contract`` loads no NumPy,
pandas or SciPy), so that the CLI's ``--help`` pays nothing for it.  The JSON
schemas and ``docs/source/reference/columns.rst`` are generated from it by
``python -m llm_power_verified.report.schemas`` (``llm-power-verified
contract regenerate``).
"""

from __future__ import annotations

from llm_power_verified.contract.choices import (
    ACCURACY_MODES,
    ADJUSTMENTS,
    CORRECTIONS,
    FAMILIES,
    FORMATS,
    MACHINE_FORMATS,
    MAX_COUNT,
    MAX_RESAMPLES,
    MODES,
    PAIR_LISTS,
    SCHEMA_IDS,
    TEXT_FORMATS,
    VERDICT_KINDS,
    VERDICT_RULES,
)
from llm_power_verified.contract.columns import (
    AUDITS,
    COLUMN_SETS,
    KINDS,
    MODEL_COLUMNS,
    PAIR_COLUMNS,
    WHEN,
    Column,
    column,
    legend,
    model_columns,
    ordered,
    pair_columns,
)
from llm_power_verified.contract.documents import DATA, SETTINGS, Field
from llm_power_verified.contract.views import (
    ACCURACIES_VIEW,
    ASSUMED_VIEW,
    BINARY_VIEW,
    COLUMN_CHOICES,
    COMPOSITES,
    DROP_ORDER,
    GENERATIONS_VIEW,
    GRADED_VIEW,
    MIXED_PAIRS_VIEW,
    Composite,
    header,
)

__all__ = [
    "ACCURACIES_VIEW",
    "ACCURACY_MODES",
    "ADJUSTMENTS",
    "ASSUMED_VIEW",
    "AUDITS",
    "BINARY_VIEW",
    "COLUMN_CHOICES",
    "COLUMN_SETS",
    "COMPOSITES",
    "CORRECTIONS",
    "DATA",
    "DROP_ORDER",
    "FAMILIES",
    "FORMATS",
    "GENERATIONS_VIEW",
    "GRADED_VIEW",
    "KINDS",
    "MACHINE_FORMATS",
    "MAX_COUNT",
    "MAX_RESAMPLES",
    "MIXED_PAIRS_VIEW",
    "MODEL_COLUMNS",
    "MODES",
    "PAIR_COLUMNS",
    "PAIR_LISTS",
    "SCHEMA_IDS",
    "SETTINGS",
    "TEXT_FORMATS",
    "VERDICT_KINDS",
    "VERDICT_RULES",
    "WHEN",
    "Column",
    "Composite",
    "Field",
    "column",
    "header",
    "legend",
    "model_columns",
    "ordered",
    "pair_columns",
]
