"""lm-eval folders with several runs (the Open LLM Leaderboard's details layout), alignment on doc_hash, detection.

The files are the genuine lm-eval 0.4.13 output in ``tests/fixtures/lm_eval/hashlm`` (two models, doc_hash on every
line), copied into a temporary folder and arranged the way each case needs.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from llm_power_verified.cli import main
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io import AlignmentError, InputError, read_scores
from llm_power_verified.io.input_kinds import input_kind
from llm_power_verified.io.lm_eval_runs import stamp_moment

HASHLM = Path(__file__).resolve().parents[1] / "fixtures" / "lm_eval" / "hashlm"
TASK = "arith_mc"
EARLIER = "2026-11-21T09-00-00.123"


def _samples(model: str) -> Path:
    return next((HASHLM / model).glob(f"samples_{TASK}_*.jsonl"))


def _lines(model: str) -> list[dict]:
    return [json.loads(line) for line in _samples(model).read_text().splitlines()]


def _write(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))


def _leaderboard(tmp_path: Path) -> tuple[Path, Path]:
    """Two models in the details layout (ORG__MODEL/samples_TASK_STAMP.jsonl, no results file), each run twice.

    The earlier run of model-a has its first item's score flipped, so that which run was read shows in the matrix.
    """
    folders = []
    for model in ("model-a", "model-b"):
        folder = tmp_path / f"org__{model}"
        folder.mkdir()
        shutil.copyfile(_samples(model), folder / _samples(model).name)
        folders.append(folder)
    earlier = _lines("model-a")
    earlier[0]["acc"] = 1.0 - earlier[0]["acc"]
    _write(folders[0] / f"samples_{TASK}_{EARLIER}.jsonl", earlier)
    _write(folders[1] / f"samples_{TASK}_{EARLIER}.jsonl", _lines("model-b"))
    return folders[0], folders[1]


def test_several_runs_of_a_task_are_refused_naming_run(tmp_path):
    folders = _leaderboard(tmp_path)
    with pytest.raises(AlignmentError, match=r"2 samples files for task 'arith_mc'.*--run latest or --run STAMP"):
        read_scores(list(folders), task=TASK, metric="acc")


def test_run_latest_reads_the_newest_and_a_stamp_reads_its_run(tmp_path):
    folders = _leaderboard(tmp_path)
    original = read_scores([HASHLM / "model-a", HASHLM / "model-b"], task=TASK, metric="acc")
    latest = read_scores(list(folders), task=TASK, metric="acc", run="latest")
    assert latest.item_ids == original.item_ids
    assert np.array_equal(latest.scores, original.scores)  # 0/1 scores read from the same text: exact
    earlier = read_scores(list(folders), task=TASK, metric="acc", run=EARLIER)
    assert earlier.scores[0, 0] == 1 - original.scores[0, 0]
    assert np.array_equal(earlier.scores[1:], original.scores[1:])


def test_a_stamp_no_folder_holds_is_refused_listing_the_stamps(tmp_path):
    folders = _leaderboard(tmp_path)
    with pytest.raises(AlignmentError, match=r"--run '2020-01-01T00-00-00' is no run of task 'arith_mc'.*stamped"):
        read_scores(list(folders), task=TASK, metric="acc", run="2020-01-01T00-00-00")


def test_stamps_are_moments_not_text(tmp_path):
    here = tmp_path / "f.jsonl"
    # Text order puts a stamp without a fraction after one with; time order does not.
    stamps = ["2024-06-26T10-00-00", "2024-06-26T09-59-59.999999", "2024-06-26T10-00-00.5"]
    assert sorted(stamps, key=lambda stamp: stamp_moment(stamp, here)) == [stamps[1], stamps[0], stamps[2]]
    assert stamp_moment("2024-06-26T10-00-00.5", here) == stamp_moment("2024-06-26T10:00:00.500000", here)
    for bad in ("2026-13-45T99-99-99", "2024-06-26T10-00-43.9.9"):
        with pytest.raises(InputError, match=r"f\.jsonl: time stamp .* is no moment"):
            stamp_moment(bad, here)


@pytest.mark.parametrize(
    "other", ["2026-11-21T16-04-38.378533000", "2026-11-21T16:04:38.378533", "2026-11-21T16-04-38.378533.json"]
)
def test_two_files_of_one_moment_are_refused_not_chosen(tmp_path, other):
    folder = tmp_path / "model-a"
    shutil.copytree(HASHLM / "model-a", folder)
    name = f"samples_{TASK}_{other}" if other.endswith(".json") else f"samples_{TASK}_{other}.jsonl"
    if other.endswith(".json"):
        (folder / name).write_text(json.dumps(_lines("model-a")))
    else:
        _write(folder / name, _lines("model-a"))
    if other.endswith("000"):  # seven digits and more: not a fraction of lm-eval's
        with pytest.raises(InputError, match=r"is no moment"):
            read_scores([folder, HASHLM / "model-b"], task=TASK, metric="acc", run="latest")
        return
    with pytest.raises(AlignmentError, match=r"at the same moment .*keep one"):
        read_scores([folder, HASHLM / "model-b"], task=TASK, metric="acc", run="latest")


def test_a_pipe_named_like_a_samples_file_is_refused_not_read(tmp_path):
    folder = tmp_path / "model-a"
    folder.mkdir()
    os.mkfifo(folder / f"samples_{TASK}_2026-11-21T16-04-38.378533.jsonl")
    with pytest.raises(InputError, match=r"a pipe, device or folder, not a samples file"):
        read_scores([folder, HASHLM / "model-b"], task=TASK, metric="acc")


def _shuffled_copy(tmp_path: Path) -> tuple[Path, Path]:
    """model-a as it is, model-b's lines in reverse order and numbered again: same documents, other doc_ids."""
    first, second = tmp_path / "model-a", tmp_path / "model-b"
    shutil.copytree(HASHLM / "model-a", first)
    second.mkdir()
    records = _lines("model-b")[::-1]
    for number, record in enumerate(records):
        record["doc_id"] = number
    _write(second / _samples("model-b").name, records)
    return first, second


def test_align_on_hash_pairs_documents_whatever_their_doc_id(tmp_path):
    folders = _shuffled_copy(tmp_path)
    with pytest.raises(AlignmentError, match=r"doc_id 0 has doc_hash .* the runs did not score the same items"):
        read_scores(list(folders), task=TASK, metric="acc")
    by_hash = read_scores(list(folders), task=TASK, metric="acc", align_on="hash")
    original = read_scores([HASHLM / "model-a", HASHLM / "model-b"], task=TASK, metric="acc")
    # The same (doc_hash -> score) pairs per model, whatever the order: compare per document.
    hashes = [record["doc_hash"] for record in _lines("model-a")]
    position = {item: row for row, item in enumerate(by_hash.item_ids)}
    rows = [position[f"{TASK}:{doc_hash}"] for doc_hash in hashes]
    assert np.array_equal(by_hash.scores[rows], original.scores)
    assert any("paired by their content" in note for note in by_hash.notes)


def test_align_on_hash_refuses_a_line_without_hash_and_a_repeated_hash(tmp_path):
    folders = _shuffled_copy(tmp_path)
    samples = next(folders[1].glob("samples_*.jsonl"))
    records = [json.loads(line) for line in samples.read_text().splitlines()]
    del records[4]["doc_hash"]
    _write(samples, records)
    with pytest.raises(AlignmentError, match=r"line 5: no doc_hash.*--align-on id"):
        read_scores(list(folders), task=TASK, metric="acc", align_on="hash")
    records[4]["doc_hash"] = records[7]["doc_hash"]
    _write(samples, records)
    with pytest.raises(AlignmentError, match=r"lines 5 and 8: one doc_hash .*--align-on id"):
        read_scores(list(folders), task=TASK, metric="acc", align_on="hash")


def _helm_run(folder: Path) -> None:
    (folder / "per_instance_stats.json").write_text("[]")
    (folder / "run_spec.json").write_text("{}")


def test_a_folder_two_readers_claim_is_refused_naming_input_format(tmp_path):
    folder = tmp_path / "both"
    shutil.copytree(HASHLM / "model-a", folder)
    _helm_run(folder)
    with pytest.raises(
        InputError, match=r"holds lm-eval samples .* and a HELM run .*--input-format lm-eval or --input"
    ):
        input_kind([folder])
    assert input_kind([folder], "lm-eval") == "lm-eval"
    matrix = read_scores([folder, HASHLM / "model-b"], task=TASK, metric="acc", input_format="lm-eval")
    assert matrix.n_models == 2


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda folder: None, r"no harness output recognised in this folder"),
        (lambda folder: (folder / "log.eval").write_bytes(b"PK"), r"a folder of Inspect logs: give the logs"),
    ],
)
def test_a_folder_no_per_item_reader_reads_is_refused(tmp_path, make, message):
    folder = tmp_path / "run"
    folder.mkdir()
    make(folder)
    with pytest.raises(InputError, match=message):
        input_kind([folder])


def test_files_that_belong_to_a_run_or_hold_aggregates_are_refused_saying_what_to_give():
    with pytest.raises(InputError, match=r"results file, which holds each model's aggregate.*audit-accuracies"):
        input_kind(list((HASHLM / "model-a").glob("results_*.json")))
    helm = Path(__file__).resolve().parents[1] / "fixtures" / "helm" / "simple_qa" / "run-model1"
    with pytest.raises(InputError, match=r"a HELM run's file: give the run folder"):
        input_kind([helm / "per_instance_stats.json"])
    assert input_kind([helm]) == "helm"


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def test_the_command_line_reads_a_chosen_run_and_refuses_without_one_in_one_line(tmp_path):
    folders = [str(folder) for folder in _leaderboard(tmp_path)]
    base = ["audit", *folders, "--task", TASK, "--metric", "acc", "--n-resamples", "0", "--format", "json", "--quiet"]
    status, out, err = _cli(base)
    assert status == 2 and out == "" and err.count("\n") == 1 and "--run latest" in err, err
    status, out, err = _cli([*base, "--run", "latest"])
    assert (status, err) == (0, ""), err
    assert json.loads(out)["data"]["n_items"] == len(_lines("model-a"))


def test_samples_written_as_one_json_array_are_read_like_json_lines(tmp_path):
    # lm-eval from May to mid-June 2024 (and the Open LLM Leaderboard details of that time) wrote
    # samples_TASK_STAMP.json: json.dumps(samples, indent=2); the same samples must give the same matrix.
    folders = []
    for model in ("model-a", "model-b"):
        folder = tmp_path / model
        folder.mkdir()
        name = _samples(model).name.removesuffix(".jsonl") + ".json"
        (folder / name).write_text(json.dumps(_lines(model), indent=2))
        folders.append(folder)
    original = read_scores([HASHLM / "model-a", HASHLM / "model-b"], task=TASK, metric="acc")
    arrays = read_scores(folders, task=TASK, metric="acc")
    assert arrays.item_ids == original.item_ids and np.array_equal(arrays.scores, original.scores)
    records = _lines("model-b")
    records[6]["acc"] = "1"
    next(folders[1].glob("*.json")).write_text(json.dumps(records, indent=2))
    with pytest.raises(InputError, match=r"samples_arith_mc_.*\.json, record 7: metric 'acc' is '1'"):
        read_scores(folders, task=TASK, metric="acc")
    next(folders[1].glob("*.json")).write_text(json.dumps({"samples": records}))
    with pytest.raises(InputError, match=r"a JSON dict where lm-eval's samples file holds an array of samples"):
        read_scores(folders, task=TASK, metric="acc")


def test_the_folder_holding_the_model_folders_is_refused_naming_them():
    with pytest.raises(InputError, match=r"holds harness output in its folders \(model-a, model-b, model-c\)"):
        input_kind([HASHLM])


def test_samples_files_given_as_files_are_refused_pointing_at_their_folders():
    files = [_samples("model-a"), _samples("model-b")]
    with pytest.raises(InputError, match=r"an lm-eval samples file: give the folders .*--item-field doc_id"):
        input_kind(files)
    with pytest.raises(InputError, match=r"an lm-eval samples file"):
        input_kind(files[:1])  # one file alone is not a table either


def test_logs_of_two_harnesses_are_named_each_by_its_harness():
    fixtures = HASHLM.parents[1]
    logs = [fixtures / "openai_evals" / "arith-solver-a.jsonl", next((fixtures / "inspect" / "eval").glob("*.eval"))]
    with pytest.raises(InputError, match=r"\(openai-evals\), .*\.eval \(inspect\); give one kind at a time$"):
        input_kind(logs)


def test_a_stamp_picks_the_run_of_the_folder_that_has_several_and_the_note_names_every_run_read(tmp_path):
    folders = _leaderboard(tmp_path)
    only = next(folders[1].glob(f"samples_{TASK}_{EARLIER}.jsonl"))
    only.unlink()  # model-b: one run; model-a: two
    matrix = read_scores(list(folders), task=TASK, metric="acc", run=EARLIER)
    original = read_scores([HASHLM / "model-a", HASHLM / "model-b"], task=TASK, metric="acc")
    assert matrix.scores[0, 0] == 1 - original.scores[0, 0]  # model-a's earlier run
    assert np.array_equal(matrix.scores[:, 1], original.scores[:, 1])  # model-b's only run
    stamp_b = _samples("model-b").name.removeprefix(f"samples_{TASK}_").removesuffix(".jsonl")
    note = next(note for note in matrix.notes if note.startswith("runs read"))
    assert f"org__model-a {EARLIER}" in note and f"org__model-b {stamp_b}" in note
    with pytest.raises(AlignmentError, match=r"--run '2020-01-01T00-00-00' is the run of no folder"):
        read_scores([folders[1]], task=TASK, metric="acc", run="2020-01-01T00-00-00")


def test_a_missing_task_or_metric_is_refused_listing_what_the_folder_holds():
    folders = [HASHLM / "model-a", HASHLM / "model-b"]
    with pytest.raises(InputError, match=r"missing: --task and --metric \(tasks with samples in model-a: arith_gen"):
        read_scores(folders)  # a folder is lm-eval output by its samples files; both options are needed
    with pytest.raises(InputError, match=r"missing: --metric \(metrics of arith_mc: acc, acc_norm\)"):
        read_scores(folders, task="arith_mc")


@pytest.mark.parametrize(
    ("source", "options", "message"),
    [
        ([str(HASHLM / "model-a"), None], {}, r"source holds None: each input is a path"),
        ([b"model-a"], {}, r"source holds b'model-a'"),
        ([str(HASHLM / "model-a"), str(HASHLM / "model-b")], {"task": TASK, "metric": "acc", "run": 5}, r"run=5"),
    ],
)
def test_the_api_refuses_what_is_no_path_or_no_text(source, options, message):
    with pytest.raises(ArgumentError, match=message):
        read_scores(source, **options)


def test_names_apply_to_lm_eval_folders_only():
    logs = sorted((HASHLM.parents[1] / "openai_evals").glob("*.jsonl"))
    with pytest.raises(InputError, match=r"--names \['x', 'y', 'z'\] applies to lm-eval folders; INPUT is OpenAI"):
        read_scores(logs, names=["x", "y", "z"])


def test_a_sample_field_named_as_the_metric_is_refused_as_no_metric():
    with pytest.raises(ArgumentError, match=r"--metric 'doc_id' is a field every lm-eval sample has, not a metric"):
        read_scores([HASHLM / "model-a", HASHLM / "model-b"], task=TASK, metric="doc_id")
