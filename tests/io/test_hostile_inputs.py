"""Held-out hostile inputs: every case of ``tests/support/hostile.py`` runs through the CLI and is classified.

The CLI runs in a subprocess.

Each case runs ``python -m llm_power_verified.cli`` (or a bash line around it)
in its own empty folder, with an address-space limit of 2 GiB and a timeout,
and ends as one of:

read right / refused cleanly (the two good endings), or silently wrong (exit 0
where a refusal is due, or a wrong reading), traceback, warning on stderr,
unsafe write (a file created or changed that must not be), memory (MemoryError
or killed), timeout, misleading refusal (refused, but the one line does not
name the cause, or valid input refused).

The selected cases run two at a time once per session (a session fixture);
each test then checks its own case.  By default one case of each family runs
(:func:`representatives`; the rest are marked ``slow``: ``--run-slow`` or CI runs all). ``python -m
tests.io.test_hostile_inputs --report FILE``
runs the corpus outside pytest and writes a summary table by family and ending
with a reproducer for every case that did not end cleanly; ``--case TEXT``
runs the cases whose id contains TEXT and keeps their folders.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import functools
import hashlib
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.hostile import REPOSITORY, Case, Either, Quiet, Read, Refused, all_cases

PREFIX = "llm-power-verified: error:"
CLI = [sys.executable, "-m", "llm_power_verified.cli"]
GOOD = ("read right", "refused cleanly")
ENDINGS = (*GOOD, "silently wrong", "traceback", "warning", "unsafe write", "memory", "timeout", "misleading refusal")
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
MEMORY_SIGNS = ("MemoryError", "Unable to allocate", "bad_alloc", "Cannot allocate memory", "ArrayMemoryError")

#: Cases that fail today, by id, with their kind (the lead removes these as fixes land).
KNOWN_FAILING: dict[str, str] = {}  # case id -> the kind of failure, marked xfail until fixed (none today)


@dataclass(frozen=True)
class Outcome:
    case: Case
    ending: str
    detail: str
    status: int | None
    stderr: str
    seconds: float

    @property
    def reproducer(self) -> str:
        command = (
            self.case.shell.replace("{cli}", "python -m llm_power_verified.cli")
            if self.case.shell
            else "python -m llm_power_verified.cli " + shlex.join(self.case.argv)
        )
        return f"python -m tests.io.test_hostile_inputs --case {shlex.quote(self.case.id)}  # runs: {command}"


def _limits(memory: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _snapshot(folder: Path, guard: tuple[Path, ...]) -> dict[str, tuple]:
    state = {}
    for path in [*folder.rglob("*"), *guard]:
        key = str(path.relative_to(folder)) if path.is_relative_to(folder) else str(path)
        if path.is_symlink():
            state[key] = ("link", os.readlink(path))
        elif path.is_dir():
            state[key] = ("dir",)
        elif path.is_file():
            stat = path.stat()
            state[key] = ("file", stat.st_mode, _fingerprint(path, stat))
    return state


#: Files up to this size are hashed; a larger one (the sparse 8 GiB cases) is known by its inode, size and modification
#: time, which any write or replacement changes, instead of reading gigabytes of holes into memory twice per run.
HASHED_SIZE = 64 << 20


def _fingerprint(path: Path, stat: os.stat_result) -> tuple:
    if stat.st_size > HASHED_SIZE:
        return ("stat", stat.st_ino, stat.st_size, stat.st_mtime_ns)
    with path.open("rb") as stream:
        return ("sha256", hashlib.file_digest(stream, "sha256").hexdigest())


def _write_files(case: Case, folder: Path) -> None:
    for name, content in case.files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content() if callable(content) else content)
    if case.setup is not None:
        case.setup(folder)


@functools.cache
def _bytecode_cache() -> str:
    folder = tempfile.mkdtemp(prefix="hostile-bytecode-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _execute(case: Case, folder: Path) -> tuple[int | None, str, str, float]:
    # Bytecode is cached outside the repository, once per session (compiling the package every run costs ~30%).
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY), "PYTHONPYCACHEPREFIX": _bytecode_cache()}
    for name in ("COLUMNS", "PYTHONWARNINGS", "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    command = ["bash", "-c", case.shell.replace("{cli}", shlex.join(CLI))] if case.shell else [*CLI, *case.argv]
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limits(case.memory),
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=case.timeout)
        status = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        status = None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # what the command started (Dask workers) ends with it
    return status, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"), time.monotonic() - started


def classify(
    case: Case, status: int | None, stdout: str, stderr: str, folder: Path, changed: list[str]
) -> tuple[str, str]:
    """The ending of one run, and a line saying what happened."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if status is None:
        return "timeout", f"no exit within {case.timeout:g} s"
    if any(sign in stderr for sign in MEMORY_SIGNS) or status in (-signal.SIGKILL, -signal.SIGSEGV, -signal.SIGABRT):
        return "memory", next((line for line in lines if any(s in line for s in MEMORY_SIGNS)), f"exit status {status}")
    if "Traceback (most recent call last)" in stderr or "Exception ignored" in stderr:
        return "traceback", lines[-1] if lines else first
    clean_refusal = status == 2 and len(lines) == 1 and first.startswith(PREFIX)
    allowed = [
        path
        for path in changed
        if any(path == w or (w.endswith("/") and (path + "/").startswith(w)) for w in case.writes)
    ]
    if changed and (status != 0 or len(allowed) < len(changed)):
        return "unsafe write", f"changed {', '.join(sorted(changed))} (exit {status})"
    if "Warning" in stderr:
        return "warning", next(line for line in lines if "Warning" in line)
    expect = case.expect
    if isinstance(expect, Quiet):
        if status in expect.statuses and not lines:
            return "read right", ""
        return ("warning" if lines else "silently wrong"), first or f"exit status {status}"
    read, refusal = (
        (expect, None)
        if isinstance(expect, Read)
        else (None, expect)
        if isinstance(expect, Refused)
        else (expect.read, expect.refused)
    )
    if status == 0:
        if lines:
            return "warning", first
        if read is None:
            return "silently wrong", f"exit 0 where a refusal naming {' or '.join(map(repr, refusal.fragments))} is due"
        problem = read.check(stdout, folder) if read.check else None
        return ("silently wrong", problem) if problem else ("read right", "")
    if status == 2 and first.startswith(PREFIX):
        if refusal is None:
            return "misleading refusal", f"valid input refused: {first}"
        if not clean_refusal:
            return "misleading refusal", f"{len(lines)} lines on stderr: {first}"
        if RAW_CONTROL.search(first):
            return (
                "misleading refusal",
                f"raw control or bidi character {RAW_CONTROL.search(first).group(0)!r} in: {first!r}",
            )
        if any(fragment in first for fragment in refusal.fragments):
            return "refused cleanly", first
        return "misleading refusal", f"{first}  [expected a mention of {' or '.join(map(repr, refusal.fragments))}]"
    return "traceback", f"exit status {status}: {first or '(stderr empty)'}"


def run_case(case: Case, keep: Path | None = None) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="hostile-") as temporary:
        folder = Path(keep or temporary) / "work"
        folder.mkdir(parents=True, exist_ok=keep is not None)
        _write_files(case, folder)
        guarded = {path: path.read_bytes() for path in case.guard if path.is_file()}
        before = _snapshot(folder, case.guard)
        try:
            status, stdout, stderr, seconds = _execute(case, folder)
            after = _snapshot(folder, case.guard)
        finally:
            for path, content in guarded.items():  # the shipped data comes back whatever the run did
                if not path.is_file() or path.read_bytes() != content:
                    path.write_bytes(content)
        changed = sorted(key for key in set(before) | set(after) if before.get(key) != after.get(key))
        ending, detail = classify(case, status, stdout, stderr, folder, changed)
        return Outcome(case, ending, detail, status, stderr, seconds)


def run_all(cases: list[Case], workers: int = 2) -> list[Outcome]:
    """Every case, ``workers`` at a time; the long ones start first so that none runs alone at the end.

    The long ones are the bombs and the sizes.
    """
    order = sorted(range(len(cases)), key=lambda k: -cases[k].timeout)
    with ThreadPoolExecutor(workers) as pool:
        done = dict(zip(order, pool.map(run_case, [cases[k] for k in order]), strict=True))
    return [done[k] for k in range(len(cases))]


def report(outcomes: list[Outcome]) -> str:
    families = list(dict.fromkeys(outcome.case.family for outcome in outcomes))
    counts = Counter((outcome.case.family, outcome.ending) for outcome in outcomes)
    shown = [ending for ending in ENDINGS if any(outcome.ending == ending for outcome in outcomes)]
    width = max(len(family) for family in [*families, "total"])
    header = f"{'family':<{width}}  " + "  ".join(f"{ending:>{max(len(ending), 4)}}" for ending in shown) + "  cases"
    rows = [header, "-" * len(header)]
    for family in [*families, "total"]:
        cells = [sum(v for (f, e), v in counts.items() if e == ending and family in (f, "total")) for ending in shown]
        rows.append(
            f"{family:<{width}}  "
            + "  ".join(f"{cell:>{max(len(e), 4)}}" for cell, e in zip(cells, shown, strict=True))
            + f"  {sum(cells):>5}"
        )
    bad = [outcome for outcome in outcomes if outcome.ending not in GOOD]
    rows += ["", f"{len(bad)} cases did not end cleanly, by ending:"]
    for ending in ENDINGS[2:]:
        group = [outcome for outcome in bad if outcome.ending == ending]
        if group:
            rows += ["", f"== {ending} ({len(group)})"]
            for outcome in group:
                rows += [f"- {outcome.case.id}", f"    {outcome.reproducer}", f"    -> {outcome.detail}"]
    slowest = sorted(outcomes, key=lambda outcome: -outcome.seconds)[:8]
    rows += ["", "slowest: " + "; ".join(f"{outcome.case.id} {outcome.seconds:.1f} s" for outcome in slowest)]
    return "\n".join(rows) + "\n"


# --------------------------------------------------------------------------- pytest
CASES = all_cases()


def _param(case: Case, quick: bool):
    """One case per family runs by default (:func:`representatives`); all with --run-slow or in CI."""
    marks = (
        [pytest.mark.xfail(strict=False, reason=f"issue 24: {KNOWN_FAILING[case.id]}")]
        if case.id in KNOWN_FAILING
        else []
    )
    return pytest.param(case, id=case.id, marks=marks if quick else [*marks, pytest.mark.slow])


def representatives(cases: list[Case]) -> set[str]:
    """The ids of the cases that run by default: one per family, its first case among those with the family's shortest
    timeout (the corpus gives bombs, sizes and waits a longer one) that is not known to fail.  A fixed rule, not a
    measurement, so the default selection is the same on every machine."""
    chosen: dict[str, Case] = {}
    for case in cases:
        best = chosen.get(case.family)
        key = (case.id in KNOWN_FAILING, case.timeout)
        if best is None or key < (best.id in KNOWN_FAILING, best.timeout):
            chosen[case.family] = case
    return {case.id for case in chosen.values()}


def _params(cases: list[Case]) -> list:
    quick = representatives(cases)
    return [_param(case, case.id in quick) for case in cases]


@pytest.fixture(scope="session")
def hostile_outcomes(request) -> dict[str, Outcome]:
    """Runs the selected cases two at a time, once; HOSTILE_REPORT=FILE also writes the report there."""
    selected = [
        item.callspec.params["case"]
        for item in request.session.items
        if getattr(item, "callspec", None) is not None
        and "case" in item.callspec.params
        and item.originalname == "test_hostile_input"
        and not item.get_closest_marker("skip")
    ]
    outcomes = run_all(selected)
    if os.environ.get("HOSTILE_REPORT"):
        Path(os.environ["HOSTILE_REPORT"]).write_text(report(outcomes))
    return {outcome.case.id: outcome for outcome in outcomes}


@pytest.mark.parametrize("case", _params(CASES))
def test_hostile_input(hostile_outcomes, case):
    outcome = hostile_outcomes[case.id]
    assert outcome.ending in GOOD, f"{outcome.ending}: {outcome.detail}\n{outcome.reproducer}"


def test_corpus_is_broad():
    """The corpus covers many families, and both good endings are expected somewhere."""
    families = Counter(case.family for case in CASES)
    assert len(families) >= 20 and len(CASES) >= 200, families
    assert any(isinstance(case.expect, Refused) for case in CASES) and any(
        isinstance(case.expect, (Read, Either)) for case in CASES
    )


def test_classifier_names_each_ending(tmp_path):
    """The classifier tells the endings apart on hand-made runs (so a green run means what it says)."""
    refusal = Case("f", "n", (), Refused(("line 3",)))
    reading = Case("f", "n", (), Read(lambda out, folder: None if out == "ok" else "wrong"))
    error = f"{PREFIX} x.csv, line 3: bad"
    assert classify(refusal, 2, "", error + "\n", tmp_path, [])[0] == "refused cleanly"
    assert classify(refusal, 2, "", f"{PREFIX} x.csv: bad\n", tmp_path, [])[0] == "misleading refusal"
    assert classify(refusal, 0, "", "", tmp_path, [])[0] == "silently wrong"
    assert classify(refusal, 2, "", error + "\n", tmp_path, ["o.csv"])[0] == "unsafe write"
    assert classify(refusal, 1, "", "Traceback (most recent call last):\nValueError\n", tmp_path, [])[0] == "traceback"
    assert classify(refusal, 1, "", "Traceback (most recent call last):\nMemoryError\n", tmp_path, [])[0] == "memory"
    assert classify(refusal, None, "", "", tmp_path, [])[0] == "timeout"
    assert classify(reading, 0, "ok", "", tmp_path, [])[0] == "read right"
    assert classify(reading, 0, "no", "", tmp_path, [])[0] == "silently wrong"
    assert classify(reading, 0, "ok", "x.py:3: RuntimeWarning: divide by zero\n", tmp_path, [])[0] == "warning"
    assert classify(reading, 2, "", error + "\n", tmp_path, [])[0] == "misleading refusal"
    assert classify(refusal, 2, "", error + " '\x1b[2J'\n", tmp_path, [])[0] == "misleading refusal"
    written = Case("f", "n", (), Read(), writes=("plots/",))
    assert classify(written, 0, "", "", tmp_path, ["plots", "plots/a.png"])[0] == "read right"
    assert classify(written, 0, "", "", tmp_path, ["plots", "x.png"])[0] == "unsafe write"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--report", type=Path, help="write the summary and the reproducers here")
    parser.add_argument("--case", help="run only the cases whose id contains this text, keeping their folders")
    parser.add_argument("--workers", type=int, default=2)
    arguments = parser.parse_args(argv)
    cases = [case for case in CASES if arguments.case is None or arguments.case in case.id]
    if arguments.case is not None:
        for case in cases:
            keep = Path(tempfile.mkdtemp(prefix="hostile-case-"))
            outcome = run_case(case, keep)
            print(f"{case.id}: {outcome.ending} ({outcome.detail}); folder {keep / 'work'}\n{outcome.stderr}")
        return 0
    started = time.monotonic()
    outcomes = run_all(cases, arguments.workers)
    text = report(outcomes) + f"\n{len(outcomes)} cases in {time.monotonic() - started:.0f} s\n"
    if arguments.report:
        arguments.report.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
