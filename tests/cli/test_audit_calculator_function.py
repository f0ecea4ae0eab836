"""``audit-calculator --python/--command``: real calculators written outside the package, checked end to end.

The Python calculators are written by the test into a temporary .py file (a correct paired N*, the (1 - rho)
shortcut, one with other argument names); the commands are Python one-liners (fast) and, where R is installed, an
R expression through Rscript (``pwr.2p.test``).  Every report goes through ``main`` as a user would run it; the
JSON is validated against the shipped schema.  Runs are kept small (the small grid, few property-search examples).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import time
from importlib import resources

import jsonschema
import pytest

from llm_power_verified.cli.audit_calculator import QUANTITY_CHOICES
from llm_power_verified.cli.calculator_command import CommandCalculator
from llm_power_verified.cli.calculator_maps import argument_map
from llm_power_verified.cli.main import main
from llm_power_verified.testing.quantities import QUANTITIES

SCHEMA = json.loads((resources.files("llm_power_verified") / "report" / "conformance.schema.json").read_text())
FAST = ["--grid", "small", "--max-examples", "3"]

CALCULATORS = """
import math
from statistics import NormalDist


def _k(alpha, power):
    z = NormalDist().inv_cdf
    return (z(1 - alpha / 2) + z(power)) ** 2


def paired(p_a, p_b, rho, alpha, power):
    variance = p_a * (1 - p_a) + p_b * (1 - p_b) - 2 * rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    return _k(alpha, power) * variance / (p_a - p_b) ** 2


def shortcut(p_a, p_b, rho, alpha, power):
    h = 2 * math.asin(math.sqrt(p_a)) - 2 * math.asin(math.sqrt(p_b))
    return (1 - rho) * _k(alpha, power) / h ** 2


def naive_exact_p(b, c):
    n, k = b + c, min(b, c)
    scale = 2.0**n  # OverflowError from n = 1,024 on
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / scale)


def renamed(first, second, correlation, level, target, sides):
    assert sides == 2
    return paired(first, second, correlation, level, target)
"""


@pytest.fixture
def calculators(tmp_path, monkeypatch):
    (tmp_path / "calculators.py").write_text(CALCULATORS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    status = main(["audit-calculator", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _json(capsys, argv: list[str]) -> dict:
    status, out, err = _run(capsys, [*argv, "--format", "json"])
    assert (status, err) == (0, ""), err
    document = json.loads(out)
    jsonschema.validate(document, SCHEMA)
    return document


def test_quantity_choices_are_the_quantities_of_the_check():
    assert [name.replace("-", "_") for name in QUANTITY_CHOICES] == list(QUANTITIES)


def test_a_correct_paired_n_conforms_and_is_named_paired(calculators, capsys):
    document = _json(capsys, ["--python", "calculators.py:paired", *FAST])
    assert document["conforms"] is True and document["convention"] == "paired"
    assert document["failures"] == [] and document["source"] == "--python calculators.py:paired"
    # The test's function uses the same formula in double precision: any difference is rounding (one item allowed).
    assert document["error_against_correct"] <= 1e-9


def test_the_shortcut_is_named_and_is_half_the_paired_n(calculators, capsys):
    document = _json(capsys, ["--python", "calculators.py:shortcut", "--claims", "shortcut", *FAST])
    assert document["convention"] == "shortcut" and document["conforms_to_claim"] is True
    assert document["error_against_claim"] <= 1e-9  # the same formula: rounding only
    # Lemma 1: about N*/2 for close comparisons, so at least 40% below the paired N* somewhere on the grid.
    assert document["error_against_correct"] > 0.4
    assert all(row["correct"] > row["value"] for row in document["deviations"])


def test_a_p_value_that_overflows_is_named_exact_with_its_threshold(calculators, capsys):
    document = _json(capsys, ["--python", "calculators.py:naive_exact_p", "--quantity", "pvalue", *FAST])
    assert document["quantity"] == "pvalue" and document["convention"] == "exact" and document["conforms"] is False
    overflow = next(failure for failure in document["failures"] if failure["kind"] == "overflow")
    assert overflow["threshold"] == 1024  # 2.0 ** 1024 is the first power of two beyond the largest double


def test_a_module_of_the_current_folder_and_an_argument_map(calculators, capsys):
    mapping = "p_a=first,p_b=second,rho=correlation,alpha=level,power=target,sides:=2"
    document = _json(capsys, ["--python", "calculators:renamed", "--argument-map", mapping, *FAST])
    assert document["convention"] == "paired" and document["conforms"] is True


def _one_liner(program: str) -> str:
    return f"{sys.executable} -c '{program}' {{p_a}} {{p_b}} {{rho}} {{alpha}} {{power}}"


def test_a_slow_call_is_a_timeout_and_a_call_printing_no_number_an_exception(calculators, capsys):
    """At one grid point the command sleeps 30 s (killed after 1 s), at another it prints text; elsewhere N*."""
    program = (
        "import sys, time, calculators; a = [float(x) for x in sys.argv[1:]]; "
        "time.sleep(30 if a[0] == 0.9 and a[3] == 0.05 else 0); "
        'print("n is", a[0]) if a[0] == 0.9 else print(calculators.paired(*a))'
    )
    started = time.monotonic()
    document = _json(
        capsys, ["--command", _one_liner(program), "--timeout", "1", "--grid", "small", "--max-examples", "1"]
    )
    failures = {failure["kind"]: failure for failure in document["failures"]}
    assert {"timeout", "exception"} <= set(failures) and document["conforms"] is False
    assert failures["timeout"]["counterexample"]["p_a"] == 0.9  # the grid point where it sleeps
    assert "not one number" in failures["exception"]["message"]
    assert document["convention"] == "paired"  # from the points where it answered
    # The inputs are passed and the value printed repr-exact: nothing is lost on the way but rounding.
    assert document["error_against_correct"] <= 1e-9
    assert time.monotonic() - started < 60, "the sleeping calls were killed after about 1 s"


def test_a_command_that_fails_or_prints_no_number_raises_with_what_it_said(calculators):
    """One call each, straight through the adapter: what the check records as an "exception" failure."""
    arguments = QUANTITIES["required_n"].arguments
    point = {"p_a": 0.65, "p_b": 0.6, "rho": 0.3, "alpha": 0.05, "power": 0.8}
    failing = CommandCalculator(
        _one_liner('import sys; sys.exit("pwr: h must be finite")'),
        arguments,
        argument_map(None, arguments, "", command=True),
        30,
    )
    with pytest.raises(RuntimeError, match="exit status 1: pwr: h must be finite"):
        failing(**point)
    chatty = CommandCalculator(
        _one_liner('print("n =", 1470)'), arguments, argument_map(None, arguments, "", command=True), 30
    )
    with pytest.raises(ValueError, match="'n = 1470', not one number"):
        chatty(**point)
    flooding = CommandCalculator(
        _one_liner('print("1" * 2_000_000)'), arguments, argument_map(None, arguments, "", command=True), 30
    )
    with pytest.raises(RuntimeError, match="printed more than 1 MB on standard output"):
        flooding(**point)
    r_values = CommandCalculator(
        _one_liner('print("[1] NA")'), arguments, argument_map(None, arguments, "", command=True), 30
    )
    assert math.isnan(r_values(**point))


def _r_with_pwr() -> str | None:
    if shutil.which("Rscript") is None:
        return "Rscript is not installed (CI installs r-base-core and r-cran-pwr)"
    found = subprocess.run(["Rscript", "-e", "library(pwr)"], capture_output=True, timeout=60)
    return None if found.returncode == 0 else "R's pwr package is not installed (CI installs r-cran-pwr)"


R_MISSING = _r_with_pwr()
PWR_2P = "Rscript -e 'cat(pwr::pwr.2p.test(h = pwr::ES.h({p_a}, {p_b}), sig.level = {alpha}, power = {power})$n)'"


@pytest.mark.skipif(R_MISSING is not None, reason=str(R_MISSING))
def test_an_r_expression_is_one_call_of_rscript_per_point():
    """Two calls (about 0.2 s each): the value R prints comes back as a float; the full audit is the slow test."""
    calculator = CommandCalculator(
        PWR_2P,
        QUANTITIES["required_n"].arguments,
        argument_map("rho=-", QUANTITIES["required_n"].arguments, "required-n", command=True),
        30,
    )
    assert calculator.argv({"p_a": 0.65, "p_b": 0.6, "rho": 0.3, "alpha": 0.05, "power": 0.8})[2].startswith(
        "cat(pwr::pwr.2p.test(h = pwr::ES.h(0.65, 0.6), sig.level = 0.05, power = 0.8)"
    )
    value = calculator(p_a=0.65, p_b=0.6, rho=0.3, alpha=0.05, power=0.8)
    # pwr.2p.test's per-arm n at the paper's Table 1 case is 1470.09 (crosscheck/); cat() prints R's default
    # 7 significant digits, shown as 1470.09: within 0.01.
    assert value == pytest.approx(1470.09, abs=0.01)


@pytest.mark.slow
@pytest.mark.skipif(R_MISSING is not None, reason=str(R_MISSING))
def test_an_r_expression_through_rscript_is_the_two_sample_arcsine(capsys):
    template = "Rscript -e 'cat(pwr::pwr.2p.test(h = pwr::ES.h({p_a}, {p_b}), sig.level = {alpha}, power = {power})$n)'"
    started = time.monotonic()
    document = _json(
        capsys, ["--command", template, "--argument-map", "rho=-", "--grid", "small", "--max-examples", "1"]
    )
    elapsed = time.monotonic() - started
    assert document["convention"] == "two-sample-arcsine", document["summary"]
    assert document["conforms"] is False  # a per-arm size, not the paired N*
    assert document["candidate_errors"]["two-sample-arcsine"] < 1e-6  # cat() prints 7 significant digits
    assert elapsed < 120, f"{document['calls']} Rscript calls took {elapsed:.0f} s"


TEMPLATE = "true {p_a} {p_b} {rho} {alpha} {power}"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--python", "no_such_module_here:f"], "cannot import no_such_module_here (ModuleNotFoundError"),
        (["--python", "calculators.py:missing"], "calculators.py has no missing"),
        (["--python", "calculators.py"], "give module:function or path/to/file.py:function"),
        (["--python", "absent.py:f"], "no file absent.py"),
        (["--python", "calculators.py:math"], "math is a module, not a function"),
        (["--command", "true {p_a} {p_b} {rho} {alpha} {powr}"], "unknown placeholder {powr}; allowed: {p_a}"),
        (["--command", "true {p_a} {p_b} {rho} {power}"], "the template has no {alpha}"),
        (["--command", "tool 'unclosed {p_a}"], "No closing quotation"),
        (["--command", "no-such-program-here {p_a}"], "no program 'no-such-program-here' found"),
        (["--command", TEMPLATE, "--argument-map", "p_x=a"], "'p_x' is not an argument of required-n; allowed: p_a"),
        (["--command", TEMPLATE, "--argument-map", "p_a=first"], "a --command template names the arguments itself"),
        (["--python", "calculators.py:paired", "--argument-map", "alpha:=0.05"], "alpha is an argument of required-n"),
        (["--python", "calculators.py:paired", "--argument-map", "p_a"], "use ours=theirs, ours=- or theirs:=VALUE"),
        (["--python", "calculators.py:paired", "--claims", "exact"], "--claims 'exact' is not a convention of"),
        (["--python", "calculators.py:paired", "--command", TEMPLATE], "give --python or --command, not both"),
        (["--python", "calculators.py:paired", "--claimed-n", "500"], "--claimed-n audits one claimed number"),
        (["--python", "calculators.py:paired", "--out", "calculators.py"], "would overwrite an input"),
        (["--p-a", "0.6", "--p-b", "0.5", "--rho", "0.2", "--claimed-n", "500", "--seed", "3"], "--seed applies to"),
        (["--p-a", "0.6", "--p-b", "0.5", "--rho", "0.2", "--claimed-n", "500", "--format", "html"], "--format html"),
    ],
)
def test_damaged_input_is_one_line_naming_what_is_wrong(calculators, capsys, argv, message):
    (calculators / "broken.py").write_text("def f(:\n")
    status, out, err = _run(capsys, argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("llm-power-verified: error: "), err
    assert message in err, err


def test_a_module_that_does_not_load_is_one_line(calculators, capsys):
    (calculators / "broken.py").write_text("def f(:\n")
    status, _, err = _run(capsys, ["--python", "broken.py:f"])
    assert status == 2 and err.count("\n") == 1 and "broken.py could not be loaded (SyntaxError" in err, err


def test_out_writes_the_report_and_strict_sets_the_status(calculators, capsys):
    status, out, err = _run(
        capsys, ["--python", "calculators.py:shortcut", *FAST, "--format", "markdown", "--out", "report.md", "--strict"]
    )
    assert (status, err) == (1, "") and out.startswith("wrote report.md")
    text = (calculators / "report.md").read_text()
    assert "# Calculator conformance: shortcut" in text and "| delta | rho to 0.1 |" in text
