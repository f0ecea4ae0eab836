"""Any JSON or JSON Lines file of per-item records, read through fields the user declares.

For formats no reader here knows (SWE-bench-like reports, tau-bench results, custom evaluation dumps): the item id,
the score and optionally the model, repeat and cluster fields are named (``--item-field``, ``--score-field``,
``--model-field``, ``--repeat-field``, ``--cluster-field``), each a plain key or a JSON Pointer
(:mod:`.record_fields`).

Files.  ``.json`` (optionally ``.gz``) is one document: its top level is the list of records, or ``--records``
points at it (a key or a JSON Pointer such as ``/results`` or ``/data/items``); with ``--item-field @key`` the
records are the values of an object whose keys are the item ids (``{"django__django-11099": {"resolved": true}}``).
``.jsonl`` and ``.ndjson`` (optionally ``.gz``) hold one record per line, read line by line; ``--records`` does not
apply there (a nested field is reached by a pointer instead).  Messages name a record by its file and line, or by
its JSON Pointer in the document (``runs.json, record /results/6``).

Models.  Without ``--model-field`` each file is one model, named by its file name without the suffix (two files of
one name are refused, naming both); with it the records name their models, in one file or several.

Values.  A score is true/false (1/0) or a finite number in [0, 1]; null is a missing score (``on_missing``); text is
refused (no ``"yes"`` or ``"1"`` is guessed).  Item ids, repeat and cluster labels are text or whole numbers; an id
or cluster label written as the number 1 in one record and the text "1" in another is refused naming both (as
respelled repeats are, :func:`~llm_power_verified.io.generations.refuse_respelled`); ids are kept exactly as written
(``"a "`` and ``"a"`` are two items).  A null cluster label is an item without a cluster (``missing_cluster``).
Each record is reduced at once to codes and numbers (a few bytes a record; its place is made into text only for a
message); every document and line is parsed by :func:`~llm_power_verified.io.json_input.parse_json`.  The matrix is
built by :func:`~llm_power_verified.io.tables.from_long` (or
:func:`~llm_power_verified.io.repeated_tables.from_long_repeated` with ``repeat_field``), whose rules every reader
shares.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.record_fields import (
    KEY_FIELD,
    MISSING,
    FieldPath,
    field_path,
    kind_of,
    label_value,
    line_records,
    missing_field,
    model_value,
    pointer_step,
    record_file,
    resolve,
    score_value,
)
from llm_power_verified.io.repeated_tables import from_long_repeated
from llm_power_verified.io.tables import check_on_missing, from_long
from llm_power_verified.io.text import read_text

__all__ = ["read_records"]

_SOURCE = "JSON records"


@dataclass(frozen=True)
class _Fields:
    """The declared fields (``item`` None: the item ids are the keys of an object of records, ``@key``)."""

    item: FieldPath | None
    score: FieldPath
    model: FieldPath | None
    repeat: FieldPath | None
    cluster: FieldPath | None
    records: FieldPath | None

    def named(self) -> list[tuple[str, FieldPath]]:
        """(role, path) of each field given, records excepted."""
        roles = ("item", "score", "model", "repeat", "cluster")
        return [(role, getattr(self, role)) for role in roles if getattr(self, role) is not None]

    @property
    def item_shown(self) -> str:
        return self.item.shown if self.item is not None else f"--item-field {KEY_FIELD!r}"


def _declared(records, item_field, score_field, model_field, repeat_field, cluster_field) -> _Fields:
    """The fields parsed, refusing two flags that name one field."""

    def optional(text: object, flag: str) -> FieldPath | None:
        return None if text is None else field_path(text, flag)

    if item_field is None or score_field is None:
        raise ArgumentError("JSON records need --item-field and --score-field (item_field=..., score_field=...)")
    fields = _Fields(
        None if item_field == KEY_FIELD else field_path(item_field, "--item-field"),
        field_path(score_field, "--score-field"),
        optional(model_field, "--model-field"),
        optional(repeat_field, "--repeat-field"),
        optional(cluster_field, "--cluster-field"),
        optional(records, "--records"),
    )
    given = [path for _, path in fields.named()]
    for position, path in enumerate(given):
        other = next((first for first in given[:position] if first.steps == path.steps), None)
        if other is not None:
            raise ArgumentError(f"{path.shown} names the field {other.shown} names; each flag names a field of its own")
    return fields


def _document_records(path: Path, fields: _Fields) -> Iterator[tuple[str, Any, str | None]]:
    """(place, record, key) of each record of a JSON document; each record dropped from the document once read."""
    try:
        document = parse_json(read_text(path), str(path))
    except InputError as error:
        extra = "Extra data" in str(error)
        raise InputError(
            f"{error}{'; a file of one JSON object per line is JSON Lines: name it .jsonl' if extra else ''}"
        ) from None
    where, at = "the top level", ""
    container = document
    if fields.records is not None:
        container, why = resolve(document, fields.records, "the document")
        if container is MISSING:
            raise InputError(f"{path}: no {fields.records.shown} in the document ({why}); check --records")
        where, at = fields.records.shown, "".join(pointer_step(step) for step in fields.records.steps)
    if fields.item is None:
        if not isinstance(container, dict):
            raise InputError(
                f"{path}: {where} is {kind_of(container)}; --item-field {KEY_FIELD} reads an object whose keys are the "
                "item ids (for a list of records name the id field with --item-field)"
            )
        records = container
        keys: Iterable = list(records)
    else:
        if not isinstance(container, list):
            hint = (
                f"; if its keys are the item ids pass --item-field {KEY_FIELD}" if isinstance(container, dict) else ""
            )
            pointed = " (name the list of records with --records, e.g. --records /results)" if at == "" else ""
            raise InputError(f"{path}: {where} is {kind_of(container)}, not a list of records{pointed}{hint}")
        records, keys = container, range(len(container))
    if not records:
        raise InputError(f"{path}: {where} is empty: no records to read (check --records)")
    for key in keys:
        record, records[key] = records[key], None  # the record's other fields are dropped once it is reduced
        step = pointer_step(key) if isinstance(key, str) else f"/{key}"
        pointer = at + step
        yield (
            f"{path}, record {pointer if pointer.isprintable() else repr(pointer)}",
            record,
            key if isinstance(key, str) else None,
        )


class _Rows:
    """The records reduced to the fields read, as columns of codes and numbers (a few bytes per record).

    A record's place is its file and its line (JSON Lines) or the index of its pointer text (a document), turned
    into text only for a message.  Ids and cluster labels written as 1 and "1" are refused naming both records.
    """

    def __init__(self, fields: _Fields, on_missing: str) -> None:
        self.fields, self.on_missing, self.named = fields, on_missing, fields.named()
        self.files: list[tuple[Path, str]] = []  # (path, kind) of each file read
        self.pointers: list[str] = []  # the places of a document's records
        self.ids: dict[str, int] = {}  # id text -> item code
        self.first_id = (bytearray(), array("q"), array("q"))  # per item code: a number?, file, at of its first record
        self.models: dict[str, int] = {}
        self.labels: dict[str, tuple] = {}  # cluster label text -> (label, file, at) of its first record
        self.columns = {"item": array("q"), "model": array("i"), "score": array("d"), "at": array("q")}
        self.starts: list[int] = []  # per file, its first row (a file's rows are consecutive)
        self.extra: dict[str, list] = {role: [] for role in ("repeat", "cluster") if getattr(fields, role)}
        self.nulls, self.first_null = 0, ""

    def place(self, file: int, at: int) -> str:
        """A record's place as messages name it: ``runs.jsonl, line 7`` or ``runs.json, record /results/6``."""
        path, kind = self.files[file]
        return self.pointers[at] if kind == "document" else f"{path}, line {at}"

    def read(self, path: Path, kind: str, records: Iterable[tuple[Any, Any, str | None]], model: str | None) -> None:
        """Reduce each record of one file (its place: a line number, or a pointer's text)."""
        file = len(self.files)
        self.files.append((path, kind))
        self.starts.append(len(self.columns["item"]))
        for where, record, key in records:
            at = where if kind == "lines" else len(self.pointers)
            if kind == "document":
                self.pointers.append(where)
            self.add(file, at, record, key, model)

    def add(self, file: int, at: int, record: Any, key: str | None, model: str | None) -> None:
        """Reduce one record to its fields (checked), or refuse it naming its place."""
        if not isinstance(record, dict):
            raise InputError(f"{self.place(file, at)}: {kind_of(record)} where a record (a JSON object) is expected")
        values = {}
        for role, path in self.named:
            value = record.get(path.steps[0], MISSING) if len(path.steps) == 1 else resolve(record, path)[0]
            if value is MISSING:
                raise InputError(f"{self.place(file, at)}: {missing_field(record, path, resolve(record, path)[1])}")
            values[role] = value
        fields = self.fields
        try:
            item = key if fields.item is None else label_value(values["item"], fields.item, "an item id")
            score = score_value(values["score"], fields.score)
            if fields.model is not None:
                model = model_value(values["model"], fields.model)
            if fields.repeat is not None:
                values["repeat"] = label_value(values["repeat"], fields.repeat, "a repeat")
            if fields.cluster is not None:
                values["cluster"] = label_value(values["cluster"], fields.cluster, "a cluster label", nullable=True)
        except InputError as error:
            raise InputError(f"{self.place(file, at)}: {error}") from None
        text = item if type(item) is str else str(item)
        code = self.ids.setdefault(text, len(self.ids))  # exact text: "a " and "a" are two ids
        number, first_file, first_at = self.first_id
        if code == len(number):  # the id's first record
            number.append(type(item) is int)
            first_file.append(file)
            first_at.append(at)
        elif number[code] != (type(item) is int):
            first = int(text) if number[code] else text
            self._respelled(fields.item_shown, item, (file, at), first, (first_file[code], first_at[code]), "id")
        if "cluster" in values and values["cluster"] is not None:
            label = values["cluster"]
            first = self.labels.setdefault(str(label), (label, file, at))
            if type(first[0]) is not type(label):
                self._respelled(fields.cluster.shown, label, (file, at), first[0], first[1:], "cluster label")
        if score is None:
            if self.on_missing == "error":
                raise AlignmentError(
                    f"{self.place(file, at)}: {fields.score.shown} is null (no score for item {describe_value(item)}); "
                    "use --on-missing intersect (on_missing='intersect') to leave out the items a model has no score "
                    "for"
                )
            self.nulls, self.first_null = self.nulls + 1, self.first_null or self.place(file, at)
            return
        columns = self.columns
        columns["item"].append(code)
        columns["model"].append(self.models.setdefault(model, len(self.models)))
        columns["score"].append(score)
        columns["at"].append(at)
        for role, kept in self.extra.items():
            kept.append(values[role])

    def __len__(self) -> int:
        return len(self.columns["item"])

    def __getitem__(self, row: int) -> str:
        """The place of a kept record (a row of the columns), as :func:`~.cells.row_place` shows it."""
        file = bisect.bisect_right(self.starts, row) - 1
        return self.place(file, self.columns["at"][row])

    def _respelled(self, flag: str, value: object, where: tuple, first: object, first_where: tuple, what: str) -> None:
        raise InputError(
            f"{self.place(*where)}: {flag} is {describe_value(value)} but {self.place(*first_where)} has "
            f"{describe_value(first)}: one {what} written as a number and as text; write every {what} one way"
        )


def _stems(paths: list[Path]) -> list[str]:
    """Each file's model name (its stem), refusing two files of one name."""
    seen: dict[str, Path] = {}
    names = []
    for path in paths:
        name = record_file(path)[1]
        if name in seen:
            raise AlignmentError(
                f"{seen[name]} and {path} are both named {name!r}: without --model-field each file is one model "
                "named by its file name; rename one, or name the models with --model-field"
            )
        seen[name] = path
        names.append(name)
    return names


def _refuse_duplicates(rows: _Rows, item: np.ndarray, model: np.ndarray) -> None:
    """Two records of one model for one item (no --repeat-field): refused naming both and what they may be."""
    pairs = pd.Series(item * len(rows.models) + model)
    twice = pairs.duplicated().to_numpy()
    if twice.any():
        second = int(np.argmax(twice))
        first = int(np.argmax((pairs == pairs.iat[second]).to_numpy()))
        places = [rows[first], rows[second]]
        raise AlignmentError(
            f"{places[1]}: model {list(rows.models)[model[second]]!r} has a second record for item "
            f"{list(rows.ids)[item[second]]!r} (the first: {places[0]}); each model scores an item once: if these "
            "are repeated generations (trials, epochs, seeds), name their field with --repeat-field; if they are "
            "two scorings of one generation (two filters or metrics, as lm-eval writes for a task with two "
            "filters), keep one per item: filter the file first, or read lm-eval's folders with --filter"
        )


@docfill("on_missing", "score_kind", "missing_cluster", returns="score_matrix")
def read_records(
    paths: Iterable[str | Path],
    *,
    records: str | None = None,
    item_field: str,
    score_field: str,
    model_field: str | None = None,
    repeat_field: str | None = None,
    cluster_field: str | None = None,
    on_missing: str = "error",
    score_kind: str = "auto",
    missing_cluster: str = "error",
) -> ScoreMatrix:
    """Read per-item records from JSON or JSON Lines files through declared fields.

    Parameters
    ----------
    paths : iterable of str or pathlib.Path
        ``.json`` documents and ``.jsonl`` / ``.ndjson`` files (each optionally ``.gz``); without ``model_field``
        one file per model, named by its file name without the suffix.
    records : str, optional
        Where the list of records is in a ``.json`` document: a key (``results``) or a JSON Pointer
        (``/data/items``); default: the top level (``--records``).  Refused for JSON Lines.
    item_field : str
        The item id's field, or ``"@key"``: the records are the values of an object keyed by item id
        (``--item-field``).
    score_field : str
        The score's field: true/false, a number in [0, 1], or null for a missing score (``--score-field``).
    model_field : str, optional
        The field naming each record's model (``--model-field``).
    repeat_field : str, optional
        The field telling the generations of one (item, model) apart: a trial, epoch or seed (``--repeat-field``).
    cluster_field : str, optional
        The field of each item's cluster label (``--cluster-field``).
    %(on_missing)s
    %(score_kind)s
    %(missing_cluster)s

    Raises
    ------
    ArgumentError
        A field that is empty or a malformed pointer, two flags naming one field, ``records`` with JSON Lines.
    InputError
        Naming the file and the record (line, or pointer): a suffix not read, JSON that does not parse, no list at
        ``records``, an empty list, a record that is not an object, a missing field, a score that is text or outside
        [0, 1], an id or label that is not text or a whole number, one id or cluster label written as 1 and "1", a
        null score (``on_missing="error"``), a model field that is not text, two files of one name (without
        ``model_field``), two records of one (item, model) without ``repeat_field``; then the matrix rules.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "runs.json"
    ...     runs = [{"task_id": i, "agent": m, "reward": (i + k) % 2} for i in range(3) for k, m in enumerate("ab")]
    ...     _ = path.write_text(json.dumps({"results": runs}))
    ...     matrix = read_records([path], records="results", item_field="task_id", score_field="reward",
    ...                           model_field="agent")
    >>> matrix.models, matrix.item_ids, matrix.scores.tolist()
    (('a', 'b'), ('0', '1', '2'), [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    """
    check_on_missing(on_missing)
    fields = _declared(records, item_field, score_field, model_field, repeat_field, cluster_field)
    paths = [Path(path) for path in paths]
    if not paths:
        raise ArgumentError("no JSON record files given")
    names = _stems(paths) if fields.model is None else [None] * len(paths)
    rows = _Rows(fields, on_missing)
    for path, name in zip(paths, names, strict=True):
        kind = record_file(path)[0]
        if kind == "lines" and fields.records is not None:
            raise ArgumentError(
                f"{path}: --records {fields.records.text!r} applies to a .json document; each line of a JSON Lines "
                "file is one record: leave --records out (a nested field is reached by a JSON Pointer, e.g. /sample/id)"
            )
        if kind == "lines" and fields.item is None:
            raise ArgumentError(
                f"{path}: --item-field {KEY_FIELD} reads the keys of a .json object of records; a JSON Lines record "
                "names its item with --item-field FIELD"
            )
        rows.read(path, kind, _document_records(path, fields) if kind == "document" else line_records(path), name)
    return _matrix(rows, fields, len(paths), on_missing, score_kind, missing_cluster)


def _matrix(
    rows: _Rows, fields: _Fields, files: int, on_missing: str, score_kind: str, missing_cluster: str
) -> ScoreMatrix:
    """The reduced records through the long-table builders."""
    if not rows.columns["item"]:
        raise AlignmentError(
            f"{_SOURCE}: every record's score is null ({rows.nulls:,} records, the first: {rows.first_null}); "
            "nothing to compare"
        )
    columns = {role: np.frombuffer(values, dtype=values.typecode) for role, values in rows.columns.items()}
    # The columns carry the fields' names, which the builders' messages and the generations' label show.
    named = {
        "item": fields.item.text if fields.item else KEY_FIELD,
        "score": fields.score.text,
        "model": fields.model.text if fields.model else "model",
        **({"repeat": fields.repeat.text} if fields.repeat else {}),
        **({"cluster": fields.cluster.text} if fields.cluster else {}),
    }
    if fields.model is None and "model" in {text for role, text in named.items() if role != "model"}:
        named["model"] = "model (file name)"
    if fields.repeat is None:
        _refuse_duplicates(rows, columns["item"], columns["model"])
    # Items and models as categories of the codes read: the builders factorise them without a text per record.
    frame = pd.DataFrame(
        {
            named["item"]: pd.Categorical.from_codes(columns["item"], categories=list(rows.ids)),
            named["model"]: pd.Categorical.from_codes(columns["model"], categories=list(rows.models)),
            named["score"]: columns["score"],
            **{named[role]: pd.Series(values, dtype=object) for role, values in rows.extra.items()},
        }
    )
    notes = [
        f"{files} file{'s' if files != 1 else ''} of records: item {fields.item_shown}, score {fields.score.shown}, "
        + (f"model {fields.model.shown}" if fields.model else "one model per file, named by its file name")
        + (f", records at {fields.records.shown}" if fields.records else "")
    ]
    if rows.nulls:
        notes.append(
            f"left out {rows.nulls:,} record{'s' if rows.nulls != 1 else ''} whose score is null "
            f"(--on-missing intersect; the first: {rows.first_null})"
        )
    common = dict(
        item_column=named["item"],
        model_column=named["model"],
        score_column=named["score"],
        cluster_column=named.get("cluster"),
        on_missing=on_missing,
        score_kind=score_kind,
        missing_cluster=missing_cluster,
        source=_SOURCE,
        lines=rows,  # the long builders only index it by row: each place is made when a message names it
        notes=notes,
        exact_ids=True,
    )
    if fields.repeat is None:
        return from_long(frame, **common)
    return from_long_repeated(
        frame,
        repeat_column=named["repeat"],
        single_hint="leave that item's records out, add its missing generations, or read without --repeat-field",
        **common,
    )
