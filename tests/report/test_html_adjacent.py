"""The HTML report shows the ``adjacent`` column exactly when the text tables do (report.view.with_adjacent)."""

from __future__ import annotations

import re
from pathlib import Path

from llm_power_verified.examples import shipped_example
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.leaderboard.accuracies import audit_accuracies
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.report import render

ACCURACIES = Path(__file__).resolve().parents[2] / "llm_power_verified" / "data" / "mmlu_pro_accuracies.csv"


def _pairs_table(page: str) -> tuple[list[str], list[list[str]]]:
    """The pair table's column keys and the text of its cells, row by row."""
    table = page[page.index('id="pairs"') :]
    table = table[: table.index("</table>")]
    keys = re.findall(r'<th data-column="([^"]*)"', table)
    rows = [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr class=\"pair\">(.*?)</tr>", table)]
    return keys, rows


def test_every_pair_listed_marks_the_adjacent_ones():
    audit = audit_leaderboard(shipped_example(clusters=False), "all", n_resamples=0)
    keys, rows = _pairs_table(render(audit, "html", pairs="all", figures=False))
    assert keys[:3] == ["model_a", "model_b", "adjacent"]
    assert len(rows) == 45
    marked = [row[2] for row in rows]
    assert marked == ["yes" if value else "no" for value in audit.pairs["adjacent"]] and marked.count("yes") == 9


def test_adjacent_pairs_only_have_no_adjacent_column():
    audit = audit_leaderboard(shipped_example(clusters=False), "adjacent", n_resamples=0)
    keys, _ = _pairs_table(render(audit, "html", figures=False))
    assert "adjacent" not in keys


def test_accuracies_listing_every_pair_marks_the_adjacent_ones():
    audit = audit_accuracies(read_accuracies(ACCURACIES), mode="all")
    keys, rows = _pairs_table(render(audit, "html", pairs="all"))
    assert keys[:3] == ["model_a", "model_b", "adjacent"] and sum(row[2] == "yes" for row in rows) == 25
