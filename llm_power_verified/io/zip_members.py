"""One member of a zip archive (an Inspect ``.eval`` log), read under damage.

Every member that is read is located through the zip
directory and decompressed here, in chunks of 1 MiB, whatever its method:
stored, deflate (``zlib``), bzip2 (``bz2``), LZMA (``lzma``) and zstd (zip
method 93, which Python's ``zipfile`` cannot read before Python 3.14; the
``zstandard`` package).  ``zipfile``'s own reader is not used for the data
because it inflates bzip2 and LZMA input without an output bound (722 bytes
of bzip2 hold 1 GB of zeros).  Every member is

* size-bounded: its declared size must be at most ``MAX_MEMBER_BYTES``
  (128 MiB), a zstd frame that declares more content than the zip directory
  is refused before anything is decompressed, and decompression stops as
  soon as the output would exceed the declared size;
* CRC-checked against the zip directory.
"""

from __future__ import annotations

import bz2
import lzma
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

from llm_power_verified.io.errors import InputError

__all__ = ["MAX_MEMBER_BYTES", "read_zip_member"]

#: Largest declared (uncompressed) size of one member that is read (128 MiB).
MAX_MEMBER_BYTES = 128 << 20
_ZSTD = 93
_CHUNK = 1 << 20
_METHODS = {
    zipfile.ZIP_STORED: "stored",
    zipfile.ZIP_DEFLATED: "deflate",
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "lzma",
    _ZSTD: "zstd",
}


def _compressed(path: Path, info: zipfile.ZipInfo, where: str) -> bytes:
    """The member's compressed bytes, found through its local header."""
    with open(path, "rb") as stream:
        stream.seek(info.header_offset)
        header = stream.read(30)
        if len(header) < 30:
            raise InputError(f"{where}: the archive is cut short before the member's header")
        signature, *_, name_length, extra_length = struct.unpack("<IHHHHHIIIHH", header)
        if signature != 0x04034B50:
            raise InputError(f"{where}: damaged zip member header")
        stream.seek(info.header_offset + 30 + name_length + extra_length)
        raw = stream.read(info.compress_size)
    if len(raw) < info.compress_size:
        raise InputError(f"{where}: the archive is cut short ({len(raw)} of {info.compress_size} compressed bytes)")
    return raw


class _Output:
    """Decompressed chunks, refused as soon as they exceed the member's declared size."""

    def __init__(self, declared: int, where: str) -> None:
        self.chunks: list[bytes] = []
        self.size, self.declared, self.where = 0, declared, where

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > self.declared:
            raise InputError(f"{self.where}: decompresses to more than its declared {self.declared:,} bytes")
        self.chunks.append(chunk)


def _zstd(raw: bytes, info: zipfile.ZipInfo, output: _Output) -> None:
    # Lazy: only Inspect logs with zstd members need it.
    import zstandard

    try:
        declared = zstandard.frame_content_size(raw)
    except zstandard.ZstdError as error:
        raise InputError(f"{output.where}: not a zstd frame ({error})") from None
    if declared > info.file_size:
        raise InputError(
            f"{output.where}: the zstd frame declares {declared:,} bytes but the zip directory says "
            f"{info.file_size:,}; "
            "refusing to decompress a damaged or hostile member"
        )
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        while chunk := reader.read(_CHUNK):
            output.add(chunk)
    except zstandard.ZstdError as error:
        raise InputError(f"{output.where}: damaged zstd data ({error})") from None


def _deflate(raw: bytes, output: _Output) -> None:
    decompressor = zlib.decompressobj(-15)
    while True:
        chunk = decompressor.decompress(raw, _CHUNK)
        raw = decompressor.unconsumed_tail
        output.add(chunk)
        if decompressor.eof or not (raw or chunk):
            break


def _stream(decompressor: Any, raw: bytes, output: _Output) -> None:
    """bz2 / lzma decompressor objects: at most one chunk out per call."""
    while not decompressor.eof:
        output.add(decompressor.decompress(raw, _CHUNK))
        raw = b""
        if decompressor.needs_input:
            break


def _lzma(raw: bytes, info: zipfile.ZipInfo, output: _Output) -> None:
    # A zip LZMA member: 2 bytes of version, 2 of property size, the 5 properties, the raw stream.  As the ".lzma"
    # (alone) format: the properties, then the size (unknown, all ones, when flag bit 1 says an end marker follows).
    if len(raw) < 9:
        raise InputError(f"{output.where}: damaged LZMA member header")
    (size,) = struct.unpack("<H", raw[2:4])
    declared = b"\xff" * 8 if info.flag_bits & 0x02 else struct.pack("<Q", info.file_size)
    _stream(lzma.LZMADecompressor(lzma.FORMAT_ALONE), raw[4 : 4 + size] + declared + raw[4 + size :], output)


def read_zip_member(archive: zipfile.ZipFile, path: Path, name: str) -> bytes:
    """The bytes of one member of a zip archive, size-bounded and CRC-checked (module notes).

    Parameters
    ----------
    archive : zipfile.ZipFile
        The open archive (its directory is read, never its data).
    path : pathlib.Path
        The archive's file, from which the member's compressed bytes are read.
    name : str
        The member.

    Returns
    -------
    bytes
        The member's content.

    Raises
    ------
    InputError
        No such member; a declared size over ``MAX_MEMBER_BYTES``; an unsupported method or encryption; a damaged
        local header, cut-short or damaged compressed data; output beyond the declared size (or a zstd frame declaring
        more); a size or CRC-32 that differs from the directory; naming the file and member.

    Examples
    --------
    >>> import pathlib, tempfile, zipfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "log.eval"
    ...     with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_BZIP2) as archive:
    ...         archive.writestr("header.json", '{"eval": {"model": "m1"}}')
    ...     with zipfile.ZipFile(path) as archive:
    ...         read_zip_member(archive, path, "header.json")
    b'{"eval": {"model": "m1"}}'
    """
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise InputError(f"{path}: no member {name!r} in the archive") from None
    where = f"{path}, member {name!r}"
    if info.file_size > MAX_MEMBER_BYTES:
        raise InputError(
            f"{where}: declares {info.file_size:,} bytes, over the {MAX_MEMBER_BYTES:,}-byte limit per member"
        )
    if info.compress_type not in _METHODS:
        raise InputError(f"{where}: unsupported zip compression method {info.compress_type}")
    if info.flag_bits & 0x01:
        raise InputError(f"{where}: the member is encrypted")
    raw = _compressed(path, info, where)
    output = _Output(info.file_size, where)
    try:
        if info.compress_type == zipfile.ZIP_STORED:
            output.add(raw)
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            _deflate(raw, output)
        elif info.compress_type == zipfile.ZIP_BZIP2:
            _stream(bz2.BZ2Decompressor(), raw, output)
        elif info.compress_type == zipfile.ZIP_LZMA:
            _lzma(raw, info, output)
        else:
            _zstd(raw, info, output)
    except (zlib.error, OSError, EOFError, lzma.LZMAError) as error:
        raise InputError(f"{where}: damaged {_METHODS[info.compress_type]} data ({error})") from None
    del raw
    if output.size != info.file_size:
        raise InputError(f"{where}: decompresses to {output.size:,} bytes, not the declared {info.file_size:,}")
    data = b"".join(output.chunks)
    output.chunks.clear()
    if zlib.crc32(data) != info.CRC:
        raise InputError(f"{where}: CRC-32 mismatch (damaged member)")
    return data
