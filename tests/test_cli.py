"""The command line: design output, JSON keys, one-line errors without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from llm_power_verified.cli import main

JSON_KEYS = {
    "p_a", "p_b", "rho", "delta", "alpha", "power", "alternative", "variance", "required_n",
    "required_n_integer", "required_n_connor", "rho_min", "rho_max", "shortcut_n",
    "shortcut_to_required", "shortcut_constant", "n", "mde", "resolution_ratio", "power_at_n", "counts",
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
        (["design", "--p-a", "abc"], "invalid float value"),
        (["design", "--b", "3", "--c", "2", "--n", "4"], "b + c must not exceed n"),
        (["design", "--b", "3", "--c", "2", "--n", "40", "--p-a", "0.5"], "not both"),
        (["design", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.3", "--alpha", "2"], "alpha"),
        (["nonsense"], "invalid choice"),
    ],
)
def test_errors_are_one_line_and_exit_2(arguments, fragment):
    result = subprocess.run([sys.executable, "-m", "llm_power_verified.cli", *arguments], capture_output=True, text=True, timeout=60)
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


def test_cli_derivations_check_passes():
    result = subprocess.run([sys.executable, "-m", "llm_power_verified.cli", "derivations", "check"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "up to date" in result.stdout


def test_readme_main_job_command_runs(capsys):
    """README's first command, minus the install step, prints the worked example's figures."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    command = re.search(r"&& llm-power-verified (design[^\n]*)", readme).group(1).split()
    assert main(command) == 0
    text = capsys.readouterr().out
    assert "0.3273001" in text and "1027.576" in text and "1028" in text
