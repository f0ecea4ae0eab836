"""Sphinx configuration of the llm-power-verified documentation.

Build (as ``.ci/run`` does, warnings are errors)::

    python -m pip install -e '.[docs]'
    python -m sphinx -W --keep-going -n -b html docs/source docs/_build/html

The API reference is generated from the numpydoc docstrings (autosummary writes one page per public name
into ``reference/api/generated/``, which is not committed).  The doctests in those docstrings run under pytest
(``--doctest-modules``), not here: one runner.
"""

from __future__ import annotations

import shutil
import sys
from importlib.metadata import version as _version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

# autosummary rewrites the pages of the names that exist but never deletes the page of a module that was renamed
# or removed, and a stale page fails the -W build in a working copy that built the docs before the rename (a
# fresh clone has none).  The folder is build output (git-ignored): start each build without it.
shutil.rmtree(Path(__file__).parent / "reference" / "api" / "generated", ignore_errors=True)

project = "llm-power-verified"
author = "llm-power-verified contributors"
copyright = "the llm-power-verified contributors"
release = _version("llm-power-verified")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "cli_reference",
    "json_schemas",
]

templates_path = ["_templates"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path: list[str] = []

# autosummary: one page per public name; a module's public names are its __all__.
autosummary_generate = True
autosummary_ignore_module_all = False
autosummary_imported_members = False
autodoc_typehints = "none"  # numpydoc's Parameters section states the types
autodoc_member_order = "bysource"
add_module_names = False

# numpydoc: the sections of the docstrings, checked.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = {"PR01", "PR02", "PR07", "RT01", "GL08"}
# Private modules and names, and the generated code, are never checked; every public docstring is.
numpydoc_validation_exclude = {r"\._"}
# A result (a frozen dataclass) documents its fields under Attributes, not as constructor Parameters.
numpydoc_validation_overrides = {"PR01": [r"\n\s*Attributes\n\s*----------\n"]}
