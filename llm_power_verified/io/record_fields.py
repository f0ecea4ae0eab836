"""Field paths into JSON records, and the values a declared field may hold (:mod:`.json_records`).

A field path is written one of two ways:

* a plain name (not starting with ``/``) is one key, taken verbatim: ``task_id``, and ``metrics.acc`` is the key
  ``"metrics.acc"`` (a dot is part of the name, never a step);
* a JSON Pointer (RFC 6901, starting with ``/``) is a path of steps: ``/metrics/acc`` is the key ``acc`` of the
  object under ``metrics``; ``/choices/0`` the first element of a list; ``~1`` writes a ``/`` inside a key and
  ``~0`` a ``~`` (``/a~1b`` is the key ``"a/b"``).

``@key`` as the item field reads an object whose keys are the item ids (``{"id": {record}, ...}``); a field
really named ``@key`` is written ``/@key``.

:func:`line_records` parses a JSON Lines file line by line, cutting each line from the text as it goes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import InputError, describe_value
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.text import read_text
from llm_power_verified.results import Result

__all__ = [
    "KEY_FIELD",
    "MISSING",
    "RECORD_SUFFIXES",
    "FieldPath",
    "field_path",
    "kind_of",
    "label_value",
    "line_records",
    "missing_field",
    "model_value",
    "pointer_step",
    "record_file",
    "resolve",
    "score_value",
]

#: The item field that reads the keys of an object of records as the item ids.
KEY_FIELD = "@key"
#: A field a record does not have.
MISSING = object()
#: The file names read, each also gzipped (``.jsonl.gz``): one JSON document, or one record per line.
RECORD_SUFFIXES = {".json": "document", ".jsonl": "lines", ".ndjson": "lines"}
_INDEX = re.compile(r"0|[1-9][0-9]*")


@dataclass(frozen=True, repr=False)
class FieldPath(Result):
    """A field as the user wrote it, the flag that gave it, and its steps.

    Attributes
    ----------
    text : str
        The path as given.
    flag : str
        The flag that gave it (``--score-field``), for messages.
    steps : tuple of str
        The keys (or list indices) from the record to the value.
    """

    text: str
    flag: str
    steps: tuple[str, ...]

    @property
    def shown(self) -> str:
        """The flag and the path, as messages name them: ``--score-field 'reward'``."""
        return f"{self.flag} {self.text!r}"


def field_path(text: object, flag: str) -> FieldPath:
    """A field path parsed: a plain key, or a JSON Pointer (RFC 6901).

    Parameters
    ----------
    text : str
        The path as given (``--item-field`` and the other flags).
    flag : str
        The flag, for messages.

    Returns
    -------
    FieldPath
        The path and its steps.

    Raises
    ------
    ArgumentError
        Not text, empty, or a pointer with a ``~`` not followed by 0 or 1.

    Examples
    --------
    >>> field_path("metrics.acc", "--score-field").steps, field_path("/metrics/a~1b", "--score-field").steps
    (('metrics.acc',), ('metrics', 'a/b'))
    """
    if not isinstance(text, str) or not text.strip():
        raise ArgumentError(
            f"{flag} is {describe_value(text)}; name a field: a key such as task_id, or a JSON Pointer such as "
            "/metrics/acc"
        )
    if not text.startswith("/"):
        return FieldPath(text, flag, (text,))
    steps = text[1:].split("/")
    for step in steps:
        if re.search(r"~(?![01])", step):
            raise ArgumentError(
                f"{flag} {text!r}: '~' in a JSON Pointer is written ~0, and '/' inside a key ~1 (RFC 6901)"
            )
    return FieldPath(text, flag, tuple(step.replace("~1", "/").replace("~0", "~") for step in steps))


def pointer_step(key: str) -> str:
    """One key as a JSON Pointer step (``~`` as ``~0``, ``/`` as ``~1``).

    Parameters
    ----------
    key : str
        The key.

    Returns
    -------
    str
        ``/`` and the escaped key.

    Examples
    --------
    >>> pointer_step("a/b~c")
    '/a~1b~0c'
    """
    return "/" + key.replace("~", "~0").replace("/", "~1")


def resolve(value: Any, path: FieldPath, root: str = "the record") -> tuple[Any, str]:
    """The value a path reaches in a record, or ``MISSING`` with the step that was missing.

    Parameters
    ----------
    value : object
        The parsed record (or document).
    path : FieldPath
        The path.
    root : str, default "the record"
        What messages call ``value`` itself ("the document" for ``--records``).

    Returns
    -------
    tuple
        The value (``MISSING`` when a step is absent) and, when missing, what was missing (else "").

    Examples
    --------
    >>> resolve({"m": {"acc": 1}}, field_path("/m/acc", "--score-field"))
    (1, '')
    >>> resolve({"m": [0.5]}, field_path("/m/1", "--score-field"))[1]
    'no element 1 in /m, a list of 1'
    """
    reached = ""
    for step in path.steps:
        if isinstance(value, dict):
            if step not in value:
                return MISSING, f"no key {step!r}" + (f" in {reached}" if reached else "")
            value = value[step]
        elif isinstance(value, list):
            if not _INDEX.fullmatch(step):
                return MISSING, f"{reached or root} is a JSON list (of {len(value):,}), which has no key {step!r}"
            if int(step) >= len(value):
                return MISSING, f"no element {step} in {reached or root}, a list of {len(value):,}"
            value = value[int(step)]
        else:
            return MISSING, f"{reached or root} is {kind_of(value)}, not an object or list"
        reached += pointer_step(step)
    return value, ""


def missing_field(record: dict, path: FieldPath, why: str) -> str:
    """Why a record lacks a field, with its keys and, for a plain name holding ``.`` or ``/``, the pointer form.

    Parameters
    ----------
    record : dict
        The record.
    path : FieldPath
        The field it lacks.
    why : str
        The step that was missing (:func:`resolve`).

    Returns
    -------
    str
        The message, without the place.
    """
    keys = list(record)
    shown = ", ".join(describe_value(key, 30) for key in keys[:8]) + (
        f" and {len(keys) - 8:,} more" if len(keys) > 8 else ""
    )
    hint = ""
    if len(path.steps) == 1 and path.text[:1] != "/" and ("." in path.text or "/" in path.text):
        pointer = "/" + "/".join(part.replace("~", "~0") for part in re.split(r"[./]", path.text))
        hint = f"; a nested field is written as a JSON Pointer, e.g. {pointer}"
    return f"no field {path.shown} ({why}; the record's keys: {shown or 'none'}){hint}"


def score_value(value: Any, path: FieldPath) -> float | None:
    """A record's score: true/false as 1/0, a finite number in [0, 1], None for null; else the reason refused.

    Parameters
    ----------
    value : object
        The field's value.
    path : FieldPath
        The score field, for messages.

    Returns
    -------
    float or None
        The score; None for null (a missing score).

    Raises
    ------
    InputError
        Text (no text is read as a number), a list or object, or a number outside [0, 1]; the caller adds the place.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
        if math.isfinite(number) and 0.0 <= number <= 1.0:
            return number
        raise InputError(f"{path.shown} is {describe_value(value)}, outside [0, 1]; a score is true/false or in [0, 1]")
    kind = "text" if isinstance(value, str) else f"a JSON {'list' if isinstance(value, list) else 'object'}"
    raise InputError(
        f"{path.shown} is {describe_value(value)} ({kind}); a score is true/false or a number in [0, 1] (no text is "
        "read as a number: write the file's scores as JSON numbers or booleans)"
    )


def label_value(value: Any, path: FieldPath, what: str, *, nullable: bool = False) -> str | int | None:
    """An item id, repeat or cluster label: text or a whole number (None only where ``nullable``).

    Parameters
    ----------
    value : object
        The field's value.
    path : FieldPath
        The field, for messages.
    what : str
        What the value is ("an item id"), for messages.
    nullable : bool, default False
        Whether null is allowed (a cluster label: an item without a cluster).

    Returns
    -------
    str, int or None
        The value.

    Raises
    ------
    InputError
        null where not nullable, true/false, a number with a fraction part (1.0 too), a list or an object.
    """
    if value is None:
        if nullable:
            return None
        raise InputError(f"{path.shown} is null; every record names its {what}")
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    kind = (
        "true/false"
        if isinstance(value, bool)
        else "a number written with a fraction or exponent"
        if isinstance(value, float)
        else f"a JSON {'list' if isinstance(value, list) else 'object'}"
    )
    raise InputError(f"{path.shown} is {describe_value(value)} ({kind}); {what} is text or a whole number")


def model_value(value: Any, path: FieldPath) -> str:
    """A model name from ``--model-field``: non-empty text.

    Parameters
    ----------
    value : object
        The field's value.
    path : FieldPath
        The model field, for messages.

    Returns
    -------
    str
        The name.

    Raises
    ------
    InputError
        null, empty text, or anything but text.
    """
    if isinstance(value, str) and value.strip():
        return value
    what = "null" if value is None else "empty" if isinstance(value, str) else f"{describe_value(value)}, not text"
    raise InputError(f"{path.shown} is {what}; every record names its model as text")


def record_file(path: Path) -> tuple[str, str]:
    """Whether a file is one document or JSON Lines, and its name without the suffix (the model's name).

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    tuple of str
        "document" or "lines", and the stem.

    Raises
    ------
    InputError
        A name without one of the suffixes read.

    Examples
    --------
    >>> from pathlib import Path
    >>> record_file(Path("runs/gpt-4o.jsonl.gz")), record_file(Path("report.v2.json"))
    (('lines', 'gpt-4o'), ('document', 'report.v2'))
    """
    name = path.name
    base = name[:-3] if name.lower().endswith(".gz") else name
    for suffix, kind in RECORD_SUFFIXES.items():
        if base.lower() == suffix:
            raise InputError(f"{path}: no name before {suffix}; a file's name names its model (or pass --model-field)")
        if base.lower().endswith(suffix):
            return kind, base[: -len(suffix)]
    raise InputError(
        f"{path}: not a .json, .jsonl or .ndjson file (each optionally .gz); the records read by --item-field and "
        "--score-field are one JSON document (.json) or one JSON object per line (.jsonl, .ndjson)"
    )


def kind_of(value: Any) -> str:
    """What a JSON value is, for a message.

    Parameters
    ----------
    value : object
        A parsed JSON value.

    Returns
    -------
    str
        ``a JSON list``, ``a JSON object``, ``a JSON null``, or the kind with the value: ``a JSON number (3)``.

    Examples
    --------
    >>> kind_of(3), kind_of([1])
    ('a JSON number (3)', 'a JSON list')
    """
    if isinstance(value, (dict, list)):
        return f"a JSON {'object' if isinstance(value, dict) else 'list'}"
    kind = (
        "null"
        if value is None
        else "text"
        if isinstance(value, str)
        else "true/false"
        if isinstance(value, bool)
        else "number"
    )
    return f"a JSON {kind}" + ("" if value is None else f" ({describe_value(value)})")


_LINE_END = re.compile(r"\r\n|\r|\n")  # any line end; a raw CR cannot occur inside a JSON string


def _lines(text: str) -> Iterator[tuple[str, bool]]:
    """Each line of ``text`` (its end dropped) and whether it is the last, cut as read: no list of lines is built."""
    start = 0
    for match in _LINE_END.finditer(text):
        yield text[start : match.start()], match.end() == len(text)
        start = match.end()
    if start < len(text):
        yield text[start:], True


def line_records(path: Path) -> Iterator[tuple[int, Any, None]]:
    """(line number, record, None) of each line of a JSON Lines file, parsed one line at a time.

    Parameters
    ----------
    path : pathlib.Path
        The file (``.gz`` inflated).

    Yields
    ------
    tuple
        The line number (from 1), the parsed record (any JSON value), and None (no key).

    Raises
    ------
    InputError
        An empty file, a blank line, or a line :func:`~llm_power_verified.io.json_input.parse_json` refuses, naming
        the line (a last line that does not parse is called cut short).
    """
    number, name = 0, str(path)
    for number, (line, last) in enumerate(_lines(read_text(path)), start=1):
        place = f"{name}, line {number}"
        if not line.strip():
            raise InputError(f"{place}: blank line; a JSON Lines file holds one record per line")
        try:
            record = parse_json(line, place, line_numbers=False)
        except InputError as error:
            cut = last and ": not valid JSON" in str(error)
            raise InputError(
                f"{error}{' (the last line is cut short: was the run interrupted?)' if cut else ''}"
            ) from None
        yield number, record, None
    if number == 0:
        raise InputError(f"{path}: the file is empty: no records to read")
