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

import hashlib
import json
import math
import re
import stat as file_modes
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
    "member_problem",
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
    named : bool
        Whether the spec has a ``name`` (``--run-spec`` matches on it).
    scenario_label : str or None
        ``scenario_spec`` in short for the notes: the class's last name and its args, ``BBQScenario(subject='all')``.
    """

    folder: Path
    name: str
    model: str
    scenario: str | None
    named: bool = True
    scenario_label: str | None = None


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


#: Stats HELM writes for every request whatever the scenario, which are never scores of the answer: its "general
#: information" and "efficiency" metrics (``helm.benchmark.metrics.basic_metrics`` and ``efficiency_metrics``; the
#: schema's "Infrastructure metrics"): token, byte, reference and train-instance counts, runtimes, batch sizes, the
#: finish reason, the prompt's truncation, the completion's log-probability, the training cost.  On a few instances
#: they too fall in [0, 1] (a 0/1 ``prompt_truncated``, a runtime under a second), so the message asking for
#: ``--metric`` lists them apart, after the stats that may be scores, rather than among them.
_BOOKKEEPING = re.compile(
    r"num_.*|.*_runtime|batch_size|finish_reason_.*|logprob|max_prob|prompt_truncated|training_.*_cost"
)


@dataclass
class RunStats:
    """The chosen stat's values in one run, and per stat name whether it looks like a per-instance score."""

    path: Path
    values: list[StatValue] = field(default_factory=list)
    score_like: dict[str, bool] = field(default_factory=dict)
    entries: int = 0
    #: SHA-256 of the entries as parsed (canonical JSON, keys sorted): the same run given twice has the same digest
    #: however its file was rewritten (indented, keys reordered); two runs differ at least in their runtimes.
    digest: str = ""

    def scores_listed(self) -> str:
        """The stats with one value in [0, 1] per instance: those that may be scores, then HELM's bookkeeping."""
        names = sorted(name for name, like in self.score_like.items() if like)
        other = [name for name in names if _BOOKKEEPING.fullmatch(name)]
        scores = [name for name in names if name not in other]
        listed = ", ".join(scores) if scores else "none"
        return listed + (
            f"; other stats, not scores (token counts, runtimes, ...): {', '.join(other)}" if other else ""
        )


def member_problem(path: Path) -> str | None:
    """What keeps a run folder's member from being read: None for a regular file, else what the path is.

    Parameters
    ----------
    path : pathlib.Path
        ``RUN/per_instance_stats.json`` or ``RUN/run_spec.json`` (a symbolic link is followed).

    Returns
    -------
    str or None
        None for a regular file; ``"no such file"``, ``"a folder, not a file"``, ``"a pipe or device, not a file"``
        or ``"cannot be read (REASON)"``.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    if file_modes.S_ISREG(mode):
        return None
    return "a folder, not a file" if file_modes.S_ISDIR(mode) else "a pipe or device, not a file"


def _read(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    # A pipe or device in a run folder is never a user's stream (read_input_bytes reads pipes given as inputs).
    problem = member_problem(path)
    if problem is not None:
        raise InputError(f"{path}: {problem}; a HELM run folder holds {PER_INSTANCE} and {RUN_SPEC} as files")
    return read_input_bytes(path, limit)


def _scenario_label(scenario: Any) -> str | None:
    """``BBQScenario(subject='all')`` from ``{"class_name": "helm...bbq_scenario.BBQScenario", "args": {...}}``."""
    if not isinstance(scenario, dict):
        return None if scenario is None else describe_value(scenario, 60)
    class_name = scenario.get("class_name")
    short = class_name.rsplit(".", 1)[-1] if isinstance(class_name, str) else describe_value(class_name, 40)
    args = scenario.get("args")
    shown = (
        ", ".join(f"{key}={describe_value(value, 30)}" for key, value in args.items()) if isinstance(args, dict) else ""
    )
    return f"{short}({shown if len(shown) <= 80 else shown[:77] + '...'})"


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
        No ``run_spec.json`` (or a pipe, device or folder by that name), damaged JSON, not an object, no
        ``adapter_spec.model``, or a ``name`` that is not text.
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
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise InputError(
            f"{path}: name is {describe_value(name)}; HELM writes the run's name as text (e.g. "
            "'mmlu:subject=anatomy,model=openai_gpt2'), which --run-spec matches"
        )
    scenario = spec.get("scenario_spec")
    return RunSpec(
        folder,
        folder.name if name is None else name,
        model,
        None if scenario is None else json.dumps(scenario, sort_keys=True, default=str),
        named=name is not None,
        scenario_label=_scenario_label(scenario),
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
        The stat's values, per stat name whether it looks like a per-instance score, and the entries' SHA-256.

    Raises
    ------
    InputError
        No such file (or a pipe, device or folder by that name); damaged JSON, naming the entry; not a list; an
        entry without an instance id, a whole-number ``train_trial_index`` or a list of stats; a stat without a name
        object; a split, sub-split or perturbation of the wrong kind.
    """
    path = folder / PER_INSTANCE
    run, digest = RunStats(path), hashlib.sha256()
    entries = json_array_items(_read(path, MAX_STATS_BYTES), str(path), expected="HELM's list of per-instance stats")
    for index, entry in entries:
        where = f"{path}[{index}]"
        digest.update(json.dumps(entry, sort_keys=True, separators=(",", ":")).encode() + b"\n")
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
    run.digest = digest.hexdigest()
    return run
