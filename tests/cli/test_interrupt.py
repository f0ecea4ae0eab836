"""Ctrl-C (SIGINT) during a command: one line on stderr, exit status 130, no traceback, no partial output file.

Deterministic: the child sends itself SIGINT from inside the run (a patched step calls ``signal.raise_signal``),
so the signal always arrives at the same point; nothing depends on a timer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")

#: The child: patch one step of the audit to send SIGINT to itself, then run the CLI as ``python -m`` would.
CHILD = textwrap.dedent("""
    import signal, sys
    import llm_power_verified.leaderboard.audit as audit_module
    import llm_power_verified.report.machine as machine
    where = sys.argv[1]
    if where == "compute":
        original = audit_module.audit_leaderboard
        def patched(*args, **kwargs):
            signal.raise_signal(signal.SIGINT)
            return original(*args, **kwargs)
        audit_module.audit_leaderboard = patched
    elif where == "write":
        original = machine.chunks
        def patched(*args, **kwargs):
            chunks = original(*args, **kwargs)
            yield next(chunks)
            signal.raise_signal(signal.SIGINT)
            yield from chunks
        machine.chunks = patched
    from llm_power_verified.cli.main import main
    sys.exit(main(sys.argv[2:]))
""")


def _table(folder: Path) -> Path:
    scores = (np.random.default_rng(24).random((200, 3)) < 0.6).astype(int)
    path = folder / "scores.csv"
    path.write_text("id,a,b,c\n" + "".join(f"q{i},{row[0]},{row[1]},{row[2]}\n" for i, row in enumerate(scores)))
    return path


def _run(where: str, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CHILD, where, *arguments], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("where", ["compute", "write"])
def test_sigint_ends_with_one_line_status_130_and_no_output_file(tmp_path, where):
    table = _table(tmp_path)
    out = tmp_path / "report.json"
    finished = _run(
        where,
        "audit",
        str(table),
        "--item-column",
        "id",
        "--n-resamples",
        "200",
        "--quiet",
        "--format",
        "json",
        "--out",
        str(out),
    )
    assert finished.returncode == 128 + signal.SIGINT, finished.stderr
    assert finished.stderr.splitlines() == ["llm-power-verified: interrupted"], finished.stderr
    assert finished.stdout == ""
    assert sorted(path.name for path in tmp_path.iterdir()) == ["scores.csv"]  # no report, no temporary file left


def test_sigint_while_writing_to_standard_output_ends_the_same_way(tmp_path):
    table = _table(tmp_path)
    finished = _run(
        "write", "audit", str(table), "--item-column", "id", "--n-resamples", "200", "--quiet", "--format", "json"
    )
    assert finished.returncode == 130, finished.stderr
    assert finished.stderr.splitlines() == ["llm-power-verified: interrupted"], finished.stderr
    assert "Traceback" not in finished.stderr


def test_the_patched_child_runs_to_the_end_without_the_signal(tmp_path):
    """The control: the same child with no step patched writes the report (so the tests above test the signal)."""
    table = _table(tmp_path)
    out = tmp_path / "report.json"
    finished = _run(
        "none",
        "audit",
        str(table),
        "--item-column",
        "id",
        "--n-resamples",
        "200",
        "--quiet",
        "--format",
        "json",
        "--out",
        str(out),
    )
    assert finished.returncode == 0, finished.stderr
    assert out.stat().st_size > 0
