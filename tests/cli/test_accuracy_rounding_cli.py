"""audit-accuracies says which verdicts the rounding of the printed accuracies can change, in every format."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from llm_power_verified.cli import main

FLAG = "depends on the printed digits"


@pytest.fixture
def mmlu(tmp_path):
    """simple-evals MMLU, o3-low 92.8 against o1 91.8 (N = 14,042 items, given with --n)."""
    path = tmp_path / "mmlu.csv"
    path.write_text("model,accuracy\no3-low,92.8\no1,91.8\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("form", ["table", "markdown", "html", "csv", "json"])
def test_every_format_shows_the_rounding_and_never_calls_the_pair_resolved(mmlu, form, capsys, tmp_path):
    assert main(["audit-accuracies", mmlu, "--n", "14042", "--format", form]) == 0
    out = capsys.readouterr().out
    assert FLAG in out
    if form == "json":
        document = json.loads(out)
        pair = document["pairs"][0]
        assert pair["verdict"] == "depends on rho" and pair["rounding"] == FLAG
        assert pair["rho_critical_low"] < pair["rho_critical_high"]
        assert document["verdicts"]["adjacent"]["depends_on_digits"] == 1
        assert document["verdicts"]["adjacent"]["resolved"] == 0
    if form == "csv":
        (tmp_path / "pairs.csv").write_text(out, encoding="utf-8")
        row = pd.read_csv(tmp_path / "pairs.csv").iloc[0]
        assert row["verdict"] == "depends on rho" and row["required_n_worst"] > 14042
    if form in ("table", "markdown"):
        assert "resolved at every admissible rho 0/1" in out
        assert "note: rounding: " in out or "rounding: the printed digits allow several counts" in out


def test_exact_counts_carry_no_rounding_note(tmp_path, capsys):
    """Printed with enough digits for one count each (13,031 and 12,891 of 14,042), nothing depends on the digits."""
    path = tmp_path / "exact.csv"
    path.write_text(f"model,accuracy\no3-low,{13031 / 14042:.8f}\no1,{12891 / 14042:.8f}\n", encoding="utf-8")
    assert main(["audit-accuracies", str(path), "--n", "14042", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["pairs"][0]["rounding"] == "no effect" and document["pairs"][0]["verdict"] == "resolved"
    assert not any(note.startswith("rounding: ") for note in document["notes"])


def test_gate_fails_a_pair_the_printed_digits_leave_open(mmlu, capsys):
    """--fail-on unresolved: o3-low vs o1 is resolved at the printed values only, so the gate fails (exit 1)."""
    assert main(["audit-accuracies", mmlu, "--n", "14042", "--fail-on", "unresolved"]) == 1
    assert "every count of correct items the printed accuracies allow" in capsys.readouterr().err
