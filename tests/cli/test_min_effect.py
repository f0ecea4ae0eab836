"""``audit --min-effect DELTA`` on the command line: refusals, the formats that carry its columns, the default view."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re

import pandas as pd
import pytest

from llm_power_verified.cli import main

FAST = ["--n-resamples", "0", "--n-cluster-resamples", "0"]
COLUMNS = (
    "power_min_effect",
    "required_n_min_effect",
    "q_min_effect",
    "resolved_min_effect",
    "p_margin_lower",
    "p_margin_upper",
    "p_equivalence",
    "margin_ci_low",
    "margin_ci_high",
    "equivalence",
)


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "value, shown",
    [
        ("0", "must be a finite number in [1.11022e-16, 1); got 0.0"),
        ("-0.02", "must be a finite number in [1.11022e-16, 1); got -0.02"),
        ("1", "must be a finite number in [1.11022e-16, 1); got 1.0"),
        ("1.5", "must be a finite number in [1.11022e-16, 1); got 1.5"),
        ("nan", "must be a finite number in [1.11022e-16, 1); got nan"),
        ("inf", "must be a finite number in [1.11022e-16, 1); got inf"),
        ("two points", "must be a number; got 'two points'"),
    ],
)
def test_bad_min_effect_is_one_line_naming_it(value, shown):
    status, out, err = _cli(["audit", f"--min-effect={value}", *FAST])
    assert status == 2 and not out
    assert err.strip().splitlines() == [f"llm-power-verified: error: argument --min-effect: {shown}"]


def test_json_and_csv_carry_every_column_and_the_headline_counts(tmp_path):
    status, text, _ = _cli(["audit", "--min-effect", "0.02", "--format", "json", *FAST])
    assert status == 0
    report = json.loads(text)
    assert all(set(COLUMNS) <= set(pair) for pair in report["pairs"])
    adjacent = [pair for pair in report["pairs"] if pair["adjacent"]]
    line = next(line for line in report["headline"] if line.startswith("Equivalence within +-0.02"))
    for outcome in ("different, not equivalent", "equivalent, not different", "different, within the margin"):
        count = sum(pair["equivalence"] == outcome for pair in adjacent)
        assert f"{outcome}: {count}/{len(adjacent)}" in line
    path = tmp_path / "pairs.csv"
    assert _cli(["audit", "--min-effect", "0.02", "--format", "csv", "--out", str(path), *FAST])[0] == 0
    # Read with Python's float(), which reads a repr'd float back exactly; pandas' C parser can be 1 ulp off (pandas
    # 2.1 read 20.540315565900055 as ...052) and its round-trip option is deprecated in newer releases.
    with path.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert set(COLUMNS) <= set(rows[0])
    # The same pairs, the same values: both print floats with repr (round trip exact); n/a is null and an empty cell.
    written = [float("nan") if row["q_min_effect"] == "" else float(row["q_min_effect"]) for row in rows]
    expected = [float("nan") if pair["q_min_effect"] is None else pair["q_min_effect"] for pair in report["pairs"]]
    assert written == pytest.approx(expected, rel=0, abs=0, nan_ok=True)


def test_without_min_effect_no_column_and_no_line():
    status, text, _ = _cli(["audit", "--format", "json", *FAST])
    assert status == 0
    report = json.loads(text)
    assert not set(COLUMNS) & set(report["pairs"][0])
    assert not any("min-effect" in line or "Equivalence" in line for line in report["headline"])


def _pair_header(text: str) -> str:
    lines = text.splitlines()
    return next(line for line in lines[lines.index("Pairs") :] if line.startswith("A "))


def test_the_terminal_keeps_its_default_view_and_wide_or_columns_show_the_new_ones():
    _, plain, _ = _cli(["audit", *FAST, "--width", "120"])
    status, with_delta, _ = _cli(["audit", "--min-effect", "0.02", *FAST, "--width", "120"])
    assert status == 0
    assert _pair_header(with_delta) == _pair_header(plain)
    assert "Gaps that matter (--min-effect 0.02" in with_delta and "Gaps that matter" not in plain
    _, wide, _ = _cli(["audit", "--min-effect", "0.02", *FAST, "--wide"])
    assert re.search(r"equivalence\s+q\(DELTA\)\s+resolved\(DELTA\)", _pair_header(wide))
    _, chosen, _ = _cli(["audit", "--min-effect", "0.02", *FAST, "--columns", "delta,equivalence,margin_ci"])
    assert re.fullmatch(r"A\s+B\s+delta\s+equivalence\s+CI\(1-2alpha\)\s*", _pair_header(chosen))
    _, missing, _ = _cli(["audit", *FAST, "--columns", "delta,equivalence"])
    assert "equivalence: only when a smallest gap of interest is given (--min-effect DELTA)" in missing


def test_streamed_parquet_has_the_columns(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "pairs.parquet"
    status, _, _ = _cli(["audit", "--mode", "all", "--min-effect", "0.02", "--format", "parquet", "--out", str(path)])
    assert status == 0
    table = pd.read_parquet(path)
    assert len(table) == 45 and set(COLUMNS) <= set(table.columns)
    assert set(table["equivalence"]) <= {
        "different, not equivalent",
        "equivalent, not different",
        "different, within the margin",
        "inconclusive",
    }


def test_the_headline_n_for_delta_is_what_plan_report_plans(tmp_path):
    """The audit's 'N that would resolve a gap of DELTA' at the family level is plan report --min-effect's N."""
    report = tmp_path / "audit.json"
    assert _cli(["audit", *FAST, "--format", "json", "--out", str(report)])[0] == 0
    status, text, _ = _cli(["audit", "--min-effect", "0.02", *FAST])
    assert status == 0
    flat = re.sub(r"\s+", " ", text)
    line = re.search(
        r"N that would resolve a gap of 0\.02 in .+?: ([\d,]+) items with each pair at alpha 0\.05; ([\d,]+) at", flat
    )
    assert line is not None, flat
    status, plan, _ = _cli(["plan", "report", str(report), "--min-effect", "0.02"])
    assert status == 0
    planned = re.search(r"at each pair's observed discordance: N = ([\d,]+) items resolve a gap of 0\.02", plan)
    assert planned is not None, plan
    assert line.group(2) == planned.group(1)  # item counts: integers, exactly
    assert int(line.group(1).replace(",", "")) < int(line.group(2).replace(",", ""))


@pytest.mark.parametrize("value", ["1e-300", "5e-324", "1e-16", "1_0", "\u0660.\u0660\u0662"])
def test_min_effect_below_the_float_resolution_or_oddly_written_is_refused(capsys, value):
    """Below 2^-53 a gap cannot be told from rounding (1e-300 overflowed N* ~ 1/DELTA^2 to a traceback); underscores
    and other scripts' digits are refused as in the input files."""
    status = main(["audit", "--min-effect", value, "--n-resamples", "0"])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert "argument --min-effect: must be" in captured.err


def test_min_effect_at_the_floor_gives_finite_figures(capsys):
    """DELTA = 2^-53 (the smallest accepted): N* ~ 1e32 is finite and printed, no warning, no traceback."""
    assert main(["audit", "--min-effect", repr(2.0**-53), "--n-resamples", "0", "--n-cluster-resamples", "0"]) == 0
    captured = capsys.readouterr()
    assert "N that would resolve a gap of 1.1102230246251565e-16" in captured.out.replace("\n  ", " ")
    assert "Warning" not in captured.err
