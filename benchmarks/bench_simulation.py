"""Monte Carlo calibration speed: the paper's Table 2 grid.

Run: python benchmarks/bench_simulation.py

Nine (p, rho_z) cells x {H0, H1}, n = 500, M = 1,500 replicates, five variants
(McNemar chi-square, exact, mid-p, continuity-corrected, percentile paired
bootstrap with B = 1,000).  Target: under 10 s.  Prints the time and the
summary the paper's Table 2 reports.
"""

from __future__ import annotations

import time

import numpy as np

from llm_power_verified.simulation.grids import calibration_table_2


def main() -> None:
    start = time.perf_counter()
    rows = calibration_table_2(seed=0)
    seconds = time.perf_counter() - start
    print(f"Table 2 grid (18 cells x 1,500 replicates, bootstrap B = 1,000): {seconds:.2f} s (target 10 s)")
    null = [row for row in rows if row["hypothesis"] == "H0"]
    alternative = [row for row in rows if row["hypothesis"] == "H1"]
    for method in ("chi2", "exact", "mid-p", "chi2-corrected", "bootstrap"):
        worst = max(abs(row[method] - 0.05) for row in null) * 100
        median = float(np.median([row[method] for row in alternative]))
        deviation = max(abs(row[method] - 0.8) for row in alternative) * 100
        print(
            f"  {method:<15} max |alpha-hat - 0.05| {worst:.1f} pp; power median {median:.3f}, max deviation from "
            f"0.80 {deviation:.1f} pp"
        )


if __name__ == "__main__":
    main()
