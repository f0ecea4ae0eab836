"""Inspect epochs are exact, and an archive's members are unambiguous.

Every sample of a log has the same set of epochs, each exactly once, or the
reader refuses naming the sample and the epoch.  A log of several epochs is
refused unless ``--epochs`` chooses (the refusal names the three choices);
the notes name the epoch kept (``--epochs first``) or the epochs averaged
(``--epochs mean``), whose model means are the log header's accuracies on the
shipped 5-epoch run.  An archive holding two members of one name is refused.
Refusals are checked through the CLI: exit status 2, one line on stderr
naming the file.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

from llm_power_verified.cli import main
from llm_power_verified.io import read_inspect, read_scores
from llm_power_verified.io.errors import AlignmentError, InputError
from llm_power_verified.io.repeat_choice import CHOOSE
from llm_power_verified.io.zip_members import read_zip_member
from tests.io.test_bounded_reading import refused
from tests.support.damaged import eval_bytes, zip_archive, zstd_member

FIXTURES = Path(__file__).parents[1] / "fixtures" / "inspect"


def _sample(item: int, epoch: int, value: str) -> dict:
    return {"id": f"q{item:02d}", "epoch": epoch, "scores": {"match": {"value": value}}}


def _log(tmp_path: Path, name: str, samples: list[dict], model: str) -> Path:
    path = tmp_path / f"{name}.eval"
    header = json.dumps({"eval": {"model": model, "task": "t"}}).encode()
    path.write_bytes(eval_bytes({"header.json": header, "summaries.json": json.dumps(samples).encode()}))
    return path


def _pair(tmp_path: Path, samples_x: list[dict], items: int = 20) -> list[str]:
    """A log of model x with the given samples and a clean one-epoch log of model y."""
    rng = np.random.default_rng(7)
    y = [_sample(i, 1, "C" if rng.random() < 0.5 else "I") for i in range(items)]
    return [str(_log(tmp_path, "x", samples_x, "m/x")), str(_log(tmp_path, "y", y, "m/y"))]


def _epochs(items: int, epochs: list[int], seed: int = 3) -> tuple[list[dict], dict[tuple[int, int], float]]:
    rng = np.random.default_rng(seed)
    values = {(i, e): float(rng.random() < 0.6) for i in range(items) for e in epochs}
    return [_sample(i, e, "C" if values[i, e] else "I") for i in range(items) for e in epochs], values


# --------------------------------------------------------------------------- the genuine fixture: 50 ids x 2 epochs
def _fixture_epochs() -> dict[tuple[str, int], float]:
    """(id, epoch) -> score of the 2-epoch fixture, read member by member here (not through read_inspect)."""
    path = next((FIXTURES / "eval_epochs2").glob("*.eval"))
    values = {}
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if name.startswith("samples/"):
                record = json.loads(read_zip_member(archive, path, name))
                value = next(iter(record["scores"].values()))["value"]
                values[str(record["id"]), record["epoch"]] = {"C": 1.0, "I": 0.0}[value]
    return values


def test_fixture_notes_and_values_tell_the_truth():
    epochs_file = next((FIXTURES / "eval_epochs2").glob("*.eval"))
    other = sorted((FIXTURES / "eval").glob("*.eval"))[1]
    truth = _fixture_epochs()
    ids = sorted({item for item, _ in truth})
    assert len(ids) == 50 and {epoch for _, epoch in truth} == {1, 2} and len(truth) == 100
    first = read_inspect([epochs_file, other], epochs="first", on_missing="intersect")
    mean = read_inspect([epochs_file, other], epochs="mean", on_missing="intersect")
    assert "mockllm/model-a: 2 epochs per sample (epochs 1, 2); kept epoch 1 of each sample" in first.notes
    with zipfile.ZipFile(epochs_file) as archive:  # the task and scorer, read here from the log itself
        task = json.loads(read_zip_member(archive, epochs_file, "header.json"))["eval"]["task"]
        sample = next(name for name in archive.namelist() if name.startswith("samples/"))
        scorer = next(iter(json.loads(read_zip_member(archive, epochs_file, sample))["scores"]))
    assert first.notes[0] == f"Inspect task {task!r}, scorer {scorer!r} per sample; items keyed by sample id"
    assert (
        "mockllm/model-a: 2 epochs per sample (epochs 1, 2); averaged all 2 of each sample (scores are graded)"
        in mean.notes
    )
    column = first.models.index("mockllm/model-a")
    for matrix, expected in (
        (first, lambda item: truth[item, 1]),
        (mean, lambda item: (truth[item, 1] + truth[item, 2]) / 2),
    ):
        got = {item: matrix.scores[row, column] for row, item in enumerate(matrix.item_ids)}
        assert sorted(got) == ids
        # Exact: the scores are 0, 0.5 and 1, whose mean of two is exact in binary floating point.
        assert all(got[item] == expected(item) for item in ids)


# --------------------------------------------------------------------------- synthetic logs
def test_first_keeps_the_lowest_epoch_and_names_it(tmp_path):
    samples, values = _epochs(20, [2, 3, 4])
    matrix = read_inspect(_pair(tmp_path, samples), epochs="first")
    assert "m/x: 3 epochs per sample (epochs 2-4); kept epoch 2 of each sample" in matrix.notes
    column = matrix.models.index("m/x")
    assert [matrix.scores[row, column] for row in range(20)] == [values[int(item[1:]), 2] for item in matrix.item_ids]
    averaged = read_inspect(_pair(tmp_path, samples), epochs="mean")
    assert "m/x: 3 epochs per sample (epochs 2-4); averaged all 3 of each sample (scores are graded)" in averaged.notes
    expected = [sum(values[int(item[1:]), e] for e in (2, 3, 4)) / 3 for item in averaged.item_ids]
    # The mean of three 0/1 values: math.fsum then one division, so exact to the last bit of k / 3.
    assert [averaged.scores[row, column] for row in range(20)] == expected


def test_a_single_epoch_other_than_one_is_noted(tmp_path):
    samples, _ = _epochs(20, [5])
    assert "m/x: one epoch per sample, epoch 5" in read_inspect(_pair(tmp_path, samples)).notes


@pytest.mark.parametrize("mode", ["first", "mean", "error"])
def test_a_sample_lacking_an_epoch_isrefused(tmp_path, capsys, mode):
    samples, _ = _epochs(20, [1, 2])
    samples = [s for s in samples if not (s["id"] == "q07" and s["epoch"] == 2)]
    paths = _pair(tmp_path, samples)
    with pytest.raises(AlignmentError, match="sample 'q07' has no epoch 2"):
        read_inspect(paths, epochs=mode)
    refused(
        ["audit", *paths, "--epochs", mode, "--n-resamples", "0"], ["x.eval", "sample 'q07' has no epoch 2"], capsys
    )


@pytest.mark.parametrize("mode", ["first", "mean"])
def test_a_repeated_sample_epoch_isrefused(tmp_path, capsys, mode):
    samples, _ = _epochs(20, [1, 2])
    samples.append(dict(samples[5]))
    paths = _pair(tmp_path, samples)
    refused(
        ["audit", *paths, "--epochs", mode, "--n-resamples", "0"],
        ["x.eval, member 'summaries.json'[40]", "sample 'q02' epoch 2 appears twice"],
        capsys,
    )


def test_an_id_repeated_as_number_and_text_isrefused(tmp_path, capsys):
    samples, _ = _epochs(20, [1])
    samples[3]["id"] = 0
    samples[0]["id"] = "0"
    with pytest.raises(AlignmentError, match="epoch 1 appears twice"):
        read_inspect(_pair(tmp_path, samples))


def test_error_mode_names_the_epochs(tmp_path, capsys):
    samples, _ = _epochs(20, [1, 2])
    refused(
        ["audit", *_pair(tmp_path, samples), "--epochs", "error"], ["x.eval: 2 epochs per sample (epochs 1, 2)"], capsys
    )


@pytest.mark.parametrize("sample_id", [[1], {"a": 1}, 1.5, True])
def test_an_id_that_is_not_text_or_a_whole_number_isrefused(tmp_path, capsys, sample_id):
    samples, _ = _epochs(20, [1])
    samples[4]["id"] = sample_id
    refused(["audit", *_pair(tmp_path, samples)], ["x.eval, member 'summaries.json'[4]: sample id is"], capsys)


# --------------------------------------------------------------------------- archive members
def test_a_repeated_member_name_isrefused(tmp_path, capsys):
    samples, _ = _epochs(20, [1])
    header = json.dumps({"eval": {"model": "m/x"}}).encode()
    flipped = [
        dict(s, scores={"match": {"value": "I" if s["scores"]["match"]["value"] == "C" else "C"}}) for s in samples
    ]
    archive = zip_archive(
        [
            zstd_member("header.json", header),
            zstd_member("summaries.json", json.dumps(samples).encode()),
            zstd_member("summaries.json", json.dumps(flipped).encode()),
        ]
    )
    paths = _pair(tmp_path, samples)
    Path(paths[0]).write_bytes(archive)
    with pytest.raises(InputError, match=re.escape("member 'summaries.json' appears 2 times")):
        read_inspect(paths)
    refused(["audit", *paths], ["x.eval: member 'summaries.json' appears 2 times"], capsys)


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_every_zip_method_reads_the_same(tmp_path, method):
    """Members written by zipfile with each method read back to the same matrix as zstd members."""
    samples, _ = _epochs(20, [1])
    paths = _pair(tmp_path, samples)
    expected = read_inspect(paths)
    header = json.dumps({"eval": {"model": "m/x"}}).encode()
    with zipfile.ZipFile(paths[0], "w", compression=method) as archive:
        archive.writestr("header.json", header)
        archive.writestr("summaries.json", json.dumps(samples))
    matrix = read_inspect(paths)
    assert matrix.item_ids == expected.item_ids and np.array_equal(matrix.scores, expected.scores)


# --------------------------------------------------------------------------- the shipped 5-epoch run
EPOCHS5 = sorted((FIXTURES.parent / "inspect_epochs5").glob("*.eval"))
# Inspect's accuracy is the mean over epochs of each epoch's mean (or the mean of the item means): the same sum of
# 500 values in 0.2 steps divided in another order, so it differs from ours by a few ulps of numbers below 1.
HEADER_TOLERANCE = 1e-12


def _header_accuracies() -> dict[str, float]:
    """Model -> the accuracy each log's header.json reports (Inspect's own aggregate), read from the archive."""
    accuracies = {}
    for path in EPOCHS5:
        with zipfile.ZipFile(path) as archive:
            header = json.loads(read_zip_member(archive, path, "header.json"))
        assert header["eval"]["config"]["epochs"] == 5
        (score,) = header["results"]["scores"]
        accuracies[header["eval"]["model"]] = score["metrics"]["accuracy"]["value"]
    return accuracies


def test_the_shipped_5_epoch_logs_without_epochs_are_refused_naming_the_three_choices(capsys):
    assert len(EPOCHS5) == 3
    message = refused(
        ["audit", *map(str, EPOCHS5), "--n-resamples", "0"],
        ["model-a.eval: 5 epochs per sample (epochs 1-5)", CHOOSE],
        capsys,
    )
    for choice in ("--epochs all (", "mean (", "or first ("):
        assert choice in message
    for read in (read_inspect, read_scores):
        with pytest.raises(AlignmentError, match=re.escape(CHOOSE)):
            read(EPOCHS5)


def test_the_shipped_5_epoch_logs_by_their_mean_are_the_headers_accuracies_and_rank_c_first(capsys):
    accuracies = _header_accuracies()
    # What PROVENANCE.md states, here only as a check that the header was read (the header is the reference).
    assert [round(accuracies[f"mockllm/model-{x}"], 3) for x in "abc"] == [0.524, 0.528, 0.590]
    matrix = read_inspect(EPOCHS5, epochs="mean")
    assert matrix.n_items == 100 and not matrix.binary
    means = dict(zip(matrix.models, matrix.scores.mean(axis=0), strict=True))
    assert means.keys() == accuracies.keys()
    for model, accuracy in accuracies.items():
        assert abs(means[model] - accuracy) <= HEADER_TOLERANCE, (model, means[model], accuracy)
    status = main(
        ["audit", *map(str, EPOCHS5), "--epochs", "mean", "--n-resamples", "0", "--quiet", "--format", "json"]
    )
    captured = capsys.readouterr()
    assert status == 0 and captured.err == ""
    ranking = [row["model"] for row in json.loads(captured.out)["ranking"]]
    assert ranking == sorted(accuracies, key=accuracies.get, reverse=True)
    assert ranking[0] == "mockllm/model-c"
