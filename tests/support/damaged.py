"""The corpus of damaged inputs: one list of cases per format, each a mutation of a clean input and what must happen.

A case is ``(name, mutate, expect)``: ``mutate`` turns the clean input (text,
bytes or a folder, depending on the format) into the damaged one; ``expect``
is either ``Refused(fragment)`` (a one-line error containing ``fragment``) or
``Same()`` (the result equals the clean one), ``SameWith(options)`` (equal when
the named option is given) or ``Differs(check)`` for an accepted input whose
reading is checked by ``check(matrix)``.  ``tests/io/test_damaged_inputs.py`` runs
every case through the CLI entry point and the Python API and counts them.
"""

from __future__ import annotations

import gzip
import json
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import zstandard


@dataclass(frozen=True)
class Refused:
    fragment: str


@dataclass(frozen=True)
class Same:
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Accepted:
    """Read, and ``check(matrix)`` holds (a reading that is right but not equal to the clean one)."""

    check: Callable
    options: dict = field(default_factory=dict)


def clean_scores(items: int = 40, models: int = 3, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = (rng.random((items, models)) < np.linspace(0.8, 0.4, models)).astype(int)
    scores[0] = 1  # no model is constant
    scores[1] = 0
    return scores


def wide_csv(scores: np.ndarray | None = None, *, clusters: bool = True) -> str:
    scores = clean_scores() if scores is None else scores
    header = "item_id," + ",".join(f"m{k}" for k in range(scores.shape[1])) + (",topic" if clusters else "")
    lines = [header]
    for i, row in enumerate(scores):
        lines.append(f"q{i:03d}," + ",".join(str(v) for v in row) + (f",t{i % 4}" if clusters else ""))
    return "\n".join(lines) + "\n"


def long_csv(scores: np.ndarray | None = None) -> str:
    scores = clean_scores() if scores is None else scores
    lines = ["item_id,model,score,topic"]
    for i, row in enumerate(scores):
        for k, value in enumerate(row):
            lines.append(f"q{i:03d},m{k},{value},t{i % 4}")
    return "\n".join(lines) + "\n"


def _replace_line(text: str, index: int, new: str) -> str:
    lines = text.split("\n")
    lines[index] = new
    return "\n".join(lines)


def _cell(text: str, line: int, column: int, value: str) -> str:
    lines = text.split("\n")
    cells = lines[line].split(",")
    cells[column] = value
    lines[line] = ",".join(cells)
    return "\n".join(lines)


def _insert_line(text: str, index: int, new: str) -> str:
    lines = text.split("\n")
    lines.insert(index, new)
    return "\n".join(lines)


def _text(mutate: Callable[[str], str]) -> Callable[[bytes], bytes]:
    return lambda data: mutate(data.decode("utf-8")).encode("utf-8")


# --------------------------------------------------------------------------- wide CSV (bytes -> bytes)
WIDE_CSV = [
    (
        "blank line inside",
        _text(lambda t: _insert_line(t, 7, "")),
        Same(),
    ),  # a table with an item column: blank lines are nothing
    ("blank lines at the end", _text(lambda t: t + "\n\n"), Same()),
    ("UTF-8 byte-order mark", lambda d: b"\xef\xbb\xbf" + d, Same()),
    ("CRLF line ends", lambda d: d.replace(b"\n", b"\r\n"), Same()),
    (
        "repeated model column",
        _text(lambda t: "\n".join(line + "," + line.split(",")[2] for line in t.rstrip("\n").split("\n")) + "\n"),
        Refused("column 'm1' appears twice"),
    ),
    ("empty cluster label", _text(lambda t: _cell(t, 5, 4, "")), Refused("item 'q004' has no cluster label")),
    (
        "empty cluster label, --missing-cluster drop",
        _text(lambda t: _cell(t, 5, 4, "")),
        Accepted(lambda m: m.n_items == 39 and "q004" not in m.item_ids, {"missing_cluster": "drop"}),
    ),
    (
        "empty cluster label, --missing-cluster own",
        _text(lambda t: _cell(t, 5, 4, "")),
        Accepted(lambda m: m.n_items == 40 and len(set(m.clusters)) == 5, {"missing_cluster": "own"}),
    ),
    (
        "item column under another name",
        _text(lambda t: t.replace("item_id,", "question,", 1)),
        Refused(
            "column 'question' holds text (e.g. 'q000'), not scores; if it names the items, pass --item-column question"
        ),
    ),
    (
        "explicit item column missing",
        lambda d: d,
        Refused("no item column 'qid' (columns: item_id, m0, m1, m2, topic); check --item-column"),
    ),
    (
        "stray 2 in a binary column",
        _text(lambda t: _cell(t, 9, 2, "2")),
        Refused("line 10, column 'm1' (item 'q008') has score 2"),
    ),
    ("stray -1", _text(lambda t: _cell(t, 9, 2, "-1")), Refused("has score -1, outside [0, 1]")),
    ("stray 0.5 in a binary file", _text(lambda t: _cell(t, 9, 2, "0.5")), Refused("pass --scores graded")),
    (
        "stray 0.5 with --scores graded",
        _text(lambda t: _cell(t, 9, 2, "0.5")),
        Accepted(lambda m: not m.binary, {"score_kind": "graded"}),
    ),
    ("stray 0.5 with --scores binary", _text(lambda t: _cell(t, 9, 2, "0.5")), Refused("binary scores must be 0 or 1")),
    (
        "text in a score cell",
        _text(lambda t: _cell(t, 9, 2, "yes")),
        Refused("line 10, column 'm1': 'yes' is not a number"),
    ),
    ("NaN text", _text(lambda t: _cell(t, 9, 2, "nan")), Refused("has no score for model 'm1'")),
    (
        "NaN text, --on-missing intersect",
        _text(lambda t: _cell(t, 9, 2, "nan")),
        Accepted(lambda m: m.n_items == 39 and "q008" not in m.item_ids, {"on_missing": "intersect"}),
    ),
    (
        "empty score cell",
        _text(lambda t: _cell(t, 9, 2, "")),
        Refused("line 10 (item 'q008') has no score for model 'm1'"),
    ),
    ("infinite score", _text(lambda t: _cell(t, 9, 2, "inf")), Refused("has score inf; scores must be finite")),
    ("1e400 score", _text(lambda t: _cell(t, 9, 2, "1e400")), Refused("has score inf; scores must be finite")),
    (
        "duplicate item id",
        _text(lambda t: _cell(t, 9, 0, "q003")),
        Refused("item id 'q003' appears twice (line 5 and line 10)"),
    ),
    ("empty item id", _text(lambda t: _cell(t, 9, 0, "")), Refused("line 10, column 'item_id': the item id is empty")),
    (
        "truncated in the last row",
        lambda d: d[: d.rstrip(b"\n").rfind(b",") - 2],
        Refused("line 41: 3 fields where the header has 5"),
    ),
    ("Latin-1 byte", lambda d: d.replace(b"q010", b"q\xe910", 1), Refused("is not UTF-8")),
    ("empty file", lambda d: b"", Refused("the file is empty")),
    ("header only", lambda d: d.split(b"\n")[0] + b"\n", Refused("no items")),
    (
        "row with an extra field",
        _text(lambda t: _replace_line(t, 9, t.split("\n")[9] + ",1")),
        Refused("not a readable CSV table"),
    ),
    (
        "one model column",
        _text(
            lambda t: (
                "\n".join(",".join(line.split(",")[:2] + line.split(",")[-1:]) for line in t.rstrip("\n").split("\n"))
                + "\n"
            )
        ),
        Refused("a paired comparison needs at least two"),
    ),
    (
        "header cell without a name",
        _text(lambda t: t.replace("m2", "", 1)),
        Refused("column 4 of the header has no name"),
    ),
    (
        "rows in another order",
        _text(lambda t: "\n".join([t.split("\n")[0], *t.rstrip("\n").split("\n")[1:][::-1]]) + "\n"),
        Same(),
    ),
    (
        "constant model",
        _text(
            lambda t: (
                "\n".join(
                    [t.split("\n")[0]]
                    + [
                        ",".join([*line.split(",")[:3], "1", *line.split(",")[4:]])
                        for line in t.rstrip("\n").split("\n")[1:]
                    ]
                )
                + "\n"
            )
        ),
        Accepted(lambda m: m.constant_models == ("m2",)),
    ),
]
#: Options that go with particular cases of WIDE_CSV (besides those in Accepted/Same).
WIDE_OPTIONS = {
    "explicit item column missing": {"item_column": "qid"},
    "stray 0.5 with --scores binary": {"score_kind": "binary"},
}


# --------------------------------------------------------------------------- long CSV
def _long_lines(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


LONG_CSV = [
    (
        "repeated (item, model) row",
        _text(lambda t: _insert_line(t, 5, _long_lines(t)[4])),
        Refused("model 'm0' has two results for item 'q001'"),
    ),
    (
        "missing (item, model) row",
        _text(lambda t: "\n".join(line for n, line in enumerate(_long_lines(t)) if n != 7) + "\n"),
        Refused("use --on-missing intersect"),
    ),
    (
        "missing row, --on-missing intersect",
        _text(lambda t: "\n".join(line for n, line in enumerate(_long_lines(t)) if n != 7) + "\n"),
        Accepted(lambda m: m.n_items == 39, {"on_missing": "intersect"}),
    ),
    (
        "conflicting cluster labels",
        _text(lambda t: _cell(t, 5, 3, "t9")),
        Refused("has cluster 't9' here and 't1' in an earlier row"),
    ),
    (
        "empty model name",
        _text(lambda t: _cell(t, 5, 1, "")),
        Refused("line 6, column 'model': the model name is empty"),
    ),
    ("model cell with a trailing space", _text(lambda t: _cell(t, 5, 1, "m1 ")), Same()),
    (
        "model cell with a zero-width space",
        _text(lambda t: _cell(t, 5, 1, "m1\u200b")),
        Refused(
            "line 6, column 'model': model 'm1\\u200b' and 'm1' (line 3) are the same name once format characters "
            "(U+200B) are dropped"
        ),
    ),
    ("empty score", _text(lambda t: _cell(t, 5, 2, "")), Refused("line 6: model 'm1' has no score for item 'q001'")),
    ("blank line", _text(lambda t: _insert_line(t, 5, "")), Same()),
    ("text score", _text(lambda t: _cell(t, 5, 2, "x")), Refused("'x' is not a number")),
    (
        "rows shuffled",
        _text(
            lambda t: (
                "\n".join([_long_lines(t)[0], *sorted(_long_lines(t)[1:], key=lambda line: zlib.crc32(line.encode()))])
                + "\n"
            )
        ),
        Same(),
    ),
]


# --------------------------------------------------------------------------- JSON Lines (long records)
def jsonl(scores: np.ndarray | None = None) -> str:
    scores = clean_scores() if scores is None else scores
    return "".join(
        json.dumps({"item_id": f"q{i:03d}", "model": f"m{k}", "score": int(v)}) + "\n"
        for i, row in enumerate(scores)
        for k, v in enumerate(row)
    )


JSONL = [
    ("truncated last line", lambda d: d[:-15], Refused("not valid JSON")),
    (
        "array line",
        _text(lambda t: _replace_line(t, 3, "[1, 2, 3]")),
        Refused("line 4: a JSON list where an object is expected"),
    ),
    (
        "repeated key",
        _text(lambda t: _replace_line(t, 3, '{"item_id": "q001", "model": "m0", "score": 1, "score": 0}')),
        Refused("key 'score' appears twice"),
    ),
    ("blank line", _text(lambda t: _insert_line(t, 3, "")), Same()),
    (
        "score of the wrong type",
        _text(lambda t: _replace_line(t, 3, '{"item_id": "q001", "model": "m0", "score": "high"}')),
        Refused("'high' is not a number"),
    ),
    ("empty file", lambda d: b"", Refused("the file is empty")),
    ("BOM", lambda d: b"\xef\xbb\xbf" + d, Same()),
]


# --------------------------------------------------------------------------- Parquet (bytes)
def _parquet_bytes(frame) -> bytes:
    import io

    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def parquet_cases(frame):
    """Parquet cases need the clean frame to build variants."""
    import pandas as pd

    with_nan = frame.copy().astype({"m1": float})
    with_nan.loc[4, "m1"] = float("nan")
    as_text = frame.copy().astype({"m0": str})
    duplicated = pd.concat([frame, frame[["m1"]]], axis=1)
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(
        pa.Table.from_arrays(
            [pa.array(frame[c]) for c in duplicated.columns[:-1]] + [pa.array(frame["m1"])],
            names=list(duplicated.columns),
        ),
        buffer,
    )
    return [
        ("truncated file", lambda d: d[: len(d) // 2], Refused("not a readable Parquet file")),
        ("text with a .parquet name", lambda d: b"item_id,m0\nq1,1\n", Refused("not a readable Parquet file")),
        ("missing score", lambda d: _parquet_bytes(with_nan), Refused("has no score for model 'm1'")),
        ("numbers stored as text", lambda d: _parquet_bytes(as_text), Same()),
        ("repeated column", lambda d: buffer.getvalue(), Refused("column 'm1' appears twice")),
        ("list column", lambda d: _parquet_bytes(frame.assign(m1=[[0.0, 1.0]] * len(frame))), Refused("a list<")),
    ]


# --------------------------------------------------------------------------- plain score files (pairs of texts)
def plain_pair(scores: np.ndarray | None = None) -> tuple[str, str]:
    scores = clean_scores() if scores is None else scores
    return tuple("".join(f"{v}\n" for v in scores[:, k]) for k in (0, 1))


def _first(mutate):
    return lambda pair: (mutate(pair[0]), pair[1])


PLAIN = [
    ("blank line inside", _first(lambda t: _insert_line(t, 5, "")), Refused("a.txt, line 6: blank line")),
    ("UTF-8 byte-order mark", _first(lambda t: "\ufeff" + t), Same()),
    ("CRLF line ends", lambda pair: tuple(t.replace("\n", "\r\n") for t in pair), Same()),
    ("stray 2", _first(lambda t: _replace_line(t, 5, "2")), Refused("a.txt, line 6 has score 2, outside [0, 1]")),
    ("stray -1", _first(lambda t: _replace_line(t, 5, "-1")), Refused("has score -1, outside [0, 1]")),
    ("stray 0.5", _first(lambda t: _replace_line(t, 5, "0.5")), Refused("pass --scores graded")),
    (
        "stray 0.5 with --scores graded",
        _first(lambda t: _replace_line(t, 5, "0.5")),
        Accepted(lambda m: not m.binary, {"score_kind": "graded"}),
    ),
    ("two fields on a line", _first(lambda t: _replace_line(t, 5, "1,0")), Refused("this line has several fields")),
    ("different lengths", _first(lambda t: t + "1\n"), Refused("the two files must be aligned item by item")),
    ("nan", _first(lambda t: _replace_line(t, 5, "nan")), Refused("'nan' is not a finite number")),
    ("inf", _first(lambda t: _replace_line(t, 5, "inf")), Refused("'inf' is not a finite number")),
    ("empty file", _first(lambda t: ""), Refused("a.txt: no scores")),
    (
        "header line",
        lambda pair: ("model_a\n" + pair[0], "model_b\n" + pair[1]),
        Accepted(lambda m: "read as a header" in m.notes[0]),
    ),
    (
        "word in the middle",
        _first(lambda t: _replace_line(t, 5, "correct")),
        Refused("a.txt, line 6: 'correct' is not a number"),
    ),
]


# --------------------------------------------------------------------------- lm-eval samples files (text -> text)
def lm_eval_line_cases():
    return [
        ("empty samples file", lambda t: "", Refused("the samples file is empty")),
        ("truncated last line", lambda t: t.rstrip("\n")[:-40], Refused("the last line is cut short")),
        ("missing doc_id", lambda t: _map_record(t, 3, lambda r: r.pop("doc_id")), Refused("line 4: doc_id is None")),
        (
            "missing metric",
            lambda t: _map_record(t, 3, lambda r: r.pop("acc")),
            Refused("line 4: no per-item metric 'acc'"),
        ),
        (
            "array line",
            lambda t: _replace_line(t, 3, "[1, 2]"),
            Refused("line 4: a JSON list where a sample object is expected"),
        ),
        (
            "metric as text",
            lambda t: _map_record(t, 3, lambda r: r.update(acc="1.0")),
            Refused("line 4: metric 'acc' is '1.0'"),
        ),
        ("blank line", lambda t: _insert_line(t, 3, ""), Refused("line 4: blank line in a samples file")),
        (
            "repeated doc_id",
            lambda t: _map_record(t, 3, lambda r: r.update(doc_id=0)),
            Refused("doc_id 0 appears twice for filter 'none' (lines 1 and 4)"),
        ),
        ("lines in another order", lambda t: "\n".join(t.rstrip("\n").split("\n")[::-1]) + "\n", Same()),
        (
            "metric out of range",
            lambda t: _map_record(t, 3, lambda r: r.update(acc=3.0)),
            Refused("has score 3, outside [0, 1]"),
        ),
        (
            "another document under the id",
            lambda t: _map_record(t, 3, lambda r: r.update(doc_hash="0" * 64)),
            Refused("line 4: task 'arith_mc' doc_id 3 has doc_hash 54f871797d96... but model-a's doc_id 3 ("),
        ),
        (
            "doc_hash not text",
            lambda t: _map_record(t, 3, lambda r: r.update(doc_hash=7)),
            Refused("line 4: doc_hash is 7; lm-eval writes a hex digest"),
        ),
        ("doc_hash dropped", lambda t: _map_record(t, 3, lambda r: r.pop("doc_hash")), Same()),
    ]


def _map_record(text: str, index: int, change) -> str:
    lines = text.rstrip("\n").split("\n")
    record = json.loads(lines[index])
    change(record)
    lines[index] = json.dumps(record)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- Inspect .eval archives
_ZSTD_METHOD = 93


def zip_archive(members: list[tuple[str, int, bytes, int, int]]) -> bytes:
    """A minimal zip archive from (name, method, payload, crc32, uncompressed size) members.

    Written by hand because zipfile cannot write zstd (method 93) members; the
    layout is the zip specification's (local headers, central directory, end record).
    """
    body, central = bytearray(), bytearray()
    for name, method, payload, crc, size in members:
        offset = len(body)
        encoded = name.encode()
        body += (
            struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(payload), size, len(encoded), 0)
            + encoded
            + payload
        )
        central += (
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                20,
                20,
                0,
                method,
                0,
                0,
                crc,
                len(payload),
                size,
                len(encoded),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + encoded
        )
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(body), 0)
    return bytes(body + central + end)


def zstd_member(
    name: str, content: bytes, *, declared_size: int | None = None, crc: int | None = None, frame: bytes | None = None
) -> tuple[str, int, bytes, int, int]:
    payload = frame if frame is not None else zstandard.ZstdCompressor().compress(content)
    return (
        name,
        _ZSTD_METHOD,
        payload,
        zlib.crc32(content) if crc is None else crc,
        len(content) if declared_size is None else declared_size,
    )


def inspect_log(
    samples: list[dict], model: str = "mockllm/model-x", *, header: dict | None = None, summaries: object | None = None
) -> dict[str, bytes]:
    header = {"eval": {"model": model, "task": "arith_mc"}} if header is None else header
    return {
        "header.json": json.dumps(header).encode(),
        "summaries.json": json.dumps(samples if summaries is None else summaries).encode(),
    }


def samples_from(scores: np.ndarray, column: int) -> list[dict]:
    return [
        {"id": f"arith-{i:03d}", "epoch": 1, "scores": {"choice": {"value": "C" if v else "I"}}}
        for i, v in enumerate(scores[:, column])
    ]


def frame_declaring(size: int, content: bytes) -> bytes:
    """A zstd frame of ``content`` whose header declares ``size`` content bytes (a 4-byte Frame_Content_Size field).

    zstd itself refuses to write a wrong size, so the frame header (RFC 8878, section 3.1.1.1) is rewritten.
    """
    frame = zstandard.ZstdCompressor(write_content_size=True).compress(content)
    descriptor = frame[4]
    single_segment = bool(descriptor & 0x20)
    dictionary_bytes = (0, 1, 2, 4)[descriptor & 0x03]
    fcs_bytes = (1 if single_segment else 0, 2, 4, 8)[descriptor >> 6]
    window = b"" if single_segment else frame[5:6]
    start = 5 + len(window)
    dictionary = frame[start : start + dictionary_bytes]
    rest = frame[start + dictionary_bytes + fcs_bytes :]
    return frame[:4] + bytes([(descriptor & 0x3F) | (2 << 6)]) + window + dictionary + struct.pack("<I", size) + rest


def eval_bytes(members: dict[str, bytes]) -> bytes:
    return zip_archive([zstd_member(name, content) for name, content in members.items()])


def gzip_bytes(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)
