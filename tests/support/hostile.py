"""A held-out corpus of damaged and hostile inputs for the command line, each with the ending it must have.

Every case is a :class:`Case`: the files written into an empty work folder, the
command's arguments (paths relative to that folder, which is the working
directory) or a bash line around the command (``{cli}``), and what must happen:

- :class:`Read`: exit 0, nothing on stderr, and ``check(stdout, folder)`` finds no problem;
- :class:`Refused`: exit 2 and exactly one stderr line ``llm-power-verified: error: ...``
  containing one of the fragments (the place or the value that is wrong);
- :class:`Either`: one of the two, when both are acceptable endings;
- :class:`Quiet`: a broken pipe: one of the given statuses and nothing on stderr.

A run may create or change only the files named in ``writes`` (and nothing at
all when it refuses); ``guard`` names files outside the folder that must not
change (the shipped data).  ``tests/io/test_hostile_inputs.py`` runs every case in
a subprocess under a memory limit and a timeout and classifies how it ended.
This corpus extends ``tests/support/damaged.py`` (the per-format mutations of one clean
input) with other kinds: encodings, number spellings, archives and bombs,
epochs, names, paths, streams, saved reports, printed numbers and sizes.
"""

from __future__ import annotations

import functools
import gzip
import json
import math
import os
import subprocess
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import zstandard

from tests.support.damaged import clean_scores, eval_bytes, inspect_log, samples_from, zip_archive, zstd_member

REPOSITORY = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SHIPPED = REPOSITORY / "llm_power_verified" / "data"
Check = Callable[[str, Path], str | None]  # (stdout, folder) -> a problem, or None
Content = bytes | Callable[[], bytes]


@dataclass(frozen=True)
class Read:
    check: Check | None = None


@dataclass(frozen=True)
class Refused:
    fragments: tuple[str, ...]


@dataclass(frozen=True)
class Either:
    read: Read
    refused: Refused


@dataclass(frozen=True)
class Quiet:
    statuses: tuple[int, ...] = (0, 141)


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    argv: tuple[str, ...]
    expect: Read | Refused | Either | Quiet
    files: dict[str, Content] = field(default_factory=dict)
    shell: str | None = None
    setup: Callable[[Path], None] | None = None
    writes: tuple[str, ...] = ()
    guard: tuple[Path, ...] = ()
    timeout: float = 40.0
    memory: int = 2 << 30  # address-space limit of the command and what it starts (Dask workers need more)

    @property
    def id(self) -> str:
        return f"{self.family}: {self.name}"


def refused(*fragments: str) -> Refused:
    return Refused(fragments)


def either(check: Check | None, *fragments: str) -> Either:
    return Either(Read(check), Refused(fragments))


# --------------------------------------------------------------------------- checks on what was read
FAST = ("--n-resamples", "0", "--n-cluster-resamples", "0", "--quiet")
SCORES = clean_scores()  # 40 items x 3 models, 0/1
MEAN_TOLERANCE = 1e-12  # means of a few hundred 0/1 or k/10 scores: the double sum is exact to ~1e-15


def _strict_constant(name: str):
    raise ValueError(f"{name} is not JSON (RFC 8259 has no non-finite numbers)")


def _json(stdout: str):
    """Strict JSON: a report holding NaN or Infinity is not readable by other tools."""
    try:
        return json.loads(stdout, parse_constant=_strict_constant)
    except ValueError as error:
        return error


def means(
    scores: np.ndarray, names: list[str] | None = None, *, binary: bool | None = None, clusters: int | None = None
) -> Check:
    """The JSON report (``--format json`` on stdout) has these items, models and mean scores."""
    names = [f"m{k}" for k in range(scores.shape[1])] if names is None else names
    expected = dict(zip(names, scores.mean(axis=0), strict=True))

    def check(stdout: str, folder: Path) -> str | None:
        report = _json(stdout)
        if isinstance(report, Exception):
            return f"stdout is not JSON: {report}"
        if report["data"]["n_items"] != scores.shape[0]:
            return f"n_items {report['data']['n_items']}, expected {scores.shape[0]}"
        got = {row["model"]: row["mean_score"] for row in report["ranking"]}
        if set(got) != set(expected):
            return f"models {sorted(got)}, expected {sorted(expected)}"
        for name, value in expected.items():
            if not math.isclose(got[name], value, rel_tol=0, abs_tol=MEAN_TOLERANCE):
                return f"mean of {name!r} {got[name]}, expected {value}"
        if binary is not None and report["data"]["binary"] != binary:
            return f"binary {report['data']['binary']}, expected {binary}"
        if clusters is not None and (report.get("clusters") or {}).get("n_clusters") != clusters:
            return f"n_clusters {(report.get('clusters') or {}).get('n_clusters')}, expected {clusters}"
        return None

    return check


def no_raw(*characters: str) -> Check:
    def check(stdout: str, folder: Path) -> str | None:
        found = [repr(c) for c in characters if c in stdout]
        return f"raw {', '.join(found)} in the output" if found else None

    return check


def file_holds(path: str, predicate: Callable[[bytes], bool], what: str) -> Check:
    def check(stdout: str, folder: Path) -> str | None:
        target = folder / path
        if not target.exists():
            return f"{path} was not written"
        return None if predicate(target.read_bytes()) else f"{path}: {what}"

    return check


def json_holds(predicate: Callable[[object], bool], what: str) -> Check:
    def check(stdout: str, folder: Path) -> str | None:
        value = _json(stdout)
        if isinstance(value, Exception):
            return f"stdout is not JSON: {value}"
        return None if predicate(value) else what

    return check


def text_lacks(pattern: str, what: str) -> Check:
    import re

    def check(stdout: str, folder: Path) -> str | None:
        found = re.search(pattern, stdout)
        return f"{what}: {found.group(0)!r}" if found else None

    return check


# --------------------------------------------------------------------------- builders
def wide(
    scores: np.ndarray = SCORES,
    *,
    names: list[str] | None = None,
    ids: list[str] | None = None,
    clusters: list[str] | None = None,
    eol: str = "\n",
    sep: str = ",",
    item_column: bool = True,
) -> bytes:
    names = [f"m{k}" for k in range(scores.shape[1])] if names is None else names
    ids = [f"q{i:03d}" for i in range(scores.shape[0])] if ids is None else ids
    header = (["item_id"] if item_column else []) + names + (["topic"] if clusters is not None else [])
    lines = [sep.join(header)]
    for i, row in enumerate(scores):
        cells = (
            ([ids[i]] if item_column else [])
            + [_number(v) for v in row]
            + ([clusters[i]] if clusters is not None else [])
        )
        lines.append(sep.join(cells))
    return (eol.join(lines) + eol).encode()


def _number(value) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def long(scores: np.ndarray = SCORES, *, eol: str = "\n") -> bytes:
    lines = ["item_id,model,score"] + [
        f"q{i:03d},m{k},{_number(v)}" for i, row in enumerate(scores) for k, v in enumerate(row)
    ]
    return (eol.join(lines) + eol).encode()


def jsonl(scores: np.ndarray = SCORES, *, eol: str = "\n") -> bytes:
    return "".join(
        json.dumps({"item_id": f"q{i:03d}", "model": f"m{k}", "score": int(v)}) + eol
        for i, row in enumerate(scores)
        for k, v in enumerate(row)
    ).encode()


def plain(column: np.ndarray, eol: str = "\n") -> bytes:
    return "".join(_number(v) + eol for v in column).encode()


def with_cell(scores: np.ndarray, item: int, model: int, value) -> np.ndarray:
    changed = scores.astype(float).copy()
    changed[item, model] = value
    return changed


def replace_cell(data: bytes, line: int, column: int, token: str, sep: str = ",") -> bytes:
    """Line ``line`` (0 = header), field ``column`` set to ``token`` (text, not escaped)."""
    lines = data.decode().split("\n")
    cells = lines[line].split(sep)
    cells[column] = token
    lines[line] = sep.join(cells)
    return "\n".join(lines).encode()


def topics(count: int = 40, labels: tuple[str, ...] = ("t0", "t1", "t2", "t3")) -> list[str]:
    return [labels[i % len(labels)] for i in range(count)]


def audit(*paths: str, fmt: str = "json", extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    return ("audit", *paths, *FAST, "--format", fmt, *extra)


def compressed_stream(chunks, method: str = "zstd") -> tuple[bytes, int, int]:
    """The concatenated chunks compressed without holding them (a zstd frame or raw deflate): (payload, crc32, size)."""
    compressor = (
        zstandard.ZstdCompressor(level=3).compressobj() if method == "zstd" else zlib.compressobj(1, zlib.DEFLATED, -15)
    )
    parts, crc, size = [], 0, 0
    for chunk in chunks:
        parts.append(compressor.compress(chunk))
        crc, size = zlib.crc32(chunk, crc), size + len(chunk)
    parts.append(compressor.flush())
    return b"".join(parts), crc, size


def _log(column: int, model: str, scores: np.ndarray = SCORES, **changes) -> dict[str, bytes]:
    return {**inspect_log(samples_from(scores, column), model), **changes}


def eval_pair(x_changes: dict | None = None, x_members: list | None = None) -> dict[str, Content]:
    """Two .eval logs x.eval and y.eval of SCORES[:, 0] and SCORES[:, 1]; x's members changed or replaced."""

    def build_x() -> bytes:
        if x_members is not None:
            return zip_archive(x_members() if callable(x_members) else x_members)
        return eval_bytes(_log(0, "mockllm/x", **(x_changes or {})))

    return {"x.eval": build_x, "y.eval": eval_bytes(_log(1, "mockllm/y"))}


# --------------------------------------------------------------------------- 1. encodings
def encoding_cases() -> list[Case]:
    base = wide()
    text = base.decode()
    family = "encoding"

    def case(name, data, expect, path="w.csv", argv=None):
        return Case(family, name, argv or audit(path), expect, {path: data})

    return [
        case("UTF-16 LE with BOM", text.encode("utf-16"), refused("UTF")),
        case("UTF-16 BE with BOM", b"\xfe\xff" + text.encode("utf-16-be"), refused("UTF")),
        case("UTF-16 LE without BOM", text.encode("utf-16-le"), refused("UTF", "NUL", "\\x00")),
        case("UTF-32 with BOM", text.encode("utf-32"), refused("UTF", "NUL", "\\x00")),
        case("BOM twice", b"\xef\xbb\xbf\xef\xbb\xbf" + base, either(means(SCORES), "w.csv")),
        case("BOM at the start of line 5", base.replace(b"\nq003", b"\n\xef\xbb\xbfq003"), either(None, "line 5")),
        case("overlong UTF-8 '/' in an item id", base.replace(b"q010", b"q\xc0\xaf10"), refused("UTF-8")),
        case("CESU surrogate bytes in a model name", base.replace(b"m1", b"m\xed\xa0\x801", 1), refused("UTF-8")),
        case("NUL byte in an item id", base.replace(b"q004", b"q\x00004"), refused("line 6", "NUL", "\\x00")),
        case("NUL byte in the header", base.replace(b"m2", b"m\x002", 1), refused("line 1", "NUL", "\\x00")),
        case("NUL after a score", replace_cell(base, 10, 2, "1\x00"), refused("line 11")),
        case("cp1252 quote in a model name", base.replace(b"m1", b"\x93m1\x94", 1), refused("UTF-8")),
        case("Latin-1 in a long table's model", long().replace(b"q005,m1", b"q005,m\xe91"), refused("UTF-8"), "l.csv"),
        case(
            "invalid UTF-8 inside a JSON Lines string",
            jsonl().replace(b'"m2"', b'"m\xff2"', 1),
            refused("UTF-8"),
            "s.jsonl",
        ),
        case(
            "lone surrogate escape in JSON Lines",
            jsonl().replace(b'"model": "m2"', b'"model": "m\\ud8002"', 1),
            refused("surrogate", "line 3"),
            "s.jsonl",
        ),
        case(
            "invalid UTF-8 in a plain score file",
            b"1\n0\n\xff\n1\n",
            refused("a.txt"),
            "a.txt",
            ("test", "a.txt", "b.txt"),
        ),
        Case(
            family,
            "UTF-16 plain score file",
            ("test", "a.txt", "b.txt"),
            refused("UTF", "a.txt"),
            {"a.txt": "1\n0\n1\n1\n".encode("utf-16"), "b.txt": b"0\n0\n1\n0\n"},
        ),
        Case(
            family,
            "lone surrogate in an Inspect .json model name",
            audit("a.json", "b.json"),
            refused("surrogate", "a.json"),
            inspect_json_pair(a_text=lambda t: t.replace('"mockllm/a"', '"mockllm/\\udc80a"')),
        ),
        Case(
            family,
            "zero-width space makes two names",
            audit("w.csv"),
            Read(means(SCORES, ["m0", "m\u200b1", "m2"])),
            {"w.csv": wide(names=["m0", "m\u200b1", "m2"])},
        ),
    ]


def inspect_json_pair(scores: np.ndarray = SCORES, *, a_text=None, b_text=None, a_samples=None) -> dict[str, Content]:
    def log(column: int, model: str, change, samples) -> bytes:
        samples = (
            samples
            if samples is not None
            else [
                {"id": f"s{i:03d}", "epoch": 1, "scores": {"choice": {"value": "C" if v else "I"}}}
                for i, v in enumerate(scores[:, column])
            ]
        )
        text = json.dumps(
            {
                "version": 2,
                "status": "success",
                "eval": {"model": model, "task": "t"},
                "stats": {"k": 1},
                "samples": samples,
            }
        )
        return (change(text) if change else text).encode()

    return {"a.json": log(0, "mockllm/a", a_text, a_samples), "b.json": log(1, "mockllm/b", b_text, None)}


# --------------------------------------------------------------------------- 2. line endings
def line_end_cases() -> list[Case]:
    family = "line endings"
    base = wide()
    cr_refusal = ("CR", "carriage", "line end")
    mixed = b"\n".join(line + (b"\r" if n % 2 else b"") for n, line in enumerate(base.split(b"\n")[:-1])) + b"\n"
    cr_mixed = b"".join(line + (b"\r" if n % 3 == 1 else b"\n") for n, line in enumerate(base.split(b"\n")[:-1]))
    summary = b"model,accuracy,n\nalpha,0.62,1000\nbeta,0.55,1000\ngamma,0.50,1000\n"
    a, b = plain(SCORES[:, 0]), plain(SCORES[:, 1])
    lm = lm_eval_folders()
    samples = next(name for name in lm if "model-a/samples_arith_mc" in name)
    return [
        Case(
            family,
            "CR-only wide CSV",
            audit("w.csv"),
            either(means(SCORES), *cr_refusal),
            {"w.csv": base.replace(b"\n", b"\r")},
        ),
        Case(family, "CR-only long CSV", audit("l.csv"), either(means(SCORES), *cr_refusal), {"l.csv": long(eol="\r")}),
        Case(
            family,
            "CR-only JSON Lines",
            audit("s.jsonl"),
            either(means(SCORES), *cr_refusal),
            {"s.jsonl": jsonl(eol="\r")},
        ),
        Case(
            family,
            "CR-only TSV",
            audit("w.tsv"),
            either(means(SCORES), *cr_refusal),
            {"w.tsv": wide(sep="\t", eol="\r")},
        ),
        Case(
            family,
            "CR-only plain score files",
            ("test", "a.txt", "b.txt", "--json"),
            either(None, *cr_refusal),
            {"a.txt": a.replace(b"\n", b"\r"), "b.txt": b.replace(b"\n", b"\r")},
        ),
        Case(
            family,
            "CR-only accuracies table",
            ("audit-accuracies", "acc.csv"),
            either(None, *cr_refusal),
            {"acc.csv": summary.replace(b"\n", b"\r")},
        ),
        Case(
            family,
            "CR-only lm-eval samples file",
            ("audit", "model-a", "model-b", "--task", "arith_mc", "--metric", "acc", *FAST),
            either(None, *cr_refusal, "samples_arith_mc"),
            {**lm, samples: lambda: lm_file(samples).replace(b"\n", b"\r")},
        ),
        Case(family, "CRLF long CSV", audit("l.csv"), Read(means(SCORES)), {"l.csv": long(eol="\r\n")}),
        Case(family, "CRLF JSON Lines", audit("s.jsonl"), Read(means(SCORES)), {"s.jsonl": jsonl(eol="\r\n")}),
        Case(family, "CRLF TSV", audit("w.tsv"), Read(means(SCORES)), {"w.tsv": wide(sep="\t", eol="\r\n")}),
        Case(
            family,
            "CRLF accuracies table",
            ("audit-accuracies", "acc.csv"),
            Read(),
            {"acc.csv": summary.replace(b"\n", b"\r\n")},
        ),
        Case(family, "CRLF and LF mixed", audit("w.csv"), Read(means(SCORES)), {"w.csv": mixed}),
        Case(
            family, "CR and LF mixed", audit("w.csv"), either(means(SCORES), *cr_refusal, "line"), {"w.csv": cr_mixed}
        ),
        Case(family, "no final line end", audit("w.csv"), Read(means(SCORES)), {"w.csv": base.rstrip(b"\n")}),
        Case(
            family,
            "CR CR LF line ends",
            audit("w.csv"),
            either(means(SCORES), *cr_refusal, "line"),
            {"w.csv": base.replace(b"\n", b"\r\r\n")},
        ),
        Case(
            family,
            "U+2028 inside an item id is not a line end",
            audit("w.csv"),
            Read(means(SCORES)),
            {"w.csv": base.replace(b"q007", "q\u2028007".encode())},
        ),
        Case(
            family,
            "U+0085 inside an item id is not a line end",
            audit("w.csv"),
            Read(means(SCORES)),
            {"w.csv": base.replace(b"q007", "q\u0085007".encode())},
        ),
        Case(
            family,
            "trailing blank line, table with item ids",
            audit("w.csv"),
            Read(means(SCORES)),
            {"w.csv": base + b"\n"},
        ),
        Case(
            family,
            "trailing CRLF blank lines, table with item ids",
            audit("w.csv"),
            Read(means(SCORES)),
            {"w.csv": base.replace(b"\n", b"\r\n") + b"\r\n\r\n"},
        ),
        Case(
            family,
            "form feed line in a plain file",
            ("test", "a.txt", "b.txt"),
            refused("a.txt, line 6"),
            {"a.txt": _line_set(a, 5, b"\x0c"), "b.txt": b},
        ),
        Case(
            family,
            "trailing CRLF blank line in a plain file",
            ("test", "a.txt", "b.txt"),
            refused("blank", "a.txt"),
            {"a.txt": a.replace(b"\n", b"\r\n") + b"\r\n", "b.txt": b.replace(b"\n", b"\r\n")},
        ),
    ]


# --------------------------------------------------------------------------- 3. number spellings in a wide CSV cell
#: (token written at line 10, column m1 (item q008), the value it may be read as, or None: must be refused)
WIDE_TOKENS = [
    ("0_1", None),
    ("1_000e-3", None),
    ("0x1", None),
    ("0b1", None),
    ("0x1p0", None),
    ("\uff11", None),
    ("\u0661", None),
    ("\u2212" + "0", None),
    ("\u00bd", None),
    ('"1,0"', None),
    ("1e999", None),
    ("+Infinity", None),
    ("-inf", None),
    ("NAN", None),
    ("-nan", None),
    ("null", None),
    ("None", None),
    ("1" + "0" * 400, None),
    ("1e1", None),
    ("0.9999999999", None),
    ("1.0000000001", None),
    ("1e-400", 0),
    ("1.", 1),
    ("1E+0", 1),
    ('"1"', 1),
    ("-0", 0),
    ("0e5", 0),
    (".0", 0),
    ("+1", 1),
    (" 1", 1),
    ("\t1", 1),
    ("0" * 400 + "1", 1),
    ("0.99999999999999999999", 1),
    ("TRUE", 1),
    ("false", 0),
]
#: tokens whose exact reading is the only right ending (a number every reader spells this way)
PLAIN_NUMBERS = {"1.0", "1.", "1e0", "1E+0", "10e-1", '"1"', "-0", "-0.0", "0e5"}


def wide_number_cases() -> list[Case]:
    base = wide()
    cases = []
    for token, value in WIDE_TOKENS:
        data = replace_cell(base, 9, 2, token)
        if value is None:
            expect = refused("line 10")
        else:
            check = means(with_cell(SCORES, 8, 1, value))
            expect = Read(check) if token in PLAIN_NUMBERS else either(check, "line 10")
        cases.append(Case("numbers: wide CSV", f"cell {token[:24]!r}", audit("w.csv"), expect, {"w.csv": data}))
    return cases


#: (token at line 6 of a.txt, value or None)
PLAIN_TOKENS = [
    ("0_1", None),
    ("0x1", None),
    ("\u0661", None),
    ("1e999", None),
    ("1" + "0" * 5000, None),
    ("\u2212" + "1", None),
    ("1\x00", None),
    ("TRUE", None),
    ("-0", 0),
    (" 1 ", 1),
    ("+1", 1),
    ("1e-400", 0),
]


def plain_number_cases() -> list[Case]:
    a, b = SCORES[:, 0], SCORES[:, 1]
    cases = []
    for token, value in PLAIN_TOKENS:
        lines = plain(a).decode().split("\n")
        lines[5] = token
        data = "\n".join(lines).encode()
        if value is None:
            expect = refused("a.txt, line 6")
        else:
            changed = a.copy()
            changed[5] = value
            b_count, c_count = int(((changed == 1) & (b == 0)).sum()), int(((changed == 0) & (b == 1)).sum())
            check = json_holds(
                lambda out, bc=(b_count, c_count): (out[0]["b"], out[0]["c"]) == bc,
                f"b, c differ from {b_count}, {c_count}",
            )
            expect = Read(check) if token in PLAIN_NUMBERS else either(check, "a.txt, line 6")
        cases.append(
            Case(
                "numbers: plain files",
                f"line {token[:24]!r}",
                ("test", "a.txt", "b.txt", "--json"),
                expect,
                {"a.txt": data, "b.txt": plain(b)},
            )
        )
    return cases


def json_number_cases() -> list[Case]:
    base = jsonl().decode().split("\n")

    def line4(score: str) -> bytes:
        lines = list(base)
        lines[3] = f'{{"item_id": "q001", "model": "m0", "score": {score}}}'
        return "\n".join(lines).encode()

    one = means(with_cell(SCORES, 1, 0, 1))
    zero = means(with_cell(SCORES, 1, 0, 0))
    family = "numbers: JSON Lines"
    return [
        Case(family, f"score {token[:24]}", audit("s.jsonl"), expect, {"s.jsonl": line4(token)})
        for token, expect in [
            ("-0.0", Read(zero)),
            ("1E0", Read(one)),
            ("true", either(one, "line 4")),
            ('"1"', either(one, "line 4")),
            ("1e999", refused("line 4")),
            ("1" + "0" * 5000, refused("line 4")),
            ("NaN", refused("line 4")),
            ("-Infinity", refused("line 4")),
            ("null", refused("line 4")),
            ("[1]", refused("line 4")),
            ("1e-400", either(zero, "line 4")),
        ]
    ]


# --------------------------------------------------------------------------- 4. structure
def structure_cases() -> list[Case]:
    base = wide()
    lines = base.decode().split("\n")
    quoted = list(lines)
    quoted[3] = '"q\n002"' + quoted[3][4:]  # line 4 holds a quoted newline: later rows sit one physical line lower
    damaged_after_quote = list(quoted)
    damaged_after_quote[9] = damaged_after_quote[9].rsplit(",", 1)[0] + ",x"  # record 10 is physical line 11
    duplicate_after_quote = list(quoted)
    duplicate_after_quote[9] = "q004" + duplicate_after_quote[9][4:]
    header_quote = list(lines)
    header_quote[0] = 'item_id,"m\n0",m1,m2'
    header_quote[9] = header_quote[9].rsplit(",", 1)[0] + ",x"
    long_lines = long().decode().split("\n")
    long_lines[2] = '"q\n000",m1,' + long_lines[2].rsplit(",", 1)[1]
    long_lines[20] = long_lines[20].rsplit(",", 1)[0] + ",x"
    family = "structure"

    def case(name, data, expect, path="w.csv", argv=None):
        return Case(
            family,
            name,
            argv or audit(path),
            expect,
            {path: data if isinstance(data, bytes) else "\n".join(data).encode()},
        )

    short = list(lines)
    short[12] = short[12].rsplit(",", 1)[0]
    many = list(lines)
    many[0] = ",".join(["item_id"] + [f"m{k}" for k in range(3000)])
    return [
        case("short row", short, refused("line 13")),
        case("quoted newline, then a bad cell: physical line named", damaged_after_quote, refused("line 11")),
        case(
            "quoted newline, then a repeated item: physical lines named",
            duplicate_after_quote,
            refused("line 7 and line 11"),
        ),
        case("quoted newline in a header name, then a bad cell", header_quote, refused("line 11")),
        case("long table: quoted newline, then a bad score", long_lines, refused("line 22"), "l.csv"),
        case(
            "unclosed quote in the last row",
            "\n".join([*lines[:40], 'q039,1,"0,1', ""]).encode(),
            refused("line 41", "quote"),
        ),
        case(
            "item_id column twice",
            b"\n".join(line + b"," + line.split(b",")[0] for line in base.rstrip(b"\n").split(b"\n")) + b"\n",
            refused("item_id"),
        ),
        case("model names differing by a space", base.replace(b"m2", b" m1", 1), either(None, "m1")),
        case("whitespace-only file", b"   \n \n", refused("w.csv")),
        case("only a BOM", b"\xef\xbb\xbf", refused("empty", "w.csv")),
        case("only a line end", b"\n", refused("w.csv")),
        case("header and CRLF only", b"item_id,m0,m1\r\n", refused("no items")),
        case("one item", wide(SCORES[2:3]), either(means(SCORES[2:3]), "item")),
        case("two items", wide(SCORES[2:4]), either(means(SCORES[2:4]), "item")),
        case("3,000 header names, 4 fields per row", many, refused("line 2", "line 1")),
        case("semicolon-separated .csv", wide(sep=";"), refused("w.csv")),
        case("commas in a .tsv", base, refused("w.tsv"), "w.tsv"),
        case(
            "trailing separator on every line",
            b"\n".join(line + b"," for line in base.rstrip(b"\n").split(b"\n")) + b"\n",
            either(means(SCORES), "column 5"),
        ),
        case(
            "quoted header names",
            base.replace(b"item_id,m0,m1,m2", b'"item_id","m0","m1","m2"', 1),
            Read(means(SCORES)),
        ),
        case(
            "an all-empty column",
            b"\n".join(line + (b",notes" if n == 0 else b",") for n, line in enumerate(base.rstrip(b"\n").split(b"\n")))
            + b"\n",
            either(means(SCORES), "notes"),
        ),
        case("1 MB item id", base.replace(b"q020", b"q" * 1_000_000), either(means(SCORES), "line 22")),
        case("long table: one model", b"item_id,model,score\nq1,m0,1\nq2,m0,0\n", refused("two", "m0"), "l.csv"),
        case(
            "long table: model names 1 and 1.0",
            b"item_id,model,score\n"
            + b"".join(b"q%d,1,%d\nq%d,1.0,%d\n" % (i, SCORES[i, 0], i, SCORES[i, 1]) for i in range(40)),
            either(means(SCORES[:, :2], ["1", "1.0"]), "1.0"),
            "l.csv",
        ),
        case(
            "long table: model named NA",
            b"item_id,model,score\n"
            + b"".join(b"q%d,NA,%d\nq%d,B,%d\n" % (i, SCORES[i, 0], i, SCORES[i, 1]) for i in range(40)),
            either(means(SCORES[:, :2], ["NA", "B"]), "line 2"),
            "l.csv",
        ),
        case(
            "item ids 1, 1.0 and 01 are three items",
            wide(SCORES[:3], ids=["1", "1.0", "01"]),
            either(means(SCORES[:3]), "1.0"),
        ),
        case("item id NA", wide(ids=["NA"] + [f"q{i:03d}" for i in range(1, 40)]), either(means(SCORES), "line 2")),
    ]


# --------------------------------------------------------------------------- 5. cluster labels
def cluster_cases() -> list[Case]:
    family = "cluster labels"
    options = ("--cluster-column", "topic")

    def case(name, labels, expect, extra=()):
        return Case(family, name, audit("w.csv", extra=(*options, *extra)), expect, {"w.csv": wide(clusters=labels)})

    def with_label(label):
        labels = topics()
        labels[4] = label
        return labels

    cases = [
        case(f"label {label!r} is missing", with_label(label), refused("q004"))
        for label in ("NA", "nan", "NaN", "null", "None", "")
    ]
    cases += [
        case(
            "label NA, --missing-cluster own",
            with_label("NA"),
            Read(means(SCORES, clusters=5)),
            ("--missing-cluster", "own"),
        ),
        case(
            "label nan, --missing-cluster drop",
            with_label("nan"),
            Read(means(np.delete(SCORES, 4, axis=0), clusters=4)),
            ("--missing-cluster", "drop"),
        ),
        case(
            "labels 1, 1.0, 01 and 2 are four clusters",
            topics(labels=("1", "1.0", "01", "2")),
            Read(means(SCORES, clusters=4)),
        ),
        case("labels ' t0' and 't0'", topics(labels=(" t0", "t0", "t1", "t2")), either(means(SCORES), "t0")),
        case("two clusters", topics(labels=("a", "b")), Read(means(SCORES, clusters=2))),
        case("one cluster", topics(labels=("a",)), either(means(SCORES, clusters=1), "cluster")),
        case("every item its own cluster", [f"c{i}" for i in range(40)], Read(means(SCORES, clusters=40))),
        case("a cluster of one item", ["solo", *topics(39, ("a", "b", "c"))], Read(means(SCORES, clusters=4))),
        Case(family, "cluster column absent", audit("w.csv", extra=options), refused("topic"), {"w.csv": wide()}),
        Case(
            family,
            "long table: empty label",
            audit("l.csv", extra=options),
            refused("q001"),
            {
                "l.csv": b"item_id,model,score,topic\n"
                + b"".join(
                    b"q%03d,m%d,%d,%s\n" % (i, k, SCORES[i, k], b"" if i == 1 else b"t%d" % (i % 4))
                    for i in range(40)
                    for k in range(3)
                )
            },
        ),
        Case(
            family,
            "labels with ANSI and bidi characters, terminal",
            ("audit", "w.csv", *FAST, *options),
            Read(no_raw("\x1b", "\u202e")),
            {"w.csv": wide(clusters=topics(labels=("\x1b[31mred", "t\u202eab", "t2", "t3")))},
        ),
    ]
    return cases


# --------------------------------------------------------------------------- 6. score kind
def leaderboard_pass_at_1(items: int = 200, seed: int = 11) -> np.ndarray:
    """A pass@1 leaderboard: 4 sampled models and 6 temperature-0 models.

    The sampled models score k/10 fractions everywhere; the temperature-0 models score 0/1, with a few fractions.
    """
    rng = np.random.default_rng(seed)
    difficulty = rng.random(items)
    columns = []
    for k in range(10):
        skill = 0.3 + 0.05 * k
        p = np.clip(skill + 0.5 - difficulty, 0.02, 0.98)
        if k < 4:
            columns.append(rng.binomial(10, p) / 10)
        else:
            column = (rng.random(items) < p).astype(float)
            few = rng.choice(items, size=4, replace=False)
            column[few] = rng.binomial(10, p[few]) / 10
            columns.append(column)
    return np.column_stack(columns)


def score_kind_cases() -> list[Case]:
    family = "score kind"
    rng = np.random.default_rng(3)
    big = (rng.random((200, 5)) < 0.6).astype(float)
    stray = big.copy()
    stray[120, 3] = 0.5
    board = leaderboard_pass_at_1()
    graded = np.round(rng.random((40, 3)), 2)
    one_half = SCORES.astype(float).copy()
    one_half[:, 2] = 0.5
    return [
        Case(
            family, "stray 0.5 in a 200 x 5 binary table", audit("w.csv"), refused("line 122"), {"w.csv": wide(stray)}
        ),
        Case(
            family,
            "pass@1 leaderboard, mostly 0/1 models",
            audit("w.csv"),
            Read(means(board, binary=False)),
            {"w.csv": wide(board)},
        ),
        Case(
            family, "every score fractional", audit("w.csv"), Read(means(graded, binary=False)), {"w.csv": wide(graded)}
        ),
        Case(
            family,
            "--scores binary on graded scores",
            audit("w.csv", extra=("--scores", "binary")),
            refused("binary"),
            {"w.csv": wide(graded)},
        ),
        Case(
            family,
            "one model all 0.5",
            audit("w.csv"),
            either(means(one_half, binary=False), "m2"),
            {"w.csv": wide(one_half)},
        ),
        Case(
            family,
            "every model constant",
            audit("w.csv"),
            Read(means(np.tile([1, 0, 1], (40, 1)))),
            {"w.csv": wide(np.tile([1, 0, 1], (40, 1)))},
        ),
        Case(
            family,
            "graded N = 1",
            audit("w.csv"),
            either(means(graded[:1], binary=False), "item"),
            {"w.csv": wide(graded[:1])},
        ),
        Case(
            family,
            "graded N = 2, identical models",
            audit("w.csv"),
            either(means(np.tile(graded[:2, :1], (1, 2)), binary=False), "item"),
            {"w.csv": wide(np.tile(graded[:2, :1], (1, 2)))},
        ),
        Case(
            family,
            "graded plain files, one item each",
            ("test", "a.txt", "b.txt", "--json"),
            either(None, "a.txt", "item"),
            {"a.txt": b"0.25\n", "b.txt": b"0.75\n"},
        ),
    ]


# --------------------------------------------------------------------------- 7. JSON documents
def json_cases() -> list[Case]:
    family = "JSON"
    base = jsonl().decode().split("\n")

    def line4(record: str) -> dict[str, bytes]:
        lines = list(base)
        lines[3] = record
        return {"s.jsonl": "\n".join(lines).encode()}

    deep = "[" * 100_000 + "]" * 100_000
    deep_object = '{"a":' * 50_000 + "1" + "}" * 50_000
    cases = [
        Case(family, name, audit("s.jsonl"), expect, line4(record))
        for name, record, expect in [
            (
                "100,000-deep list in a field",
                f'{{"item_id": "q001", "model": "m0", "score": 1, "x": {deep}}}',
                refused("line 4"),
            ),
            (
                "50,000-deep object in a field",
                f'{{"item_id": "q001", "model": "m0", "score": 1, "x": {deep_object}}}',
                refused("line 4"),
            ),
            (
                "5,000-digit integer in a field",
                '{"item_id": "q001", "model": "m0", "score": 1, "x": %s}' % ("7" * 5000),
                refused("line 4"),
            ),
            ("NaN literal in a field", '{"item_id": "q001", "model": "m0", "score": 1, "x": NaN}', refused("line 4")),
            (
                "repeated key in a nested object",
                '{"item_id": "q001", "model": "m0", "score": 1, "x": {"k": 1, "k": 2}}',
                refused("'k'"),
            ),
            ("item id a list", '{"item_id": ["q001"], "model": "m0", "score": 1}', refused("line 4")),
            ("item id an object", '{"item_id": {"q": 1}, "model": "m0", "score": 1}', refused("line 4")),
            ("item id null", '{"item_id": null, "model": "m0", "score": 1}', refused("line 4")),
            ("model a list", '{"item_id": "q001", "model": ["m0"], "score": 1}', refused("line 4")),
            ("model a number", '{"item_id": "q001", "model": 0, "score": 1}', either(None, "line 4", "lacks")),
            ("a string line", '"q001,m0,1"', refused("line 4")),
            (
                "escaped NUL in the model name",
                '{"item_id": "q001", "model": "m\\u00000", "score": 1}',
                either(None, "line 4"),
            ),
        ]
    ]
    records = [
        {"item_id": f"q{i:03d}", "model": f"m{k}", "score": int(v)}
        for i, row in enumerate(SCORES)
        for k, v in enumerate(row)
    ]
    numeric_ids = [
        dict(r, item_id=1 if r["item_id"] == "q001" else (1.0 if r["item_id"] == "q002" else r["item_id"]))
        for r in records
    ]
    cases += [
        Case(
            family,
            "one JSON array instead of lines",
            audit("s.jsonl"),
            refused("line 1", "s.jsonl"),
            {"s.jsonl": json.dumps(records).encode()},
        ),
        Case(
            family,
            "item ids 1 and 1.0",
            audit("s.jsonl"),
            either(means(SCORES), "1.0", "line 4"),
            {"s.jsonl": "".join(json.dumps(r) + "\n" for r in numeric_ids).encode()},
        ),
        Case(
            family,
            "10 MB string field",
            audit("s.jsonl"),
            either(means(SCORES), "line 4"),
            line4(f'{{"item_id": "q001", "model": "m0", "score": {SCORES[1, 0]:d}, "x": "{"y" * 10_000_000}"}}'),
        ),
    ]
    return cases


def inspect_json_cases() -> list[Case]:
    family = "Inspect .json logs"

    def case(name, expect, **changes):
        return Case(family, name, audit("a.json", "b.json"), expect, inspect_json_pair(**changes))

    def samples(change):
        return [
            change(i, {"id": f"s{i:03d}", "epoch": 1, "scores": {"choice": {"value": "C" if v else "I"}}})
            for i, v in enumerate(SCORES[:, 0])
        ]

    return [
        case(
            "100,000-deep nesting in stats",
            refused("a.json"),
            a_text=lambda t: t.replace('{"k": 1}', "[" * 100_000 + "]" * 100_000),
        ),
        case("5,000-digit integer in stats", refused("a.json"), a_text=lambda t: t.replace('{"k": 1}', "9" * 5000)),
        case("NaN literal in stats", refused("a.json"), a_text=lambda t: t.replace('{"k": 1}', "NaN")),
        case(
            "repeated key in eval",
            refused("a.json"),
            a_text=lambda t: t.replace('"task": "t"', '"task": "t", "task": "u"'),
        ),
        case(
            "sample id a list",
            refused("a.json"),
            a_samples=samples(lambda i, s: dict(s, id=[s["id"]]) if i == 3 else s),
        ),
        case(
            "sample id an object",
            refused("a.json"),
            a_samples=samples(lambda i, s: dict(s, id={"x": 1}) if i == 3 else s),
        ),
        case(
            "empty scores of a sample",
            refused("a.json"),
            a_samples=samples(lambda i, s: dict(s, scores={}) if i == 3 else s),
        ),
        case("no samples", refused("a.json"), a_samples=[]),
        case(
            "same model in both logs",
            refused("mockllm/b", "twice", "a.json"),
            a_text=lambda t: t.replace("mockllm/a", "mockllm/b"),
        ),
        Case(
            family,
            "bidi override in the model name, terminal",
            ("audit", "a.json", "b.json", *FAST),
            Read(no_raw("\u202e")),
            inspect_json_pair(a_text=lambda t: t.replace("mockllm/a", "mockllm/\u202ea")),
        ),
    ]


# --------------------------------------------------------------------------- 8. archives
def _bomb_members(member: str, chunks) -> list:
    frame, crc, size = compressed_stream(chunks)
    log = _log(0, "mockllm/x")
    return [zstd_member(name, content) for name, content in log.items() if name != member] + [
        (member, 93, frame, crc, size)
    ]


def archive_cases() -> list[Case]:
    family = "archives"
    log = _log(0, "mockllm/x")
    summary = log["summaries.json"]
    changed = json.dumps(samples_from(1 - SCORES, 0)).encode()

    def empty_lists(megabytes: int):
        return lambda: _bomb_members("summaries.json", [b"["] + [b"[]," * 349_525] * megabytes + [b"[]]"])

    def deep(count: int):
        return lambda: _bomb_members("summaries.json", [b"[" * count, b"]" * count])

    def deflate_header(megabytes: int):
        def members():
            frame, crc, size = compressed_stream([log["header.json"]] + [b" " * (1 << 20)] * megabytes, "deflate")
            return [("header.json", 8, frame, crc, size), zstd_member("summaries.json", summary)]

        return members

    def gzip_bomb(gigabytes: int) -> bytes:
        chunk = gzip.compress(b"1,0\n" * (16 << 20), compresslevel=9, mtime=0)  # 64 MiB of rows per gzip member
        return gzip.compress(b"m0,m1\n", mtime=0) + chunk * (16 * gigabytes)

    def deflated(name, content, crc=None):
        frame, true_crc, size = compressed_stream([content], "deflate")
        return (name, 8, frame, true_crc if crc is None else crc, size)

    whole = lambda: eval_bytes(log)  # noqa: E731
    encrypted = lambda: _flag_encrypted(eval_bytes(log))  # noqa: E731

    def case(name, expect, files, timeout=60.0):
        return Case(
            family, name, audit(*[p for p in files if p.endswith((".eval", ".gz"))]), expect, files, timeout=timeout
        )

    return [
        case(
            "zstd [[],[],...] of 300 MB in summaries.json",
            refused("summaries.json"),
            eval_pair(x_members=empty_lists(300)),
        ),
        case(
            "zstd [[],[],...] of 900 MB in summaries.json",
            refused("summaries.json"),
            eval_pair(x_members=empty_lists(900)),
        ),
        case(
            "zstd 1,000,000-deep list in summaries.json",
            refused("summaries.json"),
            eval_pair(x_members=deep(1_000_000)),
        ),
        case(
            "5,000-digit integer in header.json",
            refused("header.json"),
            eval_pair({"header.json": b'{"eval": {"model": "mockllm/x", "task": "t"}, "n": ' + b"9" * 5000 + b"}"}),
        ),
        case(
            "NaN literal in summaries.json",
            refused("summaries.json"),
            eval_pair({"summaries.json": summary.replace(b'"epoch": 1', b'"epoch": NaN', 1)}),
        ),
        case(
            "deflate header.json padded to 800 MB",
            either(means(SCORES[:, :2], ["mockllm/x", "mockllm/y"]), "header.json"),
            eval_pair(x_members=deflate_header(800)),
        ),
        Case(
            family,
            "gzip CSV inflating to 3 GiB",
            audit("bomb.csv.gz"),
            refused("bomb.csv.gz"),
            {"bomb.csv.gz": lambda: gzip_bomb(3)},
            timeout=60,
        ),
        case(
            "summaries.json twice",
            refused("summaries.json"),
            eval_pair(x_members=[zstd_member(n, c) for n, c in log.items()] + [zstd_member("summaries.json", changed)]),
        ),
        case(
            "header.json twice",
            refused("header.json"),
            eval_pair(
                x_members=[zstd_member(n, c) for n, c in log.items()]
                + [zstd_member("header.json", b'{"eval": {"model": "mockllm/z"}}')]
            ),
        ),
        case("end record cut off", refused("x.eval"), {**eval_pair(), "x.eval": lambda: whole()[:-10]}),
        case(
            "archive cut at 70%",
            refused("x.eval"),
            {**eval_pair(), "x.eval": lambda: whole()[: len(whole()) * 7 // 10]},
        ),
        case(
            "deflate member with a bad CRC",
            refused("summaries.json", "CRC"),
            eval_pair(
                x_members=[zstd_member("header.json", log["header.json"]), deflated("summaries.json", summary, crc=1)]
            ),
        ),
        case(
            "deflate members read right",
            Read(means(SCORES[:, :2], ["mockllm/x", "mockllm/y"])),
            eval_pair(x_members=[deflated(n, c) for n, c in log.items()]),
        ),
        case("encrypted flag set", refused("x.eval", "encrypt", "header.json"), {**eval_pair(), "x.eval": encrypted}),
        case("empty zip", refused("x.eval", "header.json"), {**eval_pair(), "x.eval": zip_archive([])}),
        case("a JSON log named .eval", refused("x.eval"), {**eval_pair(), "x.eval": inspect_json_pair()["a.json"]}),
        case(
            "summaries.json as two zstd frames",
            either(means(SCORES[:, :2], ["mockllm/x", "mockllm/y"]), "summaries.json"),
            eval_pair(
                x_members=[
                    zstd_member("header.json", log["header.json"]),
                    zstd_member(
                        "summaries.json",
                        summary,
                        frame=zstandard.ZstdCompressor().compress(summary[:100])
                        + zstandard.ZstdCompressor().compress(summary[100:]),
                    ),
                ]
            ),
        ),
        Case(
            family,
            "gzip CSV with a bad CRC",
            audit("w.csv.gz"),
            refused("w.csv.gz"),
            {"w.csv.gz": lambda: (lambda g: g[:-8] + bytes([g[-8] ^ 1]) + g[-7:])(gzip.compress(wide(), mtime=0))},
        ),
        Case(
            family,
            "gzip CSV cut short",
            audit("w.csv.gz"),
            refused("w.csv.gz"),
            {"w.csv.gz": lambda: gzip.compress(wide(), mtime=0)[:-30]},
        ),
        Case(
            family,
            "gzip CSV with trailing garbage",
            audit("w.csv.gz"),
            either(means(SCORES), "w.csv.gz"),
            {"w.csv.gz": lambda: gzip.compress(wide(), mtime=0) + b"garbage"},
        ),
    ]


def _line_set(data: bytes, index: int, line: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[index] = line
    return b"\n".join(lines)


def _flag_encrypted(archive: bytes) -> bytes:
    data = bytearray(archive)
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = 0
        while (start := data.find(signature, start)) >= 0:
            data[start + offset] |= 1
            start += 4
    return bytes(data)


# --------------------------------------------------------------------------- 9. Inspect epochs
def epoch_cases() -> list[Case]:
    family = "Inspect epochs"
    second = clean_scores(seed=9)

    def samples(column, epochs_of=lambda i: (1, 2), extra=()):
        out = []
        for i in range(40):
            for epoch in epochs_of(i):
                value = (SCORES if epoch == 1 else second)[i, column]
                out.append(
                    {"id": f"arith-{i:03d}", "epoch": epoch, "scores": {"choice": {"value": "C" if value else "I"}}}
                )
        return out + list(extra)

    def pair(x_samples, y_samples=None, epochs=None):
        return {
            "x.eval": eval_bytes(inspect_log(x_samples, "mockllm/x")),
            "y.eval": eval_bytes(inspect_log(samples(1) if y_samples is None else y_samples, "mockllm/y")),
        }

    def case(name, mode, expect, files):
        return Case(family, name, audit("x.eval", "y.eval", extra=("--epochs", mode)), expect, files)

    average = (SCORES[:, :2] + second[:, :2]) / 2
    uneven = samples(0, lambda i: (1,) if i == 0 else (1, 2))
    repeated = samples(
        0, extra=[{"id": "arith-003", "epoch": 1, "scores": {"choice": {"value": "I" if SCORES[3, 0] else "C"}}}]
    )
    later = samples(0, lambda i: (2, 3))
    return [
        case(
            "two epochs each, mean",
            "mean",
            Read(means(average, ["mockllm/x", "mockllm/y"], binary=False)),
            pair(samples(0)),
        ),
        case("uneven epochs, mean", "mean", refused("arith-000"), pair(uneven)),
        case(
            "uneven epochs, first",
            "first",
            either(means(SCORES[:, :2], ["mockllm/x", "mockllm/y"]), "arith-000"),
            pair(uneven),
        ),
        case("repeated (id, epoch), first", "first", refused("arith-003"), pair(repeated)),
        case("repeated (id, epoch), mean", "mean", refused("arith-003"), pair(repeated)),
        case(
            "epochs 2 and 3 only, first",
            "first",
            either(
                text_lacks(r"mockllm/x[^\n]*kept epoch 1\b", "says it kept epoch 1 of mockllm/x, which has none"),
                "epoch",
            ),
            pair(later),
        ),
        case("two epochs, --epochs error", "error", refused("epoch"), pair(samples(0))),
        case("one log 1 epoch, the other 2, mean", "mean", either(None, "epoch"), pair(samples(0, lambda i: (1,)))),
        case("epoch 0 and 1, first", "first", either(None, "epoch"), pair(samples(0, lambda i: (0, 1)))),
        case(
            "epoch as text '1'",
            "first",
            either(means(SCORES[:, :2], ["mockllm/x", "mockllm/y"]), "epoch"),
            pair([dict(s, epoch="1") for s in samples(0, lambda i: (1,))], samples(1, lambda i: (1,))),
        ),
        case(
            "one sample without an epoch",
            "mean",
            either(None, "arith-005"),
            pair([{k: v for k, v in s.items() if not (k == "epoch" and s["id"] == "arith-005")} for s in samples(0)]),
        ),
    ]


# --------------------------------------------------------------------------- 10. lm-eval folders
def lm_file(name: str) -> bytes:
    return (FIXTURES / "lm_eval" / "hashlm" / name).read_bytes()


@functools.cache
def lm_eval_folders() -> dict[str, Content]:
    root = FIXTURES / "lm_eval" / "hashlm"
    return {
        str(p.relative_to(root)): (lambda p=p: p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file() and "arith_gen" not in p.name
    }


def lm_eval_cases() -> list[Case]:
    family = "lm-eval folders"
    folders = lm_eval_folders()
    samples_a = next(n for n in folders if n.startswith("model-a/samples_arith_mc"))
    results_a = next(n for n in folders if n.startswith("model-a/results"))
    argv = (
        "audit",
        "model-a",
        "model-b",
        "model-c",
        "--task",
        "arith_mc",
        "--metric",
        "acc",
        *FAST,
        "--format",
        "json",
    )

    def lines(change) -> Callable[[], bytes]:
        def build():
            rows = lm_file(samples_a).decode().rstrip("\n").split("\n")
            return ("\n".join(change(rows)) + "\n").encode()

        return build

    def at(index, text):
        def change(rows):
            rows[index] = text(rows[index])
            return rows

        return change

    def case(name, expect, files, args=argv):
        return Case(family, name, args, expect, files)

    without_a = {k: v for k, v in folders.items() if k != samples_a}
    return [
        case("no samples file in model-a", refused("model-a"), without_a),
        case(
            "a second identical samples file",
            either(None, "samples_arith_mc"),
            {**folders, samples_a.replace("2026", "2027"): folders[samples_a]},
        ),
        case(
            "a second, different samples file",
            refused("samples_arith_mc"),
            {**folders, samples_a.replace("2026", "2027"): lines(lambda rows: rows[::-1][:100])},
        ),
        case(
            "the same folder twice",
            refused("model-a", "twice"),
            folders,
            ("audit", "model-a", "model-a", "model-b", "--task", "arith_mc", "--metric", "acc", *FAST),
        ),
        case(
            "no results file", either(None, "results", "model-a"), {k: v for k, v in folders.items() if k != results_a}
        ),
        # The results file is read only to find a group task's subtasks (a task with no samples file of its own); for
        # the plain task arith_mc it is never opened, and the per-item scores come from the samples files alone.
        case(
            "NaN literal in the results file",
            Read(None),
            {**folders, results_a: lambda: lm_file(results_a).replace(b"0.575", b"NaN", 1)},
        ),
        case(
            "5,000-digit integer in a doc",
            refused("line 4"),
            {
                **folders,
                samples_a: lines(at(3, lambda r: r.replace('"doc_id": 3', '"doc_id": 3, "x": ' + "9" * 5000, 1))),
            },
        ),
        case(
            "100,000-deep nesting in a doc",
            refused("line 4"),
            {
                **folders,
                samples_a: lines(
                    at(3, lambda r: r.replace('"doc_id": 3', '"doc_id": 3, "x": ' + "[" * 100_000 + "]" * 100_000, 1))
                ),
            },
        ),
        case(
            "repeated key in a doc",
            refused("line 4"),
            {**folders, samples_a: lines(at(3, lambda r: r.replace('"doc_id": 3', '"doc_id": 3, "doc_id": 3', 1)))},
        ),
        case(
            "doc_id as text",
            either(None, "line 4"),
            {**folders, samples_a: lines(at(3, lambda r: r.replace('"doc_id": 3', '"doc_id": "3"', 1)))},
        ),
        case(
            "last line ends without a line end",
            either(None, "line 200"),
            {**folders, samples_a: lambda: lm_file(samples_a).rstrip(b"\n")},
        ),
        case(
            "last line cut inside a string",
            refused("line 200"),
            {**folders, samples_a: lambda: lm_file(samples_a).rstrip(b"\n")[:-300] + b"\n"},
        ),
        Case(
            family,
            "samples file is a folder",
            argv,
            refused("samples_arith_mc", "model-a"),
            without_a,
            setup=lambda d: (d / samples_a).mkdir(),
        ),
    ]


# --------------------------------------------------------------------------- 11. names
def name_cases() -> list[Case]:
    family = "names"
    import csv
    import io

    def with_names(*names):
        return {"w.csv": wide(names=list(names))}

    def csv_cells_safe(data: bytes) -> bool:
        rows = list(csv.reader(io.StringIO(data.decode())))
        return not any(cell[:1] in ("=", "+", "-", "@") and not _is_number(cell) for row in rows for cell in row)

    def pipes_escaped(stdout: str, folder: Path) -> str | None:
        return "raw | in a Markdown cell" if "a|b" in stdout.replace("\\|", "?") else None

    table = ("audit", "w.csv", *FAST, "--wide")
    return [
        Case(
            family,
            "U+202E in a model name, terminal",
            table,
            Read(no_raw("\u202e")),
            with_names("m0", "evil\u202egnp.exe", "m2"),
        ),
        Case(
            family,
            "U+2028 in a model name, terminal",
            table,
            Read(no_raw("\u2028")),
            with_names("m0", "a\u2028b", "m2"),
        ),
        Case(
            family,
            "ANSI escape in a model name, terminal",
            table,
            Read(no_raw("\x1b")),
            with_names("m0", "\x1b[2J\x1b[31mred", "m2"),
        ),
        Case(
            family, "C1 CSI in a model name, terminal", table, Read(no_raw("\x9b")), with_names("m0", "a\x9b31mb", "m2")
        ),
        Case(
            family,
            "newline in a quoted model name, terminal",
            table,
            Read(text_lacks("a\nb", "raw newline inside a name")),
            {"w.csv": wide(names=["m0", '"a\nb"', "m2"])},
        ),
        Case(
            family,
            "U+202E in a model name, Markdown",
            ("audit", "w.csv", *FAST, "--format", "markdown"),
            Read(no_raw("\u202e")),
            with_names("m0", "evil\u202egnp", "m2"),
        ),
        Case(
            family,
            "pipe in a model name, Markdown",
            ("audit", "w.csv", *FAST, "--format", "markdown"),
            Read(pipes_escaped),
            with_names("m0", "a|b", "m2"),
        ),
        Case(
            family,
            "script tag in a model name, HTML",
            ("audit", "w.csv", *FAST, "--format", "html", "--out", "r.html"),
            Read(
                file_holds("r.html", lambda d: b"<script>alert(1)</script>" not in d, "raw <script> from a model name")
            ),
            with_names("m0", "<script>alert(1)</script>", "m2"),
            writes=("r.html",),
        ),
        Case(
            family,
            "formula =cmd in a model name, CSV output",
            ("audit", "w.csv", *FAST, "--format", "csv", "--out", "o.csv"),
            Read(file_holds("o.csv", csv_cells_safe, "a cell starts with = + - or @ (formula injection)")),
            with_names("m0", "=cmd|' /C calc'!A0", "m2"),
            writes=("o.csv",),
        ),
        Case(
            family,
            "formula @SUM and +1 in model names, CSV output",
            ("audit", "w.csv", *FAST, "--format", "csv", "--out", "o.csv"),
            Read(file_holds("o.csv", csv_cells_safe, "a cell starts with = + - or @ (formula injection)")),
            with_names("@SUM(A1)", "+1+1", "m2"),
            writes=("o.csv",),
        ),
        Case(family, "10,000-character model name", table, Read(), with_names("m0", "x" * 10_000, "m2")),
        Case(
            family,
            "tab in a quoted model name, terminal",
            table,
            either(no_raw("a\tb"), "a"),
            {"w.csv": wide(names=["m0", '"a\tb"', "m2"])},
        ),
        Case(
            family,
            "names differing only in case",
            audit("w.csv"),
            Read(means(SCORES, ["M", "m", "m2"])),
            with_names("M", "m", "m2"),
        ),
    ]


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- 12. output paths
def path_cases() -> list[Case]:
    family = "output paths"
    base = {"w.csv": wide()}
    bad = {"w.csv": replace_cell(wide(), 9, 2, "x")}
    csv_out = ("audit", "w.csv", *FAST, "--format", "csv")
    shipped = SHIPPED / "mmlu_pro_top10.csv.gz"
    accuracies = b"model,accuracy,n\nalpha,0.62,1000\nbeta,0.55,1000\ngamma,0.50,1000\n"

    def case(name, argv, expect, files=base, setup=None, writes=(), guard=()):
        return Case(family, name, argv, expect, dict(files), setup=setup, writes=writes, guard=guard)

    return [
        case("--out is the input", (*csv_out, "--out", "w.csv"), refused("w.csv")),
        case("--out is the input as ./w.csv", (*csv_out, "--out", "./w.csv"), refused("w.csv")),
        case(
            "--out a symlink to the input",
            (*csv_out, "--out", "link.csv"),
            refused("link.csv", "w.csv"),
            setup=lambda d: (d / "link.csv").symlink_to("w.csv"),
        ),
        case(
            "--out a hard link to the input",
            (*csv_out, "--out", "hard.csv"),
            refused("hard.csv", "w.csv"),
            setup=lambda d: os.link(d / "w.csv", d / "hard.csv"),
        ),
        case(
            "--out the shipped example, no INPUT",
            ("audit", *FAST, "--format", "csv", "--out", str(shipped)),
            refused("mmlu_pro_top10"),
            files={},
            guard=(shipped,),
        ),
        case(
            "--out the shipped accuracies",
            (
                "audit-accuracies",
                str(SHIPPED / "mmlu_pro_accuracies.csv"),
                "--format",
                "csv",
                "--out",
                str(SHIPPED / "mmlu_pro_accuracies.csv"),
            ),
            refused("mmlu_pro_accuracies"),
            files={},
            guard=(SHIPPED / "mmlu_pro_accuracies.csv",),
        ),
        case(
            "--out the audit-accuracies input",
            ("audit-accuracies", "acc.csv", "--format", "csv", "--out", "acc.csv"),
            refused("acc.csv"),
            files={"acc.csv": accuracies},
        ),
        case(
            "--out a read-only file",
            (*csv_out, "--out", "ro.csv"),
            refused("ro.csv"),
            files={**base, "ro.csv": b"keep\n"},
            setup=lambda d: os.chmod(d / "ro.csv", 0o444),
        ),
        case("--out in a missing folder", (*csv_out, "--out", "missing/o.csv"), refused("missing")),
        case(
            "--out an existing folder",
            (*csv_out, "--out", "outdir"),
            refused("outdir"),
            setup=lambda d: (d / "outdir").mkdir(),
        ),
        case("--out with a trailing slash", (*csv_out, "--out", "o.csv/"), either(None, "o.csv"), writes=("o.csv",)),
        case("--out /dev/null", (*csv_out, "--out", "/dev/null"), Read()),
        case(
            "--out a symlink to another file",
            (*csv_out, "--out", "link.csv"),
            Read(
                lambda out, d: (
                    None
                    if (d / "link.csv").is_symlink() and (d / "sub/t.csv").read_bytes().startswith(b"model_a")
                    else "the link was replaced or its target not written"
                )
            ),
            setup=lambda d: (
                (d / "sub").mkdir(),
                (d / "sub/t.csv").write_bytes(b"old\n"),
                (d / "link.csv").symlink_to("sub/t.csv"),
            ),
            writes=("sub/t.csv",),
        ),
        case(
            "--out a dangling symlink",
            (*csv_out, "--out", "link.csv"),
            either(None, "link.csv"),
            setup=lambda d: (d / "link.csv").symlink_to("nowhere/t.csv"),
        ),
        case("failing input leaves --out uncreated", (*csv_out, "--out", "o.csv"), refused("line 10"), bad),
        case(
            "failing input leaves an existing --out",
            (*csv_out, "--out", "prev.csv"),
            refused("line 10"),
            {**bad, "prev.csv": b"previous\n"},
        ),
        case(
            "failing input leaves --plot DIR uncreated",
            ("audit", "w.csv", *FAST, "--plot", "plots"),
            refused("line 10"),
            bad,
        ),
        case(
            "failing input leaves --plot p.png uncreated",
            ("audit", "w.csv", *FAST, "--plot", "p.png"),
            refused("line 10"),
            bad,
        ),
        case("--plot the same as --out", (*csv_out, "--out", "o.png", "--plot", "o.png"), refused("o.png")),
        case("--plot the input", ("audit", "w.csv", *FAST, "--plot", "w.csv"), refused("w.csv")),
        case(
            "monitor --plot an input",
            ("monitor", "a.txt", "b.txt", "--plot", "a.txt"),
            refused("a.txt"),
            {"a.txt": plain(SCORES[:, 0]), "b.txt": plain(SCORES[:, 1])},
        ),
        case("parquet without --out", ("audit", "w.csv", *FAST, "--format", "parquet"), refused("--out")),
    ]


# --------------------------------------------------------------------------- 13. streams
def stream_cases() -> list[Case]:
    family = "streams"
    rng = np.random.default_rng(2)
    many = (rng.random((60, 60)) < np.linspace(0.9, 0.3, 60)).astype(int)
    files = {"w.csv": wide(many)}
    small = {"w.csv": wide()}
    table_all = f"{{cli}} audit w.csv {' '.join(FAST)} --pairs all --wide"
    design = "{cli} design --p-a 0.6 --p-b 0.5 --rho 0.3"
    stdout_refusal = ("stdout", "standard output", "No space", "/dev/full")

    def case(name, shell, expect, files=files, writes=()):
        return Case(family, name, (), expect, dict(files), shell=shell, writes=writes)

    def log_kept(out: str, folder: Path) -> str | None:
        text = (folder / "run.log").read_bytes()
        return (
            None
            if text.startswith(b"previous run\n") and b"model_a" in text
            else "run.log lost its first line or got no report"
        )

    return [
        case("audit table | head -1", f"set -o pipefail; {table_all} | head -1", Quiet()),
        case(
            "audit csv | head -1",
            f"set -o pipefail; {{cli}} audit w.csv {' '.join(FAST)} --format csv | head -1",
            Quiet(),
        ),
        case(
            "audit jsonl | head -c 10",
            f"set -o pipefail; {{cli}} audit w.csv {' '.join(FAST)} --format jsonl | head -c 10",
            Quiet(),
        ),
        case(
            "monitor --checkpoints 5000 | head -1",
            "set -o pipefail; {cli} monitor a.txt b.txt --checkpoints 5000 | head -1",
            Quiet(),
            {"a.txt": plain(np.tile(SCORES[:, 0], 200)), "b.txt": plain(np.tile(SCORES[:, 1], 200))},
        ),
        case("audit > /dev/full", f"{table_all} > /dev/full", refused(*stdout_refusal)),
        case("design > /dev/full", f"{design} > /dev/full", refused(*stdout_refusal), {}),
        case(
            "test --json > /dev/full", "{cli} test --b 10 --c 3 --n 50 --json > /dev/full", refused(*stdout_refusal), {}
        ),
        case("audit with stdout closed", f"{table_all} >&-", refused(*stdout_refusal)),
        case("design with stdout closed", f"{design} >&-", refused(*stdout_refusal), {}),
        case(
            "--out /dev/stdout >> run.log",
            f"{{cli}} audit w.csv {' '.join(FAST)} --format csv --out /dev/stdout >> run.log",
            Read(log_kept),
            {**small, "run.log": b"previous run\n"},
            writes=("run.log",),
        ),
        case(
            "--out /dev/stdout into a pipe",
            f"set -o pipefail; {{cli}} audit w.csv {' '.join(FAST)} --format csv --out /dev/stdout | cat",
            Read(lambda out, d: None if out.startswith("model_a") else "the pipe did not get the CSV"),
            small,
        ),
        case(
            "--out /dev/stdout with stdout closed",
            f"{{cli}} audit w.csv {' '.join(FAST)} --format csv --out /dev/stdout >&-",
            refused(*stdout_refusal),
            small,
        ),
        case(
            "--out /dev/full",
            f"{{cli}} audit w.csv {' '.join(FAST)} --format csv --out /dev/full",
            refused("/dev/full"),
            small,
        ),
        case(
            "input from stdin as -",
            f"{{cli}} audit - {' '.join(FAST)} --format json < w.csv",
            either(means(SCORES), "-"),
            small,
        ),
        case(
            "input /dev/stdin",
            f"{{cli}} audit /dev/stdin {' '.join(FAST)} --format json < w.csv",
            either(means(SCORES), "/dev/stdin"),
            small,
        ),
    ]


# --------------------------------------------------------------------------- 14. saved reports for plan report
@functools.cache
def saved_report(summary: bool = False) -> bytes:
    """A report written by the CLI (audit --format json) for plan report to read."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "r.json"
        if summary:
            source = Path(folder) / "acc.csv"
            source.write_bytes(b"model,accuracy,n\nalpha,0.62,1000\nbeta,0.55,1000\ngamma,0.50,1000\n")
            argv = ["audit-accuracies", str(source)]
        else:
            source = Path(folder) / "w.csv"
            source.write_bytes(wide(clusters=topics()))
            argv = ["audit", str(source), "--cluster-column", "topic", *FAST]
        subprocess.run(
            [sys.executable, "-m", "llm_power_verified.cli", *argv, "--format", "json", "--out", str(target)],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(REPOSITORY)},
        )
        return target.read_bytes()


def report_cases() -> list[Case]:
    family = "saved reports"

    def edited(change, summary=False) -> Callable[[], bytes]:
        def build():
            report = json.loads(saved_report(summary))
            change(report)
            return json.dumps(report, indent=2).encode()

        return build

    def texted(change, summary=False) -> Callable[[], bytes]:
        return lambda: change(saved_report(summary).decode()).encode()

    def case(name, content, expect, argv=("plan", "report", "r.json")):
        return Case(family, name, argv, expect, {"r.json": content})

    def set_pair(key, factor):
        return lambda r: r["pairs"][0].__setitem__(key, r["pairs"][0][key] * factor)

    records = lambda out: isinstance(out["plan"]["pairs"], list) and "..." not in json.dumps(out)  # noqa: E731
    return [
        case(
            "clean report, --json has the pairs as records",
            lambda: saved_report(),
            Read(json_holds(records, "plan pairs are not records (printed text)")),
            ("plan", "report", "r.json", "--json"),
        ),
        case("n_items 40 -> 4000", edited(lambda r: r["data"].__setitem__("n_items", 4000)), refused("n_items")),
        case("n_models 3 -> 5", edited(lambda r: r["data"].__setitem__("n_models", 5)), refused("n_models")),
        case("a pair's required_n x 10", edited(set_pair("required_n", 10)), refused("required_n")),
        case(
            "a pair's b count + 5",
            edited(lambda r: r["pairs"][0].__setitem__("b", r["pairs"][0]["b"] + 5)),
            refused("'b'", "b =", " b "),
        ),
        case("a pair's p_a changed", edited(set_pair("p_a", 0.5)), refused("p_a")),
        case("NaN literal for a rho", texted(lambda t: t.replace('"rho": ', '"rho": NaN, "x": ', 1)), refused("NaN")),
        case(
            "Infinity literal for required_n",
            texted(lambda t: t.replace('"required_n": ', '"required_n": Infinity, "x": ', 1)),
            refused("Infinity"),
        ),
        case(
            "n_items key twice",
            texted(lambda t: t.replace('"n_items": 40', '"n_items": 40, "n_items": 400', 1)),
            refused("n_items"),
        ),
        case("pairs key twice", texted(lambda t: t.rstrip().rstrip("}") + ', "pairs": []}'), refused("pairs")),
        case(
            "5,000-digit n_items",
            texted(lambda t: t.replace('"n_items": 40', '"n_items": ' + "4" * 5000, 1)),
            refused("n_items", "5,000 digits"),
        ),
        case("n_items -40", edited(lambda r: r["data"].__setitem__("n_items", -40)), refused("n_items")),
        case("n_items 40.5", edited(lambda r: r["data"].__setitem__("n_items", 40.5)), refused("n_items")),
        case("n_items true", edited(lambda r: r["data"].__setitem__("n_items", True)), refused("n_items")),
        case("cut in half", texted(lambda t: t[: len(t) // 2]), refused("r.json")),
        case(
            "another schema",
            edited(lambda r: r.__setitem__("schema", "llm-power-verified/audit/999")),
            refused("schema"),
        ),
        case("no pairs", edited(lambda r: r.__setitem__("pairs", [])), refused("pairs")),
        case(
            "100,000-deep notes",
            texted(lambda t: t.replace('"notes": []', '"notes": ' + "[" * 100_000 + "]" * 100_000, 1)),
            refused("r.json"),
        ),
        case("model name a list", edited(lambda r: r["pairs"][0].__setitem__("model_a", ["m0"])), refused("model_a")),
        case("accuracies-only report, clean", lambda: saved_report(True), Read()),
        case(
            "accuracies-only report, n tampered", texted(lambda t: t.replace("1000", "100000"), True), either(None, "n")
        ),
        case(
            "accuracies-only report, an accuracy tampered",
            texted(lambda t: t.replace("0.62", "0.92", 1), True),
            either(None, "0.92", "accuracy"),
        ),
    ]


# --------------------------------------------------------------------------- 15. printed numbers and numeric arguments
def printed_number_cases() -> list[Case]:
    family = "numbers printed"
    huge_double = text_lacks(r"\d\.\d+e\+30[0-8]|1\.797\d*e\+308", "a huge double printed where inf is meant")
    rng = np.random.default_rng(4)
    close = (rng.random((200, 3)) < 0.6).astype(int)
    close[:, 1] = close[:, 0]
    close[0, 1], close[1, 1] = 1 - close[0, 0], 1 - close[1, 0]
    if close[0, 0] == close[1, 0]:
        close[1, 0] = 1 - close[1, 0]
        close[1, 1] = 1 - close[1, 0]

    def design(name, args, expect):
        return Case(family, name, ("design", *args), expect)

    def positive_p(out) -> bool:
        return all(row["pvalue"] > 0 for row in out if "bootstrap" in row["method"])

    def finite_n(out) -> bool:
        return out["required_n"] is not None and math.isfinite(out["required_n"])

    return [
        design(
            "--alpha 5e-324",
            ("--p-a", "0.6", "--p-b", "0.5", "--rho", "0.3", "--alpha", "5e-324", "--json"),
            either(json_holds(finite_n, "N* not finite"), "--alpha"),
        ),
        design(
            "--alpha 1e-300",
            ("--p-a", "0.6", "--p-b", "0.5", "--rho", "0.3", "--alpha", "1e-300", "--json"),
            # Below 1e-100 (sequential.confidence.MIN_ALPHA, one floor for every command) --alpha is refused by name.
            refused("--alpha", "1e-100"),
        ),
        design("zero gap prints inf", ("--p-a", "0.5", "--p-b", "0.5", "--rho", "0.3"), Read(huge_double)),
        design(
            "accuracies 1 - 1e-16 and 1e-16",
            ("--p-a", "0.9999999999999999", "--p-b", "1e-16", "--rho", "-1"),
            either(huge_double, "rho", "--p-a"),
        ),
        design(
            "--rho 1 outside the admissible interval", ("--p-a", "0.6", "--p-b", "0.5", "--rho", "1"), refused("rho")
        ),
        design("--rho nan", ("--p-a", "0.6", "--p-b", "0.5", "--rho", "nan"), refused("--rho")),
        design("--alpha nan", ("--p-a", "0.6", "--p-b", "0.5", "--rho", "0.3", "--alpha", "nan"), refused("--alpha")),
        design("--alpha inf", ("--p-a", "0.6", "--p-b", "0.5", "--rho", "0.3", "--alpha", "inf"), refused("--alpha")),
        design("--alpha 0", ("--p-a", "0.6", "--p-b", "0.5", "--rho", "0.3", "--alpha", "0"), refused("--alpha")),
        design(
            "--alpha -0.05", ("--p-a", "0.6", "--p-b", "0.5", "--rho", "0.3", "--alpha", "-0.05"), refused("--alpha")
        ),
        design("--power 1", ("--p-a", "0.6", "--p-b", "0.5", "--rho", "0.3", "--power", "1"), refused("--power")),
        design("--p-a 1", ("--p-a", "1", "--p-b", "0.5", "--rho", "0"), refused("--p-a")),
        design(
            "--n 1e30 items",
            ("--p-a", "0.6", "--p-b", "0.5", "--rho", "0.3", "--n", "1" + "0" * 30),
            either(huge_double, "--n"),
        ),
        design("--b 0 --c 0 --n 10", ("--b", "0", "--c", "0", "--n", "10"), either(huge_double, "--b", "discordant")),
        design("--b with 400 digits", ("--b", "1" * 400, "--c", "3", "--n", "1" * 401), refused("--b")),
        design("--b 1_000", ("--b", "1_000", "--c", "3", "--n", "5000"), either(None, "--b")),
        Case(
            family,
            "bootstrap p of a lopsided table is never 0",
            ("test", "--b", "1000", "--c", "0", "--n", "1000", "--n-resamples", "1000", "--json"),
            Read(json_holds(positive_p, "a bootstrap p-value of 0")),
        ),
        Case(family, "test --b 0 --c 0", ("test", "--b", "0", "--c", "0", "--n", "10"), Read()),
        Case(family, "test --n smaller than b + c", ("test", "--b", "5", "--c", "5", "--n", "3"), refused("--n")),
        Case(family, "test --b -1", ("test", "--b", "-1", "--c", "3"), refused("--b")),
        Case(family, "test --b 1e3", ("test", "--b", "1e3", "--c", "3"), either(None, "--b")),
        Case(
            family,
            "audit: N* bound of a near-zero gap",
            ("audit", "w.csv", "--n-resamples", "200", "--n-cluster-resamples", "0", "--quiet", "--wide"),
            Read(huge_double),
            {"w.csv": wide(close)},
        ),
        Case(family, "audit --seed -1", audit("w.csv", extra=("--seed", "-1")), refused("--seed"), {"w.csv": wide()}),
        Case(
            family,
            "audit --n-resamples 1e9",
            audit("w.csv", extra=("--n-resamples", "1000000000")),
            refused("--n-resamples"),
            {"w.csv": wide()},
        ),
        Case(
            family, "audit --width 0", ("audit", "w.csv", *FAST, "--width", "0"), refused("--width"), {"w.csv": wide()}
        ),
        Case(
            family,
            "audit --columns bogus",
            ("audit", "w.csv", *FAST, "--columns", "bogus"),
            refused("bogus"),
            {"w.csv": wide()},
        ),
        Case(
            family,
            "audit-accuracies --rho-range 1 -1",
            ("audit-accuracies", "acc.csv", "--rho-range", "1", "-1"),
            refused("--rho-range"),
            {"acc.csv": b"model,accuracy,n\nalpha,0.62,1000\nbeta,0.55,1000\n"},
        ),
        Case(
            family,
            "audit-accuracies --rho nan",
            ("audit-accuracies", "acc.csv", "--rho", "nan"),
            refused("--rho"),
            {"acc.csv": b"model,accuracy,n\nalpha,0.62,1000\nbeta,0.55,1000\n"},
        ),
    ]


# --------------------------------------------------------------------------- 16. sizes
def size_cases() -> list[Case]:
    family = "sizes"
    rng = np.random.default_rng(8)

    def many_models() -> bytes:
        scores = (rng.random((3, 20_000)) < 0.5).astype(int)
        return wide(scores)

    def many_items() -> bytes:
        return wide((np.random.default_rng(1).random((200_000, 2)) < [0.6, 0.55]).astype(int))

    base = {"w.csv": wide()}
    return [
        Case(
            family,
            "20,000 models x 3 items",
            ("audit", "w.csv", *FAST, "--mode", "adjacent", "--format", "csv", "--out", "o.csv"),
            either(None, "20,000", "20000", "models"),
            {"w.csv": many_models},
            writes=("o.csv",),
            timeout=90,
        ),
        Case(
            family,
            "200,000 items x 2 models",
            audit("w.csv"),
            Read(lambda out, d: None if _json(out)["data"]["n_items"] == 200_000 else "wrong n_items"),
            {"w.csv": many_items},
            timeout=90,
        ),
        Case(
            family,
            "--workers 1000",
            audit("w.csv", extra=("--workers", "1000")),
            either(means(SCORES), "workers"),
            base,
            timeout=30,
        ),
        Case(family, "--workers 0", audit("w.csv", extra=("--workers", "0")), refused("workers"), base),
        Case(family, "--workers -3", audit("w.csv", extra=("--workers", "-3")), refused("workers"), base),
    ]


# --------------------------------------------------------------------------- 17. warnings
def warning_cases() -> list[Case]:
    family = "warnings"
    graded = np.round(np.random.default_rng(6).random((40, 3)), 2)
    opposite = np.column_stack([SCORES[:, 0], 1 - SCORES[:, 0], SCORES[:, 2]])
    constants = np.column_stack([np.zeros(40, int), np.ones(40, int), SCORES[:, 2]])
    cluster = ("--cluster-column", "topic")
    return [
        Case(
            family,
            "two clusters, terminal report",
            ("audit", "w.csv", *FAST, *cluster),
            Read(),
            {"w.csv": wide(clusters=topics(labels=("a", "b")))},
        ),
        Case(
            family,
            "two clusters with cluster bootstrap",
            ("audit", "w.csv", "--n-resamples", "100", "--n-cluster-resamples", "100", "--quiet", *cluster),
            Read(),
            {"w.csv": wide(clusters=topics(labels=("a", "b")))},
        ),
        Case(
            family,
            "two clusters, graded",
            ("audit", "w.csv", *FAST, *cluster),
            Read(),
            {"w.csv": wide(graded, clusters=topics(labels=("a", "b")))},
        ),
        Case(
            family,
            "graded N = 1, terminal report",
            ("audit", "w.csv", *FAST),
            either(None, "item"),
            {"w.csv": wide(graded[:1])},
        ),
        Case(
            family,
            "graded identical models",
            ("audit", "w.csv", *FAST),
            Read(),
            {"w.csv": wide(np.tile(graded[:, :1], (1, 3)))},
        ),
        Case(
            family,
            "every item discordant",
            ("audit", "w.csv", *FAST, "--n-resamples", "100"),
            Read(),
            {"w.csv": wide(opposite)},
        ),
        Case(family, "models constant 0 and 1", ("audit", "w.csv", *FAST), Read(), {"w.csv": wide(constants)}),
        Case(
            family,
            "one cluster of one item",
            ("audit", "w.csv", *FAST, *cluster),
            Read(),
            {"w.csv": wide(clusters=["solo", *topics(39, ("a", "b"))])},
        ),
        Case(family, "test on one file twice", ("test", "a.txt", "a.txt"), Read(), {"a.txt": plain(SCORES[:, 0])}),
        Case(
            family,
            "monitor graded N = 1",
            ("monitor", "a.txt", "b.txt"),
            either(None, "item", "a.txt"),
            {"a.txt": b"0.25\n", "b.txt": b"0.75\n"},
        ),
        Case(
            family,
            "monitor on one file twice",
            ("monitor", "a.txt", "a.txt"),
            refused("a.txt is given twice"),  # a model compared with itself tells nothing: refused by name
            {"a.txt": plain(SCORES[:, 0])},
        ),
        Case(
            family,
            "plan from two clusters",
            ("plan", "items", "w.csv", "--cluster-column", "topic"),
            Read(),
            {"w.csv": wide(clusters=topics(labels=("a", "b")))},
        ),
    ]


# --------------------------------------------------------------------------- 18. Parquet
def parquet_cases() -> list[Case]:
    family = "Parquet"
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    def table(columns: dict) -> Callable[[], bytes]:
        def build():
            buffer = io.BytesIO()
            pq.write_table(pa.table(columns), buffer)
            return buffer.getvalue()

        return build

    ids = [f"q{i:03d}" for i in range(40)]
    m0, m1 = SCORES[:, 0].tolist(), SCORES[:, 1].tolist()
    labels = [None if i == 4 else f"t{i % 4}" for i in range(40)]

    def case(name, columns, expect, extra=()):
        return Case(family, name, audit("p.parquet", extra=extra), expect, {"p.parquet": table(columns)})

    two = means(SCORES[:, :2])
    return [
        case(
            "bool columns",
            {"item_id": ids, "m0": [bool(v) for v in m0], "m1": [bool(v) for v in m1]},
            either(two, "m0"),
        ),
        case(
            "decimal columns",
            {
                "item_id": ids,
                "m0": pa.array([__import__("decimal").Decimal(v) for v in m0], pa.decimal128(5, 2)),
                "m1": m1,
            },
            either(two, "m0"),
        ),
        case("a list column", {"item_id": ids, "m0": [[v] for v in m0], "m1": m1}, refused("m0")),
        case(
            "zero rows",
            {"item_id": pa.array([], pa.string()), "m0": pa.array([], pa.int64()), "m1": pa.array([], pa.int64())},
            refused("no items", "p.parquet"),
        ),
        case(
            "scores as dictionary strings",
            {"item_id": ids, "m0": pa.array([str(v) for v in m0]).dictionary_encode(), "m1": m1},
            either(two, "m0"),
        ),
        case(
            "timestamp column",
            {"item_id": ids, "m0": pa.array(m0, pa.int64()).cast(pa.timestamp("s")), "m1": m1},
            refused("m0"),
        ),
        case(
            "uint64 above 2**63",
            {"item_id": ids, "m0": pa.array([2**64 - 1, *m0[1:]], pa.uint64()), "m1": m1},
            refused("q000", "m0"),
        ),
        case("float16 scores", {"item_id": ids, "m0": pa.array(np.array(m0, np.float16)), "m1": m1}, either(two, "m0")),
        case(
            "null cluster label",
            {"item_id": ids, "m0": m0, "m1": m1, "topic": labels},
            refused("q004"),
            ("--cluster-column", "topic"),
        ),
    ]


# --------------------------------------------------------------------------- 19. accuracies-only tables
def accuracy_cases() -> list[Case]:
    family = "accuracies (audit-accuracies)"

    def case(name, rows, expect, extra=()):
        return Case(
            family,
            name,
            ("audit-accuracies", "acc.csv", *extra),
            expect,
            {"acc.csv": ("model,accuracy,n\n" + rows).encode()},
        )

    ok = "beta,0.55,1000\ngamma,0.50,1000\n"
    return [
        case("% signs mixed with fractions", "alpha,62%,1000\nbeta,0.55,1000\n", refused("alpha", "beta", "line")),
        case("accuracy 101", "alpha,101,1000\n" + ok, refused("101")),
        case("decimal comma", 'alpha,"62,82",1000\n' + ok, refused("62,82")),
        case("n 0", "alpha,0.62,0\n" + ok, refused("line 2")),
        case("n 1000.5", "alpha,0.62,1000.5\n" + ok, refused("1000.5")),
        case("n 1e30", "alpha,0.62,1" + "0" * 30 + "\n" + ok, either(None, "line 2")),
        case("n 1_000", "alpha,0.62,1_000\n" + ok, refused("1_000")),
        case("accuracy 0_6", "alpha,0_6,1000\n" + ok, refused("0_6")),
        case("model twice", "alpha,0.62,1000\nalpha,0.60,1000\n" + ok, refused("alpha")),
        case("one model", "alpha,0.62,1000\n", refused("two", "one model")),
        case("NaN accuracy", "alpha,NaN,1000\n" + ok, refused("alpha", "line 2")),
        case("accuracy 1e999", "alpha,1e999,1000\n" + ok, refused("line 2")),
        case("negative accuracy", "alpha,-0.1,1000\n" + ok, refused("-0.1")),
        case("model named NA", "NA,0.62,1000\n" + ok, either(None, "line 2")),
        case("different n per model", "alpha,0.62,1000\n" + "beta,0.55,900\n", either(None, "n")),
        case("equal accuracies", "alpha,0.5,1000\nbeta,0.5,1000\n", Read(huge_double_absent())),
        case(
            "rho outside the admissible interval is not printed",
            "alpha,0.99,1000\nbeta,0.02,1000\n",
            Read(rho_c_in_range()),
            ("--format", "json"),
        ),
    ]


def huge_double_absent() -> Check:
    return text_lacks(r"\d\.\d+e\+30[0-8]", "a huge double printed where inf is meant")


def rho_c_in_range() -> Check:
    def check(stdout: str, folder: Path) -> str | None:
        def walk(value, key=""):
            if isinstance(value, dict):
                for k, v in value.items():
                    yield from walk(v, k)
            elif isinstance(value, list):
                for v in value:
                    yield from walk(v, key)
            elif "rho_c" in key and isinstance(value, (int, float)) and not -1 <= value <= 1:
                yield f"{key} = {value}"

        report = _json(stdout)
        if isinstance(report, Exception):
            return f"stdout is not JSON: {report}"
        bad = list(walk(report))
        return f"outside [-1, 1]: {bad[0]}" if bad else None

    return check


# --------------------------------------------------------------------------- 20. plain score files and monitor
def plain_cases() -> list[Case]:
    family = "plain files and monitor"
    a, b = plain(SCORES[:, 0]), plain(SCORES[:, 1])
    pair = {"a.txt": a, "b.txt": b}

    def case(name, argv, expect, files=pair, setup=None):
        return Case(family, name, argv, expect, dict(files), setup=setup)

    return [
        case("one item each", ("test", "a.txt", "b.txt"), either(None, "item"), {"a.txt": b"1\n", "b.txt": b"0\n"}),
        case(
            "a header only",
            ("test", "a.txt", "b.txt"),
            refused("a.txt"),
            {"a.txt": b"model_a\n", "b.txt": b"model_b\n"},
        ),
        case("a header in one file only", ("test", "a.txt", "b.txt"), Read(), {"a.txt": b"model_a\n" + a, "b.txt": b}),
        case("a file is a folder", ("test", "a.txt", "dir"), refused("dir"), setup=lambda d: (d / "dir").mkdir()),
        case("a missing file", ("test", "a.txt", "missing.txt"), refused("missing.txt")),
        case("a FIFO-free /dev/null input", ("test", "a.txt", "/dev/null"), refused("/dev/null")),
        case("monitor --checkpoints 0", ("monitor", "a.txt", "b.txt", "--checkpoints", "0"), refused("--checkpoints")),
        case(
            "monitor --checkpoints 10**9",
            ("monitor", "a.txt", "b.txt", "--checkpoints", "1000000000"),
            either(None, "--checkpoints"),
        ),
        case("monitor --alpha 1", ("monitor", "a.txt", "b.txt", "--alpha", "1"), refused("--alpha")),
        case(
            "monitor --plot in a missing folder",
            ("monitor", "a.txt", "b.txt", "--plot", "missing/p.png"),
            refused("missing"),
        ),
        case(
            "monitor 5,000-digit score",
            ("monitor", "a.txt", "b.txt"),
            refused("a.txt, line 3"),
            {"a.txt": _line_set(a, 2, b"1" * 5000), "b.txt": b},
        ),
        case(
            "test --json on a graded pair",
            ("test", "a.txt", "b.txt", "--json"),
            Read(json_holds(lambda out: all(math.isfinite(r["pvalue"]) for r in out), "non-finite p")),
            {
                "a.txt": plain(np.round(np.random.default_rng(1).random(30), 2)),
                "b.txt": plain(np.round(np.random.default_rng(2).random(30), 2)),
            },
        ),
    ]


# --------------------------------------------------------------------------- 21. files that are not what they seem
def odd_file_cases() -> list[Case]:
    """Sparse 8 GiB files, devices, symlink loops: refused by name, quickly, within the memory limit."""
    family = "odd files"
    gib8 = 8 << 30

    def sparse(name: str, head: bytes = b""):
        def make(folder: Path) -> None:
            with open(folder / name, "wb") as stream:
                stream.write(head)
                stream.truncate(gib8)

        return make

    def link(name: str, target: str):
        return lambda folder: (folder / name).symlink_to(target)

    pair = {"a.txt": plain(SCORES[:, 0])}
    folders = lm_eval_folders()
    samples_a = next(n for n in folders if n.startswith("model-a/samples_arith_mc"))

    def case(name, argv, expect, setup, files=None):
        return Case(family, name, argv, expect, dict(files or {}), setup=setup, timeout=40)

    return [
        case(
            "sparse 8 GiB CSV after a header",
            audit("big.csv"),
            refused("big.csv"),
            sparse("big.csv", b"item_id,m0,m1\nq1,1,0\n"),
        ),
        case("sparse 8 GiB JSON Lines", audit("big.jsonl"), refused("big.jsonl"), sparse("big.jsonl")),
        case("sparse 8 GiB Parquet", audit("big.parquet"), refused("big.parquet"), sparse("big.parquet")),
        case(
            "sparse 8 GiB Inspect .json log",
            audit("big.json", "a.json"),
            refused("big.json"),
            sparse("big.json", b'{"eval": '),
            {"a.json": inspect_json_pair()["a.json"]},
        ),
        case(
            "sparse 8 GiB .eval",
            audit("big.eval", "y.eval"),
            refused("big.eval"),
            sparse("big.eval"),
            {"y.eval": eval_pair()["y.eval"]},
        ),
        case(
            "sparse 8 GiB plain file",
            ("test", "a.txt", "big.txt"),
            refused("big.txt"),
            sparse("big.txt", b"1\n0\n"),
            pair,
        ),
        case(
            "sparse 8 GiB accuracies table",
            ("audit-accuracies", "big.csv"),
            refused("big.csv"),
            sparse("big.csv", b"model,accuracy,n\n"),
        ),
        case(
            "sparse 8 GiB saved report",
            ("plan", "report", "big.json"),
            refused("big.json"),
            sparse("big.json", b'{"schema": '),
        ),
        case(
            "sparse 8 GiB lm-eval samples file",
            ("audit", "model-a", "model-b", "--task", "arith_mc", "--metric", "acc", *FAST),
            refused("samples_arith_mc"),
            sparse(samples_a),
            {k: v for k, v in folders.items() if k != samples_a},
        ),
        case("CSV linked to /dev/zero", audit("w.csv"), refused("w.csv"), link("w.csv", "/dev/zero")),
        case(
            "plain file linked to /dev/zero",
            ("test", "a.txt", "z.txt"),
            refused("z.txt"),
            link("z.txt", "/dev/zero"),
            pair,
        ),
        case("plain file /dev/urandom", ("test", "a.txt", "/dev/urandom"), refused("/dev/urandom"), None, pair),
        case("monitor on /dev/zero", ("monitor", "a.txt", "/dev/zero"), refused("/dev/zero"), None, pair),
        case("audit-accuracies /dev/zero", ("audit-accuracies", "/dev/zero"), refused("/dev/zero"), None),
        case("plan report /dev/zero", ("plan", "report", "/dev/zero"), refused("/dev/zero"), None),
        case(
            "lm-eval samples file linked to /dev/zero",
            ("audit", "model-a", "model-b", "--task", "arith_mc", "--metric", "acc", *FAST),
            refused("samples_arith_mc"),
            link(samples_a, "/dev/zero"),
            {k: v for k, v in folders.items() if k != samples_a},
        ),
        case("symlink loop", audit("loop.csv"), refused("loop.csv"), link("loop.csv", "loop.csv")),
        case("a folder named .csv", audit("d.csv"), refused("d.csv"), lambda folder: (folder / "d.csv").mkdir()),
        case(
            "an input named like an option",
            ("audit", *FAST, "--", "-w.csv"),
            either(None, "-w.csv"),
            None,
            {"-w.csv": wide()},
        ),
        case("upper-case extension .CSV", audit("W.CSV"), either(means(SCORES), "W.CSV"), None, {"W.CSV": wide()}),
        case("CSV without an extension", audit("scores"), either(means(SCORES), "scores"), None, {"scores": wide()}),
    ]


# --------------------------------------------------------------------------- 22. what reaches the terminal
def terminal_cases() -> list[Case]:
    """Control and bidirectional characters from file names, cell values and names never reach the terminal raw."""
    family = "terminal safety"
    raw = no_raw("\x1b", "\x08", "\r", "\u202e", "\x7f")

    def names(*new):
        return {"w.csv": wide(names=list(new))}

    table = ("audit", "w.csv", *FAST, "--wide")
    return [
        Case(
            family,
            "ESC in a score cell, error line",
            audit("w.csv"),
            refused("line 10"),
            {"w.csv": replace_cell(wide(), 9, 2, "\x1b[2J")},
        ),
        Case(
            family,
            "U+202E in a score cell, error line",
            audit("w.csv"),
            refused("line 10"),
            {"w.csv": replace_cell(wide(), 9, 2, "1\u202e0")},
        ),
        Case(
            family,
            "ESC in a file name, error line",
            audit("e\x1b[2J.csv"),
            refused(".csv"),
            {"e\x1b[2J.csv": replace_cell(wide(), 9, 2, "x")},
        ),
        Case(
            family, "ESC in a file name, report", ("audit", "e\x1b[2J.csv", *FAST), Read(raw), {"e\x1b[2J.csv": wide()}
        ),
        Case(
            family,
            "U+202E in a file name, report",
            ("audit", "e\u202egnp.csv", *FAST),
            Read(raw),
            {"e\u202egnp.csv": wide()},
        ),
        Case(
            family,
            "newline in a file name, report",
            ("audit", "a\nb.csv", *FAST),
            Read(text_lacks("a\nb", "raw newline from a file name")),
            {"a\nb.csv": wide()},
        ),
        Case(
            family,
            "CR in a quoted model name, terminal",
            table,
            Read(raw),
            {"w.csv": wide(names=["m0", '"a\rb"', "m2"])},
        ),
        Case(
            family,
            "backspace and DEL in model names, terminal",
            table,
            Read(raw),
            names("m0", "ok\x08\x08\x08bad", "x\x7fy"),
        ),
        Case(
            family,
            "ESC in a model name, Markdown",
            ("audit", "w.csv", *FAST, "--format", "markdown"),
            Read(raw),
            names("m0", "\x1b[31mred", "m2"),
        ),
        Case(
            family,
            "newline in a model name, Markdown",
            ("audit", "w.csv", *FAST, "--format", "markdown"),
            Read(text_lacks(r"a\nb", "raw newline in a Markdown cell")),
            {"w.csv": wide(names=["m0", '"a\nb"', "m2"])},
        ),
        Case(
            family,
            "ESC in a model name, audit-accuracies",
            ("audit-accuracies", "acc.csv"),
            Read(raw),
            {"acc.csv": b"model,accuracy,n\n\x1b[31malpha,0.62,1000\nbeta,0.55,1000\n"},
        ),
        Case(
            family,
            "ESC in a model name, plan items",
            ("plan", "items", "w.csv"),
            Read(raw),
            names("\x1b[31mred", "m1", "m2"),
        ),
        Case(
            family,
            "ESC in an unknown --reference",
            ("audit", "w.csv", *FAST, "--mode", "reference", "--reference", "\x1b[2Jm9"),
            refused("m9"),
            {"w.csv": wide()},
        ),
        Case(
            family,
            "closing script tag in a model name, HTML",
            ("audit", "w.csv", *FAST, "--format", "html", "--out", "r.html"),
            Read(file_holds("r.html", lambda d: b"<img src=x" not in d, "raw markup from a model name")),
            names("m0", "</script><img src=x onerror=alert(1)>", "m2"),
            writes=("r.html",),
        ),
    ]


# --------------------------------------------------------------------------- 23. machine output is strict JSON, plots
# stay in their folder
def output_cases() -> list[Case]:
    family = "machine output"
    zero_gap = SCORES.copy()
    zero_gap[:, 1] = 1 - zero_gap[:, 0]
    zero_gap[:, 2] = zero_gap[:, 0]
    graded = np.tile(np.round(np.random.default_rng(6).random((2, 1)), 2), (1, 3))
    strict = json_holds(lambda out: True, "")

    def jsonl_strict(stdout: str, folder: Path) -> str | None:
        for number, line in enumerate(stdout.splitlines(), 1):
            value = _json(line)
            if isinstance(value, Exception):
                return f"line {number}: {value}"
        return None

    return [
        Case(
            family, "zero gap, identical models: JSON", audit("w.csv"), Read(means(zero_gap)), {"w.csv": wide(zero_gap)}
        ),
        Case(
            family,
            "zero gap, identical models: JSON Lines",
            audit("w.csv", fmt="jsonl"),
            Read(jsonl_strict),
            {"w.csv": wide(zero_gap)},
        ),
        Case(family, "graded N = 2, identical: JSON", audit("w.csv"), either(strict, "item"), {"w.csv": wide(graded)}),
        Case(
            family,
            "design zero gap --json",
            ("design", "--p-a", "0.5", "--p-b", "0.5", "--rho", "0.3", "--json"),
            Read(strict),
        ),
        Case(
            family,
            "design --b 0 --c 0 --n 10 --json",
            ("design", "--b", "0", "--c", "0", "--n", "10", "--json"),
            either(strict, "--b"),
        ),
        Case(family, "test --b 0 --c 0 --json", ("test", "--b", "0", "--c", "0", "--n", "10", "--json"), Read(strict)),
        Case(
            family,
            "test identical files --json",
            ("test", "a.txt", "a.txt", "--json"),
            Read(strict),
            {"a.txt": plain(SCORES[:, 0])},
        ),
        Case(
            family,
            "monitor identical files --json",
            ("monitor", "a.txt", "a.txt", "--json"),
            refused("a.txt is given twice"),
            {"a.txt": plain(SCORES[:, 0])},
        ),
        Case(
            family,
            "plan report --json of a zero gap",
            ("plan", "report", "r.json", "--json"),
            either(strict, "r.json"),
            {"r.json": lambda: _report_of(wide(zero_gap))},
        ),
        Case(
            family,
            "saved report with an infinite N* read back",
            ("plan", "report", "r.json"),
            either(None, "r.json"),
            {"r.json": lambda: _report_of(wide(zero_gap))},
        ),
        Case(
            family,
            "audit-accuracies --format json, equal accuracies",
            ("audit-accuracies", "acc.csv", "--format", "json"),
            Read(strict),
            {"acc.csv": b"model,accuracy,n\nalpha,0.5,1000\nbeta,0.5,1000\n"},
        ),
        Case(
            family,
            "--plot folder with path-like model names",
            ("audit", "w.csv", *FAST, "--plot", "plots"),
            Read(),
            {"w.csv": wide(names=["../../up", "a/b", "..\\c"])},
            writes=("plots/",),
            timeout=60,
        ),
        Case(
            family,
            "--workers 2 gives the same numbers",
            audit("w.csv", extra=("--workers", "2")),
            Read(means(SCORES)),
            {"w.csv": wide()},
            timeout=90,
            memory=16 << 30,
        ),
        # Ctrl-C is tested deterministically in tests/cli/test_interrupt.py (a timer here raced the run's end).
    ]


def _report_of(table: bytes) -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "w.csv").write_bytes(table)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "llm_power_verified.cli",
                "audit",
                "w.csv",
                *FAST,
                "--format",
                "json",
                "--out",
                "r.json",
            ],
            cwd=folder,
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(REPOSITORY)},
        )
        return (Path(folder) / "r.json").read_bytes()


# --------------------------------------------------------------------------- the corpus
def decision_cases() -> list[Case]:
    # Imported here: the module builds on this one's helpers.
    from tests.support.hostile_decisions import decision_cases as build

    return build()


def generation_cases() -> list[Case]:
    # Imported here: the module builds on this one's helpers.
    from tests.support.hostile_generations import generation_cases as build

    return build()


def aggregate_cases() -> list[Case]:
    # Imported here: the module builds on this one's helpers.
    from tests.support.hostile_aggregates import aggregate_cases as build

    return build()


def openai_evals_cases() -> list[Case]:
    # Imported here: the module builds on this one's helpers.
    from tests.support.hostile_openai_evals import openai_evals_cases as build

    return build()


def helm_cases() -> list[Case]:
    # Imported here: the module builds on this one's helpers.
    from tests.support.hostile_helm import helm_cases as build

    return build()


def lighteval_cases() -> list[Case]:
    # Imported here: the module builds on this one's helpers.
    from tests.support.hostile_lighteval import lighteval_cases as build

    return build()


def record_cases() -> list[Case]:
    # Imported here: the module builds on this one's helpers.
    from tests.support.hostile_records import record_cases as build

    return build()


def all_cases() -> list[Case]:
    cases = [
        case
        for build in (
            encoding_cases,
            line_end_cases,
            wide_number_cases,
            plain_number_cases,
            json_number_cases,
            structure_cases,
            cluster_cases,
            score_kind_cases,
            json_cases,
            inspect_json_cases,
            archive_cases,
            epoch_cases,
            lm_eval_cases,
            name_cases,
            path_cases,
            stream_cases,
            report_cases,
            printed_number_cases,
            size_cases,
            warning_cases,
            parquet_cases,
            accuracy_cases,
            plain_cases,
            odd_file_cases,
            terminal_cases,
            output_cases,
            decision_cases,
            lighteval_cases,
            generation_cases,
            aggregate_cases,
            helm_cases,
            openai_evals_cases,
            record_cases,
        )
        for case in build()
    ]
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise ValueError(f"two cases are called {case.id!r}")
        seen.add(case.id)
    return cases
