"""``llm-power-verified derivations``: Regenerate or check the code generated from derivations/."""

from __future__ import annotations

from llm_power_verified._docstrings import docfill
from llm_power_verified.cli.repository import repository_module

__all__ = ["add_parser", "run"]


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``derivations`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "derivations",
        help="regenerate or check the code generated from derivations/",
        description="Run the SymPy derivations (needs the repository's derivations/ package).",
    )
    parser.add_argument(
        "action", choices=("regenerate", "check"), help="regenerate _generated/ or check that it is current"
    )


@docfill("arguments", returns="cli_status")
def run(arguments) -> int:
    """Run ``llm-power-verified derivations`` on the parsed command line."""
    entry = repository_module("derivations.__main__")
    return entry.main(["--check"] if arguments.action == "check" else [])
