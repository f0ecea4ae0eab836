"""The rows of a lighteval details file: which schema it has, and per row what the reader uses.

lighteval 0.11 and later: the ``doc`` struct (of it ``id``, ``query``, ``choices``, ``gold_index``,
``task_name``, ``num_samples``) and the ``metric`` struct; ``model_response`` is never read.  lighteval 0.1 to
0.10 and the Open LLM Leaderboard (v1): the flat columns ``example`` (or ``full_prompt``), ``choices``,
``gold_index``, the ``metrics`` struct (or, without it, each number column that is not one of lighteval's own
Detail fields, taken as a metric of its own) and ``hashes.example`` when present.  lighteval 0.4 to 0.7 wrote
each flat cell as ``str()`` of its value, read back here as a Python literal.  Only the columns read are loaded,
and their row count and uncompressed size (from the footer) are bounded before they are; the ``doc`` fields and
the metric are taken from Arrow one field at a time, never as a Python record per row.
"""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.lighteval_layout import DetailsFile
from llm_power_verified.io.table_files import MAX_PARQUET_BYTES
from llm_power_verified.io.text import check_input_kind

__all__ = [
    "metric_values",
    "parquet_module",
    "read_rows",
    "schema_kind",
]  # DetailsRows: passed between the lighteval modules only

_DOC_FIELDS = ("id", "query", "choices", "gold_index", "task_name", "num_samples")
_FLAT_FIELDS = ("example", "full_prompt", "choices", "gold_index", "metrics")
# The other columns of lighteval's flat Detail record (0.1-0.10); any further number column is a metric.
_FLAT_OTHERS = frozenset(
    (
        "instruction",
        "num_effective_few_shots",
        "num_asked_few_shots",
        "predictions",
        "prediction_logits",
        "input_tokens",
        "cont_tokens",
        "truncated",
        "padded",
        "gold",
        "pred_logits",
        "specifics",
        "hashes",
        "judement_prompt",
        "judgement",
    )
)
_LITERAL_CHARACTERS = 1 << 20  # the longest str() of a 0.4-0.7 cell read back as a Python literal
# Most rows (docs) of a details file read, checked on the footer before any row is.  The Parquet byte bound alone
# does not bound memory: dictionary and run-length encoding store a repeated row in a few bytes (a 1.4 MB file of
# 2.4 M repeated rows once took 3.1 GB), and each row read costs some hundreds of bytes of Python objects (about
# 0.7 kB a doc through the whole audit, measured).  The largest evaluation sets lighteval runs hold tens of
# thousands of docs (MMLU's test split 14,042), so a genuine details file, one task each, is far below a million.
MAX_DETAILS_ROWS = 1_000_000
_BATCH_ROWS = 1 << 16  # rows of the doc fields read to Python at a time, to digest their content


def schema_kind(names: list[str], doc_is_struct: bool) -> str | None:
    """The schema of a Parquet file's columns.

    Parameters
    ----------
    names : list of str
        The top-level column names.
    doc_is_struct : bool
        Whether the ``doc`` column is a struct.

    Returns
    -------
    str or None
        ``doc`` (lighteval 0.11+), ``flat`` (0.1-0.10, Open LLM Leaderboard v1) or None (not details).
    """
    if {"doc", "metric", "model_response"} <= set(names) and doc_is_struct:
        return "doc"
    named = set(names)
    if (
        {"example", "full_prompt"} & named
        and ("metrics" in named or "hashes" in named)
        and {"predictions", "hashes"} & named
    ):
        return "flat"
    return None


def parquet_module() -> ModuleType:
    """``pyarrow.parquet``, or the refusal that names the optional dependency to install.

    Returns
    -------
    module
        ``pyarrow.parquet``.
    """
    try:
        # Optional dependency (extra parquet): imported where it is used, so the package works without it.
        import pyarrow.parquet as parquet
    except ImportError as error:
        raise InputError(
            f"reading lighteval details needs pyarrow ({error}); pip install 'llm-power-verified[parquet]'"
        ) from None
    return parquet


@dataclass(frozen=True)
class DetailsRows:
    """What is read of one details file: the schema, task, and per row the key material and the metric values."""

    path: Path
    kind: str
    task: str
    ids: list[object]  # doc.id per row as read (None in the flat schema)
    digests: list[bytes]  # per row: the SHA-256 of [query, choices, gold_index] (see content_digest)
    queries: object  # per row the query: an Arrow array (doc schema) or a list (flat), read one at a time by query()
    carried: list[object] | None  # hashes.example per row, when the file has that column
    metrics: (
        object  # the metric struct array (doc schema), or per row the metric record (flat: a dict when well formed)
    )
    metric_names: tuple[str, ...]
    samples: int

    def query(self, row: int) -> object:
        """Row ``row``'s query (from 1), for a message."""
        value = self.queries[row - 1]
        return value.as_py() if hasattr(value, "as_py") else value


def content_digest(query: object, choices: object, gold: object) -> bytes:
    """SHA-256 of the JSON text ``[query, choices, gold_index]`` (gold_index a list; no choices an empty list)."""
    golds = [] if gold is None else list(gold) if isinstance(gold, (list, tuple)) else [gold]
    text = json.dumps([query, list(choices or []), golds], ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _doc_digests(docs) -> list[bytes]:
    """Each row's content digest, the query, choices and gold_index read to Python a batch of rows at a time."""
    digests = []
    fields = {docs.type.field(i).name for i in range(docs.type.num_fields)}
    for start in range(0, len(docs), _BATCH_ROWS):
        batch = docs.slice(start, _BATCH_ROWS)
        query, choices, gold = (
            batch.field(name).to_pylist() if name in fields else [None] * len(batch)
            for name in ("query", "choices", "gold_index")
        )
        digests += map(content_digest, query, choices, gold)
    return digests


def _literal(value: object, path: Path, row: int, column: str) -> object:
    """A cell as lighteval wrote it; a 0.4-0.7 ``str()`` of a number, list or dict read back as a Python literal."""
    if not isinstance(value, str) or column == "example":
        return value
    if len(value) > _LITERAL_CHARACTERS:
        raise InputError(f"{path}, row {row}: column {column!r} holds {len(value):,} characters, more than read back")
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise InputError(
            f"{path}, row {row}: column {column!r} holds {describe_value(value)}, not a value lighteval writes "
            "(a number, list or dict)"
        ) from None


def _selected_bytes(metadata, prefixes: tuple[str, ...]) -> int:
    return sum(
        metadata.row_group(group).column(index).total_uncompressed_size
        for group in range(metadata.num_row_groups)
        for index in range(metadata.num_columns)
        if metadata.row_group(group).column(index).path_in_schema.split(".")[0] in prefixes
    )


def _open(path: Path):
    """The table of the columns read, and the schema kind; a damaged or foreign file refused naming it."""
    parquet = parquet_module()
    check_input_kind(path)
    if not path.is_file():  # a pipe: Parquet is read from its end, and opening one waits for a writer
        raise InputError(f"{path}: a pipe or device, not a file; Parquet is read from a file (save it to one first)")
    # Optional dependency (extra parquet), as in parquet_module.
    import pyarrow.types as types

    try:
        file = parquet.ParquetFile(path)
        if file.metadata.num_rows > MAX_DETAILS_ROWS:
            raise InputError(
                f"{path}: {file.metadata.num_rows:,} rows, more than the {MAX_DETAILS_ROWS:,} docs of a details file "
                "read (one task each); split the task"
            )
        schema = file.schema_arrow
        names = schema.names
        doc = schema.field("doc").type if "doc" in names else None
        kind = schema_kind(names, doc is not None and getattr(doc, "num_fields", 0) > 0)
        if kind == "doc":
            if not types.is_struct(schema.field("metric").type):
                raise InputError(
                    f"{path}: column metric is {schema.field('metric').type}, not the struct lighteval writes (one key "
                    "per metric)"
                )
            present = {doc.field(i).name for i in range(doc.num_fields)}
            columns = [f"doc.{name}" for name in _DOC_FIELDS if name in present] + ["metric"]
            prefixes = ("doc", "metric")
        elif kind == "flat":
            has_hashes = "hashes" in names and getattr(schema.field("hashes").type, "num_fields", 0) > 0
            columns = [name for name in _FLAT_FIELDS if name in names] + (["hashes.example"] if has_hashes else [])
            if "metrics" not in names:  # each metric a column of its own
                columns += [name for name in _metric_columns(schema) if name not in columns]
            prefixes = tuple(name.split(".")[0] for name in columns)
        elif "doc" in names and "metric" in names:
            raise InputError(f"{path}: column doc is {doc}, not the struct lighteval writes (query, choices, id, ...)")
        else:
            shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
            raise InputError(
                f"{path}: columns {shown}, not lighteval details (doc, metric, model_response; or example, metrics, "
                "predictions); read other tables with --input-format table"
            )
        size = _selected_bytes(file.metadata, prefixes)
        if size > MAX_PARQUET_BYTES:
            raise InputError(
                f"{path}: the columns read hold {size:,} bytes uncompressed, more than the {MAX_PARQUET_BYTES:,} read "
                "whole; split the task"
            )
        return file.read(columns=columns), kind
    except (InputError, MemoryError):
        raise
    except Exception as error:  # pyarrow raises its own ArrowInvalid/OSError family for damaged files
        raise InputError(f"{path}: not a readable Parquet file ({' '.join(str(error).split())[:200]})") from None


def _metric_columns(schema) -> list[str]:
    """The number and true/false columns beside the flat Detail record's own: metrics written one per column."""
    # Optional dependency (extra parquet), as in parquet_module.
    import pyarrow.types as types

    return [
        field.name
        for field in schema
        if field.name not in _FLAT_FIELDS
        and field.name not in _FLAT_OTHERS
        and (types.is_integer(field.type) or types.is_floating(field.type) or types.is_boolean(field.type))
    ]


def _flat_columns(table, path: Path) -> tuple[list, list | None, list]:
    """Per row of the flat schema: (query, choices, gold_index), the carried hashes.example or None, the metrics."""
    count = table.num_rows
    columns = {name: table.column(name).to_pylist() for name in table.column_names if name != "hashes"}
    queries = columns["example"] if "example" in columns else columns["full_prompt"]
    read = {
        name: [_literal(value, path, row, name) for row, value in enumerate(columns.get(name, [None] * count), start=1)]
        for name in ("choices", "gold_index", "metrics")
    }
    if "metrics" not in columns:
        own = [name for name in _metric_columns(table.schema)]
        read["metrics"] = [{name: columns[name][index] for name in own} for index in range(count)]
    carried = (
        [(row or {}).get("example") for row in table.column("hashes").to_pylist()]
        if "hashes" in table.column_names
        else None
    )
    return list(zip(queries, read["choices"], read["gold_index"], strict=True)), carried, read["metrics"]


def _first_row(array, wanted) -> int:
    """The first row (from 1) whose value is ``wanted`` (an error path: the column is read to Python)."""
    return next(row for row, value in enumerate(array.to_pylist(), start=1) if value == wanted)


def _doc_field(docs, name: str, kind: type, path: Path):
    """``doc.name`` (None when absent), each row's checked to be one of ``kind`` (or null), from its distinct values.

    For ``num_samples`` the largest, for ``task_name`` the one value every row must share.
    """
    if name not in {docs.type.field(i).name for i in range(docs.type.num_fields)}:
        return None
    array = docs.field(name)
    try:
        present = [value for value in array.unique().to_pylist() if value is not None]  # in order of first row
    except Exception:  # a type Arrow cannot hash (a list, a struct): it is refused below by its first value
        present = [value for value in array.to_pylist() if value is not None]
    for value in present:
        if not isinstance(value, kind) or isinstance(value, bool):
            raise InputError(
                f"{path}, row {_first_row(array, value)}: doc.{name} is {describe_value(value)}; lighteval writes "
                + ("a whole number" if kind is int else "the task's name")
            )
    if kind is int:
        return max(present, default=None)
    if len(present) > 1:
        raise InputError(
            f"{path}, row {_first_row(array, present[1])}: doc.task_name is {describe_value(present[1])} but "
            f"{describe_value(present[0])} in an earlier row; a details file holds one task"
        )
    return present[0] if present else None


def metric_values(rows: DetailsRows, metric: str) -> list[object]:
    """Per row the value of ``metric``; a row whose metrics are no record, or lack it, refused naming the row.

    Parameters
    ----------
    rows : DetailsRows
        One file's rows, as :func:`read_rows` gives them.
    metric : str
        The metric chosen (for the doc schema, one of the ``metric`` struct's fields, checked before).

    Returns
    -------
    list
        The value of each row, as read (checked by the caller).
    """
    if rows.kind == "doc":
        if rows.metrics.null_count:
            row = _first_row(rows.metrics.is_null(), True)
            raise InputError(f"{rows.path}, row {row}: the metrics are None, not a record")
        return rows.metrics.field(metric).to_pylist()  # the metric is one of the struct's fields (checked before)
    values = []
    for row, record in enumerate(rows.metrics, start=1):
        if not isinstance(record, dict):
            raise InputError(f"{rows.path}, row {row}: the metrics are {describe_value(record)}, not a record")
        if metric not in record:
            listed = ", ".join(map(str, record)) or "none"
            raise AlignmentError(f"{rows.path}, row {row}: no metric {metric!r} (metrics: {listed}); check --metric")
        values.append(record[metric])
    return values


def read_rows(found: DetailsFile) -> DetailsRows:
    """The rows of one details file, reduced to the key material and the metric values.

    Parameters
    ----------
    found : DetailsFile
        The file, and its task as its name gives it (used where the rows name none).

    Returns
    -------
    DetailsRows
        The schema kind, the task, and per row the id, (query, choices, gold_index), the carried hash, the metrics.

    Raises
    ------
    InputError
        A damaged or foreign file, too large a file, no rows, a null doc, a 0.4-0.7 text cell that is no literal.
    """
    path = found.path
    table, kind = _open(path)
    if table.num_rows == 0:
        raise InputError(f"{path}: no rows (a details file holds one row per doc)")
    if kind == "doc":
        docs = table.column("doc").combine_chunks()
        if docs.null_count:
            raise InputError(
                f"{path}, row {_first_row(docs.is_null(), True)}: doc is null; lighteval writes one doc per row"
            )
        metrics = table.column("metric").combine_chunks()
        names = tuple(metrics.type.field(i).name for i in range(metrics.type.num_fields))
        task = _doc_field(docs, "task_name", str, path) or found.task
        samples = _doc_field(docs, "num_samples", int, path) or 1
        fields = {docs.type.field(i).name for i in range(docs.type.num_fields)}
        ids = docs.field("id").to_pylist() if "id" in fields else [None] * len(docs)
        digests = _doc_digests(docs)
        queries = docs.field("query") if "query" in fields else [None] * len(docs)
        carried = None
    else:
        content, carried, metrics = _flat_columns(table, path)
        digests = [content_digest(*one) for one in content]
        queries = [one[0] for one in content]
        first = metrics[0]
        names = tuple(first) if isinstance(first, dict) else ()
        task, ids, samples = found.task, [None] * table.num_rows, 1
    return DetailsRows(path, kind, task, ids, digests, queries, carried, metrics, names, samples)
