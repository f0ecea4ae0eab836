"""The generated code is current, deterministic, and its derivations prove what they claim."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from derivations import admissible_correlation, load_concepts, paired_variance, shortcut_series, wald
from derivations.__main__ import main as derivations_main
from derivations._codegen import GENERATED_DIR, check_all
from derivations._symbols import delta, p, p_a, p_b, rho

ROOT = Path(__file__).resolve().parents[2]

# The derivations run once per test process: importing the concept modules derives (about 16 s), and
# every test below (and tests/verification/test_generated_vs_symbolic.py, tests/cli/test_cli.py) reuses those imports;
# rendering the code from them takes 0.2 s.  One slow test repeats the whole run in a fresh interpreter
# under another hash seed, so the printing is shown not to depend on hash randomisation.


def test_committed_generated_code_is_current():
    assert check_all(load_concepts(), GENERATED_DIR) == ""


def test_hand_edit_is_caught(tmp_path, capsys):
    """Edit one generated file by hand: --check fails and its diff shows only that edit."""
    copy = tmp_path / "_generated"
    shutil.copytree(GENERATED_DIR, copy)
    target = copy / "wald.py"
    text = target.read_text()
    edited = text.replace("return variance*", "return 0.5*variance*", 1)
    assert edited != text
    target.write_text(edited)
    assert derivations_main(["--check", "--output", str(copy)]) == 1
    output = capsys.readouterr()
    assert "-    return 0.5*variance*" in output.out
    assert "+    return variance*" in output.out
    changed_files = [line for line in output.out.splitlines() if line.startswith("+++ ")]
    assert changed_files == ["+++ regenerated/wald.py"]
    assert "stale" in output.err


def test_regenerate_writes_identical_files(tmp_path, capsys):
    copy = tmp_path / "_generated"
    assert derivations_main(["--output", str(copy)]) == 0
    for path in GENERATED_DIR.glob("*.py"):
        assert (copy / path.name).read_text() == path.read_text(), path.name
    assert {p.name for p in copy.glob("*.py")} == {p.name for p in GENERATED_DIR.glob("*.py")}


@pytest.mark.slow
def test_fresh_interpreter_under_another_hash_seed_prints_the_same_code():
    environment = dict(os.environ, PYTHONHASHSEED="12345")
    result = subprocess.run(
        [sys.executable, "-m", "derivations", "--check"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_generated_header_names_command_source_and_version():
    text = (GENERATED_DIR / "paired_variance.py").read_text()
    assert "GENERATED FILE: DO NOT EDIT." in text
    assert "python -m derivations" in text
    assert "Source module: derivations/paired_variance.py" in text
    assert f"SymPy version: {sp.__version__}" in text


def test_resolution_ratio_is_the_squared_wald_statistic_over_k():
    """Definition 1: q = T_N^2 / (z_{1-alpha/2} + z_{1-beta})^2, exactly."""
    assert wald.derive_resolution_ratio_wald_identity() == 0


def test_variance_matches_paper_equation_5():
    """The cell derivation reproduces the paper's printed Eq. 5."""
    printed = p_a * (1 - p_a) + p_b * (1 - p_b) - 2 * rho * sp.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    derived = paired_variance.derive_variance_from_cells().subs(paired_variance.derive_cells_from_marginals())
    assert sp.simplify(sp.expand(derived - printed)) == 0


def test_admissible_bounds_make_a_cell_vanish():
    """At rho_max (rho_min) the smallest discordant (concordant) cell is exactly zero."""
    cells = paired_variance.CELLS
    with mpmath.workdps(50):
        for pa, pb in [("0.65", "0.6"), ("0.2", "0.9"), ("0.5", "0.5"), ("0.99", "0.03")]:
            values = {p_a: sp.Float(pa, 50), p_b: sp.Float(pb, 50)}
            at_max = {k: v.subs(rho, admissible_correlation.RHO_MAX).subs(values).evalf(50) for k, v in cells.items()}
            at_min = {k: v.subs(rho, admissible_correlation.RHO_MIN).subs(values).evalf(50) for k, v in cells.items()}
            both_wrong_at_min = 1 - values[p_a] - values[p_b] + at_min[paired_variance.p11]
            assert min(abs(at_max[paired_variance.p10]), abs(at_max[paired_variance.p01])) < 1e-45
            assert min(abs(at_min[paired_variance.p11]), abs(both_wrong_at_min)) < 1e-45


def test_lemma_1_terms_match_the_paper():
    """The paper's H2, V2 (Eqs. 20-21), their sum (Eq. 22) and C (Eq. 11) follow from the series."""
    printed = shortcut_series.paper_coefficients()
    derived = shortcut_series.derive_paper_terms()
    for key in ("H2", "V2", "H2+V2"):
        assert sp.cancel(printed[key] - derived[key]) == 0, key
    assert sp.cancel(-printed["H2+V2"] / 2 - shortcut_series.C2) == 0
    assert sp.simplify(shortcut_series.CONSTANT.subs(p, sp.Rational(1, 2)) - sp.Rational(1, 3)) == 0


@pytest.mark.parametrize(
    "p_value, rho_value", [("0.5", "0.3"), ("0.65", "0.3"), ("0.8", "0.5"), ("0.3", "-0.2"), ("0.9", "0.95")]
)
def test_lemma_1_limit_at_mpmath_precision(p_value, rho_value):
    """(n_h/N* - 1/2)/delta^2 -> c2 and (n_h/N* - 1/2 - c2 delta^2)/delta^4 -> c4 as delta -> 0.

    The exact ratio is evaluated in mpmath at 60 digits from the unexpanded
    expression; the remainders must shrink like delta^2.
    """
    exact = sp.lambdify((p_a, p_b, rho), shortcut_series.derive_exact_ratio(), "mpmath")
    c2 = sp.lambdify((p, rho), shortcut_series.C2, "mpmath")
    c4 = sp.lambdify((p, rho), shortcut_series.C4, "mpmath")
    with mpmath.workdps(80):
        mid, correlation = mpmath.mpf(p_value), mpmath.mpf(rho_value)
        second, fourth = c2(mid, correlation), c4(mid, correlation)
        remainders_2, remainders_4 = [], []
        for exponent in range(3, 8):
            gap = mpmath.mpf(10) ** -exponent
            ratio = exact(mid + gap / 2, mid - gap / 2, correlation)
            remainders_2.append((ratio - mpmath.mpf(1) / 2) / gap**2 - second)
            remainders_4.append((ratio - mpmath.mpf(1) / 2 - second * gap**2) / gap**4 - fourth)
        for exponent, remainder in zip(range(3, 8), remainders_2, strict=True):
            assert abs(remainder) <= 2 * abs(fourth) * mpmath.mpf(10) ** (-2 * exponent)
        for larger, smaller in pairwise(remainders_4):
            # O(delta^2): each decade of delta divides the remainder by about 100.
            assert 90 < larger / smaller < 110


def test_series_matches_exact_ratio_to_order_delta_six():
    """The delta^4 series differs from the exact ratio by O(delta^6) at moderate delta."""
    exact = sp.lambdify((p_a, p_b, rho), shortcut_series.derive_exact_ratio(), "mpmath")
    series = sp.lambdify((p, rho, delta), shortcut_series.SERIES, "mpmath")
    with mpmath.workdps(40):
        errors = []
        for gap in ("0.2", "0.1", "0.05"):
            g = mpmath.mpf(gap)
            errors.append(
                abs(
                    exact(mpmath.mpf("0.65") + g / 2, mpmath.mpf("0.65") - g / 2, mpmath.mpf("0.3"))
                    - series(mpmath.mpf("0.65"), mpmath.mpf("0.3"), g)
                )
            )
        # Halving delta divides an O(delta^6) error by about 64.
        assert 40 < errors[0] / errors[1] < 90
        assert 40 < errors[1] / errors[2] < 90
