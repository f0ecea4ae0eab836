"""Leaderboard audits from the command line: wall time, peak memory, ratios to the previous release and to the floor.

Run: python benchmarks/bench_audit.py [--folder DIR]

Workloads (issue 15's table), each one fresh ``llm-power-verified audit`` process:

1. 50 models x 12,000 items, all 1,225 pairs, full report (B = 500), JSON to a file;
2. 500 models x 12,032 items, all 124,750 pairs, B = 0, JSON to a file;
3. the same with B = 500;
4. the same as 2 to Parquet.

"previous" is the same command run by the release before issue 15 (commit
e2a7b9b, checked out into a temporary git worktree, or ``--previous DIR``),
on the same machine in the same session: figures from another day of this
shared machine are not comparable (the issue's 1.18 s for the first workload
measured 4.1-5.2 s here on the day of the note).  "floor" is what no audit can
avoid: the interpreter with the imports the command needs (numpy, pandas,
scipy.special) plus reading the input, measured here, with the compute floor
(one Gram product and a vectorised binomial CDF over the pairs) printed
beside it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import leaderboard
from _measure import measure

PREVIOUS_RELEASE = "e2a7b9b"
TARGETS = {
    "50 x 12,000, B = 500, JSON": (0.8, None),
    "500 x 12,032, B = 0, JSON": (5.0, 1024),
    "500 x 12,032, B = 500, JSON": (15.0, 1024),
    "500 x 12,032, B = 0, Parquet": (None, None),
}

READ_FLOOR = """
import sys, time
start = time.perf_counter()
import numpy, pandas, scipy.special
from llm_power_verified.io import read_scores
matrix = read_scores([sys.argv[1]])
print(time.perf_counter() - start)
"""


def compute_floor(path: Path) -> float:
    """One float32 Gram product and scipy's vectorised binomial CDF over every pair.

    The arithmetic an audit cannot skip.
    """
    from scipy.stats import binom

    from llm_power_verified.io import read_scores

    scores = read_scores([path]).scores.astype(np.float32)
    start = time.perf_counter()
    gram = (scores.T @ scores).astype(np.int64)
    correct = np.diag(gram)
    upper = np.triu_indices(gram.shape[0], k=1)
    b = correct[upper[0]] - gram[upper]
    c = correct[upper[1]] - gram[upper]
    binom.cdf(np.minimum(b, c), b + c, 0.5)
    return time.perf_counter() - start


def _worktree(folder: Path) -> Path | None:
    """A detached worktree of the previous release in ``folder`` (None, with a note, outside a git clone)."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        ["git", "-C", str(root), "worktree", "add", "--detach", "-f", str(folder), PREVIOUS_RELEASE],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        print(f"(previous release not run: {done.stderr.strip()})")
        return None
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, help="where the generated inputs are kept (default: a temporary folder)")
    parser.add_argument(
        "--previous", type=Path, help=f"a checkout of the previous release (default: a worktree of {PREVIOUS_RELEASE})"
    )
    parser.add_argument("--skip-previous", action="store_true", help="do not run the previous release")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = arguments.folder or Path(scratch)
        made = None if arguments.skip_previous or arguments.previous else _worktree(Path(scratch) / "previous")
        previous_tree = None if arguments.skip_previous else (arguments.previous or made)
        try:
            _run(folder, Path(scratch), previous_tree)
        finally:
            if made is not None:
                subprocess.run(
                    ["git", "-C", str(Path(__file__).resolve().parents[1]), "worktree", "remove", "--force", str(made)],
                    capture_output=True,
                )


def _run(folder: Path, scratch: Path, previous_tree: Path | None) -> None:
    small = leaderboard(folder, 50, 12_000)
    large = leaderboard(folder, 500, 12_032)
    cases = [
        ("50 x 12,000, B = 500, JSON", small, ["--format", "json"]),
        ("500 x 12,032, B = 0, JSON", large, ["--format", "json", "--n-resamples", "0"]),
        ("500 x 12,032, B = 500, JSON", large, ["--format", "json"]),
        ("500 x 12,032, B = 0, Parquet", large, ["--format", "parquet", "--n-resamples", "0"]),
    ]
    for label, path, options in cases:
        out = scratch / ("out.parquet" if "parquet" in options else "out.json")
        seconds, peak, _ = measure(
            ["llm-power-verified", "audit", str(path), "--mode", "all", "--quiet", "--out", str(out), *options]
        )
        size = out.stat().st_size
        floor = float(
            subprocess.run(
                [sys.executable, "-c", READ_FLOOR, str(path)], capture_output=True, text=True, check=True
            ).stdout
        )
        previous = previous_mb = None
        if previous_tree is not None and "parquet" not in options:
            # Run from the scratch folder: `python -m` puts the working directory first on the path.
            env = {**os.environ, "PYTHONPATH": str(previous_tree)}
            previous, previous_mb, _ = measure(
                [
                    sys.executable,
                    "-m",
                    "llm_power_verified.cli",
                    "audit",
                    str(path),
                    "--mode",
                    "all",
                    "--quiet",
                    "--out",
                    str(scratch / "previous.out"),
                    *options,
                ],
                env=env,
                cwd=scratch,
            )
        target, target_mb = TARGETS[label]
        line = f"{label}: {seconds:.2f} s, peak {peak:.0f} MB (output {size / 1e6:.0f} MB)"
        line += f"; previous {previous:.2f} s -> {previous / seconds:.1f}x faster" if previous else ""
        line += f"; previous {previous_mb:.0f} MB -> {previous_mb / peak:.1f}x less" if previous_mb else ""
        line += f"; floor (start-up, imports, reading) {floor:.2f} s = {seconds / floor:.1f}x of the run"
        line += f"; compute floor {compute_floor(path) * 1e3:.0f} ms"
        line += f"; target {target} s" + (f", {target_mb} MB" if target_mb else "") if target else ""
        print(line, flush=True)


if __name__ == "__main__":
    main()
