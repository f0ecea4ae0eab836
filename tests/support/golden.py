"""Compare a command's output with its golden file by format: exact everywhere except floats at full precision.

A golden output holds numbers of two kinds.  Numbers the program prints rounded
(``0.3273``, ``1,028``, ``2.496e-10``) and integers are compared as text,
exactly.  Floats it prints at full precision (``repr``: JSON and CSV values, or
a 15-17 significant-digit token in text) carry the last bits of the machine's
arithmetic; they are compared to ``REL_TOL``/``ABS_TOL``.  Structure, keys,
words, booleans, null and the layout are compared exactly.

Formats (``kind``):

- ``"json"``: one JSON document.  Objects compare key lists in order, arrays by
  length and element; ints, bools and null exactly (an int is never equal to a
  float); floats to the tolerance; strings by the text rule below (exact unless
  they embed a full-precision float).
- ``"jsonl"``: one JSON document per line, line by line.
- ``"csv"``: the same rows and cells; a float cell (``.`` or an exponent) to the
  tolerance, every other cell (integers, ``True``, ``inf``, names) exactly.
- ``"text"`` (tables, Markdown, prose): tokenised into whitespace, numbers and
  other characters.  A number token is compared to the tolerance only if it is
  a float printed at full precision on at least one side (15 or more
  significant digits); all other tokens exactly.  If every token agrees as text
  the whole text must agree byte for byte (so spacing and alignment are
  checked); if a full-precision float differs within tolerance its width may
  differ too, and a column of such numbers may realign, so spacing is then
  compared only as "whitespace here".

A rounding-boundary flip.  A number printed rounded, say ``0.3273`` from
0.327350000000000..., could print as ``0.3274`` on a machine whose last bit
differs, and that golden would fail.  Comparing such tokens with a tolerance
would not help (the printed values differ by a unit of the last printed digit,
about 3e-4 relative here) and would let real changes of that size through.  The
chance is small: a printed digit flips only if the true value lies within the
machine difference (about 1e-13 relative) of a rounding boundary, about 1e-13 /
1e-4 = 1e-9 for a 4-digit number, so below 1e-5 for the few thousand rounded
numbers in all goldens together.  If it happens, the failure names the token;
check that the full-precision JSON golden of the same command agrees, then
``python -m tests.cli.test_golden --update NAME``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable, Iterator

import numpy as np

# Tolerance for floats printed at full precision.  The package documents its
# closed forms to a relative 1e-12 against mpmath where well conditioned; between
# machines the same code differs only by the order and vector width of floating
# sums and by libm, measured at relative 1e-16 to 6e-14 (log e-values summed over
# thousands of items are the largest).  1e-11 leaves a margin of more than 100
# over that, and stays below 1e-10, so a change of one digit at the 1e-10
# relative level (a changed constant, a changed seed, an off-by-one count) fails.
REL_TOL = 1e-11
# Floor for values at or near 0, where a relative tolerance means nothing: a log
# e-value of 0.0 at the first item came out as -8.9e-16 (4 ulps of 1, the log of
# a mixture sum that should be exactly 1) with numpy 1.26 / scipy 1.17.  45 ulps
# of a quantity of order 1 (the scale of the probabilities, correlations, gaps
# and log e-values these outputs hold), a margin of 11 over that.  p-values below
# it are also printed as logs, which the relative tolerance checks.
ABS_TOL = 1e-14
# A text token with this many significant digits is a float printed in full
# (repr prints 15 to 17); the program rounds everything else to 7 digits or fewer.
FULL_PRECISION_DIGITS = 15

NUMBER = r"[-+]?(?:\d+(?:,\d{3})*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
TOKEN = re.compile(rf"(?P<space>\s+)|(?P<number>{NUMBER})|(?P<other>[A-Za-z_]+|.)")
CSV_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
MAX_REPORTED = 8


def floats_close(expected: float, actual: float) -> bool:
    """Equal to ``REL_TOL`` relative or ``ABS_TOL`` absolute (the constants above give the reasons)."""
    return math.isclose(expected, actual, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def significant_digits(token: str) -> int:
    mantissa = re.split("[eE]", token)[0]
    return len(re.sub(r"\D", "", mantissa).lstrip("0"))


def is_full_precision(token: str) -> bool:
    """A float token printed in full (repr), as opposed to rounded for reading or an integer."""
    return (
        ("." in token or "e" in token.lower())
        and "," not in token
        and significant_digits(token) >= FULL_PRECISION_DIGITS
    )


def _tokens(text: str) -> list[tuple[str, str]]:
    return [(match.lastgroup, match.group()) for match in TOKEN.finditer(text)]


def _strict_json(text: str, where: str):
    """Parse a document of our own output: repeated keys and NaN/Infinity literals are differences, not values."""

    def pairs(items):
        keys = [key for key, _ in items]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{where}: repeated key among {keys}")
        return dict(items)

    def constant(name):
        raise ValueError(f"{where}: {name} is not JSON")

    return json.loads(text, object_pairs_hook=pairs, parse_constant=constant)


def compare_text(expected: str, actual: str, where: str = "text") -> list[str]:
    """The differences between two texts: exact except full-precision floats (see the module docstring)."""
    if expected == actual:
        return []
    differences = []
    # strict=False: the common lines are compared here, a line count that differs is reported below.
    for number, (old_line, new_line) in enumerate(zip(expected.split("\n"), actual.split("\n"), strict=False), start=1):
        old = [token for token in _tokens(old_line) if token[0] != "space"]
        new = [token for token in _tokens(new_line) if token[0] != "space"]
        if len(old) != len(new):
            differences.append(f"{where} line {number}: expected {old_line!r}, got {new_line!r}")
            continue
        for (kind, old_token), (_, new_token) in zip(old, new, strict=True):
            if old_token == new_token:
                continue
            if (
                kind == "number"
                and (is_full_precision(old_token) or is_full_precision(new_token))
                and CSV_NUMBER.fullmatch(new_token)
                and floats_close(float(old_token), float(new_token))
            ):
                continue
            rule = f"to a relative {REL_TOL:g}" if kind == "number" and is_full_precision(old_token) else "exactly"
            differences.append(
                f"{where} line {number}: expected {old_token!r}, got {new_token!r} (compared {rule}) in {new_line!r}"
            )
    if expected.count("\n") != actual.count("\n"):
        differences.append(f"{where}: expected {expected.count(chr(10)) + 1} lines, got {actual.count(chr(10)) + 1}")
    if not differences:
        tokens_alike = [(k, t) for k, t in _tokens(expected) if k != "space"] == [
            (k, t) for k, t in _tokens(actual) if k != "space"
        ]
        if tokens_alike:
            differences.append(f"{where}: the same tokens, but spacing or alignment differs")
    return differences


def compare_json_values(expected, actual, where: str = "$") -> list[str]:
    """The differences between two parsed JSON values (see the module docstring for the rule per type)."""
    if type(expected) is not type(actual):
        return [
            f"{where}: expected {type(expected).__name__} {expected!r:.80}, got {type(actual).__name__} {actual!r:.80}"
        ]
    if isinstance(expected, dict):
        if list(expected) != list(actual):
            return [f"{where}: expected keys {list(expected)}, got {list(actual)}"]
        return [line for key in expected for line in compare_json_values(expected[key], actual[key], f"{where}.{key}")]
    if isinstance(expected, list):
        if len(expected) != len(actual):
            return [f"{where}: expected {len(expected)} elements, got {len(actual)}"]
        return [
            line
            for index, (old, new) in enumerate(zip(expected, actual, strict=True))
            for line in compare_json_values(old, new, f"{where}[{index}]")
        ]
    if isinstance(expected, float):
        return (
            []
            if floats_close(expected, actual)
            else [f"{where}: expected {expected!r}, got {actual!r} (relative tolerance {REL_TOL:g})"]
        )
    if isinstance(expected, str):
        return compare_text(expected, actual, where)
    return [] if expected == actual else [f"{where}: expected {expected!r}, got {actual!r}"]


def _compare_json(expected: str, actual: str, where: str) -> list[str]:
    try:
        new = _strict_json(actual, f"{where} (output)")
    except ValueError as error:
        return [f"{where}: the output is not a JSON document: {error}"]
    return compare_json_values(_strict_json(expected, f"{where} (golden)"), new, where)


def _compare_jsonl(expected: str, actual: str, where: str) -> list[str]:
    old_lines, new_lines = expected.splitlines(), actual.splitlines()
    if len(old_lines) != len(new_lines):
        return [f"{where}: expected {len(old_lines)} JSON lines, got {len(new_lines)}"]
    return [
        line
        for number, (old, new) in enumerate(zip(old_lines, new_lines, strict=True), start=1)
        for line in _compare_json(old, new, f"{where} line {number}")
    ]


def _csv_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def _compare_csv(expected: str, actual: str, where: str) -> list[str]:
    old_rows, new_rows = _csv_rows(expected), _csv_rows(actual)
    if len(old_rows) != len(new_rows):
        return [f"{where}: expected {len(old_rows)} rows, got {len(new_rows)}"]
    differences = []
    header = old_rows[0] if old_rows else []
    for row_number, (old_row, new_row) in enumerate(zip(old_rows, new_rows, strict=True), start=1):
        if len(old_row) != len(new_row):
            differences.append(f"{where} row {row_number}: expected {len(old_row)} cells, got {len(new_row)}")
            continue
        for column, (old, new) in enumerate(zip(old_row, new_row, strict=True)):
            if old == new or (_is_float_cell(old) and _is_float_cell(new) and floats_close(float(old), float(new))):
                continue
            name = header[column] if column < len(header) else str(column)
            differences.append(f"{where} row {row_number} column {name!r}: expected {old!r}, got {new!r}")
    if (
        not differences
        and expected.replace("\r\n", "\n") != actual.replace("\r\n", "\n")
        and [row for row in old_rows] == [row for row in new_rows]
    ):
        differences.append(f"{where}: the same cells, but quoting or line ends differ")
    return differences


def _is_float_cell(cell: str) -> bool:
    return bool(CSV_NUMBER.fullmatch(cell)) and ("." in cell or "e" in cell.lower())


COMPARERS: dict[str, Callable[[str, str, str], list[str]]] = {
    "json": _compare_json,
    "jsonl": _compare_jsonl,
    "csv": _compare_csv,
    "text": compare_text,
}


def differences(expected: str, actual: str, kind: str, where: str = "output") -> list[str]:
    """Every difference between ``expected`` and ``actual`` read as ``kind`` ("json", "jsonl", "csv" or "text")."""
    return COMPARERS[kind](expected, actual, where)


def assert_same_output(expected: str, actual: str, kind: str, where: str = "output") -> None:
    """Fail with the first few differences, each naming its place, if the outputs differ beyond the rules above."""
    found = differences(expected, actual, kind, where)
    if found:
        more = f"\n... and {len(found) - MAX_REPORTED} more" if len(found) > MAX_REPORTED else ""
        raise AssertionError(f"{len(found)} difference(s):\n" + "\n".join(found[:MAX_REPORTED]) + more)


# ---------------------------------------------------------------------------------------------------------------
# Perturbations that prove the rules: a few ulps must pass, a change at the 1e-10 level must fail.


def nudge(value: float, ulps: int) -> float:
    """``value`` moved by ``ulps`` units in the last place (toward +inf if ulps > 0, toward -inf if < 0)."""
    target = math.inf if ulps > 0 else -math.inf
    for _ in range(abs(ulps)):
        value = float(np.nextafter(value, target))
    return value


def _map_floats(text: str, kind: str, change: Callable[[int, float], float]) -> tuple[str, int]:
    """``text`` with each full-precision float ``value`` (the i-th) replaced by ``change(i, value)``; and the count.

    The floats another machine's arithmetic would move: JSON and CSV float
    values and full-precision float tokens in text (also inside JSON strings).
    Rounded numbers stay as printed.
    """
    counter = iter(range(1 << 62))

    def moved(value: float) -> float:
        return change(next(counter), value)

    def text_rule(part: str) -> str:
        return re.sub(
            NUMBER, lambda m: repr(moved(float(m.group()))) if is_full_precision(m.group()) else m.group(), part
        )

    def walk(value):
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, float):
            return moved(value)
        return text_rule(value) if isinstance(value, str) else value

    if kind == "json":
        result = json.dumps(walk(_strict_json(text, "golden")), indent=2, ensure_ascii=False) + "\n"
    elif kind == "jsonl":
        result = "".join(
            json.dumps(walk(_strict_json(line, "golden")), ensure_ascii=False, separators=(",", ":")) + "\n"
            for line in text.splitlines()
        )
    elif kind == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        for row in _csv_rows(text):
            writer.writerow([repr(moved(float(cell))) if _is_float_cell(cell) else cell for cell in row])
        result = out.getvalue()
    else:
        result = text_rule(text)
    return result, next(counter)


def perturb_floats(text: str, kind: str, ulps: int = 4) -> tuple[str, int]:
    """``text`` with every full-precision float moved by ``ulps`` ulps (alternating direction), and the count moved."""
    return _map_floats(text, kind, lambda index, value: nudge(value, ulps if index % 2 == 0 else -ulps))


def mutations(text: str, kind: str) -> Iterator[tuple[str, str]]:
    """Single changes that must fail: ``(description, changed text)``.

    - "float": the largest-magnitude full-precision float times (1 + 1e-10), a
      change in its tenth or eleventh significant digit (in text with no such
      float: the last digit of a rounded number, which is compared exactly);
    - "integer": an integer standing alone plus one;
    - "word": one letter of a word changed.
    """
    values: list[float] = []
    _map_floats(text, kind, lambda index, value: values.append(value) or value)
    if values:
        largest = max(range(len(values)), key=lambda index: abs(values[index]))
        changed, _ = _map_floats(text, kind, lambda index, value: value * (1 + 1e-10) if index == largest else value)
        yield f"float {values[largest]!r} x (1 + 1e-10)", changed
    else:
        rounded = [m for m in re.finditer(NUMBER, text) if re.fullmatch(r"-?\d+\.\d+", m.group())]
        if rounded:
            target = rounded[-1]
            last = target.group()[-1]
            new = target.group()[:-1] + ("1" if last == "0" else str(int(last) - 1))
            yield f"rounded number {target.group()} -> {new}", _replace(text, target, new)
    integers = [
        m for m in re.finditer(NUMBER, text) if re.fullmatch(r"0|[1-9]\d*", m.group()) and _outside_word(text, m)
    ]
    if integers:
        target = integers[len(integers) // 2]
        new = str(int(target.group()) + 1)
        yield f"integer {target.group()} -> {new}", _replace(text, target, new)
    words = [
        m
        for m in re.finditer(r"(?<![A-Za-z])[a-z]{4,}(?![A-Za-z])", text)
        if m.group() not in ("true", "false", "null")
    ]
    if words:
        target = words[len(words) // 2]
        word = target.group()
        new = word[:-1] + ("a" if word[-1] != "a" else "b")
        yield f"word {word} -> {new}", _replace(text, target, new)


def _outside_word(text: str, match: re.Match) -> bool:
    """An integer standing alone (not part of a name such as ``qwen2`` or a float such as ``1.5``)."""
    before = text[match.start() - 1] if match.start() else " "
    after = text[match.end()] if match.end() < len(text) else " "
    return not (before.isalnum() or before in "._-" or after.isalnum() or after in "._")


def _replace(text: str, match: re.Match, new: str) -> str:
    return text[: match.start()] + new + text[match.end() :]
