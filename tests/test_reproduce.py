"""Reproduction report: rows whose inputs are unambiguous, and the verdict logic."""

from __future__ import annotations

import json

import pytest

from llm_power_verified.cli import main
from llm_power_verified.reproduce import Printed, _verdict, reproduce


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
