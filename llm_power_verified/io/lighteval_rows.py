"""The rows of a lighteval details file: which schema it has, and per row what the reader uses.

lighteval 0.11 and later: the ``doc`` struct (of it ``id``, ``query``, ``choices``, ``gold_index``,
``task_name``, ``num_samples``) and the ``metric`` struct; ``model_response`` is never read.  lighteval 0.1 to
0.10 and the Open LLM Leaderboard (v1): the flat columns ``example`` (or ``full_prompt``), ``choices``,
``gold_index``, the ``metrics`` struct (or, without it, each number column that is not one of lighteval's own
Detail fields, taken as a metric of its own) and ``hashes.example`` when present.  lighteval 0.4 to 0.7 wrote
each flat cell as ``str()`` of its value, read back here as a Python literal.  Only the columns read are loaded,
and their uncompressed size (from the footer) is bounded before they are.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from llm_power_verified.io.errors import InputError, describe_value
from llm_power_verified.io.lighteval_layout import DetailsFile
from llm_power_verified.io.table_files import MAX_PARQUET_BYTES
from llm_power_verified.io.text import check_input_kind

__all__ = ["parquet_module", "read_rows", "schema_kind"]  # DetailsRows: passed between the lighteval modules only

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


def schema_kind(names: list[str], doc_is_struct: bool) -> str | None:
    """The schema: ``doc`` (lighteval 0.11+), ``flat`` (0.1-0.10, Open LLM Leaderboard v1) or None (not details)."""
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
    """``pyarrow.parquet``, or the refusal that names the optional dependency to install."""
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
    content: list[tuple[object, object, object]]  # per row: (query, choices, gold_index) as read
    carried: list[object] | None  # hashes.example per row, when the file has that column
    metrics: list[object]  # per row: the metric record (a dict when well formed)
    metric_names: tuple[str, ...]
    samples: int


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
    try:
        file = parquet.ParquetFile(path)
        schema = file.schema_arrow
        names = schema.names
        doc = schema.field("doc").type if "doc" in names else None
        kind = schema_kind(names, doc is not None and getattr(doc, "num_fields", 0) > 0)
        if kind == "doc":
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


def _doc_field(docs: list[dict], name: str, kind: type, path: Path):
    """The first row's ``doc.name`` (None when absent), each row's checked to be one of ``kind`` (or null).

    For ``num_samples`` the largest, for ``task_name`` the one value every row must share.
    """
    values = [doc.get(name) for doc in docs]
    for row, value in enumerate(values, start=1):
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise InputError(
                f"{path}, row {row}: doc.{name} is {describe_value(value)}; lighteval writes "
                + ("a whole number" if kind is int else "the task's name")
            )
    present = [value for value in values if value is not None]
    if kind is int:
        return max(present, default=None)
    if len(set(present)) > 1:
        row = next(row for row, value in enumerate(values, start=1) if value is not None and value != present[0])
        raise InputError(
            f"{path}, row {row}: doc.task_name is {describe_value(values[row - 1])} but {describe_value(present[0])} "
            "in an earlier row; a details file holds one task"
        )
    return present[0] if present else None


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
        docs = table.column("doc").to_pylist()
        metrics = table.column("metric").to_pylist()
        if any(doc is None for doc in docs):
            row = next(number for number, doc in enumerate(docs, start=1) if doc is None)
            raise InputError(f"{path}, row {row}: doc is null; lighteval writes one doc per row")
        kind_of_metric = table.schema.field("metric").type
        names = tuple(field.name for field in kind_of_metric) if getattr(kind_of_metric, "num_fields", 0) else ()
        task = _doc_field(docs, "task_name", str, path) or found.task
        samples = _doc_field(docs, "num_samples", int, path) or 1
        ids = [doc.get("id") for doc in docs]
        content = [(doc.get("query"), doc.get("choices"), doc.get("gold_index")) for doc in docs]
        carried = None
    else:
        content, carried, metrics = _flat_columns(table, path)
        first = metrics[0]
        names = tuple(first) if isinstance(first, dict) else ()
        task, ids, samples = found.task, [None] * table.num_rows, 1
    return DetailsRows(path, kind, task, ids, content, carried, metrics, names, samples)
