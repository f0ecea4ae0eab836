"""Text from inputs in every human format: no control, bidirectional or line-separator character reaches a terminal,
a Markdown or an HTML report raw; the machine formats (JSON, CSV) keep names exactly, CSV with formulas neutralised."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from llm_power_verified.io import from_array
from llm_power_verified.io.escaping import csv_text, markdown_text, terminal_lines, terminal_text
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.report.table import grid

REPOSITORY = Path(__file__).resolve().parents[2]
#: Every character that may not reach a terminal or a Markdown file raw (the rule of io.output).
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
HOSTILE_CHARACTERS = {
    "right-to-left override": "\u202e",
    "left-to-right override": "\u202d",
    "right-to-left embedding": "\u202b",
    "pop directional formatting": "\u202c",
    "left-to-right mark": "\u200e",
    "right-to-left mark": "\u200f",
    "arabic letter mark": "\u061c",
    "left-to-right isolate": "\u2066",
    "first strong isolate": "\u2068",
    "pop directional isolate": "\u2069",
    "line separator": "\u2028",
    "paragraph separator": "\u2029",
    "escape (C0)": "\x1b",
    "NUL (C0)": "\x00",
    "delete": "\x7f",
    "next line (C1)": "\x85",
    "CSI (C1)": "\x9b",
    "lone surrogate": "\ud800",
}


@pytest.mark.parametrize("character", HOSTILE_CHARACTERS.values(), ids=HOSTILE_CHARACTERS.keys())
@pytest.mark.parametrize("escape", [terminal_text, markdown_text, terminal_lines])
def test_each_hostile_character_is_shown_as_an_escape(character, escape):
    shown = escape(f"model{character}name")
    code = ord(character)
    assert not RAW.search(shown) and shown.startswith("model") and shown.endswith("name")
    assert (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}") in shown
    shown.encode("utf-8")  # printable on any UTF-8 terminal (a lone surrogate would raise here)


def test_ordinary_text_is_unchanged_and_whole_texts_keep_their_lines():
    for text in ("gpt-4o (2024-08-06)", "Qwen2.5-72B", "模型 β", "emoji 👩\u200d💻"):  # the joiner of an emoji stays
        assert terminal_text(text) == text and terminal_lines(text) == text
    assert terminal_lines("a\tb\nc\u202ed\n") == "a\tb\nc\\u202ed\n"
    assert markdown_text("a|b\nc<d>\u2028") == "a\\|b<br>c&lt;d&gt;\\u2028"


@pytest.mark.parametrize(
    "cell, expected",
    [
        ("=SUM(A1)", "'=SUM(A1)"),
        ("+1", "'+1"),
        ("-cmd", "'-cmd"),
        ("@x", "'@x"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("\x00x", "'\x00x"),
        ("gpt-4", "gpt-4"),
        ("1-2", "1-2"),
        (" =x", " =x"),
    ],
)
def test_csv_cells_that_a_spreadsheet_would_run_get_a_quote(cell, expected):
    assert csv_text(cell) == expected


def test_the_terminal_grid_stays_aligned_with_hostile_cells():
    rows = [["evil\u202egnp.exe", "1"], ["sep\u2028x", "22"], ["c1\x9b31m", "333"]]
    text = grid(["model", "n"], rows, markdown=False)
    assert not RAW.search(text) and len({len(line) for line in text.splitlines()}) == 1
    markdown = grid(["model", "n"], rows, markdown=True)
    assert not RAW.search(markdown) and all(line.count(" | ") == 1 for line in markdown.splitlines()[2:])


NAMES = ["evil\u202egnp.exe", "line\u2028sep", "c1\x9b31m", "bidi\u2066x\u2069", "=cmd|' /C calc'!A0"]


def _hostile_result():
    rng = np.random.default_rng(7)
    scores = (rng.random((120, len(NAMES))) < np.linspace(0.8, 0.4, len(NAMES))).astype(float)
    clusters = [f"k\u202e{i % 4}" for i in range(120)]
    return audit_leaderboard(
        from_array(scores, models=NAMES, clusters=clusters), "all", n_resamples=0, n_cluster_resamples=0
    )


def test_html_shows_hostile_names_as_escapes():
    from llm_power_verified.report import render

    page = render(_hostile_result(), "html", figures=False)
    assert not RAW.search(page) and "evil\\u202egnp.exe" in page and "c1\\x9b31m" in page


def test_machine_formats_keep_names_exactly():
    from llm_power_verified.report import render

    result = _hostile_result()
    document = json.loads(render(result, "json"))
    assert {row["model"] for row in document["ranking"]} == set(NAMES)
    assert "'=cmd|' /C calc'!A0" in render(result, "csv")


def _cli(*arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    environment = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPOSITORY), *filter(None, [os.environ.get("PYTHONPATH")])])
    )
    return subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", *arguments],
        capture_output=True,
        timeout=300,
        cwd=cwd,
        env=environment,
    )


@pytest.fixture
def hostile_table(tmp_path: Path) -> Path:
    rng = np.random.default_rng(11)
    header = "item_id,cluster," + ",".join(f'"{name}"' if "," in name or "'" in name else name for name in NAMES)
    rows = [
        f"q{i},k\u202e{i % 3}," + ",".join(str(int(rng.random() < 0.3 + 0.1 * j)) for j in range(len(NAMES)))
        for i in range(60)
    ]
    path = tmp_path / "hostile.csv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("output", ["table", "markdown", "html"])
def test_cli_reports_of_hostile_names_and_labels_carry_no_raw_character(tmp_path, hostile_table, output):
    common = [
        hostile_table.name,
        "--cluster-column",
        "cluster",
        "--format",
        output,
        "--n-resamples",
        "0",
        "--n-cluster-resamples",
        "0",
    ]
    printed = _cli("audit", *common, cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    text = printed.stdout.decode("utf-8")
    assert not RAW.search(text) and not RAW.search(printed.stderr.decode("utf-8")) and "evil\\u202egnp.exe" in text
    written = _cli("audit", *common, "--out", f"report.{output}", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert not RAW.search((tmp_path / f"report.{output}").read_text(encoding="utf-8"))


def test_cli_error_lines_show_hostile_file_names_as_escapes(tmp_path):
    name = "bad\u202ename\x9b.csv"
    (tmp_path / name).write_text("item_id,a,b\nq1,1,0\nq2,0,x\n")
    result = _cli("audit", name, cwd=tmp_path)
    error = result.stderr.decode("utf-8")
    assert result.returncode == 2 and len(error.strip().splitlines()) == 1 and "Traceback" not in error
    assert not RAW.search(error) and "bad\\u202ename" in error
