"""Text from the inputs is escaped for each report format: CSV formulas, Markdown, HTML, terminal escapes.

The text from the inputs is the model names.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from llm_power_verified.io import from_array
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.report import render

HOSTILE = [
    '=HYPERLINK("http://x")',
    "a|b\nc",
    "<script>alert(1)</script>",
    "+1",
    "-cmd",
    "@sum",
    "\tTab",
    "esc\x1b[31m",
]


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
