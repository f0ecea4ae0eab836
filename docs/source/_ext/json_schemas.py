"""A Sphinx directive that shows the report's JSON schemas: ``.. json-schemas::``.

Every ``*.schema.json`` of the package's ``report/`` folder (found by pattern, so a renamed or added schema
appears without editing this file), one section each titled by the schema's ``$id``, the file shown whole as a
literal block.  The files are read from the installed package, so the build does not depend on where the
documentation's source sits; each is recorded as a dependency, so a changed schema rebuilds the page.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_reference import parsed_sections
from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def schema_files() -> list[Path]:
    """The generated JSON schemas shipped with the package, by file name."""
    import llm_power_verified.report

    return sorted(Path(llm_power_verified.report.__file__).parent.glob("*.schema.json"))


class JsonSchemas(SphinxDirective):
    """One section per schema: its ``$id``, its file name and the file."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        """The sections, parsed in place of the directive."""
        lines: list[str] = []
        for path in schema_files():
            text = path.read_text(encoding="utf-8")
            self.env.note_dependency(str(path))
            title = json.loads(text).get("$id", path.name)
            lines += [
                title,
                "-" * len(title),
                "",
                f"``llm_power_verified/report/{path.name}``",
                "",
                ".. code-block:: json",
                "",
            ]
            lines += [f"   {line}".rstrip() for line in text.splitlines()]
            lines.append("")
        return parsed_sections(self, lines, "json-schemas")


def setup(app):
    """Register the ``json-schemas`` directive (Sphinx's extension entry point)."""
    app.add_directive("json-schemas", JsonSchemas)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
