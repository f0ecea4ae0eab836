"""The anytime-valid required N: time per block of pairs, and what the exact first crossing changed.

Run: python benchmarks/bench_anytime.py [--models 500] [--items 12032]

Pairs: every pair of a seeded synthetic leaderboard (``_data.leaderboard``),
their (b, c) from one Gram product.  "exact" is ``required_n_anytime`` of this
checkout (the first crossing, sequential/crossing.py); "previous" is the
fixed-point iteration of the release before (commit cd3ad48), run from a git
worktree in a subprocess on the same pairs.  Printed: seconds per 20,000-pair
block for both and their ratio; how many pairs the previous iteration left
unconverged after its 200 steps; how many of its values differ from the exact
first crossing, and the largest relative difference.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import leaderboard

PREVIOUS = "cd3ad48"
BLOCK = 20_000

RUN_PREVIOUS = """
import sys, time
import numpy as np
from llm_power_verified.sequential import required_n_anytime
data = np.load(sys.argv[1])
b, c, n = data["b"], data["c"], float(data["n"])
required_n_anytime(b[:10], c[:10], n)
start = time.perf_counter()
blocks = range(0, b.size, 20000)
out = np.concatenate([np.atleast_1d(required_n_anytime(b[i : i + 20000], c[i : i + 20000], n)) for i in blocks])
np.save(sys.argv[2], out)
print(time.perf_counter() - start)
"""


def pair_counts(path: Path) -> tuple[np.ndarray, np.ndarray, int]:
    from llm_power_verified.io import read_scores

    scores = read_scores([path]).scores.astype(np.float32)
    both = scores.T @ scores
    correct = np.diag(both)
    upper = np.triu_indices(scores.shape[1], 1)
    b = correct[upper[0]] - both[upper]
    c = correct[upper[1]] - both[upper]
    return np.rint(b), np.rint(c), scores.shape[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=500)
    parser.add_argument("--items", type=int, default=12032)
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "llm-power-bench")
    arguments = parser.parse_args()
    arguments.folder.mkdir(parents=True, exist_ok=True)
    b, c, n = pair_counts(leaderboard(arguments.folder, arguments.models, arguments.items, kind="parquet"))

    from llm_power_verified.sequential import required_n_anytime

    required_n_anytime(b[:10], c[:10], n)  # the threshold table and the envelope are built once per process
    start = time.perf_counter()
    exact = np.concatenate(
        [np.atleast_1d(required_n_anytime(b[i : i + BLOCK], c[i : i + BLOCK], n)) for i in range(0, b.size, BLOCK)]
    )
    exact_time = time.perf_counter() - start
    blocks = max(1, b.size / BLOCK)

    repository = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as scratch:
        worktree = Path(scratch) / "previous"
        subprocess.run(
            ["git", "-C", str(repository), "worktree", "add", "--detach", str(worktree), PREVIOUS],
            check=True,
            capture_output=True,
        )
        try:
            np.savez(Path(scratch) / "pairs.npz", b=b, c=c, n=n)
            result = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    RUN_PREVIOUS,
                    str(Path(scratch) / "pairs.npz"),
                    str(Path(scratch) / "previous.npy"),
                ],
                capture_output=True,
                text=True,
                check=True,
                cwd=scratch,
                env={"PYTHONPATH": str(worktree), "PATH": "/usr/bin:/bin"},
            )
            previous_time = float(result.stdout.strip())
            previous = np.load(Path(scratch) / "previous.npy")
        finally:
            subprocess.run(
                ["git", "-C", str(repository), "worktree", "remove", "--force", str(worktree)],
                check=True,
                capture_output=True,
            )

    finite = np.isfinite(exact) & np.isfinite(previous)
    differ = finite & (previous != exact)
    relative = np.abs(previous[finite] - exact[finite]) / exact[finite]
    print(f"{b.size:,} pairs of {arguments.models} models x {n:,} items")
    print(f"exact first crossing: {exact_time / blocks:.3f} s per {BLOCK:,}-pair block")
    print(
        f"previous fixed point: {previous_time / blocks:.3f} s per block; ratio exact / previous = "
        f"{exact_time / previous_time:.2f}"
    )
    print(
        f"values that differ: {int(differ.sum()):,} of {int(finite.sum()):,} finite; largest relative difference "
        f"{relative.max():.3g}, "
        f"median {np.median(relative[relative > 0]) if (relative > 0).any() else 0:.3g}"
    )
    print(
        "previous below the exact first crossing (an N that does not reach the power): "
        f"{int(np.sum(previous[finite] < exact[finite])):,}"
    )
    print(f"infinite: exact {int(np.sum(~np.isfinite(exact))):,}, previous {int(np.sum(~np.isfinite(previous))):,}")


if __name__ == "__main__":
    main()
