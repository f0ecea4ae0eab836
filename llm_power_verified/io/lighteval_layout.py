"""Where lighteval's details files are: the folder layout, the run (timestamp), the task, the model name.

lighteval (``--save-details``) writes, under its output folder::

    details/MODEL/TIMESTAMP/details_TASK_TIMESTAMP.parquet     (or details/ORG/MODEL/...)
    results/MODEL/results_TIMESTAMP.json

``TIMESTAMP`` is ``datetime.isoformat()`` with ``:`` written ``-`` (``2026-11-24T14-03-30.216191``); the Open LLM
Leaderboard's details datasets keep the ``:`` in the folder names, and both are read.  ``TASK`` is the task as
lighteval names it (``arith_mc|0``, ``leaderboard|arc:challenge|25``); a file whose ``|`` was replaced by ``_``
(a checkout on Windows cannot hold ``|``) is the same task, so ``--task`` is compared with ``|`` and ``_`` taken
as one character.  This module only looks at names and at the results file; the rows are read in
:mod:`llm_power_verified.io.lighteval`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import pairwise
from pathlib import Path

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import AlignmentError, InputError
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.text import read_text

__all__ = ["details_file", "is_details_name", "run_identity", "same_task"]  # DetailsFile: the lighteval modules' own

_STAMP = r"\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}(?:\.\d+)?"
_DETAILS = re.compile(rf"^details_(?P<task>.+)_(?P<stamp>{_STAMP})\.parquet$")
_STAMP_ONLY = re.compile(rf"^{_STAMP}$")


def is_details_name(path: Path) -> bool:
    """Whether ``path``'s name is lighteval's ``details_TASK_TIMESTAMP.parquet``.

    Parameters
    ----------
    path : pathlib.Path
        The file; only its name is looked at.

    Returns
    -------
    bool
        True when the name has the shape (the stamp is checked to be a time when the file is read).
    """
    return _DETAILS.match(path.name) is not None


def _moment(stamp: str, where: Path | None = None) -> datetime:
    """The time a run's stamp names (``-`` or ``:`` between hours, minutes and seconds).

    A stamp of ``where`` (a run folder or details file) must be ``datetime.isoformat()``'s, as lighteval writes it:
    no fraction or six digits of one, and a real date and time; a stamp given with ``--run`` (``where`` None) may
    write the fraction with fewer digits.
    """
    day, time = stamp.split("T", 1)
    fraction = time[8:]  # "" or "." and its digits
    try:
        if fraction == "" or len(fraction) == 7 or (where is None and len(fraction) < 7):
            digits = (day[:4], day[5:7], day[8:10], time[:2], time[3:5], time[6:8], fraction[1:7].ljust(6, "0"))
            return datetime(*map(int, digits))
        error = "datetime.isoformat() writes six digits of a second's fraction, or none"
    except ValueError as raised:
        error = str(raised)
    if where is None:
        raise ArgumentError(f"--run {stamp!r}: not a time ({error}); check --run")
    raise InputError(
        f"{where}: run stamp {stamp!r} is not a lighteval time stamp ({error}); rename it to the stamp lighteval wrote"
    )


def same_task(wanted: str, found: str) -> bool:
    """Whether a task named in a file name (``|`` possibly written ``_``) is the task ``wanted``.

    Parameters
    ----------
    wanted : str
        The task asked for (``--task``).
    found : str
        The task a file name or results file gives.

    Returns
    -------
    bool
        True when they are equal once ``|`` and ``_`` are taken as one character.
    """
    return wanted.replace("|", "_") == found.replace("|", "_")


@dataclass(frozen=True)
class DetailsFile:
    """One model's details file, chosen: the file, its task and run as its name gives them, and what was chosen."""

    path: Path
    task: str
    stamp: str
    notes: tuple[str, ...] = ()


def _runs(folder: Path) -> dict[str, list[Path]]:
    """Run stamp -> details files: the folder's own files, or those of its timestamp folders."""
    own = sorted(path for path in folder.iterdir() if path.is_file() and is_details_name(path))
    if own:
        runs: dict[str, list[Path]] = {}
        for path in own:
            runs.setdefault(_DETAILS.match(path.name)["stamp"], []).append(path)
        return runs
    return {
        child.name: files
        for child in sorted(folder.iterdir())
        if child.is_dir() and _STAMP_ONLY.match(child.name)
        for files in [sorted(path for path in child.iterdir() if path.is_file() and is_details_name(path))]
        if files
    }


def _chosen_run(folder: Path, runs: dict[str, list[Path]], run: str | None) -> tuple[str, tuple[str, ...]]:
    """The run read: the only one, the newest (``latest``) or the one named; two of one moment refused."""
    # A run folder's own name is checked; runs written as files directly in ``folder`` are checked by file.
    moments = {
        stamp: _moment(stamp, files[0] if files[0].parent == folder else files[0].parent)
        for stamp, files in runs.items()
    }
    stamps = sorted(runs, key=moments.__getitem__)
    for earlier, later in pairwise(stamps):
        if moments[earlier] == moments[later]:
            raise AlignmentError(
                f"{folder}: runs {earlier} and {later} are the same moment ({moments[later].isoformat()}); keep one"
            )
    listed = ", ".join(stamps)
    if run is None:
        if len(stamps) > 1:
            raise AlignmentError(
                f"{folder}: {len(stamps)} lighteval runs ({listed}); choose one with --run latest or --run TIMESTAMP"
            )
        return stamps[0], ()
    if run == "latest":
        chosen = stamps[-1]
        return chosen, (
            (f"--run latest: {folder.name} read run {chosen}, the newest of {listed}",) if len(stamps) > 1 else ()
        )
    match = [stamp for stamp in stamps if moments[stamp] == _moment(run)]
    if match:
        return match[0], ()
    if len(stamps) > 1:
        raise AlignmentError(f"{folder}: no lighteval run {run!r} (runs: {listed}); check --run")
    return stamps[0], (f"--run {run}: {folder.name} has one run, {stamps[0]}, which was read",)


def _chosen_task(where: Path, files: list[Path], task: str | None) -> Path:
    by_task = {_DETAILS.match(path.name)["task"]: path for path in files}
    listed = ", ".join(sorted(by_task))
    if task is None:
        if len(by_task) > 1:
            raise AlignmentError(f"{where}: details of {len(by_task)} tasks ({listed}); choose one with --task")
        return files[0]
    match = [path for name, path in by_task.items() if same_task(task, name)]
    if not match:
        raise AlignmentError(f"{where}: no details file for task {task!r} (tasks: {listed}); check --task")
    if len(match) > 1:
        raise AlignmentError(
            f"{where}: {len(match)} details files for task {task!r} ({', '.join(p.name for p in match)}); keep one"
        )
    return match[0]


def details_file(path: Path, task: str | None, run: str | None) -> DetailsFile:
    """The details file to read for one model: ``path`` itself, or the one its folder holds for ``task`` and ``run``.

    Parameters
    ----------
    path : pathlib.Path
        A ``details_TASK_TIMESTAMP.parquet`` file, a run folder holding such files, or a model folder holding run
        folders named by their timestamps.
    task : str or None
        The task (``--task``); needed when the run holds several.
    run : str or None
        ``"latest"`` or a timestamp (``--run``); needed when the model folder holds several runs.

    Returns
    -------
    DetailsFile
        The file, its task and run, and a note when ``--run latest`` chose among several runs.

    Raises
    ------
    InputError
        A missing path, a folder without details files, several runs or tasks and none chosen, or a choice that is
        not there (naming what is), a file whose task differs from the one asked for.  ``--run TIMESTAMP`` chooses
        in folders holding several runs; a folder of one run, or a file, is read whatever its run, with a note when
        it is not the one named.
    """
    if run is not None and (not isinstance(run, str) or (run != "latest" and not _STAMP_ONLY.match(run))):
        raise ArgumentError(f"--run {run!r}: not 'latest' nor a lighteval timestamp such as 2026-11-24T14-03-30.216191")
    if run not in (None, "latest"):
        _moment(run)  # a real date and time
    if path.is_dir():
        try:
            runs = _runs(path)
        except OSError as error:
            raise InputError(f"{path}: cannot read the folder ({error.strerror or error})") from None
        if not runs:
            raise AlignmentError(
                f"{path}: no lighteval details here (TIMESTAMP/details_TASK_TIMESTAMP.parquet, or such files "
                "directly); give the model's folder under details/"
            )
        stamp, notes = _chosen_run(path, runs, run)
        chosen = _chosen_task(runs[stamp][0].parent, runs[stamp], task)
    else:
        if not path.exists():
            raise InputError(f"{path}: no such file")
        match = _DETAILS.match(path.name)
        if match is None:
            raise InputError(
                f"{path}: not named like a lighteval details file (details_TASK_TIMESTAMP.parquet); rename it or "
                "give its folder"
            )
        if task is not None and not same_task(task, match["task"]):
            raise AlignmentError(f"{path}: a details file of task {match['task']!r}, not {task!r}; check --task")
        chosen, notes = path, ()
        if run not in (None, "latest") and _moment(match["stamp"], path) != _moment(run):
            notes = (f"--run {run}: {path.name} is a file of run {match['stamp']}, which was read",)
    match = _DETAILS.match(chosen.name)
    _moment(match["stamp"], chosen)
    return DetailsFile(chosen, match["task"], match["stamp"], notes)


def run_identity(found: DetailsFile) -> tuple[DetailsFile, str, bool]:
    """The file with its task as lighteval names it, the model's name, and whether lighteval's results file gave it.

    The results file ``results/MODEL/results_TIMESTAMP.json`` beside ``details/`` names the model in
    ``config_general.model_name`` and the task among its ``results`` keys (``community|arith_mc|0``, where the file
    name may write ``_``); without it (or when it cannot be read: it is evidence of the names, never a source of
    scores) the model is the path below ``details/`` (``ORG/MODEL``), else the folder above the run, and the task
    is the file name's.

    Parameters
    ----------
    found : DetailsFile
        The chosen details file.

    Returns
    -------
    tuple of (DetailsFile, str, bool)
        ``found`` with the task so named, the model, and True when the results file named it.
    """
    path = found.path
    run_folder = path.parent if _STAMP_ONLY.match(path.parent.name) else None
    model_folder = run_folder.parent if run_folder is not None else path.parent
    root = next((parent for parent in model_folder.parents if parent.name == "details"), None)
    if model_folder.name == "details" or root is None:
        return found, (model_folder.name if model_folder.name != "details" else path.stem), False
    below = model_folder.relative_to(root)
    results = root.parent / "results" / below / f"results_{found.stamp}.json"
    try:
        document = parse_json(read_text(results), str(results)) if results.is_file() else None
    except InputError:
        document = None
    document = document if isinstance(document, dict) else {}
    tasks = document.get("results") if isinstance(document.get("results"), dict) else {}
    named = [key for key in tasks if isinstance(key, str) and same_task(key, found.task)]
    if len(named) == 1:
        found = replace(found, task=named[0])
    config = document.get("config_general")
    name = config.get("model_name") if isinstance(config, dict) else None
    if isinstance(name, str) and name.strip():
        return found, name.strip(), True
    return found, below.as_posix(), False
