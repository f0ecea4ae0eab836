"""Parquet tables read whole within a bound on their size once read, checked before and during the read.

Every figure of a Parquet footer is its writer's claim, and some do not bound the decoded table at all: a text column
stored with a dictionary counts its distinct values once (a 370 KB file of 300,000 rows of one 10 KB text decodes to
3 GB), a list column counts its rows and not its values, and the file's row count may differ from its row groups'.
So, before anything is read:

* a nested column (list, struct, map) is refused: a score table holds one number or text per row and column;
* the footer's row count must equal the sum of its row groups', and each column chunk's value count its row group's
  row count (a damaged or hand-edited footer is refused, naming the column);
* the estimate from the footer (8 bytes a number, whatever its width on disk: the scores become float64; 64 bytes a
  text cell, a Python string's header and pointer, plus its uncompressed text; a fixed-length cell its width) must be
  within ``MAX_PARQUET_ESTIMATE``.

Text columns are then read as dictionaries (the distinct values once, and an index per row), whose decoded size is
counted exactly (each row's value length, by its index) and checked again before the text is decoded.  The Arrow table
goes to pandas with ``self_destruct=True, split_blocks=True`` (each column's Arrow memory is released once converted,
and the frame keeps one block per column instead of a consolidated copy), so the read peaks at about one copy of the
table.  The table is not used after its conversion (``self_destruct`` leaves it unusable; the pyarrow documentation's
caveat), and the saving is not guaranteed when columns share buffers (not the case of a table just read).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from llm_power_verified.io.errors import InputError

__all__ = ["MAX_PARQUET_ESTIMATE", "read_parquet_frame"]

#: Largest estimated size of a Parquet table read whole (768 MiB; the module notes).  Reading a table at the limit
#: peaks at about 1.6 times it (5,000 models x 12,000 items of int8, 458 MiB estimated: 0.74 GB read).
MAX_PARQUET_ESTIMATE = 768 << 20
#: Bytes of a number once read, and of a text cell beside its text.
NUMBER_BYTES, TEXT_CELL_BYTES = 8, 64
#: Estimated bytes of the columns read and converted at once (Arrow's reading holds about twice a part beside it).
PART_BYTES = 64 << 20
_TEXT = ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY")
_REMEDY = "split the table into smaller files (by models: one file per model, or a few models per file)"


def _refuse_nested(path: Path, schema) -> None:
    """Refuse a list, struct, map or union column (its values are not counted by its rows)."""
    # Optional dependency (extra parquet): read_frame checked it is installed before calling here.
    import pyarrow

    for field in schema:
        if pyarrow.types.is_nested(field.type):
            raise InputError(
                f"{path}, column {field.name!r}: a {field.type} column (several values per row); a score table "
                "holds one number or text per row and column: flatten the column or leave it out of the file"
            )


def _checked_rows(path: Path, metadata) -> int:
    """The rows of the row groups, refusing a footer whose counts disagree (the module notes)."""
    rows = 0
    for index in range(metadata.num_row_groups):
        group = metadata.row_group(index)
        for column in range(group.num_columns):
            chunk = group.column(column)
            if chunk.num_values != group.num_rows:
                raise InputError(
                    f"{path}, column {chunk.path_in_schema!r}: row group {index} holds {chunk.num_values:,} values "
                    f"for its {group.num_rows:,} rows; the file is damaged: write it again"
                )
        rows += group.num_rows
    if rows != metadata.num_rows:
        raise InputError(
            f"{path}: the footer says {metadata.num_rows:,} row(s) but its row groups hold {rows:,}; the file is "
            "damaged: write it again"
        )
    return rows


def _footer_sizes(metadata, rows: int) -> dict[str, int]:
    """Each column's estimated bytes once read, from the footer (text stored in a dictionary counted encoded)."""
    sizes = {}
    for column in range(metadata.num_columns):
        described = metadata.schema.column(column)
        if described.physical_type == "FIXED_LEN_BYTE_ARRAY":
            sizes[described.name] = (TEXT_CELL_BYTES + described.length) * rows
        elif described.physical_type == "BYTE_ARRAY":
            stored = sum(
                metadata.row_group(group).column(column).total_uncompressed_size
                for group in range(metadata.num_row_groups)
            )
            sizes[described.name] = TEXT_CELL_BYTES * rows + stored
        else:
            sizes[described.name] = NUMBER_BYTES * rows
    return sizes


def _check(path: Path, sizes: dict[str, int], rows: int, decoded: bool, text: list[str]) -> None:
    """Refuse a table whose estimated size passes the limit, naming its largest column."""
    estimate = sum(sizes.values())
    if estimate <= MAX_PARQUET_ESTIMATE:
        return
    column, size = max(sizes.items(), key=lambda item: item[1])
    where = "decoded" if decoded else "from the footer"
    remedy = (
        _REMEDY
        if size < estimate / 2 or column not in text
        else "leave long texts out of a score table (ids and scores)"
    )
    raise InputError(
        f"{path}, column {column!r}: {rows:,} rows x {len(sizes):,} columns take about {estimate >> 20:,} MiB read "
        f"whole ({where}; {size >> 20:,} MiB this column), more than the {MAX_PARQUET_ESTIMATE >> 20:,} MiB a table "
        f"may take; {remedy}"
    )


def _decoded_text_bytes(column) -> int:
    """The bytes of a dictionary column's values once decoded: each row's value length, taken by its index."""
    # Optional dependency (extra parquet): read_frame checked it is installed before calling here.
    import pyarrow.compute as compute

    total = 0
    for chunk in column.chunks:
        lengths = compute.binary_length(chunk.dictionary)
        total += compute.sum(compute.take(lengths, chunk.indices)).as_py() or 0
    return total


def read_parquet_frame(path: Path) -> pd.DataFrame:
    """A Parquet table read into a frame within ``MAX_PARQUET_ESTIMATE`` (the module notes).

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    pandas.DataFrame
        The table; a text column stored without an Arrow dictionary type reads as text, as pyarrow reads it.

    Raises
    ------
    InputError
        A nested column, a footer whose row counts disagree, or a table estimated over the limit (naming the file,
        the column, the estimate and the limit).
    """
    # Optional dependency (extra parquet): read_frame checked it is installed before calling here.
    import pyarrow.parquet as parquet

    metadata = parquet.read_metadata(path)
    text = [
        metadata.schema.column(index).name
        for index in range(metadata.num_columns)
        if metadata.schema.column(index).physical_type == "BYTE_ARRAY"
    ]
    schema = parquet.read_schema(path)  # the stored types (read_dictionary changes the reader's text columns')
    reader = parquet.ParquetFile(path, read_dictionary=text or None)
    _refuse_nested(path, schema)
    rows = _checked_rows(path, reader.metadata)
    sizes = _footer_sizes(reader.metadata, rows)
    _check(path, sizes, rows, False, text)
    frames = [_read_part(reader, part, schema, sizes, rows, text, path) for part in _parts(schema, sizes)]
    return frames[0] if len(frames) == 1 else pd.concat(frames, axis=1)


def _parts(schema, sizes: dict[str, int]) -> list[list[str] | None]:
    """Groups of columns of about ``PART_BYTES`` each (None: the whole table, when an index is stored as columns)."""
    stored_index = (schema.pandas_metadata or {}).get("index_columns", [])
    if not schema.names or any(isinstance(column, str) for column in stored_index):
        return [None]
    parts, current, held = [], [], 0
    for name in schema.names:
        if current and held + sizes[name] > PART_BYTES:
            parts.append(current)
            current, held = [], 0
        current.append(name)
        held += sizes[name]
    return [*parts, current]


def _read_part(reader, part: list[str] | None, schema, sizes: dict[str, int], rows: int, text: list[str], path):
    """One group of columns as a frame, its text's decoded size checked (with the rest's estimate) before decoding."""
    table = reader.read(columns=part)
    for name in text:
        if name in table.column_names:
            sizes[name] = TEXT_CELL_BYTES * rows + _decoded_text_bytes(table.column(name))
    _check(path, sizes, rows, True, text)
    for name in text:
        if name in table.column_names and schema.field(name).type != table.schema.field(name).type:
            index = table.schema.get_field_index(name)
            table = table.set_column(index, schema.field(name), table.column(name).cast(schema.field(name).type))
    frame = table.to_pandas(self_destruct=True, split_blocks=True)
    del table
    return frame
