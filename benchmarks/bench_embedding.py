"""Seed 001's Monte Carlo power grid: the published script against the toolkit, side by side.

Run: python benchmarks/bench_embedding.py [--seeds DIR] [--skip-published]

The published simulation script is the Python block of the "Appendix: SKILL.md"
section of ``001_a3e83a1ed4c4cbf3.md`` in the seeds folder (default
``../shared/seeds`` beside the repository, or $LLM_POWER_SEEDS).  It is read
from the seed file at run time, executed unchanged in a temporary folder (it
writes ``results.json`` there), and timed; it is not part of this project.
Then the toolkit runs the same grid at the same replicate count (150 cells:
2 models x 5 n x 5 effects x 3 correlations, R = 1,000) with one and two
workers, on a Dask LocalCluster of two processes (identical output required),
and with independent n_resamples per cell.

Printed: wall times and speed ratios (target: at least 100x), the largest
distance of a t-test cell from the analytic noncentral-t power in Monte Carlo
standard errors (target: every cell within 3), and the agreement of every
cell of the toolkit with the published script's output in combined standard
errors of the two estimates.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from llm_power_verified.simulation.embedding import embedding_power_grid
from llm_power_verified.simulation.grids import monte_carlo_se

SEED_FILE = "001_a3e83a1ed4c4cbf3.md"


def published_script(seeds: Path) -> str:
    text = (seeds / SEED_FILE).read_text(encoding="utf-8")
    appendix = text[text.index("## Appendix: SKILL.md") :]
    match = re.search(r"```python\n(.*?)```", appendix, flags=re.DOTALL)
    if match is None:
        raise SystemExit(f"no python block in the SKILL.md appendix of {seeds / SEED_FILE}")
    return match.group(1)


def run_published(seeds: Path) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "simulation.py"
        script.write_text(published_script(seeds), encoding="utf-8")
        start = time.perf_counter()
        subprocess.run([sys.executable, str(script)], cwd=folder, check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        results = json.loads((Path(folder) / "results.json").read_text(encoding="utf-8"))
    return seconds, results


def timed(**options) -> tuple[float, list[dict]]:
    start = time.perf_counter()
    rows = embedding_power_grid(n_simulations=1000, seed=0, **options)
    return time.perf_counter() - start, rows


def worst_analytic_distance(rows: list[dict]) -> tuple[float, dict]:
    finite = [row for row in rows if math.isfinite(row["t_test_z"])]
    worst = max(finite, key=lambda row: abs(row["t_test_z"]))
    return abs(worst["t_test_z"]), worst


def compare_with_published(rows: list[dict], published: dict) -> dict[str, list[float]]:
    """Per cell (ours - published) / sqrt(se_ours^2 + se_published^2), for both tests."""
    distances: dict[str, list[float]] = {"t_test_power": [], "wilcoxon_power": []}
    for row in rows:
        cell = published[row["model"]][f"n={row['n']}_d={row['effect']}_r={row['correlation']}"]
        for key in distances:
            pooled = (row[key] + cell[key]) / 2
            se = math.sqrt(2) * monte_carlo_se(pooled, 1000)
            distances[key].append((row[key] - cell[key]) / se)
    return distances


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("LLM_POWER_SEEDS", Path(__file__).resolve().parents[1].parent / "shared" / "seeds"))
    parser.add_argument("--seeds", type=Path, default=default, help="folder holding the seed files")
    parser.add_argument("--skip-published", action="store_true", help="time only the toolkit")
    arguments = parser.parse_args()

    embedding_power_grid(n_simulations=50, seed=0)  # warm caches (Beta tables, imports) outside the timing
    ours, rows = timed()
    print(f"toolkit, common random numbers, 1 worker: {ours:.2f} s")
    two, rows_two = timed(workers=2)
    print(f"toolkit, common random numbers, 2 threads: {two:.2f} s (identical output: {rows_two == rows})")
    from llm_power_verified.parallel import DaskBackend

    started = time.perf_counter()
    with DaskBackend(workers=2) as cluster:
        ready = time.perf_counter()
        dask_seconds, rows_dask = timed(backend=cluster)
    print(
        f"toolkit, common random numbers, Dask LocalCluster of 2 processes: {dask_seconds:.2f} s "
        f"(+ {ready - started:.1f} s starting the cluster; identical output: {rows_dask == rows}; "
        f"ratio to 1 worker {ours / dask_seconds:.2f}x)"
    )
    independent, rows_independent = timed(random_numbers="independent")
    print(f"toolkit, independent n_resamples per cell, 1 worker: {independent:.2f} s")
    for label, result in (("common", rows), ("independent", rows_independent)):
        distance, worst = worst_analytic_distance(result)
        outside = sum(abs(row["t_test_z"]) > 3 for row in result if math.isfinite(row["t_test_z"]))
        print(
            f"  {label}: t-test cells beyond 3 MC SE of the analytic power: {outside} of {len(result)}; "
            f"worst {distance:.2f} SE at {worst['model']} n={worst['n']} effect={worst['effect']} "
            f"rho={worst['correlation']}"
        )

    if arguments.skip_published:
        return
    seconds, published = run_published(arguments.seeds)
    print(f'published script (the SKILL.md of "How Many Test Pairs Do You Need?"), same grid and R: {seconds:.1f} s')
    print(
        f"speed ratio: {seconds / ours:.0f}x (1 worker), {seconds / two:.0f}x (2 threads), "
        f"{seconds / independent:.0f}x (independent n_resamples); target 100x"
    )
    for label, result in (("common", rows), ("independent", rows_independent)):
        for key, values in compare_with_published(result, published).items():
            values = np.abs(values)
            print(
                f"  {label} vs published, {key}: max {values.max():.2f} combined SE, "
                f"{int(np.sum(values > 3))} of {values.size} cells beyond 3"
            )


if __name__ == "__main__":
    main()
