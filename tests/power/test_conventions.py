"""Calculator conventions, the Table 1 comparison, and audit-calculator."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import llm_power_verified as lpv
from crosscheck.calculators import lemma1_grid, paper_discrepancies, table1_rows
from crosscheck.r_tools import rscript_path
from llm_power_verified.cli import main
from llm_power_verified.power.conventions import CONVENTIONS, audit_claimed_n, convention_values

needs_r = pytest.mark.skipif(
    rscript_path() is None, reason="Rscript not found: install the Debian packages r-base-core r-cran-pwr"
)


@given(st.floats(0.1, 0.9), st.floats(0.01, 0.15), st.floats(0.05, 0.95))
def test_audit_recognises_each_convention(p_a, gap, rho_fraction):
    p_b = p_a - gap
    assume(p_b > 0.02)
    low, high = lpv.admissible_rho_interval(p_a, p_b)
    rho = low + (high - low) * rho_fraction
    assume(rho < 0.98)
    values = convention_values(p_a, p_b, rho)
    for name in CONVENTIONS:
        audit = audit_claimed_n(p_a, p_b, rho, round(values[name] + 0.5))
        assert name in audit.matches
        assert audit.factor == pytest.approx(values["paired"] / round(values[name] + 0.5))


def test_conventions_follow_their_derivations():
    values = convention_values(0.7, 0.6, 0.4)
    k = (lpv.critical_value(0.05) + lpv.critical_value(0.2, "larger")) ** 2
    assert values["two-sample-arcsine"] == pytest.approx(2 * values["one-sample-arcsine"], rel=1e-15)
    assert values["unpaired-wald"] == pytest.approx(k * (0.7 * 0.3 + 0.6 * 0.4) / 0.1**2, rel=1e-12)
    assert values["shortcut"] == pytest.approx(0.6 * values["one-sample-arcsine"], rel=1e-15)
    # Pairing replaces V_A + V_B by sigma_D^2: the efficiency gain of the paper's Figure 1.
    gain = values["unpaired-wald"] / values["paired"]
    assert gain == pytest.approx((0.21 + 0.24) / lpv.paired_difference_variance(0.7, 0.6, 0.4), rel=1e-12)


def test_shortcut_is_about_half_at_the_worked_example():
    audit = audit_claimed_n(0.65, 0.60, 0.30, 515)
    assert audit.matches == ("shortcut",)
    assert audit.required_n_integer == 1028
    assert round(audit.factor, 2) == 2.0


@needs_r
def test_table1_with_real_tools_and_paper_discrepancies():
    rows = {row.tool + "/" + row.convention: row for row in table1_rows()}
    pwr_two = rows["R pwr::pwr.2p.test/two-sample-arcsine"]
    pwr_one = rows["R pwr::pwr.p.test/one-sample-arcsine"]
    assert pwr_two.per_arm == pytest.approx(1470.09, abs=0.01)
    assert pwr_one.per_arm == pytest.approx(735.05, abs=0.01)
    # The paper's 736/515 for pwr.2p.test is what pwr.p.test returns, not pwr.2p.test.
    assert pwr_two.agrees_with_paper is False
    assert round(pwr_one.per_arm + 0.5) == 736 and round(pwr_one.times_one_minus_rho + 0.5) == 515
    assert rows["statsmodels NormalIndPower/two-sample-arcsine"].agrees_with_paper is True
    assert rows["llm-power-verified (paired)/paired"].agrees_with_paper is True
    notes = paper_discrepancies(list(rows.values()))
    assert any(note.startswith("R pwr::pwr.2p.test") for note in notes)


def test_missing_r_is_reported_with_the_debian_packages(monkeypatch):
    monkeypatch.setattr("crosscheck.r_tools.rscript_path", lambda: None)
    rows = table1_rows()
    r_rows = [row for row in rows if row.tool.startswith("R ")]
    assert r_rows and all(row.verdict == "not available" for row in r_rows)
    assert all("r-base-core r-cran-pwr" in row.source for row in r_rows)
    assert any(row.tool == "statsmodels NormalIndPower" and row.per_arm for row in rows)


def test_lemma1_grid_marks_inadmissible_cells_and_errors_shrink():
    cells, summary = lemma1_grid(p_values=(0.5, 0.8), rho_values=(0.3, 0.9), delta_values=(0.01, 0.05, 0.4))
    assert any(not cell["admissible"] for cell in cells)  # rho = 0.9 at (0.8 + 0.2, 0.6) is not attainable
    for cell in cells:
        if cell["admissible"]:
            assert cell["error_order_4"] <= cell["error_order_2"] + 1e-15
    assert [band["cells"] for band in summary]


def test_cli_crosscheck_json(capsys):
    assert main(["crosscheck", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["case"]["p_a"] == 0.65
    tools = [row["tool"] for row in document["rows"]]
    assert "statsmodels NormalIndPower" in tools and "llm-power-verified (paired)" in tools


def test_cli_audit_calculator(capsys):
    assert (
        main(["audit-calculator", "--p-a", "0.65", "--p-b", "0.60", "--rho", "0.3", "--claimed-n", "515", "--json"])
        == 0
    )
    document = json.loads(capsys.readouterr().out)
    assert document["matches"] == ["shortcut"] and document["required_n_integer"] == 1028
    assert (
        main(
            [
                "audit-calculator",
                "--p-a",
                "0.65",
                "--p-b",
                "0.60",
                "--rho",
                "0.3",
                "--tool",
                "pwr.p.test",
                "--tool-output",
                "736",
                "--json",
            ]
        )
        == 0
    )
    document = json.loads(capsys.readouterr().out)
    assert document["matches"] == ["shortcut"] and "consistent" in document["tool_note"]


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        (
            ["audit-calculator", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.95", "--claimed-n", "500"],
            "admissible interval",
        ),
        (
            ["audit-calculator", "--p-a", "1.65", "--p-b", "0.6", "--rho", "0.3", "--claimed-n", "500"],
            "argument --p-a: must be a finite number in (0, 1); got 1.65",
        ),
        (
            [
                "audit-calculator",
                "--p-a",
                "0.65",
                "--p-b",
                "0.6",
                "--rho",
                "0.3",
                "--tool",
                "gpower",
                "--tool-output",
                "5",
            ],
            "--tool must be one of",
        ),
        (["audit-calculator", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.3"], "needs --claimed-n"),
        (["crosscheck", "--rho", "0.99"], "admissible interval"),
    ],
)
def test_cli_errors(arguments, fragment):
    result = subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", *arguments], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert fragment in result.stderr and "Traceback" not in result.stderr


def test_cli_crosscheck_without_r_names_the_packages(tmp_path):
    """With no Rscript on PATH the table still prints, and says which Debian packages to install."""
    environment = dict(os.environ, PATH=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", "crosscheck"],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )
    assert result.returncode == 0, result.stderr
    assert "r-base-core r-cran-pwr" in result.stdout


@pytest.mark.parametrize(
    "claimed, fragments",
    [
        (1471, ["matches the two-sample-arcsine", "1.43 x the correct paired N*", "larger than needed"]),
        (
            1030,
            ["agrees with the correct paired N* = 1027.58", "within 0.5% (+2.4 items)", "integer requirement is 1028"],
        ),
        (1028, ["its ceiling"]),
        (
            2056,
            [
                "twice the",
                "paired value",
                "per-group size reported as the total of two groups",
                "2 x the correct paired N*",
            ],
        ),
        (515, ["0.501 x the correct paired N*", "N* is 2 x the claim"]),
    ],
)
def test_calculator_verdicts_say_the_multiple_and_the_rounding(claimed, fragments):
    """Issue 16: the claim as a multiple of N*, which rounding matched, and a doubled per-group figure recognised."""
    audit = lpv.audit_claimed_n(0.65, 0.60, 0.30, claimed)
    for fragment in fragments:
        assert fragment in audit.verdict, audit.verdict
    assert audit.doubled == (
        ("two-sample-arcsine-x(1-rho)", "unpaired-wald-x(1-rho)", "paired") if claimed == 2056 else ()
    )
