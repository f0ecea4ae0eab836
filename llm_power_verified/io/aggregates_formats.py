"""lighteval results JSON, Inspect logs and HELM ``stats.json`` as :class:`~.aggregates_records.Aggregate` records.

* lighteval: ``results[TASK][METRIC]`` (``--task`` matches the key, such as
  ``arith_mc|0``, or one of its ``|``-separated parts), the model from
  ``config_general.model_name``.  The file records no N (``effective_num_docs``
  is -1 in lighteval's own output): N comes from ``--n`` and is tested against
  ``METRIC_stderr``; without ``--n`` the file is refused, and the message says
  which N the standard error fits.
* Inspect (``.eval`` header or ``.json`` log): ``results.scores[SCORER]
  .metrics[METRIC].value`` (the scorer by ``--scorer``, the metric by
  ``--metric``, each when there are several; ``stderr``, ``std`` and ``var``
  are not accuracies), the model from ``eval.model``.  N is the scorer's
  ``scored_samples`` (the distinct samples scored); Inspect's
  ``completed_samples`` and ``total_samples`` count samples times epochs, and
  are the fallback only for logs without ``scored_samples`` and with one
  epoch.  A log of several epochs is refused: its accuracy is a mean of epoch
  means, not a count of items right out of N.  The ``stderr`` metric is tested
  against N unless it has parameters (a clustered standard error).
* HELM: in ``stats.json`` the stat ``{name: METRIC, split: SPLIT}`` without
  ``perturbation``, its ``mean``; N is the ``num_instances`` stat of the same
  split; the model is ``adapter_spec.model`` of the ``run_spec.json`` beside it.
  A run of several train trials is refused (its mean averages the trials).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from llm_power_verified.io.aggregates_records import (
    Aggregate,
    accuracy_value,
    check_regular,
    check_stderr,
    choose,
    fitted_n,
    whole_count,
)
from llm_power_verified.io.errors import InputError, describe_value
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.lm_eval_runs import load_json
from llm_power_verified.io.text import check_input_kind
from llm_power_verified.io.zip_members import read_zip_member

__all__ = [
    "helm_aggregate",
    "helm_stats_path",
    "inspect_aggregate",
    "inspect_header",
    "is_lighteval_results",
    "lighteval_aggregate",
]

_NOT_ACCURACIES = ("stderr", "std", "var")


def is_lighteval_results(document: Any) -> bool:
    """A lighteval results document: ``config_general`` and ``results`` objects.

    Parameters
    ----------
    document : object
        A parsed JSON document.

    Returns
    -------
    bool
        Whether it has lighteval's keys.
    """
    return (
        isinstance(document, dict)
        and isinstance(document.get("config_general"), dict)
        and isinstance(document.get("results"), dict)
    )


def _lighteval_task(tasks: list[str], task: str | None, path: Path) -> str:
    if task is not None and task not in tasks:
        matches = [name for name in tasks if task in name.split("|")]
        if len(matches) == 1:
            return matches[0]
    return choose("task", tasks, task, "--task", str(path))


def lighteval_aggregate(
    path: Path, document: dict, *, task: str | None, metric: str | None, n: int | None
) -> Aggregate:
    """The model, accuracy and standard error of a lighteval results document, at N = ``n``.

    Parameters
    ----------
    path : pathlib.Path
        The file (for messages).
    document : dict
        Its parsed content (:func:`is_lighteval_results`).
    task, metric : str or None
        ``--task``, ``--metric``: needed when the file holds several.
    n : int or None
        ``--n``: the file has no N of its own.

    Returns
    -------
    Aggregate
        What the file says.
    """
    general = document["config_general"]
    config = general.get("model_config") if isinstance(general.get("model_config"), dict) else {}
    model = next(
        (name.strip() for name in (general.get("model_name"), config.get("model_name")) if isinstance(name, str)), ""
    )
    if not model:
        raise InputError(f"{path}: no config_general.model_name; not a lighteval results file?")
    tasks = [name for name in document["results"] if name != "all"]
    chosen = _lighteval_task(tasks, task, path)
    entry = document["results"][chosen]
    if not isinstance(entry, dict):
        raise InputError(f"{path}: results[{chosen!r}] is {describe_value(entry)}, not an object of metrics")
    metrics = [name for name in entry if isinstance(name, str) and not name.endswith("_stderr")]
    key = choose("metric", metrics, metric, "--metric", f"{path}, results[{chosen!r}]")
    where = f"{path}, results[{chosen!r}][{key!r}]"
    value = accuracy_value(entry[key], where)
    stderr = entry.get(f"{key}_stderr")
    if n is None:
        hint = ""
        if isinstance(stderr, (int, float)) and not isinstance(stderr, bool) and stderr > 0:
            hint = f" (its {key}_stderr {stderr!r} {fitted_n(value, stderr)})"
        raise InputError(
            f"{path}: the file has no N (lighteval's results JSON does not record how many items were scored){hint}; "
            "give the benchmark size with --n N"
        )
    checked, note = check_stderr(stderr, value, n, f"{path}, results[{chosen!r}][{key + '_stderr'!r}]", "--n")
    return Aggregate(path, "lighteval", model, value, n, "--n", f"{chosen} {key}", checked, (note,) if note else ())


def inspect_header(path: Path) -> Any:
    """The header of an Inspect log: ``header.json`` of a ``.eval`` archive, or the whole ``.json`` log.

    Parameters
    ----------
    path : pathlib.Path
        The log.

    Returns
    -------
    object
        The parsed header.
    """
    if path.suffix.lower() == ".json":
        return load_json(path)
    check_input_kind(path)
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise InputError(f"{path}: not a readable .eval archive ({error})") from None
    with archive:
        names = archive.namelist()
        if names.count("header.json") != 1:
            raise InputError(
                f"{path}: {names.count('header.json')} 'header.json' members; an Inspect log has one (holding the "
                "results)"
            )
        return parse_json(read_zip_member(archive, path, "header.json"), f"{path}, member 'header.json'")


def _inspect_n(path: Path, results: dict, score: dict, at: str) -> tuple[int, str] | None:
    """N of a one-epoch log's scorer: its scored_samples, else the log's completed (or total) samples; None: none."""
    if score.get("scored_samples") is not None:
        return whole_count(score["scored_samples"], f"{at}.scored_samples"), "scored_samples"
    for key in ("completed_samples", "total_samples"):
        if results.get(key) is not None:
            return whole_count(results[key], f"{path}, results.{key}"), key
    return None


def inspect_aggregate(path: Path, header: Any, *, scorer: str | None, metric: str | None, n: int | None) -> Aggregate:
    """The model, accuracy, N and standard error of an Inspect log's results.

    Parameters
    ----------
    path : pathlib.Path
        The log (for messages).
    header : object
        Its header (:func:`inspect_header`).
    scorer, metric : str or None
        ``--scorer``, ``--metric``: needed when the log holds several.
    n : int or None
        ``--n``: used only when the log has no N.

    Returns
    -------
    Aggregate
        What the log says.
    """
    where = str(path)
    evaluation = header.get("eval") if isinstance(header, dict) else None
    model = evaluation.get("model") if isinstance(evaluation, dict) else None
    if not isinstance(model, str) or not model.strip():
        raise InputError(f"{where}: no 'eval.model' (got {describe_value(model)}); not an Inspect log header")
    results = header.get("results")
    if not isinstance(results, dict) or not isinstance(results.get("scores"), list):
        raise InputError(
            f"{where}: no results (status {describe_value(header.get('status'))}); an Inspect log holds results "
            "when its run finished"
        )
    config = evaluation.get("config") if isinstance(evaluation.get("config"), dict) else {}
    epochs = config.get("epochs") or 1
    if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs > 1:
        raise InputError(
            f"{where}: eval.config.epochs is {describe_value(epochs)}; its accuracy is a mean over epochs, not a count "
            "of items right out of N: audit the per-item log with 'audit LOG --epochs first|mean|all'"
        )
    scores = [score for score in results["scores"] if isinstance(score, dict)]
    names = [str(score.get("name")) for score in scores]
    chosen = choose("scorer", names, scorer, "--scorer", f"{where}, results.scores")
    score = scores[names.index(chosen)]
    metrics = score.get("metrics") if isinstance(score.get("metrics"), dict) else {}
    at = f"{where}, results.scores[{chosen!r}]"
    key = choose("metric", [name for name in metrics if name not in _NOT_ACCURACIES], metric, "--metric", at)
    entry = metrics[key]
    value = accuracy_value(entry.get("value") if isinstance(entry, dict) else entry, f"{at}.metrics[{key!r}].value")
    found = _inspect_n(path, results, score, at)
    if found is None and n is None:
        raise InputError(f"{at}: no scored_samples (nor completed_samples): the log has no N; give it with --n N")
    size, n_from = found or (n, "--n")
    notes = []
    total, completed = results.get("total_samples"), results.get("completed_samples")
    if isinstance(total, int) and isinstance(completed, int) and completed < total:
        notes.append(f"{path}: {completed:,} of {total:,} samples completed (status {header.get('status')!r})")
    unscored = score.get("unscored_samples")
    if isinstance(unscored, int) and unscored > 0:
        notes.append(f"{path}: {unscored:,} samples were not scored; N is the {size:,} scored")
    error = metrics.get("stderr") if isinstance(metrics.get("stderr"), dict) else None
    stderr = None
    if error is not None and error.get("params"):
        notes.append(f"{path}: the stderr metric has parameters {describe_value(error['params'])}; not checked")
    else:
        stderr, note = check_stderr(
            error.get("value") if error else None, value, size, f"{at}.metrics['stderr'].value", n_from
        )
        notes += [note] if note else []
    return Aggregate(path, "Inspect", model.strip(), value, size, n_from, f"{chosen} {key}", stderr, tuple(notes))


def helm_stats_path(path: Path) -> Path:
    """The ``stats.json`` of a HELM run folder, or the file itself.

    Parameters
    ----------
    path : pathlib.Path
        A run folder or its ``stats.json``.

    Returns
    -------
    pathlib.Path
        The ``stats.json``.
    """
    return path / "stats.json" if path.is_dir() else path


def _helm_stat(stats: list, name: str, split: str) -> dict | None:
    for stat in stats:
        label = stat.get("name") if isinstance(stat, dict) else None
        if (
            isinstance(label, dict)
            and label.get("name") == name
            and label.get("split") == split
            and label.get("perturbation") is None
        ):
            return stat
    return None


def _helm_model(path: Path) -> str:
    spec_path = path.parent / "run_spec.json"
    check_regular(spec_path)
    if not spec_path.is_file():
        raise InputError(f"{path}: no run_spec.json beside it (the run folder's model is named there)")
    spec = load_json(spec_path)
    adapter = spec.get("adapter_spec") if isinstance(spec, dict) else None
    model = adapter.get("model") if isinstance(adapter, dict) else None
    if not isinstance(model, str) or not model.strip():
        raise InputError(f"{spec_path}: adapter_spec.model is {describe_value(model)}; expected the model's name")
    return model.strip()


def helm_aggregate(path: Path, *, metric: str | None, split: str | None, n: int | None) -> Aggregate:
    """The model, mean and N of one HELM run's ``stats.json``.

    Parameters
    ----------
    path : pathlib.Path
        A run folder or its ``stats.json``.
    metric, split : str or None
        ``--metric`` (the stat's name) and ``--split``: needed when there are several.
    n : int or None
        ``--n``: used only when the run has no ``num_instances`` stat.

    Returns
    -------
    Aggregate
        What the run's statistics say.
    """
    path = helm_stats_path(path)
    check_regular(path)
    stats = load_json(path)
    if not isinstance(stats, list):
        raise InputError(f"{path}: a JSON {type(stats).__name__} where HELM's list of statistics is expected")
    labels = [
        stat["name"]
        for stat in stats
        if isinstance(stat, dict) and isinstance(stat.get("name"), dict) and stat["name"].get("perturbation") is None
    ]
    names = [name for name in dict.fromkeys(str(label.get("name")) for label in labels) if not name.startswith("num_")]
    chosen = choose("stat", names, metric, "--metric", str(path))
    splits = list(dict.fromkeys(str(label.get("split")) for label in labels if label.get("name") == chosen))
    split = choose("split", splits, split, "--split", f"{path}, stat {chosen!r}")
    where = f"{path}, stat {{name: {chosen!r}, split: {split!r}}}"
    stat = _helm_stat(stats, chosen, split)
    value = accuracy_value(stat.get("mean"), f"{where} mean")
    trials = _helm_stat(stats, "num_train_trials", split)
    if trials is not None and isinstance(trials.get("mean"), (int, float)) and trials["mean"] > 1:
        raise InputError(
            f"{path}: num_train_trials is {trials['mean']!r}; the mean averages the trials, not a count of items "
            "right out of N: audit the per-instance statistics with 'audit RUN_FOLDER --epochs first|mean|all'"
        )
    instances = _helm_stat(stats, "num_instances", split)
    if instances is None:
        if n is None:
            raise InputError(f"{path}: no num_instances stat for split {split!r}; the run has no N; give it with --n N")
        return Aggregate(path, "HELM", _helm_model(path), value, n, "--n", f"{chosen} ({split})")
    size = whole_count(instances.get("mean"), f"{path}, stat {{name: 'num_instances', split: {split!r}}} mean")
    return Aggregate(path, "HELM", _helm_model(path), value, size, "num_instances", f"{chosen} ({split})")
