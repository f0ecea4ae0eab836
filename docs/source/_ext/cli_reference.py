"""A Sphinx directive that prints the command line's help: ``.. cli-reference::``.

For :func:`llm_power_verified.cli.main.build_parser` and every subparser under it (found through argparse's
``_SubParsersAction``, so a new command appears without editing this file), a section whose title is the
command and whose body is ``parser.format_help()`` as a literal block: exactly what ``--help`` prints.
No help text is parsed as reStructuredText, so nothing in it can raise a docutils warning.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

#: The width the help is wrapped to (argparse reads COLUMNS): the same page on every machine.
HELP_WIDTH = 100


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...], seen: set[int] | None = None
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """``parser`` and every parser below it, depth first; an alias (a second name of the same parser) once."""
    seen = set() if seen is None else seen
    seen.add(id(parser))
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, subparser in action.choices.items():
                if id(subparser) not in seen:
                    yield from commands(subparser, (*path, name), seen)


def help_text(parser: argparse.ArgumentParser) -> str:
    """``parser``'s ``--help`` at the reference's width, whatever the terminal's."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(HELP_WIDTH)
    try:
        return parser.format_help()
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def parsed_sections(directive: SphinxDirective, lines: list[str], source: str) -> list[nodes.Node]:
    """``lines`` of reStructuredText with section titles, parsed in place of ``directive``."""
    container = nodes.section()
    nested_parse_with_titles(directive.state, StringList(lines, source=source), container)
    return container.children


class CliReference(SphinxDirective):
    """Every command's ``--help``, one section each, in the parser's order."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        """The sections, parsed in place of the directive."""
        from llm_power_verified.cli.main import build_parser

        root = build_parser()
        lines = []
        for path, parser in commands(root, (root.prog,)):
            title = " ".join(path)
            lines += [title, "-" * len(title), "", ".. code-block:: text", ""]
            lines += [f"   {line}".rstrip() for line in help_text(parser).splitlines()]
            lines.append("")
        return parsed_sections(self, lines, "cli-reference")


def setup(app):
    """Register the ``cli-reference`` directive (Sphinx's extension entry point)."""
    app.add_directive("cli-reference", CliReference)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
