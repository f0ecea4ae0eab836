"""``llm-power-verified derivations``: Regenerate or check the code generated from derivations/."""

from __future__ import annotations

from llm_power_verified.cli.options import (
    repository_module,
)

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    """Add the ``derivations`` command (its options and help) to ``commands``.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The subcommands of the main parser (``build_parser``).
    """
    parser = commands.add_parser(
        "derivations",
        help="regenerate or check the code generated from derivations/",
        description="Run the SymPy derivations (needs the repository's derivations/ package).",
    )
    parser.add_argument("action", choices=("regenerate", "check"), help="regenerate _generated/ or check that it is current")


def run(arguments) -> int:
    """Run ``llm-power-verified derivations`` on the parsed command line.

    Parameters
    ----------
    arguments : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status: 0, or 1 when ``check`` finds a stale file.
    """
    entry = repository_module("derivations.__main__")
    return entry.main(["--check"] if arguments.action == "check" else [])
