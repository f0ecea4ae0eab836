"""lm-eval folders must be runs of different models on the same items under one filter.

Each case is a damaged copy of the genuine fixtures (tests/fixtures/lm_eval, written by lm-eval 0.4.13, which puts
``doc_hash`` on every samples line) built in tmp_path: doc ids rotated in one model's file, one document replaced
under its id, two subject files of a group swapped, another filter, a folder copied under another name, a results
file copied. Each refusal is one line, through the reader and through the CLI (exit 2, no traceback); the genuine
folders read as before. The last test is the Inspect reader's counterpart: a sample id whose input differs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from llm_power_verified.cli import main
from llm_power_verified.io import InputError, read_inspect, read_lm_eval

LM_EVAL = Path(__file__).resolve().parents[1] / "fixtures" / "lm_eval"
EXPECTED = json.loads((LM_EVAL.parent / "expected_counts.json").read_text())


def _copy(tmp_path: Path, fixture: str, names=("model-a", "model-b", "model-c")) -> list[Path]:
    folders = []
    for name in names:
        shutil.copytree(LM_EVAL / fixture / name, tmp_path / name)
        folders.append(tmp_path / name)
    return folders


def _edit(path: Path, change) -> None:
    """Rewrite a samples file record by record: ``change(records)`` edits the list of parsed records in place."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    change(records)
    path.write_text("".join(json.dumps(record) + "\n" for record in records))


def _samples(folder: Path, task: str = "arith_mc") -> Path:
    return next(folder.glob(f"samples_{task}_2*.jsonl"))


def _refused(folders: list[Path], task: str, metric: str, fragment: str, capsys) -> str:
    """The reader raises one line holding ``fragment``; the CLI prints that line alone and exits 2."""
    with pytest.raises(InputError) as error:
        read_lm_eval(folders, task=task, metric=metric)
    message = str(error.value)
    assert fragment in message and "\n" not in message, message
    status = main(["audit", *map(str, folders), "--task", task, "--metric", metric, "--n-resamples", "0", "--quiet"])
    captured = capsys.readouterr()
    assert status == 2 and fragment in captured.err and "Traceback" not in captured.err, captured.err
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    return message


def _rotate(records: list[dict]) -> None:
    ids = [record["doc_id"] for record in records]
    for record, doc_id in zip(records, ids[1:] + ids[:1], strict=True):
        record["doc_id"] = doc_id


def test_rotated_doc_ids_are_refused(tmp_path, capsys):
    # F1: without the check model-c vs model-b read as 91, 50, 38, 21 instead of 103, 38, 26, 33.
    folders = _copy(tmp_path, "hashlm")
    _edit(_samples(folders[1]), _rotate)
    message = _refused(
        folders,
        "arith_mc",
        "acc",
        "line 1: task 'arith_mc' doc_id 1 has doc_hash 9182b92cbfdd... but model-a's doc_id 1",
        capsys,
    )
    assert "_2026-11-21T16-05-01.312851.jsonl, line 1:" in message and "model-b" in message
    assert "the runs did not score the same items" in message


def test_another_document_under_the_same_id_is_refused(tmp_path, capsys):
    folders = _copy(tmp_path, "hashlm")

    def replace(records):
        records[3]["doc"] = {**records[3]["doc"], "question": "What is 2 + 2?"}
        records[3]["doc_hash"] = "0" * 64

    _edit(_samples(folders[1]), replace)
    _refused(
        folders,
        "arith_mc",
        "acc",
        "line 4: task 'arith_mc' doc_id 3 has doc_hash 000000000000... but model-a's "
        "doc_id 3 (samples_arith_mc_2026-11-21T16-04-38.378533.jsonl, line 4) has 54f871797d96...",
        capsys,
    )


def test_swapped_subject_files_of_a_group_are_refused(tmp_path, capsys):
    # F14: each doc's doc.subject contradicts its file's task; the hashes differ under the same (subtask, doc_id).
    folders = _copy(tmp_path, "hashlm_by_subject", ("model-a", "model-b"))
    addition, multiplication = (
        _samples(folders[1], "arith_mc_addition"),
        _samples(folders[1], "arith_mc_multiplication"),
    )
    swap = folders[1] / "swap"
    addition.rename(swap)
    multiplication.rename(addition)
    swap.rename(multiplication)
    _refused(
        folders,
        "arith_mc_by_subject",
        "acc",
        "task 'arith_mc_addition' doc_id 0 has doc_hash 2d18973c06b5... but model-a's doc_id 0",
        capsys,
    )


def test_models_under_different_filters_are_refused(tmp_path, capsys):
    # F2: each file holds one filter, so no --filter is needed per file; across models they differ.
    folders = _copy(tmp_path, "hashlm")
    _edit(_samples(folders[1]), lambda records: [record.update(filter="strict-match") for record in records])
    message = _refused(folders, "arith_mc", "acc", "holds task 'arith_mc' under filter 'strict-match' but ", capsys)
    assert "under filter 'none'" in message and "--filter" in message
    assert message.count("samples_arith_mc_") == 2


def test_a_copied_folder_is_refused(tmp_path, capsys):
    # F14: model-c is a byte-identical copy of model-a under another name.
    folders = _copy(tmp_path, "hashlm", ("model-a", "model-b"))
    shutil.copytree(folders[0], tmp_path / "model-c")
    folders.append(tmp_path / "model-c")
    _refused(
        folders,
        "arith_mc",
        "acc",
        "model-c and model-a are both runs of model hashlm ({'pretrained': 'model-a'",
        capsys,
    )
    for results in folders[2].glob("results_*.json"):
        results.unlink()
    _refused(folders, "arith_mc", "acc", "model-a hold byte-identical samples files: both are the same run", capsys)


def test_a_copied_results_file_is_refused_and_other_settings_are_read(tmp_path, capsys):
    folders = _copy(tmp_path, "hashlm")
    own = next(folders[2].glob("results_*.json"))
    settings = json.loads(next(folders[0].glob("results_*.json")).read_text())
    own.write_text(json.dumps(settings))
    _refused(folders, "arith_mc", "acc", "model-c and model-a are both runs of model hashlm", capsys)
    # The same model under another n-shot is another run to compare, not a copy.
    settings["n-shot"]["arith_mc"] = 5
    own.write_text(json.dumps(settings))
    assert read_lm_eval(folders, task="arith_mc", metric="acc").n_items == 200
    settings["n-shot"]["arith_mc"], settings["config"]["random_seed"] = 0, 7  # and so is a run under another seed
    own.write_text(json.dumps(settings))
    assert read_lm_eval(folders, task="arith_mc", metric="acc").n_items == 200
    # A prompt variant (another task configuration, same model and seeds) is a run of its own too (re-attack finding).
    settings["config"]["random_seed"] = json.loads(next(folders[0].glob("results_*.json")).read_text())["config"][
        "random_seed"
    ]
    settings.setdefault("configs", {}).setdefault("arith_mc", {})["doc_to_text"] = "Question: {{question}}"
    own.write_text(json.dumps(settings))
    assert read_lm_eval(folders, task="arith_mc", metric="acc").n_items == 200


def test_a_results_file_with_nan_is_not_a_reason_to_refuse(tmp_path):
    # lm-eval writes NaN for a metric it could not compute; the results file only says which run this is.
    folders = _copy(tmp_path, "hashlm")
    results = next(folders[0].glob("results_*.json"))
    results.write_text(results.read_text().replace("0.575", "NaN", 1))
    assert read_lm_eval(folders, task="arith_mc", metric="acc").n_items == 200


def test_missing_results_file_and_doc_hash_are_noted(tmp_path):
    folders = _copy(tmp_path, "hashlm")
    clean = read_lm_eval(folders, task="arith_mc", metric="acc")
    for results in folders[2].glob("results_*.json"):
        results.unlink()
    _edit(_samples(folders[1]), lambda records: [record.pop("doc_hash") for record in records])
    matrix = read_lm_eval(folders, task="arith_mc", metric="acc")
    assert np.array_equal(matrix.scores, clean.scores) and matrix.item_ids == clean.item_ids
    notes = " ".join(matrix.notes)
    assert "1 of 3 samples files (model-b/samples_arith_mc_" in notes and "matched by doc_id alone" in notes
    assert "no results file naming the model beside the samples of model-c" in notes
    for folder in folders[::2]:
        _edit(_samples(folder), lambda records: [record.pop("doc_hash") for record in records])
    assert "no samples file carries doc_hash" in " ".join(read_lm_eval(folders, task="arith_mc", metric="acc").notes)


GENUINE = [
    ("lm_eval dummy arith_mc acc", "dummy", "arith_mc", "acc", None),
    ("lm_eval hashlm arith_mc acc", "hashlm", "arith_mc", "acc", None),
    ("lm_eval hashlm arith_gen exact_match filter=strict-match", "hashlm", "arith_gen", "exact_match", "strict-match"),
    ("lm_eval hashlm arith_mc_by_subject acc", "hashlm_by_subject", "arith_mc_by_subject", "acc", None),
]


@pytest.mark.parametrize("name, fixture, task, metric, chosen", GENUINE, ids=[case[0] for case in GENUINE])
def test_genuine_folders_read_as_before(name, fixture, task, metric, chosen):
    expected = next(entry for entry in EXPECTED["sets"] if entry["set"] == name)
    matrix = read_lm_eval(sorted((LM_EVAL / fixture).iterdir()), task=task, metric=metric, filter=chosen)
    for run, counts in expected["runs"].items():
        assert matrix.n_items == counts["n"] and matrix.scores[:, matrix.models.index(run)].sum() == counts["n_correct"]
    for pair in expected["pairs"]:
        x, y = (matrix.scores[:, matrix.models.index(pair[side])] for side in ("first", "second"))
        assert (int(x @ y), int(x @ (1 - y)), int((1 - x) @ y)) == (pair["both"], pair["b"], pair["c"])
    assert f"filter '{chosen or 'none'}'" in matrix.notes[0]
    assert not any("doc_hash" in note or "results file" in note for note in matrix.notes), matrix.notes


def test_inspect_sample_with_another_input_is_refused(tmp_path, capsys):
    log = json.loads(next((LM_EVAL.parent / "inspect" / "json").glob("*.json")).read_text())
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    paths[0].write_text(json.dumps(log))
    log["eval"]["model"] = "mockllm/model-b"
    paths[1].write_text(json.dumps(log))
    assert read_inspect(paths).n_items == 20
    log["samples"][2]["input"] = "What is 2 + 2?"
    paths[1].write_text(json.dumps(log))
    with pytest.raises(
        InputError,
        match=r"b.json, samples\[2\]: sample '\S+' asks 'What is 2 \+ 2\?' but mockllm/model-a's "
        r"sample .* the logs did not score the same samples",
    ) as error:
        read_inspect(paths)
    assert "\n" not in str(error.value)
    assert main(["audit", *map(str, paths), "--n-resamples", "0", "--quiet"]) == 2
    captured = capsys.readouterr()
    assert "the logs did not score the same samples" in captured.err and "Traceback" not in captured.err
