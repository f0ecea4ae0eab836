"""Hostile inputs read with bounded memory, and refused in one line naming the file (and member or line).

Each small hostile file is built in a temporary folder and run through the
CLI.  The ones that could blow up memory run in a subprocess whose address
space is limited to 1.5 GiB (``RLIMIT_AS``), so that a blow-up fails the
test instead of the machine; the subprocess reports its exit status, its
stderr and its peak resident memory.
"""

from __future__ import annotations

import bz2
import gzip
import json
import os
import re
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import zstandard

from llm_power_verified.cli import main
from llm_power_verified.io import parquet_tables
from llm_power_verified.io import text as text_module
from llm_power_verified.io.errors import InputError
from llm_power_verified.io.table_files import read_table
from llm_power_verified.io.text import MAX_INFLATED_BYTES, read_input_bytes
from llm_power_verified.io.zip_members import MAX_MEMBER_BYTES
from tests.support.damaged import zip_archive, zstd_member

LIMITED = r"""
import contextlib, io, json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))  # 1.5 GiB of address space
from llm_power_verified.cli import main
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
        status = main(json.loads(sys.argv[1]))
    except MemoryError:
        status = "MemoryError"
# VmHWM is this process image's own peak: ru_maxrss is carried across execve, so it would report the (large) pytest
# process that spawned us whenever that was bigger (Linux, getrusage(2) and fs/exec.c setmax_mm_hiwater_rss).
peak_kib = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"status": status, "err": err.getvalue(), "peak_mib": peak_kib // 1024}))
"""
#: Peak resident memory allowed for reading a hostile input (the interpreter with numpy, scipy and pandas is about 170
#: MiB).
PEAK_MIB = 1024


def run_limited(arguments: list[str]) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    result = subprocess.run(
        [sys.executable, "-c", LIMITED, json.dumps(arguments)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=Path(__file__).parents[2],
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def refused_within_memory(arguments: list[str], fragments: list[str]) -> dict:
    report = run_limited(arguments)
    message = report["err"].strip()
    assert report["status"] == 2, report
    assert len(message.splitlines()) == 1 and "Traceback" not in message, message
    for fragment in fragments:
        assert fragment in message, message
    assert report["peak_mib"] < PEAK_MIB, report
    return report


def refused(arguments: list[str], fragments: list[str], capsys) -> str:
    status = main(arguments)
    captured = capsys.readouterr()
    message = captured.err.strip()
    assert status == 2, captured.out[:500]
    assert len(message.splitlines()) == 1 and "Traceback" not in message, message
    for fragment in fragments:
        assert fragment in message, message
    return message


def zstd_stream(piece: bytes, repeats: int, prefix: bytes = b"", suffix: bytes = b"") -> tuple[bytes, int, int]:
    """(zstd frame, CRC-32, size) of ``prefix + piece * repeats + suffix``, compressed without holding the content."""
    compressor, crc, parts = zstandard.ZstdCompressor(level=3).compressobj(), zlib.crc32(prefix), []
    parts.append(compressor.compress(prefix))
    for _ in range(repeats):
        parts.append(compressor.compress(piece))
        crc = zlib.crc32(piece, crc)
    parts += [compressor.compress(suffix), compressor.flush()]
    return b"".join(parts), zlib.crc32(suffix, crc), len(prefix) + len(piece) * repeats + len(suffix)


HEADER = zstd_member("header.json", b'{"eval": {"model": "m/x"}}')


def clean_log(path: Path, model: str) -> Path:
    samples = [{"id": f"q{i}", "epoch": 1, "scores": {"s": {"value": "C" if i % 3 else "I"}}} for i in range(30)]
    path.write_bytes(
        zip_archive(
            [
                zstd_member("header.json", json.dumps({"eval": {"model": model}}).encode()),
                zstd_member("summaries.json", json.dumps(samples).encode()),
            ]
        )
    )
    return path


# --------------------------------------------------------------------------- decompression bombs
def test_zstd_nested_lists_under_the_member_limit(tmp_path):
    """About 100 MiB of ``[[],[],...]`` from a few KiB of zstd: refused by parse_json's memory estimate, not parsed."""
    frame, crc, size = zstd_stream(b"[]," * (1 << 18), 130, prefix=b"[", suffix=b"[]]")
    bomb = tmp_path / "bomb.eval"
    bomb.write_bytes(zip_archive([HEADER, ("summaries.json", 93, frame, crc, size)]))
    assert bomb.stat().st_size < 64 << 10 and size < MAX_MEMBER_BYTES
    report = refused_within_memory(
        ["audit", str(bomb), str(clean_log(tmp_path / "y.eval", "m/y"))],
        ["bomb.eval, member 'summaries.json'", "MiB limit"],
    )
    print("zstd nested lists:", report["peak_mib"], "MiB")


def test_zstd_member_over_the_limit(tmp_path):
    frame, crc, size = zstd_stream(b"[]," * (1 << 18), 200)
    bomb = tmp_path / "big.eval"
    bomb.write_bytes(zip_archive([HEADER, ("summaries.json", 93, frame, crc, size)]))
    report = refused_within_memory(
        ["audit", str(bomb), str(clean_log(tmp_path / "y.eval", "m/y"))],
        ["big.eval, member 'summaries.json'", f"over the {MAX_MEMBER_BYTES:,}-byte limit per member"],
    )
    print("zstd member over the limit:", report["peak_mib"], "MiB")


def test_bzip2_member_that_lies_about_its_size(tmp_path):
    """722 bytes of bzip2 hold 1 GB of zeros; the directory says 4 KiB: decompression stops after one chunk."""
    payload = bz2.compress(bytes(1 << 30))
    bomb = tmp_path / "bz.eval"
    bomb.write_bytes(zip_archive([HEADER, ("summaries.json", 12, payload, 0, 4096)]))
    report = refused_within_memory(
        ["audit", str(bomb), str(clean_log(tmp_path / "y.eval", "m/y"))],
        ["bz.eval, member 'summaries.json': decompresses to more than its declared 4,096 bytes"],
    )
    assert report["peak_mib"] < 400, report
    print("bzip2 bomb:", report["peak_mib"], "MiB")


def test_gzip_bomb_csv(tmp_path):
    """About 2 MiB of gzip inflating to 1.5 GiB of CSV: refused at the inflation limit."""
    rows = b"x,0,1\n" * (1 << 20)
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = (
        [compressor.compress(b"item_id,a,b\n")] + [compressor.compress(rows) for _ in range(256)] + [compressor.flush()]
    )
    bomb = tmp_path / "scores.csv.gz"
    bomb.write_bytes(b"".join(parts))
    assert bomb.stat().st_size < 3 << 20
    report = refused_within_memory(
        ["audit", str(bomb)], ["scores.csv.gz: inflates to more than", f"{MAX_INFLATED_BYTES:,} bytes"]
    )
    print("gzip bomb:", report["peak_mib"], "MiB")


def test_gzip_csv_under_the_limit_reads(tmp_path):
    rng = np.random.default_rng(0)
    lines = ["item_id,a,b"] + [f"q{i},{int(a)},{int(b)}" for i, (a, b) in enumerate(rng.random((400, 2)) < 0.6)]
    path = tmp_path / "scores.csv.gz"
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))
    assert main(["audit", str(path), "--n-resamples", "0", "--format", "json", "--out", str(tmp_path / "r.json")]) == 0


# --------------------------------------------------------------------------- hostile JSON in every reader
def _lm_eval(tmp_path: Path, line: str) -> list[str]:
    folders = []
    for name in ("model-a", "model-b"):
        folder = tmp_path / name
        folder.mkdir()
        records = [json.dumps({"doc_id": i, "filter": "none", "acc": float(i % 2)}) for i in range(10)]
        if name == "model-a":
            records[3] = line
        (folder / "samples_t_2026-01-01T00-00-00.000000.jsonl").write_text("\n".join(records) + "\n")
        folders.append(str(folder))
    return ["audit", *folders, "--task", "t", "--metric", "acc", "--n-resamples", "0"]


HOSTILE_LINES = [
    ("100,000 deep", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("5,000-digit integer", '{"doc_id": ' + "7" * 5000 + ', "acc": 1}', "an integer of 5,000 digits"),
    ("NaN literal", '{"doc_id": 3, "filter": "none", "acc": NaN}', "NaN is not a JSON value"),
    ("repeated key", '{"doc_id": 3, "filter": "none", "acc": 1, "acc": 0}', "key 'acc' appears twice"),
    ("lone surrogate", '{"doc_id": 3, "filter": "\\ud800", "acc": 1}', "lone surrogate"),
    ("doc_id a list", '{"doc_id": [3], "filter": "none", "acc": 1}', "doc_id is [3]"),
]


@pytest.mark.parametrize(
    "line, fragment", [case[1:] for case in HOSTILE_LINES], ids=[case[0] for case in HOSTILE_LINES]
)
def test_lm_eval_line(tmp_path, capsys, line, fragment):
    refused(_lm_eval(tmp_path, line), ["samples_t_2026-01-01T00-00-00.000000.jsonl, line 4", fragment], capsys)


HOSTILE_SUMMARIES = [
    ("100,000 deep", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("5,000-digit integer", b'[{"id": 1, "epoch": ' + b"1" * 5000 + b"}]", "an integer of 5,000 digits"),
    ("NaN literal", b'[{"id": "a", "scores": {"s": {"value": NaN}}}]', "NaN is not a JSON value"),
    ("repeated key", b'[{"id": "a", "id": "b", "scores": {"s": {"value": 1}}}]', "key 'id' appears twice"),
    ("lone surrogate id", b'[{"id": "\\udc80", "scores": {"s": {"value": 1}}}]', "lone surrogate"),
]


@pytest.mark.parametrize(
    "content, fragment", [case[1:] for case in HOSTILE_SUMMARIES], ids=[case[0] for case in HOSTILE_SUMMARIES]
)
def test_inspect_eval_member(tmp_path, capsys, content, fragment):
    path = tmp_path / "x.eval"
    path.write_bytes(zip_archive([HEADER, zstd_member("summaries.json", content)]))
    refused(
        ["audit", str(path), str(clean_log(tmp_path / "y.eval", "m/y"))],
        ["x.eval, member 'summaries.json'", fragment],
        capsys,
    )


@pytest.mark.parametrize(
    "content, fragment", [case[1:] for case in HOSTILE_SUMMARIES], ids=[case[0] for case in HOSTILE_SUMMARIES]
)
def test_inspect_json_log(tmp_path, capsys, content, fragment):
    path = tmp_path / "x.json"
    path.write_bytes(b'{"eval": {"model": "m/x"}, "samples": ' + content + b"}")
    other = tmp_path / "y.json"
    other.write_text(json.dumps({"eval": {"model": "m/y"}, "samples": [{"id": "a", "scores": {"s": {"value": 1}}}]}))
    refused(["audit", str(path), str(other)], ["x.json", fragment], capsys)


def test_parquet_metadata_with_nan_is_refused(tmp_path):
    pyarrow = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from llm_power_verified.io.errors import InputError
    from llm_power_verified.report.machine import METADATA_KEY, read_audit_metadata

    table = pyarrow.table({"a": [1]}).replace_schema_metadata({METADATA_KEY: b'{"alpha": NaN}'})
    pq.write_table(table, tmp_path / "audit.parquet")
    with pytest.raises(InputError, match=r"audit\.parquet, metadata .*: NaN is not a JSON value"):
        read_audit_metadata(tmp_path / "audit.parquet")
    (tmp_path / "not.parquet").write_bytes(b"PAR1 nothing")
    with pytest.raises(InputError, match=re.escape("not.parquet: not a readable Parquet file")):
        read_audit_metadata(tmp_path / "not.parquet")


# --------------------------------------------------------------------------- shapes and workers
def test_a_sample_id_the_size_of_the_member(tmp_path):
    """One sample whose id is a 120 MiB string (a 12 KiB log): refused by the id's length, within the memory bound."""
    frame, crc, size = zstd_stream(
        b"a" * (1 << 20), 120, prefix=b'[{"id": "', suffix=b'", "scores": {"s": {"value": 1}}}]'
    )
    path = tmp_path / "long.eval"
    path.write_bytes(zip_archive([HEADER, ("summaries.json", 93, frame, crc, size)]))
    report = refused_within_memory(
        ["audit", str(path), str(clean_log(tmp_path / "y.eval", "m/y"))],
        ["long.eval, member 'summaries.json'[0]: sample id", "has 125,829,120 characters (at most 4,096)"],
    )
    print("120 MiB sample id:", report["peak_mib"], "MiB")


def test_twenty_thousand_models_are_refused_before_allocating(tmp_path):
    """20,000 models x 3 items (a 120 KB CSV), mode all: about 198 GB; refused at once, naming the linear modes.

    (Mode adjacent now runs in memory linear in the models: tests/leaderboard/test_linear_memory.py.)
    """
    rng = np.random.default_rng(1)
    lines = ["item_id,model,score"] + [
        f"q{i},m{k:05d},{int(v)}" for k in range(20_000) for i, v in enumerate(rng.random(3) < 0.5)
    ]
    path = tmp_path / "long.csv"
    path.write_text("\n".join(lines) + "\n")
    report = refused_within_memory(
        ["audit", str(path), "--mode", "all", "--n-resamples", "0"],
        [
            "auditing 20,000 models x 3 items (mode all) needs about 197.3 GB",
            "fit",
            "mode and family adjacent or reference compute nothing over all pairs above 2,000 models",
        ],
    )
    print("20,000 models:", report["peak_mib"], "MiB")


def test_workers_are_capped(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    path.write_text("item_id,a,b\n" + "".join(f"q{i},{i % 2},{i % 3 // 2}\n" for i in range(50)))
    refused(
        ["audit", str(path), "--workers", "1000"],
        ["workers = 1,000 is more than this machine runs at once: give 1 to"],
        capsys,
    )


# --------------------------------------------------------------------------- whole-file reads: size, kind, pipes
def _sparse(path: Path, head: bytes, size: int = 8 << 30) -> str:
    with open(path, "wb") as stream:
        stream.write(head)
        stream.truncate(size)
    return str(path)


@pytest.mark.parametrize(
    "name, head, command",
    [
        ("big.csv", b"item_id,m0,m1\nq1,1,0\n", ["audit", "{}"]),
        ("big.jsonl", b"", ["audit", "{}"]),
        ("big.txt", b"1\n0\n", ["test", "{a}", "{}"]),
        ("big.csv", b"model,accuracy,n\n", ["audit-accuracies", "{}"]),
        ("big.json", b'{"schema": ', ["plan", "report", "{}"]),
        ("big.json", b'{"eval": ', ["audit", "{}", "{a_log}"]),
    ],
)
def test_sparse_8_gib_file_is_refused_by_its_size(tmp_path, name, head, command):
    """An 8 GiB file is refused by its size before a byte is read, naming size and limit.

    The file is a short header, then zeros.
    """
    path = _sparse(tmp_path / name, head)
    (tmp_path / "a.txt").write_text("1\n0\n")
    a_log = str(clean_log(tmp_path / "a.json", "m/a")) if "{a_log}" in command else ""
    arguments = [part.format(path, a=str(tmp_path / "a.txt"), a_log=a_log) for part in command]
    report = refused_within_memory(arguments, [f"{name}: 8,589,934,592 bytes, more than the", "split the input"])
    print(name, report["peak_mib"], "MiB")


@pytest.mark.parametrize(
    "command",
    [
        ["audit", "{link}"],
        ["test", "{a}", "{link_txt}"],
        ["test", "{a}", "/dev/urandom"],
        ["monitor", "{a}", "/dev/zero"],
        ["plan", "report", "/dev/zero"],
    ],
)
def test_a_device_is_refused_before_it_is_opened(tmp_path, capsys, command):
    (tmp_path / "w.csv").symlink_to("/dev/zero")
    (tmp_path / "z.txt").symlink_to("/dev/zero")
    (tmp_path / "a.txt").write_text("1\n0\n")
    arguments = [
        part.format(link=tmp_path / "w.csv", link_txt=tmp_path / "z.txt", a=tmp_path / "a.txt") for part in command
    ]
    named = {"{link}": "w.csv", "{link_txt}": "z.txt"}.get(command[-1], command[-1])
    refused(arguments, [f"{named}: a device, not a file"], capsys)


def test_a_pipe_is_read_in_chunks_and_refused_past_the_limit(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for payload, limit in ((b"x" * 100, 100), (b"x" * 101, 100)):
        writer = threading.Thread(target=lambda data=payload: fifo.write_bytes(data))
        writer.start()
        try:
            if len(payload) <= limit:
                assert read_input_bytes(fifo, limit) == payload
            else:
                with pytest.raises(InputError, match="pipe: more than 100 bytes, more than the 100-byte limit"):
                    read_input_bytes(fifo, limit)
        finally:
            writer.join()


def test_too_many_lines_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(text_module, "MAX_LINES", 10)
    path = tmp_path / "w.csv"
    path.write_text("m0,m1\n" + "1,0\n" * 10)
    with pytest.raises(InputError, match=re.escape("w.csv: 11 lines, more than the 10 lines")):
        read_table(path)


def test_a_header_of_fifteen_million_columns_is_refused_before_it_is_split(tmp_path):
    """A 30 MB first line of ``,m`` (15 million columns) was split by pandas until 1.1 GB ran out."""
    path = tmp_path / "wide.csv"
    path.write_text("a" + ",m" * 15_000_000 + "\n")
    report = refused_within_memory(
        ["audit", str(path)], ["wide.csv, line 1: 15,000,001 columns in the header, more than the 100,000"]
    )
    print("15M columns:", report["peak_mib"], "MiB")


def test_non_ascii_csv_reads_as_bytes(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text(
        "item_id,modèle_a,modèle_b\n" + "".join(f"é{i},{i % 2},{i % 3 // 2}\n" for i in range(30)), encoding="utf-8"
    )
    assert read_table(path).models == ("modèle_a", "modèle_b")


def test_parquet_is_checked_by_its_footer(tmp_path, monkeypatch):
    pytest.importorskip("pyarrow")
    path = tmp_path / "w.parquet"
    pd.DataFrame({"item_id": [f"q{i}" for i in range(10)], "a": [1.0] * 10, "b": [0.0] * 10}).to_parquet(path)
    # The estimate: 10 ids of 64 bytes plus their text, and 2 x 10 numbers of 8 bytes; about 1 KiB.
    monkeypatch.setattr(parquet_tables, "MAX_PARQUET_ESTIMATE", 512)
    with pytest.raises(
        InputError, match=r"w\.parquet, column 'item_id': 10 rows x 3 columns take about 0 MiB .* than the 0 MiB"
    ):
        read_table(path)
    monkeypatch.setattr(parquet_tables, "MAX_PARQUET_ESTIMATE", 4096)
    assert read_table(path).n_items == 10


def test_standard_input_is_refused_naming_it(tmp_path):
    """``audit /dev/stdin < w.csv``: the format cannot be told from the name."""
    (tmp_path / "w.csv").write_text("m0,m1\n1,0\n")
    with open(tmp_path / "w.csv", "rb") as stdin:
        result = subprocess.run(
            [sys.executable, "-m", "llm_power_verified.cli", "audit", "/dev/stdin"],
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=Path(__file__).parents[2],
        )
    assert result.returncode == 2
    assert "/dev/stdin: a pipe or device (standard input?), whose format cannot be told from its name" in result.stderr
