"""Leaderboard-scale audit timings.

Run: python benchmarks/bench_audit.py

1. 50 models x 12,000 binary items, all 1,225 pairs, full report: exact p,
   mid-p, bootstrap interval on N* and the paired bootstrap (B = 500),
   Holm/BH over the family (target: under 2 s).
2. 500 models x 12,032 items, all 124,750 pairs, without bootstrap
   (target: under 30 s, peak memory under 2 GB).
Each case runs in a fresh interpreter so its peak resident memory is its own.
"""

from __future__ import annotations

import json
import subprocess
import sys

CASE = r"""
import json, resource, sys, time
import numpy as np
import pandas as pd
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.io import from_wide
models, items, draws = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(7)
latent = rng.normal(size=(items, 1)) + np.linspace(0.5, -0.5, models)[None, :] + rng.normal(size=(items, models))
frame = pd.DataFrame((latent > 0).astype(np.int8), columns=[f"model{k:03d}" for k in range(models)])
start = time.perf_counter()
matrix = from_wide(frame, item_column=None)
loaded = time.perf_counter()
result = audit_leaderboard(matrix, "all", n_resamples=draws, n_cluster_resamples=0, seed=1)
done = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"pairs": len(result.pairs), "load": loaded - start, "audit": done - loaded, "peak_mb": peak,
                  "unresolved": int((~result.pairs["resolved"]).sum())}))
"""


def run(models: int, items: int, draws: int) -> dict:
    output = subprocess.run([sys.executable, "-c", CASE, str(models), str(items), str(draws)], capture_output=True, text=True, check=True)
    return json.loads(output.stdout.strip().splitlines()[-1])


def main() -> None:
    small = run(50, 12_000, 500)
    print(f"50 models x 12,000 items, {small['pairs']:,} pairs, full report with B = 500: audit {small['audit']:.2f} s "
          f"(+ {small['load']:.2f} s building the matrix); peak {small['peak_mb']:.0f} MB; target 2 s -> ratio {2 / small['audit']:.1f}x under")
    large = run(500, 12_032, 0)
    print(f"500 models x 12,032 items, {large['pairs']:,} pairs, no bootstrap: audit {large['audit']:.2f} s "
          f"(+ {large['load']:.2f} s building the matrix); peak {large['peak_mb']:.0f} MB; targets 30 s and 2048 MB")


if __name__ == "__main__":
    main()
