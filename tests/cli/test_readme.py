"""README and the documentation's pages run as written: their Python blocks and their shell commands.

The blocks come from README.md (```python, ```bash) and from the hand-written pages of ``docs/source``
(``.. code-block:: python``, ``.. code-block:: bash``): the index, the guide, the command line, glossary and
conventions pages, and the verification page.  A block that cannot run here (it needs the user's own files,
say) is preceded in the page by the comment ``.. skip-test: REASON``; a block that takes more than a few seconds
by ``.. slow-test: REASON`` (it runs under the ``slow`` marker, which CI runs).

Python blocks run as scripts (``python block.py``, a subprocess with a time limit) in a temporary folder holding
the files they name: ``scores.csv`` (the shipped example, its clusters in a ``topic`` column), ``board.csv`` (the
shipped accuracies table), ``scores_a.txt``/``scores_b.txt`` (two models of the shipped example, one score a
line), and links to the repository's ``tests/fixtures/`` (the genuine harness outputs) and
``llm_power_verified/data/``; a ``*`` in a command's word is expanded there, as a shell would.  A block whose
code has ``if __name__ == "__main__":`` is a Dask example; it runs
the same way, so a missing guard shows as a time-out.

The guide's long Python tour holds three statements that take minutes (the paper's Monte Carlo tables and the
full reproduction report).  The default run executes every other statement as written and names those three in
``MINUTES_LONG``; the test marked ``slow`` executes the block whole.

Shell commands: ``llm-power-verified ...`` runs through the entry point ``main(argv)`` in the prepared folder,
``python -m ...`` as a subprocess from the checkout; each must exit 0.  Not run: installs (``pip install``: this
environment is already installed), ``python -m pytest`` (the suite this test belongs to), ``python -m sphinx``
(tests/docs builds the site) and ``python -m derivations`` without ``--check`` (it rewrites the committed generated
code; the ``--check`` command beside it verifies that regenerating changes nothing).
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
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from llm_power_verified.cli import main
from llm_power_verified.examples import shipped_example
from llm_power_verified.io import write_table

CHECKOUT = Path(__file__).resolve().parents[2]
DOCS = CHECKOUT / "docs" / "source"
#: The hand-written pages whose blocks run (the API pages and columns.rst are generated, without runnable blocks).
DOC_PAGES = sorted(
    [
        DOCS / "index.rst",
        DOCS / "verification.rst",
        *(DOCS / "guide").glob("*.rst"),
        *(DOCS / "guide" / "formats").glob("*.rst"),
        *(DOCS / "reference" / name for name in ("cli.rst", "glossary.rst", "conventions.rst")),
    ]
)

# Statements of the guide's Python tour that take minutes (measured on two cores: 45 s, 17 s and about 5 minutes).
MINUTES_LONG = (
    "calibration_table_2(seed=0)",
    "embedding_power_grid(n_simulations=1000, seed=0, workers=2)",
    'rows = reproduce("all")',
)
NOT_RUN = {
    "install": re.compile(r"\bpip install\b"),
    "the test suite itself": re.compile(r"^python -m pytest\b"),
    "the documentation build (tests/docs builds it)": re.compile(r"^python -m sphinx\b"),
    "rewrites the committed generated code (--check verifies it)": re.compile(r"^python -m derivations$"),
}


@dataclass(frozen=True)
class Block:
    """One code block: where it is (``file:line``), its language, its code and why it is skipped or slow."""

    where: str
    language: str
    code: str
    skip: str | None = None
    slow: str | None = None


def _markdown_blocks(path: Path) -> list[Block]:
    text = path.read_text()
    return [
        Block(f"{path.name}:{text[: match.start()].count(chr(10)) + 1}", match.group(1), match.group(2))
        for match in re.finditer(r"^```(python|bash|text)\n(.*?)^```", text, re.S | re.M)
    ]


RST_BLOCK = re.compile(
    r"((?:^\.\. (?:skip|slow)-test: .*\n\n?)*)^\.\. code-block:: (python|bash|text)\n"
    r"(?:   :[\w-]+:.*\n)*\n((?:(?:   .*)?\n)+)",
    re.M,
)


def _rst_blocks(path: Path) -> list[Block]:
    text = path.read_text()
    blocks = []
    for match in RST_BLOCK.finditer(text):
        marks = dict(re.findall(r"^\.\. (skip|slow)-test: (.*)$", match.group(1), re.M))
        blocks.append(
            Block(
                f"{path.relative_to(DOCS)}:{text[: match.start(2)].count(chr(10)) + 1}",
                match.group(2),
                textwrap.dedent(match.group(3)).strip("\n") + "\n",
                marks.get("skip"),
                marks.get("slow"),
            )
        )
    return blocks


README_BLOCKS = _markdown_blocks(CHECKOUT / "README.md")
DOC_BLOCKS = [block for page in DOC_PAGES for block in _rst_blocks(page)]
BLOCKS = README_BLOCKS + DOC_BLOCKS


def _is_dask_script(block: Block) -> bool:
    return 'if __name__ == "__main__":' in block.code


def _is_tour(block: Block) -> bool:
    return all(statement in block.code for statement in MINUTES_LONG)


def _prepare(folder: Path) -> None:
    """The files the blocks name, in ``folder``."""
    write_table(shipped_example(), folder / "wide.csv")
    (folder / "scores.csv").write_text(_rename_cluster_column((folder / "wide.csv").read_text()))
    shutil.copy(CHECKOUT / "llm_power_verified" / "data" / "mmlu_pro_accuracies.csv", folder / "board.csv")
    matrix = shipped_example()
    for column, name in ((0, "scores_a.txt"), (1, "scores_b.txt")):
        (folder / name).write_text("".join(f"{score:g}\n" for score in matrix.scores[:, column]))
    (folder / "tests").mkdir()
    (folder / "tests" / "fixtures").symlink_to(CHECKOUT / "tests" / "fixtures")
    (folder / "llm_power_verified").mkdir()
    (folder / "llm_power_verified" / "data").symlink_to(CHECKOUT / "llm_power_verified" / "data")


def _rename_cluster_column(text: str) -> str:
    header, rest = text.split("\n", 1)
    names = header.split(",")
    if "cluster" not in names:
        raise AssertionError(f"write_table wrote no cluster column: {header[:200]}")
    return ",".join("topic" if name == "cluster" else name for name in names) + "\n" + rest


def _run_script(folder: Path, name: str, code: str, timeout: float) -> subprocess.CompletedProcess:
    script = folder / name
    script.write_text(code)
    environment = {
        **os.environ,
        "PYTHONPATH": str(CHECKOUT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "MPLBACKEND": "Agg",
    }
    try:
        return subprocess.run(
            [sys.executable, name], cwd=folder, env=environment, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError(
            f"{name} did not finish within {timeout:.0f} s (a Dask script without its main guard "
            f"hangs like this)\n{error.stdout}\n{error.stderr}"
        ) from None


def _without(block: str, statements: tuple[str, ...]) -> str:
    """``block`` with each named one-line top-level statement replaced by ``pass`` (each must be there)."""
    lines = block.split("\n")
    for node in ast.parse(block).body:
        if ast.get_source_segment(block, node) in statements and node.lineno == node.end_lineno:
            lines[node.lineno - 1] = "pass  # " + lines[node.lineno - 1]
    text = "\n".join(lines)
    for statement in statements:
        assert f"pass  # {statement}" in text, (
            f"the guide's Python tour no longer has {statement!r}: update MINUTES_LONG"
        )
    return text


def _check(result: subprocess.CompletedProcess, name: str) -> None:
    assert result.returncode == 0, f"{name} failed:\n{result.stderr[-4000:]}"
    assert result.stderr == "", f"{name} wrote to stderr (a warning?):\n{result.stderr[-4000:]}"


def _marked(block: Block, value):
    """``value`` as a parameter, marked slow or skipped as its block says."""
    if block.skip:
        return pytest.param(value, marks=pytest.mark.skip(reason=f"{block.where}: {block.skip}"), id=block.where)
    if block.slow:
        return pytest.param(value, marks=pytest.mark.slow, id=block.where)
    return pytest.param(value, id=block.where)


def test_readme_and_docs_have_the_blocks_this_test_runs():
    """README: the API sample, the two Quick start commands and the report excerpt.

    The docs: the tour, a Dask script.
    """
    readme_python = [block for block in README_BLOCKS if block.language == "python"]
    assert len(readme_python) == 1 and "audit_leaderboard(" in readme_python[0].code
    assert any("llm-power-verified audit" in block.code for block in README_BLOCKS if block.language == "bash")
    assert sum(block.language == "text" for block in README_BLOCKS) == 1
    assert sum(map(_is_tour, DOC_BLOCKS)) == 1 and sum(map(_is_dask_script, DOC_BLOCKS)) == 1
    assert len(DOC_BLOCKS) >= 8, [block.where for block in DOC_BLOCKS]


def _quoted_in_order(excerpt: list[str], printed: list[str]) -> str | None:
    """None when every line of ``excerpt`` (but ``...``) is a line of ``printed``, in order.

    Else the first that is not.
    """
    position = 0
    for line in excerpt:
        if line == "...":
            continue
        if line not in printed[position:]:
            return line
        position = printed.index(line, position) + 1
    return None


def test_readme_report_excerpt_is_what_the_command_prints(capsys):
    """Every line of README's excerpt (but the ``...`` that mark cuts) is a line the main job prints, in order."""
    excerpt = next(block for block in README_BLOCKS if block.language == "text").code.splitlines()
    assert main(["audit"]) == 0
    printed = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    missing = _quoted_in_order(excerpt, printed)
    assert missing is None, f"README's report excerpt has {missing!r}, which the audit no longer prints"


# The audits the "Reading the report" page quotes: the main job, and the MMLU-Pro fixture with its subjects as clusters.
REPORT_GUIDE_AUDITS = (
    ["audit"],
    ["audit", "--min-effect", "0.02"],
    [
        "audit",
        str(CHECKOUT / "tests" / "fixtures" / "mmlu_pro_tiger" / "scores.csv.gz"),
        "--cluster-column",
        "category",
        "--n-resamples",
        "0",
    ],
)


def test_report_guide_quotes_what_the_command_prints(capsys):
    """Each excerpt of the "Reading the report" page is printed by one of the audits it quotes.

    It is printed line by line, in order.
    """
    excerpts = [
        block
        for block in DOC_BLOCKS
        if block.where.startswith("guide/reading-the-report.rst") and block.language == "text"
    ]
    assert len(excerpts) >= 7, [block.where for block in excerpts]
    outputs = []
    for argv in REPORT_GUIDE_AUDITS:
        assert main(argv) == 0
        outputs.append([line.rstrip() for line in capsys.readouterr().out.splitlines()])
    for block in excerpts:
        missing = [_quoted_in_order(block.code.splitlines(), printed) for printed in outputs]
        assert None in missing, f"{block.where} quotes {missing[0]!r}, which the audit it quotes no longer prints there"


PYTHON = [block for block in BLOCKS if block.language == "python"]


@pytest.mark.parametrize("block", [_marked(block, block) for block in PYTHON if not _is_tour(block)])
def test_python_block_runs_as_a_script(tmp_path, block):
    """README's API sample, the monitoring examples and the Dask script (with its main guard: a bounded time)."""
    _prepare(tmp_path)
    _check(_run_script(tmp_path, "block.py", block.code, timeout=300), f"the Python block at {block.where}")


TOUR = next(block for block in DOC_BLOCKS if _is_tour(block))


@pytest.mark.parametrize("block", [_marked(TOUR, TOUR)])
def test_python_tour_runs_as_written_but_for_the_minutes_long_statements(tmp_path, block):
    _prepare(tmp_path)
    _check(
        _run_script(tmp_path, "tour.py", _without(block.code, MINUTES_LONG), timeout=600),
        f"the Python tour at {block.where}",
    )
    assert (tmp_path / "pairs.parquet").stat().st_size > 0


@pytest.mark.slow
def test_python_tour_runs_whole(tmp_path):
    _prepare(tmp_path)
    _check(_run_script(tmp_path, "tour.py", TOUR.code, timeout=1800), f"the Python tour at {TOUR.where}")


def _shell_commands() -> list[tuple[Block, str]]:
    commands = []
    for block in BLOCKS:
        if block.language != "bash":
            continue
        for line in block.code.splitlines():
            line = line.split(" #", 1)[0].strip()
            if line and not line.startswith("#"):
                commands.extend((block, part.strip()) for part in line.split("&&"))
    return commands


def _skip_reason(command: str) -> str | None:
    return next((reason for reason, pattern in NOT_RUN.items() if pattern.search(command)), None)


def _parameters(commands: list[tuple[Block, str]]) -> list:
    """The commands; ``python -m derivations --check`` marked slow.

    It takes a minute, and tests/verification/test_derivations.py checks it.
    """
    parameters = []
    for block, command in commands:
        parameter = _marked(block, command)
        if command.startswith("python -m derivations") and not block.skip:
            parameter = pytest.param(command, marks=pytest.mark.slow, id=block.where)
        parameters.append(parameter)
    return parameters


@pytest.mark.parametrize("command", _parameters(_shell_commands()))
def test_shell_command_exits_zero(command, tmp_path):
    reason = _skip_reason(command)
    if reason:
        pytest.skip(f"not run: {reason}")
    words = shlex.split(command)
    if words[0] == "llm-power-verified":
        _prepare(tmp_path)
        words = _expanded(words, tmp_path)
        out, err = io.StringIO(), io.StringIO()
        previous = os.getcwd()
        os.chdir(tmp_path)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(words[1:])
        finally:
            os.chdir(previous)
        assert status == 0, f"{command} exited {status}:\n{err.getvalue()}"
        assert out.getvalue().strip() or "--out" in words, f"{command} printed nothing"
    elif words[:2] == ["python", "-m"]:
        result = subprocess.run([sys.executable, *words[1:]], cwd=CHECKOUT, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, (
            f"{command} exited {result.returncode}:\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )
    else:
        raise AssertionError(f"{command!r} is a command this test does not know how to run: add it here")


def _expanded(words: list[str], folder: Path) -> list[str]:
    """The words with shell patterns (``*``) expanded in ``folder`` as a shell would (sorted); none matching fails."""
    expanded = []
    for word in words:
        if "*" not in word:
            expanded.append(word)
            continue
        matches = sorted(str(path.relative_to(folder)) for path in folder.glob(word))
        assert matches, f"{word} matches no file"
        expanded.extend(matches)
    return expanded


def test_every_shell_command_is_run_or_skipped_for_a_stated_reason():
    """The skip list matches only what it names (an install, the suite, the docs build, the regeneration)."""
    commands = [command for _, command in _shell_commands()]
    skipped = [command for command in commands if _skip_reason(command)]
    assert all(
        command.startswith(("python -m pip install", "python -m pytest", "python -m sphinx", "python -m derivations"))
        for command in skipped
    ), skipped
    assert len(skipped) < len(commands)
    marked = [block for block in BLOCKS if block.skip]
    assert all(block.skip.strip() for block in marked), "a skip-test comment gives its reason"
