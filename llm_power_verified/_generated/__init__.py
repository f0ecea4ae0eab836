"""Closed forms generated from the SymPy derivations in derivations/.

GENERATED FILE: DO NOT EDIT.
Regenerate with `python -m derivations`; `python -m derivations --check` verifies it.
SymPy version: 1.14.0
"""

MODULES = ("paired_variance", "admissible_correlation", "wald", "observed_table", "arcsine", "shortcut_series", "connor", "multiplicity", "design_effect", "paired_t", "unpaired", "e_process", "critical_correlation", "margin_score", "repeats",)
