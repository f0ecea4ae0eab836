"""Seeded synthetic leaderboards written to files for the command-line benchmarks.

K models on N items: model k solves item i when z_i + s_k + e_ik > 0, with a
shared item difficulty z_i, a spread of model strengths s_k from 0.5 to -0.5
and independent noise; so neighbouring models are strongly paired, as on a
real leaderboard.  Wide tables with an ``item_id`` column (Parquet for large
K, CSV otherwise), written once into ``folder`` and reused.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def leaderboard(folder: Path, models: int, items: int, seed: int = 7, kind: str = "csv") -> Path:
    path = Path(folder) / f"leaderboard_{models}x{items}_{seed}.{kind}"
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(size=(items, 1)).astype(np.float32)
    strength = np.linspace(0.5, -0.5, models).astype(np.float32)
    scores = np.empty((items, models), dtype=np.int8)
    for start in range(0, models, 500):
        stop = min(start + 500, models)
        noise = rng.normal(size=(items, stop - start)).astype(np.float32)
        scores[:, start:stop] = (difficulty + strength[None, start:stop] + noise) > 0
    frame = pd.DataFrame(scores, columns=[f"model{k:04d}" for k in range(models)])
    frame.insert(0, "item_id", [f"q{i:05d}" for i in range(items)])
    if kind == "parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def clustered_leaderboard(folder: Path, models: int, items: int, clusters: int, seed: int = 7) -> Path:
    """:func:`leaderboard` with a ``cluster`` column: ``clusters`` consecutive groups of (nearly) equal size."""
    path = Path(folder) / f"leaderboard_{models}x{items}_{seed}_clusters{clusters}.csv"
    if not path.exists():
        frame = pd.read_csv(leaderboard(folder, models, items, seed))
        frame.insert(1, "cluster", [f"c{index * clusters // items:02d}" for index in range(items)])
        frame.to_csv(path, index=False)
    return path


def graded_leaderboard(folder: Path, models: int, items: int, seed: int = 7) -> Path:
    """Graded scores in [0, 1] on the same design: the logistic of z_i + s_k + e_ik, rounded to 4 decimals."""
    path = Path(folder) / f"graded_{models}x{items}_{seed}.csv"
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(size=(items, 1))
    strength = np.linspace(0.5, -0.5, models)
    scores = np.round(1 / (1 + np.exp(-(difficulty + strength[None, :] + rng.normal(size=(items, models))))), 4)
    frame = pd.DataFrame(scores, columns=[f"model{k:04d}" for k in range(models)])
    frame.insert(0, "item_id", [f"q{i:05d}" for i in range(items)])
    frame.to_csv(path, index=False)
    return path
