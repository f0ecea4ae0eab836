"""Reading an input file: one bounded place for missing files, folders, devices, size, gzip and UTF-8.

The UTF-8 may start with a byte-order mark.

Every whole-file read of an input goes through :func:`read_input_bytes` (or
:func:`read_text`, its text form).  It refuses what is neither a regular file
nor a pipe: a character or block device (``/dev/zero``, ``/dev/urandom``,
a disk) is refused before it is opened ("is a device, not a file").  A
regular file's size (``os.fstat``) is checked against the limit before a
byte is read; a pipe or FIFO (``/dev/stdin`` fed by a pipe) is read in
chunks of ``CHUNK_BYTES`` and refused as soon as it passes the limit.
The refusal names the file, its size and the limit, and says what to do
(split the input, or write the table as Parquet).

The limits, chosen by measuring peak resident memory (``VmHWM``) of reading
(``read_scores``) the worst input of each kind (the interpreter with numpy,
scipy and pandas is about 170 MiB of it):

* ``MAX_INPUT_BYTES`` (128 MiB) for a text input on disk or from a pipe,
  and ``MAX_LINES`` (8 Mi lines): each line becomes an item or record of
  a few hundred bytes, so lines, not bytes, bound short-lined inputs.
  Measured at 2 Mi lines: wide CSV ``1,0`` 559 MiB (the same with non-ASCII,
  559), quoted CSV 584, long CSV with a quote 858, JSON Lines ``{"a":1}`` 800,
  a pair of plain files ``1`` 477 MiB; at 32 MiB a wide CSV of 100,000
  columns x 150 rows 968 MiB (which is why :mod:`.table_files` also bounds the
  header at 100,000 columns).  Memory grows linearly in both, so the worst
  plain input at these limits needs about 4 GB: bounded, and large enough for
  a real leaderboard as a long table (12,032 items x 200 models is 2.4 M
  lines, 43 MB).  What decompresses or is parsed as a document (below) keeps
  a bound of about 1 GB, because there a small file can ask for any amount;
* ``MAX_INFLATED_BYTES`` (32 MiB) for what a ``.gz`` input inflates to:
  deflate inflates up to about 1,000-fold, so without a bound a 3 MiB file
  becomes 3 GB of text.  A larger genuine table is read decompressed
  (``gunzip`` it) or as Parquet.

A JSON document (an Inspect ``.json`` log, a saved report) is read with its
own limit (an Inspect log: the 128 MiB of a ``.eval`` member) and bounded
further by :func:`llm_power_verified.io.json_input.parse_json`'s estimate.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import zlib
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

from llm_power_verified._docstrings import docfill
from llm_power_verified.io.errors import InputError, describe_value

__all__ = [
    "CHUNK_BYTES",
    "MAX_INFLATED_BYTES",
    "MAX_INPUT_BYTES",
    "MAX_LINES",
    "Shown",
    "check_input_kind",
    "decode_utf8",
    "first_repeat",
    "inflate_gzip",
    "kept_value",
    "read_input_bytes",
    "read_raw",
    "read_text",
]

#: Largest text a ``.gz`` input is inflated to (32 MiB).
MAX_INFLATED_BYTES = 32 << 20
#: Bytes inflated per step (1 MiB).
CHUNK_BYTES = 1 << 20
#: Largest input file (or pipe) read whole (128 MiB; see the module notes for the measurement).
MAX_INPUT_BYTES = 128 << 20
#: Most lines of a text input (8 Mi): each line becomes an item or record of a few hundred bytes (module notes).
MAX_LINES = 8 << 20

_WHAT_TO_DO = "split the input into smaller files (a table can also be written as Parquet)"


def _too_large(where: str, size: str, limit: int) -> InputError:
    return InputError(
        f"{where}: {size} bytes, more than the {limit:,}-byte limit for an input read whole; {_WHAT_TO_DO}"
    )


def read_input_bytes(path: Path | str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file or a pipe, bounded.

    Parameters
    ----------
    path : str or pathlib.Path
        The input (a pipe such as ``/dev/stdin`` too).
    limit : int, default MAX_INPUT_BYTES
        The most bytes read (128 MiB).

    Returns
    -------
    bytes
        The whole content.

    Raises
    ------
    InputError
        A missing file, a folder, a device (refused before it is opened), anything but a regular file or a pipe, an
        unreadable file, or more than ``limit`` bytes (a regular file by its size before a byte is read, a pipe as soon
        as it passes the limit), naming the file, its size and the limit.

    Examples
    --------
    >>> read_input_bytes("/dev/zero")
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: /dev/zero: a device, not a file; give a file (or a pipe) holding the input
    """
    path = Path(path)
    try:
        # Devices are refused before they are opened (opening some has effects); fstat below closes the race.
        _check_kind(path, os.stat(path).st_mode)
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read it ({error.strerror})") from None
    with open(descriptor, "rb", buffering=0) as stream:
        try:
            status = os.fstat(descriptor)
            _check_kind(path, status.st_mode)
            if stat.S_ISREG(status.st_mode):
                if status.st_size > limit:
                    raise _too_large(str(path), f"{status.st_size:,}", limit)
                data = stream.read(limit + 1)  # the file may have grown since fstat
                if data is not None and len(data) > limit:
                    raise _too_large(str(path), f"more than {limit:,}", limit)
                return data or b""
            chunks, total = [], 0  # a pipe or FIFO: its size is known only by reading it
            while chunk := stream.read(CHUNK_BYTES):
                total += len(chunk)
                if total > limit:
                    raise _too_large(str(path), f"more than {limit:,}", limit)
                chunks.append(chunk)
        except IsADirectoryError:
            raise InputError(f"{path}: a folder, not a file") from None
        except OSError as error:
            raise InputError(f"{path}: cannot read it ({error.strerror})") from None
    data = b"".join(chunks)
    chunks.clear()
    return data


def check_input_kind(path: Path | str) -> None:
    """Refuse what is missing, a folder, a device or anything else but a regular file or a pipe.

    Parameters
    ----------
    path : str or pathlib.Path
        The input.

    Raises
    ------
    InputError
        Naming ``path`` and what it is.

    Examples
    --------
    >>> check_input_kind("/")
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: /: a folder, not a file
    """
    try:
        _check_kind(Path(path), os.stat(path).st_mode)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read it ({error.strerror})") from None


def _check_kind(path: Path, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise InputError(f"{path}: a folder, not a file")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise InputError(f"{path}: a device, not a file; give a file (or a pipe) holding the input")
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        raise InputError(f"{path}: not a regular file or a pipe; give a file holding the input")


@docfill("where")
def inflate_gzip(raw: bytes, where: str, limit: int = MAX_INFLATED_BYTES) -> bytes:
    r"""The inflated bytes of gzip data, read in chunks and bounded.

    Parameters
    ----------
    raw : bytes
        The gzip data.
    %(where)s
    limit : int, default MAX_INFLATED_BYTES
        The most bytes inflated (32 MiB): deflate inflates up to about 1,000-fold.

    Returns
    -------
    bytes
        The inflated data.

    Raises
    ------
    InputError
        Data that is not gzip or is damaged, or that inflates past ``limit`` (checked chunk by chunk of 1 MiB).

    Examples
    --------
    >>> inflate_gzip(gzip.compress(b"a,b\n1,0\n"), "t.csv.gz")
    b'a,b\n1,0\n'
    >>> inflate_gzip(gzip.compress(b"0" * 100), "t.csv.gz", limit=10)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: t.csv.gz: inflates to more than 10 bytes ...
    """
    chunks, total = [], 0
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw), mode="rb") as stream:
            while chunk := stream.read(CHUNK_BYTES):
                total += len(chunk)
                if total > limit:
                    raise InputError(
                        f"{where}: inflates to more than {limit:,} bytes (the limit for a gzip input); "
                        "decompress it (gunzip) and read the plain file, or write the table as Parquet"
                    )
                chunks.append(chunk)
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(f"{where}: not a readable gzip file ({error})") from None
    data = b"".join(chunks)
    chunks.clear()
    return data


def read_text(path: Path) -> str:
    r"""The text of an input file: UTF-8, a leading byte-order mark dropped, ``.gz`` inflated, bounded.

    Parameters
    ----------
    path : pathlib.Path
        The input file.

    Returns
    -------
    str
        The text.

    Raises
    ------
    InputError
        As :func:`read_raw` and :func:`decode_utf8`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "scores.txt"
    ...     _ = path.write_bytes(b"\xef\xbb\xbf1\r\n0\r\n")
    ...     read_text(path)
    '1\r\n0\r\n'
    """
    return decode_utf8(read_raw(path), path)


def read_raw(path: Path) -> bytes:
    r"""The bytes of an input file through :func:`read_input_bytes`, a ``.gz`` file inflated, not yet decoded.

    Parameters
    ----------
    path : pathlib.Path
        The input file.

    Returns
    -------
    bytes
        The (inflated) bytes.

    Raises
    ------
    InputError
        As :func:`read_input_bytes` and :func:`inflate_gzip`, and more than ``MAX_LINES`` (8 Mi) lines (LF, CRLF or CR).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "t.csv.gz"
    ...     _ = path.write_bytes(gzip.compress(b"a,b\n1,0\n"))
    ...     read_raw(path)
    b'a,b\n1,0\n'
    """
    raw = read_input_bytes(path)
    if Path(path).name.lower().endswith(".gz"):
        raw = inflate_gzip(raw, str(path))
    lines = max(raw.count(b"\n"), raw.count(b"\r"))  # LF, CRLF or CR line ends
    if lines > MAX_LINES:
        raise InputError(
            f"{path}: {lines:,} lines, more than the {MAX_LINES:,} lines of an input read whole; {_WHAT_TO_DO}"
        )
    return raw


def decode_utf8(raw: bytes, path: Path) -> str:
    r"""Bytes as UTF-8 text, a leading byte-order mark dropped.

    Parameters
    ----------
    raw : bytes
        The bytes of the file.
    path : pathlib.Path
        The file, for the message.

    Returns
    -------
    str
        The text.

    Raises
    ------
    InputError
        A byte that is not UTF-8, naming its line and value.

    Examples
    --------
    >>> decode_utf8(b"a\nb\xff", "t.csv")
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: t.csv, line 2: byte 0xff is not UTF-8; save the file as UTF-8
    """
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise InputError(
            f"{path}, line {line}: byte {raw[error.start]:#04x} is not UTF-8; save the file as UTF-8"
        ) from None


class Shown(str):
    """A large or nested value read from an input, kept only as its short description for the message that refuses it.

    Readers that keep a few fields of each record keep such a value as ``Shown(describe_value(value))``: its
    ``repr`` is the description, and it is never one of the texts a reader accepts.

    Examples
    --------
    >>> kept = kept_value(["a long list", "of", "things", "in a record", "that is not a score"])
    >>> isinstance(kept, Shown), repr(kept)
    (True, "['a long list', 'of', 'things', 'in a...")
    """

    def __repr__(self) -> str:
        return str(self)


def kept_value(value: Any) -> Any:
    """A record's field kept for later: the value itself when it is a scalar or a short text, else its description.

    Parameters
    ----------
    value : object
        A field of a parsed JSON record.

    Returns
    -------
    object
        ``value`` when it is None, a bool, int, float or a text of at most 40 characters; otherwise its
        :class:`Shown` description (:func:`~llm_power_verified.io.errors.describe_value`).

    Examples
    --------
    >>> kept_value(0.5), kept_value([1, 2])
    (0.5, [1, 2])
    """
    if value is None or isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= 40):
        return value
    return Shown(describe_value(value))


def first_repeat(values: Sequence[Hashable]) -> tuple[int, int] | None:
    """Where the first value that occurs twice occurs.

    Parameters
    ----------
    values : sequence of hashable
        Names, ids or labels.

    Returns
    -------
    tuple of two int or None
        (first position, repeated position), or None when every value is distinct.

    Examples
    --------
    >>> first_repeat(["a", "b", "a"])
    (0, 2)
    """
    seen: dict[Hashable, int] = {}
    for position, value in enumerate(values):
        if value in seen:
            return seen[value], position
        seen[value] = position
    return None
