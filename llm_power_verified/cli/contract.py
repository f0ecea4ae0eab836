"""``llm-power-verified contract``: Regenerate or check the JSON schemas and the column reference generated from the contract."""

from __future__ import annotations

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    """Add the ``contract`` command (its options and help) to ``commands``.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The subcommands of the main parser (``build_parser``).
    """
    parser = commands.add_parser(
        "contract",
        help="regenerate or check the JSON schemas and columns.rst generated from the output contract",
        description="The JSON schemas the package ships (and, in a repository checkout, docs/source/reference/columns.rst) are "
                    "generated from llm_power_verified/contract; check exits 1 with a diff when a file is stale.",
    )
    parser.add_argument("action", choices=("regenerate", "check"), help="regenerate the files or check that they are current")


def run(arguments) -> int:
    """Run ``llm-power-verified contract`` on the parsed command line.

    Parameters
    ----------
    arguments : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status: 0, or 1 when ``check`` finds a stale file.
    """
    from llm_power_verified.report.schemas import main  # the report layer loads pandas: only when the command runs

    return main(["--check"] if arguments.action == "check" else [])
