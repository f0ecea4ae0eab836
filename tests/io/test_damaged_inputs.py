"""Damaged inputs of every format: each is refused in one line naming the problem, or read to the right matrix.

The corpus is in ``tests/support/damaged.py``.  Every case runs through the Python API
(``read_scores`` and the format's reader); refusals also run through the CLI
entry point (exit status 2, one line on stderr, no traceback).  A hypothesis
property mutates a valid wide CSV at random and checks that the result is a
refusal or exactly the matrix the mutation implies.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import zstandard
from hypothesis import given
from hypothesis import strategies as st

from llm_power_verified.cli import main
from llm_power_verified.io import InputError, ScoreMatrix, read_inspect, read_lm_eval, read_score_files, read_scores
from tests.support.damaged import (
    JSONL,
    LONG_CSV,
    PLAIN,
    WIDE_CSV,
    WIDE_OPTIONS,
    Refused,
    Same,
    clean_scores,
    eval_bytes,
    frame_declaring,
    inspect_log,
    jsonl,
    lm_eval_line_cases,
    long_csv,
    parquet_cases,
    plain_pair,
    samples_from,
    wide_csv,
    zip_archive,
    zstd_member,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FLAGS = {
    "score_kind": "--scores",
    "missing_cluster": "--missing-cluster",
    "on_missing": "--on-missing",
    "item_column": "--item-column",
    "cluster_column": "--cluster-column",
}


def _by_item(matrix: ScoreMatrix) -> dict:
    """The matrix as {(item, model): score} plus clusters and kind: equal iff the same data, whatever the order."""
    cells = {
        (item, model): matrix.scores[i, k]
        for i, item in enumerate(matrix.item_ids)
        for k, model in enumerate(matrix.models)
    }
    clusters = None if matrix.clusters is None else dict(zip(matrix.item_ids, matrix.clusters, strict=True))
    return {"cells": cells, "clusters": clusters, "binary": matrix.binary, "models": sorted(matrix.models)}


def _cli_refuses(arguments: list[str], fragment: str, capsys) -> None:
    status = main(arguments)
    captured = capsys.readouterr()
    message = captured.err.strip()
    assert status == 2, captured.out[:500]
    assert len(message.splitlines()) == 1 and "Traceback" not in message
    assert fragment in " ".join(message.split()), message


def _check(expect, read, clean: ScoreMatrix, cli_arguments: list[str] | None, capsys) -> str:
    """Run one case; returns "refused" or "read"."""
    options = dict(getattr(expect, "options", {}))
    if isinstance(expect, Refused):
        with pytest.raises(InputError) as error:
            read(options)
        assert expect.fragment in " ".join(str(error.value).split()), str(error.value)
        if cli_arguments is not None:
            _cli_refuses(
                cli_arguments + [part for key, value in options.items() for part in (FLAGS[key], value)],
                expect.fragment,
                capsys,
            )
        return "refused"
    matrix = read(options)
    if isinstance(expect, Same):
        assert _by_item(matrix) == _by_item(clean)
    else:
        assert expect.check(matrix), matrix.notes
    return "read"


TALLY: dict[str, dict[str, int]] = {}


def _count(format_name: str, outcome: str) -> None:
    TALLY.setdefault(format_name, {"refused": 0, "read": 0})[outcome] += 1


@pytest.mark.parametrize("name, mutate, expect", WIDE_CSV, ids=[case[0] for case in WIDE_CSV])
def test_wide_csv(tmp_path, capsys, name, mutate, expect):
    clean_path, path = tmp_path / "clean.csv", tmp_path / "scores.csv"
    clean_path.write_text(wide_csv())
    path.write_bytes(mutate(wide_csv().encode()))
    extra = WIDE_OPTIONS.get(name, {})
    clean = read_scores(clean_path, cluster_column="topic")

    def read(options):
        return read_scores(path, cluster_column="topic", **{**extra, **options})

    cli = ["audit", str(path), "--cluster-column", "topic", "--n-resamples", "0", "--n-cluster-resamples", "0"]
    cli += [part for key, value in extra.items() for part in (FLAGS[key], value)]
    _count("wide CSV", _check(expect, read, clean, cli, capsys))


@pytest.mark.parametrize("name, mutate, expect", LONG_CSV, ids=[case[0] for case in LONG_CSV])
def test_long_csv(tmp_path, capsys, name, mutate, expect):
    clean_path, path = tmp_path / "clean.csv", tmp_path / "long.csv"
    clean_path.write_text(long_csv())
    path.write_bytes(mutate(long_csv().encode()))
    clean = read_scores(clean_path, cluster_column="topic")
    cli = ["audit", str(path), "--cluster-column", "topic", "--n-resamples", "0", "--n-cluster-resamples", "0"]
    _count(
        "long CSV",
        _check(expect, lambda options: read_scores(path, cluster_column="topic", **options), clean, cli, capsys),
    )


@pytest.mark.parametrize("name, mutate, expect", JSONL, ids=[case[0] for case in JSONL])
def test_json_lines(tmp_path, capsys, name, mutate, expect):
    clean_path, path = tmp_path / "clean.jsonl", tmp_path / "scores.jsonl"
    clean_path.write_text(jsonl())
    path.write_bytes(mutate(jsonl().encode()))
    clean = read_scores(clean_path)
    cli = ["audit", str(path), "--n-resamples", "0", "--n-cluster-resamples", "0"]
    _count("JSON Lines", _check(expect, lambda options: read_scores(path, **options), clean, cli, capsys))


def _parquet_frame() -> pd.DataFrame:
    scores = clean_scores()
    frame = pd.DataFrame(scores, columns=["m0", "m1", "m2"])
    frame.insert(0, "item_id", [f"q{i:03d}" for i in range(len(frame))])
    return frame


PARQUET = parquet_cases(_parquet_frame())


@pytest.mark.parametrize("name, mutate, expect", PARQUET, ids=[case[0] for case in PARQUET])
def test_parquet(tmp_path, capsys, name, mutate, expect):
    clean_path, path = tmp_path / "clean.parquet", tmp_path / "scores.parquet"
    _parquet_frame().to_parquet(clean_path, index=False)
    path.write_bytes(mutate(clean_path.read_bytes()))
    clean = read_scores(clean_path)
    cli = ["audit", str(path), "--n-resamples", "0", "--n-cluster-resamples", "0"]
    _count("Parquet", _check(expect, lambda options: read_scores(path, **options), clean, cli, capsys))


@pytest.mark.parametrize("name, mutate, expect", PLAIN, ids=[case[0] for case in PLAIN])
def test_plain_score_files(tmp_path, capsys, name, mutate, expect):
    clean_a, clean_b = tmp_path / "clean_a.txt", tmp_path / "clean_b.txt"
    path_a, path_b = tmp_path / "a.txt", tmp_path / "b.txt"
    for path, text in zip((clean_a, clean_b), plain_pair(), strict=True):
        path.write_text(text)
    for path, text in zip((path_a, path_b), mutate(plain_pair()), strict=True):
        path.write_bytes(text.encode("utf-8"))
    clean = read_score_files(clean_a, clean_b)

    def read(options):
        matrix = read_score_files(path_a, path_b, **options)
        return ScoreMatrix(
            matrix.scores,
            ("clean_a.txt", "clean_b.txt"),
            matrix.item_ids,
            None,
            matrix.binary,
            matrix.source,
            matrix.notes,
        )

    clean = ScoreMatrix(clean.scores, ("clean_a.txt", "clean_b.txt"), clean.item_ids, None, clean.binary)
    _count("plain score files", _check(expect, read, clean, ["test", str(path_a), str(path_b)], capsys))


def test_monitor_refuses_graded_files_declared_binary(tmp_path, capsys):
    path_a, path_b = tmp_path / "a.txt", tmp_path / "b.txt"
    path_a.write_text("0.5\n0.25\n1\n0\n")
    path_b.write_text("1\n0\n1\n0\n")
    _cli_refuses(["monitor", str(path_a), str(path_b), "--scores", "binary"], "binary scores must be 0 or 1", capsys)


def test_monitor_refuses_a_binary_file_with_a_stray_value(tmp_path, capsys):
    """A 0/1 file with one stray value looks like damage.

    --scores auto (the default) reads graded files as graded, but not such a file.
    """
    path_a, path_b = tmp_path / "a.txt", tmp_path / "b.txt"
    path_a.write_text("".join(f"{k % 2}\n" for k in range(99)) + "0.5\n")
    path_b.write_text("".join(f"{(k // 2) % 2}\n" for k in range(100)))
    _cli_refuses(["monitor", str(path_a), str(path_b)], "0.5", capsys)


def _hashlm(tmp_path: Path) -> list[Path]:
    folders = []
    for name in ("model-a", "model-b", "model-c"):
        shutil.copytree(FIXTURES / "lm_eval" / "hashlm" / name, tmp_path / name)
        folders.append(tmp_path / name)
    return folders


LM_EVAL = lm_eval_line_cases()


@pytest.mark.parametrize("name, mutate, expect", LM_EVAL, ids=[case[0] for case in LM_EVAL])
def test_lm_eval_samples_files(tmp_path, capsys, name, mutate, expect):
    clean = read_lm_eval(sorted((FIXTURES / "lm_eval" / "hashlm").iterdir()), task="arith_mc", metric="acc")
    folders = _hashlm(tmp_path)
    samples = next(folders[0].glob("samples_arith_mc_*.jsonl"))
    samples.write_text(mutate(samples.read_text()))
    cli = ["audit", *map(str, folders), "--task", "arith_mc", "--metric", "acc", "--n-resamples", "0"]
    _count(
        "lm-eval folders",
        _check(
            expect, lambda options: read_lm_eval(folders, task="arith_mc", metric="acc", **options), clean, cli, capsys
        ),
    )


def test_lm_eval_damaged_results_file(tmp_path, capsys):
    folders = []
    for name in ("model-a", "model-b"):
        shutil.copytree(FIXTURES / "lm_eval" / "hashlm_by_subject" / name, tmp_path / name)
        folders.append(tmp_path / name)
    results = next(folders[0].glob("results_*.json"))
    results.write_text(results.read_text()[:200])
    with pytest.raises(InputError, match=r"results_.*json: not valid JSON .* at line "):
        read_lm_eval(folders, task="arith_mc_by_subject", metric="acc")
    _cli_refuses(
        ["audit", *map(str, folders), "--task", "arith_mc_by_subject", "--metric", "acc"], "not valid JSON", capsys
    )
    _count("lm-eval folders", "refused")


# --------------------------------------------------------------------------- Inspect
def _logs(scores: np.ndarray) -> tuple[dict, dict]:
    return inspect_log(samples_from(scores, 0), "mockllm/x"), inspect_log(samples_from(scores, 1), "mockllm/y")


def _members(log: dict[str, bytes]) -> list:
    return [zstd_member(name, content) for name, content in log.items()]


def _replace(log: dict[str, bytes], name: str, member) -> list:
    return [member if existing == name else zstd_member(existing, content) for existing, content in log.items()]


def _inspect_cases():
    scores = clean_scores()
    log, _ = _logs(scores)
    summary = log["summaries.json"]
    records = json.loads(summary)
    flipped = bytearray(zstandard.ZstdCompressor().compress(summary))
    flipped[len(flipped) // 2] ^= 0x40
    no_id = [dict(records[0], id=None), *records[1:]]
    letter = [dict(records[0], scores={"choice": {"value": "X"}}), *records[1:]]
    shuffled = list(reversed(records))

    def archive(members):
        return lambda: zip_archive(members)

    def logged(**changes):
        return lambda: eval_bytes({**log, **changes})

    stored_bad_crc = ("summaries.json", 0, summary, 12345, len(summary))
    return [
        (
            "CRC mismatch in a zstd member",
            archive(_replace(log, "summaries.json", zstd_member("summaries.json", summary, crc=12345))),
            Refused("CRC-32 mismatch"),
        ),
        (
            "flipped byte in compressed data",
            archive(_replace(log, "summaries.json", zstd_member("summaries.json", summary, frame=bytes(flipped)))),
            Refused("member 'summaries.json'"),
        ),
        (
            "frame declares 3 GB",
            archive(
                _replace(
                    log,
                    "summaries.json",
                    zstd_member("summaries.json", summary, frame=frame_declaring(3 << 30, summary)),
                )
            ),
            Refused("the zstd frame declares 3,221,225,472 bytes but the zip directory says"),
        ),
        (
            "directory declares 3 GB",
            archive(_replace(log, "summaries.json", zstd_member("summaries.json", summary, declared_size=3 << 30))),
            Refused("over the 134,217,728-byte limit per member"),
        ),
        (
            "decompresses past its declared size",
            archive(
                _replace(
                    log,
                    "summaries.json",
                    zstd_member(
                        "summaries.json",
                        summary,
                        declared_size=len(summary) - 10,
                        frame=zstandard.ZstdCompressor(write_content_size=False).compress(summary),
                    ),
                )
            ),
            Refused("decompresses to more than its declared"),
        ),
        (
            "unsupported compression method",
            archive(_replace(log, "summaries.json", ("summaries.json", 99, summary, 0, len(summary)))),
            Refused("unsupported zip compression method 99"),
        ),
        (
            "stored member with a bad CRC",
            archive(_replace(log, "summaries.json", stored_bad_crc)),
            Refused("damaged member"),
        ),
        ("no header.json", archive([zstd_member("summaries.json", summary)]), Refused("no member 'header.json'")),
        ("header without eval.model", logged(**{"header.json": b'{"eval": {}}'}), Refused("no 'eval.model'")),
        (
            "summaries not a list",
            logged(**{"summaries.json": b'{"a": 1}'}),
            Refused("where a list of samples is expected"),
        ),
        ("summaries not JSON", logged(**{"summaries.json": summary[:-7]}), Refused("not valid JSON")),
        (
            "sample without an id",
            logged(**{"summaries.json": json.dumps(no_id).encode()}),
            Refused("sample id is None"),
        ),
        (
            "unknown score letter",
            logged(**{"summaries.json": json.dumps(letter).encode()}),
            Refused("score 'X' is not a number or one of C/I/P/N"),
        ),
        (
            "truncated archive",
            lambda: eval_bytes(log)[: len(eval_bytes(log)) // 2],
            Refused("not a readable .eval archive"),
        ),
        ("not a zip", lambda: b"not a zip at all", Refused("not a readable .eval archive")),
        ("samples in another order", logged(**{"summaries.json": json.dumps(shuffled).encode()}), Same()),
    ]


INSPECT = _inspect_cases()


@pytest.mark.parametrize("name, build, expect", INSPECT, ids=[case[0] for case in INSPECT])
def test_inspect_eval(tmp_path, capsys, name, build, expect):
    log_x, log_y = _logs(clean_scores())
    clean_x, clean_y, path_x, path_y = (tmp_path / f"{stem}.eval" for stem in ("clean_x", "clean_y", "x", "y"))
    clean_x.write_bytes(eval_bytes(log_x))
    clean_y.write_bytes(eval_bytes(log_y))
    shutil.copy(clean_y, path_y)
    path_x.write_bytes(build())
    clean = read_inspect([clean_x, clean_y])
    cli = ["audit", str(path_x), str(path_y), "--n-resamples", "0"]
    _count(
        "Inspect .eval", _check(expect, lambda options: read_inspect([path_x, path_y], **options), clean, cli, capsys)
    )


def test_genuine_eval_with_a_flipped_byte_is_refused(tmp_path, capsys):
    source = sorted((FIXTURES / "inspect" / "eval").glob("*.eval"))
    with zipfile.ZipFile(source[0]) as archive:
        info = archive.getinfo("summaries.json")
    data = bytearray(source[0].read_bytes())
    name_length, extra_length = np.frombuffer(
        bytes(data[info.header_offset + 26 : info.header_offset + 30]), dtype="<u2"
    )
    start = info.header_offset + 30 + int(name_length) + int(extra_length)
    data[start + info.compress_size // 2] ^= 0x01
    damaged = tmp_path / source[0].name
    damaged.write_bytes(bytes(data))
    with pytest.raises(InputError, match=re.escape("member 'summaries.json'")):
        read_inspect([damaged, source[1]])
    _cli_refuses(["audit", str(damaged), str(source[1])], "member 'summaries.json'", capsys)
    _count("Inspect .eval", "refused")


@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda text: text[: len(text) // 2], "not valid JSON"),
        (lambda text: json.dumps({k: v for k, v in json.loads(text).items() if k != "samples"}), "no 'samples' list"),
        (lambda text: text.replace('"value": "C"', '"value": NaN', 1), "NaN is not a JSON value"),
    ],
    ids=["truncated", "no samples", "NaN score"],
)
def test_inspect_json(tmp_path, capsys, change, fragment):
    source = next((FIXTURES / "inspect" / "json").glob("*.json"))
    damaged = tmp_path / source.name
    damaged.write_text(change(source.read_text()))
    other = tmp_path / "other.json"
    other.write_text(source.read_text().replace("mockllm/model-a", "mockllm/model-z"))
    with pytest.raises(InputError) as error:
        read_inspect([damaged, other])
    assert fragment in str(error.value)
    _cli_refuses(["audit", str(damaged), str(other)], fragment, capsys)
    _count("Inspect .json", "refused")


BOMB = r"""
import sys, zlib, zstandard
sys.path.insert(0, sys.argv[2])
from tests.support.damaged import zip_archive, zstd_member
compressor = zstandard.ZstdCompressor(level=1).compressobj()
zeros = bytes(1 << 20)
# 1 GiB of zeros, no declared size
frame = b"".join(compressor.compress(zeros) for _ in range(1024)) + compressor.flush()
with open(sys.argv[1], "wb") as stream:
    stream.write(zip_archive([zstd_member("header.json", b'{"eval": {"model": "m"}}'),
                              ("summaries.json", 93, frame, 0, 4096)]))
def status(key):  # kiB; VmHWM is this image's own peak (ru_maxrss is carried across execve from the spawning process)
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith(key + ":"))
from llm_power_verified.io import InputError, read_inspect
with open("/proc/self/clear_refs", "w") as stream:
    stream.write("5")  # reset VmHWM to the current resident size (Linux >= 4.0, proc(5))
before = status("VmRSS")
try:
    read_inspect([sys.argv[1], sys.argv[1]])
except InputError as error:
    print(str(error))
print((status("VmHWM") - before) // 1024)
"""


def test_zstd_bomb_is_refused_with_bounded_memory(tmp_path):
    """A member that inflates to 1 GiB while the directory says 4 KiB stops after one chunk."""
    result = subprocess.run(
        [sys.executable, "-c", BOMB, str(tmp_path / "bomb.eval"), str(Path(__file__).parents[2])],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    message, grown_mb = result.stdout.strip().splitlines()
    assert "decompresses to more than its declared 4,096 bytes" in message
    assert int(grown_mb) < 100, f"memory grew by {grown_mb} MB while reading the bomb"
    _count("Inspect .eval", "refused")


# --------------------------------------------------------------------------- hypothesis: random damage to a wide CSV
MUTATIONS = st.one_of(
    st.tuples(st.just("blank"), st.integers(1, 40)),
    st.tuples(st.just("duplicate"), st.integers(1, 40)),
    st.tuples(
        st.just("cell"),
        st.integers(1, 40),
        st.integers(1, 3),
        st.sampled_from(["", "x", "2", "-1", "nan", "inf", "0.5", "1e400", " ", "1.0.0", "+", "--1"]),
    ),
    st.tuples(st.just("truncate"), st.integers(0, 10_000)),
    st.tuples(st.just("permute"), st.permutations(list(range(40)))),
    st.tuples(st.just("bom")),
    st.tuples(st.just("crlf")),
)


@given(mutation=MUTATIONS)
def test_random_damage_is_refused_or_read_exactly(tmp_path_factory, mutation):
    folder = tmp_path_factory.mktemp("mutation")
    scores = clean_scores()
    text = wide_csv(scores, clusters=False)
    lines = text.rstrip("\n").split("\n")
    expected_rows: list[int] | None = list(range(40))
    kind = mutation[0]
    if kind == "blank":
        lines.insert(mutation[1], "")  # after the header of a table with an item column: a blank line is nothing
    elif kind == "duplicate":
        lines.insert(mutation[1], lines[mutation[1]])
        expected_rows = None
    elif kind == "cell":
        _, line, column, value = mutation
        cells = lines[line].split(",")
        cells[column] = value
        lines[line] = ",".join(cells)
        expected_rows = None
    elif kind == "permute":
        lines = [lines[0]] + [lines[1 + i] for i in mutation[1]]
    data = ("\n".join(lines) + "\n").encode()
    if kind == "truncate":
        data = data[: mutation[1] % (len(data) + 1)]
        kept = data.decode().split("\n")
        if kept[-1] == "":
            kept.pop()
        # A cut at a line end leaves a shorter valid table (indistinguishable from one); any other cut must be refused.
        whole = (
            len(kept) > 1
            and kept[0] == lines[0]
            and all(len(row.split(",")) == 4 and all(row.split(",")) for row in kept[1:])
        )
        expected_rows = list(range(len(kept) - 1)) if whole else None
    elif kind == "bom":
        data = b"\xef\xbb\xbf" + data
    elif kind == "crlf":
        data = data.replace(b"\n", b"\r\n")
    path = folder / "scores.csv"
    path.write_bytes(data)
    try:
        matrix = read_scores(path)
    except InputError as error:
        assert str(path) in str(error) and "\n" not in str(error)
        return
    assert expected_rows is not None, f"{mutation} was read instead of refused"
    clean = read_scores(
        pd.DataFrame(scores[expected_rows], columns=["m0", "m1", "m2"]).assign(
            item_id=[f"q{i:03d}" for i in expected_rows]
        )
    )
    assert _by_item(matrix) == _by_item(clean)


def test_tally_of_damaged_inputs(capsys):
    """Prints the count of cases per format (run last in this module); every case is either refused or read."""
    total = {"refused": 0, "read": 0}
    for counts in TALLY.values():
        for key in total:
            total[key] += counts[key]
    with capsys.disabled():
        print("\ndamaged inputs:", json.dumps(TALLY), "total", json.dumps(total))
    if os.environ.get("PYTEST_XDIST_WORKER") is None and TALLY:
        assert total["refused"] > 0 and total["read"] > 0
