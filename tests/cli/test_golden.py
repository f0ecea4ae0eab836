"""Golden outputs: every command's output on the shipped example (and small fixed inputs).

Compared by format (tests/support/golden.py): structure, keys, words, integers
and rounded numbers exactly, floats printed at full precision to a relative
1e-11 (the reason is beside the constant), so that a printed character that
changes fails here and another CPU's last bits do not.  The golden's kind
follows its name: ``*_json`` one JSON document, ``*_jsonl`` JSON lines,
``*_csv`` CSV, anything else text.

Check from the shell with ``python -m tests.cli.test_golden [NAME ...]``; after a
reviewed change of output, rewrite with ``python -m tests.cli.test_golden --update
[NAME ...]`` (only goldens that no longer match are rewritten, unless named).
The files are in tests/golden/.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import pytest

from llm_power_verified.cli import main
from llm_power_verified.examples import shipped_example
from tests.support.golden import assert_same_output, differences, mutations, perturb_floats

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ACCURACIES = Path(__file__).resolve().parents[2] / "llm_power_verified" / "data" / "mmlu_pro_accuracies.csv"

FAST_AUDIT = ["--n-resamples", "100", "--n-cluster-resamples", "100"]
COMMANDS = {
    "audit_table": ["audit", *FAST_AUDIT],
    "audit_markdown": ["audit", "--format", "markdown", *FAST_AUDIT],
    "audit_json": ["audit", "--format", "json", *FAST_AUDIT],
    "audit_csv": ["audit", "--format", "csv", *FAST_AUDIT],
    "audit_jsonl": ["audit", "--format", "jsonl", *FAST_AUDIT],
    "audit_all_json": [
        "audit",
        "--mode",
        "all",
        "--format",
        "json",
        "--n-resamples",
        "100",
        "--n-cluster-resamples",
        "100",
        "--seed",
        "3",
    ],
    "audit_reference_markdown": [
        "audit",
        "--mode",
        "reference",
        "--reference",
        "Qwen2.5-72B",
        "--format",
        "markdown",
        *FAST_AUDIT,
    ],
    "audit_min_effect_markdown": ["audit", "--min-effect", "0.02", "--format", "markdown", *FAST_AUDIT],
    "audit_lm_eval_group": [
        "audit",
        str(FIXTURES / "lm_eval" / "hashlm_by_subject" / "model-a"),
        str(FIXTURES / "lm_eval" / "hashlm_by_subject" / "model-b"),
        "--task",
        "arith_mc_by_subject",
        "--metric",
        "acc",
        "--format",
        "markdown",
        *FAST_AUDIT,
    ],
    "design_marginals": ["design", "--p-a", "0.65", "--p-b", "0.60", "--rho", "0.30", "--n", "1000"],
    "design_counts_json": ["design", "--b", "295", "--c", "249", "--n", "10042", "--a", "8000", "--json"],
    "test_counts_json": ["test", "--b", "295", "--c", "249", "--n", "10042", "--json"],
    "test_counts_table": ["test", "--b", "1", "--c", "7", "--n", "50", "--bootstrap-interval", "bca"],
    "monitor_json": ["monitor", "{a}", "{b}", "--json", "--checkpoints", "12"],
    "monitor_table": ["monitor", "{a}", "{b}", "--mixture", "beta"],
    "test_files_table": ["test", "{a}", "{b}", "--n-resamples", "2000"],
    "audit_calculator": ["audit-calculator", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.3", "--claimed-n", "515"],
    "audit_calculator_tool_json": [
        "audit-calculator",
        "--p-a",
        "0.65",
        "--p-b",
        "0.6",
        "--rho",
        "0.3",
        "--tool",
        "pwr.2p.test",
        "--tool-output",
        "1471",
        "--json",
    ],
    "reproduce_sample_size": ["reproduce", "--paper", "sample-size"],
    "audit_accuracies_table": ["audit-accuracies", str(ACCURACIES)],
    "audit_accuracies_assumed_markdown": [
        "audit-accuracies",
        str(ACCURACIES),
        "--rho-range",
        "0.3",
        "0.6",
        "--format",
        "markdown",
        "--correction",
        "bonferroni",
    ],
    "audit_accuracies_html": [
        "audit-accuracies",
        str(ACCURACIES),
        "--format",
        "html",
        "--rho",
        "0.5",
        "--pairs",
        "all",
    ],
    "plan_gap": [
        "plan",
        "gap",
        "--p-a",
        "0.65",
        "--p-b",
        "0.6",
        "--rho",
        "0.3",
        "--family-size",
        "9",
        "--icc",
        "0.036",
        "--anytime",
    ],
    "plan_accuracies": [
        "plan",
        "accuracies",
        str(ACCURACIES),
        "--top",
        "6",
        "--rho",
        "0.5",
        "--correction",
        "bonferroni",
    ],
    "monitor_graded": ["monitor", "{graded_a}", "{graded_b}", "--checkpoints", "8"],
}


def _score_files(folder: Path) -> dict[str, str]:
    """Two columns of the shipped example (its first two models, first 3,000 items) as plain score files."""
    matrix = shipped_example(clusters=False)
    paths = {}
    for key, column in (("a", 0), ("b", 1)):
        path = folder / f"model_{key}.txt"
        path.write_text("".join(f"{int(v)}\n" for v in matrix.scores[:3000, column]))
        paths[key] = str(path)
    # Graded scores from a fixed arithmetic sequence (no random generator, so no library version can move them):
    # A's score is frac(k phi); B's is A's less 0.02 plus a bounded wobble frac(k sqrt 2) - 1/2 scaled by 0.2, clipped.
    for key, formula in (
        ("graded_a", lambda k: (k * 0.6180339887498949) % 1.0),
        (
            "graded_b",
            lambda k: min(
                1.0, max(0.0, (k * 0.6180339887498949) % 1.0 - 0.02 + 0.2 * ((k * 1.4142135623730951) % 1.0 - 0.5))
            ),
        ),
    ):
        path = folder / f"{key}.txt"
        path.write_text("".join(f"{formula(k):.4f}\n" for k in range(1, 3001)))
        paths[key] = str(path)
    return paths


def run(name: str, folder: Path) -> str:
    files = _score_files(folder) if any("{" in part for part in COMMANDS[name]) else {}
    arguments = [part.format(**files) if "{" in part else part for part in COMMANDS[name]]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(arguments)
    text = f"exit {status}\n{out.getvalue()}"
    # Paths of temporary files and of this checkout are not part of the output's meaning.
    return (
        text.replace(str(folder), "<tmp>")
        .replace(str(FIXTURES), "<fixtures>")
        .replace(str(ACCURACIES.parents[2]), "<checkout>")
    )


def kind_of(name: str) -> str:
    """The golden's format, from its name's suffix."""
    suffix = name.rsplit("_", 1)[-1]
    return suffix if suffix in ("json", "jsonl", "csv") else "text"


def split_exit(text: str) -> tuple[str, str]:
    """The ``exit N`` line (compared exactly) and the command's output (compared by its kind)."""
    first, _, rest = text.partition("\n")
    return first, rest


def check(name: str, expected: str, actual: str) -> None:
    """Fail naming each difference if ``actual`` is not ``expected`` under the rules of tests/support/golden.py."""
    expected_exit, expected_body = split_exit(expected)
    actual_exit, actual_body = split_exit(actual)
    assert actual_exit == expected_exit, f"{name}: {actual_exit!r}, golden says {expected_exit!r}\n{actual}"
    assert_same_output(expected_body, actual_body, kind_of(name), name)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_golden_output(tmp_path, name):
    check(name, (GOLDEN / f"{name}.out").read_text(), run(name, tmp_path))


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_golden_holds_under_last_bit_differences(name):
    """Every full-precision float moved by 4 ulps (what another CPU does) still matches; a change at 1e-10 does not."""
    golden = (GOLDEN / f"{name}.out").read_text()
    exit_line, body = split_exit(golden)
    kind = kind_of(name)
    perturbed, moved = perturb_floats(body, kind, ulps=4)
    if kind != "text":
        # Machine formats print every float in full, so some must have moved (else this proves nothing).
        assert moved > 0 and perturbed != body, f"{name}: no float to perturb"
    check(name, golden, f"{exit_line}\n{perturbed}")
    changes = list(mutations(body, kind))
    assert len(changes) >= 2, f"{name}: too few mutations to check ({changes!r:.200})"
    for description, changed in changes:
        found = differences(body, changed, kind, name)
        assert found, f"{name}: {description} was not detected"


def test_golden_files_have_commands():
    """No golden file is left without the command that writes it (a renamed command would leave one unchecked)."""
    assert sorted(path.stem for path in GOLDEN.glob("*.out")) == sorted(COMMANDS)


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.cli.test_golden", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"goldens to check or write (default: all): {', '.join(sorted(COMMANDS))}",
    )
    parser.add_argument(
        "--update",
        action="store_true",
        help="rewrite the goldens that no longer match (and every NAME given, even if it matches)",
    )
    options = parser.parse_args(argv)
    unknown = sorted(set(options.names) - set(COMMANDS))
    if unknown:
        parser.error(f"no golden named {', '.join(unknown)}; choose from {', '.join(sorted(COMMANDS))}")
    import tempfile

    GOLDEN.mkdir(exist_ok=True)
    failed = 0
    for name in options.names or sorted(COMMANDS):
        with tempfile.TemporaryDirectory() as folder:
            actual = run(name, Path(folder).resolve())
        path = GOLDEN / f"{name}.out"
        try:
            check(name, path.read_text() if path.exists() else "", actual)
            status = "matches"
        except AssertionError as error:
            status = str(error)
        if options.update and (status != "matches" or name in options.names):
            path.write_text(actual)
            status = "wrote" if status == "matches" else "wrote (it differed: " + status.splitlines()[0] + ")"
        elif status != "matches":
            failed += 1
        print(f"{name}: {status}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(_main())
