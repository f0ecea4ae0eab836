"""Stanford CRFM HELM run folders: per-instance stats of one model per run, aligned by instance id.

A HELM *run folder* (``benchmark_output/runs/SUITE/RUN_NAME/``) holds ``run_spec.json`` (the run's ``name`` and
``adapter_spec.model``, the model whose column the run fills) and ``per_instance_stats.json`` (one entry per
instance, perturbation and train trial; :mod:`llm_power_verified.io.helm_records` says what is read of it).  A *suite
folder* (``benchmark_output/runs/SUITE/``) holds run folders; ``run_spec`` picks the runs to read from it.

The stat (``metric``, ``--metric``) is required: HELM writes dozens per instance.  Its values are read on one split
(the only one with the stat, or ``split``, ``--split``) and, by default, unperturbed (stats whose name has no
``perturbation``; the notes say how many perturbed entries were left out), or under one perturbation by name
(``perturbation``, ``--perturbation``).  Items are the instance ids (HELM gives a perturbed copy of an instance the
original's id).  Train trials (``train_trial_index``: HELM's ``num_train_trials`` repetitions with different
few-shot examples) follow ``epochs`` (``--epochs``) as Inspect epochs do: every instance of a run must have the same
trials, each once.

The runs must be of different models (``adapter_spec.model``) and of one scenario (``scenario_spec``): a second run
of a model, or a run of another scenario, is refused naming both folders.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.helm_records import (
    PER_INSTANCE,
    RUN_SPEC,
    RunSpec,
    RunStats,
    member_problem,
    read_run_spec,
    read_stats,
)
from llm_power_verified.io.helm_trials import kept_trials, split_and_values, trial_table
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.repeated_tables import from_long_repeated
from llm_power_verified.io.tables import from_long

__all__ = ["is_helm_run", "is_helm_suite", "read_helm"]

_EPOCHS = ("first", "mean", "all", "error")


def is_helm_run(folder: str | Path) -> bool:
    """Whether ``folder`` is a HELM run folder: it holds ``per_instance_stats.json`` and ``run_spec.json``.

    Either may be a pipe or device by that name: the reader then refuses it saying so, not that it is missing.

    Parameters
    ----------
    folder : str or pathlib.Path
        The path.

    Returns
    -------
    bool
        True for a folder holding both files.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     run = pathlib.Path(folder)
    ...     _ = (run / "run_spec.json").write_text("{}")
    ...     before = is_helm_run(run)
    ...     _ = (run / "per_instance_stats.json").write_text("[]")
    ...     before, is_helm_run(run)
    (False, True)
    """
    folder = Path(folder)
    return folder.is_dir() and all((folder / name).exists() for name in (PER_INSTANCE, RUN_SPEC))


def _lacking(folder: Path) -> str | None:
    """The one file a folder holding only one of a run's two files lacks; None for a run or a folder with neither."""
    present = [(folder / name).exists() for name in (PER_INSTANCE, RUN_SPEC)]
    return None if present[0] == present[1] else (RUN_SPEC if present[0] else PER_INSTANCE)


def _refuse_partial(folder: Path, lacking: str, *, suite: Path | None = None) -> None:
    held = PER_INSTANCE if lacking == RUN_SPEC else RUN_SPEC
    within = "" if suite is None else f" (in the suite folder {suite}, a run whose model would drop out)"
    raise InputError(
        f"{folder / lacking}: {member_problem(folder / lacking)}; a HELM run folder holds {PER_INSTANCE} and "
        f"{RUN_SPEC} (this one only {held}){within}: was the run interrupted, or the folder copied in part?"
    )


def is_helm_suite(folder: str | Path) -> bool:
    """Whether ``folder`` is a HELM suite folder: one of its subfolders is a run folder (:func:`is_helm_run`).

    Parameters
    ----------
    folder : str or pathlib.Path
        The path (``benchmark_output/runs/SUITE``).

    Returns
    -------
    bool
        True for a folder, not itself a run folder, with a run folder in it.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     run = pathlib.Path(folder) / "task:model=m1"
    ...     run.mkdir()
    ...     for name in ("run_spec.json", "per_instance_stats.json"):
    ...         _ = (run / name).write_text("{}")
    ...     is_helm_suite(folder), is_helm_suite(run)
    (True, False)
    """
    folder = Path(folder)
    return folder.is_dir() and not is_helm_run(folder) and any(map(is_helm_run, _subfolders(folder)))


def _subfolders(folder: Path) -> list[Path]:
    try:
        return sorted(child for child in folder.iterdir() if child.is_dir())
    except OSError as error:
        raise InputError(f"{folder}: cannot list it ({error.strerror})") from None


def _matches(pattern: str, spec: RunSpec | str) -> bool:
    """A shell-style pattern against the run's name and folder name (or a folder name); without wildcards, a part."""
    names = (spec,) if isinstance(spec, str) else (spec.name, spec.folder.name)
    if any(character in pattern for character in "*?["):
        return any(fnmatch.fnmatchcase(name, pattern) for name in names)
    return any(pattern in name for name in names)


def _runs(paths: list[Path], run_spec: str | None) -> list[RunSpec]:
    """The run folders to read: the run folders given, and those of each suite folder that ``run_spec`` matches."""
    suites = [path for path in paths if not is_helm_run(path)]
    if run_spec is not None and not suites:
        raise ArgumentError(
            f"--run-spec {run_spec!r} picks runs in a suite folder, but every folder given is a run folder; "
            "give the suite folder (benchmark_output/runs/SUITE) or leave --run-spec out"
        )
    runs = []
    for path in paths:
        if is_helm_run(path):
            runs.append(read_run_spec(path))
            continue
        if not path.is_dir():
            raise InputError(f"{path}: no such folder; give HELM run folders or a suite folder")
        lacking = _lacking(path)
        if lacking is not None:
            _refuse_partial(path, lacking)
        children = _subfolders(path)
        for child in children:
            # A half-written run is refused, not skipped, unless --run-spec leaves it out by its folder's name.
            lacking = _lacking(child)
            if lacking is not None and (run_spec is None or _matches(run_spec, child.name)):
                _refuse_partial(child, lacking, suite=path)
        inside = [read_run_spec(child) for child in children if is_helm_run(child)]
        if not inside:
            raise InputError(
                f"{path}: neither a HELM run folder ({PER_INSTANCE} and {RUN_SPEC}) nor a suite folder holding any"
            )
        unnamed = next((spec for spec in inside if not spec.named), None)
        if run_spec is not None and unnamed is not None:
            raise InputError(
                f"{unnamed.folder / RUN_SPEC}: no 'name'; --run-spec {run_spec!r} matches each run's name (HELM "
                "writes one), which this run lacks: restore it, or give the run folders themselves without --run-spec"
            )
        chosen = [spec for spec in inside if run_spec is None or _matches(run_spec, spec)]
        if not chosen:
            listed = ", ".join(repr(spec.name) for spec in inside[:5]) + (
                f" and {len(inside) - 5:,} more" if len(inside) > 5 else ""
            )
            raise InputError(f"{path}: no run matches --run-spec {run_spec!r} (runs: {listed})")
        runs.extend(chosen)
    return runs


def _one_run_per_model(runs: list[RunSpec], suite: bool) -> None:
    """Refuse two runs of one model, or runs of different scenarios, naming both folders."""
    models: dict[str, RunSpec] = {}
    for spec in runs:
        first = models.setdefault(spec.model, spec)
        if first is not spec:
            fix = "choose one run per model with --run-spec" if suite else "give one run folder per model"
            raise AlignmentError(
                f"{first.folder} and {spec.folder} are both runs of model {spec.model!r} (adapter_spec.model in "
                f"{RUN_SPEC}); {fix}"
            )
    scenarios = [spec for spec in runs if spec.scenario is not None]
    for spec in scenarios[1:]:
        if spec.scenario != scenarios[0].scenario:
            raise AlignmentError(
                f"{scenarios[0].folder} and {spec.folder} are runs of different scenarios (scenario_spec "
                f"{describe_value(scenarios[0].scenario, 80)} and {describe_value(spec.scenario, 80)} in {RUN_SPEC}); "
                "their instances are not the same items: choose runs of one scenario"
                + (" with --run-spec" if suite else "")
            )


def _runs_note(runs: list[RunSpec]) -> str:
    """The scenario and the runs read (at most 10 named), for the report's notes."""
    labels = [spec.scenario_label for spec in runs if spec.scenario_label is not None]
    names = [spec.name for spec in runs]
    shown = ", ".join(names[:10]) + (f" and {len(names) - 10:,} more" if len(names) > 10 else "")
    scenario = f"scenario {labels[0]}" if labels else f"no scenario_spec in {RUN_SPEC}"
    return f"HELM {scenario}; {len(names):,} run{'s' if len(names) != 1 else ''} read: {shown}"


def _same_file_twice(seen: dict[str, RunSpec], spec: RunSpec, run: RunStats) -> None:
    """Refuse a run whose per_instance_stats.json holds another's entries: one run given under two names."""
    first = seen.setdefault(run.digest, spec)
    if first is not spec:
        raise AlignmentError(
            f"{first.folder} and {spec.folder} hold the same {PER_INSTANCE} (every entry alike, runtimes too; "
            f"SHA-256 {run.digest[:16]}... of the entries): one run "
            f"given twice, as models {first.model!r} and {spec.model!r} (adapter_spec.model); give each run once"
        )


def _stat_present(run: RunStats, metric: str | None) -> None:
    if metric is None:
        raise ArgumentError(
            f"{run.path}: name the stat to read with --metric (stats with one value in [0, 1] per instance: "
            f"{run.scores_listed()})"
        )
    if not run.values:
        raise AlignmentError(
            f"{run.path}: no stat {metric!r} (stats with one value in [0, 1] per instance: {run.scores_listed()}); "
            "check --metric"
        )


@docfill("on_missing", "score_kind", returns="score_matrix")
def read_helm(
    paths: Iterable[str | Path],
    *,
    metric: str | None,
    split: str | None = None,
    perturbation: str | None = None,
    run_spec: str | None = None,
    epochs: str = "error",
    on_missing: str = "error",
    score_kind: str = "auto",
) -> ScoreMatrix:
    """Read HELM run folders (one model each) or a suite folder's runs, aligned by instance id.

    Parameters
    ----------
    paths : iterable of str or pathlib.Path
        Run folders (``benchmark_output/runs/SUITE/RUN_NAME``), or suite folders (``benchmark_output/runs/SUITE``)
        whose runs ``run_spec`` picks.
    metric : str or None
        The stat read (``quasi_exact_match``, ``exact_match``, ``f1_score``, ...; ``--metric``).  Required: None is
        refused listing the stats that have one value in [0, 1] per instance.
    split : str, optional
        The split (``test``, ``valid``); required when the stat is on several (``--split``).
    perturbation : str, optional
        Read the stat under this perturbation (its ``name``, e.g. ``mild_mix``) instead of unperturbed
        (``--perturbation``).
    run_spec : str, optional
        Which runs of a suite folder to read: a shell-style pattern (``*``, ``?``, ``[...]``) matched against each
        run's name (``run_spec.json``) and folder name, or, without wildcards, a part of either
        (``simple_short_answer_qa``); at most one run per model may match (``--run-spec``).
    epochs : {"first", "mean", "all", "error"}, default "error"
        HELM's train trials (``train_trial_index``): "first" keeps the lowest, "mean" averages them (graded
        scores, as asked), "all" keeps each as a generation of its item (item means with ``matrix.generations``;
        at least two trials per run), "error" refuses a run with several (``--epochs``).
    %(on_missing)s
    %(score_kind)s

    Raises
    ------
    ArgumentError
        An unknown ``epochs``; no ``metric``; ``run_spec`` without a suite folder.
    InputError
        A folder that is neither a run nor a suite folder; a run folder (given, or in a suite folder) holding only one
        of the two files; a pipe or device named as one; no run matching ``run_spec``, or a run without a ``name``
        when ``run_spec`` is given; damaged JSON (through :func:`~llm_power_verified.io.json_input.parse_json`);
        ``run_spec.json`` without ``adapter_spec.model``; two runs of one model or of different scenarios; one
        ``per_instance_stats.json`` given twice (the same entries, by SHA-256) under two model names; an entry without
        an instance id or whole-number ``train_trial_index``; the stat absent, on several splits with none chosen,
        under no such perturbation; the stat given twice for one instance, trial, split and perturbation; a trial
        some instances lack; a value whose count is not 1, whose mean is not sum / count, or that lies outside
        [0, 1]; naming the file, the entry, the instance, the value and the flag.  Then the matrix rules (missing
        items, and instance ids that differ only by blanks, follow ``on_missing``: ids are kept as written).

    Notes
    -----
    The notes name the stat, split and perturbation read, the scenario and the runs read (at most 10 by name).
    The per-model means equal HELM's own aggregate in ``stats.json`` (the stat of the same name, split and
    perturbation): HELM averages the per-instance values of each trial, then the trials.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> def entry(i, value):
    ...     stat = {"name": {"name": "exact_match", "split": "test"}, "count": 1, "sum": value, "mean": value}
    ...     return {"instance_id": f"id{i}", "train_trial_index": 0, "stats": [stat]}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     runs = []
    ...     for model, values in (("m/a", [1, 0, 1]), ("m/b", [0, 0, 1])):
    ...         run = pathlib.Path(folder) / model.replace("/", "_")
    ...         run.mkdir()
    ...         spec = {"name": f"qa:model={model}", "adapter_spec": {"model": model}}
    ...         _ = (run / "run_spec.json").write_text(json.dumps(spec))
    ...         entries = [entry(i, v) for i, v in enumerate(values)]
    ...         _ = (run / "per_instance_stats.json").write_text(json.dumps(entries))
    ...         runs.append(run)
    ...     matrix = read_helm(runs, metric="exact_match")
    >>> matrix.models, matrix.item_ids, matrix.scores.tolist()
    (('m/a', 'm/b'), ('id0', 'id1', 'id2'), [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    """
    if epochs not in _EPOCHS:
        raise ArgumentError(f"epochs must be 'first', 'mean', 'all' or 'error'; got {epochs!r}")
    paths = [Path(path) for path in paths]
    if not paths:
        raise ArgumentError("read_helm: no folders given; give HELM run folders or a suite folder")
    runs = _runs(paths, run_spec)
    _one_run_per_model(runs, suite=any(not is_helm_run(path) for path in paths))
    rows: dict[str, list] = {"item": [], "model": [], "score": [], "line": [], "trial": []}
    notes: list[str] = []
    chosen_split: tuple[str | None, Path] | None = None
    averaged = False
    seen: dict[str, RunSpec] = {}
    for spec in runs:
        run = read_stats(spec.folder, metric)
        _same_file_twice(seen, spec, run)
        _stat_present(run, metric)
        used, values, run_notes = split_and_values(run, spec.model, metric, split, perturbation)
        if chosen_split is not None and used != chosen_split[0]:
            raise AlignmentError(
                f"{run.path}: stat {metric!r} read on split {used!r} but on split {chosen_split[0]!r} in "
                f"{chosen_split[1]}; choose one split every run has with --split"
            )
        chosen_split = chosen_split or (used, run.path)
        table, every = trial_table(run.path, values, metric)
        kept, note = kept_trials(run.path, spec.model, every, epochs)
        notes.extend([*run_notes, *([note] if note else [])])
        averaged |= epochs == "mean" and len(kept) > 1
        for instance, by_trial in table.items():
            scores = [by_trial[trial].value() for trial in kept]
            generations = (
                zip(kept, scores, strict=True) if epochs == "all" else [(kept[0], math.fsum(scores) / len(scores))]
            )
            for trial, score in generations:
                rows["item"].append(instance)
                rows["model"].append(spec.model)
                rows["score"].append(score)
                rows["line"].append(by_trial[trial].where)
                rows["trial"].append(trial)
    shown_split = "no split" if chosen_split[0] is None else f"split {chosen_split[0]!r}"
    how = f"under perturbation {perturbation!r}" if perturbation is not None else "unperturbed"
    notes[:0] = [f"HELM stat {metric!r} on {shown_split}, {how}; items keyed by instance_id", _runs_note(runs)]
    long = pd.DataFrame(rows)
    lines = long.pop("line").to_numpy(dtype=object)
    # Instance ids are JSON strings, exact: 'id60 ' and 'id60' are two instances, never merged by a dropped blank.
    common = dict(
        item_column="item", on_missing=on_missing, source=f"HELM {metric}", lines=lines, notes=notes, exact_ids=True
    )
    if epochs == "all":
        return from_long_repeated(
            long, repeat_column="trial", score_kind=score_kind, single_hint="read it without --epochs", **common
        )
    # Averaging trials was asked for: the scores are graded by request, not by a silent switch.
    return from_long(long, score_kind="graded" if averaged and score_kind == "auto" else score_kind, **common)
