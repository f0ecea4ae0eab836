"""``llm-power-verified contract``: Regenerate or check the files generated from the contract.

The files are the JSON schemas and the column reference.
"""

from __future__ import annotations

from llm_power_verified._docstrings import docfill

__all__ = ["add_parser", "run"]


@docfill("commands")
def add_parser(commands) -> None:
    """Add the ``contract`` command (its options and help) to ``commands``."""
    parser = commands.add_parser(
        "contract",
        help="regenerate or check the JSON schemas and columns.rst generated from the output contract",
        description="The JSON schemas the package ships (and, in a repository checkout, "
        "docs/source/reference/columns.rst) are "
        "generated from llm_power_verified/contract; check exits 1 with a diff when a file is stale.",
    )
    parser.add_argument(
        "action", choices=("regenerate", "check"), help="regenerate the files or check that they are current"
    )


@docfill("arguments", returns="cli_status")
def run(arguments) -> int:
    """Run ``llm-power-verified contract`` on the parsed command line."""
    from llm_power_verified.report.schemas import main  # the report layer loads pandas: only when the command runs

    return main(["--check"] if arguments.action == "check" else [])
