"""Sphinx configuration of the llm-power-verified documentation.

Build (as ``.ci/run`` does, warnings are errors)::

    python -m pip install -e '.[docs]'
    python -m sphinx -W --keep-going -n -b html docs/source docs/_build/html

The API reference is generated from the numpydoc docstrings (autosummary writes one page per public name
into ``reference/api/generated/``, which is not committed).  The doctests in those docstrings run under pytest
(``--doctest-modules``), not here: one runner.
"""

from __future__ import annotations

import inspect
import re
import sys
from importlib.metadata import version as _version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

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
# Rooms whose docstrings are not done yet stay out of the check until they are (one room at a time, each
# removed from this list when its public functions have Parameters and Returns); private names and the
# generated code are never checked.
#: Modules whose docstrings are not done yet (numpydoc sections, reStructuredText that parses): their docstrings are
#: shown verbatim, as plain text, and not validated.  A room leaves this list when its docstrings are done, and from
#: then on the build checks them (numpydoc_validation_checks, -n cross-references, docutils).
NOT_DONE = (r"llm_power_verified\.cli\.options",)  # over 390 lines: its docstrings wait for a split
_NOT_DONE = re.compile(r"^(?:" + "|".join(NOT_DONE) + r")(?:\.|$)")
numpydoc_validation_exclude = {
    r"\._",  # private modules and names, including _generated
    *(rf"^{pattern}(?:\.|$)" for pattern in NOT_DONE),
}
# A result (a frozen dataclass) documents its fields under Attributes, not as constructor Parameters.
numpydoc_validation_overrides = {"PR01": [r"\n\s*Attributes\n\s*----------\n"]}

_ESCAPE = str.maketrans({character: "\\" + character for character in "\\*`|_[]:<>"})


def _verbatim_until_done(app, what, name, obj, options, lines):
    """A docstring of a room not done yet: its first line escaped (the summary), the rest as a literal block."""
    if not _NOT_DONE.match(name):
        return
    text = inspect.getdoc(obj) if what != "module" else (obj.__doc__ or "")
    text = inspect.cleandoc(text or "")
    if not text:
        lines[:] = []
        return
    first, *rest = text.splitlines()
    lines[:] = [first.translate(_ESCAPE), ""]
    if any(line.strip() for line in rest):
        lines += ["::", "", *(f"    {line}" for line in rest), ""]


def setup(app):
    app.connect("autodoc-process-docstring", _verbatim_until_done, priority=900)


# Cross-references that are not Python objects of this project stay plain text (-n would flag them).
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|pandas|pd|scipy|pyarrow|dask|collections|typing|pathlib|os|io)\..*"),
    (r"py:class", r"(optional|array_like|array-like|ndarray|float|int|str|bool|callable|default.*|None)"),
]
