"""Degenerate inputs have a defined answer from the CLI (empty or one-sided tables, constant differences, constant or
identical models), and no warning reaches stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.cli import main


def _cli(*arguments: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", *arguments],
        capture_output=True,
        text=True,
        timeout=300,
        **kwargs,
    )


@pytest.mark.parametrize(
    "arguments, expected",
    [
        (["design", "--b", "100", "--c", "0", "--n", "100", "--json"], {"required_n": 0.0, "resolution_ratio": "inf"}),
        (["design", "--b", "0", "--c", "0", "--n", "100", "--json"], {"required_n": "inf", "resolution_ratio": 0.0}),
    ],
)
def test_degenerate_tables_have_a_defined_answer(capsys, arguments, expected):
    assert main(arguments) == 0
    report = json.loads(capsys.readouterr().out)
    assert {key: report[key] for key in expected} == expected


@pytest.mark.parametrize("b, c, n, interval", [(0, 0, 10, [0.0, 0.0]), (5, 0, 5, [1.0, 1.0]), (0, 7, 7, [-1.0, -1.0])])
def test_studentized_bootstrap_of_a_constant_difference_is_the_point(capsys, b, c, n, interval):
    assert (
        main(
            [
                "test",
                "--b",
                str(b),
                "--c",
                str(c),
                "--n",
                str(n),
                "--bootstrap-interval",
                "studentized",
                "--n-resamples",
                "200",
                "--json",
            ]
        )
        == 0
    )
    row = json.loads(capsys.readouterr().out)[-1]
    assert [row["ci_low"], row["ci_high"]] == interval


def test_degenerate_leaderboard_audit_prints_no_warning(tmp_path):
    """Identical models, constant models (all 0 and all 1), clusters: every format, nothing on stderr."""
    rng = np.random.default_rng(0)
    scores = (rng.random((300, 6)) < [0.9, 0.7, 0.6, 0.6, 0.3, 0.5]).astype(int)
    scores[:, 3] = scores[:, 2]
    scores[:, 4] = 1
    scores[:, 5] = 0
    frame = pd.DataFrame(scores, columns=list("abcdef"))
    frame.insert(0, "item_id", [f"q{i}" for i in range(300)])
    frame["topic"] = np.repeat(list("wxyz"), 75)
    table = tmp_path / "scores.csv"
    frame.to_csv(table, index=False)
    for output in ("table", "markdown", "json", "csv"):
        result = _cli(
            "audit",
            str(table),
            "--mode",
            "all",
            "--cluster-column",
            "topic",
            "--format",
            output,
            "--n-resamples",
            "100",
            "--n-cluster-resamples",
            "100",
            env={k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"},
        )
        assert result.returncode == 0 and result.stderr == "", result.stderr
    refused = _cli("audit", str(table), "--mode", "all")
    assert (
        refused.returncode == 2
        and "column 'topic' holds text (e.g. 'w'), not scores; if it holds cluster labels, pass --cluster-column topic"
        in refused.stderr
    )
    document = json.loads(
        _cli(
            "audit", str(table), "--mode", "all", "--format", "json", "--n-resamples", "0", "--cluster-column", "topic"
        ).stdout
    )
    constant = [row for row in document["pairs"] if "e" in (row["model_a"], row["model_b"])]
    assert all(row["rho"] is None and row["shortcut_n"] is None for row in constant)
    assert all(row["p_exact"] is not None and row["required_n"] is not None for row in constant)
    assert any("model 'e' scores 1 on every item" in note for note in document["notes"])
