"""Reduce tau-bench's published trajectories to a long table of repeated trials.

Run: python -m crosscheck.build_tau_bench_repeats FOLDER

FOLDER is the ``historical_trajectories/`` folder of
https://github.com/sierra-research/tau-bench (MIT).  Every ``<model>-<domain>.json``
there is a JSON list of runs, one per (task, trial), with the fields ``task_id``,
``trial`` and ``reward`` (1.0 when the agent reached the task's goal state, else 0.0)
beside the trajectory itself (``traj``, ``info``), which is dropped.  The domain is
the last ``-`` part of the file name (``airline``, ``retail``); the model the rest.

Writes ``tests/fixtures/tau_bench/trials.csv.gz``: one row per run with the columns
``item_id`` (``<domain>-<task_id>``, since task ids restart in each domain), ``model``,
``trial`` and ``reward``, sorted, gzip without a time stamp (the same input gives the
same bytes).  A (model, item, trial) given twice is refused.
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

import pandas as pd

from llm_power_verified.io.json_input import parse_json

ROOT = Path(__file__).resolve().parent.parent
TRIALS = ROOT / "tests" / "fixtures" / "tau_bench" / "trials.csv.gz"
COLUMNS = ("item_id", "model", "trial", "reward")


def reduce_runs(runs: list[dict], model: str, domain: str, where: str) -> pd.DataFrame:
    """One row per run of one trajectory file: item, model, trial, reward."""
    rows = []
    for position, run in enumerate(runs):
        values = {key: run.get(key) for key in ("task_id", "trial", "reward")}
        if any(not isinstance(value, int | float) or isinstance(value, bool) for value in values.values()):
            raise SystemExit(f"{where}: run {position} has task_id/trial/reward {values}: numbers expected")
        rows.append((f"{domain}-{values['task_id']}", model, int(values["trial"]), float(values["reward"])))
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    repeated = frame.duplicated(["item_id", "model", "trial"])
    if repeated.any():
        first = frame[repeated].iloc[0]
        raise SystemExit(f"{where}: task {first['item_id']} trial {first['trial']} given twice")
    return frame


def build(folder: Path) -> pd.DataFrame:
    """The long table of every trajectory file in ``folder``."""
    frames = []
    for path in sorted(folder.glob("*.json")):
        model, _, domain = path.stem.rpartition("-")
        if not model:
            raise SystemExit(f"{path}: name is not <model>-<domain>.json")
        runs = parse_json(path.read_bytes(), str(path))
        if not isinstance(runs, list):
            raise SystemExit(f"{path}: a JSON list of runs expected")
        frames.append(reduce_runs(runs, model, domain, str(path)))
    if not frames:
        raise SystemExit(f"{folder}: no <model>-<domain>.json files")
    return pd.concat(frames).sort_values(["model", "item_id", "trial"], kind="stable", ignore_index=True)


def main(argv: list[str] | None = None) -> int:
    """Build the long table from the folder named on the command line and write it."""
    parser = argparse.ArgumentParser(
        prog="python -m crosscheck.build_tau_bench_repeats", description=__doc__.split("\n")[0]
    )
    parser.add_argument("folder", type=Path, help="tau-bench's historical_trajectories/ folder")
    arguments = parser.parse_args(argv)
    table = build(arguments.folder)
    TRIALS.parent.mkdir(parents=True, exist_ok=True)
    TRIALS.write_bytes(gzip.compress(table.to_csv(index=False).encode(), mtime=0))
    counts = table.groupby("model")["item_id"].nunique()
    print(
        f"{len(table):,} runs of {len(counts)} model(s) ("
        + ", ".join(f"{model}: {n} tasks" for model, n in counts.items())
        + f") -> {TRIALS.relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
