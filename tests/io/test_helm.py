"""HELM run folders: the genuine fixture read right, checked against HELM's own aggregates and the raw files.

The fixture (``tests/fixtures/helm/simple_qa``, PROVENANCE.md) holds two runs of HELM's ``simple_short_answer_qa``
on the same 50 instances; model1's run also holds each instance under the perturbation ``mild_mix``.  The raw
``per_instance_stats.json`` and ``stats.json`` are read here with the standard library's ``json``, not through the
reader.  Damaged variants (``tests/support/hostile_helm.py``) each end in one line naming the file, the instance,
the value and the flag, or read with the items they should.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from llm_power_verified.cli import main
from llm_power_verified.errors import ArgumentError, LlmPowerError
from llm_power_verified.io.helm import is_helm_run, is_helm_suite, read_helm
from tests.support.hostile_helm import METRIC, RUNS, SUITE, Damage, damages, edited, extra_trial, files, replaced

#: Two genuine HELM runs of the public v3 suite (PROVENANCE.md): bbq, 2 instances, Llama 3 8B and 70B.
V3 = SUITE.parent / "v3_bbq"
V3_RUNS = ("bbq-meta_llama-3-70b", "bbq-meta_llama-3-8b")
#: The stats of those runs with one value in [0, 1] per instance that may be scores (HELM's accuracy metrics).
V3_SCORES = [
    "exact_match",
    "exact_match@5",
    "prefix_exact_match",
    "prefix_exact_match@5",
    "quasi_exact_match",
    "quasi_exact_match@5",
    "quasi_prefix_exact_match",
    "quasi_prefix_exact_match@5",
]
#: Means of 50 values that are 0 or 1: both sides are k/50 rounded once (HELM: sum / count; here the mean of the
#: matrix column), so they agree to the last bit; 1e-12 leaves room for a summation order, not for a wrong item.
MEAN_TOLERANCE = 1e-12


def _raw(run: str, metric: str = METRIC, perturbation: str | None = None, trial: int = 0) -> dict[str, float]:
    """{instance_id: mean} of the stat in the raw per_instance_stats.json (unperturbed, or under ``perturbation``)."""
    values = {}
    for entry in json.loads((SUITE / run / "per_instance_stats.json").read_text()):
        if entry["train_trial_index"] != trial:
            continue
        for stat in entry["stats"]:
            name = stat["name"]
            if name["name"] == metric and (name.get("perturbation") or {}).get("name") == perturbation:
                assert entry["instance_id"] not in values  # the raw file holds each instance once per perturbation
                values[entry["instance_id"]] = stat["mean"]
    return values


def _helm_aggregate(run: str, metric: str = METRIC, perturbation: str | None = None) -> float:
    """HELM's own mean in stats.json: the stat of that name on split test, unperturbed or computed on the perturbed."""
    for stat in json.loads((SUITE / run / "stats.json").read_text()):
        name, described = stat["name"], stat["name"].get("perturbation")
        if name["name"] != metric or name.get("split") != "test":
            continue
        if (perturbation is None and described is None) or (
            described is not None and described["name"] == perturbation and described["computed_on"] == "perturbed"
        ):
            return stat["mean"]
    raise KeyError(metric)


def _runs() -> list[Path]:
    return [SUITE / run for run in RUNS]


def test_detection():
    assert all(is_helm_run(run) for run in _runs())
    assert not is_helm_run(SUITE) and is_helm_suite(SUITE)
    assert not is_helm_suite(SUITE / RUNS[0]) and not is_helm_suite(SUITE / RUNS[0] / "run_spec.json")


@pytest.mark.parametrize("metric", [METRIC, "f1_score", "exact_match"])
def test_means_equal_helm_aggregate(metric):
    matrix = read_helm(_runs(), metric=metric)
    assert matrix.models == ("simple/model1", "simple/model2") and matrix.n_items == 50
    for column, run in enumerate(RUNS):
        # See MEAN_TOLERANCE.
        assert matrix.scores[:, column].mean() == pytest.approx(_helm_aggregate(run, metric), abs=MEAN_TOLERANCE)
    assert matrix.scores[:, 0].mean() == pytest.approx(0.54 if metric != "exact_match" else 0.0, abs=MEAN_TOLERANCE)


def test_discordant_counts_equal_the_raw_files():
    matrix = read_helm(_runs(), metric=METRIC)
    first, second = _raw(RUNS[0]), _raw(RUNS[1])
    assert sorted(first) == sorted(second) == sorted(matrix.item_ids)
    b = sum(first[item] == 1 and second[item] == 0 for item in first)
    c = sum(first[item] == 0 and second[item] == 1 for item in first)
    read_b = int(((matrix.scores[:, 0] == 1) & (matrix.scores[:, 1] == 0)).sum())
    read_c = int(((matrix.scores[:, 0] == 0) & (matrix.scores[:, 1] == 1)).sum())
    assert (read_b, read_c) == (b, c) == (27, 0)  # PROVENANCE.md: 27 items model1-only, 0 model2-only
    by_item = dict(zip(matrix.item_ids, matrix.scores[:, 0], strict=True))
    assert by_item == first


def _with_mild_mix(document: list) -> list:
    """model2's entries, each followed by a copy under model1's perturbation ``mild_mix`` with the same values."""
    described = {"name": "mild_mix", "robustness": True, "fairness": False, "computed_on": "perturbed"}
    result = []
    for entry in document:
        copy = json.loads(json.dumps(entry))
        copy["perturbation"] = described
        for stat in copy["stats"]:
            stat["name"]["perturbation"] = described
        result += [entry, copy]
    return result


def test_perturbed_values_left_out_by_default_and_read_when_asked(tmp_path):
    matrix = read_helm(_runs(), metric=METRIC)
    assert any("left out 50 perturbed" in note and "mild_mix" in note for note in matrix.notes)
    suite = _copy(tmp_path, {"run-model2/per_instance_stats.json": replaced(_with_mild_mix)})
    perturbed = read_helm([suite / run for run in RUNS], metric=METRIC, perturbation="mild_mix")
    raw = _raw(RUNS[0], perturbation="mild_mix")
    assert len(raw) == 50 and dict(zip(perturbed.item_ids, perturbed.scores[:, 0], strict=True)) == raw
    # See MEAN_TOLERANCE.
    expected = _helm_aggregate(RUNS[0], perturbation="mild_mix")
    assert perturbed.scores[:, 0].mean() == pytest.approx(expected, abs=MEAN_TOLERANCE)
    assert any("50 instance values of 'quasi_exact_match' under perturbation 'mild_mix'" in n for n in perturbed.notes)
    second = _raw(RUNS[1])
    b = sum(raw[item] == 1 and second[item] == 0 for item in raw)
    c = sum(raw[item] == 0 and second[item] == 1 for item in raw)
    read_b = int(((perturbed.scores[:, 0] == 1) & (perturbed.scores[:, 1] == 0)).sum())
    read_c = int(((perturbed.scores[:, 0] == 0) & (perturbed.scores[:, 1] == 1)).sum())
    assert (read_b, read_c) == (b, c)


def test_suite_with_a_rerun(tmp_path):
    """A suite holding a second run of model2: refused naming both folders, until --run-spec picks one per model."""
    suite = _copy(tmp_path, {})
    shutil.copytree(suite / RUNS[1], suite / "run-model2-rerun")
    spec = json.loads((suite / "run-model2-rerun" / "run_spec.json").read_text())
    spec["name"] += ",rerun"
    (suite / "run-model2-rerun" / "run_spec.json").write_text(json.dumps(spec))
    with pytest.raises(
        LlmPowerError, match=r"run-model2 and .*run-model2-rerun are both runs of model 'simple/model2'"
    ):
        read_helm([suite], metric=METRIC)
    with pytest.raises(LlmPowerError, match="--run-spec"):
        read_helm([suite], metric=METRIC)
    matrix = read_helm([suite], metric=METRIC, run_spec="*[12]")
    assert matrix.models == ("simple/model1", "simple/model2") and matrix.n_items == 50


@pytest.mark.parametrize(
    ("run_spec", "models"),
    [
        (None, ("simple/model1", "simple/model2")),
        ("simple_short_answer_qa", ("simple/model1", "simple/model2")),
        ("simple_short_answer_qa:model=simple_model", ("simple/model1", "simple/model2")),
        ("run-model?", ("simple/model1", "simple/model2")),
    ],
)
def test_suite_folder(run_spec, models):
    matrix = read_helm([SUITE], metric=METRIC, run_spec=run_spec)
    assert matrix.models == models and matrix.n_items == 50
    direct = read_helm(_runs(), metric=METRIC)
    for column, model in enumerate(models):
        assert np.array_equal(matrix.scores[:, column], direct.scores[:, direct.models.index(model)])


def test_run_spec_needs_a_suite():
    with pytest.raises(ArgumentError, match=r"--run-spec 'simple'.*suite folder"):
        read_helm(_runs(), metric=METRIC, run_spec="simple")


def _copy(tmp_path: Path, edits: dict) -> Path:
    suite = tmp_path / "simple_qa"
    for relative, content in files(edits).items():
        (suite / relative).parent.mkdir(parents=True, exist_ok=True)
        (suite / relative).write_bytes(content)
    return suite


def _three_trials(tmp_path: Path) -> tuple[Path, dict[tuple[int, str, int], float]]:
    """Both runs with train trials 0, 1, 2 (1 and 2 seeded 0/1 values); the suite, {(run, instance, trial): value}."""
    rng = np.random.default_rng(28)
    suite, values = _copy(tmp_path, {}), {}
    for column, run in enumerate(RUNS):
        document = json.loads((SUITE / run / "per_instance_stats.json").read_text())
        original = json.dumps(document)
        values |= {(column, instance, 0): value for instance, value in _raw(run).items()}
        for trial in (1, 2):
            for entry in json.loads(original):
                entry["train_trial_index"] = trial
                stat = next(s for s in entry["stats"] if s["name"]["name"] == METRIC)
                value = float(rng.random() < 0.5)
                stat.update(sum=value, mean=value)
                if "perturbation" not in entry:
                    values[column, entry["instance_id"], trial] = value
                document.append(entry)
        (suite / run / "per_instance_stats.json").write_text(json.dumps(document))
    return suite, values


@pytest.mark.parametrize("epochs", ["first", "mean", "all"])
def test_train_trials(tmp_path, epochs):
    suite, values = _three_trials(tmp_path)
    matrix = read_helm([suite / run for run in RUNS], metric=METRIC, epochs=epochs)
    for column in range(2):
        trials = [0] if epochs == "first" else [0, 1, 2]
        expected = [np.mean([values[column, item, t] for t in trials]) for item in matrix.item_ids]
        # Means of three 0/1 values: k/3 rounded once on both sides (see MEAN_TOLERANCE).
        assert matrix.scores[:, column] == pytest.approx(expected, abs=MEAN_TOLERANCE)
    note = next(note for note in matrix.notes if "3 train trials per instance (0-2)" in note)
    assert {"first": "kept train trial 0", "mean": "averaged all 3", "all": "as a generation"}[epochs] in note
    if epochs == "all":
        assert matrix.generations is not None and matrix.generations.counts.tolist() == [[3, 3]] * 50
    else:
        assert matrix.generations is None
    assert matrix.score_kind == ("binary" if epochs == "first" else "graded")


def test_one_trial_refused_under_epochs_all():
    with pytest.raises(LlmPowerError, match=r"one train trial per instance.*read it without --epochs"):
        read_helm(_runs(), metric=METRIC, epochs="all")


def test_a_trial_missing_is_refused(tmp_path):
    suite = _copy(tmp_path, {"run-model1/per_instance_stats.json": extra_trial(skip="id38")})
    with pytest.raises(LlmPowerError, match="instance 'id38' has no train trial 1"):
        read_helm([suite / run for run in RUNS], metric=METRIC, epochs="mean")


@pytest.mark.parametrize("damage", damages(), ids=lambda damage: damage.name)
def test_damaged_variant(tmp_path, damage: Damage):
    suite = _copy(tmp_path, damage.edits)
    paths = [suite / path for path in damage.paths]
    if not damage.fragments:
        assert read_helm(paths, **damage.options).n_items == damage.items
        return
    with pytest.raises(LlmPowerError) as raised:
        read_helm(paths, **{"metric": None, **damage.options})
    message = str(raised.value)
    assert "\n" not in message
    for fragment in damage.fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_enough_damaged_variants():
    assert sum(bool(damage.fragments) for damage in damages()) >= 15


def test_an_unknown_epochs_is_refused():
    with pytest.raises(ArgumentError, match="epochs must be"):
        read_helm(_runs(), metric=METRIC, epochs="last")


def test_perturbation_names_sharing_a_name_are_refused(tmp_path):
    def change(document):
        for entry in document[1::2][:3]:
            for stat in entry["stats"]:
                if "perturbation" in stat["name"]:
                    stat["name"]["perturbation"]["robustness"] = False

    suite = _copy(tmp_path, {"run-model1/per_instance_stats.json": edited(change)})
    with pytest.raises(LlmPowerError, match="two perturbations share the name"):
        read_helm([suite / RUNS[0]], metric=METRIC, perturbation="mild_mix")


def test_reading_a_copy_changes_nothing(tmp_path):
    suite = _copy(tmp_path, {})
    before = {path: path.read_bytes() for path in suite.rglob("*") if path.is_file()}
    read_helm([suite], metric=METRIC)
    assert before == {path: path.read_bytes() for path in suite.rglob("*") if path.is_file()}
    shutil.rmtree(suite)


# --------------------------------------------------------------------------- through the command line
FAST = ("--format", "json", "--n-resamples", "0", "--n-cluster-resamples", "0", "--quiet")


def _audit(capsys, *arguments: str) -> tuple[int, str, str]:
    status = main(["audit", *arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    "inputs",
    [
        [str(run) for run in _runs()],
        [str(SUITE), "--run-spec", "simple_short_answer_qa"],
        [str(SUITE), "--run-spec", "run-model[12]"],
    ],
    ids=["run folders", "suite, part of the name", "suite, pattern"],
)
def test_cli_audit_means_and_counts(capsys, inputs):
    status, out, err = _audit(capsys, *inputs, "--metric", METRIC, *FAST)
    assert status == 0 and err == ""
    report = json.loads(out)
    means = {row["model"]: row["mean_score"] for row in report["ranking"]}
    for run, model in zip(RUNS, ("simple/model1", "simple/model2"), strict=True):
        assert means[model] == pytest.approx(_helm_aggregate(run), abs=MEAN_TOLERANCE)  # see MEAN_TOLERANCE
    (pair,) = report["pairs"]
    first, second = _raw(RUNS[0]), _raw(RUNS[1])
    assert (pair["model_a"], pair["b"], pair["c"]) == (
        "simple/model1",
        sum(first[item] == 1 and second[item] == 0 for item in first),
        sum(first[item] == 0 and second[item] == 1 for item in first),
    )
    assert any("left out 50 perturbed" in note for note in report["notes"])


def test_cli_perturbation(capsys, tmp_path):
    suite = _copy(tmp_path, {"run-model2/per_instance_stats.json": replaced(_with_mild_mix)})
    status, out, err = _audit(capsys, str(suite), "--metric", METRIC, "--perturbation", "mild_mix", *FAST)
    assert status == 0 and err == ""
    means = {row["model"]: row["mean_score"] for row in json.loads(out)["ranking"]}
    # See MEAN_TOLERANCE.
    assert means["simple/model1"] == pytest.approx(_helm_aggregate(RUNS[0], perturbation="mild_mix"), abs=1e-12)


@pytest.mark.parametrize(
    ("arguments", "fragments"),
    [
        (["--metric", METRIC, "--perturbation", "typos"], ("run-model1", "'typos'", "--perturbation")),
        (["--metric", METRIC, "--split", "valid"], ("run-model1", "'valid'", "--split")),
        (["--metric", "num_prompt_tokens"], ("'id60'", "205", "--metric")),
        (["--metric", METRIC, "--epochs", "all"], ("one train trial", "read it without --epochs")),
        (["--metric", METRIC, "--run-spec", "mmlu"], ("--run-spec", "suite folder")),
        ([], ("--metric",)),
    ],
)
def test_cli_refusals_are_one_line(capsys, arguments, fragments):
    status, out, err = _audit(capsys, *(str(run) for run in _runs()), *arguments, *FAST)
    lines = err.strip().splitlines()
    assert status == 2 and out == "" and len(lines) == 1 and lines[0].startswith("llm-power-verified: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


# --------------------------------------------------------------------------- issue 28 fix round
def _score_like(run: Path) -> set[str]:
    """The raw file's stats with count 1 and a value in [0, 1] in every entry (the standard library's json)."""
    like: dict[str, bool] = {}
    for entry in json.loads((run / "per_instance_stats.json").read_text()):
        for stat in entry["stats"]:
            value = stat.get("mean", stat.get("sum"))
            ok = stat["count"] == 1 and isinstance(value, (int, float)) and 0 <= value <= 1
            like[stat["name"]["name"]] = like.get(stat["name"]["name"], True) and ok
    return {name for name, ok in like.items() if ok}


def test_genuine_v3_runs_stats_listed_scores_first():
    """N11: without --metric, HELM's accuracy stats are listed first, its bookkeeping after them, apart."""
    with pytest.raises(ArgumentError) as raised:
        read_helm([V3 / run for run in V3_RUNS], metric=None)
    message = str(raised.value)
    listed = message.split("per instance: ", 1)[1].rstrip(")")
    scores, other = listed.split("; other stats, not scores (token counts, runtimes, ...): ")
    assert scores.split(", ") == V3_SCORES
    assert set(other.split(", ")) == _score_like(V3 / V3_RUNS[0]) - set(V3_SCORES)
    assert {"batch_size", "inference_runtime", "num_train_trials", "prompt_truncated", "logprob"} <= set(
        other.split(", ")
    )


def test_genuine_v3_runs_means_counts_and_notes():
    """The v3 bbq runs as a suite: means equal stats.json, b and c the raw files', a note names scenario and runs."""
    matrix = read_helm([V3], metric="exact_match")
    assert matrix.models == ("meta/llama-3-70b", "meta/llama-3-8b") and matrix.n_items == 2
    for column, run in enumerate(V3_RUNS):
        stats = json.loads((V3 / run / "stats.json").read_text())
        helm_mean = next(s["mean"] for s in stats if s["name"] == {"name": "exact_match", "split": "test"})
        # Means of two 0/1 values are exact binary fractions on both sides.
        assert matrix.scores[:, column].mean() == helm_mean
    assert matrix.scores[:, 1].tolist() != matrix.scores[:, 0].tolist()  # 8B 1 of 2, 70B 0 of 2 (PROVENANCE.md)
    names = [json.loads((V3 / run / "run_spec.json").read_text())["name"] for run in V3_RUNS]
    assert f"HELM scenario BBQScenario(subject='all'); 2 runs read: {names[0]}, {names[1]}" in matrix.notes


def test_notes_name_ten_runs_then_a_count(tmp_path):
    """N4: twelve runs of one scenario: the note names the first ten runs read and counts the other two."""
    suite = tmp_path / "suite"
    for number in range(12):
        run = suite / f"run-{number:02d}"
        shutil.copytree(SUITE / RUNS[1], run)
        spec = json.loads((run / "run_spec.json").read_text())
        spec["name"], spec["adapter_spec"]["model"] = f"qa:model=m{number:02d}", f"m/{number:02d}"
        (run / "run_spec.json").write_text(json.dumps(spec))
        document = json.loads((run / "per_instance_stats.json").read_text())
        document[0]["stats"][0]["sum_squared"] = number  # twelve runs, not one run twelve times
        (run / "per_instance_stats.json").write_text(json.dumps(document))
    matrix = read_helm([suite], metric=METRIC)
    note = next(note for note in matrix.notes if "runs read" in note)
    shown = ", ".join(f"qa:model=m{number:02d}" for number in range(10))
    assert note == f"HELM scenario SimpleShortAnswerQAScenario(); 12 runs read: {shown} and 2 more"


def test_the_same_run_copied_under_another_model_name(tmp_path, capsys):
    """A4: a run folder copied byte for byte with only adapter_spec.model renamed is one run given twice."""
    suite = _copy(tmp_path, {})
    shutil.copytree(suite / RUNS[0], tmp_path / "renamed")
    spec = json.loads((tmp_path / "renamed" / "run_spec.json").read_text())
    spec["adapter_spec"]["model"] = "renamed/model"
    (tmp_path / "renamed" / "run_spec.json").write_text(json.dumps(spec))
    expected = r"run-model1 and .*renamed hold the same per_instance_stats.json.*'simple/model1' and 'renamed/model'"
    with pytest.raises(LlmPowerError, match=expected):
        read_helm([suite / RUNS[0], tmp_path / "renamed"], metric=METRIC)
    status, out, err = _audit(capsys, str(suite / RUNS[0]), str(tmp_path / "renamed"), "--metric", METRIC, *FAST)
    assert status == 2 and out == "" and "one run given twice" in err and len(err.strip().splitlines()) == 1


@pytest.mark.skipif(os.name != "posix", reason="named pipes and /dev/zero are POSIX")
@pytest.mark.parametrize("kind", ["pipe", "device"])
def test_a_pipe_or_device_named_as_a_run_file(tmp_path, capsys, kind):
    """A13: a FIFO, or a link to /dev/zero, named per_instance_stats.json is said to be one, not 'no such file'."""
    suite = _copy(tmp_path, {})
    member = suite / RUNS[0] / "per_instance_stats.json"
    member.unlink()
    if kind == "pipe":
        os.mkfifo(member)
    else:
        member.symlink_to("/dev/zero")
    expected = f"{member}: a pipe or device, not a file"
    for paths in ([suite / run for run in RUNS], [suite]):
        with pytest.raises(LlmPowerError) as raised:
            read_helm(paths, metric=METRIC)
        assert str(raised.value).startswith(expected)
    status, out, err = _audit(capsys, *(str(suite / run) for run in RUNS), "--metric", METRIC, *FAST)
    assert status == 2 and out == "" and expected in err and "no such file" not in err
