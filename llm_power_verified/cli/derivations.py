"""``llm-power-verified derivations``: Regenerate or check the code generated from derivations/."""

from __future__ import annotations

from llm_power_verified.cli.options import (
    CommandError,
)

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "derivations",
        help="regenerate or check the code generated from derivations/",
        description="Run the SymPy derivations (needs the repository's derivations/ package).",
    )
    parser.add_argument("action", choices=("regenerate", "check"))


def run(arguments) -> int:
    try:
        import derivations  # noqa: F401  (needs SymPy and the repository checkout)
        from derivations.__main__ import main as derivations_main
    except ImportError as error:
        raise CommandError(f"the derivations package is not importable here ({error})") from None
    return derivations_main(["--check"] if arguments.action == "check" else [])
