"""Issue 29's table: every column of the audit at scale, each workload as a ratio to its floor, with peak memory.

Run: python benchmarks/bench_columns.py [--folder DIR] [--repeats 3] [--only NAME ...]

Each workload is one fresh ``llm-power-verified audit`` process, run alternately with its floor
(``benchmarks/floor.py``: a process that reads the same file, forms the pair statistics by one matrix product and
computes exact McNemar or paired-t p-values), A B A B, ``--repeats`` times.  Printed per workload: the audit's and
the floor's seconds (min of the runs), the ratio (the min, and the spread as min-max of the per-run ratios), the
peak resident memory of the audit's process tree (max of the runs) and the goal.  Inputs are seeded synthetic
leaderboards (``_data.py``), written once into ``--folder`` and reused.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import clustered_leaderboard, graded_leaderboard, leaderboard
from _measure import measure

FLOOR = Path(__file__).resolve().parent / "floor.py"


def _workloads(folder: Path) -> list[dict]:
    """(name, input, audit options, floor options, goal) of each row of the issue's table."""
    large = leaderboard(folder, 500, 12_032)
    return [
        dict(name="50x12000-B500", path=leaderboard(folder, 50, 12_000), audit=["--mode", "all"], goal=(None, None)),
        dict(name="500x12032", path=large, audit=["--mode", "all", "--n-resamples", "0"], goal=(None, 1024)),
        dict(
            name="500x12032-clusters14",
            path=clustered_leaderboard(folder, 500, 12_032, 14),
            audit=["--mode", "all", "--n-resamples", "0", "--cluster-column", "cluster"],
            floor=["--drop", "cluster"],
            goal=(3.0, 1024),
        ),
        dict(
            name="5000x12000-parquet",
            path=leaderboard(folder, 5000, 12_000, kind="parquet"),
            audit=["--mode", "all", "--n-resamples", "0", "--format", "parquet"],
            goal=(5.0, 3072),
        ),
        dict(
            name="500x5000-graded",
            path=graded_leaderboard(folder, 500, 5000),
            audit=["--mode", "all", "--n-resamples", "0"],
            floor=["--graded"],
            goal=(5.0, 1024),
        ),
        dict(
            name="20000x3-adjacent",
            path=leaderboard(folder, 20_000, 3),
            audit=["--mode", "adjacent", "--n-resamples", "0"],
            floor=["--mode", "adjacent"],
            goal=(None, 1024),
        ),
        dict(
            name="2000x12000-workers2",
            path=leaderboard(folder, 2000, 12_000, kind="parquet"),
            audit=["--mode", "all", "--n-resamples", "0", "--format", "parquet", "--workers", "2"],
            goal=(None, None),
        ),
    ]


def _floor(path: Path, options: list[str]) -> tuple[float, float]:
    done = subprocess.run([sys.executable, str(FLOOR), str(path), *options], capture_output=True, text=True, check=True)
    seconds, peak_mb, _pairs = done.stdout.split()
    return float(seconds), float(peak_mb)


def _row(work: dict, scratch: Path, repeats: int) -> str:
    out = scratch / ("out.parquet" if "parquet" in work["audit"] else "out.json")
    format_options = [] if "--format" in work["audit"] else ["--format", "json"]
    command = ["llm-power-verified", "audit", str(work["path"]), *work["audit"], *format_options, "--quiet"]
    audits, floors, peaks = [], [], []
    for _ in range(repeats):
        seconds, peak, _ = measure([*command, "--out", str(out)])
        audits.append(seconds)
        peaks.append(peak)
        floors.append(_floor(work["path"], work.get("floor", []))[0])
    ratios = [audit / floor for audit, floor in zip(audits, floors, strict=True)]
    goal_ratio, goal_mb = work["goal"]
    goal = ", ".join(
        part for part in (f"<= {goal_ratio}x" if goal_ratio else "", f"< {goal_mb} MB" if goal_mb else "") if part
    )
    return (
        f"{work['name']}: audit {min(audits):.2f} s, floor {min(floors):.2f} s, ratio {min(ratios):.2f}x "
        f"(runs {min(ratios):.2f}-{max(ratios):.2f}x, n = {repeats}), peak {max(peaks):.0f} MB"
        + (f"; goal {goal}" if goal else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, help="where the generated inputs are kept (default: a temporary folder)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="run only these workloads (names as printed)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = arguments.folder or Path(scratch)
        for work in _workloads(folder):
            if arguments.only and work["name"] not in arguments.only:
                continue
            print(_row(work, Path(scratch), arguments.repeats), flush=True)


if __name__ == "__main__":
    main()
