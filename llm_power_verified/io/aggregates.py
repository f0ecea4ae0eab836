"""Harness result files as the accuracies table of the accuracies-only audit: one model per file, N from the files.

A leaderboard of K result files, one per model, of one harness, becomes an
:class:`~llm_power_verified.io.accuracy_table.AccuracyTable` (what
``audit-accuracies`` and ``plan accuracies`` audit):

* lm-evaluation-harness ``results_*.json`` (:mod:`.aggregates_lm_eval`):
  ``results[TASK]["METRIC,FILTER"]``, N = ``n-samples[TASK].effective``;
* lighteval results JSON (``config_general``, ``results``): the file has no N,
  so ``--n`` gives it;
* Inspect logs (``.eval`` or ``.json``): ``results.scores[SCORER].metrics``,
  N = the scorer's ``scored_samples``;
* HELM run folders or their ``stats.json``: the unperturbed stat of a split,
  N = its ``num_instances`` (the last three in :mod:`.aggregates_formats`).

Every file must name a different model, read the same task and metric, and
give the same N: the accuracies-only audit pairs models scored on one set of
items, so files of different N are refused (``--n`` cannot fix that: it is
the files that differ; give runs on the same items).  A standard error stored
beside the accuracy is tested against N; a mismatch means the accuracy was
not computed on N items and is refused.

The counts k.  JSON stores an accuracy as a binary double, never as printed
digits: 0.27 in a file is the double nearest 27/100, and its shortest
``repr`` ("0.27") does not say how many digits were meant.  Reading that
``repr`` as a printed value would allow every k with k/N in [0.265, 0.275]
(k from 53 to 55 of 200), three counts where the file determines one.  So the
counts are computed from the double itself, exactly (``fractions``): the
harnesses compute a mean of 0/1 scores as a sum of at most N terms and one
division, whose rounding error is below (N + 1) u with u = 2^-53 (Higham,
*Accuracy and Stability of Numerical Algorithms*, 2nd ed., section 4.2), so
the allowed counts are the whole k with abs(k/N - value) <= (N + 1) u.  Below
N ~ 6.7e7 that is one k (k/N is then at least 1/N from the next count); a
value no count gives is not a count of items right out of N (a
macro-average, a graded metric, another N) and is refused, or listed in the
notes with ``approximate``.  The report prints each value's shortest
``repr``; it never calls a double that is k/N to within that error
inconsistent.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path

import numpy as np

from llm_power_verified.contract import MAX_COUNT
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.accuracy_table import AccuracyTable
from llm_power_verified.io.aggregates_formats import (
    helm_aggregate,
    inspect_aggregate,
    inspect_header,
    is_lighteval_results,
    lighteval_aggregate,
)
from llm_power_verified.io.aggregates_lm_eval import is_lm_eval_results, lm_eval_aggregate
from llm_power_verified.io.aggregates_records import Aggregate, check_regular
from llm_power_verified.io.errors import InputError
from llm_power_verified.io.lm_eval_runs import load_json
from llm_power_verified.io.openai_evals import is_openai_evals_log
from llm_power_verified.io.table_alignment import same_name_repeat

__all__ = ["is_result_file", "read_aggregates", "result_kind", "table_refusal"]

_RESULTS_NAME = re.compile(r"results_.*\.json", re.IGNORECASE)
_KIND_NAMES = {
    "lm-eval": "an lm-eval results file",
    "lighteval": "a lighteval results file",
    "Inspect": "an Inspect log",
    "HELM": "a HELM run's stats.json",
}
_KINDS_READ = "lm-eval results_*.json, lighteval results JSON, Inspect logs, HELM run folders or their stats.json"
#: The options each kind reads (the others would be ignored, so they are refused).
_OPTIONS = {
    "task": ("lm-eval", "lighteval"),
    "metric": ("lm-eval", "lighteval", "Inspect", "HELM"),
    "filter": ("lm-eval",),
    "scorer": ("Inspect",),
    "split": ("HELM",),
}


def result_kind(path: str | Path) -> str | None:
    """Which harness wrote a result file: "lm-eval", "lighteval", "Inspect", "HELM", or None.

    Parameters
    ----------
    path : str or pathlib.Path
        A file or folder.

    Returns
    -------
    str or None
        The harness; None when the path is none of their result files.  A ``results_*.json`` that cannot be parsed
        is "lm-eval" (its reader then says why).  A pipe or device is never opened: None, unless its name is a
        result file's.

    Raises
    ------
    InputError
        A pipe or device named like a result file (``results_*.json``, ``stats.json``, ``*.eval``): it is found by
        its name and opened twice, and a pipe without a writer would block for ever.
    """
    path = Path(path)
    if path.is_dir():
        return "HELM" if _is_helm_run(path) else None
    name = path.name.lower()
    by_name = "HELM" if name == "stats.json" else "Inspect" if name.endswith(".eval") else None
    if by_name is not None or _RESULTS_NAME.fullmatch(path.name):
        check_regular(path)  # a pipe named like a result file would block for ever (no writer)
    elif path.exists() and not path.is_file():
        return None  # a pipe or device is never opened to sniff it: the table reader reads a pipe once
    if by_name is not None or not name.endswith(".json"):
        return by_name
    try:
        document = load_json(path)
    except InputError:
        return "lm-eval" if _RESULTS_NAME.fullmatch(path.name) else None
    if is_lighteval_results(document):
        return "lighteval"
    if is_lm_eval_results(document):
        return "lm-eval"
    if isinstance(document, dict) and isinstance(document.get("eval"), dict) and "results" in document:
        return "Inspect"
    return None


def is_result_file(path: str | Path) -> bool:
    """Whether a path is a harness result file that :func:`read_aggregates` reads.

    Parameters
    ----------
    path : str or pathlib.Path
        An lm-eval ``results_*.json`` (``results`` with ``n-samples`` or ``config``), a lighteval results JSON
        (``config_general``, ``results``), an Inspect log (``.eval``, or ``.json`` with ``eval`` and ``results``), a
        HELM run folder or its ``stats.json``.

    Returns
    -------
    bool
        True for those.

    Examples
    --------
    >>> is_result_file("accuracies.csv")
    False
    """
    return result_kind(path) is not None


def _is_helm_run(path: Path) -> bool:
    return (path / "stats.json").exists() and (path / "run_spec.json").exists()  # a pipe is refused when read


def _listed(paths: list[Path]) -> str:
    return ", ".join(path.name for path in paths[:3]) + (f", ... ({len(paths):,} in all)" if len(paths) > 3 else "")


def _folder_refusal(path: Path) -> InputError:
    """The refusal of a folder that is no HELM run: a suite folder, a per-item output folder, any other folder."""
    try:
        children = sorted(path.iterdir())
    except OSError as error:
        return InputError(f"{path}: cannot list the folder ({error.strerror})")
    runs = [child for child in children if child.is_dir() and _is_helm_run(child)]
    if runs:
        return InputError(
            f"{path}: a HELM suite folder (runs {_listed(runs)}), not a result file; give the run folders to compare, "
            f"one per model ({path}/RUN_NAME..., or their stats.json)"
        )
    names = [child.name.lower() for child in children]
    if any(name.startswith("samples_") or _RESULTS_NAME.fullmatch(name) for name in names):
        results = [child for child in children if _RESULTS_NAME.fullmatch(child.name)]
        here = f"the models' results files here (this folder's: {results[-1]})" if results else "their results_*.json"
        return InputError(
            f"{path}: per-item results, not a result file; audit them with 'audit {path} --task TASK --metric "
            f"METRIC', or give {here}"
        )
    return InputError(
        f"{path}: a folder, not a result file; give the result files to compare, one per model ({_KINDS_READ})"
    )


def table_refusal(path: str | Path) -> InputError | None:
    """Why one FILE is neither a table of accuracies nor a result file, when it is plainly something else.

    Parameters
    ----------
    path : str or pathlib.Path
        The one FILE of ``audit-accuracies`` that :func:`is_result_file` did not recognise.

    Returns
    -------
    InputError or None
        The refusal of a folder (a HELM suite folder: give its run folders; an lm-eval output folder: audit it per
        item), an lm-eval samples file or an OpenAI evals log (per-item results: audit them); None otherwise (the
        table reader reads it).
    """
    path = Path(path)
    if path.is_dir() or _per_item_log(path):
        return _not_a_result_file(path)
    return None


def _per_item_log(path: Path) -> bool:
    name = path.name.lower()
    return (name.startswith("samples_") and name.endswith(".jsonl")) or is_openai_evals_log(path)


def _not_a_result_file(path: Path) -> InputError:
    """The refusal of a path that is no result file, saying what it looks like."""
    if path.is_dir():
        return _folder_refusal(path)
    name = path.name.lower()
    if name.startswith("samples_") and name.endswith(".jsonl"):
        return InputError(
            f"{path}: per-item results, not a result file; audit them with 'audit {path.parent} --task TASK --metric "
            "METRIC', or give the run's results_*.json here"
        )
    if is_openai_evals_log(path):
        return InputError(
            f"{path}: an OpenAI evals log, which holds per-item results (one event per sample), not a result file; "
            "audit the logs with 'audit LOG...', one per model (the per-item audit pairs the samples)"
        )
    return InputError(
        f"{path}: not a harness result file ({_KINDS_READ}); a table of accuracies (model and accuracy columns) is "
        "read only when it is the one FILE given"
    )


def _read_one(path: Path, kind: str, options: dict, n: int | None) -> Aggregate:
    if kind == "HELM":
        return helm_aggregate(path, metric=options["metric"], split=options["split"], n=n)
    if kind == "Inspect":
        return inspect_aggregate(path, inspect_header(path), scorer=options["scorer"], metric=options["metric"], n=n)
    document = load_json(path)
    if kind == "lighteval":
        return lighteval_aggregate(path, document, task=options["task"], metric=options["metric"], n=n)
    if not is_lm_eval_results(document):
        raise InputError(f"{path}: no 'results' with 'n-samples' or 'config'; not an lm-eval results file")
    return lm_eval_aggregate(
        path, document, task=options["task"], metric=options["metric"], filter=options["filter"], n=n
    )


def _check_together(records: list[Aggregate], n: int | None) -> int:
    """The one N of the records; refuses a second model of one name, another task or metric, another N."""
    first = records[0]
    for index, record in enumerate(records):
        earlier = next((other for other in records[:index] if other.model == record.model), None)
        if earlier is not None:
            raise InputError(
                f"{record.path}: model {record.model!r} is also the model of {earlier.path}; one result file per model"
            )
        if record.what != first.what:
            raise InputError(
                f"{record.path}: read {record.what} while {first.path} read {first.what}; the audit compares one "
                "benchmark: choose the same with --task/--metric"
            )
    alike = same_name_repeat([record.model for record in records])
    if alike is not None:
        one, other, how = alike
        raise InputError(
            f"{records[other].path}: model {records[other].model!r} and {records[one].model!r} "
            f"({records[one].path}) are the same name once {how}; one result file per model"
        )
    for record in records:
        if n is not None and record.n_from != "--n" and record.n != n:
            raise InputError(
                f"--n {n} contradicts {record.path}, whose N is {record.n:,} ({record.n_from}); leave --n out, the "
                "files give N"
            )
        if record.n != first.n:
            raise InputError(
                f"{record.path} has N = {record.n:,} ({record.n_from}) while {first.path} has N = {first.n:,}: the "
                "accuracies-only audit pairs models scored on the same items, and --n cannot make them so; give "
                "result files of runs on the same items (same task, no different --limit)"
            )
    return int(first.n)


def _counts(value: float, n: int) -> tuple[int, int]:
    """The whole k with |k/n - value| <= (n + 1) 2^-53, exactly (module notes): (low, high); low > high: none."""
    exact, tolerance = Fraction(value), Fraction(n + 1, 2**53)
    low = math.ceil((exact - tolerance) * n)
    high = math.floor((exact + tolerance) * n)
    return max(low, 0), min(high, n)


def read_aggregates(
    paths: Iterable[str | Path],
    *,
    task: str | None = None,
    metric: str | None = None,
    filter: str | None = None,
    n: int | None = None,
    scorer: str | None = None,
    split: str | None = None,
    approximate: bool = False,
) -> AccuracyTable:
    """Read K harness result files, one model each, into the accuracies table of the accuracies-only audit.

    Parameters
    ----------
    paths : iterable of str or pathlib.Path
        The result files (:func:`is_result_file`), at least two, all of one harness.
    task : str, optional
        lm-eval, lighteval: the task or group (``--task``); needed when a file holds several.
    metric : str, optional
        The metric (lm-eval, lighteval, Inspect) or HELM stat (``--metric``); needed when there are several.
    filter : str, optional
        lm-eval: the filter, when the metric has several (``--filter``).
    n : int, optional
        The benchmark size, for files without one (lighteval; ``--n``); a file that gives N must agree.
    scorer : str, optional
        Inspect: the scorer, when a log has several (``--scorer``).
    split : str, optional
        HELM: the split, when the stat has several (``--split``).
    approximate : bool, default False
        Accept an accuracy that is k/N for no whole k (``--approximate-accuracies``): listed in the notes.

    Returns
    -------
    AccuracyTable
        One row per file, in the order given (``lines`` holds each file's position), on the scale "fraction".

    Raises
    ------
    ArgumentError
        ``n`` that is not a whole number from 1 to ``MAX_COUNT``.
    InputError
        A path that is no result file (a samples file: the message says how to audit it), files of different
        harnesses, an option their harness does not read, fewer than two files, and what each reader refuses
        (module notes of :mod:`.aggregates_lm_eval` and :mod:`.aggregates_formats`); two files of one model, of
        another task or metric, or of another N; an accuracy of 0 or 1, or one that no k/N gives (unless
        ``approximate``).

    Notes
    -----
    The allowed counts are the whole k with abs(k/N - value) <= (N + 1) 2^-53 (module notes).

    Examples
    --------
    >>> import json, tempfile
    >>> with tempfile.TemporaryDirectory() as name:
    ...     for model, accuracy in (("a", 0.27), ("b", 0.255)):
    ...         document = {
    ...             "results": {"t": {"acc,none": accuracy}},
    ...             "n-samples": {"t": {"effective": 200}},
    ...             "config": {"model_args": {"pretrained": model}},
    ...         }
    ...         _ = (Path(name) / f"results_{model}.json").write_text(json.dumps(document))
    ...     table = read_aggregates(sorted(Path(name).glob("results_*.json")))
    >>> table.models, table.n, table.count_low.tolist(), table.count_high.tolist()
    (('a', 'b'), 200, [54, 51], [54, 51])
    """
    if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_COUNT):
        raise ArgumentError(f"n must be a whole number of items from 1 to {MAX_COUNT:,}; got {n!r}")
    paths = [Path(path) for path in ([paths] if isinstance(paths, (str, Path)) else paths)]
    kinds = []
    for path in paths:
        kind = result_kind(path)
        if kind is None:
            raise _not_a_result_file(path)
        if kinds and kind != kinds[0]:
            raise InputError(
                f"{path} is {_KIND_NAMES[kind]} while {paths[0]} is {_KIND_NAMES[kinds[0]]}; one leaderboard's files "
                "come from one harness (the same benchmark scored the same way)"
            )
        kinds.append(kind)
    if len(paths) < 2:
        raise InputError(f"{paths[0] if paths else 'no file'}: {len(paths)} result file(s); a comparison needs two")
    options = {"task": task, "metric": metric, "filter": filter, "scorer": scorer, "split": split}
    for name, value in options.items():
        if value is not None and kinds[0] not in _OPTIONS[name]:
            readers = " and ".join(_OPTIONS[name])
            raise InputError(
                f"--{name} {value!r} applies to {readers} result files; {paths[0]} is {_KIND_NAMES[kinds[0]]}, so it "
                "would be ignored: leave it out"
            )
    records = [_read_one(path, kinds[0], options, n) for path in paths]
    size = _check_together(records, n)
    return _table(records, size, approximate)


def _table(records: list[Aggregate], size: int, approximate: bool) -> AccuracyTable:
    for record in records:
        if not 0 < record.accuracy < 1:
            raise InputError(
                f"{record.path}: {record.what} is {record.accuracy!r}; an accuracy of 0 or all items leaves no "
                "per-item variance to pair (the accuracy must lie strictly between 0 and 1)"
            )
    counts = [_counts(record.accuracy, size) for record in records]
    bad = [index for index, (low, high) in enumerate(counts) if low > high]
    if bad and not approximate:
        record = records[bad[0]]
        raise InputError(
            f"{record.path}: {record.what} {record.accuracy!r} is not k/{size:,} for any whole k (N = {size:,}, "
            f"{record.n_from}): not a count of items right out of N (a macro-average, a graded metric, another N); "
            "pass --approximate-accuracies to audit it as it is"
        )
    first = records[0]
    notes = [
        f"accuracies read from {len(records)} {first.kind} result files ({first.what}); N = {size:,} "
        f"({first.n_from}); 'line' is each file's position on the command line",
        "each accuracy is the double the file stores (shown as its shortest repr); its count k is the whole k with "
        f"k/{size:,} equal to it up to the rounding of a mean of N scores",
    ]
    notes += [note for record in records for note in record.notes]
    if bad:
        listed = ", ".join(f"{records[index].model} ({records[index].accuracy!r})" for index in bad[:5])
        notes.append(
            f"inputs inconsistent: {len(bad)} of {len(records)} accuracies are not k/{size:,} for any whole k: "
            f"{listed}; accepted as approximate (--approximate-accuracies)"
        )
    return AccuracyTable(
        models=tuple(record.model for record in records),
        accuracy=np.asarray([record.accuracy for record in records]),
        printed=tuple(repr(record.accuracy) for record in records),
        n=size,
        scale="fraction",
        scale_reason=f"{first.kind} result files store fractions",
        lines=tuple(range(1, len(records) + 1)),
        count_low=np.asarray([low for low, _ in counts], dtype=np.int64),
        count_high=np.asarray([high for _, high in counts], dtype=np.int64),
        source=", ".join(str(record.path) for record in records),
        notes=tuple(notes),
    )
