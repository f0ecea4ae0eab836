"""``audit-calculator`` against calculators that misbehave: exits, forks, prints, signal tricks, folder changes.

A ``--python`` calculator runs in a worker process, so none of this may reach the audit: every case ends with the
right exit status, at most one line on standard error, and the report where it was asked for.  The ``--command``
adapter kills each call's process group, caps the spooled output and reads the number strictly.  Runs are small
(the small grid, three property-search examples, short time limits).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llm_power_verified.cli.calculator_command import CommandCalculator, parse_value
from llm_power_verified.cli.calculator_maps import argument_map
from llm_power_verified.cli.main import main
from llm_power_verified.testing.quantities import QUANTITIES

FAST = ["--grid", "small", "--max-examples", "3"]
POINT = {"p_a": 0.65, "p_b": 0.6, "rho": 0.3, "alpha": 0.05, "power": 0.8}

HOSTILE = """
import math
import os
import signal
import sys
import time
from statistics import NormalDist


def shortcut(p_a, p_b, rho, alpha, power):
    z = NormalDist().inv_cdf
    h = 2 * math.asin(math.sqrt(p_a)) - 2 * math.asin(math.sqrt(p_b))
    return (1 - rho) * (z(1 - alpha / 2) + z(power)) ** 2 / h ** 2


def exits(**values):
    raise SystemExit(0)


def hard_exit(**values):
    os._exit(3)


def interrupts(**values):
    raise KeyboardInterrupt


def chatty(**values):
    print("hello from the calculator")
    print("and on stderr", file=sys.stderr)
    return shortcut(**values)


def stubborn(**values):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    time.sleep(300)


def wanders(**values):
    os.chdir(os.environ["WANDER_TO"])
    return shortcut(**values)


def forks(**values):
    os.fork()
    return shortcut(**values)
"""


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "hostile.py").write_text(HOSTILE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    status = main(["audit-calculator", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _failures(capsys, function: str, *extra: str) -> tuple[dict, str]:
    status, out, err = _run(capsys, ["--python", f"hostile.py:{function}", *FAST, "--format", "json", *extra])
    assert (status, err) == (0, ""), err
    document = json.loads(out)
    return document, " | ".join(f"{failure['kind']}: {failure['message']}" for failure in document["failures"])


@pytest.mark.parametrize(
    ("function", "expected"),
    [("exits", "SystemExit: 0"), ("hard_exit", "exit status 3"), ("interrupts", "KeyboardInterrupt")],
)
def test_an_exit_or_an_interrupt_in_the_calculator_is_its_failure_not_the_audits(folder, capsys, function, expected):
    document, failures = _failures(capsys, function)
    assert document["conforms"] is False and "exception: " in failures and expected in failures, failures


def test_what_the_calculator_prints_stays_out_of_the_json_report(folder, capsys):
    document, _ = _failures(capsys, "chatty")
    assert document["convention"] == "shortcut"


def test_a_module_that_prints_and_warns_at_import_leaks_nothing(folder, capsys):
    (folder / "noisy.py").write_text(
        "import sys, warnings\nprint('importing')\nprint('err', file=sys.stderr)\nwarnings.warn('careful')\n"
        "from hostile import shortcut\n"
    )
    status, out, err = _run(capsys, ["--python", "noisy:shortcut", *FAST, "--format", "json"])
    assert (status, err) == (0, "") and json.loads(out)["convention"] == "shortcut"


def test_a_calculator_that_ignores_the_alarm_is_still_stopped(folder, capsys):
    started = time.monotonic()
    _, failures = _failures(capsys, "stubborn", "--quantity", "pvalue", "--timeout", "0.5")
    assert "timeout: " in failures, failures
    assert time.monotonic() - started < 60  # each call is stopped at 0.5 s (a 300 s sleep otherwise)


def test_a_calculator_that_changes_folder_does_not_move_the_report(folder, capsys, monkeypatch):
    (folder / "elsewhere").mkdir()
    monkeypatch.setenv("WANDER_TO", str(folder / "elsewhere"))
    before = (folder / "hostile.py").read_text()
    status, out, err = _run(capsys, ["--python", "hostile.py:wanders", *FAST, "--out", "hostile.json"])
    assert (status, err) == (0, "") and out.startswith("wrote hostile.json")
    assert (folder / "hostile.py").read_text() == before
    assert "wanders" in (folder / "hostile.json").read_text() and list((folder / "elsewhere").iterdir()) == []


@pytest.mark.parametrize(
    ("spec", "target"),
    [
        ("hostile:shortcut", "hostile.py"),
        ("pkg.inner:shortcut", "pkg/inner.py"),
        ("pkg.inner:shortcut", "pkg/__init__.py"),
    ],
)
def test_out_onto_a_file_of_the_module_form_is_refused(folder, capsys, spec, target):
    (folder / "pkg").mkdir()
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "pkg" / "inner.py").write_text("from hostile import shortcut\n")
    before = (folder / target).read_text()
    status, out, err = _run(capsys, ["--python", spec, "--out", target])
    assert status == 2 and out == "" and err.count("\n") == 1 and "would overwrite an input" in err, err
    assert (folder / target).read_text() == before


def test_a_calculator_that_forks_gives_one_report(folder, capsys):
    status, out, err = _run(capsys, ["--python", "hostile.py:forks", *FAST, "--format", "json"])
    assert (status, err) == (0, "") and json.loads(out)["convention"] == "shortcut"


def _gone(pid: int) -> bool:
    """Whether a process has ended (a zombie nobody reaped yet counts as ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    state = Path(f"/proc/{pid}/stat")
    return state.exists() and state.read_text().rsplit(")", 1)[-1].split()[0] in ("Z", "X")


def test_a_child_the_command_left_behind_is_killed_after_the_call(tmp_path):
    arguments = QUANTITIES["required_n"].arguments
    script = (
        "import subprocess, sys; child = subprocess.Popen(['sleep', '300']); "
        f"open({str(tmp_path / 'pid')!r}, 'w').write(str(child.pid)); print(1000)"
    )
    template = f'{sys.executable} -c "{script}" {{p_a}} {{p_b}} {{rho}} {{alpha}} {{power}}'
    calculator = CommandCalculator(template, arguments, argument_map(None, arguments, "", command=True), 30)
    assert calculator(**POINT) == 1000
    pid = int((tmp_path / "pid").read_text())
    deadline = time.monotonic() + 5
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid), f"the command's child {pid} outlived the call"


def test_a_command_that_floods_its_output_is_killed_at_the_cap():
    arguments = QUANTITIES["required_n"].arguments
    template = f"{sys.executable} -c \"while True: print('1' * 1000)\" {{p_a}} {{p_b}} {{rho}} {{alpha}} {{power}}"
    calculator = CommandCalculator(template, arguments, argument_map(None, arguments, "", command=True), 30)
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="printed more than 1 MB on standard output"):
        calculator(**POINT)
    assert time.monotonic() - started < 20  # killed at the cap, not at the 30 s limit


@pytest.mark.parametrize("text", ["1_000", "\u0661\u0662\u0663", "0x10", "1,000"])
def test_only_plain_ascii_float_syntax_is_a_number(text):
    with pytest.raises(ValueError, match="not one number"):
        parse_value(text)


def test_plain_and_r_numbers_still_read():
    assert (parse_value("1e3"), parse_value("[1] -Inf"), parse_value(" .5 ")) == (1000.0, -float("inf"), 0.5)


@pytest.mark.parametrize("placeholder", ["{p_a!r}", "{p_a:.3f}", "{ p_a }"])
def test_a_malformed_placeholder_is_refused_by_name(folder, capsys, placeholder):
    status, out, err = _run(capsys, ["--command", f"true {placeholder} {{p_b}} {{rho}} {{alpha}} {{power}}"])
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert f"malformed placeholder {placeholder!r}" in err, err


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ("p_a=x,p_b=x", "'p_b=x': p_a and p_b would be passed as the same keyword x"),
        ("p_a=p_b", "'p_a=p_b': p_a and p_b would be passed as the same keyword p_b"),
        ("p_a=x,x:=1", "'x:=1': x is already passed (p_a=x)"),
        ("ratio:=1,ratio:=2", "'ratio:=2': the constant ratio is given twice"),
    ],
)
def test_a_colliding_argument_map_is_refused_naming_the_entry(folder, capsys, entries, message):
    status, out, err = _run(capsys, ["--python", "hostile.py:shortcut", "--argument-map", entries])
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_a_swap_of_two_names_is_not_a_collision():
    mapping = argument_map("p_a=p_b,p_b=p_a", QUANTITIES["required_n"].arguments, "required-n", command=False)
    assert mapping.passed(POINT)["p_b"] == POINT["p_a"]


def test_the_audit_writes_no_hypothesis_folder_where_it_runs(folder):
    environment = {key: value for key, value in os.environ.items() if key != "HYPOTHESIS_STORAGE_DIRECTORY"}
    finished = subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", "audit-calculator", "--python", "hostile.py:shortcut", *FAST],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
        cwd=folder,
    )
    assert (finished.returncode, finished.stderr) == (0, "") and "shortcut" in finished.stdout
    assert not (folder / ".hypothesis").exists()


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("import os\nos._exit(5)\n", "cannot import dies (the calculator ended its process (exit status 5))"),
        ("raise SystemExit(4)\n", "cannot import dies (SystemExit: 4)"),
        ("import os, sys\nos.chdir('/')\nsys.path.pop(0)\nf = 1\n", "f is a int, not a function"),
    ],
)
def test_a_module_that_ends_or_wanders_at_import_is_one_line(folder, capsys, source, message):
    (folder / "dies.py").write_text(source)
    status, out, err = _run(capsys, ["--python", "dies:f"])
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err


FORGER = """
import os


def forges(p_a, p_b, rho, alpha, power):
    for fd in (3, 4):  # the worker's request and reply descriptors, as its fork inherited them before the fix
        try:
            os.write(fd, b'{"value": 7.0}\\n')
        except OSError:
            pass
    return 100.0 + p_a
"""


def test_a_calculator_cannot_forge_the_answers_of_other_calls(folder, capsys):
    (folder / "forger.py").write_text(FORGER)
    status, out, err = _run(capsys, ["--python", "forger.py:forges", *FAST, "--format", "json"])
    assert (status, err) == (0, ""), err
    document = json.loads(out)
    # Every value is the calculator's own answer at its own inputs: 100 + p_a, exactly as the JSON round trip keeps it.
    assert all(deviation["value"] == 100.0 + deviation["inputs"]["p_a"] for deviation in document["deviations"])


def test_a_json_module_in_the_users_folder_does_not_replace_the_workers(folder, capsys):
    (folder / "json.py").write_text("raise RuntimeError('the user json.py')\n")
    (folder / "calculator_module.py").write_text(HOSTILE)
    status, out, err = _run(capsys, ["--python", "calculator_module:shortcut", *FAST])
    assert (status, err) == (0, "") and "implements shortcut" in out, err


def _processes_naming(word: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if word in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:  # it ended while we looked
                pass
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc (Linux)")
def test_a_terminated_audit_leaves_no_worker_running(folder):
    (folder / "sleepy_calculator.py").write_text("import time\n\ndef f(**values):\n    time.sleep(60)\n")
    audit = subprocess.Popen(
        [sys.executable, "-m", "llm_power_verified.cli", "audit-calculator", "--python", "sleepy_calculator.py:f"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=folder,
    )
    deadline = time.monotonic() + 60
    while not _processes_naming("sleepy_calculator.py:f")[1:] and time.monotonic() < deadline:
        time.sleep(0.1)  # wait for the worker to start (the audit itself is the first process naming it)
    audit.terminate()
    audit.wait(timeout=30)
    deadline = time.monotonic() + 10
    while _processes_naming("sleepy_calculator.py:f") and time.monotonic() < deadline:
        time.sleep(0.1)  # the parent-death signal is delivered at once; allow the kernel a moment
    assert _processes_naming("sleepy_calculator.py:f") == []
