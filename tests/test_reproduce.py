"""Reproduction report: rows whose inputs are unambiguous, and the verdict logic."""

from __future__ import annotations

import json

import numpy as np
import pytest

from llm_power_verified.cli import main
from llm_power_verified.reproduce import Printed, reproduce
from llm_power_verified.reproduce.core import verdict_of as _verdict


@pytest.fixture(scope="module")
def rows():
    return reproduce()


def _find(rows, location, quantity):
    return next(row for row in rows if row.location.startswith(location) and row.quantity == quantity)


def test_discordance_tables_follow_from_their_counts(rows):
    """Tables 6-7: N* and both p-values are functions of (b, c, N) alone."""
    for row in rows:
        if row.location.startswith(("Table 6", "Table 7")) and row.quantity.endswith("p-value"):
            assert row.verdict == "agrees", row
    assert _find(rows, "Table 6, HellaSwag", "N* (Eq. 6)").verdict == "agrees"
    rounded = [row for row in rows if row.location.startswith("Table 7") and row.quantity == "N* (Eq. 6)" and row.verdict != "agrees"]
    assert all(row.relative_difference < 0.002 for row in rounded)


def test_table_1_and_lemma_constants(rows):
    for quantity in ("correct N* (Eq. 6), integer", "per-arm K/h^2, integer", "K/h^2 x (1 - rho), integer"):
        assert _find(rows, "Table 1", quantity).verdict == "agrees"
    for quantity in ("C(0.65, 0.0)", "C(0.8, 0.5)", "C(0.65, 0.9)"):
        assert _find(rows, "Appendix A", quantity).verdict == "agrees"
    assert _find(rows, "Corollary 1", "delta*(0.65, 0.3, 0.05), leading order").verdict == "agrees"


def test_the_papers_numerical_bound_at_delta_005_fails(rows):
    row = _find(rows, "Section 4, numerical check", "max |n_h/N* - 1/2| at delta = 0.05")
    assert row.verdict == "differs" and row.computed > 0.0008


def test_seed_004_table_is_half_of_its_own_formula(rows):
    table = [row for row in rows if row.location == "Section 3 table"]
    assert len(table) == 12
    assert all(row.reason.startswith("printed value is half") for row in table)


def test_verdict_logic():
    entry = Printed("p", "l", "q", "1,028", lambda: 1027.6, "i")
    assert _verdict(entry, 1027.6)[1] == "agrees"
    assert _verdict(entry, 1029.0)[1] == "differs"
    bound = Printed("p", "l", "q", "0.0008", lambda: 0.0, "i", "upper-bound")
    assert _verdict(bound, 0.0007)[1] == "agrees" and _verdict(bound, 0.002)[1] == "differs"


def test_cli_reproduce_json(capsys):
    assert main(["reproduce", "--paper", "sample-size", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {"location", "printed", "computed", "relative_difference", "verdict", "reason"} <= set(records[0])


def test_verdict_kinds_for_monte_carlo_ranges_and_bounds():
    mc = Printed("p", "l", "q", "0.79", lambda: 0.0, "i", "monte-carlo", tolerance=0.03)
    assert _verdict(mc, 0.815)[1] == "agrees" and _verdict(mc, 0.83)[1] == "differs"
    span = Printed("p", "l", "q", "500-1000", lambda: 0.0, "i", "range", bounds=(500, 1000))
    assert _verdict(span, 700)[1] == "agrees" and _verdict(span, 454)[1] == "differs"
    lower = Printed("p", "l", "q", "0.85", lambda: 0.0, "i", "lower-bound")
    assert _verdict(lower, 0.97)[1] == "agrees" and _verdict(lower, 0.8)[1] == "differs"
    approximate = Printed("p", "l", "q", "~0.048", lambda: 0.0, "i")
    assert _verdict(approximate, 0.0489)[1] == "agrees" and _verdict(approximate, 0.0495)[1] == "differs"
    missing = Printed("p", "l", "q", "6", lambda: 0.0, "i", "not-reproducible", reason="no data")
    assert _verdict(missing, float("nan"))[1:] == ("not reproducible", "no data")


def test_table_3_close_buckets_and_table_11_follow_from_table_6(rows):
    for quantity in ("pairs", "unresolved", "r = N*/N median", "r = N*/N worst"):
        assert _find(rows, "Table 3, |delta| <= 1%", quantity).verdict == "agrees"
        assert _find(rows, "Table 3, |delta| 1%-2%", quantity).verdict == "agrees"
    table_11 = [row for row in rows if row.location.startswith("Table 11")]
    assert len(table_11) == 7 and all(row.verdict == "agrees" for row in table_11)
    assert _find(rows, "Table 5 / Section 6.2", "Bonferroni/Holm unresolved of 9 MMLU-Pro pairs (m = 9)").computed == 4


def test_rows_that_need_unprinted_data_say_so(rows):
    missing = [row for row in rows if row.verdict == "not reproducible"]
    assert len(missing) >= 3
    assert all(np.isnan(row.computed) and row.reason for row in missing)


def test_monte_carlo_tables_are_present_with_their_errors(rows):
    table_2 = [row for row in rows if row.location.startswith("Table 2")]
    assert len(table_2) == 15 and all("Monte Carlo" in row.reason for row in table_2)
    table_10 = [row for row in rows if row.location.startswith("Table 10") and "power" in row.quantity]
    assert len(table_10) == 9 and all(row.verdict == "agrees" for row in table_10)
    # N* of the two Table 10 pairs whose accuracies Table 6 states does not follow from |delta| and rho
    assert all(row.verdict == "differs" for row in rows if row.location.startswith("Table 10") and row.quantity == "N* (Eq. 6)")


def test_embedding_paper_rows(rows):
    embedding = [row for row in rows if row.paper.startswith("seed 001")]
    assert len(embedding) > 140
    cell = next(row for row in embedding if row.quantity == "t-test power, N = 100, rho = 0.5" and row.location == "Section 4.2 table")
    assert cell.verdict == "agrees" and abs(cell.computed - 0.134) < 0.02
    assert next(row for row in embedding if row.quantity.startswith("power at delta = 0.015, N = 150")).verdict == "differs"
    assert next(row for row in embedding if row.quantity.startswith("minimum N for 80% power, delta = 0.01, rho = 0.8")).verdict == "differs"
    assert next(row for row in embedding if row.quantity.startswith("max normal-vs-Beta")).computed == pytest.approx(0.002)


def test_cli_reproduce_embedding_json_has_no_nan(capsys):
    assert main(["reproduce", "--paper", "main", "--json"]) == 0
    text = capsys.readouterr().out
    assert "NaN" not in text
    records = json.loads(text)
    assert any(record["computed"] is None for record in records)
