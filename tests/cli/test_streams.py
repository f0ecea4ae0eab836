"""Streams and output paths, through real processes: what the shell hands the command is what the OS decides.

A named descriptor (``/dev/stdout``, ``/dev/fd/N``) is written through that descriptor (a log opened with
``>>`` is appended to, never replaced); a reader that goes away ends the command quietly with the shell's
status 141; a full device, a closed standard output or a read-only ``--out`` is one line on stderr and
status 2, with every file untouched; the shipped data is never an output; nothing is created before the
input is read and checked.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from llm_power_verified.cli.streams import writes_to_stdout
from llm_power_verified.io import OutputError, write_text
from llm_power_verified.io.output_paths import SHIPPED_DATA, names_descriptor

REPOSITORY = Path(__file__).resolve().parents[2]
COMMAND = [sys.executable, "-m", "llm_power_verified.cli"]
DESIGN = ["design", "--p-a", "0.7", "--p-b", "0.6", "--rho", "0.3"]
QUICK = ["--n-resamples", "0", "--n-cluster-resamples", "0"]
BROKEN_PIPE = 128 + 13  # the shell's status of a process ended by SIGPIPE
POSIX = pytest.mark.skipif(os.name != "posix" or not Path("/dev/fd").exists(), reason="POSIX descriptors and /dev/fd")
FULL = pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")


def _environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([str(REPOSITORY), *filter(None, [environment.get("PYTHONPATH")])])
    return environment


def _shell(script: str, cwd: Path) -> subprocess.CompletedProcess:
    """``script`` run by sh, where ``$CLI`` is the command line (so that redirections are the shell's own)."""
    command = " ".join(shlex.quote(part) for part in COMMAND)
    return subprocess.run(
        ["sh", "-c", f"CLI={shlex.quote(command)}; {script}"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=_environment(),
    )


def _one_line_error(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr and lines[0].startswith("llm-power-verified: error: "), stderr
    return lines[0]


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "scores.csv"
    path.write_text("item_id,a,b,c\n" + "".join(f"q{i},{i % 2},{(i // 2) % 2},{int(i % 3 == 0)}\n" for i in range(40)))
    return path


def _fingerprint(path: Path) -> tuple:
    status = path.stat()
    return status.st_ino, stat.S_IMODE(status.st_mode), hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- a reader that goes away
@POSIX
@pytest.mark.parametrize(
    "arguments",
    [
        DESIGN,
        ["audit", "{table}", "--format", "csv", *QUICK],
        ["audit", "{table}", "--format", "json", "--out", "/dev/stdout", *QUICK],
    ],
    ids=["text", "machine chunks", "out /dev/stdout"],
)
def test_a_closed_pipe_ends_quietly_with_the_shell_status(table, arguments):
    """The read end is closed before the command writes: every write fails with EPIPE, deterministically."""
    arguments = [part.replace("{table}", str(table)) for part in arguments]
    with subprocess.Popen(
        [*COMMAND, *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_environment()
    ) as process:
        process.stdout.close()
        errors = process.stderr.read()
        process.wait(timeout=300)
    assert process.returncode == BROKEN_PIPE and errors == b""


@POSIX
def test_head_reading_one_line_of_a_long_output_ends_it_quietly(tmp_path):
    """`monitor` prints one row per checkpoint: 4,000 rows (about 300 KB) overflow the pipe that `head -1` leaves."""
    lines = "".join(f"{(i * 7) % 3 == 0:d}\n" for i in range(4000))
    (tmp_path / "a.txt").write_text(lines)
    (tmp_path / "b.txt").write_text("".join(f"{(i * 5) % 4 == 0:d}\n" for i in range(4000)))
    result = _shell(
        "{ $CLI monitor a.txt b.txt --checkpoints 4000 2>errors.txt; echo $? > status.txt; } | head -1", tmp_path
    )
    assert result.returncode == 0 and len(result.stdout.splitlines()) == 1
    assert (tmp_path / "status.txt").read_text().strip() == str(BROKEN_PIPE)
    assert (tmp_path / "errors.txt").read_text() == ""


# --------------------------------------------------------------------------- a full device, a closed stdout
@FULL
@pytest.mark.parametrize(
    "arguments, what",
    [
        (DESIGN, "could not write the output (17 lines) to standard output"),
        (["audit", "{table}", "--format", "csv", *QUICK], "could not write the report"),
        (["--help"], "could not write the help (or version) text"),
        (["audit", "{table}", "--out", "/dev/stdout", *QUICK], "cannot write /dev/stdout"),
    ],
)
def test_a_full_device_is_one_line_naming_what_was_not_written(tmp_path, table, arguments, what):
    arguments = " ".join(shlex.quote(part.replace("{table}", str(table))) for part in arguments)
    result = _shell(f"$CLI {arguments} > /dev/full", tmp_path)
    line = _one_line_error(result.stderr)
    assert result.returncode == 2 and what in line and "No space left on device" in line


@POSIX
def test_a_closed_stdout_is_refused_before_any_work(tmp_path, table):
    out = tmp_path / "report.md"
    result = _shell(
        f"$CLI audit {shlex.quote(str(table))} --out {shlex.quote(str(out))} {' '.join(QUICK)} >&-", tmp_path
    )
    assert result.returncode == 2 and "standard output is closed" in _one_line_error(result.stderr)
    assert not out.exists() and sorted(path.name for path in tmp_path.iterdir()) == ["scores.csv"]
    result = _shell(f"$CLI {' '.join(DESIGN)} >&-", tmp_path)
    assert result.returncode == 2 and "standard output is closed" in _one_line_error(result.stderr)


@POSIX
def test_a_closed_stderr_or_stdin_changes_nothing_else(tmp_path):
    result = _shell(f"$CLI {' '.join(DESIGN)} 2>&- <&-", tmp_path)
    assert result.returncode == 0 and "N* (integer, ceiling)" in result.stdout
    refused = _shell("$CLI design --p-a 2 --p-b 0.5 --rho 0 2>&-", tmp_path)  # the error line has nowhere to go
    assert refused.returncode == 2 and refused.stdout == ""


# --------------------------------------------------------------------------- named descriptors
@POSIX
def test_out_dev_stdout_appends_to_a_log_opened_for_appending(tmp_path, table):
    log = tmp_path / "run.log"
    log.write_text("earlier line\n")
    inode = log.stat().st_ino
    result = _shell(f"$CLI audit scores.csv --format csv --out /dev/stdout {' '.join(QUICK)} >> run.log", tmp_path)
    assert result.returncode == 0, result.stderr
    text = log.read_text()
    assert text.startswith("earlier line\nmodel_a,model_b,") and log.stat().st_ino == inode
    assert "wrote" not in text and len(text.splitlines()) == 1 + 1 + 2  # the old line, the header, two adjacent pairs
    result = _shell(f"$CLI audit scores.csv --format csv --out /dev/fd/3 {' '.join(QUICK)} 3>> run.log", tmp_path)
    assert (
        result.returncode == 0
        and result.stdout == "wrote /dev/fd/3\n"
        and log.read_text() == text + text.split("\n", 1)[1]
    )
    assert log.stat().st_ino == inode


@POSIX
def test_out_dev_stdout_into_a_pipe_and_through_a_link(tmp_path, table):
    result = _shell(f"$CLI audit scores.csv --format csv --out /dev/stdout {' '.join(QUICK)} | cat", tmp_path)
    assert result.returncode == 0 and result.stdout.startswith("model_a,model_b,") and "wrote" not in result.stdout
    (tmp_path / "to-stdout").symlink_to("/dev/stdout")
    result = _shell(f"$CLI audit scores.csv --format csv --out to-stdout {' '.join(QUICK)} > captured.csv", tmp_path)
    assert result.returncode == 0 and (tmp_path / "captured.csv").read_text().startswith("model_a,model_b,")
    assert (tmp_path / "to-stdout").is_symlink() and os.readlink(tmp_path / "to-stdout") == "/dev/stdout"


@POSIX
def test_out_dev_stdout_onto_an_input_is_refused(tmp_path, table):
    before = _fingerprint(table)
    result = _shell(f"$CLI audit scores.csv --format csv --out /dev/stdout {' '.join(QUICK)} >> scores.csv", tmp_path)
    assert result.returncode == 2 and "would write into the input" in _one_line_error(result.stderr)
    assert _fingerprint(table) == before


@POSIX
def test_descriptor_names_are_read_without_resolving_them(tmp_path):
    (tmp_path / "link").symlink_to("/dev/stdout")
    assert names_descriptor("/dev/stdout") == 1 and names_descriptor("/dev/stderr") == 2
    assert names_descriptor(f"/proc/{os.getpid()}/fd/7") == 7 and names_descriptor("/proc/self/fd/5") == 5
    assert names_descriptor(tmp_path / "link") == 1 and names_descriptor(tmp_path / "plain.txt") is None
    assert names_descriptor("/proc/1/fd/1") is None or os.getpid() == 1  # another process's descriptor is a file name
    assert (
        writes_to_stdout("/dev/stdout") and not writes_to_stdout(tmp_path / "plain.txt") and not writes_to_stdout(None)
    )


# --------------------------------------------------------------------------- files, links, FIFOs
def test_a_read_only_out_is_refused_and_left_alone(tmp_path, table):
    target = tmp_path / "report.md"
    target.write_text("previous report\n")
    target.chmod(0o444)
    before = _fingerprint(target)
    result = subprocess.run(
        [*COMMAND, "audit", str(table), "--out", str(target), *QUICK],
        capture_output=True,
        text=True,
        timeout=300,
        env=_environment(),
    )
    line = _one_line_error(result.stderr)
    assert result.returncode == 2 and str(target) in line and "read-only (mode 0444)" in line and "chmod u+w" in line
    assert _fingerprint(target) == before
    with pytest.raises(OutputError, match="read-only"):
        write_text(target, "new")
    assert _fingerprint(target) == before


def test_a_symlink_out_writes_its_target_and_stays_a_link(tmp_path, table):
    target = tmp_path / "real.md"
    target.write_text("old\n")
    (tmp_path / "link.md").symlink_to("real.md")
    result = subprocess.run(
        [*COMMAND, "audit", str(table), "--format", "markdown", "--out", str(tmp_path / "link.md"), *QUICK],
        capture_output=True,
        text=True,
        timeout=300,
        env=_environment(),
    )
    assert result.returncode == 0 and result.stdout == f"wrote {tmp_path / 'link.md'}\n"
    assert (tmp_path / "link.md").is_symlink() and target.read_text().startswith("## Resolution audit: ")


@POSIX
def test_a_fifo_out_is_written_directly(tmp_path, table):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = subprocess.run(
        [*COMMAND, "audit", str(table), "--format", "csv", "--out", str(fifo), *QUICK],
        capture_output=True,
        text=True,
        timeout=300,
        env=_environment(),
    )
    reader.join(timeout=60)
    assert result.returncode == 0 and received and received[0].startswith(b"model_a,model_b,")
    assert stat.S_ISFIFO(fifo.stat().st_mode) and sorted(path.name for path in tmp_path.iterdir()) == [
        "pipe",
        "scores.csv",
    ]


# --------------------------------------------------------------------------- the shipped data, nothing made early
def test_the_shipped_data_is_never_an_output(tmp_path):
    shipped = SHIPPED_DATA / "mmlu_pro_top10.csv.gz"
    before = _fingerprint(shipped)
    for out in (["--out", str(shipped)], ["--plot", str(SHIPPED_DATA)], ["--out", str(SHIPPED_DATA / "new.md")]):
        result = subprocess.run(
            [*COMMAND, "audit", *out, *QUICK],
            capture_output=True,
            text=True,
            timeout=300,
            env=_environment(),
            cwd=tmp_path,
        )
        assert result.returncode == 2 and "shipped data" in _one_line_error(result.stderr)
    (tmp_path / "link.gz").symlink_to(shipped)
    with pytest.raises(OutputError, match="shipped data"):
        write_text(tmp_path / "link.gz", "x")
    assert _fingerprint(shipped) == before and not (SHIPPED_DATA / "new.md").exists()


def test_plot_folder_is_not_made_before_the_input_is_read(tmp_path):
    (tmp_path / "bad.csv").write_text("item_id,a,b\nq1,1,0\nq2,0,x\n")
    result = subprocess.run(
        [*COMMAND, "audit", "bad.csv", "--plot", "figures", *QUICK],
        capture_output=True,
        text=True,
        timeout=300,
        env=_environment(),
        cwd=tmp_path,
    )
    assert result.returncode == 2 and "'x'" in _one_line_error(result.stderr)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.csv"]


def test_running_out_of_memory_is_one_line_with_status_2(tmp_path, monkeypatch, capsys):
    """An allocation that fails while reading (numpy's or Arrow's MemoryError) ends in one line, not a traceback."""
    from llm_power_verified.cli.main import main
    from llm_power_verified.io import table_files

    def exhausted(*_args, **_kwargs):
        raise MemoryError("Unable to allocate 3.1 GiB for an array")

    path = tmp_path / "w.csv"
    path.write_text("item_id,a,b\nq1,1,0\nq2,0,1\n")
    monkeypatch.setattr(table_files, "_read_csv", exhausted)
    assert main(["audit", str(path), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "out of memory" in captured.err and "Traceback" not in captured.err
