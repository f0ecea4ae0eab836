"""``plan items`` reads per-item results exactly as ``audit`` reads them (one reader, cli/parents.py ``read_matrix``).

The defect this guards: ``plan --from`` on lm-eval folders asked for --task and then refused --task as an
unrecognized argument.  Here ``plan items`` on the lm-eval and Inspect fixtures names the same limiting pair as the
audit of the same files, and needs the same N: with ``--correction none`` the plan's level is alpha, so its N is the
whole N* of the audit's hardest adjacent pair (integers, compared exactly).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import pytest

from llm_power_verified.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LM_EVAL = [str(path) for path in sorted((FIXTURES / "lm_eval" / "hashlm").glob("model-*"))]
INSPECT = [str(path) for path in sorted((FIXTURES / "inspect" / "eval").glob("*.eval"))]
SOURCES = {"lm-eval": (LM_EVAL, ["--task", "arith_mc", "--metric", "acc"]), "inspect": (INSPECT, [])}


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def test_the_fixtures_are_there():
    assert len(LM_EVAL) == 3 and len(INSPECT) == 3


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_plan_items_limits_at_the_pair_the_audit_finds_hardest(source):
    inputs, options = SOURCES[source]
    status, out, err = _cli(
        ["audit", *inputs, *options, "--format", "json", "--n-resamples", "0", "--n-cluster-resamples", "0", "--quiet"]
    )
    assert (status, err) == (0, ""), err
    adjacent = [pair for pair in json.loads(out)["pairs"] if abs(pair["rank_a"] - pair["rank_b"]) == 1]
    assert len(adjacent) == 2
    hardest = max(adjacent, key=lambda pair: pair["required_n"])
    status, out, err = _cli(["plan", "items", *inputs, *options, "--correction", "none", "--json"])
    assert (status, err) == (0, ""), err
    plan = json.loads(out)["plan"]
    assert plan["limiting"]["observed"] == f"{hardest['model_a']} vs {hardest['model_b']}"
    assert plan["required_n"]["observed"] == math.ceil(hardest["required_n"])
    assert plan["n_items"] == 200


def test_plan_items_takes_the_lm_eval_options_and_asks_for_them_as_audit_does():
    for command in (["audit"], ["plan", "items"]):
        status, _, err = _cli([*command, *LM_EVAL])
        assert status == 2 and err == (
            "llm-power-verified: error: lm-eval folders need --task and --metric (task=, metric= in "
            "Python); missing: --task and --metric (tasks with samples in model-a: arith_gen, arith_mc)\n"
        )
    status, out, err = _cli(["plan", "items", *LM_EVAL, "--task", "arith_mc", "--metric", "acc"])
    assert (status, err) == (0, "") and "unrecognized" not in out
    assert "benchmark now: 200 items" in out


def test_plan_items_reads_inspect_epochs_as_audit_does():
    """--epochs is an input option: 'error' refuses the two-epoch log in both commands, with the same line."""
    epochs = [str(next((FIXTURES / "inspect" / "eval_epochs2").glob("*.eval"))), INSPECT[1]]
    lines = {
        tuple(command): _cli([*command, *epochs, "--epochs", "error", "--on-missing", "intersect"])
        for command in (["audit"], ["plan", "items"])
    }
    (audit_status, _, audit_err), (plan_status, _, plan_err) = lines.values()
    assert audit_status == plan_status == 2 and audit_err == plan_err and audit_err.count("\n") == 1


def test_plan_report_monitors_at_the_level_the_report_was_audited_at(tmp_path):
    """plan report has no --alpha: a saved report's --anytime plan stops at e >= m/alpha of the report itself.

    The top 3 are a family of 2 adjacent pairs, monitored with Bonferroni on the e-values: 2 / 0.01 = 200 (40 at 0.05).
    """
    report = tmp_path / "r.json"
    accuracies = Path(__file__).resolve().parents[2] / "llm_power_verified" / "data" / "mmlu_pro_accuracies.csv"
    assert (
        _cli(["audit-accuracies", str(accuracies), "--alpha", "0.01", "--format", "json", "--out", str(report)])[0] == 0
    )
    status, out, err = _cli(
        ["plan", "report", str(report), "--rho", "0.5", "--top", "3", "--anytime", "--horizon", "1000"]
    )
    assert (status, err) == (0, ""), err
    assert "stop at e >= 200: m/alpha" in out
    status, _, err = _cli(["plan", "report", str(report), "--alpha", "0.05"])
    assert status == 2 and "unrecognized arguments: --alpha 0.05" in err


@pytest.mark.parametrize(
    "extra", [["--scorer", "x"], ["--epochs", "mean"], ["--cluster-column", "subject"], ["--item-column", "id"]]
)
def test_an_option_the_input_does_not_read_is_refused_not_ignored(extra):
    """A reader option of another input kind would be ignored: both commands refuse it in one line naming the option."""
    for command in (["audit"], ["plan", "items"]):
        status, out, err = _cli([*command, *LM_EVAL, "--task", "arith_mc", "--metric", "acc", *extra])
        assert status == 2 and out == "" and err.count("\n") == 1 and extra[0] in err and "lm-eval folders" in err, err
    status, _, err = _cli(["audit", *INSPECT, "--task", "arith_mc"])
    assert status == 2 and "--task 'arith_mc' applies to lm-eval folders or lighteval details; INPUT is Inspect" in err
