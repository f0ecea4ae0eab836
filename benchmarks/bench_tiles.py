"""The tiled all-pairs audit (row bands, the product in the band) against the local path, and at 50 M pairs on Dask.

Run: python benchmarks/bench_tiles.py [--folder DIR] [--repeats 3] [--only compare|scale]

``compare``: 2,000 models x 12,000 items (0/1, seeded, ``_data.py``) to Parquet, mode all, no bootstrap, run
alternately (A B C A B C, ``--repeats`` times, each a fresh process): the local path
(``llm-power-verified audit ... --format parquet``), the tiled audit in one process (LocalBackend) and the tiled audit
on a Dask LocalCluster of 2 single-threaded workers.  Printed: seconds (min and spread) and the peak resident memory
of the whole process tree (``_measure.py``), and for the tiled runs the client's own peak (``getrusage``) and each
worker's (``getrusage`` on the worker, through ``Client.run``).

``scale``: 10,000 models x 2,000 items (50 M pairs) on a LocalCluster of 2 workers with ``memory_limit="2GB"`` each
(a worker past it is restarted by its nanny and the run fails); printed once (it takes long): seconds, the client's
and the workers' peaks.  Goals (issue 29): client under 1 GB, every worker under its limit.
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import leaderboard
from _measure import measure


def _peak_mb() -> float:
    """The peak resident memory of the calling process (Linux: ru_maxrss in KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _read(path: Path):
    """The leaderboard as a ScoreMatrix, read with pyarrow (the package's readers cap a table at 16.8 M cells)."""
    import pyarrow.parquet as pq

    from llm_power_verified.io import from_array

    table = pq.read_table(path)
    models = [name for name in table.column_names if name != "item_id"]
    scores = np.empty((table.num_rows, len(models)))
    for index, name in enumerate(models):  # a column at a time: no second copy of the matrix
        scores[:, index] = table[name].to_numpy()
    item_ids = table["item_id"].to_pylist()
    del table
    return from_array(scores, models=models, item_ids=item_ids)


def _local(matrix, out: Path) -> dict:
    """The local path: the streamed all-pairs audit, its Arrow blocks written to one Parquet file (zstd)."""
    import pyarrow.parquet as pq

    from llm_power_verified.leaderboard.audit import stream_audit

    writer = None

    def sink(table) -> None:
        nonlocal writer
        writer = writer or pq.ParquetWriter(out / "pairs.parquet", table.schema, compression="zstd")
        writer.write_table(table)

    out.mkdir(parents=True, exist_ok=True)
    result = stream_audit(matrix, sink, "all", n_resamples=0, arrow=True)
    writer.close()
    return {"bands": 1, "pairs": result.pairs_written, "significant": result.tiers.significant_pairs}


def _child(arguments) -> None:
    """One run in this process: read, audit into ``--out``; print a JSON line of the figures."""
    from llm_power_verified.leaderboard.tiled_audit import tiled_audit
    from llm_power_verified.parallel import DaskBackend, LocalBackend

    start = time.perf_counter()
    matrix = _read(arguments.input)
    if arguments.local:
        figures = _local(matrix, arguments.out)
        print(json.dumps({"seconds": time.perf_counter() - start, "client_mb": _peak_mb(), **figures}))
        return
    cluster = None
    if arguments.workers:
        from dask.distributed import LocalCluster

        # A LocalCluster written here: DaskBackend(workers=...) takes no memory limit; an address it does take.
        cluster = LocalCluster(
            n_workers=arguments.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
            memory_limit=arguments.memory_limit,
        )
        backend = DaskBackend(scheduler=cluster.scheduler_address)
    else:
        backend = LocalBackend()
    try:
        result = tiled_audit(matrix, arguments.out, backend=backend, pairs_per_band=arguments.pairs_per_band)
        # Each worker's own peak, asked of the worker.
        workers = sorted(backend.client.run(_peak_mb).values()) if arguments.workers else []
    finally:
        backend.close()
        if cluster is not None:
            cluster.close()
    figures = {"bands": result.bands, "pairs": result.pairs_written, "significant": result.tiers.significant_pairs}
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "client_mb": _peak_mb(), "worker_mb": workers, **figures}))


def _run(path: Path, out: Path, workers: int, memory_limit: str, pairs_per_band: int, local: bool = False):
    """(seconds, tree peak MB, the child's figures) of one run in a fresh process."""
    command = [sys.executable, __file__, "child", "--input", str(path), "--out", str(out), *(["--local"] * local)]
    command += ["--workers", str(workers), "--memory-limit", memory_limit, "--pairs-per-band", str(pairs_per_band)]
    seconds, peak, done = measure(command)
    return seconds, peak, json.loads(done.stdout.strip().splitlines()[-1])


def _compare(folder: Path, scratch: Path, repeats: int, pairs_per_band: int) -> None:
    """2,000 x 12,000: the local path and the tiled audit (local, Dask 2 workers), interleaved."""
    path = leaderboard(folder, 2000, 12_000, kind="parquet")
    runs: dict[str, list] = {"local": [], "tiled-local": [], "tiled-dask2": []}
    for repeat in range(repeats):
        for name, workers in (("local", 0), ("tiled-local", 0), ("tiled-dask2", 2)):
            out = scratch / f"{name}-{repeat}"
            runs[name].append(_run(path, out, workers, "auto", pairs_per_band, local=name == "local"))
            print(f"  run {repeat + 1} {name}: {runs[name][-1][0]:.1f} s, {json.dumps(runs[name][-1][2])}", flush=True)
            for file in out.iterdir():
                file.unlink()
    base = min(seconds for seconds, _, _ in runs["local"])
    for name, figures in runs.items():
        seconds = [run[0] for run in figures]
        ratios = [run[0] / local[0] for run, local in zip(figures, runs["local"], strict=True)]
        client = max((run[2].get("client_mb", 0.0) for run in figures), default=0.0)
        workers = max((max(run[2].get("worker_mb") or [0.0]) for run in figures), default=0.0)
        print(
            f"2000x12000 {name}: {min(seconds):.1f} s (runs {min(seconds):.1f}-{max(seconds):.1f}, n = {repeats}), "
            f"{min(seconds) / base:.2f}x the local path (per-run ratios {min(ratios):.2f}-{max(ratios):.2f}), "
            f"tree peak {max(run[1] for run in figures):.0f} MB"
            + (f", client {client:.0f} MB" if client else "")
            + (f", largest worker {workers:.0f} MB" if workers else ""),
            flush=True,
        )


def _scale(folder: Path, scratch: Path, models: int, items: int, memory_limit: str, pairs_per_band: int) -> None:
    """10,000 x 2,000 on a LocalCluster of 2 workers limited to ``memory_limit`` each, once."""
    path = leaderboard(folder, models, items, kind="parquet")
    seconds, peak, figures = _run(path, scratch / "scale", 2, memory_limit, pairs_per_band)
    print(
        f"{models}x{items} tiled on Dask (2 workers, memory_limit {memory_limit}): {seconds:.0f} s, "
        f"{figures['pairs']:,} pairs in {figures['bands']} files, client {figures['client_mb']:.0f} MB, workers "
        f"{', '.join(f'{mb:.0f}' for mb in figures['worker_mb'])} MB, tree peak {peak:.0f} MB",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command")
    child = commands.add_parser("child", help="one tiled run (what the benchmark starts)")
    child.add_argument("--input", type=Path, required=True)
    child.add_argument("--out", type=Path, required=True)
    child.add_argument("--workers", type=int, default=0)
    child.add_argument("--memory-limit", default="auto")
    child.add_argument("--pairs-per-band", type=int, default=500_000)
    child.add_argument("--local", action="store_true", help="the local path (streamed audit) instead of the tiles")
    parser.add_argument("--folder", type=Path, help="where the generated inputs are kept (default: a temporary folder)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=("compare", "scale"))
    parser.add_argument("--scale-models", type=int, default=10_000)
    parser.add_argument("--scale-items", type=int, default=2_000)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--pairs-per-band", type=int, default=250_000)
    arguments = parser.parse_args()
    if arguments.command == "child":
        _child(arguments)
        return
    with tempfile.TemporaryDirectory() as scratch:
        folder = arguments.folder or Path(scratch)
        if arguments.only in (None, "compare"):
            _compare(folder, Path(scratch), arguments.repeats, arguments.pairs_per_band)
        if arguments.only in (None, "scale"):
            _scale(
                folder,
                Path(scratch),
                arguments.scale_models,
                arguments.scale_items,
                arguments.memory_limit,
                arguments.pairs_per_band,
            )


if __name__ == "__main__":
    main()
