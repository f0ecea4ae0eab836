"""Reading a text input file: one place for missing files, folders, gzip and UTF-8 (with a byte-order mark)."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Hashable, Sequence

from llm_power_verified.io.errors import InputError

__all__ = ["first_repeat", "read_text"]


def read_text(path: Path) -> str:
    """The file's text: UTF-8, a leading byte-order mark dropped, ``.gz`` decompressed; errors name the file (and line)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: a folder, not a file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read it ({error.strerror})") from None
    if path.name.lower().endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as error:
            raise InputError(f"{path}: not a readable gzip file ({error})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise InputError(f"{path}, line {line}: byte {raw[error.start]:#04x} is not UTF-8; save the file as UTF-8") from None


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
