"""Golden outputs: every command's output on the shipped example (and small fixed inputs), byte for byte.

Written before the architecture moves so that a move that changes any printed
character fails here.  Regenerate deliberately (after a reviewed change of
output) with ``python -m tests.test_golden``; the files are in tests/golden/.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

from llm_power_verified.cli import main
from llm_power_verified.examples import shipped_example

GOLDEN = Path(__file__).resolve().parent / "golden"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
ACCURACIES = Path(__file__).resolve().parents[1] / "llm_power_verified" / "data" / "mmlu_pro_accuracies.csv"

FAST_AUDIT = ["--n-resamples", "100", "--n-cluster-resamples", "100"]
COMMANDS = {
    "audit_table": ["audit", *FAST_AUDIT],
    "audit_markdown": ["audit", "--format", "markdown", *FAST_AUDIT],
    "audit_json": ["audit", "--format", "json", *FAST_AUDIT],
    "audit_csv": ["audit", "--format", "csv", *FAST_AUDIT],
    "audit_all_json": ["audit", "--mode", "all", "--format", "json", "--n-resamples", "50", "--n-cluster-resamples", "50", "--seed", "3"],
    "audit_reference_markdown": ["audit", "--mode", "reference", "--reference", "Qwen2.5-72B", "--format", "markdown", *FAST_AUDIT],
    "audit_lm_eval_group": ["audit", str(FIXTURES / "lm_eval" / "hashlm_by_subject" / "model-a"), str(FIXTURES / "lm_eval" / "hashlm_by_subject" / "model-b"),
                            "--task", "arith_mc_by_subject", "--metric", "acc", "--format", "markdown", *FAST_AUDIT],
    "design_marginals": ["design", "--p-a", "0.65", "--p-b", "0.60", "--rho", "0.30", "--n", "1000"],
    "design_counts_json": ["design", "--b", "295", "--c", "249", "--n", "10042", "--a", "8000", "--json"],
    "test_counts_json": ["test", "--b", "295", "--c", "249", "--n", "10042", "--json"],
    "test_counts_table": ["test", "--b", "1", "--c", "7", "--n", "50", "--bootstrap-interval", "bca"],
    "monitor_json": ["monitor", "{a}", "{b}", "--json", "--checkpoints", "12"],
    "monitor_table": ["monitor", "{a}", "{b}", "--mixture", "beta"],
    "test_files_table": ["test", "{a}", "{b}", "--n-resamples", "2000"],
    "audit_calculator": ["audit-calculator", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.3", "--claimed-n", "515"],
    "audit_calculator_tool_json": ["audit-calculator", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.3", "--tool", "pwr.2p.test", "--tool-output", "1471", "--json"],
    "reproduce_sample_size": ["reproduce", "--paper", "sample-size"],
    "audit_summary_table": ["audit", "--summary", str(ACCURACIES)],
    "audit_summary_assumed_markdown": ["audit", "--summary", str(ACCURACIES), "--rho-range", "0.3", "0.6", "--format", "markdown",
                                       "--correction", "bonferroni"],
    "plan_gap": ["plan", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.3", "--family-size", "9", "--icc", "0.036", "--anytime"],
    "plan_summary": ["plan", "--summary", str(ACCURACIES), "--top", "6", "--rho", "0.5", "--correction", "bonferroni"],
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
    for key, formula in (("graded_a", lambda k: (k * 0.6180339887498949) % 1.0),
                         ("graded_b", lambda k: min(1.0, max(0.0, (k * 0.6180339887498949) % 1.0 - 0.02
                                                         + 0.2 * ((k * 1.4142135623730951) % 1.0 - 0.5))))):
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
    return text.replace(str(folder), "<tmp>").replace(str(FIXTURES), "<fixtures>").replace(str(ACCURACIES.parents[2]), "<checkout>")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_golden_output(tmp_path, name):
    expected = (GOLDEN / f"{name}.out").read_text()
    assert run(name, tmp_path) == expected


if __name__ == "__main__":
    import tempfile

    GOLDEN.mkdir(exist_ok=True)
    for name in sorted(COMMANDS) if len(sys.argv) < 2 else sys.argv[1:]:
        with tempfile.TemporaryDirectory() as folder:
            (GOLDEN / f"{name}.out").write_text(run(name, Path(folder).resolve()))
        print("wrote", name)
