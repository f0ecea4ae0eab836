"""lighteval details files (``--save-details``): one Parquet file per model and task, one row per doc.

Two schemas are read.  lighteval 0.11 and later write three struct columns: ``doc`` (``id``, ``query``,
``choices``, ``gold_index``, ``task_name``, ``num_samples``, ...), ``metric`` (one key per sample-level metric,
e.g. ``acc``) and ``model_response``; only ``doc``'s fields named here and ``metric`` are read, never the
responses.  lighteval 0.1 to 0.10 and the Open LLM Leaderboard (v1) details datasets write flat columns
(``example``, ``full_prompt``, ``choices``, ``gold_index``, ``predictions``, ``metrics``, ...; the leaderboard's
also ``hashes``, a struct of xxh64 hashes ``example``, ``full_prompt``, ``input_tokens``, ``cont_tokens``);
lighteval 0.4 to 0.7 wrote every one of those columns as the Python ``str()`` of its value, which is read back as
a Python literal (numbers, text, lists, dicts; nothing else).

Items.  ``doc.id`` is the default key (``--align-on id``), but lighteval 0.13 sets it to the doc's row index in
the dataset, not the dataset's own id: two runs over another version or order of the data would pair different
questions under one id.  So the docs under one id are compared (query, choices, gold_index) across the files and a
difference is refused.  ``--align-on hash`` keys the docs by their content instead: the ``hashes.example`` column
when every file carries it (the leaderboard's files), else a SHA-256 this reader computes of the JSON text
``[query, choices, gold_index]`` (``gold_index`` as a list, the flat schema's ``example`` as the query).  The flat
schema has no doc id at all and is read with ``--align-on hash`` only.  Nothing is ever aligned by row position.

Scores.  The metric is a key of ``metric`` (``--metric``; the only one when there is one); each row's value must be
true/false or a finite number in [0, 1].  A task sampled several times per doc (``doc.num_samples`` > 1) still has
one value per doc in the file (lighteval's per-doc metric over the samples, e.g. ``pass@k``): the per-sample scores
are not written, so each doc is one item with that value, and the notes say so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.lighteval_layout import DetailsFile, details_file, is_details_name, run_identity, same_task
from llm_power_verified.io.lighteval_rows import DetailsRows, metric_values, parquet_module, read_rows, schema_kind
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.tables import check_on_missing, from_long

__all__ = ["is_lighteval_details", "read_lighteval"]

ALIGN_ON = ("id", "hash")


def is_lighteval_details(path: str | Path) -> bool:
    """Whether ``path`` is a lighteval details file, or a folder holding lighteval's details layout.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.parquet`` file: its schema (the footer only, no rows) has lighteval's details columns (``doc``,
        ``metric``, ``model_response``; or the older ``example``/``full_prompt``, ``metrics``, ``predictions`` or
        ``hashes``), or it is named ``details_TASK_TIMESTAMP.parquet`` (so that a damaged details file is reported as
        one).  A folder: it holds such named files, directly or in timestamp folders
        (``details/MODEL/TIMESTAMP/details_TASK_TIMESTAMP.parquet``).

    Returns
    -------
    bool
        False for anything else, and for a ``.parquet`` file when pyarrow is not installed.

    Examples
    --------
    >>> is_lighteval_details("no-such-file.parquet")
    False
    """
    path = Path(path)
    if path.is_dir():
        try:
            children = [child for child in path.iterdir() if not child.name.startswith(".")]
            return any(child.is_file() and is_details_name(child) for child in children) or any(
                child.is_dir() and any(grand.is_file() and is_details_name(grand) for grand in child.iterdir())
                for child in children
            )
        except OSError:  # unreadable: not claimed; the reader chosen says what is wrong
            return False
    if not (path.is_file() and path.name.lower().endswith(".parquet")):
        return False
    if is_details_name(path):
        return True
    try:
        schema = parquet_module().read_schema(path)
        doc = schema.field("doc").type if "doc" in schema.names else None
        return schema_kind(schema.names, doc is not None and doc.num_fields > 0) is not None
    except Exception:  # no pyarrow, or not a readable Parquet file: not lighteval's, the table reader says why
        return False


def _score(value: object, path: Path, row: int, metric: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and 0 <= value <= 1:  # NaN and infinities fail the comparison
        return float(value)
    raise InputError(
        f"{path}, row {row}: metric {metric!r} is {describe_value(value)}; a per-doc score is true/false or a finite "
        "number in [0, 1]; choose another with --metric"
    )


def _chosen_metric(files: list[DetailsRows], metric: str | None) -> tuple[str, list[str]]:
    first = files[0]
    if metric is None:
        if not first.metric_names:
            raise AlignmentError(
                f"{first.path}: no per-doc metric in the file (the metric column holds no named value)"
            )
        if len(first.metric_names) > 1:
            raise AlignmentError(f"{first.path}: metrics {', '.join(first.metric_names)}; choose one with --metric")
        return first.metric_names[0], [f"metric {first.metric_names[0]!r} (the only one in the details)"]
    for rows in files:
        if rows.kind == "doc" and metric not in rows.metric_names:
            listed = ", ".join(rows.metric_names) or "none"
            raise AlignmentError(f"{rows.path}: no metric {metric!r} (metrics: {listed}); check --metric")
    return metric, [f"metric {metric!r}"]


def _keys(rows: DetailsRows, align_on: str, carried: bool, seen: dict) -> list[str]:
    """Each row's item key; duplicates within the file refused, and (by id) another doc under a seen id."""
    path, keys, first_row = rows.path, [], {}
    for row, (doc_id, digest) in enumerate(zip(rows.ids, rows.digests, strict=True), start=1):
        if align_on == "hash":
            key = rows.carried[row - 1] if carried else digest.hex()
            if not isinstance(key, str) or not key:
                raise InputError(
                    f"{path}, row {row}: hashes.example is {describe_value(key)}; lighteval writes a hex digest"
                )
            what = f"hash {key[:16]}{'...' if len(key) > 16 else ''}"
        else:
            if rows.kind == "flat":
                raise AlignmentError(
                    f"{path}: this older lighteval details schema (example, metrics, ...) has no doc id; align its "
                    "docs on their content with --align-on hash"
                )
            if not isinstance(doc_id, (str, int)) or isinstance(doc_id, bool) or str(doc_id) == "":
                raise InputError(
                    f"{path}, row {row}: doc.id is {describe_value(doc_id)}; align the docs on their content with "
                    "--align-on hash"
                )
            key, what = str(doc_id), f"doc id {str(doc_id)!r}"
        if key in first_row:
            raise AlignmentError(
                f"{path}: rows {first_row[key]} and {row} hold the same {what} (query "
                f"{describe_value(rows.query(row), 60)}); each doc must appear once per model"
            )
        other = seen.setdefault(key, (digest, rows, row)) if align_on == "id" else None
        if other is not None and other[0] != digest:
            before, before_row = other[1], other[2]
            raise AlignmentError(
                f"{path}, row {row}: {what} is another doc than in {before.path}, row {before_row} (query "
                f"{describe_value(rows.query(row), 60)} vs {describe_value(before.query(before_row), 60)}): "
                "lighteval numbers docs by "
                "position, so the runs did not number the same docs alike; align on content with --align-on hash"
            )
        first_row[key] = row
        keys.append(key)
    return keys


@docfill("on_missing", "score_kind", returns="score_matrix")
def read_lighteval(
    paths: Iterable[str | Path],
    *,
    task: str | None = None,
    metric: str | None = None,
    run: str | None = None,
    align_on: str = "id",
    on_missing: str = "error",
    score_kind: str = "auto",
) -> ScoreMatrix:
    r"""Read lighteval details, one details file (or model folder) per model, into a score matrix.

    Parameters
    ----------
    paths : iterable of str or pathlib.Path
        Per model a ``details_TASK_TIMESTAMP.parquet`` file, or its model folder (``details/MODEL`` or
        ``details/ORG/MODEL``, holding timestamp folders).  The model is named by lighteval's results file beside
        ``details/`` (``results/MODEL/results_TIMESTAMP.json``, ``config_general.model_name``), else by the path
        below ``details/``.
    task : str, optional
        The task (``arith_mc|0``; ``|`` and ``_`` are taken as one in file names); needed when a run holds several
        (``--task``).
    metric : str, optional
        The key of the ``metric`` column (``acc``, ...); needed when there are several (``--metric``).
    run : str, optional
        ``"latest"`` (the newest, noted) or a timestamp; needed when a model folder holds several runs (``--run``).
    align_on : {"id", "hash"}, default "id"
        Key the docs by ``doc.id`` (checked to be the same doc in every file) or by their content hash (carried
        ``hashes.example``, else a SHA-256 of query, choices and gold_index); ``--align-on``.
    %(on_missing)s
    %(score_kind)s

    Raises
    ------
    InputError
        What :func:`~llm_power_verified.io.lighteval_layout.details_file` refuses (several runs or tasks and none
        chosen), a damaged or foreign Parquet file, two inputs naming one model, files of different tasks, several
        metrics and none chosen or one a file lacks, and per row (naming file and row, counted from 1) a null doc,
        a value that is not true/false or in [0, 1], a missing or empty id, an id or hash twice in one file, and a
        doc id whose doc differs between files; then the matrix rules (items some models lack, by ``on_missing``).

    Examples
    --------
    Two models' details files, as lighteval 0.11+ writes them (the ``doc`` and ``metric`` columns; the
    ``model_response`` column is needed to tell the schema, not read):

    >>> import pathlib, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> def details(folder, model, scores):
    ...     run = pathlib.Path(folder) / "details" / model / "2026-01-02T03-04-05.000001"
    ...     run.mkdir(parents=True)
    ...     rows = [{"doc": {"id": str(i), "query": f"{i} + 1 =", "choices": [" 1", " 2"], "gold_index": 1},
    ...              "metric": {"acc": s}, "model_response": {"text": []}} for i, s in enumerate(scores)]
    ...     pq.write_table(pa.Table.from_pylist(rows), run / "details_add_0_2026-01-02T03-04-05.000001.parquet")
    ...     return run.parent
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = [details(folder, "m1", [1, 0, 1]), details(folder, "m2", [0, 0, 1])]
    ...     matrix = read_lighteval(paths)
    >>> matrix.models, matrix.item_ids, matrix.scores.tolist()
    (('m1', 'm2'), ('add_0:0', 'add_0:1', 'add_0:2'), [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    """
    if align_on not in ALIGN_ON:
        raise ArgumentError(f"align_on must be 'id' or 'hash' (--align-on); got {align_on!r}")
    check_on_missing(on_missing)
    for name, value in (("task", task), ("metric", metric), ("run", run)):
        if value is not None and not isinstance(value, str):
            raise ArgumentError(f"{name} must be text or None (--{name}); got {value!r}")
    paths = [Path(path) for path in paths]
    if not paths:
        raise InputError("no lighteval details given")
    identities = [run_identity(details_file(path, task, run)) for path in paths]
    found = [one for one, _, _ in identities]
    named = [(name, from_results) for _, name, from_results in identities]
    by_name: dict[str, Path] = {}
    for path, (name, _) in zip(paths, named, strict=True):
        if name in by_name:
            raise AlignmentError(
                f"{by_name[name]} and {path} are both details of model {name!r}; give one run per model"
            )
        by_name[name] = path
    files = [read_rows(one) for one in found]
    _refuse_one_run_twice(paths, found, files)
    for rows in files[1:]:
        if not same_task(files[0].task, rows.task):
            raise AlignmentError(
                f"{rows.path} holds task {rows.task!r} but {files[0].path} task {files[0].task!r}; choose one with "
                "--task"
            )
    chosen, notes = _chosen_metric(files, metric)
    carried = align_on == "hash" and all(rows.carried is not None for rows in files)
    long: dict[str, list] = {"item": [], "model": [], "score": [], "line": []}
    seen: dict = {}
    for rows, (name, _) in zip(files, named, strict=True):
        keys = _keys(rows, align_on, carried, seen)
        for row, (key, value) in enumerate(zip(keys, metric_values(rows, chosen), strict=True), start=1):
            long["item"].append(f"{files[0].task}:{key}")
            long["model"].append(name)
            long["score"].append(_score(value, rows.path, row, chosen))
            long["line"].append(f"{rows.path}, row {row}")
    notes.insert(0, f"lighteval task {files[0].task!r}")
    notes.extend(one_note for one in found for one_note in one.notes)
    notes.append(_alignment_note(files, align_on, carried))
    if not all(from_results for _, from_results in named):
        notes.append("model names from the folders below details/ (no lighteval results file names them)")
    samples = max(rows.samples for rows in files)
    if samples > 1:
        notes.append(
            f"doc.num_samples up to {samples}: each doc's value is lighteval's per-doc metric over its samples; the "
            "per-sample scores are not in the details files, so each doc is one item"
        )
    frame = pd.DataFrame(long)
    lines = frame.pop("line").to_numpy(dtype=object)
    return from_long(
        frame,
        item_column="item",
        on_missing=on_missing,
        score_kind=score_kind,
        source=f"lighteval {files[0].task}",
        exact_ids=True,
        lines=lines,
        notes=notes,
    )


def _refuse_one_run_twice(paths: list[Path], found: list[DetailsFile], files: list[DetailsRows]) -> None:
    """Two inputs holding one run refused: byte-identical details files, or one stamp with the same docs and scores.

    A lighteval run is stamped to the microsecond when it starts, so the runs of two models never share a stamp;
    a copy rewritten (by pyarrow, say) is no longer byte-identical, but keeps its stamp, docs and scores.
    """
    digests: dict[str, Path] = {}
    stamps: dict[str, tuple[Path, DetailsRows]] = {}
    for path, one, rows in zip(paths, found, files, strict=True):
        with one.path.open("rb") as handle:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
        if digest in digests:
            raise AlignmentError(
                f"{digests[digest]} and {path} hold byte-identical details files: both are one run; give each "
                "model's own run"
            )
        digests[digest] = path
        earlier, before = stamps.setdefault(one.stamp.replace(":", "-"), (path, rows))
        if before is not rows and _same_rows(before, rows):
            raise AlignmentError(
                f"{earlier} and {path} hold run {one.stamp} with the same docs and scores: both are one run; give "
                "each model's own run"
            )


def _same_rows(first: DetailsRows, second: DetailsRows) -> bool:
    if (first.kind, first.ids, first.digests) != (second.kind, second.ids, second.digests):
        return False
    return first.metrics.equals(second.metrics) if first.kind == "doc" else first.metrics == second.metrics


def _alignment_note(files: list[DetailsRows], align_on: str, carried: bool) -> str:
    if align_on == "id":
        return (
            "docs keyed by doc.id, which lighteval sets to the doc's row index in the dataset; each id was checked to "
            "hold the same query, choices and gold_index in every file"
        )
    if carried:
        return "docs keyed by the hashes.example column the files carry (lighteval's xxh64 of the doc's query)"
    return "docs keyed by a SHA-256 of the JSON text [query, choices, gold_index] (the files carry no per-doc hash)"
