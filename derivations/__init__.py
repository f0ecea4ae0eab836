"""SymPy derivations of every closed form in llm_power_verified.

One module per concept; each exposes ``derive_*`` functions and ``FUNCTIONS``,
the records printed into ``llm_power_verified/_generated/`` by
``python -m derivations``.  Equation numbers refer to the paper
"Resolution Diagnostics for Paired LLM Evaluation" (arXiv 2605.30315).
"""

from __future__ import annotations

import importlib
from types import ModuleType

CONCEPT_MODULES = (
    "paired_variance",
    "admissible_correlation",
    "wald",
    "observed_table",
    "arcsine",
    "shortcut_series",
    "connor",
    "multiplicity",
    "design_effect",
    "paired_t",
    "unpaired",
    "e_process",
    "critical_correlation",
    "margin_score",
    "repeats",
)


def load_concepts() -> list[ModuleType]:
    """Import every concept module (this runs the derivations)."""
    return [importlib.import_module(f"derivations.{name}") for name in CONCEPT_MODULES]


def all_functions():
    """(module name, GeneratedFunction) for every generated function."""
    return [
        (concept.__name__.rsplit(".", 1)[-1], function) for concept in load_concepts() for function in concept.FUNCTIONS
    ]
