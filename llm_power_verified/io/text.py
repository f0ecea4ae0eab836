"""Reading a text input file: one place for missing files, folders, gzip and UTF-8 (with a byte-order mark).

A ``.gz`` file is inflated in chunks of :data:`CHUNK_BYTES` by the standard
library's :class:`gzip.GzipFile` (every member of a multi-member file), and
reading stops with an :class:`InputError` as soon as the output would exceed
:data:`MAX_INFLATED_BYTES` (32 MiB): deflate inflates up to about 1,000-fold,
so without a bound a 3 MiB file becomes 3 GB of text, and a CSV parser then
needs several times that (Python's ``io.StringIO`` holds 4 bytes per
character).  With the bound, reading a hostile ``.gz`` stays under about 1 GB
of memory.  A larger genuine table is read decompressed (``gunzip`` it) or as
Parquet; the limit applies to inflated bytes only, never to a plain file
(whose size is what is on the disk).
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path
from typing import Any, Hashable, Sequence

from llm_power_verified.io.errors import InputError, describe_value

__all__ = ["CHUNK_BYTES", "MAX_INFLATED_BYTES", "Shown", "first_repeat", "inflate_gzip", "kept_value", "read_text"]

#: Largest text a ``.gz`` input is inflated to (32 MiB).
MAX_INFLATED_BYTES = 32 << 20
#: Bytes inflated per step (1 MiB).
CHUNK_BYTES = 1 << 20


def inflate_gzip(raw: bytes, where: str, limit: int = MAX_INFLATED_BYTES) -> bytes:
    """The inflated bytes of gzip data, read in chunks and refused (naming ``where``) past ``limit`` bytes.

    >>> inflate_gzip(gzip.compress(b"a,b\\n1,0\\n"), "t.csv.gz")
    b'a,b\\n1,0\\n'
    >>> inflate_gzip(gzip.compress(b"0" * 100), "t.csv.gz", limit=10)
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: t.csv.gz: inflates to more than 10 bytes (the limit for a gzip input); decompress it (gunzip) and read the plain file, or write the table as Parquet
    """
    chunks, total = [], 0
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw), mode="rb") as stream:
            while chunk := stream.read(CHUNK_BYTES):
                total += len(chunk)
                if total > limit:
                    raise InputError(f"{where}: inflates to more than {limit:,} bytes (the limit for a gzip input); "
                                     "decompress it (gunzip) and read the plain file, or write the table as Parquet")
                chunks.append(chunk)
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(f"{where}: not a readable gzip file ({error})") from None
    data = b"".join(chunks)
    chunks.clear()
    return data



def read_text(path: Path) -> str:
    """The file's text: UTF-8, a leading byte-order mark dropped, ``.gz`` inflated (bounded, see the module notes);
    errors name the file (and line)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: a folder, not a file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read it ({error.strerror})") from None
    if path.name.lower().endswith(".gz"):
        raw = inflate_gzip(raw, str(path))
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise InputError(f"{path}, line {line}: byte {raw[error.start]:#04x} is not UTF-8; save the file as UTF-8") from None


class Shown(str):
    """A large or nested value read from an input, kept only as its short description for the message that refuses it.

    Readers that keep a few fields of each record keep such a value as ``Shown(describe_value(value))``: its
    ``repr`` is the description, and it is never one of the texts a reader accepts.
    """

    def __repr__(self) -> str:
        return str(self)


def kept_value(value: Any) -> Any:
    """``value`` when it is a scalar or a short text, else its :class:`Shown` description (a record's field kept for later).

    >>> kept_value(0.5), kept_value([1, 2])
    (0.5, [1, 2])
    """
    if value is None or isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= 40):
        return value
    return Shown(describe_value(value))


def first_repeat(values: Sequence[Hashable]) -> tuple[int, int] | None:
    """(first position, repeated position) of the first value that occurs twice, or None.

    >>> first_repeat(["a", "b", "a"])
    (0, 2)
    """
    seen: dict[Hashable, int] = {}
    for position, value in enumerate(values):
        if value in seen:
            return seen[value], position
        seen[value] = position
    return None
