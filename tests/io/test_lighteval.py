"""lighteval details: the genuine details files of three local models (lighteval 0.13 and 0.10), and damaged copies.

The fixtures (``tests/fixtures/lighteval/``, provenance in ``tests/fixtures/PROVENANCE.md`` and
``tests/fixtures/lighteval/v0_10/README.md``) are lighteval's own output for three models on the same 60 questions.
The expectations are recomputed here from the raw files with pyarrow (each row's ``doc.id`` and ``metric.acc``; the
results JSON's ``acc``), not taken from the reader; PROVENANCE's figures (53, 45, 36 correct; b, c of 13/5, 24/7,
19/10) are checked as a second source.  No genuine Open LLM Leaderboard v1 file (with the per-row ``hashes``
column) was available: those tests build the files with pyarrow from the columns the leaderboard's files hold.
Each damaged case (:mod:`tests.support.hostile_lighteval`) changes one thing in a copy of the genuine output and
asserts the one-line refusal names the file, the row, the value and the flag where one exists.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from llm_power_verified.cli import main
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io import lighteval_rows
from llm_power_verified.io.errors import InputError
from llm_power_verified.io.lighteval import is_lighteval_details, read_lighteval
from tests.support.hostile_lighteval import DAMAGED, MODELS, genuine, parquet_bytes

FIXTURES = Path(__file__).parents[1] / "fixtures" / "lighteval"
FOLDERS = tuple(FIXTURES / "details" / model for model in MODELS)
OLD = FIXTURES / "v0_10"
OLD_FOLDERS = tuple(OLD / "details" / model for model in MODELS)
EXACT = 1e-15  # a mean of 60 scores of 0 or 1: the sum is exact and the division correctly rounded, as lighteval's
PAIRS = {(0, 1): (13, 5), (0, 2): (24, 7), (1, 2): (19, 10)}  # PROVENANCE.md


def _details(folder: Path) -> Path:
    (path,) = folder.glob("*/details_*.parquet")
    return path


def _raw(folder: Path) -> dict[str, int]:
    """Independently of the reader: {doc.id: acc} of the model's details file."""
    table = pq.read_table(_details(folder)).to_pylist()
    return {row["doc"]["id"]: row["metric"]["acc"] for row in table}


def _results_acc(root: Path, model: str, task: str) -> float:
    (path,) = (root / "results" / model).glob("results_*.json")
    return json.loads(path.read_text(encoding="utf-8"))["results"][task]["acc"]


def _counts(x: np.ndarray, y: np.ndarray) -> tuple[int, int]:
    return int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())


def test_means_equal_the_results_files_acc():
    matrix = read_lighteval(FOLDERS)
    assert matrix.models == MODELS
    assert matrix.scores.shape == (60, 3)
    for column, (folder, model) in enumerate(zip(FOLDERS, MODELS, strict=True)):
        raw = _raw(folder)
        assert set(matrix.item_ids) == {f"arith_mc|0:{doc_id}" for doc_id in raw}
        assert abs(matrix.scores[:, column].mean() - _results_acc(FIXTURES, model, "arith_mc|0")) <= EXACT
    assert matrix.scores.sum(axis=0).tolist() == [53, 45, 36]  # PROVENANCE.md, a second source
    assert matrix.notes[:2] == ("lighteval task 'arith_mc|0'", "metric 'acc' (the only one in the details)")


def test_discordant_counts_of_every_pair_are_exact():
    matrix = read_lighteval(FOLDERS)
    raw = [_raw(folder) for folder in FOLDERS]
    for (first, second), expected in PAIRS.items():
        b = sum(raw[first][doc] == 1 and raw[second][doc] == 0 for doc in raw[first])
        c = sum(raw[first][doc] == 0 and raw[second][doc] == 1 for doc in raw[first])
        assert (b, c) == expected
        assert _counts(matrix.scores[:, first], matrix.scores[:, second]) == (b, c)


def test_files_and_folders_read_alike_and_the_model_comes_from_the_results_file(tmp_path):
    by_file = read_lighteval([_details(folder) for folder in FOLDERS])
    by_folder = read_lighteval(FOLDERS)
    assert by_file.models == by_folder.models and by_file.item_ids == by_folder.item_ids
    assert np.array_equal(by_file.scores, by_folder.scores)
    # Without the results files the model is the path below details/ (here ORG/MODEL), and the notes say so.
    for model in MODELS[:2]:
        shutil.copytree(FOLDERS[MODELS.index(model)], tmp_path / "details" / "org" / model)
    matrix = read_lighteval([tmp_path / "details" / "org" / model for model in MODELS[:2]])
    assert matrix.models == ("org/arith-model-e15", "org/arith-model-e30")
    assert any("no lighteval results file" in note for note in matrix.notes)


def test_alignment_by_hash_gives_the_same_matrix():
    by_id, by_hash = read_lighteval(FOLDERS), read_lighteval(FOLDERS, align_on="hash")
    assert any(note.startswith("docs keyed by a SHA-256 of the JSON text [query, choices") for note in by_hash.notes)
    order = [by_hash.item_ids.index(item) for item in sorted(by_hash.item_ids)]
    assert sorted(map(tuple, by_id.scores.tolist())) == sorted(map(tuple, by_hash.scores[order].tolist()))
    for (first, second), expected in PAIRS.items():
        assert _counts(by_hash.scores[:, first], by_hash.scores[:, second]) == expected


def _shuffled(tmp_path: Path, renumber: bool) -> list[Path]:
    """The output copied, the first model's rows in another (seeded) order; ``renumber``: ids the new row index."""
    for relative, data in genuine().items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_bytes(data)
    target = _details(tmp_path / "out" / "details" / MODELS[0])
    rows = pq.read_table(target).to_pylist()
    order = np.random.default_rng(28).permutation(len(rows))
    rows = [rows[index] for index in order]
    if renumber:  # what lighteval writes for another order of the same data: the row index as the id
        for index, row in enumerate(rows):
            row["doc"]["id"] = str(index)
    target.write_bytes(parquet_bytes(rows, pq.read_schema(target)))
    return [tmp_path / "out" / "details" / model for model in MODELS]


def test_a_shuffled_file_aligns_by_id_and_by_hash(tmp_path):
    folders = _shuffled(tmp_path, renumber=False)
    for align_on in ("id", "hash"):
        expected, shuffled = read_lighteval(FOLDERS, align_on=align_on), read_lighteval(folders, align_on=align_on)
        order = [shuffled.item_ids.index(item) for item in expected.item_ids]
        assert set(shuffled.item_ids) == set(expected.item_ids)
        assert np.array_equal(shuffled.scores[order], expected.scores)


def test_a_renumbered_file_is_refused_by_id_and_aligned_by_hash(tmp_path):
    folders = _shuffled(tmp_path, renumber=True)
    with pytest.raises(InputError, match=r"is another doc than in .*--align-on hash$") as raised:
        read_lighteval(folders)
    assert "\n" not in str(raised.value)
    expected, shuffled = read_lighteval(FOLDERS, align_on="hash"), read_lighteval(folders, align_on="hash")
    order = [shuffled.item_ids.index(item) for item in expected.item_ids]
    assert np.array_equal(shuffled.scores[order], expected.scores)


def test_the_older_flat_schema_of_lighteval_0_10():
    with pytest.raises(InputError, match="has no doc id; align its docs on their content with --align-on hash"):
        read_lighteval(OLD_FOLDERS)
    matrix = read_lighteval(OLD_FOLDERS, align_on="hash")
    assert matrix.models == MODELS
    # The file names write the task community_arith_mc_0; the results files name it.
    assert matrix.notes[0] == "lighteval task 'community|arith_mc|0'"
    for column, model in enumerate(MODELS):
        acc = _results_acc(OLD, model, "community|arith_mc|0")
        assert abs(matrix.scores[:, column].mean() - acc) <= EXACT
    # The same docs and scores as the 0.13 output: the content hash does not depend on the schema.
    new = read_lighteval(FOLDERS, align_on="hash")
    keys = {item.split(":", 1)[1]: row for row, item in enumerate(matrix.item_ids)}
    assert {item.split(":", 1)[1] for item in new.item_ids} == set(keys)
    order = [keys[item.split(":", 1)[1]] for item in new.item_ids]
    assert np.array_equal(matrix.scores[order], new.scores)
    # b and c from the raw flat files: rows keyed by (example, choices), acc from the metrics struct.
    raw = []
    for folder in OLD_FOLDERS:
        rows = pq.read_table(_details(folder)).to_pylist()
        raw.append({(row["example"], tuple(row["choices"])): row["metrics"]["acc"] for row in rows})
    for (first, second), expected in PAIRS.items():
        b = sum(raw[first][doc] == 1 and raw[second][doc] == 0 for doc in raw[first])
        c = sum(raw[first][doc] == 0 and raw[second][doc] == 1 for doc in raw[first])
        assert (b, c) == expected == _counts(matrix.scores[:, first], matrix.scores[:, second])


def _hex16(text: str) -> str:
    """16 hex digits from ``text`` (the length of lighteval's xxh64 digests; xxhash is not a test dependency)."""
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _leaderboard_v1(tmp_path: Path, stringify: bool = False, metric_columns: bool = False) -> list[Path]:
    """Open LLM Leaderboard v1 style files built from the 0.13 fixture's docs (no genuine one was available).

    Columns as the leaderboard's details hold them: ``example``, ``full_prompt``, ``choices``, ``gold_index``,
    ``predictions``, ``metrics`` and the per-row ``hashes`` struct (xxh64 hex digests; here 16 hex digits made from
    the query, as lighteval's ``hashes.example`` is made from it).  ``stringify``: every column as its Python
    ``str()``, as lighteval 0.4 to 0.7 wrote them (and without ``hashes``, which no release wrote).
    ``metric_columns``: each metric a column of its own (``acc``, ``acc_norm``) instead of the ``metrics`` struct,
    as some readers of the leaderboard's files describe them.
    """
    paths = []
    for model, folder in zip(MODELS, FOLDERS, strict=True):
        rows = []
        for row in pq.read_table(_details(folder)).to_pylist():
            doc = row["doc"]
            flat = {
                "example": doc["query"],
                "full_prompt": doc["query"],
                "choices": doc["choices"],
                "gold_index": [doc["gold_index"]],
                "predictions": row["model_response"]["logprobs"],
                "metrics": {"acc": row["metric"]["acc"]},
            }
            if metric_columns:
                del flat["metrics"]
                flat.update(acc=row["metric"]["acc"], acc_norm=float(row["metric"]["acc"]), truncated=[0], padded=[0])
            if stringify:
                flat = {key: value if key == "example" else str(value) for key, value in flat.items()}
            else:
                flat["hashes"] = {"example": _hex16(doc["query"]), "full_prompt": _hex16(doc["query"])}
            rows.append(flat)
        path = tmp_path / "details" / model / "2023-09-03T10-57-04.203304"
        path.mkdir(parents=True)
        (path / "details_harness_arith_0_2023-09-03T10-57-04.203304.parquet").write_bytes(parquet_bytes(rows))
        paths.append(path.parent)
    return paths


def test_leaderboard_v1_files_align_on_their_carried_hashes(tmp_path):
    folders = _leaderboard_v1(tmp_path)
    assert all(is_lighteval_details(folder) for folder in folders)
    matrix = read_lighteval(folders, align_on="hash")
    assert "docs keyed by the hashes.example column the files carry (lighteval's xxh64 of the doc's query)" in (
        matrix.notes
    )
    assert matrix.scores.sum(axis=0).tolist() == [53, 45, 36]
    for (first, second), expected in PAIRS.items():
        assert _counts(matrix.scores[:, first], matrix.scores[:, second]) == expected


def test_leaderboard_v1_files_with_a_column_per_metric(tmp_path):
    folders = _leaderboard_v1(tmp_path, metric_columns=True)
    with pytest.raises(
        InputError, match=r"details_harness_arith_0_.*\.parquet: metrics acc, acc_norm; choose one with"
    ):
        read_lighteval(folders, align_on="hash")
    for metric in ("acc", "acc_norm"):
        matrix = read_lighteval(folders, align_on="hash", metric=metric)
        assert matrix.scores.sum(axis=0).tolist() == [53, 45, 36]


def test_a_carried_hash_twice_in_one_file_is_refused(tmp_path):
    folders = _leaderboard_v1(tmp_path)
    target = next(folders[0].glob("*/*.parquet"))
    rows = pq.read_table(target).to_pylist()
    rows[4]["hashes"]["example"] = rows[0]["hashes"]["example"]
    target.write_bytes(parquet_bytes(rows))
    with pytest.raises(InputError, match=r"rows 1 and 5 hold the same hash [0-9a-f]{16} \(query 'Question: What is"):
        read_lighteval(folders, align_on="hash")


def test_lighteval_0_4_to_0_7_text_columns_are_read_back(tmp_path):
    folders = _leaderboard_v1(tmp_path, stringify=True)
    matrix = read_lighteval(folders, align_on="hash")
    assert matrix.scores.sum(axis=0).tolist() == [53, 45, 36]
    target = next(folders[0].glob("*/*.parquet"))
    rows = pq.read_table(target).to_pylist()
    rows[2]["metrics"] = "{'acc': nan}"
    target.write_bytes(parquet_bytes(rows))
    with pytest.raises(InputError, match=r"row 3: column 'metrics' holds \"\{'acc': nan\}\", not a value lighteval"):
        read_lighteval(folders, align_on="hash")


def test_run_latest_reads_the_newest_and_says_so(tmp_path):
    source = FOLDERS[0]
    copy = tmp_path / "details" / MODELS[0]
    shutil.copytree(source, copy)
    stamp = "2026-11-25T09-00-00"
    (copy / stamp).mkdir()
    rows = pq.read_table(_details(source)).to_pylist()
    for row in rows:
        row["metric"]["acc"] = 1
    (copy / stamp / f"details_arith_mc_0_{stamp}.parquet").write_bytes(parquet_bytes(rows))
    matrix = read_lighteval([copy, FOLDERS[1]], run="latest")
    assert matrix.scores[:, 0].sum() == 60
    assert any(note.startswith(f"--run latest: {MODELS[0]} read run {stamp}, the newest of") for note in matrix.notes)
    assert read_lighteval([copy, FOLDERS[1]], run=_details(source).parent.name).scores[:, 0].sum() == 53


def test_detection_claims_details_and_nothing_else(tmp_path):
    assert all(is_lighteval_details(folder) for folder in (*FOLDERS, *OLD_FOLDERS))
    assert all(is_lighteval_details(_details(folder)) for folder in FOLDERS)
    assert is_lighteval_details(next(FOLDERS[0].iterdir()))  # the run folder itself
    table = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"item_id": ["a", "b"], "model": ["m", "m"], "score": [1, 0]}), table)
    (tmp_path / "empty").mkdir()
    for other in (table, tmp_path / "empty", FIXTURES / "results" / MODELS[0], tmp_path / "missing.parquet"):
        assert not is_lighteval_details(other)
    # A file named like lighteval's but not Parquet is claimed, so that the reader names the damage.
    damaged = tmp_path / "details_x_2026-11-24T14-03-30.parquet"
    damaged.write_bytes(b"not parquet")
    assert is_lighteval_details(damaged)


def test_num_samples_above_one_is_noted(tmp_path):
    copies = []
    for folder in FOLDERS[:2]:
        rows = pq.read_table(_details(folder)).to_pylist()
        for row in rows:
            row["doc"]["num_samples"] = 4
        target = tmp_path / folder.name / _details(folder).parent.name / _details(folder).name
        target.parent.mkdir(parents=True)
        target.write_bytes(parquet_bytes(rows))
        copies.append(tmp_path / folder.name)
    matrix = read_lighteval(copies)
    assert any("doc.num_samples up to 4" in note and "per-sample scores are not" in note for note in matrix.notes)


@pytest.mark.parametrize(("name", "edit", "options", "error", "fragments"), DAMAGED, ids=[case[0] for case in DAMAGED])
def test_damaged_copy_is_refused_naming_the_place(tmp_path, name, edit, options, error, fragments):
    for relative, data in edit(genuine()).items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_bytes(data)
    with pytest.raises(error) as raised:
        read_lighteval([tmp_path / "out" / "details" / model for model in MODELS], **options)
    message = str(raised.value)
    assert "\n" not in message
    missing = [fragment for fragment in fragments if fragment not in message]
    assert not missing, f"{missing} not in {message!r}"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_named_like_a_details_file_is_refused_without_waiting(tmp_path):
    pipe = tmp_path / "details_arith_mc_0_2026-11-24T14-03-30.216191.parquet"
    os.mkfifo(pipe)
    with pytest.raises(InputError, match=r"details_arith_mc_0_.*\.parquet: a pipe or device, not a file"):
        read_lighteval([pipe, _details(FOLDERS[1])])


# --------------------------------------------------------------------------- the command line
QUIET = ("--n-resamples", "0", "--n-cluster-resamples", "0", "--quiet")


def _report(capsys, *arguments: str) -> dict:
    assert main(["audit", *arguments, *QUIET, "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return json.loads(captured.out)


def test_the_command_line_reads_the_folders_with_its_flags(capsys):
    folders = [str(folder) for folder in FOLDERS]
    for extra in ((), ("--align-on", "hash"), ("--task", "arith_mc|0", "--metric", "acc", "--run", "latest")):
        report = _report(capsys, *folders, *extra)
        assert report["data"]["n_items"] == 60
        means = {row["model"]: row["mean_score"] for row in report["ranking"]}
        for model in MODELS:  # the results files' acc, read independently
            assert abs(means[model] - _results_acc(FIXTURES, model, "arith_mc|0")) <= EXACT
    report = _report(capsys, *(str(folder) for folder in OLD_FOLDERS), "--align-on", "hash")
    for row in report["ranking"]:
        assert abs(row["mean_score"] - _results_acc(OLD, row["model"], "community|arith_mc|0")) <= EXACT


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (("--metric", "f1"), "no metric 'f1' (metrics: acc); check --metric"),
        (("--task", "gsm8k"), "no details file for task 'gsm8k' (tasks: arith_mc_0); check --task"),
        (("--align-on", "position"), "position"),
    ],
)
def test_the_command_line_refuses_in_one_line(capsys, extra, fragment):
    assert main(["audit", *(str(folder) for folder in FOLDERS), *extra, *QUIET]) == 2
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1 and fragment in message, message


def test_one_run_under_two_names_is_refused(tmp_path):
    # Copied byte for byte (the newcomer's cp -r), and rewritten by pyarrow with its stamp, docs and scores kept.
    copied = tmp_path / "copied"
    shutil.copytree(FOLDERS[0], copied)
    with pytest.raises(InputError, match="byte-identical details files: both are one run") as raised:
        read_lighteval([FOLDERS[0], copied])
    assert str(FOLDERS[0]) in str(raised.value) and str(copied) in str(raised.value)
    source = _details(FOLDERS[0])
    rewritten = tmp_path / "rewritten" / source.parent.name / source.name
    rewritten.parent.mkdir(parents=True)
    pq.write_table(pq.read_table(source), rewritten, compression="zstd")
    assert rewritten.read_bytes() != source.read_bytes()
    with pytest.raises(InputError, match=f"hold run {source.parent.name} with the same docs and scores"):
        read_lighteval([FOLDERS[0], FOLDERS[1], tmp_path / "rewritten"])


def test_two_runs_of_one_moment_are_refused_whichever_is_asked_for(tmp_path):
    model = tmp_path / MODELS[0]
    for stamp in ("2026-11-24T14-03-30.500000", "2026-11-24T14:03:30.500000"):
        (model / stamp).mkdir(parents=True)
        shutil.copy(_details(FOLDERS[0]), model / stamp / f"details_arith_mc_0_{stamp}.parquet")
    for run in ("latest", "2026-11-24T14-03-30.5"):
        with pytest.raises(
            InputError, match=re.escape("2026-11-24T14-03-30.500000 and 2026-11-24T14:03:30.500000 are the same")
        ):
            read_lighteval([model, FOLDERS[1]], run=run)


def test_a_stamp_that_is_no_time_is_refused_naming_it(tmp_path):
    stamp = "2026-13-45T99-99-99"
    target = tmp_path / stamp / f"details_arith_mc_0_{stamp}.parquet"
    target.parent.mkdir()
    shutil.copy(_details(FOLDERS[0]), target)
    for given in (tmp_path, target.parent, target):
        with pytest.raises(InputError, match=f"run stamp '{stamp}' is not a lighteval time stamp \\(month must be"):
            read_lighteval([given, FOLDERS[1]])


@pytest.mark.parametrize("name", ["task", "metric", "run"])
def test_options_of_the_wrong_type_are_refused_naming_them(name):
    with pytest.raises(ArgumentError, match=f"^{name} must be text or None \\(--{name}\\); got 5$"):
        read_lighteval(FOLDERS, **{name: 5})


def test_a_file_of_more_rows_than_read_is_refused_from_its_footer(tmp_path, monkeypatch):
    # The cap is checked on the footer's row count before any row is read (the 60-row fixture against a cap of 59).
    monkeypatch.setattr(lighteval_rows, "MAX_DETAILS_ROWS", 59)
    with pytest.raises(InputError, match="60 rows, more than the 59 docs of a details file read"):
        read_lighteval(FOLDERS)
