"""Table files: CSV/TSV (optionally gzipped), Parquet and JSON Lines read into frames for :mod:`.tables`.

:mod:`.table_writer` writes a score matrix that :func:`~llm_power_verified.io.table_files.read_table` reads back to
the same matrix.

Text tables, line by line:

* line ends may be LF, CRLF or CR alone (old Mac files); a NUL character is refused (the file is binary);
* line numbers are physical lines, counting the header as line 1: a quoted cell that holds a line break
  moves the following records down, and every message names the line where its record starts;
* a blank line (empty, or only spaces and tabs) is nothing in a table that carries an id column (the
  item column of a score table, the model column of an accuracy table): it is skipped, and the lines
  after it keep their numbers.  In a table without one (a wide table whose items are numbered by row)
  the row order is the alignment, so a blank line there is refused, like in plain score files;
* every record has as many fields as the header, or the line is refused (an empty field is a missing value).

CSV without a quote character is split by pandas' C parser (its number grammar is the one in
:mod:`.tables`; a column it reads as true/false is refused); a file with quotes goes through the standard
``csv`` module (strict quoting), which tracks where a record spans lines.  The header is read on its own,
so a repeated column name is seen rather than renamed.  JSON Lines: one object per line, each parsed by
:func:`llm_power_verified.io.json_input.parse_json` (repeated keys, NaN, depth and over-long integers
refused, naming the line).
"""

from __future__ import annotations

import csv
import io as _stdio
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.io.cells import EXACT_FLOATS, MISSING_TEXT
from llm_power_verified.io.errors import InputError, describe_value
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.parquet_tables import MAX_PARQUET_ESTIMATE, read_parquet_frame
from llm_power_verified.io.tables import DEFAULT_ITEM_COLUMN, check_columns, from_long, from_wide
from llm_power_verified.io.text import CHUNK_BYTES, check_input_kind, read_raw

__all__ = ["MAX_PARQUET_ESTIMATE", "read_frame", "read_table"]


#: Largest uncompressed size of the columns read from a harness's Parquet file (lighteval details: texts), 256 MiB.
MAX_PARQUET_BYTES = 256 << 20
#: Most columns a text table's header may have (100,000 models); a wider first line is refused before it is split.
MAX_COLUMNS = 100_000


def _raw(path: Path, separator: str = "") -> bytes:
    """The file's bytes (a byte-order mark dropped), checked as UTF-8 in chunks without building the text.

    A NUL character, an empty file and a first line with more than :data:`MAX_COLUMNS` fields are refused.
    Bytes rather than text go to the parsers: Python text takes up to 4 bytes a character.
    """
    raw = read_raw(path)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    view, start = memoryview(raw), 0
    while start < len(raw):
        end = min(start + CHUNK_BYTES, len(raw))
        while end < len(raw) and end > start + CHUNK_BYTES - 4 and raw[end] & 0xC0 == 0x80:  # never split a character
            end -= 1
        try:
            str(view[start:end], "utf-8")
        except UnicodeDecodeError as error:
            line = raw.count(b"\n", 0, start + error.start) + 1
            raise InputError(
                f"{path}, line {line}: byte {raw[start + error.start]:#04x} is not UTF-8; save the file as UTF-8"
            ) from None
        start = end
    nul = raw.find(b"\x00")
    if nul >= 0:
        ends = raw.count(b"\n", 0, nul) + raw.count(b"\r", 0, nul) - raw.count(b"\r\n", 0, nul)
        line = (ends + (raw[nul - 1 : nul] not in (b"\n", b"\r"))) if nul else 1
        raise InputError(f"{path}, line {line or 1}: a NUL character; the file is binary or damaged, not a text table")
    if len(raw.strip()) < 64 and not raw.decode("utf-8").strip():
        raise InputError(f"{path}: the file is empty")
    if separator:
        first = min((found for found in (raw.find(b"\n"), raw.find(b"\r")) if found >= 0), default=len(raw))
        columns = raw.count(separator.encode(), 0, first) + 1
        if columns > MAX_COLUMNS:
            raise InputError(
                f"{path}, line 1: {columns:,} columns in the header, more than the {MAX_COLUMNS:,} a table may have; "
                "is the separator right? (a wider table is better written long: item_id, model, score)"
            )
    return raw


def _lf(raw: bytes) -> bytes:
    """Every line end (CRLF, CR) made LF; only where no quoted cell can hold a CR."""
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in raw else raw


def _records(
    path: Path,
    kind: str,
    header: list[str],
    fields: np.ndarray,
    blank: np.ndarray,
    id_column: str | None,
    starts: np.ndarray,
) -> np.ndarray:
    """Positions of the data records among all records, after the rules on blank lines and field counts.

    ``fields``, ``blank`` and ``starts`` (the physical line where each begins) describe every record,
    the header first.
    """
    if blank[0]:
        raise InputError(f"{path}, line 1: blank line where the header should be; the first line names the columns")
    for position, name in enumerate(header):
        if not name:
            raise InputError(f"{path}: column {position + 1} of the header has no name")
    check_columns(pd.DataFrame(columns=range(len(header))).set_axis(header, axis=1), str(path))
    blank, fields, starts = blank[1:], fields[1:], starts[1:]
    if blank.any() and (id_column is None or id_column not in header):
        raise InputError(
            f"{path}, line {starts[int(np.argmax(blank))]}: blank line inside a table without an item column; its "
            "rows are aligned by position, so a blank line would shift them; remove it (or add an item_id column)"
        )
    wrong = ~blank & (fields != len(header))
    if wrong.any():
        row = int(np.argmax(wrong))
        raise InputError(
            f"{path}, line {starts[row]}: {int(fields[row])} fields where the header has {len(header)}; not a "
            f"readable {kind} table (every line needs one field per column; an empty field is a missing value)"
        )
    return np.flatnonzero(~blank) + 1


def _unquoted_csv(
    path: Path, raw: bytes, separator: str, kind: str, text_columns: frozenset[str], id_column: str | None
) -> tuple[pd.DataFrame, np.ndarray]:
    """A CSV/TSV without quote characters: lines are records; pandas' C parser reads the fields."""
    data = np.frombuffer(raw, dtype=np.uint8)
    newlines = np.flatnonzero(data == 10)
    ends = newlines if raw.endswith(b"\n") else np.append(newlines, data.size)
    starts = np.concatenate([[0], newlines + 1])[: ends.size]
    # Separators before each line end; no separator sits on a line end, so a line's count is the difference.
    before_end = np.searchsorted(np.flatnonzero(data == ord(separator)), ends)
    fields = np.diff(before_end, prepend=0) + 1
    blank = ends == starts
    for line in np.flatnonzero((fields == 1) & ~blank):  # one field: blank if only spaces and tabs
        blank[line] = not raw[starts[line] : ends[line]].strip(b" \t")
    header = (
        [name.strip() for name in raw[starts[0] : ends[0]].decode("utf-8").split(separator)] if not blank[0] else []
    )
    records = _records(path, kind, header, fields, blank, id_column, np.arange(1, ends.size + 1))
    lines = records + 1
    body = (
        b"\n".join(raw[starts[record] : ends[record]] for record in records) if blank[1:].any() else raw[ends[0] + 1 :]
    )
    textual = {position: str for position, name in enumerate(header) if name in text_columns}
    missing = sorted(
        MISSING_TEXT | {value.upper() for value in MISSING_TEXT} | {value.title() for value in MISSING_TEXT}
    )
    common = dict(
        sep=separator,
        header=None,
        names=range(len(header)),
        keep_default_na=False,
        skip_blank_lines=False,
        quoting=csv.QUOTE_NONE,
        encoding="utf-8",
    )
    try:
        # One list of missing texts for all columns (a dict of one per column cost 7 kB a column: 700 MB at 100,000
        # columns); the few text columns are read again on their own, where no text means missing.
        data_frame = pd.read_csv(_stdio.BytesIO(body), dtype=textual, na_values=missing, **common, **EXACT_FLOATS)
        if textual:
            texts = pd.read_csv(
                _stdio.BytesIO(body),
                usecols=sorted(textual),
                dtype=str,
                na_values={position: [] for position in textual},
                **common,
            )
            for position in textual:
                data_frame[position] = texts[position]
    except pd.errors.EmptyDataError:
        data_frame = pd.DataFrame(columns=range(len(header)))
    except (pd.errors.ParserError, ValueError) as error:
        raise InputError(f"{path}: not a readable {kind} table ({' '.join(str(error).split())})") from None
    # The dtypes at once: a column lookup per column costs 0.15 ms (3 s at 20,000 columns).
    for position, (name, dtype) in enumerate(zip(header, data_frame.dtypes, strict=True)):
        if position not in textual and pd.api.types.is_bool_dtype(dtype):
            raise InputError(
                f"{path}, line {lines[0]}, column {name!r}: true/false text ({data_frame[position].iloc[0]}) is not a "
                "number; write the scores as 1 and 0"
            )
    data_frame.columns = pd.Index(header, dtype=object)
    return data_frame, lines


def _quoted_csv(
    path: Path, raw: bytes, separator: str, kind: str, id_column: str | None
) -> tuple[pd.DataFrame, np.ndarray]:
    """A CSV/TSV with quote characters: the ``csv`` module reads records (strict quoting) and where each starts."""
    # newline="": lines split at LF, CRLF and CR with their ends kept, so that a CR inside a quoted cell stays.
    # The bytes are decoded as they are read, never held whole as text.
    reader = csv.reader(
        _stdio.TextIOWrapper(_stdio.BytesIO(raw), encoding="utf-8", newline=""), delimiter=separator, strict=True
    )
    rows, starts, previous = [], [], 0
    try:
        for row in reader:
            rows.append(row)
            starts.append(previous + 1)
            previous = reader.line_num
    except csv.Error as error:
        raise InputError(f"{path}, line {previous + 1}: not a readable {kind} table ({error})") from None
    fields = np.fromiter((len(row) for row in rows), dtype=np.int64, count=len(rows))
    blank = np.fromiter(
        (len(row) == 0 or (len(row) == 1 and not row[0].strip(" \t")) for row in rows), dtype=bool, count=len(rows)
    )
    header = [name.strip() for name in rows[0]] if not blank[0] else []
    starts = np.asarray(starts, dtype=np.int64)
    records = _records(path, kind, header, fields, blank, id_column, starts)
    frame = pd.DataFrame([rows[record] for record in records], columns=pd.Index(header, dtype=object), dtype=object)
    return frame, starts[records]


def _read_csv(
    path: Path, separator: str, text_columns: frozenset[str] = frozenset(), id_column: str | None = None
) -> tuple[pd.DataFrame, np.ndarray]:
    """The table and the physical line of each row (see the module notes)."""
    raw = _raw(path, separator)
    kind = "TSV" if separator == "\t" else "CSV"
    # A header split by the other separator reads as one column holding them: say so, rather than "no 'model' column".
    # Only an unquoted header line: a quoted name may hold a tab or a comma.
    first = raw[: min(raw.find(byte) % (len(raw) + 1) for byte in (b"\n", b"\r"))]
    other, suffix, own = (b"\t", ".tsv", "commas") if kind == "CSV" else (b",", ".csv", "tabs")
    if b'"' not in first and other in first and (kind == "CSV" or separator.encode() not in first):
        raise InputError(
            f"{path}, line 1: the header is separated by {'tabs' if kind == 'CSV' else 'commas'} "
            f"({describe_value(first.decode('utf-8'))}); name the file {suffix}, or separate the columns with {own}"
        )
    if b'"' in raw:
        return _quoted_csv(path, raw, separator, kind, id_column)
    return _unquoted_csv(path, _lf(raw), separator, kind, text_columns, id_column)


def _read_jsonl(path: Path, id_column: str | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    raw = _lf(_raw(path))  # a JSON string holds no raw line break
    records, lines, blank = [], [], []
    physical = raw.split(b"\n")
    del raw
    if physical[-1] == b"":
        physical.pop()  # the final line end
    for number, line in enumerate(physical, start=1):
        if not line.strip(b" \t"):
            blank.append(number)
            continue
        record = parse_json(line, f"{path}, line {number}", line_numbers=False)
        if not isinstance(record, dict):
            raise InputError(f"{path}, line {number}: a JSON {type(record).__name__} where an object is expected")
        records.append(record)
        lines.append(number)
    if not records:
        raise InputError(f"{path}: the file is empty")
    frame = pd.DataFrame.from_records(records)
    if blank and (id_column is None or id_column not in frame.columns):
        raise InputError(
            f"{path}, line {blank[0]}: blank line in JSON Lines without an item column; its records are aligned "
            "by position, so a blank line would shift them; remove it"
        )
    return frame, np.asarray(lines, dtype=np.int64)


def read_frame(
    path: str | Path, text_columns: Iterable[str] = (), id_column: str | None = None
) -> tuple[pd.DataFrame, np.ndarray]:
    r"""A table file read into a frame, with the physical line of each row.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.csv``/``.tsv`` (optionally ``.gz``), ``.parquet``/``.pq`` or ``.jsonl``[``.gz``]/``.ndjson`` file.
    text_columns : iterable of str, default ()
        Columns kept as text in a CSV (ids, names, labels), never parsed as numbers.
    id_column : str, optional
        The column that identifies each row; a blank line is skipped when the table has it, refused otherwise.

    Returns
    -------
    frame : pandas.DataFrame
        The table (texts as read; numbers under the rule of :mod:`llm_power_verified.io.cells`).
    lines : numpy.ndarray
        int64, the line where each row's record starts (the header is line 1; Parquet rows count from 1).

    Raises
    ------
    InputError
        A missing file, a folder, an unknown suffix, and per format what the module notes refuse (not UTF-8, NUL,
        an empty file, too many columns, a record with the wrong number of fields, bad quoting, JSON that is not an
        object per line, a Parquet file that is damaged or too large to read whole), naming the file and line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "t.csv"
    ...     _ = path.write_text("item_id,a,b\nq1,1,0\n\nq2,0,1\n")
    ...     frame, lines = read_frame(path, {"item_id"}, "item_id")
    >>> frame["item_id"].tolist(), lines.tolist()
    (['q1', 'q2'], [2, 4])
    """
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
            raise InputError(
                f"{path}: reading Parquet needs pyarrow ({error}); pip install 'llm-power-verified[parquet]'"
            ) from None
        try:
            names = parquet.read_schema(path).names
            if len(set(names)) != len(names):
                check_columns(pd.DataFrame(columns=range(len(names))).set_axis(names, axis=1), str(path))
            check_input_kind(path)
            frame = read_parquet_frame(path)
        except (InputError, MemoryError):
            raise
        except Exception as error:  # pyarrow raises its own ArrowInvalid/OSError family for damaged files
            raise InputError(f"{path}: not a readable Parquet file ({' '.join(str(error).split())[:200]})") from None
        return frame, np.arange(1, len(frame) + 1)
    if name.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
        return _read_jsonl(path, id_column)
    if name.endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz")):
        return _read_csv(path, "\t" if ".tsv" in name else ",", frozenset(text_columns), id_column)
    raise InputError(f"{path}: unknown table format (expected .csv, .tsv, .csv.gz, .parquet or .jsonl)")


@docfill(
    "item_column",
    "cluster_column",
    "on_missing",
    "score_kind",
    "score_range",
    "missing_cluster",
    "long_columns",
    returns="score_matrix",
)
def read_table(
    path: str | Path,
    *,
    item_column: str = DEFAULT_ITEM_COLUMN,
    cluster_column: str | None = None,
    on_missing: str = "error",
    score_kind: str = "auto",
    score_range=(0.0, 1.0),
    missing_cluster: str = "error",
    model_column: str = "model",
    score_column: str = "score",
) -> ScoreMatrix:
    """Read a wide or long score table from CSV/TSV, Parquet or JSON Lines.

    Parameters
    ----------
    path : str or pathlib.Path
        The table file (:func:`read_frame`).
    %(item_column)s
    %(cluster_column)s
    %(on_missing)s
    %(score_kind)s
    %(score_range)s
    %(missing_cluster)s
    %(long_columns)s

    Raises
    ------
    InputError
        What :func:`read_frame` refuses, and what :func:`~llm_power_verified.io.tables.from_long` or
        :func:`~llm_power_verified.io.tables.from_wide` refuses, naming the file, line and column.

    Examples
    --------
    >>> from importlib.resources import files
    >>> shipped = files("llm_power_verified") / "data" / "mmlu_pro_top10.csv.gz"
    >>> matrix = read_table(shipped, cluster_column="random_category")
    >>> matrix.n_items, matrix.models[:2]
    (12032, ('calme-3.2-78b', 'calme-3.1-78b'))
    """
    path = Path(path)
    frame, lines = read_frame(path, {name for name in (item_column, cluster_column, model_column) if name}, item_column)
    options = dict(
        cluster_column=cluster_column,
        on_missing=on_missing,
        score_kind=score_kind,
        score_range=score_range,
        missing_cluster=missing_cluster,
        source=str(path),
        lines=lines,
    )
    if model_column in frame.columns and score_column in frame.columns:
        return from_long(
            frame, item_column=item_column, model_column=model_column, score_column=score_column, **options
        )
    # A long table's column names given but absent: the table reads as wide, and the names would be ignored in silence.
    for given, default, option in (
        (model_column, "model", "--model-column"),
        (score_column, "score", "--score-column"),
    ):
        if given != default and given not in frame.columns:
            raise InputError(
                f"{path}: {option} {given!r} applies to long tables (item, model, score); the table has no "
                f"such column, so it is read as wide and the option would be ignored: leave it out, or name "
                "the column it has"
            )
    return from_wide(frame, item_column=item_column, **options)
