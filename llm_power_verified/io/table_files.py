"""Table files: CSV/TSV (optionally gzipped), Parquet and JSON Lines read into frames for :mod:`.tables`, and
:func:`write_table`, which writes a score matrix that :func:`read_table` reads back to the same matrix.

CSV is parsed by pandas (its C parser for the score columns; the header on its own, so a repeated
column name is seen rather than renamed); JSON Lines with the standard ``json`` module, one object per
line, so that a bad line is reported by number and a repeated key is caught.  Line numbers count the
header as line 1.
"""

from __future__ import annotations

import csv
import io as _stdio
import json
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import InputError
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.output import write_bytes
from llm_power_verified.io.tables import (
    DEFAULT_ITEM_COLUMN,
    EXACT_FLOATS,
    MISSING_TEXT,
    check_columns,
    from_long,
    from_wide,
)
from llm_power_verified.io.text import read_text

__all__ = ["read_frame", "read_table", "write_table"]


def _read_csv(path: Path, separator: str, text_columns: frozenset[str] = frozenset()) -> tuple[pd.DataFrame, np.ndarray]:
    """The table and the line of each row.  The header is read on its own (so a repeated column name is seen,
    not renamed); ``text_columns`` (item, model, cluster) are kept as text, every other column is parsed as
    numbers by pandas' C parser, with the missing-score texts as NaN."""
    text = read_text(path)
    if not text.strip():
        raise InputError(f"{path}: the file is empty")
    kind = "TSV" if separator == "\t" else "CSV"
    header = [name.strip() for name in next(csv.reader(_stdio.StringIO(text.split("\n", 1)[0].rstrip("\r")), delimiter=separator))]
    for position, name in enumerate(header):
        if not name:
            raise InputError(f"{path}: column {position + 1} of the header has no name")
    if len(set(header)) != len(header):
        check_columns(pd.DataFrame(columns=range(len(header))).set_axis(header, axis=1), str(path))
    textual = {position: str for position, name in enumerate(header) if name in text_columns}
    missing = sorted(MISSING_TEXT | {value.upper() for value in MISSING_TEXT} | {value.title() for value in MISSING_TEXT})
    try:
        data = pd.read_csv(_stdio.StringIO(text), sep=separator, header=None, skiprows=1, dtype=textual, keep_default_na=False,
                           na_values={position: missing for position in range(len(header)) if position not in textual},
                           skip_blank_lines=False, quoting=csv.QUOTE_MINIMAL, **EXACT_FLOATS)
    except pd.errors.EmptyDataError:
        data = pd.DataFrame(columns=range(len(header)))
    except (pd.errors.ParserError, ValueError) as error:
        raise InputError(f"{path}: not a readable {kind} table ({' '.join(str(error).split())})") from None
    if data.shape[1] != len(header):
        raise InputError(f"{path}: line 2 has {data.shape[1]} fields but the header has {len(header)}; not a readable {kind} table")
    blank = (data.isna() | (data == "")).all(axis=1).to_numpy()
    if blank.any():
        raise InputError(f"{path}, line {int(np.argmax(blank)) + 2}: blank line inside the table; every line is one item "
                         "(or one result), so a blank line would be an item without scores; remove it")
    data.columns = pd.Index(header, dtype=object)
    return data, np.arange(2, len(data) + 2)


def _read_jsonl(path: Path) -> tuple[pd.DataFrame, np.ndarray]:
    text = read_text(path)
    records, lines = [], []

    def no_repeated_keys(pairs):
        keys = [key for key, _ in pairs]
        if len(set(keys)) != len(keys):
            repeated = next(key for key in keys if keys.count(key) > 1)
            raise InputError(f"key {repeated!r} appears twice in one object")
        return dict(pairs)

    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            raise InputError(f"{path}, line {number}: blank line; JSON Lines has one object per line")
        try:
            record = json.loads(line, object_pairs_hook=no_repeated_keys)
        except json.JSONDecodeError as error:
            raise InputError(f"{path}, line {number}: not valid JSON ({error.msg} at column {error.colno})") from None
        except InputError as error:
            raise InputError(f"{path}, line {number}: {error}") from None
        if not isinstance(record, dict):
            raise InputError(f"{path}, line {number}: a JSON {type(record).__name__} where an object is expected")
        records.append(record)
        lines.append(number)
    if not records:
        raise InputError(f"{path}: the file is empty")
    return pd.DataFrame.from_records(records), np.asarray(lines) if lines else np.arange(1, 1)


def read_frame(path: str | Path, text_columns: Iterable[str] = ()) -> tuple[pd.DataFrame, np.ndarray]:
    """(table, line number of each row) from a CSV/TSV[.gz], Parquet or JSON Lines file (``text_columns``: keep as text in CSV)."""
    path = Path(path)
    name = path.name.lower()
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: a folder, not a table file")
    if name.endswith((".parquet", ".pq")):
        try:
            # Optional dependency (extra parquet): imported where it is used, so the package works without it.
            import pyarrow.parquet as parquet
        except ImportError as error:
            raise InputError(f"{path}: reading Parquet needs pyarrow ({error}); pip install 'llm-power-verified[parquet]'") from None
        try:
            names = parquet.read_schema(path).names
            if len(set(names)) != len(names):
                check_columns(pd.DataFrame(columns=range(len(names))).set_axis(names, axis=1), str(path))
            table = parquet.read_table(path)
        except InputError:
            raise
        except Exception as error:  # pyarrow raises its own ArrowInvalid/OSError family for damaged files
            raise InputError(f"{path}: not a readable Parquet file ({' '.join(str(error).split())[:200]})") from None
        frame = table.to_pandas()
        return frame, np.arange(1, len(frame) + 1)
    if name.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
        return _read_jsonl(path)
    if name.endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz")):
        return _read_csv(path, "\t" if ".tsv" in name else ",", frozenset(text_columns))
    raise InputError(f"{path}: unknown table format (expected .csv, .tsv, .csv.gz, .parquet or .jsonl)")


def read_table(path: str | Path, *, item_column: str = DEFAULT_ITEM_COLUMN, cluster_column: str | None = None,
               on_missing: str = "error", score_kind: str = "auto", score_range=(0.0, 1.0), missing_cluster: str = "error",
               model_column: str = "model", score_column: str = "score") -> ScoreMatrix:
    """Read a wide or long table from CSV/TSV, Parquet or JSON Lines.

    A table with both ``model_column`` and ``score_column`` is read as long,
    otherwise as wide.
    """
    path = Path(path)
    frame, lines = read_frame(path, {name for name in (item_column, cluster_column, model_column) if name})
    options = dict(cluster_column=cluster_column, on_missing=on_missing, score_kind=score_kind, score_range=score_range,
                   missing_cluster=missing_cluster, source=str(path), lines=lines)
    if model_column in frame.columns and score_column in frame.columns:
        return from_long(frame, item_column=item_column, model_column=model_column, score_column=score_column, **options)
    return from_wide(frame, item_column=item_column, **options)


def write_table(matrix: ScoreMatrix, path: str | Path, *, layout: str = "wide") -> None:
    """Write a score matrix as a table that :func:`read_table` reads back to the same matrix.

    ``layout`` is "wide" (``item_id``, one column per model, ``cluster``) or
    "long" (``item_id, model, score[, cluster]``); the format follows the
    suffix (.csv, .tsv, .parquet, .jsonl).  Values are written as they are
    (the round trip is exact); the file goes through the safe writer.
    """

    if layout not in ("wide", "long"):
        raise ArgumentError(f"layout must be 'wide' or 'long'; got {layout!r}")
    if layout == "wide":
        reserved = {DEFAULT_ITEM_COLUMN, "cluster"} & set(matrix.models)
        if reserved:
            raise InputError(f"a model is named {sorted(reserved)[0]!r}, a reserved column of the wide layout; use layout='long'")
        frame = pd.DataFrame(matrix.scores, columns=list(matrix.models))
        frame.insert(0, DEFAULT_ITEM_COLUMN, list(matrix.item_ids))
        if matrix.clusters is not None:
            frame["cluster"] = list(matrix.clusters)
    else:
        frame = pd.DataFrame({DEFAULT_ITEM_COLUMN: np.repeat(np.asarray(matrix.item_ids, dtype=object), matrix.n_models),
                              "model": np.tile(np.asarray(matrix.models, dtype=object), matrix.n_items),
                              "score": matrix.scores.reshape(-1)})
        if matrix.clusters is not None:
            frame["cluster"] = np.repeat(np.asarray(matrix.clusters, dtype=object), matrix.n_models)
    path = Path(path)
    name = path.name.lower()
    if name.endswith((".parquet", ".pq")):
        buffer = _stdio.BytesIO()
        frame.to_parquet(buffer, index=False)
        data = buffer.getvalue()
    elif name.endswith(".jsonl"):
        data = "".join(json.dumps(record, allow_nan=False) + "\n" for record in frame.to_dict(orient="records")).encode()
    elif name.endswith((".csv", ".tsv")):
        data = frame.to_csv(index=False, sep="\t" if name.endswith(".tsv") else ",", float_format="%.17g").encode()
    else:
        raise InputError(f"{path}: unknown table format (expected .csv, .tsv, .parquet or .jsonl)")
    write_bytes(path, data)
