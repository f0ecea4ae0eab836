"""The command line: design output, JSON keys, one-line errors without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from llm_power_verified.cli import main

JSON_KEYS = {
    "p_a",
    "p_b",
    "rho",
    "delta",
    "alpha",
    "power",
    "alternative",
    "variance",
    "required_n",
    "required_n_integer",
    "required_n_connor",
    "rho_min",
    "rho_max",
    "shortcut_n",
    "shortcut_ratio",
    "shortcut_constant",
    "n",
    "mde",
    "resolution_ratio",
    "power_at_n",
    "counts",
}


def test_design_json_from_marginals(capsys):
    assert main(["design", "--p-a", "0.65", "--p-b", "0.60", "--rho", "0.30", "--n", "12032", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == JSON_KEYS
    assert round(report["variance"], 7) == 0.3273001
    assert round(report["required_n"], 3) == 1027.576
    assert report["required_n_integer"] == 1028
    assert report["resolution_ratio"] == pytest.approx(12032 / report["required_n"])


def test_design_table_from_counts(capsys):
    assert main(["design", "--b", "295", "--c", "249", "--n", "10042"]) == 0
    text = capsys.readouterr().out
    assert "N* (integer, ceiling)           20256" in text
    assert "shortcut n_h (Eq. 9)            n/a" in text


def test_zero_gap_json_uses_inf_string(capsys):
    assert main(["design", "--b", "10", "--c", "10", "--n", "100", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["required_n"] == "inf" and report["resolution_ratio"] == 0.0


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        (["design", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.95"], "admissible interval"),
        (["design", "--p-a", "0.65"], "design needs"),
        (["design", "--p-a", "abc"], "argument --p-a: must be a number; got 'abc'"),
        (["design", "--b", "3", "--c", "2", "--n", "4"], "b + c must not exceed n"),
        (["design", "--b", "3", "--c", "2", "--n", "40", "--p-a", "0.5"], "not both"),
        (["design", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.3", "--alpha", "2"], "alpha"),
        (["nonsense"], "invalid choice"),
    ],
)
def test_errors_are_one_line_and_exit_2(arguments, fragment):
    result = subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", *arguments], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("llm-power-verified: error:")
    assert fragment in lines[0]
    assert "Traceback" not in result.stderr


def test_importing_the_package_does_not_import_sympy():
    code = "import sys, llm_power_verified; print('sympy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "False"


def test_cli_derivations_check_passes(capsys):
    """In this process: the derivations are imported once per test run (tests/verification/test_derivations.py)."""
    assert main(["derivations", "check"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_readme_commands_run(capsys):
    """README's main-job command audits the shipped example; its design example prints the figures.

    The main-job command runs minus the install.
    """
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    main_job = re.search(r"&& llm-power-verified (audit[^\n]*)", readme).group(1).split()
    assert main([*main_job, "--n-resamples", "100", "--n-cluster-resamples", "100"]) == 0
    assert re.search(r"^fixed-n \(N < N\*, each pair at alpha\)\s+4\s*$", capsys.readouterr().out, re.MULTILINE)
    design = re.search(r"`llm-power-verified (design --p-a[^`]*)`", readme).group(1).split()
    assert main(design) == 0
    text = capsys.readouterr().out
    assert "0.3273001" in text and "1027.576" in text and "1028" in text


def test_test_command_json_has_every_variant(capsys):
    assert main(["test", "--b", "295", "--c", "249", "--n", "10042", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["method"] for row in rows] == ["chi2", "chi2-corrected", "exact", "mid-p", "bootstrap-percentile"]
    by_method = {row["method"]: row for row in rows}
    assert round(by_method["chi2"]["pvalue"], 3) == 0.049
    assert round(by_method["exact"]["pvalue"], 3) == 0.054
    for row in rows:
        assert {"pvalue", "log_pvalue"} <= set(row)


def test_test_command_reports_log_p_beyond_underflow(capsys):
    assert main(["test", "--b", "9999990", "--c", "10", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    exact = next(row for row in rows if row["method"] == "exact")
    assert exact["pvalue"] == 0.0 and exact["log_pvalue"] < -6.9e6


def test_test_command_on_files(tmp_path, capsys):
    file_a, file_b = tmp_path / "a.txt", tmp_path / "b.txt"
    file_a.write_text("score\n1\n1\n0\n1\n0\n1\n")
    file_b.write_text("score\n0\n1\n0\n0\n0\n1\n")
    assert main(["test", str(file_a), str(file_b), "--json", "--seed", "4"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["b"] == 2 and rows[0]["c"] == 0
    file_b.write_text("0.2\n0.4\n0.1\n0.3\n0.5\n0.9\n")
    file_a.write_text("0.3\n0.5\n0.2\n0.35\n0.6\n0.8\n")
    assert main(["test", str(file_a), str(file_b), "--json"]) == 0
    methods = [row["method"] for row in json.loads(capsys.readouterr().out)]
    assert methods == ["paired-t", "wilcoxon", "bootstrap-percentile"]


@pytest.mark.parametrize(
    "contents_a, contents_b, fragment",
    [("1\n0\n1\n", "1\n0\n", "aligned"), ("1\nx\n1\n", "1\n0\n1\n", "line 2: 'x' is not a number")],
)
def test_test_command_file_errors(tmp_path, contents_a, contents_b, fragment):
    file_a, file_b = tmp_path / "a.txt", tmp_path / "b.txt"
    file_a.write_text(contents_a)
    file_b.write_text(contents_b)
    result = subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", "test", str(file_a), str(file_b)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert fragment in result.stderr and "Traceback" not in result.stderr


def _wide_csv(path, models=6, items=400, seed=1):
    import numpy as np

    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(items, 1)) + np.linspace(0.4, -0.4, models) + rng.normal(size=(items, models))
    lines = ["item_id," + ",".join(f"m{k}" for k in range(models))]
    lines += [f"i{row}," + ",".join(str(int(value > 0)) for value in latent[row]) for row in range(items)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--format", "parquet"], "--format parquet needs --out FILE"),
        (["--scheduler", "tcp://127.0.0.1:1", "--workers", "2"], "not both"),
        (["--workers", "0"], "argument --workers"),
        (["--pairs", "some"], "invalid choice"),
    ],
)
def test_audit_scale_options_refuse_bad_use_in_one_line(tmp_path, extra, fragment):
    table = _wide_csv(tmp_path / "scores.csv")
    result = subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", "audit", str(table), "--quiet", *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and fragment in result.stderr, result.stderr


def test_audit_parquet_and_jsonl_hold_every_pair(tmp_path, capsys):
    import pandas as pd

    from llm_power_verified.report.machine import read_audit_metadata

    table = _wide_csv(tmp_path / "scores.csv")
    out = tmp_path / "pairs.parquet"
    assert (
        main(
            [
                "audit",
                str(table),
                "--mode",
                "all",
                "--format",
                "parquet",
                "--out",
                str(out),
                "--quiet",
                "--n-resamples",
                "0",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.startswith(f"wrote {out}: 15 pairs")
    frame = pd.read_parquet(out)
    assert len(frame) == 15 and read_audit_metadata(out)["pairs_written"] == 15
    assert main(["audit", str(table), "--mode", "all", "--format", "jsonl", "--quiet", "--n-resamples", "0"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["model_a"], r["model_b"]) for r in records] == list(zip(frame["model_a"], frame["model_b"], strict=True))
    assert [r["required_n"] for r in records] == [
        value if value != float("inf") else "inf" for value in frame["required_n"]
    ]


def test_audit_with_a_local_dask_cluster_matches_the_local_run(tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    table = _wide_csv(tmp_path / "scores.csv")
    assert main(["audit", str(table), "--mode", "all", "--format", "csv", "--quiet", "--n-resamples", "100"]) == 0
    local = capsys.readouterr().out
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "llm_power_verified.cli",
            "audit",
            str(table),
            "--mode",
            "all",
            "--format",
            "csv",
            "--quiet",
            "--n-resamples",
            "100",
            "--workers",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout == local


def test_help_imports_neither_numpy_nor_tqdm():
    code = (
        "import sys; from llm_power_verified.cli.main import build_parser; build_parser(); "
        "print(sorted(m for m in ('numpy', 'tqdm', 'pandas', 'scipy') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr


@pytest.mark.parametrize("mode", ["adjacent", "all", "reference"])
@pytest.mark.parametrize("output", ["table", "json", "parquet"])
def test_audit_of_one_item_is_refused_naming_the_file_and_the_count(tmp_path, capsys, mode, output):
    table = tmp_path / "one.csv"
    table.write_text("id,a,b,c\nq1,1,0,1\n")
    reference = ["--reference", "a"] if mode == "reference" else []  # refused with another mode: it would be ignored
    status = main(
        [
            "audit",
            str(table),
            "--item-column",
            "id",
            "--mode",
            mode,
            *reference,
            "--format",
            output,
            "--out",
            str(tmp_path / "report"),
            "--quiet",
        ]
    )
    error = capsys.readouterr().err
    assert status == 2
    assert error.splitlines() == [
        f"llm-power-verified: error: {table}: a paired comparison needs at least 2 items; got 1"
    ]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["one.csv"]
