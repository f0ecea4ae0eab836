"""The documentation builds with no warning: Sphinx with -W and -n, and no docutils message in its log.

Runs when Sphinx and numpydoc are installed (the ``docs`` extra); ``.ci/run`` builds the same way.  The source is
copied to a temporary folder first, so the pages autosummary generates are not written into the checkout.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")

SOURCE = Path(__file__).resolve().parents[2] / "docs" / "source"


@pytest.mark.slow
def test_the_documentation_builds_without_a_warning(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(SOURCE, source, ignore=shutil.ignore_patterns("generated", "__pycache__"))
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-n",
            "-q",
            "-b",
            "html",
            str(source),
            str(tmp_path / "html"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    problems = [line for line in build.stderr.splitlines() if "WARNING" in line or "ERROR" in line]
    assert build.returncode == 0 and not problems, build.stderr[-5000:]
    assert (tmp_path / "html" / "reference" / "cli.html").is_file()


def test_the_cli_reference_covers_every_command():
    """Every parser under build_parser() is found, plan's subcommands included, and shown as --help prints it."""
    sys.path.insert(0, str(SOURCE / "_ext"))
    try:
        import cli_reference
    finally:
        sys.path.remove(str(SOURCE / "_ext"))
    from llm_power_verified.cli.main import COMMANDS, build_parser

    found = {" ".join(path[1:]): parser for path, parser in cli_reference.commands(build_parser(), ("prog",))}
    assert set(COMMANDS) <= set(found)
    assert {"plan gap", "plan items", "plan accuracies", "plan report"} <= set(found)
    assert "usage: llm-power-verified audit" in cli_reference.help_text(found["audit"])
