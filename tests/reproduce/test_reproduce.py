"""Reproduction report: rows whose inputs are unambiguous, and the verdict logic."""

from __future__ import annotations

import json

import numpy as np
import pytest

from llm_power_verified.cli import main
from llm_power_verified.reproduce import Printed, reproduce
from llm_power_verified.reproduce.records import EMBEDDING, MAIN, PAPERS, SAMPLE_SIZE, SUMMARY
from llm_power_verified.reproduce.verdicts import verdict_of as _verdict


@pytest.fixture(scope="module")
def rows():
    return reproduce()


def _find(rows, location, quantity):
    return next(row for row in rows if row.location.startswith(location) and row.quantity == quantity)


def test_papers_are_named_by_title_and_arxiv_id(rows):
    """A row names its paper by title (and arXiv id when there is one), never by a file's number."""
    assert {row.paper for row in rows} == {MAIN.name, SUMMARY.name, EMBEDDING.name, SAMPLE_SIZE.name}
    assert MAIN.name == "Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315)"
    assert EMBEDDING.name.startswith("How Many Test Pairs Do You Need?") and EMBEDDING.arxiv is None
    assert [paper.key for paper in PAPERS] == ["main", "embedding", "sample-size"]


def test_discordance_tables_follow_from_their_counts(rows):
    """Tables 6-7: N* and both p-values are functions of (b, c, N) alone."""
    for row in rows:
        if row.location.startswith(("Table 6", "Table 7")) and row.quantity.endswith("p-value"):
            assert row.verdict == "agrees", row
    # Table 6 rounds N* to the nearest integer, Table 7 takes the ceiling with N - 1: under the one rule (ceiling at the
    # stated N) the rows off by one differ, and their reasons name the rounding that does reproduce them
    hellaswag = _find(rows, "Table 6, HellaSwag", "N* (Eq. 6)")
    assert hellaswag.verdict == "differs" and "nearest integer it is 20,255" in hellaswag.reason
    rounded = [
        row
        for row in rows
        if row.location.startswith(("Table 6", "Table 7")) and row.quantity == "N* (Eq. 6)" and row.verdict != "agrees"
    ]
    assert all(row.relative_difference < 1e-4 for row in rounded)


def test_table_1_and_lemma_constants(rows):
    for quantity in ("correct N* (Eq. 6)", "per-arm K/h^2", "K/h^2 x (1 - rho)"):
        assert _find(rows, "Table 1", quantity).verdict == "agrees"
    for quantity in ("C(0.65, 0.0)", "C(0.8, 0.5)", "C(0.65, 0.9)"):
        assert _find(rows, "Appendix A", quantity).verdict == "agrees"
    assert _find(rows, "Corollary 1", "delta*(0.65, 0.3, 0.05), leading order").verdict == "agrees"


def test_the_papers_numerical_bound_at_delta_005_fails(rows):
    row = _find(rows, "Section 4, numerical check", "max |n_h/N* - 1/2| at delta = 0.05")
    assert row.verdict == "differs" and row.computed > 0.0008


def test_the_pairwise_power_papers_table_is_half_of_its_own_formula(rows):
    table = [row for row in rows if row.location == "Section 3 table"]
    assert {row.paper for row in table} == {SAMPLE_SIZE.name}
    assert len(table) == 12
    assert all("printed value is half the computed one" in row.reason for row in table)


def test_verdict_logic():
    entry = Printed(MAIN, "l", "q", "1,028", lambda: 1027.6, "i")
    assert _verdict(entry, 1027.6)[1] == "agrees"
    assert _verdict(entry, 1029.0)[1] == "differs"
    bound = Printed(MAIN, "l", "q", "0.0008", lambda: 0.0, "i", "upper-bound")
    assert _verdict(bound, 0.0007)[1] == "agrees" and _verdict(bound, 0.002)[1] == "differs"


def test_cli_reproduce_json(capsys):
    assert main(["reproduce", "--paper", "sample-size", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {"location", "printed", "computed", "relative_difference", "verdict", "reason"} <= set(records[0])


def test_verdict_kinds_for_monte_carlo_ranges_and_bounds():
    mc = Printed(MAIN, "l", "q", "0.79", lambda: 0.0, "i", "monte-carlo", tolerance=0.03)
    assert _verdict(mc, 0.815)[1] == "agrees" and _verdict(mc, 0.83)[1] == "differs"
    span = Printed(MAIN, "l", "q", "500-1000", lambda: 0.0, "i", "range", bounds=(500, 1000))
    assert _verdict(span, 700)[1] == "agrees" and _verdict(span, 454)[1] == "differs"
    lower = Printed(MAIN, "l", "q", "0.85", lambda: 0.0, "i", "lower-bound")
    assert _verdict(lower, 0.97)[1] == "agrees" and _verdict(lower, 0.8)[1] == "differs"
    approximate = Printed(MAIN, "l", "q", "~0.048", lambda: 0.0, "i")
    assert _verdict(approximate, 0.0489)[1] == "agrees" and _verdict(approximate, 0.0495)[1] == "differs"
    missing = Printed(MAIN, "l", "q", "6", lambda: 0.0, "i", "not-reproducible", reason="no data")
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
    # Table 10 does not print p_A, so its N* is not determined; the p_A that gives each printed N* is solved and shown
    assert all(
        row.verdict == "not reproducible" and "p_A in [" in row.reason
        for row in rows
        if row.location.startswith("Table 10") and row.quantity == "N* (Eq. 6)"
    )


def test_embedding_paper_rows(rows):
    embedding = [row for row in rows if row.paper == EMBEDDING.name]
    assert len(embedding) > 140
    cell = next(
        row
        for row in embedding
        if row.quantity == "t-test power, N = 100, rho = 0.5" and row.location == "Section 4.2 table"
    )
    assert cell.verdict == "agrees" and abs(cell.computed - 0.134) < 0.02
    assert (
        next(row for row in embedding if row.quantity.startswith("power at delta = 0.015, N = 150")).verdict
        == "differs"
    )
    assert (
        next(
            row for row in embedding if row.quantity.startswith("minimum N for 80% power, delta = 0.01, rho = 0.8")
        ).verdict
        == "differs"
    )
    assert next(row for row in embedding if row.quantity.startswith("max normal-vs-Beta")).computed == pytest.approx(
        0.002
    )


def test_cli_reproduce_embedding_json_has_no_nan(capsys):
    assert main(["reproduce", "--paper", "main", "--json"]) == 0
    text = capsys.readouterr().out
    assert "NaN" not in text
    records = json.loads(text)
    assert any(record["computed"] is None for record in records)


def test_table_10_solved_accuracy_reproduces_the_printed_n():
    from llm_power_verified.power import ceil_sample_size, required_n_paired_binary
    from llm_power_verified.reproduce.resolution_diagnostics_simulated import TABLE_10, solved_accuracy

    for _, delta, rho, printed, _, _ in TABLE_10:
        high, low = solved_accuracy(delta, rho, int(printed) - 1), solved_accuracy(delta, rho, int(printed))
        assert low < high
        for p_a in np.linspace(low, high, 7)[1:-1]:
            assert ceil_sample_size(required_n_paired_binary(p_a, p_a - delta, rho)) == int(printed)


def test_required_n_uses_the_ceiling_and_one_printed_number_gets_one_verdict(rows):
    """The same printed N* (Table 7's 34,092 is Table 9's 5% end at DE 1.00) is judged by one rule everywhere."""
    assert _find(rows, "Table 7, pair 4 vs 5", "N* (Eq. 6)").verdict == "agrees"  # 433 = ceil(432.49)
    groups = {}
    for row in rows:
        if row.printed.replace(",", "").isdigit() and np.isfinite(row.computed):
            groups.setdefault((row.printed, round(row.computed, 6)), set()).add(row.verdict)
    shared = {key: verdicts for key, verdicts in groups.items() if key[0] in ("34,092", "778", "4,628", "1,697")}
    assert len(shared) == 4 and all(len(verdicts) == 1 for verdicts in shared.values())
    assert shared[("34,092", round(34094.661468, 6))] == {"differs"}
    assert "N = 12,031" in _find(rows, "Table 7, pair 3 vs 4", "N* (Eq. 6)").reason
    assert _find(rows, "Table 7, N* column", "values reproduced by N = 12,031 and the ceiling (of 9)").computed == 9
    assert (
        _find(rows, "Table 6, N* column", "values reproduced by nearest rounding at the stated N (of 7)").computed == 7
    )


def test_anytime_counts_under_both_definitions_are_labelled(rows):
    paper_rule = _find(
        rows, "Section 6.5 / Table 5", next(r.quantity for r in rows if "by the paper's rule" in r.quantity)
    )
    own = _find(rows, "Section 6.5 / Table 5", next(r.quantity for r in rows if "by this package's N_av" in r.quantity))
    assert (paper_rule.computed, paper_rule.verdict) == (4, "differs") and "e_N = 79" in paper_rule.reason
    assert (own.computed, own.verdict) == (5, "agrees")


def test_the_claims_register(rows):
    from llm_power_verified.reproduce.run import claim_rows

    claims = {entry.quantity for paper in ("main", "embedding", "sample-size") for entry in claim_rows(paper)}
    register = [row for row in rows if row.quantity in claims]
    assert len(register) == len(claims) >= 80
    assert all(row.verdict in ("agrees", "differs", "not reproducible") and row.reason for row in register)
    verdicts = {row.quantity: row.verdict for row in register}
    assert verdicts["the calibration grid has 5 cells"] == "differs"  # 3 x 3 = 9
    assert verdicts["C(p, rho) grows with |1 - 2p| and with rho"] == "differs"
    assert verdicts["for pair 5 vs 6 the e-process 'fails to cross' 1/alpha on the same data"] == "differs"
    assert verdicts["four arbiters agree on 6 of 7 close pairs; only HellaSwag splits"] == "agrees"


def test_the_ideal_bootstrap_matches_a_long_monte_carlo_bootstrap():
    from llm_power_verified.inference.bootstrap import ideal_bootstrap_below, paired_bootstrap_counts

    b, c, n = 100, 78, 1172
    _, exact = ideal_bootstrap_below(b, c, n)
    rng = np.random.default_rng(5)
    draws = rng.multinomial(n, [b / n, c / n, 1 - (b + c) / n], size=200_000)
    simulated = np.mean(draws[:, 0] - draws[:, 1] <= 0)
    assert abs(simulated - exact) < 4 * np.sqrt(exact * (1 - exact) / 200_000)
    interval = paired_bootstrap_counts(b, c, n, n_resamples=20_000, seed=1)
    assert interval.ci_low <= 0 <= interval.ci_high and exact > 0.025


def test_the_command_line_offers_each_paper_and_names_it():
    """--paper's choices are the papers' keys, and its help names each.

    The keys are typed in the CLI so that --help imports no numpy.
    """
    import argparse

    from llm_power_verified.cli.main import build_parser

    commands = next(action for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction))
    paper = next(action for action in commands.choices["reproduce"]._actions if action.dest == "paper")
    assert list(paper.choices) == ["all", *(item.key for item in PAPERS)]
    assert all(item.title.split("?")[0] in " ".join(paper.help.split()) for item in PAPERS)
