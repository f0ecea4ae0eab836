"""Ingestion speed: reading a score table through the validating layer against the bare pandas parse (the floor).

Run: python benchmarks/bench_ingest.py

Writes a 12,032 x 200 binary wide CSV, the same as a long CSV, and a graded wide CSV (17 significant
digits) into a temporary folder, and prints for each: pandas.read_csv alone, read_scores (parse, align,
validate every rule of the ingestion layer), and their ratio.  Best of three runs each.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from llm_power_verified.io import read_scores


def best_of(function, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    items, models = 12_032, 200
    names = [f"model{k:03d}" for k in range(models)]
    binary = pd.DataFrame((rng.random((items, models)) < 0.6).astype(np.int8), columns=names)
    binary.insert(0, "item_id", [f"q{i:05d}" for i in range(items)])
    graded = pd.DataFrame(rng.random((items, models)), columns=names)
    graded.insert(0, "item_id", binary["item_id"])
    with tempfile.TemporaryDirectory() as folder:
        paths = {
            "wide binary": Path(folder) / "wide.csv",
            "long binary": Path(folder) / "long.csv",
            "wide graded": Path(folder) / "graded.csv",
        }
        binary.to_csv(paths["wide binary"], index=False)
        binary.melt(id_vars="item_id", var_name="model", value_name="score").to_csv(paths["long binary"], index=False)
        graded.to_csv(paths["wide graded"], index=False, float_format="%.17g")
        for label, path in paths.items():
            floor = best_of(lambda path=path: pd.read_csv(path))
            kind = "graded" if "graded" in label else "auto"
            ours = best_of(lambda path=path, kind=kind: read_scores(path, score_kind=kind))
            print(
                f"{label:12s} {items:,} items x {models} models: pandas.read_csv {floor:.3f} s, read_scores "
                f"{ours:.3f} s "
                f"(ratio {ours / floor:.1f}x the bare parse)"
            )


if __name__ == "__main__":
    main()
