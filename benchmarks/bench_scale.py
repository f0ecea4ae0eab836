"""All 12.5 M pairs of 5,000 models to Parquet: this process, and a Dask LocalCluster of two processes.

Run: python benchmarks/bench_scale.py [--folder DIR] [--models K] [--skip-local]

Prints the wall time and the peak resident memory of the whole process tree
(client and workers), the pairs per second, the ratio of the two backends,
and checks that both files hold the same table (and the same report in their
metadata).  Targets (issue 15): under 120 s and 4 GB on the two-core machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import leaderboard
from _measure import measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, help="where the generated input is kept (default: a temporary folder)")
    parser.add_argument("--models", type=int, default=5000)
    parser.add_argument("--items", type=int, default=12_000)
    parser.add_argument("--skip-local", action="store_true", help="only the Dask run")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = arguments.folder or Path(scratch)
        path = leaderboard(folder, arguments.models, arguments.items, kind="parquet")
        pairs = arguments.models * (arguments.models - 1) // 2
        runs = {}
        for label, extra in (("local", []), ("dask, 2 workers", ["--workers", "2"])):
            if label == "local" and arguments.skip_local:
                continue
            out = Path(scratch) / f"{label.split(',')[0]}.parquet"
            seconds, peak, _done = measure(
                [
                    "llm-power-verified",
                    "audit",
                    str(path),
                    "--mode",
                    "all",
                    "--format",
                    "parquet",
                    "--n-resamples",
                    "0",
                    "--quiet",
                    "--out",
                    str(out),
                    *extra,
                ]
            )
            runs[label] = (seconds, out)
            print(
                f"{arguments.models:,} x {arguments.items:,}, {pairs:,} pairs, {label}: {seconds:.1f} s "
                f"({pairs / seconds / 1e3:.0f} k pairs/s), peak {peak / 1024:.2f} GB (process tree), "
                f"file {out.stat().st_size / 1e9:.2f} GB; targets 120 s, 4 GB",
                flush=True,
            )
        if len(runs) == 2:
            import pyarrow.parquet as pq

            from llm_power_verified.report.machine import read_audit_metadata

            (local, local_path), (dask, dask_path) = runs.values()
            same = pq.read_table(local_path).equals(pq.read_table(dask_path))
            same_report = json.dumps(read_audit_metadata(local_path)) == json.dumps(read_audit_metadata(dask_path))
            print(f"Dask / local: {local / dask:.2f}x; same table: {same}; same report: {same_report}")


if __name__ == "__main__":
    main()
