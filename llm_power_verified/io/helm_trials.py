"""The HELM reader's choices within one run: the split, the perturbation, and the train trials kept.

A stat on several splits needs ``--split``; the unperturbed values are read unless ``--perturbation NAME`` asks for
one perturbation (one description per name: two descriptions sharing a name are refused).  Train trials are exact:
every instance has the same ``train_trial_index`` values, each once, or the run is refused naming the instance and
the trial; then a run of several is refused (``--epochs error``, the default) unless ``--epochs`` chooses: ``all``
keeps each as a generation, ``mean`` averages them, ``first`` keeps the first.
"""

from __future__ import annotations

from pathlib import Path

from llm_power_verified.io.errors import AlignmentError
from llm_power_verified.io.helm_records import RunStats, StatValue
from llm_power_verified.io.repeat_choice import CHOOSE, choose_repeats, exact_repeats

__all__ = ["kept_trials", "split_and_values", "trial_table"]


def _listed(names) -> str:
    shown = [repr(name) for name in names[:8]]
    return ", ".join(shown) + (f" and {len(names) - 8:,} more" if len(names) > 8 else "")


def _split(run: RunStats, metric: str, split: str | None) -> str | None:
    splits = sorted({value.split for value in run.values}, key=lambda name: (name is None, name or ""))
    if split is not None:
        if split not in splits:
            raise AlignmentError(
                f"{run.path}: stat {metric!r} has no split {split!r} (its splits: {_listed(splits)}); check --split"
            )
        return split
    if len(splits) > 1:
        raise AlignmentError(f"{run.path}: stat {metric!r} is on splits {_listed(splits)}; choose one with --split")
    return splits[0]


def split_and_values(
    run: RunStats, model: str, metric: str, split: str | None, perturbation: str | None
) -> tuple[str | None, list[StatValue], list[str]]:
    """(the split read, the values kept, notes) of one run: one split, unperturbed or under one perturbation.

    Parameters
    ----------
    run : RunStats
        The run's per-instance values of the stat.
    model : str
        The run's model, named in the notes.
    metric : str
        The stat's name (``--metric``), named in the messages.
    split : str or None
        The split asked for (``--split``); None: the stat's only split, or refused naming them.
    perturbation : str or None
        The perturbation asked for (``--perturbation``); None: the unperturbed values.

    Returns
    -------
    tuple
        ``(split, values, notes)``: the split read (None when the stat has none), the values kept, and the notes
        saying what was left out.
    """
    used = _split(run, metric, split)
    on_split = [value for value in run.values if value.split == used]
    where = f"stat {metric!r}" + ("" if used is None else f" on split {used!r}")
    names = sorted({value.perturbation for value in on_split if value.perturbation is not None})
    notes = []
    if perturbation is None:
        kept = [value for value in on_split if value.perturbation is None]
        if not kept:
            raise AlignmentError(
                f"{run.path}: {where} has only perturbed values (perturbations: {_listed(names)}); "
                "choose one with --perturbation"
            )
        left = len(on_split) - len(kept)
        if left:
            notes.append(
                f"{model}: left out {left:,} perturbed instance values of {metric!r} (perturbation"
                f"{'s' if len(names) > 1 else ''} {_listed(names)}); --perturbation NAME reads one instead"
            )
    else:
        kept = [value for value in on_split if value.perturbation == perturbation]
        if not kept:
            raise AlignmentError(
                f"{run.path}: no perturbation {perturbation!r} of {where} (perturbations: "
                f"{_listed(names) if names else 'none, only unperturbed values'}); check --perturbation"
            )
        first = kept[0]
        other = next((value for value in kept if value.description != first.description), None)
        if other is not None:
            raise AlignmentError(
                f"{other.where}: perturbation {perturbation!r} described as {other.description} but as "
                f"{first.description} at {first.where}: two perturbations share the name, --perturbation cannot "
                "tell them apart"
            )
        notes.append(
            f"{model}: {len(kept):,} instance values of {metric!r} under perturbation {perturbation!r} "
            f"(left out {len(on_split) - len(kept):,} others)"
        )
    sub_splits = sorted({value.sub_split for value in kept if value.sub_split is not None})
    if sub_splits:
        notes.append(f"{model}: sub-splits {_listed(sub_splits)} read together as one set of instances")
    return used, kept, notes


def _trial_list(trials: list[int]) -> str:
    """0, 1, 2 -> "0-2"; otherwise the numbers."""
    if len(trials) > 2 and trials == list(range(trials[0], trials[-1] + 1)):
        return f"{trials[0]}-{trials[-1]}"
    return ", ".join(map(str, trials))


def trial_table(path: Path, values: list[StatValue], metric: str) -> tuple[dict[str, dict[int, StatValue]], list[int]]:
    """{instance: {trial: value}} and the run's trials, refusing an (instance, trial) twice or a trial lacking.

    Parameters
    ----------
    path : Path
        The run's ``per_instance_stats.json``, named in the messages.
    values : list of StatValue
        The values kept (:func:`split_and_values`).
    metric : str
        The stat's name, named in the messages.

    Returns
    -------
    tuple
        ``(table, trials)``: ``{instance: {train_trial_index: value}}`` and the sorted trials every instance has.
    """
    return exact_repeats(
        values,
        lambda value: (value.instance, value.trial),
        twice=lambda value, earlier: (
            f"{value.where}: instance {value.instance!r} train trial {value.trial} has stat {metric!r} twice "
            f"(also at {earlier.where}); HELM writes each (instance, trial, perturbation) once"
        ),
        lacking=lambda instance, trial, its, every: (
            f"{path}: instance {instance!r} has no train trial {trial} for stat {metric!r} (its trials: "
            f"{_trial_list(its)}; the run's: {_trial_list(every)}); every instance needs the same train trials, "
            "each once"
        ),
    )


def kept_trials(path: Path, model: str, every: list[int], epochs: str) -> tuple[list[int], str | None]:
    """The train trials read under ``epochs`` (``--epochs``), and the note saying so (None: nothing to say).

    Parameters
    ----------
    path : Path
        The run's ``per_instance_stats.json``, named in the messages.
    model : str
        The run's model, named in the note.
    every : list of int
        The run's train trials, sorted (:func:`trial_table`).
    epochs : {"first", "mean", "all", "error"}
        ``"error"`` (the default of the reader) refuses several trials naming the three choices
        (``repeat_choice.CHOOSE``); ``"all"`` refuses a single one.

    Returns
    -------
    tuple
        ``(trials, note)``: the trials read and the note (None: nothing to say).
    """
    listed = _trial_list(every)
    # Every instance has the same trials (trial_table): one choice serves them all.
    kept, note = choose_repeats(
        {path: every},
        epochs,
        refuse_several=lambda _, __: (
            f"{path}: {len(every)} train trials per instance (train_trial_index {listed}); {CHOOSE}"
        ),
        refuse_single=lambda: (
            f"{path}: one train trial per instance (train_trial_index {every[0]}); --epochs all keeps every trial as "
            "a generation and needs at least 2 to see the within-item variance: read it without --epochs"
        ),
        note_several=lambda _, __: (
            f"{model}: {len(every)} train trials per instance ({listed}); "
            + {
                "first": f"kept train trial {every[0]} of each instance (--epochs mean or all reads the others)",
                "mean": f"averaged all {len(every)} of each instance (scores are graded)",
                "all": "kept every train trial as a generation of its instance",
            }[epochs]
        ),
        note_single=lambda: f"{model}: one train trial per instance, trial {every[0]}" if every[0] != 0 else None,
    )
    return kept[path], note
