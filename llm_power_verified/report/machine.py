"""Machine formats of an audit, written piece by piece: JSON, JSON Lines, CSV and Parquet.

None of them holds the report in memory as Python objects: the pair table is
converted and written one block of ``PAIR_BLOCK``
rows at a time, and a streamed Parquet audit (:func:`write_parquet`, called by
:func:`~.dispatch.write` with an audit request) never holds the pair table at
all (it comes from :func:`~llm_power_verified.leaderboard.audit.stream_audit`).

* JSON: the document of ``audit.schema.json``; its last key is ``pairs``,
  one line per block of records.
* JSON Lines: the pair table only, one record per line (``pandas.read_json(path,
  lines=True)`` reads it back).
* CSV: the pair table, text cells escaped against spreadsheet formulas.
* Parquet: the pair table in row groups of about ``ROW_GROUP_BYTES`` of data
  (blocks gathered until one is full, at most ``ROW_GROUP_ROWS`` rows), the
  model names dictionary-encoded (read back as strings), with the rest of the
  report (the JSON document without ``pairs``) in the file's key-value
  metadata under ``llm-power-verified``.

CSV, JSON Lines and Parquet write the columns a request asks for
(:mod:`~.column_choice`: every column, the contract's default set, or a list;
``--columns`` on the command line, where Parquet's default is the default set);
a Parquet file of a chosen set lists them in its metadata's ``pairs_columns``.
The JSON report always holds every column: its schema requires them.

Every value follows the JSON rule of :func:`~llm_power_verified.io.output.json_ready`:
undefined values are null, infinities the strings "inf" and "-inf" (in
Parquet, NaN is null and infinities are IEEE infinities).  orjson encodes: it
is a well-kept encoder about ten times faster than the standard library's on
these records.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import InputError
from llm_power_verified.io.escaping import csv_text
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.output import json_ready, open_output
from llm_power_verified.leaderboard.blocks import PAIR_BLOCK
from llm_power_verified.report.cells import reported_pairs
from llm_power_verified.report.column_choice import chosen_columns
from llm_power_verified.report.report_data import document
from llm_power_verified.report.sections import ChecklistTally, checklist

__all__ = [
    "METADATA_KEY",
    "ROW_GROUP_BYTES",
    "ROW_GROUP_ROWS",
    "ParquetSink",
    "chunks",
    "csv_chunks",
    "json_chunks",
    "jsonl_chunks",
    "pair_records",
    "parquet_blocks",
    "read_audit_metadata",
    "write_parquet",
]

#: The Parquet key-value metadata key holding the report without its pairs.
METADATA_KEY = b"llm-power-verified"
#: A row group is written when the blocks gathered hold this much Arrow data (128 MiB, the usual size readers and
#: query engines are tuned for: few enough groups for a cheap footer, small enough to read one group at a time) ...
ROW_GROUP_BYTES = 128 * 2**20
#: ... or this many rows, whichever comes first (a row group passes them by less than a block).
ROW_GROUP_ROWS = 2**20
#: The columns dictionary-encoded in Parquet: the model names, a few thousand values repeated over millions of rows.
_DICTIONARY = ("model_a", "model_b")


def _column_values(column: pd.Series) -> list:
    """One column as JSON-ready Python values, by whole-column conversions (the rule of ``json_ready``)."""
    values = column.to_numpy()
    if values.dtype.kind == "f":
        converted = values.tolist()
        for index in np.flatnonzero(~np.isfinite(values)):
            value = values[index]
            converted[index] = None if math.isnan(value) else ("inf" if value > 0 else "-inf")
        return converted
    if values.dtype.kind in "iub":
        return values.tolist()
    converted = values.tolist()
    if {type(value) for value in converted} <= {str, bool, type(None)}:
        return converted  # names and verdicts (None outside the family): JSON-ready as they are
    return [json_ready(value) for value in converted]


def pair_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of a block of the pair table as JSON-ready dicts (column order kept).

    Parameters
    ----------
    frame : pandas.DataFrame
        A block of the pair table.

    Returns
    -------
    list of dict
        One dict per row: NaN is None, infinities are "inf"/"-inf" (the schemas' number rule), numpy scalars are Python
        ones.
    """
    names = [str(name) for name in frame.columns]
    columns = [_column_values(frame[name]) for name in frame.columns]
    return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]


def _frames(pairs: pd.DataFrame) -> Iterator[pd.DataFrame]:
    for start in range(0, len(pairs), PAIR_BLOCK):
        yield pairs.iloc[start : start + PAIR_BLOCK]


def json_chunks(document: dict, pairs: pd.DataFrame) -> Iterator[bytes]:
    """The JSON report in pieces: ``document`` with ``pairs`` appended as its last key.

    Parameters
    ----------
    document : dict
        The JSON-ready report without ``pairs`` (:func:`~llm_power_verified.report.report_data.document`).
    pairs : pandas.DataFrame
        The pair table.

    Returns
    -------
    iterator of bytes
        The UTF-8 JSON text, piece by piece.
    """
    head = orjson.dumps(document, option=orjson.OPT_INDENT_2)
    if not head.endswith(b"}"):
        raise ArgumentError("document must be a JSON object")  # pragma: no cover
    yield head[:-1].rstrip() + (b',\n  "pairs": [' if len(document) else b'  "pairs": [')
    first = True
    for frame in _frames(pairs):
        if len(frame):
            # One encoder call per block (twice as fast as one per record): a block's records share a line.
            yield (b"\n    " if first else b",\n    ") + orjson.dumps(pair_records(frame))[1:-1]
            first = False
    yield b"\n  ]\n}\n" if not first else b"]\n}\n"


def jsonl_chunks(frames: Iterable[pd.DataFrame]) -> Iterator[bytes]:
    """The pair table as JSON Lines, one block at a time.

    Parameters
    ----------
    frames : iterable of pandas.DataFrame
        The pair table's blocks, in order.

    Returns
    -------
    iterator of bytes
        One JSON object per pair, a line each.
    """
    for frame in frames:
        records = pair_records(frame)
        if records:
            yield b"\n".join(orjson.dumps(record) for record in records) + b"\n"


def _csv_ready(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    for column in frame.columns:
        if pd.api.types.is_object_dtype(frame[column]) or pd.api.types.is_string_dtype(frame[column]):
            frame[column] = frame[column].map(lambda value: csv_text(value) if isinstance(value, str) else value)
    return frame


def csv_chunks(frames: Iterable[pd.DataFrame]) -> Iterator[bytes]:
    """The pair table as CSV (the header once), one block at a time.

    Parameters
    ----------
    frames : iterable of pandas.DataFrame
        The pair table's blocks, in order.

    Returns
    -------
    iterator of bytes
        The CSV text, piece by piece.
    """
    header = True
    for frame in frames:
        yield _csv_ready(frame).to_csv(index=False, header=header).encode("utf-8")
        header = False
    if header:
        yield b"\n"


def chunks(audit, output: str, columns=None) -> Iterator[bytes]:
    r"""An audit in memory in a machine format.

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.
    output : {"json", "jsonl", "csv"}
        "json": the whole report; "jsonl" and "csv": the pair table (:func:`~.cells.reported_pairs`).
    columns : str, list of str or None, optional
        The pair columns of "jsonl" and "csv" (:func:`~.column_choice.chosen_columns`); None: every column.  "json"
        takes only every column (its schema requires them).

    Returns
    -------
    iterator of bytes
        The report, piece by piece.

    Raises
    ------
    ArgumentError
        Any other ``output``; a column request the table cannot meet; a chosen set of columns for "json".

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.leaderboard.audit import audit_leaderboard
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float)
    >>> audit = audit_leaderboard(from_array(scores, models=["x", "y", "z"]), n_resamples=0)
    >>> print(b"".join(chunks(audit, "jsonl")).decode().count("\n"))
    2
    >>> print(b"".join(chunks(audit, "csv", ["model_a", "model_b", "q"])).decode().splitlines()[0])
    model_a,model_b,q
    """
    pairs = reported_pairs(audit.pairs)
    chosen = chosen_columns(list(pairs.columns), columns, getattr(audit, "kind", None))
    if output == "json":
        if len(chosen) < len(pairs.columns):
            raise ArgumentError(
                "--columns: the JSON report holds every pair column (audit.schema.json requires them); choose "
                "columns with --format csv, jsonl or parquet, or give --columns all"
            )
        return json_chunks(document(audit), pairs)
    pairs = pairs[chosen] if len(chosen) < len(pairs.columns) else pairs
    if output == "jsonl":
        return jsonl_chunks(_frames(pairs))
    if output == "csv":
        return csv_chunks(_frames(pairs))
    raise ArgumentError(f"output must be 'json', 'jsonl' or 'csv'; got {output!r}")


class ParquetSink:
    """Writes the blocks of the pair table to one Parquet file, gathered into row groups of a reader's size.

    The schema is the first block's columns the request keeps; later blocks are cast to it.  Blocks are gathered
    until they hold ``ROW_GROUP_BYTES`` of data or ``ROW_GROUP_ROWS`` rows, then written as one row group (zstd; the
    model names dictionary-encoded).  Called with a block (a DataFrame or a pyarrow Table); ``close(metadata)`` writes
    what is gathered, adds the key-value metadata and closes the file (a file with no pairs still carries it).

    Parameters
    ----------
    stream : binary file
        Where the Parquet file is written.
    tally : ChecklistTally, optional
        Gathers what the checklist needs from each whole block, before columns are dropped
        (:class:`~.sections.ChecklistTally`).
    columns : str, list of str or None, optional
        The pair columns written (:func:`~.column_choice.chosen_columns`); None: every column.
    kind : {"binary", "graded", "accuracies"}, optional
        The audit, for the refusal of a column it never has.

    Attributes
    ----------
    writer : pyarrow.parquet.ParquetWriter or None
        The writer, opened by the first block.
    schema : pyarrow.Schema or None
        The schema written: the first block's, narrowed to the columns chosen.
    present : list of str or None
        The first block's columns (the audit's pair table).

    Raises
    ------
    ArgumentError
        When pyarrow (the ``parquet`` extra) is not installed; from the first block, a column request it cannot meet.
    """

    def __init__(self, stream, tally: ChecklistTally | None = None, columns=None, kind: str | None = None) -> None:
        try:
            # Optional dependency (extra parquet): imported where it is used, so the package works without it.
            import pyarrow as pa

            # Optional dependency (extra parquet), as above.
            import pyarrow.parquet as pq
        except ImportError as error:
            raise ArgumentError("Parquet output needs pyarrow: pip install 'llm-power-verified[parquet]'") from error
        self._pa, self._pq, self._stream, self.tally = pa, pq, stream, tally
        self._request, self._kind = columns, kind
        self.writer = self.schema = self.present = None
        self._gathered: list = []
        self._bytes = self._rows = 0

    def __call__(self, frame) -> None:
        """Take one block of the pair table (and count it for the checklist); write a row group when one is full."""
        table = frame if isinstance(frame, self._pa.Table) else self._pa.Table.from_pandas(frame, preserve_index=False)
        if self.tally is not None:
            self.tally.add(table)
        if self.writer is None:
            self.present = table.column_names
            chosen = chosen_columns(self.present, self._request, self._kind)
            self.schema = table.select(chosen).schema.remove_metadata()
            names = [name for name in _DICTIONARY if name in chosen]
            self.writer = self._pq.ParquetWriter(
                self._stream, self.schema, compression="zstd", use_dictionary=names or False
            )
        table = table.select(self.schema.names).cast(self.schema)
        self._gathered.append(table)
        self._bytes += table.nbytes
        self._rows += table.num_rows
        if self._bytes >= ROW_GROUP_BYTES or self._rows >= ROW_GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
        """Write the blocks gathered as one row group."""
        if self._gathered:
            table = self._pa.concat_tables(self._gathered)
            self.writer.write_table(table, row_group_size=max(table.num_rows, 1))
        self._gathered, self._bytes, self._rows = [], 0, 0

    def close(self, metadata: dict[bytes, bytes]) -> None:
        """Write the blocks still gathered, add the key-value ``metadata`` and close the file."""
        if self.writer is None:  # no pairs at all: an empty table still carries the metadata
            self.writer = self._pq.ParquetWriter(self._stream, self._pa.schema([]))
        self._flush()
        self.writer.add_key_value_metadata(metadata)
        self.writer.close()


def write_parquet(
    path: str | Path, produce: Callable[[ParquetSink], object], columns=None, kind: str | None = None
) -> object:
    """Write a Parquet audit, its report in the file's metadata (the JSON report's members but ``pairs``).

    Written atomically, when the audit has finished; a chosen part of the pair table is listed in ``pairs_columns``.

    Parameters
    ----------
    path : str or Path
        The file.
    produce : callable
        ``produce(sink)`` hands the pair table to ``sink`` (a :class:`ParquetSink`) block by block and returns the
        audit,
        whose :func:`~.report_data.document` goes into the metadata.
    columns : str, list of str or None, optional
        The pair columns written (:func:`~.column_choice.chosen_columns`); None: every column.
    kind : {"binary", "graded", "accuracies"}, optional
        The audit, for the refusal of a column it never has.

    Returns
    -------
    Audit
        What ``produce`` returned.
    """
    with open_output(path) as stream:
        sink = ParquetSink(stream, ChecklistTally(), columns, kind)
        audit = produce(sink)
        report = document(audit)
        if audit.kind != "accuracies" and "checklist" not in report:  # a streamed audit: from the pairs written
            report["checklist"] = json_ready(checklist(audit, sink.tally))
        if sink.schema is not None and len(sink.schema.names) < len(sink.present):  # a chosen part: say which
            report["pairs_columns"] = sink.schema.names
        sink.close({METADATA_KEY: orjson.dumps(report)})
    return audit


def parquet_blocks(audit) -> Callable[[ParquetSink], object]:
    """The producer of :func:`write_parquet` for an audit already in memory: its pair table, one block per row group.

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.

    Returns
    -------
    callable
        ``produce(sink)``, which returns ``audit``.
    """

    def produce(sink: ParquetSink) -> object:
        for frame in _frames(reported_pairs(audit.pairs)):
            sink(frame)
        return audit

    return produce


def read_audit_metadata(path: str | Path) -> dict:
    """The report stored in a Parquet audit's metadata (the JSON document without ``pairs``).

    Parameters
    ----------
    path : str or Path
        A Parquet file written by :func:`write_parquet`.

    Returns
    -------
    dict
        The JSON report without ``pairs``.

    Raises
    ------
    InputError
        The file is not readable Parquet, or its metadata is not a JSON object.
    ArgumentError
        The file has no audit metadata.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from llm_power_verified.report import write
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.leaderboard.audit import audit_leaderboard
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float)
    >>> audit = audit_leaderboard(from_array(scores, models=["x", "y", "z"]), n_resamples=0)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "audit.parquet"
    ...     _ = write(audit, "parquet", path)
    ...     read_audit_metadata(path)["settings"]["family_size"]
    2
    """
    # Optional dependency (extra parquet).
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_metadata(path).metadata or {}
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError, ArrowIOError an OSError
        raise InputError(f"{path}: not a readable Parquet file ({' '.join(str(error).split())})") from None
    if METADATA_KEY not in metadata:
        raise ArgumentError(f"{path}: not an llm-power-verified audit (no {METADATA_KEY.decode()} metadata)")
    document = parse_json(metadata[METADATA_KEY], f"{path}, metadata {METADATA_KEY.decode()}")
    if not isinstance(document, dict):
        raise InputError(
            f"{path}, metadata {METADATA_KEY.decode()}: a JSON {type(document).__name__} where the report object is "
            "expected"
        )
    return document
