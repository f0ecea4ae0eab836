"""One lm-evaluation-harness ``results_*.json`` file as an :class:`~.aggregates_records.Aggregate`.

The accuracy is ``results[TASK]["METRIC,FILTER"]``: the task by ``--task`` (or
the only one), the metric by ``--metric`` (or the only one), the filter by
``--filter`` (or the only one the metric has).  N is
``n-samples[TASK].effective`` (the documents scored after ``--limit``; the
notes say when it is below ``original``); a file without it (older lm-eval)
takes N from ``--n``.  A group (``group_subtasks``) has
no ``n-samples`` entry of its own: its accuracy is read only when it is the
size-weighted mean of its subtasks' (lm-eval's ``weight_by_size``), and then
N is the sum of their ``effective`` (and must equal the group's
``sample_count`` where the file has one); an unweighted mean of subtask
accuracies is no count over N items and is refused.

The standard error ``METRIC_stderr,FILTER`` is tested against N
(:func:`~.aggregates_records.check_stderr`; a group's against lm-eval's
pooled standard error of its subtasks): a mismatch means the accuracy was
not computed on N items, and the file is refused.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from llm_power_verified.io.aggregates_records import (
    STDERR_TOLERANCE,
    Aggregate,
    accuracy_value,
    check_stderr,
    choose,
    whole_count,
)
from llm_power_verified.io.errors import InputError, describe_value

__all__ = ["is_lm_eval_results", "lm_eval_aggregate"]


def is_lm_eval_results(document: Any) -> bool:
    """An lm-eval results document: ``results`` with ``n-samples`` or ``config`` (lighteval's has ``config_general``).

    Parameters
    ----------
    document : object
        A parsed JSON document.

    Returns
    -------
    bool
        Whether it has lm-eval's keys.
    """
    return (
        isinstance(document, dict)
        and isinstance(document.get("results"), dict)
        and ("n-samples" in document or "config" in document)
        and "config_general" not in document
    )


def _model(document: dict, path: Path) -> str:
    config = document.get("config") if isinstance(document.get("config"), dict) else {}
    arguments = config.get("model_args")
    pretrained = None
    if isinstance(arguments, dict):
        pretrained = arguments.get("pretrained")
    elif isinstance(arguments, str):  # older lm-eval: "pretrained=NAME,dtype=..."
        pretrained = next(
            (part.split("=", 1)[1] for part in arguments.split(",") if part.strip().startswith("pretrained=")), None
        )
    for name in (pretrained, document.get("model_name"), config.get("model")):
        if isinstance(name, str) and name.strip():
            return name.strip()
    raise InputError(
        f"{path}: no model name (config.model_args pretrained=..., model_name or config.model); "
        "not an lm-eval results file?"
    )


def _entry(document: dict, task: str, path: Path) -> dict:
    entry = document["results"].get(task)
    if not isinstance(entry, dict) and isinstance(document.get("groups"), dict):
        entry = document["groups"].get(task)
    if not isinstance(entry, dict):
        raise InputError(f"{path}: results[{task!r}] is {describe_value(entry)}, not an object of metrics")
    return entry


def _metric_key(entry: dict, task: str, metric: str | None, filter: str | None, path: Path) -> str:
    """The key "METRIC,FILTER" of the entry chosen by --metric and --filter."""
    pairs = [
        tuple(key.split(",", 1))
        for key in entry
        if isinstance(key, str) and "," in key and not key.split(",", 1)[0].endswith("_stderr")
    ]
    metrics = list(dict.fromkeys(name for name, _ in pairs))
    where = f"{path}, results[{task!r}]"
    chosen = choose("metric", metrics, metric, "--metric", where)
    filters = [name for metric_name, name in pairs if metric_name == chosen]
    return f"{chosen},{choose('filter', filters, filter, '--filter', f'{where}, metric {chosen!r}')}"


def _effective(
    document: dict, task: str, path: Path, n: int | None = None, group: str | None = None
) -> tuple[int, int | None, str]:
    """(effective, original, where N was read) of ``n-samples[task]``; ``n`` (``--n``) when the file has none.

    ``group``: the task is a subtask of that group, whose N is the sum of its subtasks' (``--n`` cannot give it).
    """
    samples = document.get("n-samples")
    entry = samples.get(task) if isinstance(samples, dict) else None
    if not isinstance(entry, dict) or "effective" not in entry:
        if n is not None and group is None:
            return n, None, "--n"
        fix = (
            f"the N of group {group!r} cannot be counted: read one task with --task and give --n N"
            if group is not None
            else "give the benchmark size with --n N"
        )
        raise InputError(
            f"{path}: no n-samples[{task!r}].effective (the file has no N for the task; older lm-eval versions do "
            f"not write it); {fix}"
        )
    where = f"{path}, n-samples[{task!r}]"
    effective = whole_count(entry["effective"], f"{where}.effective")
    original = entry.get("original")
    original = whole_count(original, f"{where}.original") if original is not None else None
    return effective, original, "n-samples effective"


def _subtasks(document: dict, task: str) -> list[str]:
    groups = document.get("group_subtasks")
    members = groups.get(task) if isinstance(groups, dict) else None
    return [name for name in members if isinstance(name, str)] if isinstance(members, list) else []


def _leaves(document: dict, task: str) -> list[str]:
    """The tasks (not groups) under ``task``, depth first; ``task`` itself when it is no group."""
    members = _subtasks(document, task)
    return [leaf for member in members for leaf in _leaves(document, member)] if members else [task]


def _group(document: dict, task: str, key: str, value: float, path: Path) -> tuple[int, str, list[str]]:
    """N of a group whose metric is the size-weighted mean of its subtasks', and the notes; refused otherwise."""
    metric, filter = key.split(",", 1)
    stderr_key = f"{metric}_stderr,{filter}"
    sizes, values, errors = [], [], []
    for leaf in _leaves(document, task):
        size, _, _ = _effective(document, leaf, path, group=task)
        entry = _entry(document, leaf, path)
        if key not in entry:
            raise InputError(f"{path}: subtask {leaf!r} of group {task!r} has no {key!r}; the group cannot be checked")
        leaf_value = accuracy_value(entry[key], f"{path}, results[{leaf!r}][{key!r}]")
        stderr, _ = check_stderr(
            entry.get(stderr_key), leaf_value, size, f"{path}, results[{leaf!r}][{stderr_key!r}]", "n-samples"
        )
        sizes.append(size)
        values.append(leaf_value)
        errors.append(stderr)
    n = sum(sizes)
    weighted = math.fsum(size * leaf_value for size, leaf_value in zip(sizes, values, strict=True)) / n
    # The group's mean is computed by lm-eval as a float sum over a few subtasks: relative 1e-12 is far above its
    # rounding and far below the gap to an unweighted mean (unless the subtasks' sizes or accuracies are equal).
    if abs(value - weighted) > 1e-12 * max(weighted, 1e-300):
        raise InputError(
            f"{path}: results[{task!r}][{key!r}] is {value!r}, not the size-weighted mean {weighted!r} of its "
            f"{len(sizes)} subtasks (an unweighted mean of subtask accuracies is no count of items right out of N): "
            f"read one subtask with --task, or audit the per-item samples"
        )
    counted = _entry(document, task, path).get("sample_count")
    if isinstance(counted, dict) and key in counted and whole_count(counted[key], f"{path}, sample_count") != n:
        raise InputError(
            f"{path}: group {task!r} has sample_count[{key!r}] {counted[key]!r}, but its subtasks' n-samples "
            f"effective sum to {n:,}; the file does not hold together"
        )
    stderr = _entry(document, task, path).get(stderr_key)
    if None not in errors and isinstance(stderr, (int, float)) and not isinstance(stderr, bool):
        # lm-eval's pooled_sample_stderr: sqrt(sum((n_i - 1) n_i se_i^2) / (N - m) / N).
        pooled = math.sqrt(
            math.fsum((size - 1) * size * error**2 for size, error in zip(sizes, errors, strict=True))
            / (n - len(sizes))
            / n
        )
        if abs(stderr - pooled) > STDERR_TOLERANCE * pooled:
            raise InputError(
                f"{path}, results[{task!r}][{stderr_key!r}] is {stderr!r}, not the pooled standard error {pooled:.10g} "
                "of its subtasks; the file does not hold together"
            )
    return (
        n,
        "sum of its subtasks' n-samples effective",
        [
            f"{path}: {task!r} is a group of {len(sizes)} tasks; its {key} is their size-weighted mean, so N is "
            f"the sum of their n-samples effective ({n:,})"
        ],
    )


def lm_eval_aggregate(
    path: Path, document: dict, *, task: str | None, metric: str | None, filter: str | None, n: int | None = None
) -> Aggregate:
    """The model, accuracy, N and standard error of one lm-eval results document.

    Parameters
    ----------
    path : pathlib.Path
        The file (for messages).
    document : dict
        Its parsed content (:func:`is_lm_eval_results`).
    task, metric, filter : str or None
        ``--task``, ``--metric``, ``--filter``: needed when the file holds several.
    n : int, optional
        ``--n``: used only when the file has no ``n-samples`` for the task (a task, not a group).

    Returns
    -------
    Aggregate
        What the file says.
    """
    model = _model(document, path)
    tasks = list(document["results"])
    chosen = choose("task", tasks, task, "--task", str(path))
    entry = _entry(document, chosen, path)
    key = _metric_key(entry, chosen, metric, filter, path)
    where = f"{path}, results[{chosen!r}][{key!r}]"
    value = accuracy_value(entry[key], where)
    metric_name, filter_name = key.split(",", 1)
    if _subtasks(document, chosen):
        n, n_from, notes = _group(document, chosen, key, value, path)
        return Aggregate(path, "lm-eval", model, value, n, n_from, f"{chosen} {key}", None, tuple(notes))
    n, original, n_from = _effective(document, chosen, path, n)
    notes = []
    if original is not None and original != n:
        notes.append(f"{path}: lm-eval scored {n:,} of the task's {original:,} documents (a --limit run); N = {n:,}")
    stderr_key = f"{metric_name}_stderr,{filter_name}"
    stderr, note = check_stderr(entry.get(stderr_key), value, n, f"{path}, results[{chosen!r}][{stderr_key!r}]", n_from)
    notes += [note] if note else []
    return Aggregate(path, "lm-eval", model, value, n, n_from, f"{chosen} {key}", stderr, tuple(notes))
