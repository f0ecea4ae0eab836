"""What the HELM reader reads of one run folder: ``run_spec.json`` and the chosen stat of ``per_instance_stats.json``.

HELM (``crfm-helm``) writes, per run, ``per_instance_stats.json``: a list of ``PerInstanceStats``, one per
(instance, perturbation, train trial): ``{instance_id, [perturbation], train_trial_index, stats}``, each stat a
``Stat`` of ``helm.benchmark.metrics.statistic``: ``{name: {name, split, [sub_split], [perturbation]}, count, sum,
sum_squared, [min, max, mean, variance, stddev]}`` with ``mean = sum / count`` (no ``mean`` when ``count`` is 0).
A per-instance correctness stat (``exact_match``, ``quasi_exact_match``, ...) holds one value: ``count`` 1.

The document is read entry by entry by :func:`~llm_power_verified.io.json_input.json_array_items` (the rules of
:func:`~llm_power_verified.io.json_input.parse_json`, memory bounded per entry, so a file of hundreds of MB is read
holding its text and one entry), and each entry reduced at once to the stat asked for (its place, instance,
trial, split, perturbation, and its value checked as a per-instance score), plus, per stat name, whether it looks
like a score (count 1 and a value in [0, 1] everywhere) for the message that lists the stats when the one asked
for is absent.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llm_power_verified.io.errors import InputError, describe_value
from llm_power_verified.io.json_input import json_array_items, parse_json
from llm_power_verified.io.text import MAX_INPUT_BYTES, kept_value, read_input_bytes
from llm_power_verified.results import Result

__all__ = [
    "MAX_ID_CHARACTERS",
    "MAX_STATS_BYTES",
    "PER_INSTANCE",
    "RUN_SPEC",
    "RunSpec",
    "StatValue",
    "read_run_spec",
    "read_stats",
]

PER_INSTANCE = "per_instance_stats.json"
RUN_SPEC = "run_spec.json"
#: Largest ``per_instance_stats.json`` read (384 MiB): its bytes and their text are held together while it is decoded
#: (768 MiB), then the text and one entry at a time, so reading stays under about 1 GB as parse_json's limit does.
MAX_STATS_BYTES = 384 << 20
#: Longest instance id read (4,096 characters; HELM's are like ``id1234``).
MAX_ID_CHARACTERS = 4096


@dataclass(frozen=True, repr=False)
class RunSpec(Result):
    """What is read of one run's ``run_spec.json``.

    Attributes
    ----------
    folder : pathlib.Path
        The run folder.
    name : str
        The run's ``name`` (the folder's name when the spec has none).
    model : str
        ``adapter_spec.model``: the model whose column the run fills.
    scenario : str or None
        ``scenario_spec`` as canonical JSON (sorted keys), or None when the spec has none.
    """

    folder: Path
    name: str
    model: str
    scenario: str | None


@dataclass(frozen=True, repr=False)
class StatValue(Result):
    """One value of the chosen stat in ``per_instance_stats.json``, checked as a per-instance score when read.

    A value that cannot be a per-instance score keeps the one-line refusal, raised by ``value()`` only if the value
    is used (a value of a split, perturbation or train trial left out is not refused).

    Attributes
    ----------
    where : str
        The file and place of the stat, ``per_instance_stats.json[12].stats[3]``.
    instance : str
        The ``instance_id``.
    trial : int
        The ``train_trial_index``.
    split, sub_split : str or None
        The stat name's ``split`` and ``sub_split``.
    perturbation : str or None
        The perturbation's ``name``; None for an unperturbed value.
    description : str or None
        The whole perturbation description as canonical JSON (None unperturbed).
    score : float or None
        The value (``mean``, which HELM writes as ``sum / count`` with ``count`` 1), in [0, 1]; None when refused.
    refusal : str or None
        Why the value is not a per-instance score (count not 1, not a finite number, mean not sum, outside [0, 1]),
        naming the place, the instance, the stat and the flag; None for a score.
    """

    where: str
    instance: str
    trial: int
    split: str | None
    sub_split: str | None
    perturbation: str | None
    description: str | None
    score: float | None
    refusal: str | None

    def value(self) -> float:
        """The score, or the refusal when the value is not a per-instance score.

        Returns
        -------
        float
            The value in [0, 1].

        Raises
        ------
        InputError
            The :attr:`refusal`.
        """
        if self.refusal is not None or self.score is None:
            raise InputError(self.refusal or f"{self.where}: no value")
        return self.score


def _checked_score(stat: str, count: Any, total: Any, mean: Any) -> float:
    """The one value of a stat (``mean``, else ``sum / count``), refusing what a per-instance score cannot be."""
    if isinstance(count, bool) or not isinstance(count, int):
        raise InputError(f"{stat} has count {describe_value(count)}; HELM writes a whole number")
    if count != 1:
        why = (
            "no value (HELM computed none for this instance)"
            if count == 0
            else f"{count} values merged into one instance's stat (sum {describe_value(total)})"
        )
        raise InputError(
            f"{stat} has count {count}: {why}; a per-instance score is one value (count 1), so this is not a "
            "per-instance score: choose another stat with --metric"
        )
    numbers = {}
    for field_name, raw in (("mean", mean), ("sum", total)):
        if raw is None and field_name == "mean":
            continue
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
            raise InputError(
                f"{stat} has {field_name} {describe_value(raw)}; HELM writes a finite number (count, sum, mean)"
            )
        numbers[field_name] = float(raw)
    value = numbers.get("mean", numbers["sum"])
    if value != numbers["sum"]:  # HELM computes mean = sum / count, exactly sum when count is 1
        raise InputError(
            f"{stat} has mean {describe_value(mean)} but sum {describe_value(total)} with count 1 "
            "(HELM writes mean = sum / count): the entry is damaged"
        )
    if not 0.0 <= value <= 1.0:
        raise InputError(
            f"{stat} has value {describe_value(mean if mean is not None else total)}, outside "
            "[0, 1]; the audit reads accuracies or partial credit in [0, 1]: choose a score stat with --metric"
        )
    return value


def _score(stat: dict, stat_place: str) -> tuple[float | None, str | None]:
    """(score, None), or (None, the refusal) for a value that is not a per-instance score."""
    try:
        fields = (kept_value(stat.get(name)) for name in ("count", "sum", "mean"))
        return _checked_score(stat_place, *fields), None
    except InputError as refusal:
        return None, str(refusal)


@dataclass
class RunStats:
    """The chosen stat's values in one run, and per stat name whether it looks like a per-instance score."""

    path: Path
    values: list[StatValue] = field(default_factory=list)
    score_like: dict[str, bool] = field(default_factory=dict)
    entries: int = 0

    def scores_listed(self) -> str:
        names = sorted(name for name, like in self.score_like.items() if like)
        return ", ".join(names) if names else "none"


def _read(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    if not path.is_file():
        raise InputError(f"{path}: no such file; a HELM run folder holds {PER_INSTANCE} and {RUN_SPEC}")
    return read_input_bytes(path, limit)


def read_run_spec(folder: Path) -> RunSpec:
    """The run's name, model (``adapter_spec.model``) and scenario from ``run_spec.json``.

    Parameters
    ----------
    folder : pathlib.Path
        The run folder.

    Returns
    -------
    RunSpec
        Its name, model and scenario.

    Raises
    ------
    InputError
        No ``run_spec.json``, damaged JSON, not an object, or no ``adapter_spec.model``.
    """
    path = folder / RUN_SPEC
    spec = parse_json(_read(path), str(path))
    if not isinstance(spec, dict):
        raise InputError(f"{path}: a JSON {type(spec).__name__} where HELM's run spec object is expected")
    adapter = spec.get("adapter_spec")
    model = adapter.get("model") if isinstance(adapter, dict) else None
    if not isinstance(model, str) or not model.strip():
        raise InputError(
            f"{path}: adapter_spec.model is {describe_value(model)}; HELM writes the model's name there "
            "(e.g. 'openai/gpt2'), which names the run's column"
        )
    name = spec.get("name")
    scenario = spec.get("scenario_spec")
    return RunSpec(
        folder,
        name if isinstance(name, str) and name else folder.name,
        model,
        None if scenario is None else json.dumps(scenario, sort_keys=True, default=str),
    )


def _instance(entry: Any, where: str) -> tuple[str, int, list]:
    if not isinstance(entry, dict):
        raise InputError(f"{where}: a JSON {type(entry).__name__} where a per-instance stats object is expected")
    instance = entry.get("instance_id")
    if not isinstance(instance, str) or not instance.strip():
        raise InputError(
            f"{where}: instance_id is {describe_value(instance)}; HELM writes the instance's id as text (e.g. 'id12')"
        )
    if len(instance) > MAX_ID_CHARACTERS:
        raise InputError(
            f"{where}: instance_id {describe_value(instance)} has {len(instance):,} characters (at most "
            f"{MAX_ID_CHARACTERS:,}); an id names an instance, it is not the instance"
        )
    trial = entry.get("train_trial_index")
    if isinstance(trial, bool) or not isinstance(trial, int) or trial < 0:
        raise InputError(
            f"{where}: instance {instance!r} has train_trial_index {describe_value(trial)}; HELM writes a whole "
            "number >= 0"
        )
    stats = entry.get("stats")
    if not isinstance(stats, list):
        raise InputError(f"{where}: instance {instance!r} has stats {describe_value(stats)}, not a list")
    return instance, trial, stats


def _stat_name(stat: Any, where: str, instance: str) -> dict:
    name = stat.get("name") if isinstance(stat, dict) else None
    if not isinstance(name, dict) or not isinstance(name.get("name"), str):
        raise InputError(
            f"{where}: instance {instance!r} has a stat without a name object {{name, split, ...}} (got "
            f"{describe_value(stat)})"
        )
    return name


def _perturbation(name: dict, where: str, instance: str) -> tuple[str | None, str | None]:
    perturbation = name.get("perturbation")
    if perturbation is None:
        return None, None
    label = perturbation.get("name") if isinstance(perturbation, dict) else None
    if not isinstance(label, str) or not label:
        raise InputError(
            f"{where}: instance {instance!r} has perturbation {describe_value(perturbation)}; HELM writes an object "
            "with a 'name'"
        )
    return label, json.dumps(perturbation, sort_keys=True, default=str)


def _text(value: Any, what: str, where: str, instance: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise InputError(f"{where}: instance {instance!r} has {what} {describe_value(value)}; HELM writes text")


def _looks_like_score(stat: dict) -> bool:
    value = stat.get("mean", stat.get("sum"))
    return (
        stat.get("count") == 1 and isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1
    )


def read_stats(folder: Path, metric: str | None) -> RunStats:
    """The values of stat ``metric`` in the run's ``per_instance_stats.json`` (module notes).

    The file is read entry by entry (:func:`~llm_power_verified.io.json_input.json_array_items`), each entry reduced
    at once, so that memory holds the file's text and one entry.

    Parameters
    ----------
    folder : pathlib.Path
        The run folder.
    metric : str or None
        The stat read; None reads none (only which stats look like scores, for the message asking for one).

    Returns
    -------
    RunStats
        The stat's values, and per stat name whether it looks like a per-instance score.

    Raises
    ------
    InputError
        No such file; damaged JSON, naming the entry; not a list; an entry without an instance id, a whole-number
        ``train_trial_index`` or a list of stats; a stat without a name object; a split, sub-split or perturbation
        of the wrong kind.
    """
    path = folder / PER_INSTANCE
    run = RunStats(path)
    entries = json_array_items(_read(path, MAX_STATS_BYTES), str(path), expected="HELM's list of per-instance stats")
    for index, entry in entries:
        where = f"{path}[{index}]"
        instance, trial, stats = _instance(entry, where)
        for number, stat in enumerate(stats):
            place = f"{where}.stats[{number}]"
            name = _stat_name(stat, place, instance)
            label = name["name"]
            run.score_like[label] = run.score_like.get(label, True) and _looks_like_score(stat)
            if label != metric:
                continue
            perturbation, description = _perturbation(name, place, instance)
            run.values.append(
                StatValue(
                    place,
                    instance,
                    trial,
                    _text(name.get("split"), "split", place, instance),
                    _text(name.get("sub_split"), "sub_split", place, instance),
                    perturbation,
                    description,
                    *_score(stat, f"{place}: instance {instance!r}, stat {metric!r}"),
                )
            )
        run.entries += 1
    return run
