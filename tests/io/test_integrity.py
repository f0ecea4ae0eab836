"""Output integrity (the one writer, escaping), exact counts beyond 2^24, argument checks and no leaked warnings."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_power_verified.cli import main
from llm_power_verified.io import (
    InputError,
    OutputError,
    check_outputs,
    from_array,
    read_table,
    write_table,
    write_text,
)
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.leaderboard.contingency import BLOCK_ROWS, both_correct_counts
from llm_power_verified.report import render


def _cli(*arguments: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llm_power_verified.cli", *arguments], capture_output=True, text=True, timeout=300, **kwargs)


# --------------------------------------------------------------------------- the writer
def test_symlink_is_followed_and_stays_a_link(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


def test_fifo_is_written_directly_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    write_text(fifo, "through the pipe")
    reader.join(timeout=30)
    assert received == ["through the pipe"] and stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_full_device_is_an_error_and_is_not_replaced():
    before = os.stat("/dev/full")
    with pytest.raises(OutputError, match="cannot write /dev/full: No space left on device"):
        write_text("/dev/full", "x" * 10)
    after = os.stat("/dev/full")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


def test_new_files_follow_the_umask_and_existing_keep_their_mode(tmp_path):
    script = ("import os, sys; os.umask(0o027); from llm_power_verified.io import write_text; "
              "write_text(sys.argv[1], 'x'); print(oct(os.stat(sys.argv[1]).st_mode & 0o777))")
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path / "new.txt")], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "0o640"
    existing = tmp_path / "existing.txt"
    existing.write_text("old")
    existing.chmod(0o604)
    write_text(existing, "new")
    assert stat.S_IMODE(existing.stat().st_mode) == 0o604 and existing.read_text() == "new"


SLOW_WRITE = r"""
import os, signal, sys, time
from llm_power_verified.io import output
# Python's own SIGINT handling, as in a terminal: a test run started as a background job inherits SIGINT ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)
real_fsync = os.fsync
def slow_fsync(fd):
    print("writing", flush=True)
    time.sleep(60)
os.fsync = slow_fsync
output.write_bytes(sys.argv[1], b"x" * 1000)
"""


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_signal_during_a_write_leaves_no_temporary_file(tmp_path, number):
    target = tmp_path / "report.md"
    target.write_text("previous report")
    with subprocess.Popen([sys.executable, "-c", SLOW_WRITE, str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        assert process.stdout.readline().strip() == "writing"
        assert any(path.name.endswith(".tmp") for path in tmp_path.iterdir())
        process.send_signal(number)
        process.communicate(timeout=30)
    assert process.returncode != 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.md"] and target.read_text() == "previous report"


def test_an_ignored_sigint_stays_ignored_and_the_write_completes(tmp_path):
    target = tmp_path / "report.md"
    target.write_text("previous report")
    script = SLOW_WRITE.replace("signal.default_int_handler", "signal.SIG_IGN").replace("time.sleep(60)", "time.sleep(2); real_fsync(fd)")
    with subprocess.Popen([sys.executable, "-c", script, str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        assert process.stdout.readline().strip() == "writing"
        process.send_signal(signal.SIGINT)
        _, errors = process.communicate(timeout=60)
    assert process.returncode == 0, errors
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.md"] and target.read_bytes() == b"x" * 1000


def test_outputs_are_checked_before_any_work(tmp_path):
    table = tmp_path / "scores.csv"
    table.write_text("item_id,a,b\nq1,1,0\nq2,0,0\nq3,1,1\n")
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(OutputError, match="would overwrite an input"):
        check_outputs({"--out": table}, [table])
    with pytest.raises(OutputError, match="--plot .* and --out name the same file"):
        check_outputs({"--out": tmp_path / "r.md", "--plot": tmp_path / "r.md"}, [table])
    with pytest.raises(OutputError, match="is a folder"):
        check_outputs({"--out": folder}, [table])
    with pytest.raises(OutputError, match="does not exist"):
        check_outputs({"--out": tmp_path / "missing" / "r.md"}, [table])
    link = tmp_path / "link.csv"
    link.symlink_to(table)
    with pytest.raises(OutputError, match="would overwrite an input"):
        check_outputs({"--out": link}, [table])
    started = time.perf_counter()
    result = _cli("audit", str(table), "--out", str(tmp_path / "same.png"), "--plot", str(tmp_path / "same.png"))
    assert result.returncode == 2 and "name the same file" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "same.png").exists() and time.perf_counter() - started < 60


# --------------------------------------------------------------------------- escaping
HOSTILE = ["=HYPERLINK(\"http://x\")", "a|b\nc", "<script>alert(1)</script>", "+1", "-cmd", "@sum", "\tTab", "esc\x1b[31m"]


def _hostile_result():
    rng = np.random.default_rng(3)
    scores = (rng.random((300, len(HOSTILE))) < np.linspace(0.8, 0.3, len(HOSTILE))).astype(float)
    return audit_leaderboard(from_array(scores, models=HOSTILE), "all", n_resamples=0, n_cluster_resamples=0)


def test_text_from_inputs_is_escaped_for_each_format():
    result = _hostile_result()
    csv = render(result, "csv")
    frame = pd.read_csv(pd.io.common.StringIO(csv), dtype=str, keep_default_na=False)
    for cell in list(frame["model_a"]) + list(frame["model_b"]):
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    assert "'=HYPERLINK" in csv and "'-cmd" in csv
    markdown = render(result, "markdown")
    assert "<script>" not in markdown and "&lt;script&gt;" in markdown and "a\\|b<br>c" in markdown
    for line in markdown.splitlines():
        if line.startswith("| ") and "a\\|b" in line:
            assert line.count(" | ") == line.replace("\\|", "").count(" | ")
    table = render(result, "table")
    assert "\x1b" not in table and "esc\\x1b[31m" in table and "a|b\\x0ac" in table
    document = json.loads(render(result, "json"))
    assert set(HOSTILE) == {row["model"] for row in document["ranking"]}


# --------------------------------------------------------------------------- round trip
NAMES = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters=",\"'"), min_size=1, max_size=12).map(str.strip).filter(
    lambda name: bool(name) and name not in ("item_id", "cluster", "model", "score") and name.lower() not in ("nan", "na", "null", "none", "n/a"))


@st.composite
def matrices(draw):
    models = draw(st.lists(NAMES, min_size=2, max_size=5, unique=True))
    items = draw(st.lists(NAMES, min_size=3, max_size=30, unique=True))
    graded = draw(st.booleans())
    shape = (len(items), len(models))
    if graded:
        scores = np.array(draw(st.lists(st.floats(0, 1), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1]))).reshape(shape)
        scores[0] = 0.25  # never a 0/1-looking graded matrix
        scores[1] = 0.75
    else:
        scores = np.array(draw(st.lists(st.integers(0, 1), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1])), dtype=float).reshape(shape)
    clusters = draw(st.one_of(st.none(), st.lists(NAMES, min_size=len(items), max_size=len(items))))
    return from_array(scores, models=models, item_ids=items, clusters=clusters, score_kind="graded" if graded else "binary")


@given(matrix=matrices(), suffix=st.sampled_from([".csv", ".tsv", ".parquet", ".jsonl"]), layout=st.sampled_from(["wide", "long"]))
def test_write_then_read_gives_the_same_matrix(tmp_path_factory, matrix, suffix, layout):
    path = tmp_path_factory.mktemp("round") / f"table{suffix}"
    write_table(matrix, path, layout=layout)
    again = read_table(path, cluster_column="cluster" if matrix.clusters is not None else None,
                       score_kind=matrix.score_kind)
    assert again.models == matrix.models and again.item_ids == matrix.item_ids and again.clusters == matrix.clusters
    assert np.array_equal(again.scores, matrix.scores) and again.binary == matrix.binary
    write_table(again, path.with_name(f"second{suffix}"), layout=layout)
    assert path.with_name(f"second{suffix}").read_bytes() == path.read_bytes()


# --------------------------------------------------------------------------- exact counts
def test_counts_are_exact_beyond_float32_range():
    """N = 2^24 + 3 items: float32 rounds 2^24 + 3 to 2^24 + 4; the blocked product does not."""
    n = BLOCK_ROWS + 3
    scores = np.ones((n, 3), dtype=np.int8)
    scores[5, 1] = 0
    scores[-1, 2] = 0
    counts = both_correct_counts(scores)
    assert counts.dtype == np.int64
    assert counts.tolist() == [[n, n - 1, n - 1], [n - 1, n - 1, n - 2], [n - 1, n - 2, n - 1]]
    assert int(np.float32(n)) != n  # the naive float32 product could not have represented it


@given(st.integers(1, 64), st.integers(2, 5), st.integers(1, 17), st.integers(0, 2**32 - 1))
def test_blocked_counts_equal_integer_counts(items, models, block_rows, seed):
    scores = (np.random.default_rng(seed).random((items, models)) < 0.5).astype(np.int8)
    direct = scores.astype(np.int64).T @ scores.astype(np.int64)
    assert np.array_equal(both_correct_counts(scores, block_rows=block_rows), direct)


@pytest.mark.slow
def test_audit_beyond_two_to_the_24_items():
    n = BLOCK_ROWS + 7
    rng = np.random.default_rng(11)
    first = rng.random(n) < 0.999
    second = first.copy()
    flip = rng.choice(n, 2_000, replace=False)
    second[flip[:1_200]] = ~second[flip[:1_200]]
    matrix = from_array(np.column_stack([first, second]).astype(np.float64), models=["a", "b"])
    pairs = audit_leaderboard(matrix, "adjacent", n_resamples=0, n_cluster_resamples=0).pairs
    a, b = matrix.scores[:, 0].astype(bool), matrix.scores[:, 1].astype(bool)
    only = {"a": int(np.count_nonzero(a & ~b)), "b": int(np.count_nonzero(~a & b)), "both": int(np.count_nonzero(a & b))}
    row = pairs.iloc[0]
    counts = {row["model_a"]: int(row["b"]), row["model_b"]: int(row["c"])}
    assert counts == {"a": only["a"], "b": only["b"]} and int(row["a"]) == only["both"]


# --------------------------------------------------------------------------- arguments
@pytest.mark.parametrize(
    "arguments, fragment",
    [
        (["design", "--p-a", "nan", "--p-b", "0.5", "--rho", "0"], "argument --p-a: must be a finite number in (0, 1); got nan"),
        (["design", "--p-a", "inf", "--p-b", "0.5", "--rho", "0"], "argument --p-a: must be a finite number in (0, 1); got inf"),
        (["design", "--p-a", "0.6", "--p-b", "0.5", "--rho", "1e400"], "argument --rho: must be a finite number in [-1, 1]; got inf"),
        (["design", "--b", "1" + "0" * 400, "--c", "1", "--n", "5"], "argument --b: must be a whole number in [0, 9,007,199,254,740,992]"),
        (["design", "--b", "-1", "--c", "1", "--n", "5"], "argument --b: must be a whole number in [0,"),
        (["design", "--b", "1.5", "--c", "1", "--n", "5"], "argument --b: must be a whole number; got '1.5'"),
        (["design", "--b", "10", "--c", "10", "--n", "5"], "b + c must not exceed n"),
        (["design", "--p-a", "0.6", "--p-b", "0.5", "--rho", "0", "--alpha", "0"], "argument --alpha: must be a finite number in (0, 1); got 0"),
        (["test", "--b", "3", "--c", "2", "--n", "10", "--n-resamples", "100000000000"], "argument --n-resamples: must be a whole number in [100, 1,000,000]"),
        (["test", "--b", "3", "--c", "2", "--n", "1"], "exceed --n 1"),
        (["test", "--b", "3", "--c", "2", "--n", "10", "--confidence", "1"], "argument --confidence"),
        (["monitor", "a", "b", "--checkpoints", "0"], "argument --checkpoints: must be a whole number in [1, 1,000,000]; got 0"),
        (["audit", "--n-resamples", "-5"], "argument --n-resamples: must be a whole number in [0, 100,000]"),
        (["audit", "--seed", "-1"], "argument --seed"),
        (["crosscheck", "--p-a", "0.6", "--p-b", "0.6"], "--p-a and --p-b are both 0.6"),
        (["audit-calculator", "--p-a", "0.6", "--p-b", "0.5", "--rho", "0.2", "--claimed-n", "-3"], "argument --claimed-n: must be a finite number in (0, inf)"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(capsys, arguments, fragment):
    assert main(arguments) == 2
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1 and fragment in message, message


@pytest.mark.parametrize(
    "arguments, expected",
    [
        (["design", "--b", "100", "--c", "0", "--n", "100", "--json"], {"required_n": 0.0, "resolution_ratio": "inf"}),
        (["design", "--b", "0", "--c", "0", "--n", "100", "--json"], {"required_n": "inf", "resolution_ratio": 0.0}),
    ],
)
def test_degenerate_tables_have_a_defined_answer(capsys, arguments, expected):
    assert main(arguments) == 0
    report = json.loads(capsys.readouterr().out)
    assert {key: report[key] for key in expected} == expected


@pytest.mark.parametrize("b, c, n, interval", [(0, 0, 10, [0.0, 0.0]), (5, 0, 5, [1.0, 1.0]), (0, 7, 7, [-1.0, -1.0])])
def test_studentized_bootstrap_of_a_constant_difference_is_the_point(capsys, b, c, n, interval):
    assert main(["test", "--b", str(b), "--c", str(c), "--n", str(n), "--bootstrap-interval", "studentized", "--n-resamples", "200", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[-1]
    assert [row["ci_low"], row["ci_high"]] == interval


def test_api_refuses_arrays_and_duplicate_names():
    with pytest.raises(TypeError, match="matrix must be a ScoreMatrix; got ndarray"):
        audit_leaderboard(np.zeros((4, 2)))
    with pytest.raises(InputError, match="model 'a' appears twice"):
        from_array(np.eye(3), models=["a", "b", "a"])
    from llm_power_verified.io import from_wide

    with pytest.raises(InputError, match="expected a pandas DataFrame, got ndarray; for an array use from_array"):
        from_wide(np.eye(3))
    with pytest.raises(ValueError, match="n_resamples must be a whole number"):
        audit_leaderboard(from_array(np.eye(3)), n_resamples=float("nan"))


# --------------------------------------------------------------------------- no warnings reach stderr
def test_degenerate_leaderboard_audit_prints_no_warning(tmp_path):
    """Identical models, constant models (all 0 and all 1), clusters: every format, nothing on stderr."""
    rng = np.random.default_rng(0)
    scores = (rng.random((300, 6)) < [0.9, 0.7, 0.6, 0.6, 0.3, 0.5]).astype(int)
    scores[:, 3] = scores[:, 2]
    scores[:, 4] = 1
    scores[:, 5] = 0
    frame = pd.DataFrame(scores, columns=list("abcdef"))
    frame.insert(0, "item_id", [f"q{i}" for i in range(300)])
    frame["topic"] = np.repeat(list("wxyz"), 75)
    table = tmp_path / "scores.csv"
    frame.to_csv(table, index=False)
    for output in ("table", "markdown", "json", "csv"):
        result = _cli("audit", str(table), "--mode", "all", "--cluster-column", "topic", "--format", output,
                      "--n-resamples", "50", "--n-cluster-resamples", "20", env={k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"})
        assert result.returncode == 0 and result.stderr == "", result.stderr
    refused = _cli("audit", str(table), "--mode", "all")
    assert refused.returncode == 2 and "column 'topic' holds text (e.g. 'w'), not scores; if it holds cluster labels, pass --cluster-column topic" in refused.stderr
    document = json.loads(_cli("audit", str(table), "--mode", "all", "--format", "json", "--n-resamples", "0", "--cluster-column", "topic").stdout)
    constant = [row for row in document["pairs"] if "e" in (row["model_a"], row["model_b"])]
    assert all(row["rho"] is None and row["shortcut_n"] is None for row in constant)
    assert all(row["p_exact"] is not None and row["required_n"] is not None for row in constant)
    assert any("model 'e' scores 1 on every item" in note for note in document["notes"])
