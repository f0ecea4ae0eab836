"""``python -m derivations [--check] [--output DIR]``: regenerate or verify generated code."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from derivations import load_concepts
from derivations._codegen import GENERATED_DIR, check_all, write_all


def main(argv: list[str] | None = None) -> int:
    """Regenerate (or with --check, compare) the generated modules; the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m derivations",
        description="Regenerate llm_power_verified/_generated/ from the SymPy derivations.",
    )
    parser.add_argument(
        "--check", action="store_true", help="do not write; exit 1 and print a diff if the committed files are stale"
    )
    parser.add_argument(
        "--output", type=Path, default=GENERATED_DIR, help="directory of the generated modules (default: %(default)s)"
    )
    arguments = parser.parse_args(argv)
    concepts = load_concepts()
    if arguments.check:
        diff = check_all(concepts, arguments.output)
        if diff:
            sys.stdout.write(diff)
            print(f"generated code in {arguments.output} is stale; run `python -m derivations`", file=sys.stderr)
            return 1
        print(f"generated code in {arguments.output} is up to date")
        return 0
    written = write_all(concepts, arguments.output)
    for path in written:
        print(f"wrote {path}")
    if not written:
        print(f"generated code in {arguments.output} was already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
