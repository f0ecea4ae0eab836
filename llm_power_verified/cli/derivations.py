"""``llm-power-verified derivations``: Regenerate or check the code generated from derivations/."""

from __future__ import annotations

from llm_power_verified.cli.options import (
    repository_module,
)

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "derivations",
        help="regenerate or check the code generated from derivations/",
        description="Run the SymPy derivations (needs the repository's derivations/ package).",
    )
    parser.add_argument("action", choices=("regenerate", "check"), help="regenerate _generated/ or check that it is current")


def run(arguments) -> int:
    entry = repository_module("derivations.__main__")
    return entry.main(["--check"] if arguments.action == "check" else [])
