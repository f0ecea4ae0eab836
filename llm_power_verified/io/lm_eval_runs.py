"""Which lm-eval runs the folders hold: each folder another model's run, on the same items, under one filter.

``Seen`` collects what the folders read so far hold and refuses what would pair wrong items or a run with a copy
of itself: a (task, doc_id) whose ``doc_hash`` differs between folders, a subtask read under two filters, two folders
of one run (byte-identical samples files, or results files naming the same model and settings).
"""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.text import read_text

__all__ = ["SAMPLES", "at", "choices_hint", "lm_eval_files", "load_json", "short", "stamp_moment"]

#: A samples file's name: JSON Lines (lm-eval 0.4.3 on), or one JSON array (``.json``, May to mid-June 2024).
SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[0-9:.\-]+)\.jsonl?$")


def lm_eval_files(folder: Path, task: str, run: str | None = None) -> list[tuple[str, Path]]:
    """(task, samples file) for the task, or for each subtask of a group task.

    A folder with several samples files for one task holds re-runs (lm-eval appends a new time-stamped file; the Open
    LLM Leaderboard's details datasets keep every run of a model): ``run`` picks one, "latest" or a time stamp as the
    file names write it; without it they are refused, never chosen silently.

    Parameters
    ----------
    folder : pathlib.Path
        One model's output folder.
    task : str
        The task, or a group whose subtasks the results file lists.
    run : str, optional
        "latest" or a time stamp (``--run``).

    Returns
    -------
    list of (str, pathlib.Path)
        Each (sub)task and its samples file.

    Raises
    ------
    AlignmentError
        No samples file for the task, a subtask without one, several runs and no ``run``, a ``run`` not there.
    """
    by_task: dict[str, list[Path]] = {}
    for path in sorted([*folder.glob("samples_*.jsonl"), *folder.glob("samples_*.json")]):
        match = SAMPLES.match(path.name)
        if match:
            if not path.is_file():  # a pipe would block the read for ever; a folder member is never the user's pipe
                raise InputError(f"{path}: a pipe, device or folder, not a samples file")
            by_task.setdefault(match["task"], []).append(path)
    tasks = [task]
    if task not in by_task:
        subtasks: list = []
        for results in sorted(folder.glob("results_*.json")):
            document = load_json(results)
            groups = document.get("group_subtasks", {}) if isinstance(document, dict) else {}
            if not isinstance(groups, dict):
                raise InputError(f"{results}: 'group_subtasks' is not an object")
            subtasks = groups.get(task, subtasks)
        if not isinstance(subtasks, list) or not all(isinstance(name, str) for name in subtasks):
            raise InputError(
                f"{folder}: group {task!r} lists its subtasks as {describe_value(subtasks)}, not a list of names"
            )
        if not subtasks:
            available = ", ".join(sorted(by_task)) or "none"
            raise AlignmentError(
                f"{folder}: no samples file for task {task!r} (tasks with samples: {available}); check --task"
            )
        tasks = list(subtasks)
    files = []
    for name in tasks:
        paths = by_task.get(name, [])
        if not paths:
            raise AlignmentError(f"{folder}: group {task!r} lists subtask {name!r} but it has no samples file")
        files.append((name, _chosen_run(folder, name, paths, run)))
    return files


def choices_hint(folder: Path, task: str | None) -> str:
    """What a folder offers for the missing ``--task`` or ``--metric``: its tasks, or the task's metrics.

    Parameters
    ----------
    folder : pathlib.Path
        One model's output folder.
    task : str or None
        The task given, if any.

    Returns
    -------
    str
        " (tasks with samples: ...)" or " (metrics of TASK: ...)", or "" when the folder does not tell.
    """
    names = sorted({match["task"] for path in folder.glob("samples_*.json*") if (match := SAMPLES.match(path.name))})
    if task is None or task not in names:
        return f" (tasks with samples in {folder.name}: {', '.join(names[:20])})" if names else ""
    path = next(path for path in sorted(folder.glob(f"samples_{task}_*.json*")) if SAMPLES.match(path.name))
    try:
        with path.open("rb") as handle:
            first = handle.readline(1 << 20)
        record = parse_json(first.decode("utf-8").strip().rstrip(",").lstrip("["), str(path))
    except (OSError, UnicodeDecodeError, InputError):  # a damaged file: the reader names the damage later
        return ""
    metrics = record.get("metrics") if isinstance(record, dict) else None
    if not isinstance(metrics, list) or not all(isinstance(name, str) for name in metrics):
        return ""
    return f" (metrics of {task}: {', '.join(metrics[:20])})"


#: The time stamps lm-eval writes: ``datetime.isoformat()`` with ``-`` for ``:`` (older runs kept ``:``).
_STAMP = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2})[-:](\d{2})(?:[-:](\d{2})(?:\.(\d{1,6}))?)?$")


def stamp_moment(stamp: str, path: Path) -> datetime.datetime:
    """The moment a samples file's time stamp names; a stamp that is no moment is refused naming the file.

    Parameters
    ----------
    stamp : str
        The stamp of the file name (``2024-06-26T13-54-51.123456``).
    path : pathlib.Path
        The file, for the message.

    Returns
    -------
    datetime.datetime
        The moment (``.5`` and ``.500000`` are one).

    Raises
    ------
    InputError
        A stamp not of lm-eval's shape, or no date (month 13).
    """
    match = _STAMP.match(stamp)
    try:
        if match is None:
            raise ValueError("not of the shape YYYY-MM-DDTHH-MM-SS[.ffffff]")
        parts = [int(part) for part in match.groups()[:6] if part is not None]
        micro = int((match[7] or "0").ljust(6, "0"))
        return datetime.datetime(*parts, micro)
    except ValueError as error:
        raise InputError(f"{path}: time stamp {stamp!r} is no moment ({error}); lm-eval names its files so") from None


def _chosen_run(folder: Path, task: str, paths: list[Path], run: str | None) -> Path:
    """The samples file of the run asked for (the only one when ``run`` is None)."""
    stamps = [SAMPLES.match(path.name)["stamp"] for path in paths]
    moments: dict = {}
    for stamp, path in zip(stamps, paths, strict=True):
        earlier = moments.setdefault(stamp_moment(stamp, path), path)
        if earlier != path:
            raise AlignmentError(
                f"{folder}: {earlier.name} and {path.name} are runs of task {task!r} at the same moment (one run "
                "written twice, or a copy): keep one"
            )
    if run is None and len(paths) > 1:
        raise AlignmentError(
            f"{folder}: {len(paths)} samples files for task {task!r} ({', '.join(path.name for path in paths)}), runs "
            "at different times: choose one with --run latest or --run STAMP (or keep only the one to audit)"
        )
    if run is None or run == "latest":
        return max(zip(stamps, paths, strict=True), key=lambda pair: stamp_moment(*pair))[1]
    if run in stamps:
        return paths[stamps.index(run)]
    if len(paths) == 1:  # each model's folder has its own stamps: a folder of one run is read, and the note says so
        return paths[0]
    raise AlignmentError(
        f"{folder}: --run {run!r} is no run of task {task!r}; its samples files are stamped {', '.join(stamps)} "
        "(or give --run latest)"
    )


def at(path: Path, number: int) -> str:
    """Where a sample is: its line of a JSON Lines file, or its place in a ``.json`` file's array.

    Parameters
    ----------
    path : pathlib.Path
        The samples file.
    number : int
        The line or record, from 1.

    Returns
    -------
    str
        "PATH, line N" or "PATH, record N".
    """
    return f"{path}, {'record' if path.suffix == '.json' else 'line'} {number}"


def load_json(path: Path) -> object:
    """The JSON document of a file, through :func:`~llm_power_verified.io.json_input.parse_json`.

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    object
        The parsed document.
    """
    return parse_json(read_text(path), str(path))


def short(digest: str) -> str:
    """A digest shortened for a message.

    Parameters
    ----------
    digest : str
        A hex digest.

    Returns
    -------
    str
        Its first 12 characters, and "..." when it is longer.
    """
    return digest[:12] + ("..." if len(digest) > 12 else "")


def _listed(stamps: list[tuple[str, str]]) -> str:
    return ", ".join(f"{name} {stamp}" for name, stamp in stamps[:10]) + (
        f" and {len(stamps) - 10} more" if len(stamps) > 10 else ""
    )


def _run_identity(folder: Path, files: list[tuple[str, Path]]) -> tuple[str, str] | None:
    """(model as printed, key of model, model_args and settings) from the run's results file, or None.

    None when there is no results file, no model in it, or a results file this reader does not parse (lm-eval writes
    NaN for a metric it could not compute): the file is evidence of which run this is, never a source of scores, so
    it cannot stop a read.  The settings include the tasks' configurations and versions, so that a prompt variant of
    the same model is a run of its own.
    """
    stamp = SAMPLES.match(files[0][1].name)["stamp"]
    results = folder / f"results_{stamp}.json"
    try:
        document = load_json(results) if results.is_file() else None
    except InputError:
        return None
    if not isinstance(document, dict):
        return None
    config = document.get("config") if isinstance(document.get("config"), dict) else {}
    model, arguments = config.get("model"), config.get("model_args")
    if model is None and document.get("model_name") is None:
        return None
    shots = document.get("n-shot") if isinstance(document.get("n-shot"), dict) else {}
    settings = {
        "model": model,
        "model_args": arguments,
        "model_name": document.get("model_name"),
        "n-shot": {name: shots.get(name) for name, _ in files},
        **{key: config.get(key) for key in ("gen_kwargs", "random_seed", "numpy_seed", "torch_seed", "fewshot_seed")},
        **{key: document.get(key) for key in ("system_instruction", "chat_template", "fewshot_as_multiturn")},
        **{
            part: {name: (document.get(part) or {}).get(name) for name, _ in files}
            for part in ("configs", "versions")
            if isinstance(document.get(part), dict)
        },
    }
    shown = f"{model}" + (f" ({describe_value(arguments, 120)})" if arguments not in (None, "", {}) else "")
    return (shown if model is not None else str(document.get("model_name"))), json.dumps(
        settings, sort_keys=True, default=str
    )


@dataclass
class Seen:
    """What the folders read so far hold: each next one must be another model's run, same items, same filter."""

    items: dict = field(default_factory=dict)  # (subtask, doc_id) -> (doc_hash, model, file name, line)
    filters: dict = field(default_factory=dict)  # subtask -> (filter, file)
    runs: dict = field(default_factory=dict)  # run key -> folder
    copies: dict = field(default_factory=dict)  # digests of the samples files -> folder
    unhashed: list = field(default_factory=list)  # files without doc_hash
    files: int = 0
    unnamed: list = field(default_factory=list)  # folders whose results file names no model
    stamps: list = field(default_factory=list)  # (folder name, stamp of the run read)

    def same_filter(self, subtask: str, chosen: str, path: Path) -> None:
        """Refuse a subtask read under another filter than in an earlier folder."""
        first = self.filters.setdefault(subtask, (chosen, path))
        if first[0] != chosen:
            raise AlignmentError(
                f"{path} holds task {subtask!r} under filter {chosen!r} but {first[1]} under filter "
                f"{first[0]!r}: the models were scored differently; re-run them under one filter, or "
                "choose one both files hold with --filter"
            )

    def same_item(self, subtask: str, doc_id: int, doc_hash: str | None, model: str, path: Path, number: int) -> None:
        """Refuse a (subtask, doc_id) whose doc_hash differs from an earlier folder's."""
        first = self.items.setdefault((subtask, doc_id), (doc_hash, model, path.name, number))
        if first[0] is None:
            self.items[(subtask, doc_id)] = (doc_hash, model, path.name, number)
        elif doc_hash is not None and doc_hash != first[0]:
            raise AlignmentError(
                f"{at(path, number)}: task {subtask!r} doc_id {doc_id} has doc_hash {short(doc_hash)} "
                f"but {first[1]}'s doc_id {doc_id} ({first[2]}, line {first[3]}) has {short(first[0])}: "
                "the runs did not score the same items (another dataset version, order or subset); "
                "re-run the models on one dataset"
            )

    def hashed(self, path: Path, present: bool) -> None:
        """Count a samples file, and whether it carries doc_hash."""
        self.files += 1
        if not present:
            self.unhashed.append(f"{path.parent.name}/{path.name}")

    def another_run(self, folder: Path, files: list[tuple[str, Path]], digests: tuple[str, ...]) -> None:
        """Refuse a folder holding the same run as an earlier one (same model and settings, or the same files)."""
        self.stamps.append((folder.name, SAMPLES.match(files[0][1].name)["stamp"]))
        identity = _run_identity(folder, files)
        if identity is None:
            self.unnamed.append(folder.name)
        elif identity[1] in self.runs:
            raise AlignmentError(
                f"{folder.name} and {self.runs[identity[1]]} are both runs of model {identity[0]} with the "
                "same settings (their results files say so); keep one of them"
            )
        else:
            self.runs[identity[1]] = folder.name
        if digests in self.copies:
            raise AlignmentError(
                f"{folder} and {self.copies[digests]} hold byte-identical samples files: both are the "
                "same run; keep one of them"
            )
        self.copies[digests] = folder

    def runs_note(self, run: str | None) -> str | None:
        """The run read of each folder, when ``run`` chose it; a stamp that is no folder's run is refused."""
        if run is None:
            return None
        if run != "latest" and all(stamp != run for _, stamp in self.stamps):
            raise AlignmentError(f"--run {run!r} is the run of no folder (their runs: {_listed(self.stamps)})")
        asked = "the newest of each folder" if run == "latest" else f"{run} where a folder has several"
        return f"runs read (--run {run}: {asked}): {_listed(self.stamps)}"

    def notes(self) -> list[str]:
        """The notes on unhashed files and unnamed runs."""
        notes = []
        if self.unhashed:
            listed = ", ".join(self.unhashed[:3]) + (
                f" and {len(self.unhashed) - 3:,} more" if len(self.unhashed) > 3 else ""
            )
            which = (
                "no samples file"
                if len(self.unhashed) == self.files
                else f"{len(self.unhashed):,} of {self.files:,} samples files ({listed})"
            )
            notes.append(
                f"{which} carr{'ies' if which.startswith('no') else 'y no'} doc_hash (older lm-eval): "
                "those items are matched by doc_id alone, not checked to be the same documents"
            )
        if self.unnamed:
            notes.append(
                f"no results file naming the model beside the samples of {', '.join(self.unnamed)}: "
                "not checked to be runs of different models"
            )
        return notes
