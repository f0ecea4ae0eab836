"""``audit --tiles``: the all-pairs audit of 0/1 scores in row bands, to a partitioned Parquet dataset.

``llm-power-verified audit INPUT --tiles --format parquet --out FOLDER`` runs
:func:`~llm_power_verified.leaderboard.tiled_audit.tiled_audit` on the backend the options ask for (this process,
``--workers N`` processes of a local Dask cluster with an optional ``--worker-memory``, or ``--scheduler ADDRESS``):
each band forms its own counts and writes ``FOLDER/band-NNNNN.parquet`` (the pair columns of ``--columns``, the
default set unless asked, as ``--format parquet`` writes them: :mod:`~llm_power_verified.report.tiled_run`; read in
name order they are the in-memory audit's Parquet table), and the client writes the summary ``FOLDER/_report.json``
(:mod:`~llm_power_verified.report.tiled`) and prints it, the adjacent pairs and models cut as ``--pairs`` says.

The tiled path is chosen by ``--tiles``, not by ``--workers`` or ``--scheduler`` alone: its output is a folder rather
than one file, and it audits a subset (0/1 scores, no clusters or generations, mode all), so choosing it
automatically would change what an existing ``--workers`` command writes and refuse inputs it audits today.  What it
does not audit is refused in one line naming the flag to drop or change, never run another way.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from llm_power_verified.cli.errors import CommandError

__all__ = ["check_compute", "check_tiled", "memory_size", "run_tiled"]

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
_UNITS.update({"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40})
_MEMORY = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)")


def memory_size(text: str) -> int:
    """A memory size of the command line (``2GB``, ``512MiB``, ``1.5GB``, plain bytes) in bytes.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    int
        The bytes (at least 1 MiB: a worker needs more than that to start).

    Raises
    ------
    argparse.ArgumentTypeError
        For another spelling or a size under 1 MiB.
    """
    match = _MEMORY.fullmatch(text.strip())
    unit = match and _UNITS.get(match.group(2).lower())
    if not unit:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a memory size: give a number and a unit, such as 2GB, 1.5GB or 512MiB"
        )
    size = int(float(match.group(1)) * unit)
    if size < 2**20:
        raise argparse.ArgumentTypeError(f"{text!r} is under 1 MiB, too little for a worker; give, say, 2GB")
    return size


def check_tiled(arguments) -> Path:
    """Refuse, before any work, the options the tiled audit does not take; the dataset's folder.

    Parameters
    ----------
    arguments : argparse.Namespace
        The parsed ``audit`` command line, with ``--tiles``.

    Returns
    -------
    pathlib.Path
        The --out folder (new, or an empty folder).

    Raises
    ------
    CommandError
        In one line naming the flag that fixes it.
    """
    if arguments.format != "parquet" or not arguments.out:
        raise CommandError("--tiles writes a partitioned Parquet dataset: give --format parquet --out FOLDER")
    if arguments.mode != "all" or arguments.family not in (None, "all"):
        raise CommandError("--tiles audits every pair as one family: give --mode all (and no other --family)")
    if arguments.n_rank_resamples:
        raise CommandError("--tiles gives each model's Holm rank interval only: drop --n-rank-resamples")
    if arguments.plot:
        raise CommandError("--plot needs the pair table in memory; --tiles writes it in bands (drop --plot)")
    folder = Path(arguments.out)
    if folder.exists() and not folder.is_dir():
        raise CommandError(
            f"--out {arguments.out}: a file, not a folder; --tiles writes a folder of band files: give a new or empty "
            "folder"
        )
    if folder.exists() and any(folder.iterdir()):
        raise CommandError(
            f"--out {arguments.out}: the folder holds files; --tiles writes a folder of band files: give a new or "
            "empty folder"
        )
    if not folder.parent.is_dir():
        raise CommandError(f"--out {arguments.out}: the folder {folder.parent} does not exist")
    return folder


def check_compute(arguments) -> None:
    """Refuse ``--worker-memory`` without a local cluster to limit, and ``--band-pairs`` without ``--tiles``.

    Parameters
    ----------
    arguments : argparse.Namespace
        The parsed ``audit`` command line.

    Raises
    ------
    CommandError
        In one line naming the flag that fixes it.
    """
    if arguments.band_pairs is not None and not arguments.tiles:
        raise CommandError("--band-pairs sizes the bands of --tiles: add --tiles, or drop --band-pairs")
    if arguments.worker_memory is not None and not arguments.workers:
        raise CommandError(
            "--worker-memory limits the workers of a local cluster: add --workers N (an existing --scheduler's "
            "workers have their own limit)"
        )


def run_tiled(arguments, matrix, backend, folder: Path, gate) -> tuple[str, int]:
    """Run the tiled audit of ``matrix`` on ``backend`` into ``folder``; the summary lines and the exit status.

    Parameters
    ----------
    arguments : argparse.Namespace
        The parsed ``audit`` command line, checked by :func:`check_tiled`.
    matrix : ScoreMatrix
        The scores read.
    backend : Backend
        Where the bands run.
    folder : pathlib.Path
        The dataset's folder.
    gate : callable
        ``gate(adjacent_rows, fail_on)``: the --fail-on exit status from the adjacent pairs.

    Returns
    -------
    tuple of (str, int)
        The summary (printed on stdout) and the exit status.

    Raises
    ------
    CommandError
        Graded scores, item clusters or several generations per item (naming the flag that fixes it).
    """
    if matrix.generations is not None:
        raise CommandError(
            "--tiles takes one score per item and model, not several generations: drop --tiles (or the repeats: "
            "--epochs first)"
        )
    if matrix.clusters is not None:
        raise CommandError("--tiles takes no item clusters: drop --tiles, or --cluster-column/--cluster-field")
    if not matrix.binary:
        raise CommandError("--tiles audits 0/1 scores; these are graded: drop --tiles (the audit streams them)")
    from llm_power_verified.report.cells import plural
    from llm_power_verified.report.tiled import tiled_document, tiled_lines, write_tiled_report
    from llm_power_verified.report.tiled_run import tiled_parquet

    settings = {
        "alpha": arguments.alpha,
        "power": arguments.power,
        "n_resamples": arguments.n_resamples,
        "seed": arguments.seed,
        "correction": arguments.correction,
        "min_effect": arguments.min_effect,
    }
    from llm_power_verified.leaderboard.bands import PAIRS_PER_BAND

    bands = arguments.band_pairs or PAIRS_PER_BAND
    try:
        columns = arguments.columns or ["default"]  # as --format parquet: the default set unless asked
        result = tiled_parquet(matrix, folder, columns=columns, backend=backend, pairs_per_band=bands, **settings)
    except BaseException:
        _remove_bands(folder)  # an interrupted or failed run leaves no partial dataset behind
        raise
    document = tiled_document(result)
    written = write_tiled_report(document, folder)
    status = gate(result.adjacent, arguments.fail_on)
    lines = tiled_lines(document, arguments.pairs)
    return "\n".join([*lines, "", f"wrote {folder}: {plural(result.bands, 'band file')} and {written.name}"]), status


def _remove_bands(folder: Path) -> None:
    """Remove the band files written so far, and the folder when that leaves it empty (it was new or empty)."""
    for path in folder.glob("band-*.parquet"):
        path.unlink(missing_ok=True)
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
