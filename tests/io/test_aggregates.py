"""Harness result files as the accuracies table of the accuracies-only audit (issue 28, item 5).

The genuine fixtures: lm-eval 0.4.13 ``results_*.json`` (three ``dummy`` runs; the ``hashlm`` runs with a
generation task of two filters and a group of five subtasks), lighteval 0.13 results JSON, Inspect 0.3 ``.eval``
logs and HELM 0.5 ``stats.json``.  Every accuracy a result file stores is checked against the per-item results of
the same run (the samples files, details Parquet, log samples, per-instance stats), read independently, and every
count k read from a file equals the number of items right.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.cli import main
from llm_power_verified.io import InputError, read_scores
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.io.aggregates import _counts, is_result_file, read_aggregates
from llm_power_verified.io.aggregates_formats import helm_aggregate
from llm_power_verified.io.aggregates_records import fitted_n
from tests.support.hostile import FIXTURES, Read, Refused
from tests.support.hostile_aggregates import DUMMY, GROUPS, HASHLM, INSPECT, LIGHTEVAL, aggregate_cases

HELM = [FIXTURES / "helm" / "simple_qa" / name for name in ("run-model1", "run-model2")]
#: A result file's accuracy and the mean of the same run's per-item 0/1 scores are each k/N rounded once to a double
#: (a sum of 0/1 scores is exact; one division), so they agree to the last bit; one ulp of a value below 1 is allowed.
SAME_DOUBLE = 2**-52


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _per_item(matrix) -> dict[str, tuple[int, float]]:
    """{model: (items right, mean score)} of a 0/1 score matrix."""
    return {
        model: (int(matrix.scores[:, k].sum()), float(matrix.scores[:, k].mean()))
        for k, model in enumerate(matrix.models)
    }


def _check_against(table, expected: dict[str, tuple[int, float]], n: int) -> None:
    assert table.n == n and set(table.models) == set(expected)
    for k, model in enumerate(table.models):
        right, mean = expected[model]
        assert table.count_low[k] == table.count_high[k] == right, (model, table.count_low[k], right)
        assert math.isclose(table.accuracy[k], mean, rel_tol=0, abs_tol=SAME_DOUBLE), (model, table.accuracy[k], mean)


def test_the_fixtures_are_there():
    assert (len(DUMMY), len(HASHLM), len(GROUPS), len(LIGHTEVAL), len(INSPECT)) == (3, 3, 2, 3, 3)


def test_a_leaderboard_of_lm_eval_results_files_runs_through_audit_accuracies_end_to_end():
    """The issue's Done-when: the three dummy results files, N from the files, through the installed command."""
    run = subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", "audit-accuracies", *map(str, DUMMY), "--metric", "acc"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert "3 models, N = 200 items" in run.stdout
    assert "N = 200 (n-samples effective)" in run.stdout
    for model in ("dummy-seed1", "dummy-seed2", "dummy-seed3"):
        assert model in run.stdout


def test_the_dummy_accuracies_are_the_means_of_the_same_runs_samples():
    table = read_aggregates(DUMMY, metric="acc")
    matrix = read_scores([path.parent for path in DUMMY], task="arith_mc", metric="acc")
    # read_scores names an lm-eval folder after the folder, which here is the model name the results file gives.
    _check_against(table, _per_item(matrix), 200)
    assert table.count_low.tolist() == [54, 51, 56]
    status, out, _ = _cli(["audit-accuracies", *map(str, DUMMY), "--metric", "acc", "--format", "json"])
    report = json.loads(out)
    assert status == 0 and report["data"]["n_items"] == 200 and report["data"]["consistent"] is True
    assert {row["model"]: row["count_low"] for row in report["ranking"]} == {
        model: right for model, (right, _) in _per_item(matrix).items()
    }


def test_plan_accuracies_reads_result_files_too():
    status, out, err = _cli(["plan", "accuracies", *map(str, DUMMY), "--metric", "acc"])
    assert status == 0 and err == "" and "benchmark now: 200 items" in out


@pytest.mark.parametrize(
    ("task", "metric", "filter"),
    [("arith_mc", "acc", None), ("arith_gen", "exact_match", "strict-match"), ("arith_gen", "exact_match", None)],
)
def test_hashlm_tasks_and_filters_equal_the_samples(task, metric, filter):
    if filter is None and task == "arith_gen":
        with pytest.raises(
            InputError, match=r"2 filters \('strict-match', 'flexible-extract'\); choose one with --filter"
        ):
            read_aggregates(HASHLM, task=task, metric=metric)
        return
    table = read_aggregates(HASHLM, task=task, metric=metric, filter=filter)
    matrix = read_scores([path.parent for path in HASHLM], task=task, metric=metric, filter=filter)
    _check_against(table, _per_item(matrix), 200)


def test_a_group_is_the_size_weighted_mean_of_its_subtasks_with_n_their_sum():
    table = read_aggregates(GROUPS, task="arith_mc_by_subject", metric="acc")
    matrix = read_scores([path.parent for path in GROUPS], task="arith_mc_by_subject", metric="acc")
    _check_against(table, _per_item(matrix), 200)
    assert any("is a group of 5 tasks" in note and "size-weighted mean" in note for note in table.notes)
    one = read_aggregates(GROUPS, task="arith_mc_division", metric="acc")
    subtask = read_scores([path.parent for path in GROUPS], task="arith_mc_division", metric="acc")
    _check_against(one, _per_item(subtask), 40)


def test_inspect_logs_equal_their_samples():
    table = read_aggregates(INSPECT)
    _check_against(table, _per_item(read_scores(INSPECT)), 200)
    assert table.models == ("mockllm/model-a", "mockllm/model-b", "mockllm/model-c")


def test_lighteval_needs_n_and_then_equals_the_details():
    with pytest.raises(InputError, match=r"the file has no N .*fits N = 60\); give the benchmark size with --n N"):
        read_aggregates(LIGHTEVAL)
    table = read_aggregates(LIGHTEVAL, n=60, task="arith_mc", metric="acc")
    expected = {}
    for path in LIGHTEVAL:
        (details,) = (FIXTURES / "lighteval" / "details" / path.parent.name).glob("*/details_*.parquet")
        scores = np.asarray([row["acc"] for row in pd.read_parquet(details)["metric"]], dtype=float)
        expected[path.parent.name] = (int(scores.sum()), float(scores.mean()))
    _check_against(table, expected, 60)
    status, out, _ = _cli(["audit-accuracies", *map(str, LIGHTEVAL), "--n", "60"])
    assert status == 0 and "N = 60 items" in out


def _helm_per_instance(run: Path, stat: str) -> tuple[int, float]:
    """(items right, mean) of the unperturbed ``stat`` of a run's per_instance_stats.json, read here directly."""
    values = [
        entry["mean"]
        for instance in json.loads((run / "per_instance_stats.json").read_text())
        for entry in instance["stats"]
        if entry["name"]["name"] == stat and "perturbation" not in entry["name"]
    ]
    return int(sum(values)), float(np.mean(values))


def test_helm_stats_equal_the_per_instance_means():
    for run in HELM:
        record = helm_aggregate(run, metric="quasi_exact_match", split=None, n=None)
        right, mean = _helm_per_instance(run, "quasi_exact_match")
        assert record.n == 50 and math.isclose(record.accuracy, mean, rel_tol=0, abs_tol=SAME_DOUBLE)
        assert _counts(record.accuracy, 50) == (right, right)
    assert [helm_aggregate(run, metric="quasi_exact_match", split="test", n=None).model for run in HELM] == [
        "simple/model1",
        "simple/model2",
    ]
    # model2 answers nothing right: an accuracy of 0 has no per-item variance to pair, refused naming the file.
    with pytest.raises(
        InputError, match=r"run-model2/stats\.json: quasi_exact_match \(test\) is 0\.0; an accuracy of 0"
    ):
        read_aggregates(HELM, metric="quasi_exact_match")


def test_counts_come_from_the_stored_double_not_from_its_shortest_repr():
    """The file's 0.27 over N = 200 is k = 54 only; its repr read as printed digits would allow 53 to 55."""
    printed = read_accuracies(pd.DataFrame({"model": ["a", "b"], "accuracy": ["0.27", "0.255"]}), n=200)
    assert printed.count_low.tolist() == [53, 51] and printed.count_high.tolist() == [55, 51]
    assert read_aggregates(DUMMY[:2], metric="acc").count_high.tolist() == [54, 51]
    rng = np.random.default_rng(28)
    for n in [1, 2, 3, 7, 200, 999, 12032, *rng.integers(2, 10**6, size=20).tolist()]:
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n, *rng.integers(0, n + 1, size=5).tolist()}):
            scores = rng.permutation(np.r_[np.ones(k), np.zeros(n - k)])
            running = 0.0
            for score in scores[:5000]:  # a running sum, as a harness's Python loop computes it
                running += score
            # k/N rounded once, numpy's pairwise mean and a running sum give k and only k.
            for value in (k / n, float(scores.mean()), (running + scores[5000:].sum()) / n):
                assert _counts(value, n) == (k, k), (n, k, value)
        # A value half a count away from every k/N is no count of items right out of N.
        low, high = _counts((n // 2 + 0.5) / n, n)
        assert low > high


@pytest.mark.parametrize("case", aggregate_cases(), ids=lambda case: case.name)
def test_damaged_result_files_end_as_they_must(case, tmp_path, monkeypatch):
    for name, content in case.files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content() if callable(content) else content)
    monkeypatch.chdir(tmp_path)
    status, out, err = _cli(list(case.argv))
    if isinstance(case.expect, Read):
        assert status == 0 and err == "", err
        assert case.expect.check is None or case.expect.check(out, tmp_path) is None, case.expect.check(out, tmp_path)
        return
    assert isinstance(case.expect, Refused)
    assert status == 2 and out == "" and err.count("\n") == 1 and err.startswith("llm-power-verified: error:"), err
    for fragment in case.expect.fragments:
        assert fragment in err, (fragment, err)


def test_the_table_path_refuses_result_file_options():
    shipped = Path(__file__).resolve().parents[2] / "llm_power_verified" / "data" / "mmlu_pro_accuracies.csv"
    status, out, err = _cli(["audit-accuracies", str(shipped), "--task", "arith_mc"])
    assert status == 2 and out == "" and "--task 'arith_mc' applies to harness result files" in err
    status, _, err = _cli(["audit-accuracies", str(shipped)])
    assert status == 0 and err == ""


def test_what_is_a_result_file():
    samples = next(DUMMY[0].parent.glob("samples_*.jsonl"))
    assert all(is_result_file(path) for path in [*DUMMY, *HASHLM, *GROUPS, *LIGHTEVAL, *INSPECT, *HELM])
    assert all(is_result_file(run / "stats.json") for run in HELM)
    assert not any(is_result_file(path) for path in (samples, DUMMY[0].parent, FIXTURES / "README.md"))


def _lm_eval_copy(folder: Path, name: str, **changes) -> Path:
    """The first dummy results file with top-level keys changed, written as ``folder/name/results_x.json``."""
    document = json.loads(DUMMY[0].read_text())
    document.update(changes)
    path = folder / name / "results_x.json"
    path.parent.mkdir()
    path.write_text(json.dumps(document))
    return path


def test_model_names_from_older_model_args_and_names_alike_refused(tmp_path):
    older = _lm_eval_copy(tmp_path, "older", config={"model": "hf", "model_args": "pretrained=org/m,dtype=float16"})
    table = read_aggregates([older, DUMMY[1]], metric="acc")
    assert table.models == ("org/m", "dummy-seed2")
    alike = _lm_eval_copy(tmp_path, "alike", config={"model_args": {"pretrained": "dummy-seed2\u200b"}})
    shown = re.escape(r"alike/results_x.json: model 'dummy-seed2\u200b' and 'dummy-seed2' (")
    with pytest.raises(InputError, match=shown + r".* are the same name once format characters \(U\+200B\)"):
        read_aggregates([DUMMY[1], alike], metric="acc")
    nameless = _lm_eval_copy(tmp_path, "nameless", config={}, model_name=None)
    with pytest.raises(InputError, match=r"nameless/results_x\.json: no model name"):
        read_aggregates([nameless, DUMMY[1]], metric="acc")


def _helm_copy(folder: Path, *, valid: bool) -> list[Path]:
    """The HELM fixture's runs with model2's quasi_exact_match 0.0 made 0.3 (15 of 50) in stats.json; ``valid``:
    every unperturbed stat copied under split 'valid' too."""
    runs = []
    for run in HELM:
        stats = json.loads((run / "stats.json").read_text())
        for stat in stats:
            if run.name == "run-model2" and stat["name"] == {"name": "quasi_exact_match", "split": "test"}:
                stat.update(sum=15.0, mean=0.3)
        if valid:
            stats += [
                dict(stat, name=dict(stat["name"], split="valid"))
                for stat in stats
                if "perturbation" not in stat["name"]
            ]
        (folder / run.name).mkdir()
        (folder / run.name / "stats.json").write_text(json.dumps(stats))
        (folder / run.name / "run_spec.json").write_bytes((run / "run_spec.json").read_bytes())
        runs.append(folder / run.name)
    return runs


def test_helm_through_the_table_with_a_second_split(tmp_path):
    """model2's 0.0 made 0.3 (15 of 50) and every unperturbed stat copied under split 'valid': --split chooses."""
    runs = _helm_copy(tmp_path, valid=True)
    with pytest.raises(
        InputError, match=r"stat 'quasi_exact_match': 2 splits \('test', 'valid'\); choose one with --split"
    ):
        read_aggregates(runs, metric="quasi_exact_match")
    table = read_aggregates(runs, metric="quasi_exact_match", split="test")
    assert table.models == ("simple/model1", "simple/model2") and table.n == 50
    assert (
        table.count_low.tolist()
        == table.count_high.tolist()
        == [_helm_per_instance(HELM[0], "quasi_exact_match")[0], 15]
    )


def test_helm_run_folders_through_audit_accuracies(tmp_path):
    """N20: the shipped runs are refused (model2 scores 0); on the copy with model2 at 15 of 50 the command runs."""
    status, out, err = _cli(["audit-accuracies", *map(str, HELM), "--metric", "quasi_exact_match"])
    assert status == 2 and out == "" and "run-model2/stats.json: quasi_exact_match (test) is 0.0" in err
    runs = _helm_copy(tmp_path, valid=False)
    status, out, err = _cli(["audit-accuracies", *map(str, runs), "--metric", "quasi_exact_match", "--format", "json"])
    report = json.loads(out)
    assert status == 0 and err == "" and report["data"]["n_items"] == 50
    right = _helm_per_instance(HELM[0], "quasi_exact_match")[0]
    assert {row["model"]: row["count_low"] for row in report["ranking"]} == {
        "simple/model1": right,
        "simple/model2": 15,
    }
    assert any("N = 50 (num_instances)" in note for note in report["notes"])
    status, _, err = _cli(["audit-accuracies", *(str(run / "stats.json") for run in runs)])
    assert status == 2 and "run-model1/stats.json: 20 stats (" in err and "choose one with --metric" in err


def test_a_folder_or_a_per_item_log_says_what_to_give(tmp_path):
    """N9, N19: a HELM suite folder, an lm-eval folder, any folder and OpenAI evals logs name what to give."""
    suite = FIXTURES / "helm" / "simple_qa"
    status, out, err = _cli(["audit-accuracies", str(suite), "--metric", "exact_match"])
    assert status == 2 and out == "" and err.count("\n") == 1
    assert f"{suite}: a HELM suite folder (runs run-model1, run-model2), not a result file" in err
    assert "give the run folders to compare, one per model" in err and "table of accuracies" not in err
    status, _, err = _cli(["audit-accuracies", str(DUMMY[0].parent)])
    assert status == 2 and f"audit {DUMMY[0].parent} --task TASK --metric METRIC" in err and str(DUMMY[0]) in err
    (tmp_path / "empty").mkdir()
    for argv in ([str(tmp_path / "empty")], [str(tmp_path / "empty"), str(DUMMY[0])]):
        status, _, err = _cli(["audit-accuracies", *argv])
        assert status == 2 and "empty: a folder, not a result file; give the result files to compare" in err
    logs = sorted((FIXTURES / "openai_evals").glob("arith-solver-*.jsonl"))[:2]
    for argv in ([str(logs[0])], list(map(str, logs))):
        status, out, err = _cli(["audit-accuracies", *argv])
        assert status == 2 and out == "" and f"{logs[0]}: an OpenAI evals log" in err, err
        assert "audit the logs with 'audit LOG...'" in err and "given alone" not in err
    status, _, err = _cli(["audit-accuracies", str(DUMMY[0]), str(FIXTURES / "README.md")])
    assert status == 2 and "is read only when it is the one FILE given" in err


def test_quiet_is_accepted_and_changes_nothing():
    """N18: audit's --quiet (no progress bar) is accepted; audit-accuracies never shows a bar."""
    argv = ["audit-accuracies", *map(str, DUMMY), "--metric", "acc"]
    quiet, plain = _cli([*argv, "--quiet"]), _cli(argv)
    assert quiet[0] == 0 and quiet == plain


def test_the_n_a_standard_error_fits_is_a_whole_number():
    """N18: "fits N = 60", never 60.0; a standard error whose square under- or overflows ends in a message."""
    assert fitted_n(0.5, math.sqrt(0.25 / 59)) == "fits N = 60"
    assert fitted_n(0.3, math.sqrt(0.21 / 199)) == "fits N = 200"
    assert fitted_n(0.5, math.sqrt(0.25 / 59.5)) == "fits no whole N (p (1 - p) / se^2 + 1 = 60.5)"
    for stderr in (1e-200, 1e200, math.sqrt(0.25 / 0.5)):
        assert fitted_n(0.5, stderr).startswith("fits no N from 2 to ")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("name", ["results_x.json", "run/stats.json", "run/run_spec.json", "log.eval"])
def test_a_pipe_named_like_a_result_file_is_refused_at_once(tmp_path, name):
    """A10: a FIFO without a writer, found by its result-file name, is refused; opening it would block for ever."""
    if name.startswith("run/"):
        (tmp_path / "run").mkdir()
        for member in ("stats.json", "run_spec.json"):
            (tmp_path / "run" / member).write_bytes((HELM[0] / member).read_bytes())
        (tmp_path / name).unlink()
    os.mkfifo(tmp_path / name)
    target = tmp_path / "run" if name.startswith("run/") else tmp_path / name
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "llm_power_verified.cli",
            "audit-accuracies",
            str(target),
            str(HELM[0]),
            "--metric",
            "quasi_exact_match",
        ],
        capture_output=True,
        text=True,
        timeout=60,  # the hang it guards against: without the refusal the command never returns
        check=False,
    )
    assert run.returncode == 2 and run.stdout == "", run.stderr
    assert f"{tmp_path / name}: a pipe, not a file" in run.stderr and "give the file itself" in run.stderr
