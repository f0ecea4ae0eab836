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
written as the number 1 in one record and the text "1" in another is refused naming both (as respelled repeats are,
:func:`~llm_power_verified.io.generations.refuse_respelled`).  A null cluster label is an item without a cluster
(``missing_cluster``).  Each record is reduced at once to the fields read; every document and line is parsed by
:func:`~llm_power_verified.io.json_input.parse_json`.  The matrix is built by
:func:`~llm_power_verified.io.tables.from_long` (or :func:`~llm_power_verified.io.repeated_tables.from_long_repeated`
with ``repeat_field``), whose rules every reader shares.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
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


def _line_records(path: Path) -> Iterator[tuple[str, Any, str | None]]:
    """(place, record, None) of each line of a JSON Lines file, parsed one line at a time."""
    lines = re.split(r"\r\n|\r|\n", read_text(path))  # any line end; a raw CR cannot occur inside a JSON string
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise InputError(f"{path}: the file is empty: no records to read")
    for number, line in enumerate(lines, start=1):
        place = f"{path}, line {number}"
        if not line.strip():
            raise InputError(f"{place}: blank line; a JSON Lines file holds one record per line")
        try:
            record = parse_json(line, place, line_numbers=False)
        except InputError as error:
            cut = number == len(lines) and ": not valid JSON" in str(error)
            raise InputError(
                f"{error}{' (the last line is cut short: was the run interrupted?)' if cut else ''}"
            ) from None
        lines[number - 1] = ""
        yield place, record, None


@dataclass
class _Rows:
    """The records reduced to the fields read: one entry per record kept, by role (item, model, score, ...)."""

    fields: _Fields
    on_missing: str
    columns: dict = field(default_factory=dict)
    ids: dict = field(default_factory=dict)  # id text -> (first value, its place): 1 and "1" are not one id
    nulls: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.named = self.fields.named()
        declared = [role for role in ("repeat", "cluster") if getattr(self.fields, role) is not None]
        self.columns = {role: [] for role in ("item", "model", "score", "place", *declared)}

    def add(self, place: str, record: Any, key: str | None, model: str | None) -> None:
        """Reduce one record to its fields (checked), or refuse it naming ``place``."""
        if not isinstance(record, dict):
            raise InputError(f"{place}: {kind_of(record)} where a record (a JSON object) is expected")
        values = {}
        for role, path in self.named:
            value = record.get(path.steps[0], MISSING) if len(path.steps) == 1 else resolve(record, path)[0]
            if value is MISSING:
                raise InputError(f"{place}: {missing_field(record, path, resolve(record, path)[1])}")
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
            raise InputError(f"{place}: {error}") from None
        text = item if type(item) is str else str(item)
        first = self.ids.setdefault(text.strip(), (item, place))  # blanks around an id are dropped, as in tables
        if type(first[0]) is not type(item):
            self._respelled(item, place, first)
        if score is None:
            if self.on_missing == "error":
                raise AlignmentError(
                    f"{place}: {fields.score.shown} is null (no score for item {describe_value(item)}); use "
                    "--on-missing intersect (on_missing='intersect') to leave out the items a model has no score for"
                )
            self.nulls.append(place)
            return
        columns = self.columns
        columns["item"].append(text)
        columns["model"].append(model)
        columns["score"].append(score)
        columns["place"].append(place)
        for role in ("repeat", "cluster"):
            if role in values:
                columns[role].append(values[role])

    def _respelled(self, item: str | int, place: str, first: tuple) -> None:
        raise InputError(
            f"{place}: {self.fields.item_shown} is {describe_value(item)} but {first[1]} has "
            f"{describe_value(first[0])}: one id written as a number and as text; write every id one way"
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


def _refuse_duplicates(frame: pd.DataFrame, item: str, model: str, places: np.ndarray) -> None:
    """Two records of one model for one item (no --repeat-field): refused naming both and the flag for repeats."""
    twice = frame.duplicated([item, model]).to_numpy()
    if twice.any():
        second = int(np.argmax(twice))
        key = (frame[item].iat[second], frame[model].iat[second])
        first = int(np.argmax(((frame[item] == key[0]) & (frame[model] == key[1])).to_numpy()))
        raise AlignmentError(
            f"{places[second]}: model {key[1]!r} has a second record for item {key[0]!r} (the first: "
            f"{places[first]}); each model scores an item once: if these are repeated generations (trials, epochs, "
            "seeds), name their field with --repeat-field"
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
        [0, 1], an id or label that is not text or a whole number, one id written as 1 and "1", a null score
        (``on_missing="error"``), a model field that is not text, two files of one name (without ``model_field``),
        two records of one (item, model) without ``repeat_field``; then the matrix rules.

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
        for place, record, key in _document_records(path, fields) if kind == "document" else _line_records(path):
            rows.add(place, record, key, name)
    return _matrix(rows, fields, len(paths), on_missing, score_kind, missing_cluster)


def _matrix(
    rows: _Rows, fields: _Fields, files: int, on_missing: str, score_kind: str, missing_cluster: str
) -> ScoreMatrix:
    """The reduced records through the long-table builders."""
    if not rows.columns:
        raise AlignmentError(
            f"{_SOURCE}: every record's score is null ({len(rows.nulls):,} records, the first: {rows.nulls[0]}); "
            "nothing to compare"
        )
    places = np.asarray(rows.columns.pop("place"), dtype=object)
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
    frame = pd.DataFrame({named[role]: pd.Series(values, dtype=object) for role, values in rows.columns.items()})
    frame[named["score"]] = frame[named["score"]].astype(float)
    if fields.repeat is None:
        _refuse_duplicates(frame, named["item"], named["model"], places)
    notes = [
        f"{files} file{'s' if files != 1 else ''} of records: item {fields.item_shown}, score {fields.score.shown}, "
        + (f"model {fields.model.shown}" if fields.model else "one model per file, named by its file name")
        + (f", records at {fields.records.shown}" if fields.records else "")
    ]
    if rows.nulls:
        notes.append(
            f"left out {len(rows.nulls):,} record{'s' if len(rows.nulls) != 1 else ''} whose score is null "
            f"(--on-missing intersect; the first: {rows.nulls[0]})"
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
        lines=places,
        notes=notes,
    )
    if fields.repeat is None:
        return from_long(frame, **common)
    return from_long_repeated(
        frame,
        repeat_column=named["repeat"],
        single_hint="leave that item's records out, add its missing generations, or read without --repeat-field",
        **common,
    )
