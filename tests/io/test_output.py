"""The one writer of output files and the output paths' checks before any work.

The writer's cases: symlinks, FIFOs, full devices, modes, signals.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from llm_power_verified.io import OutputError, check_outputs, write_text


def _cli(*arguments: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", *arguments],
        capture_output=True,
        text=True,
        timeout=300,
        **kwargs,
    )


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
    script = (
        "import os, sys; os.umask(0o027); from llm_power_verified.io import write_text; "
        "write_text(sys.argv[1], 'x'); print(oct(os.stat(sys.argv[1]).st_mode & 0o777))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "new.txt")], capture_output=True, text=True, check=True
    )
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
    with subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITE, str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout.readline().strip() == "writing"
        assert any(path.name.endswith(".tmp") for path in tmp_path.iterdir())
        process.send_signal(number)
        process.communicate(timeout=30)
    assert process.returncode != 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.md"] and target.read_text() == "previous report"


def test_an_ignored_sigint_stays_ignored_and_the_write_completes(tmp_path):
    target = tmp_path / "report.md"
    target.write_text("previous report")
    script = SLOW_WRITE.replace("signal.default_int_handler", "signal.SIG_IGN").replace(
        "time.sleep(60)", "time.sleep(2); real_fsync(fd)"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script, str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
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
    with pytest.raises(OutputError, match=r"--plot .* and --out name the same file"):
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
    assert (
        result.returncode == 2
        and "name the same file" in result.stderr
        and len(result.stderr.strip().splitlines()) == 1
    )
    assert not (tmp_path / "same.png").exists() and time.perf_counter() - started < 60
