"""Format detection: the one entry point from paths (or in-memory data) to a validated score matrix.

``read_scores`` takes what a user has and picks the reader by what the paths
are and what the files begin with (:func:`~llm_power_verified.io.input_kinds.input_kind`), never by guessing:

* folders -> lm-evaluation-harness ``--log_samples`` folders (needs ``task`` and ``metric``), HELM run or suite
  folders (``metric``), lighteval details folders;
* ``.eval`` / ``.json`` files -> Inspect logs, one per model;
* ``.jsonl`` files that begin with a ``spec`` line -> OpenAI ``evals`` logs, one per model;
* ``.parquet`` files with lighteval's details columns -> lighteval details, one per model;
* JSON or JSON Lines with declared fields (``item_field`` and ``score_field``) -> records;
* one ``.csv``/``.tsv``[``.gz``]/``.parquet``/``.jsonl`` file -> a wide or long table;
* two other files -> plain score files, one number per line, aligned by line;
* a pandas DataFrame -> a wide table (long when it has the model and score columns);
* a NumPy array -> (items x models) scores;
* a :class:`~llm_power_verified.io.matrix.ScoreMatrix` -> returned as it is.

Mixed kinds of input are refused.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import InputError
from llm_power_verified.io.input_kinds import TABLE_SUFFIXES, input_kind, refuse_twins
from llm_power_verified.io.inspect_logs import read_inspect
from llm_power_verified.io.lm_eval import read_lm_eval
from llm_power_verified.io.lm_eval_runs import choices_hint
from llm_power_verified.io.matrix import ScoreMatrix, from_array
from llm_power_verified.io.plain import read_score_files
from llm_power_verified.io.repeated_tables import from_long_repeated, from_wide_repeated
from llm_power_verified.io.table_files import read_frame, read_table
from llm_power_verified.io.tables import DEFAULT_ITEM_COLUMN, from_long, from_wide

__all__ = ["TABLE_SUFFIXES", "input_kind", "read_scores", "refuse_twins"]


@docfill(
    "item_column",
    "cluster_column",
    "long_columns",
    "on_missing",
    "score_kind",
    "missing_cluster",
    returns="score_matrix",
)
def read_scores(
    source,
    *,
    item_column: str = DEFAULT_ITEM_COLUMN,
    cluster_column: str | None = None,
    model_column: str = "model",
    score_column: str = "score",
    on_missing: str = "error",
    score_kind: str = "auto",
    missing_cluster: str = "error",
    task: str | None = None,
    metric: str | None = None,
    filter: str | None = None,
    scorer: str | None = None,
    epochs: str = "error",
    names: Sequence[str] | None = None,
    repeat_column: str | None = None,
    repeat_pattern: str | None = None,
    input_format: str = "auto",
    split: str | None = None,
    perturbation: str | None = None,
    run_spec: str | None = None,
    run: str | None = None,
    align_on: str = "id",
    records: str | None = None,
    item_field: str | None = None,
    score_field: str | None = None,
    model_field: str | None = None,
    repeat_field: str | None = None,
    cluster_field: str | None = None,
) -> ScoreMatrix:
    """Read any supported input into a validated score matrix.

    Parameters
    ----------
    source : str, pathlib.Path, sequence of those, pandas.DataFrame, numpy.ndarray or ScoreMatrix
        The input: path(s) (the reader is chosen by :func:`input_kind`), a DataFrame (long when it has
        ``model_column`` and ``score_column``, else wide), an (items x models) array, or a matrix (returned as it is).
    %(item_column)s
    %(cluster_column)s
    %(long_columns)s
    %(on_missing)s
    %(score_kind)s
    %(missing_cluster)s
    task, metric : str, optional
        lm-eval folders: the task (or group) and the per-item metric (both needed; ``--task``, ``--metric``); HELM:
        the per-instance stat (``metric``, needed); lighteval: the task and the metric (when the files hold several);
        OpenAI evals: the event type and field read (default: ``match`` events' ``correct``).
    filter : str, optional
        lm-eval folders: the filter, when a task has several (``--filter``).
    scorer : str, optional
        Inspect logs: the scorer, when a log has several (``--scorer``).
    epochs : {"first", "mean", "all", "error"}, default "error"
        Inspect logs: which epochs are read (:func:`~llm_power_verified.io.inspect_logs.read_inspect`); "all" keeps
        every epoch as a generation, "mean" averages them, "first" keeps the first; "error" refuses several (a log of
        one epoch per sample reads the same under all four).  The same for HELM's train trials and repeated samples
        of an OpenAI evals log.
    names : sequence of str, optional
        Model names of lm-eval folders (default: the folder names) or of an array's columns.
    repeat_column : str, optional
        Long tables (file or DataFrame): the column naming each row's repeat (epoch, sample, seed, run): one row per
        (item, model, repeat), read by :func:`~llm_power_verified.io.repeated_tables.from_long_repeated`
        (``--repeat-column``).
    repeat_pattern : str, optional
        Wide tables (file or DataFrame): how a header names its model and repeat, e.g. ``{model}@{repeat}``, read by
        :func:`~llm_power_verified.io.repeated_tables.from_wide_repeated` (``--repeat-pattern``).
    input_format : str, default "auto"
        The reader, when detection is ambiguous (``--input-format``; values in
        ``llm_power_verified.io.input_kinds.INPUT_FORMATS``).
    split, perturbation, run_spec : str, optional
        HELM: the split (when the stat has several), the perturbation read (default: the unperturbed instances), and
        the run folders of a suite folder to read (``--split``, ``--perturbation``, ``--run-spec``).
    run : str, optional
        lm-eval folders and lighteval details: which run, when a folder holds several ("latest" or a time stamp;
        ``--run``).
    align_on : {"id", "hash"}, default "id"
        lm-eval folders and lighteval details: pair items by their id, or by the content hashes the files carry
        (``--align-on``).
    records, item_field, score_field, model_field, repeat_field, cluster_field : str, optional
        JSON or JSON Lines with declared fields
        (:func:`~llm_power_verified.io.json_records.read_records`; ``--records``, ``--item-field``, ...): giving
        ``item_field`` or ``score_field`` chooses that reader.

    Raises
    ------
    InputError
        Anything :func:`input_kind` or the chosen reader refuses; lm-eval folders without ``task`` and ``metric``;
        a reader option the input's kind does not read (``task``, ``metric``, ``filter`` but for lm-eval folders;
        ``scorer``, ``epochs`` but for Inspect logs; the column and repeat options but for a table file), which would
        be ignored; both repeat options, a repeat column with a wide table, a repeat pattern with a long one.
    ArgumentError
        An empty ``repeat_column`` or ``repeat_pattern``.

    Notes
    -----
    With a repeat option (or ``epochs="all"``) the matrix holds the item means over the generations (graded) and
    ``matrix.generations`` each cell's count and sample variance
    (:class:`~llm_power_verified.io.generations.Generations`).

    No formula: the reader is chosen from what the inputs are, and each ends in
    :func:`~llm_power_verified.io.matrix.build_matrix`, which applies the rules of the matrix.

    References
    ----------
    README, section "Input formats and rules"; lm-evaluation-harness ``--log_samples`` output; Inspect AI's
    ``.eval`` log format.

    Examples
    --------
    >>> from importlib.resources import files
    >>> shipped = files("llm_power_verified") / "data" / "mmlu_pro_top10.csv.gz"
    >>> matrix = read_scores(shipped, cluster_column="random_category")
    >>> matrix.n_items, matrix.n_models, matrix.score_kind, len(set(matrix.clusters))
    (12032, 10, 'binary', 14)
    >>> import pandas as pd
    >>> read_scores(pd.DataFrame({"item_id": ["q1", "q2", "q3"], "a": [1, 0, 1], "b": [0, 0, 1]})).models
    ('a', 'b')
    """
    if isinstance(source, ScoreMatrix):
        return source
    repeats = _repeat_options(repeat_column, repeat_pattern)
    columns = dict(item_column=item_column, model_column=model_column, score_column=score_column)
    options = dict(
        cluster_column=cluster_column, on_missing=on_missing, score_kind=score_kind, missing_cluster=missing_cluster
    )
    if isinstance(source, pd.DataFrame):
        return _from_frame(source, None, "DataFrame", repeats, columns, options)
    if isinstance(source, np.ndarray):
        _refuse_unused("array", repeats)
        return from_array(source, models=names, score_kind=score_kind, source="array")
    paths = _paths(source, run=run, input_format=input_format, metric=metric, task=task)
    declared = {
        "records": records,
        "item_field": item_field,
        "score_field": score_field,
        "model_field": model_field,
        "repeat_field": repeat_field,
        "cluster_field": cluster_field,
    }
    chosen = input_format
    if chosen == "auto" and (item_field is not None or score_field is not None):
        chosen = "records"
    kind = input_kind(paths, chosen)
    given = {
        "task": task,
        "metric": metric,
        "filter": filter,
        "scorer": scorer,
        "epochs": None if epochs == "error" else epochs,
        "cluster_column": cluster_column,
        "item_column": None if item_column == DEFAULT_ITEM_COLUMN else item_column,
        "model_column": None if model_column == "model" else model_column,
        "score_column": None if score_column == "score" else score_column,
        **repeats,
        "split": split,
        "perturbation": perturbation,
        "run_spec": run_spec,
        "run": run,
        "align_on": None if align_on == "id" else align_on,
        **declared,
        "names": names,
    }
    _refuse_unused(kind, given)
    common = dict(on_missing=on_missing, score_kind=score_kind)
    if kind == "inspect":
        return read_inspect(paths, scorer=scorer, epochs=epochs, **common)
    if kind in ("lm-eval", "helm", "lighteval", "openai-evals", "records"):
        return _harness(kind, paths, given, missing_cluster, common)
    if kind == "table" and (repeat_column is not None or repeat_pattern is not None):
        text_columns = {name for name in (item_column, cluster_column, model_column, repeat_column) if name}
        frame, lines = read_frame(paths[0], text_columns, item_column)
        return _from_frame(frame, lines, str(paths[0]), repeats, columns, options)
    if kind == "table":
        return _repeat_header_note(read_table(paths[0], **columns, **options))
    return read_score_files(paths[0], paths[1], score_kind=score_kind)


def _paths(source, **texts) -> list[Path]:
    """The input paths of ``source`` (a path or a sequence of them); anything else refused, and ``texts`` not text."""
    for name, value in texts.items():
        if value is not None and not isinstance(value, str):
            raise ArgumentError(f"{name}={value!r}: give text (or leave it out)")
    if isinstance(source, (str, os.PathLike)):
        return [Path(source)]
    try:
        items = list(source)
    except TypeError:
        raise ArgumentError(f"source={source!r}: give a path, a sequence of paths, a DataFrame or an array") from None
    for item in items:
        if not isinstance(item, (str, os.PathLike)) or isinstance(os.fspath(item), bytes):
            raise ArgumentError(f"source holds {item!r}: each input is a path (str or pathlib.Path)")
    return [Path(item) for item in items]


def _repeat_options(repeat_column: str | None, repeat_pattern: str | None) -> dict:
    """The repeat options, refused when empty or both given."""
    repeats = {"repeat_column": repeat_column, "repeat_pattern": repeat_pattern}
    for name, value in repeats.items():
        if value is not None and (not isinstance(value, str) or not value.strip()):
            flag = "--" + name.replace("_", "-")
            raise ArgumentError(
                f"{flag} {value!r} ({name}) is empty; "
                + (
                    "name the column that tells the generations of an (item, model) apart, e.g. --repeat-column epoch"
                    if name == "repeat_column"
                    else "it must hold {model} and {repeat}, e.g. --repeat-pattern '{model}@{repeat}'"
                )
            )
    if repeat_column is not None and repeat_pattern is not None:
        raise InputError(
            f"--repeat-column {repeat_column!r} and --repeat-pattern {repeat_pattern!r}: give one (a long table names "
            "each row's repeat in a column, a wide table in its headers)"
        )
    return repeats


def _harness(kind: str, paths: list[Path], given: dict, missing_cluster: str, common: dict) -> ScoreMatrix:
    """Read lm-eval folders, HELM runs, lighteval details, OpenAI evals logs or declared-field records."""
    epochs = given["epochs"] or "error"
    if kind == "lm-eval":
        task, metric = given["task"], given["metric"]
        if not task or not metric:
            missing = " and ".join(f"--{name}" for name, value in (("task", task), ("metric", metric)) if not value)
            hint = choices_hint(paths[0], task)
            raise InputError(
                f"lm-eval folders need --task and --metric (task=, metric= in Python); missing: {missing}{hint}"
            )
        keys = ("task", "metric", "filter", "names", "run")
        align_on = given["align_on"] or "id"
        return read_lm_eval(
            paths, **{key: given[key] for key in keys}, align_on=align_on, missing_cluster=missing_cluster, **common
        )
    if kind == "helm":
        # Lazy: each harness's reader is imported when its input is given.
        from llm_power_verified.io.helm import read_helm

        keys = ("metric", "split", "perturbation", "run_spec")
        return read_helm(paths, **{key: given[key] for key in keys}, epochs=epochs, **common)
    if kind == "lighteval":
        # Lazy: imported when its input is given.
        from llm_power_verified.io.lighteval import read_lighteval

        align_on = given["align_on"] or "id"
        return read_lighteval(
            paths, task=given["task"], metric=given["metric"], run=given["run"], align_on=align_on, **common
        )
    if kind == "openai-evals":
        # Lazy: imported when its input is given.
        from llm_power_verified.io.openai_evals import read_openai_evals

        return read_openai_evals(paths, metric=given["metric"], epochs=epochs, **common)
    # Lazy: imported when its input is given.
    from llm_power_verified.io.json_records import read_records

    if given["item_field"] is None or given["score_field"] is None:
        raise InputError(
            "declared-field records need --item-field and --score-field (item_field=, score_field= in Python): the "
            "fields of each record that hold the item id and its score"
        )
    keys = ("records", "item_field", "score_field", "model_field", "repeat_field", "cluster_field")
    return read_records(paths, **{key: given[key] for key in keys}, missing_cluster=missing_cluster, **common)


#: The input kinds each reader option applies to; an option given for another kind would be ignored, so it is refused.
_APPLIES_TO = {
    "task": ("lm-eval", "lighteval"),
    "metric": ("lm-eval", "helm", "lighteval", "openai-evals"),
    "filter": ("lm-eval",),
    "scorer": ("inspect",),
    "epochs": ("inspect", "helm", "openai-evals"),
    "cluster_column": ("table",),
    "item_column": ("table",),
    "model_column": ("table",),
    "score_column": ("table",),
    "repeat_column": ("table",),
    "repeat_pattern": ("table",),
    "split": ("helm",),
    "perturbation": ("helm",),
    "run_spec": ("helm",),
    "run": ("lm-eval", "lighteval"),
    "align_on": ("lm-eval", "lighteval"),
    "names": ("lm-eval",),
    **dict.fromkeys(
        ("records", "item_field", "score_field", "model_field", "repeat_field", "cluster_field"), ("records",)
    ),
}
#: Why a repeat option does not apply to a kind, when there is more to say than that it would be ignored.
_REPEAT_HINTS = {
    "inspect": "; Inspect logs keep every epoch as a generation with --epochs all",
    "lm-eval": "; lm-eval logs one score per document (after its filter): there are no repeats to keep",
}
_KIND_NAMES = {
    "lm-eval": "lm-eval folders",
    "inspect": "Inspect logs",
    "helm": "HELM runs",
    "lighteval": "lighteval details",
    "openai-evals": "OpenAI evals logs",
    "records": "declared-field records",
    "table": "a table file",
    "score-files": "two score files",
    "array": "an array",
}


def _refuse_unused(kind: str, given: dict) -> None:
    """Refuse a reader option that the input's kind does not read (it would be ignored without a word)."""
    for name, value in given.items():
        if value is not None and kind not in _APPLIES_TO[name]:
            readers = " or ".join(_KIND_NAMES[other] for other in _APPLIES_TO[name])
            hint = _REPEAT_HINTS.get(kind, "") if name.startswith("repeat_") else ""
            raise InputError(
                f"--{name.replace('_', '-')} {value!r} applies to {readers}; INPUT is {_KIND_NAMES[kind]}, "
                f"so it would be ignored: leave it out{hint}"
            )


#: Name endings that suggest one column per (model, repeat): ``A@0``, ``A_seed1``, ``A_epoch2``, ``A_run3``.
_REPEAT_SEPARATORS = ("@", "_seed", "_epoch", "_run", "_sample")


def _repeat_header_note(matrix: ScoreMatrix) -> ScoreMatrix:
    """A table read without a repeat option whose models look like generations (``A@0``, ``A@1``): a note on it."""
    for separator in _REPEAT_SEPARATORS:
        parts = [str(name).rpartition(separator) for name in matrix.models]
        fewer = len({model for model, _, _ in parts}) < len(parts)
        if fewer and all(model and repeat.isdigit() for model, _, repeat in parts):
            note = (
                f"the models {matrix.models[0]!r}, {matrix.models[1]!r}, ... look like generations of fewer models: if "
                f"they are, read them with --repeat-pattern '{{model}}{separator}{{repeat}}' (a wide table) or "
                "--repeat-column NAME (a long one)"
            )
            return dataclasses.replace(matrix, notes=(*matrix.notes, note))
    return matrix


def _from_frame(frame: pd.DataFrame, lines, source: str, repeats: dict, columns: dict, options: dict) -> ScoreMatrix:
    """A table read: long when it has the model and score columns, else wide; with a repeat option, the repeated form.

    ``repeat_column`` needs a long table (one row per generation), ``repeat_pattern`` a wide one.
    """
    long = columns["model_column"] in frame.columns and columns["score_column"] in frame.columns
    if repeats["repeat_column"] is None and repeats["repeat_pattern"] is None:
        if long:
            return _repeat_header_note(from_long(frame, **columns, **options, source=source, lines=lines))
        wide = from_wide(frame, item_column=columns["item_column"], **options, source=source, lines=lines)
        return _repeat_header_note(wide)
    if repeats["repeat_column"] is not None:
        if not long:
            lacking = [
                f"{columns[name]!r} ({flag})"
                for name, flag in (("model_column", "--model-column"), ("score_column", "--score-column"))
                if columns[name] not in frame.columns
            ]
            raise InputError(
                f"{source}: --repeat-column {repeats['repeat_column']!r} reads a long table (one row per item, model "
                f"and repeat); this table has no column {' or '.join(lacking)}; a wide table with one column per "
                "(model, repeat) is read with --repeat-pattern"
            )
        return from_long_repeated(
            frame, repeat_column=repeats["repeat_column"], **columns, **options, source=source, lines=lines
        )
    if long:
        raise InputError(
            f"{source}: --repeat-pattern {repeats['repeat_pattern']!r} reads a wide table (one column per model and "
            f"repeat); this table is long (columns {columns['model_column']!r} and {columns['score_column']!r}): "
            "name its repeat column with --repeat-column"
        )
    for name, default, flag in (
        ("model_column", "model", "--model-column"),
        ("score_column", "score", "--score-column"),
    ):
        if columns[name] != default:
            raise InputError(
                f"{source}: {flag} {columns[name]!r} applies to long tables; --repeat-pattern reads a wide table (one "
                "column per model and repeat), so it would be ignored: leave it out"
            )
    return from_wide_repeated(
        frame,
        repeat_pattern=repeats["repeat_pattern"],
        item_column=columns["item_column"],
        **options,
        source=source,
        lines=lines,
    )
