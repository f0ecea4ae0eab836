"""README runs as written: its ```python blocks and its ```bash commands.

The Python blocks run as scripts (``python block.py``, a subprocess with a time
limit) in a temporary folder holding the files they name: ``scores.csv`` (the
shipped example, its clusters in a ``topic`` column), ``board.csv`` (the
shipped accuracies table) and ``tests/fixtures/mmlu_pro_tiger/scores.csv.gz``
(a link to the repository's).  A block whose code has ``if __name__ ==
"__main__":`` is the Dask example; it runs the same way, so a missing guard
shows as a time-out.

The long Python API block holds three statements that take minutes (the
paper's Monte Carlo tables and the full reproduction report).  The default run
executes every other statement as written and names those three in
``MINUTES_LONG``; the test marked ``slow`` (CI runs it) executes the block whole.

Shell commands run from the checkout (the paths they name are relative to it):
``llm-power-verified ...`` through the entry point ``main(argv)``, ``python -m
...`` as a subprocess; each must exit 0.  Not run: installs (``pip install``:
this environment is already installed), ``python -m pytest`` (the suite this
test belongs to) and ``python -m derivations`` without ``--check`` (it rewrites
the committed generated code; the ``--check`` command beside it verifies that
regenerating changes nothing).
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from llm_power_verified.cli import main
from llm_power_verified.examples import shipped_example
from llm_power_verified.io import write_table

CHECKOUT = Path(__file__).resolve().parents[1]
README = (CHECKOUT / "README.md").read_text()
PYTHON_BLOCKS = re.findall(r"^```python\n(.*?)^```", README, re.S | re.M)
BASH_BLOCKS = re.findall(r"^```bash\n(.*?)^```", README, re.S | re.M)

# Statements of the API block that take minutes (measured on two cores: 45 s, 17 s and about 5 minutes).
MINUTES_LONG = ('calibration_table_2(seed=0)', 'embedding_power_grid(n_simulations=1000, seed=0, workers=2)',
                'rows = reproduce("all")')
NOT_RUN = {"install": re.compile(r"\bpip install\b"), "the test suite itself": re.compile(r"^python -m pytest\b"),
           "rewrites the committed generated code (--check verifies it)": re.compile(r"^python -m derivations$")}


def _is_dask_script(block: str) -> bool:
    return 'if __name__ == "__main__":' in block


def _prepare(folder: Path) -> None:
    """The files README's blocks name, in ``folder``."""
    write_table(shipped_example(), folder / "wide.csv")
    (folder / "scores.csv").write_text(_rename_cluster_column((folder / "wide.csv").read_text()))
    shutil.copy(CHECKOUT / "llm_power_verified" / "data" / "mmlu_pro_accuracies.csv", folder / "board.csv")
    fixture = folder / "tests" / "fixtures" / "mmlu_pro_tiger"
    fixture.mkdir(parents=True)
    (fixture / "scores.csv.gz").symlink_to(CHECKOUT / "tests" / "fixtures" / "mmlu_pro_tiger" / "scores.csv.gz")


def _rename_cluster_column(text: str) -> str:
    header, rest = text.split("\n", 1)
    names = header.split(",")
    if "cluster" not in names:
        raise AssertionError(f"write_table wrote no cluster column: {header[:200]}")
    return ",".join("topic" if name == "cluster" else name for name in names) + "\n" + rest


def _run_script(folder: Path, name: str, code: str, timeout: float) -> subprocess.CompletedProcess:
    script = folder / name
    script.write_text(code)
    environment = {**os.environ, "PYTHONPATH": str(CHECKOUT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   "MPLBACKEND": "Agg"}
    try:
        return subprocess.run([sys.executable, name], cwd=folder, env=environment, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"{name} did not finish within {timeout:.0f} s (a Dask script without its main guard "
                             f"hangs like this)\n{error.stdout}\n{error.stderr}") from None


def _without(block: str, statements: tuple[str, ...]) -> str:
    """``block`` with each named one-line top-level statement replaced by ``pass`` (each must be there)."""
    lines = block.split("\n")
    for node in ast.parse(block).body:
        if ast.get_source_segment(block, node) in statements and node.lineno == node.end_lineno:
            lines[node.lineno - 1] = "pass  # " + lines[node.lineno - 1]
    text = "\n".join(lines)
    for statement in statements:
        assert f"pass  # {statement}" in text, f"README's API block no longer has {statement!r}: update MINUTES_LONG"
    return text


def _api_block() -> str:
    blocks = [block for block in PYTHON_BLOCKS if "audit_leaderboard(matrix" in block and not _is_dask_script(block)]
    assert len(blocks) == 1, "README should hold one Python API block"
    return blocks[0]


def _check(result: subprocess.CompletedProcess, name: str) -> None:
    assert result.returncode == 0, f"{name} failed:\n{result.stderr[-4000:]}"
    assert result.stderr == "", f"{name} wrote to stderr (a warning?):\n{result.stderr[-4000:]}"


def test_readme_has_the_blocks_this_test_runs():
    """Two or more Python blocks (the API block, the graded example, the Dask script) and the shell commands."""
    assert len(PYTHON_BLOCKS) >= 3 and sum(map(_is_dask_script, PYTHON_BLOCKS)) == 1
    assert any("llm-power-verified" in block for block in BASH_BLOCKS)


def test_python_api_block_runs_as_written_but_for_the_minutes_long_statements(tmp_path):
    _prepare(tmp_path)
    result = _run_script(tmp_path, "api.py", _without(_api_block(), MINUTES_LONG), timeout=600)
    _check(result, "README's API block")
    assert (tmp_path / "pairs.parquet").stat().st_size > 0


@pytest.mark.slow
def test_python_api_block_runs_whole(tmp_path):
    _prepare(tmp_path)
    _check(_run_script(tmp_path, "api.py", _api_block(), timeout=1800), "README's API block")


@pytest.mark.parametrize("index", [i for i, block in enumerate(PYTHON_BLOCKS)
                                   if "audit_leaderboard(matrix" not in block or _is_dask_script(block)])
def test_other_python_blocks_run_as_scripts(tmp_path, index):
    """The graded example and the Dask script (with its main guard: a bounded time)."""
    _prepare(tmp_path)
    block = PYTHON_BLOCKS[index]
    _check(_run_script(tmp_path, f"block_{index}.py", block, timeout=300), f"README's Python block {index}")


def _shell_commands() -> list[str]:
    commands = []
    for block in BASH_BLOCKS:
        for line in block.splitlines():
            line = line.split(" #", 1)[0].strip()
            if line and not line.startswith("#"):
                commands.extend(part.strip() for part in line.split("&&"))
    return commands


def _skip_reason(command: str) -> str | None:
    return next((reason for reason, pattern in NOT_RUN.items() if pattern.search(command)), None)


def _parameters(commands: list[str]) -> list:
    """The commands, ``python -m derivations --check`` marked slow: a minute, and tests/test_derivations.py checks it too."""
    return [pytest.param(command, marks=pytest.mark.slow) if command.startswith("python -m derivations") else command
            for command in commands]


@pytest.mark.parametrize("command", _parameters(_shell_commands()))
def test_shell_command_exits_zero(command):
    reason = _skip_reason(command)
    if reason:
        pytest.skip(f"not run: {reason}")
    words = shlex.split(command)
    if words[0] == "llm-power-verified":
        out, err = io.StringIO(), io.StringIO()
        previous = os.getcwd()
        os.chdir(CHECKOUT)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(words[1:])
        finally:
            os.chdir(previous)
        assert status == 0, f"{command} exited {status}:\n{err.getvalue()}"
        assert out.getvalue().strip(), f"{command} printed nothing"
    elif words[:2] == ["python", "-m"]:
        result = subprocess.run([sys.executable, *words[1:]], cwd=CHECKOUT, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"{command} exited {result.returncode}:\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
    else:
        raise AssertionError(f"README runs {command!r}, which this test does not know how to run: add it here")


def test_every_shell_command_is_run_or_skipped_for_a_stated_reason():
    """The skip list matches only what it names (an install, the suite, the regeneration), nothing else."""
    skipped = [command for command in _shell_commands() if _skip_reason(command)]
    assert all(command.startswith(("python -m pip install", "python -m pytest", "python -m derivations"))
               for command in skipped), skipped
    assert len(skipped) < len(_shell_commands())
