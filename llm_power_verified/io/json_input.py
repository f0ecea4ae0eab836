r"""Parsing JSON from an input file: one place for every limit and every refusal.

Every JSON document the tool reads (Inspect logs and their members, lm-eval
results and samples, JSON Lines tables, saved reports) is parsed here, so
that damaged or hostile JSON ends as one :class:`~llm_power_verified.io.errors.InputError` naming the file
(and member or line) instead of a traceback or a memory blow-up:

* text that is not UTF-8 (a lone surrogate escape ``"\ud800"`` included) is
  refused;
* ``NaN``, ``Infinity`` and ``-Infinity`` (accepted by Python's ``json`` but
  not JSON) are refused;
* a number literal that overflows to infinity (``1e999``) is refused;
* a key repeated in one object is refused (``json`` would keep the last one);
* an integer literal longer than ``MAX_INTEGER_DIGITS`` digits is refused
  (Python's ``int`` would refuse it with a ``ValueError`` after 4,300 digits,
  or spend quadratic time before);
* nesting deeper than the interpreter's recursion allows is refused (the C
  scanner raises ``RecursionError``);
* the memory of what a document would build is bounded before parsing: each
  ``[ { , :`` byte can create at most one Python object, so a document whose
  count of those bytes times ``BYTES_PER_VALUE`` plus its own size exceeds
  ``MAX_BUILT_BYTES`` is refused (``[[],[],...]`` costs about 60 bytes of
  objects per 3 bytes of text).

The standard library's parser is kept (not orjson) because only it has the
hooks for repeated keys, constants and integer literals.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from llm_power_verified.io.errors import InputError

__all__ = ["BYTES_PER_VALUE", "MAX_BUILT_BYTES", "MAX_INTEGER_DIGITS", "parse_json"]

#: Longest integer literal read, in digits (64-bit counts have at most 20).
MAX_INTEGER_DIGITS = 100
#: Upper bound on the bytes of Python objects one JSON value can create (a float or a nested empty
#: list: 24 to 56 bytes, plus an 8-byte slot in its container; dict entries more): a conservative 120.
BYTES_PER_VALUE = 120
#: Largest estimated memory of one parsed document (768 MiB), so that reading stays under about 1 GB.
MAX_BUILT_BYTES = 768 << 20


class _Refusal(Exception):
    """Raised inside the parser's hooks; turned into an InputError that names the place."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise _Refusal(f"key {repeated!r} appears twice in one object")
    return result


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise _Refusal(f"an integer of {digits:,} digits (at most {MAX_INTEGER_DIGITS} are read)")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if value - value != 0:  # inf: a literal such as 1e999 overflows
        raise _Refusal(f"the number {text[:30]}{'...' if len(text) > 30 else ''} overflows to infinity")
    return value


def _constant(name: str) -> float:
    raise _Refusal(f"{name} is not a JSON value (write null, or a finite number)")


def _check_text(text: str, where: str) -> None:
    # A lone surrogate, which JSON's \ud800 escape can produce, cannot be printed or written as UTF-8.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InputError(
            f"{where}: a lone surrogate {text[error.start]!r} (U+{ord(text[error.start]):04X}) is not text; "
            "the file holds a damaged \\u escape"
        ) from None


def _surrogate_free(value: Any, where: str) -> None:
    stack = [value]
    while stack:  # iterative: a deep document must not exhaust the recursion limit here
        item = stack.pop()
        if isinstance(item, str):
            _check_text(item, where)
        elif isinstance(item, dict):
            for key, inner in item.items():
                _check_text(key, where)
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)


def parse_json(data: str | bytes, where: str, *, line_numbers: bool = True) -> Any:
    """Parse one JSON document under the limits in the module notes.

    Parameters
    ----------
    data : str or bytes
        The document (bytes are decoded as UTF-8; a leading byte-order mark is dropped).
    where : str
        The file, and member or line, that messages name.
    line_numbers : bool
        Whether a syntax error names its line (False for one line of JSON Lines, whose
        line is in ``where`` already).

    Returns
    -------
    object
        The parsed value.

    Raises
    ------
    InputError
        Naming ``where`` and the cause: not UTF-8, invalid JSON, a repeated key,
        a non-finite constant, an over-long integer, too deep, or too large.

    Examples
    --------
    >>> parse_json('{"a": [1, 2.5, null]}', "x.json")
    {'a': [1, 2.5, None]}
    >>> parse_json('{"a": 1, "a": 2}', "x.json")
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: x.json: key 'a' appears twice in one object
    """
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        size = len(raw)
        values = raw.count(b"[") + raw.count(b"{") + raw.count(b",") + raw.count(b":")
    else:
        raw = None
        size = len(data)
        values = data.count("[") + data.count("{") + data.count(",") + data.count(":")
    estimate = size + BYTES_PER_VALUE * values
    if estimate > MAX_BUILT_BYTES:
        raise InputError(
            f"{where}: {size:,} bytes of JSON with {values:,} values would take about {estimate / 2**20:,.0f} MiB "
            f"to read, over the {MAX_BUILT_BYTES >> 20:,} MiB limit; split the file"
        )
    if raw is not None:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            line = raw[: error.start].count(b"\n") + 1
            raise InputError(
                f"{where}, line {line}: byte {raw[error.start]:#04x} is not UTF-8; save the file as UTF-8"
            ) from None
    else:
        text = data[1:] if data.startswith("\ufeff") else data
    try:
        value = json.loads(
            text, object_pairs_hook=_object, parse_int=_integer, parse_float=_float, parse_constant=_constant
        )
    except _Refusal as refusal:
        raise InputError(f"{where}: {refusal}") from None
    except json.JSONDecodeError as error:
        place = f" at line {error.lineno}, column {error.colno}" if line_numbers else f" at column {error.colno}"
        raise InputError(f"{where}: not valid JSON ({error.msg}{place})") from None
    except RecursionError:
        raise InputError(
            f"{where}: JSON nested too deeply to read (more than about {sys.getrecursionlimit()} levels)"
        ) from None
    _surrogate_free(value, where)
    return value
