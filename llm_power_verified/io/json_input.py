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

A document that is one large array of records (HELM's ``per_instance_stats.json``) is read element by element by
:func:`json_array_items`, under the same rules with the memory bound applied to each element, so that its size is
limited by the text held, not by the objects one parse would build.

The standard library's parser is kept (not orjson) because only it has the
hooks for repeated keys, constants and integer literals.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from llm_power_verified.io.errors import InputError
from llm_power_verified.io.text import decode_utf8

__all__ = ["BYTES_PER_VALUE", "MAX_BUILT_BYTES", "MAX_INTEGER_DIGITS", "json_array_items", "parse_json"]

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
    digits = len(text) if len(text) <= MAX_INTEGER_DIGITS else len(text.lstrip("-"))
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


#: The parser's hooks; parse_json's ``json.loads`` and json_array_items's decoder use the same ones.
_HOOKS: dict[str, Any] = {
    "object_pairs_hook": _object,
    "parse_int": _integer,
    "parse_float": _float,
    "parse_constant": _constant,
}
_DECODER = json.JSONDecoder(**_HOOKS)
_SPACE = re.compile(r"[ \t\n\r]*")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
#: Everything up to the next bracket outside a string, and that bracket (possessive: no backtracking on damage).
_NEXT_BRACKET = re.compile(r'(?:[^"\[\]{}]++|"[^"\\]*+(?:\\.[^"\\]*+)*+")*+([\[\]{}])', re.DOTALL)


def _values(document: str | bytes, start: int = 0, end: int = sys.maxsize) -> int:
    """The ``[ { , :`` characters of ``document[start:end]``: at most one Python object each."""
    marks = b"[{,:" if isinstance(document, bytes) else "[{,:"
    return sum(document.count(marks[i : i + 1], start, end) for i in range(4))


def _check_size(size: int, values: int, where: str, fix: str) -> None:
    estimate = size + BYTES_PER_VALUE * values
    if estimate > MAX_BUILT_BYTES:
        raise InputError(
            f"{where}: {size:,} bytes of JSON with {values:,} values would take about {estimate / 2**20:,.0f} MiB "
            f"to read, over the {MAX_BUILT_BYTES >> 20:,} MiB limit; {fix}"
        )


def _as_text(data: str | bytes, where: str) -> str:
    """The document as text: bytes decoded as UTF-8 (naming a bad byte's line), a leading byte-order mark dropped."""
    if isinstance(data, str):
        return data[1:] if data.startswith("\ufeff") else data
    return decode_utf8(data, where)


#: What the parser raises on a refusal: a hook's, a syntax error, nesting too deep.
_PARSER_ERRORS = (_Refusal, json.JSONDecodeError, RecursionError)


def _refusal(error: Exception, where: str, line_numbers: bool = True) -> InputError:
    """One of the parser's refusals (``_PARSER_ERRORS``) as one InputError naming ``where``."""
    if isinstance(error, _Refusal):
        return InputError(f"{where}: {error}")
    if isinstance(error, json.JSONDecodeError):
        place = f" at line {error.lineno}, column {error.colno}" if line_numbers else f" at column {error.colno}"
        return InputError(f"{where}: not valid JSON ({error.msg}{place})")
    return InputError(f"{where}: JSON nested too deeply to read (more than about {sys.getrecursionlimit()} levels)")


@contextmanager
def _refusals(where: str, line_numbers: bool = True) -> Iterator[None]:
    """Turn the parser's refusals (hooks, syntax, depth) into one InputError naming ``where``."""
    try:
        yield
    except _PARSER_ERRORS as error:
        raise _refusal(error, where, line_numbers) from None


def _parsed(text: str, where: str, line_numbers: bool = True) -> Any:
    try:  # one decoder for every document (json.loads builds one per call; kept for its message on a second BOM)
        value = json.loads(text, **_HOOKS) if text.startswith("\ufeff") else _DECODER.decode(text)
    except _PARSER_ERRORS as error:
        raise _refusal(error, where, line_numbers) from None
    # A lone surrogate comes from a \\u escape or is in the text (not if it is ASCII): else none to look for.
    if "\\u" in text or (not text.isascii() and _SURROGATE.search(text)):
        _surrogate_free(value, where)
    return value


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
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if len(data) * (1 + BYTES_PER_VALUE) > MAX_BUILT_BYTES:  # else under the limit whatever its marks
        _check_size(len(data), _values(data), where, "split the file")
    return _parsed(_as_text(data, where), where, line_numbers)


def _bounded(text: str, start: int, left: int, where: str) -> None:
    """Refuse the element at ``start`` if what it would build exceeds the limit (``left``: the marks from there on)."""
    if len(text) - start + BYTES_PER_VALUE * left <= MAX_BUILT_BYTES or text[start] not in "[{":
        return  # all the rest of the text fits, or a scalar: one object
    depth, end = 0, start
    while True:
        match = _NEXT_BRACKET.match(text, end)
        if match is None:  # cut short, or an unterminated string: the element runs to the end
            end = len(text)
            break
        depth += 1 if match.group(1) in "[{" else -1
        end = match.end()
        if depth == 0:
            break
    _check_size(end - start, _values(text, start, end), where, "one element of the array may not be that large")


def json_array_items(data: str | bytes, where: str, *, expected: str = "a JSON array") -> Iterator[tuple[int, Any]]:
    """Read a document that is one JSON array element by element, under :func:`parse_json`'s rules.

    The caller reduces each element as it comes, so that memory holds the text and one element, not the parsed
    array: the size estimate of the module notes is applied to each element (whatever the whole document's).

    Parameters
    ----------
    data : str or bytes
        The document (bytes are decoded as UTF-8; a leading byte-order mark is dropped).
    where : str
        The file that messages name; an element's messages name it with the index, ``where[7]``.
    expected : str, default "a JSON array"
        What the document should be, for the message refusing another value (``HELM's list of ...``).

    Yields
    ------
    tuple of (int, object)
        The index of each element and its parsed value, in order.

    Raises
    ------
    InputError
        As :func:`parse_json` does (not UTF-8, a repeated key, a non-finite constant, an over-long integer, too deep,
        an element too large), naming ``where`` and the element; a document that is not an array; an array that is
        damaged (a missing comma, cut short, text after it).

    Examples
    --------
    >>> list(json_array_items('[{"a": 1}, [2.5], null]', "x.json"))
    [(0, {'a': 1}), (1, [2.5]), (2, None)]
    >>> list(json_array_items('[{"a": 1} {"a": 2}]', "x.json"))
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.InputError: x.json[0]: not valid JSON (Expecting ',' delimiter at line 1, column 11)
    """
    text = _as_text(bytes(data) if isinstance(data, (bytearray, memoryview)) else data, where)
    del data  # the text is what is held from here on
    position = _SPACE.match(text).end()
    if not text.startswith("[", position):
        _check_size(len(text), _values(text), where, "split the file")
        value = _parsed(text, where)  # the document's own refusal, else its kind
        raise InputError(f"{where}: a JSON {type(value).__name__} where {expected} is expected")
    left, ascii_text = _values(text, position), text.isascii()
    position = _SPACE.match(text, position + 1).end()
    index, empty = 0, text.startswith("]", position)
    while not empty:  # elements until the closing bracket (the loop ends at its break)
        place = f"{where}[{index}]"
        _bounded(text, position, left, place)
        with _refusals(place):
            value, end = _DECODER.raw_decode(text, position)
        # A lone surrogate comes from a \\u escape or is in the text (not if it is ASCII): else none to look for.
        if text.find("\\u", position, end) >= 0 or (not ascii_text and _SURROGATE.search(text, position, end)):
            _surrogate_free(value, place)
        left -= _values(text, position, end)
        yield index, value
        del value
        position = _SPACE.match(text, end).end()
        if text.startswith("]", position):
            break
        with _refusals(place):
            if not text.startswith(",", position):
                raise json.JSONDecodeError("Expecting ',' delimiter", text, position)
            comma, position = position, _SPACE.match(text, position + 1).end()
            if text.startswith("]", position) and sys.version_info >= (3, 13):
                raise json.JSONDecodeError("Illegal trailing comma before end of array", text, comma)
        left -= 1
        index += 1
    position = _SPACE.match(text, position + 1).end()
    if position != len(text):
        with _refusals(where):
            raise json.JSONDecodeError("Extra data", text, position)
