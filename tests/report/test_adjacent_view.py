"""The text formats tell adjacent pairs from the rest when a listing mixes them (the machine formats' ``adjacent``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_power_verified.examples import shipped_example
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.leaderboard.accuracies import audit_accuracies
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.report import render

ACCURACIES = Path(__file__).resolve().parents[2] / "llm_power_verified" / "data" / "mmlu_pro_accuracies.csv"


def _pair_rows(text: str, markdown: bool) -> tuple[list[str], list[list[str]]]:
    """The pair table's header cells and rows (Markdown, or the terminal's columns split on runs of spaces)."""
    lines = text.splitlines()
    start = lines.index("## Pairs" if markdown else "Pairs") + 1
    while not lines[start].startswith("| A |" if markdown else "A "):
        start += 1
    end = lines.index("", start)
    split = (
        (lambda line: [cell.strip() for cell in line.strip("|").split("|")])
        if markdown
        else (lambda line: line.split())
    )
    rows = [split(line) for line in lines[start:end] if not line.startswith("|---")]
    return rows[0], rows[1:]


@pytest.mark.parametrize("output", ["table", "markdown"])
def test_a_listing_of_every_pair_marks_the_adjacent_ones(output):
    audit = audit_leaderboard(shipped_example(clusters=False), "all", n_resamples=0)
    text = render(audit, output, pairs="all")
    headers, rows = _pair_rows(text, output == "markdown")
    assert headers[:3] == ["A", "B", "adjacent"]
    ranks = dict(zip(audit.ranking["model"], audit.ranking["rank"], strict=True))
    marked = {(row[0], row[1]) for row in rows if row[2] == "yes"}
    assert len(rows) == 45 and all(row[2] in ("yes", "no") for row in rows)
    assert marked == {
        (a, b)
        for a, b in zip(audit.pairs["model_a"], audit.pairs["model_b"], strict=True)
        if abs(ranks[a] - ranks[b]) == 1
    }
    assert "adjacent (adjacent): the two models are next in the ranking" in text  # and the legend defines it


def test_a_listing_of_adjacent_pairs_only_has_no_adjacent_column():
    audit = audit_leaderboard(shipped_example(clusters=False), "adjacent", n_resamples=0)
    headers, _ = _pair_rows(render(audit, "table"), False)
    assert "adjacent" not in headers


def test_accuracies_mark_adjacent_pairs_by_name_in_markdown_and_by_rank_in_the_terminal():
    audit = audit_accuracies(read_accuracies(ACCURACIES), mode="all")
    headers, rows = _pair_rows(render(audit, "markdown", pairs="all"), True)
    assert headers[:3] == ["A", "B", "adjacent"] and sum(row[2] == "yes" for row in rows) == 25
    terminal = render(audit, "table", pairs="all")
    assert "A, B: the models' ranks in the model table (adjacent pairs: ranks that differ by 1)" in terminal
