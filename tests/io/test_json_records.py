"""The declared-field reader of JSON and JSON Lines records (issue 28 item 6): real-world shapes and damaged ones.

Three layouts that harnesses really write, each read with the declared fields and compared with another route:

* tau-bench's ``historical_trajectories/<model>-<domain>.json`` (a JSON list of runs with ``task_id``, ``trial``,
  ``reward`` beside ``info`` and ``traj``), rebuilt from ``tests/fixtures/tau_bench/trials.csv.gz`` (that table holds
  the genuine file's (task_id, trial, reward) of every run; the long trajectories are replaced by small stand-ins),
  against :func:`from_long_repeated` on the table itself;
* lm-eval's samples files read as plain records, against :func:`read_lm_eval` on the genuine folders;
* Inspect's JSON log layout (``samples`` with nested ``scores``), assembled from the genuine ``.eval`` logs' members
  with the scorer's "C"/"I" written as 1.0/0.0 (text scores are refused here), against :func:`read_inspect`.

Then every refusal of a damaged variant names the file, the record (line or pointer), the value and the flag.
"""

from __future__ import annotations

import gzip
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.cli import main
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.detect import read_scores
from llm_power_verified.io.errors import InputError
from llm_power_verified.io.inspect_logs import read_inspect
from llm_power_verified.io.json_records import read_records
from llm_power_verified.io.lm_eval import read_lm_eval
from llm_power_verified.io.record_fields import field_path, resolve
from llm_power_verified.io.repeated_tables import from_long_repeated
from llm_power_verified.io.zip_members import read_zip_member

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TAU_TRIALS = FIXTURES / "tau_bench" / "trials.csv.gz"
LM_EVAL = FIXTURES / "lm_eval" / "dummy"
INSPECT = FIXTURES / "inspect" / "eval"


def _write_json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value))
    return path


def _tau_runs(trials: pd.DataFrame) -> list[dict]:
    """tau-bench's run records, in the genuine file's key order (task_id, reward, info, traj, trial)."""
    return [
        {
            "task_id": int(row.item_id.removeprefix("airline-")),
            "reward": float(row.reward),
            "info": {"task": {"user_id": "stand-in"}, "source": "user", "reward_info": {"reward": float(row.reward)}},
            "traj": [{"role": "system", "content": "stand-in"}],
            "trial": int(row.trial),
        }
        for row in trials.itertuples()
    ]


def test_tau_bench_runs_with_trials_as_generations(tmp_path):
    table = pd.read_csv(TAU_TRIALS)
    # One model in the genuine snapshot: its trials 0-1 against its trials 2-3 on the same 50 tasks (an A/A pair).
    halves = {"gpt-4o-early": table[table.trial <= 1], "gpt-4o-late": table[table.trial >= 2]}
    paths = [_write_json(tmp_path / f"{name}.json", _tau_runs(half)) for name, half in halves.items()]
    matrix = read_records(paths, item_field="task_id", score_field="reward", repeat_field="trial")
    long = pd.concat([half.assign(model=name) for name, half in halves.items()])
    expected = from_long_repeated(long, repeat_column="trial", score_column="reward")
    assert matrix.models == ("gpt-4o-early", "gpt-4o-late")
    assert [f"airline-{item}" for item in matrix.item_ids] == list(expected.item_ids)
    # Means of two 0/1 rewards are 0, 0.5 or 1 in both routes: compared exactly.
    np.testing.assert_array_equal(matrix.scores, expected.scores)
    np.testing.assert_array_equal(matrix.generations.counts, expected.generations.counts)
    np.testing.assert_array_equal(matrix.generations.within, expected.generations.within)
    assert matrix.generations.label == "trial"
    assert int(table.reward.sum()) == 84  # PROVENANCE.md: 84 of the 200 runs rewarded
    assert matrix.scores.sum() * 2 == 84


def test_lm_eval_samples_read_as_records_match_the_lm_eval_reader(tmp_path):
    folders = sorted(path for path in LM_EVAL.iterdir() if path.is_dir())
    paths = []
    for folder in folders:
        paths.append(tmp_path / f"{folder.name}.jsonl")
        shutil.copy(next(folder.glob("samples_*.jsonl")), paths[-1])
    matrix = read_records(paths, item_field="doc_id", score_field="acc")
    reference = read_lm_eval(folders, task="arith_mc", metric="acc")
    assert matrix.models == reference.models
    assert tuple(f"arith_mc:{item}" for item in matrix.item_ids) == reference.item_ids
    np.testing.assert_array_equal(matrix.scores, reference.scores)  # the same 0/1 values: exact


def _inspect_document(path: Path) -> dict:
    """An Inspect JSON log assembled from an .eval archive's header and sample members, "C"/"I" written as 1.0/0.0."""
    with zipfile.ZipFile(path) as archive:
        header = json.loads(read_zip_member(archive, path, "header.json"))
        names = sorted(name for name in archive.namelist() if name.startswith("samples/"))
        samples = [json.loads(read_zip_member(archive, path, name)) for name in names]
    for sample in samples:
        value = sample["scores"]["choice"]["value"]
        sample["scores"]["choice"]["value"] = {"C": 1.0, "I": 0.0}[value]
    return {"version": header.get("version"), "eval": header["eval"], "samples": samples}


def test_inspect_like_nested_json_matches_the_inspect_reader(tmp_path):
    logs = sorted(INSPECT.glob("*.eval"))
    paths = [_write_json(tmp_path / f"model-{'abc'[n]}.json", _inspect_document(log)) for n, log in enumerate(logs)]
    matrix = read_records(
        paths,
        records="/samples",
        item_field="id",
        score_field="/scores/choice/value",
        cluster_field="/metadata/subject",
    )
    reference = read_inspect(logs)
    assert matrix.item_ids == reference.item_ids
    np.testing.assert_array_equal(matrix.scores, reference.scores)  # 0/1 both: exact
    subjects = {sample["id"]: sample["metadata"]["subject"] for sample in _inspect_document(logs[0])["samples"]}
    assert matrix.clusters == tuple(subjects[item] for item in matrix.item_ids)


def test_object_keyed_by_item_id(tmp_path):
    """SWE-bench's per-instance report layout: {instance_id: {"resolved": bool, ...}}, one file per model."""
    ids = [f"django__django-{11000 + n}" for n in range(6)]
    paths = [
        _write_json(
            tmp_path / f"{name}.json", {"report": {i: {"resolved": (n + k) % 3 == 0} for n, i in enumerate(ids)}}
        )
        for k, name in enumerate(("agent-a", "agent-b"))
    ]
    matrix = read_records(paths, records="report", item_field="@key", score_field="resolved")
    assert matrix.item_ids == tuple(ids)
    assert matrix.scores[:, 0].tolist() == [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    assert matrix.scores[:, 1].tolist() == [0.0, 0.0, 1.0, 0.0, 0.0, 1.0]


def test_model_field_in_one_gzipped_json_lines_file(tmp_path):
    rows = [
        {"q": f"q{i}", "run": {"model": m}, "ok": (i * (k + 2)) % 3 == 0} for i in range(9) for k, m in enumerate("xy")
    ]
    path = tmp_path / "all.jsonl.gz"
    path.write_bytes(gzip.compress("".join(json.dumps(row) + "\n" for row in rows).encode()))
    matrix = read_records([path], item_field="q", score_field="ok", model_field="/run/model")
    assert matrix.models == ("x", "y")
    assert matrix.scores[:, 0].tolist() == [float(i % 3 == 0) for i in range(9)]


def test_null_score_left_out_under_intersect(tmp_path):
    runs = [{"id": i, "m": m, "s": None if (i, m) == (2, "b") else 1 - (i % 2)} for i in range(5) for m in "ab"]
    path = _write_json(tmp_path / "r.json", runs)
    matrix = read_records([path], item_field="id", score_field="s", model_field="m", on_missing="intersect")
    assert matrix.item_ids == ("0", "1", "3", "4")
    assert any("score is null" in note and "r.json, record /5" in note for note in matrix.notes)


@pytest.mark.parametrize("layout", ["list", "nested", "keyed", "lines"])
def test_round_trip_of_a_seeded_matrix(tmp_path, layout):
    """A seeded matrix written as records in four layouts reads back exactly (scores are k/4, exact in binary)."""
    rng = np.random.default_rng(28)
    scores = rng.integers(0, 5, size=(25, 3)) / 4
    ids = [f"item/{i}.{rng.integers(1000)}~" for i in range(25)]  # '/', '.' and '~' inside ids are kept
    paths = []
    for model in range(3):
        path = tmp_path / f"m{model}.{'jsonl' if layout == 'lines' else 'json'}"
        records = [{"id": ids[i], "out": {"score": float(scores[i, model])}} for i in rng.permutation(25)]
        if layout == "nested":
            document: object = {"data": {"items": records}}
        elif layout == "keyed":
            document = {"data": {record["id"]: record["out"] for record in records}}
        else:
            document = records
        if layout == "lines":
            path.write_text("".join(json.dumps(record) + "\n" for record in records))
        else:
            _write_json(path, document)
        paths.append(path)
    keyed = layout == "keyed"
    matrix = read_records(
        paths,
        records={"nested": "/data/items", "keyed": "data"}.get(layout),
        item_field="@key" if keyed else "id",
        score_field="score" if keyed else "/out/score",
        score_kind="graded",
    )
    order = [ids.index(item) for item in matrix.item_ids]
    assert sorted(order) == list(range(25))
    np.testing.assert_array_equal(matrix.scores, scores[order])


def test_field_paths():
    assert field_path("metrics.acc", "--score-field").steps == ("metrics.acc",)  # a dot is part of the key
    assert field_path("/a~1b/~0c", "--score-field").steps == ("a/b", "~c")
    assert resolve({"a/b": {"~c": 0.5}}, field_path("/a~1b/~0c", "--score-field")) == (0.5, "")
    assert resolve({"l": [0, 1]}, field_path("/l/1", "--x"))[0] == 1
    assert "no key '01'" in resolve({"l": [0, 1]}, field_path("/l/01", "--x"))[1]  # RFC 6901: no leading zero
    with pytest.raises(ArgumentError, match="~0"):
        field_path("/a~2b", "--score-field")
    with pytest.raises(ArgumentError, match="--item-field"):
        field_path("", "--item-field")


def _runs(items: int = 10, models: str = "ab") -> list[dict]:
    return [
        {"task_id": f"t{i}", "agent": m, "reward": float((i + k) % 2), "meta": {"topic": f"c{i % 3}"}}
        for i in range(items)
        for k, m in enumerate(models)
    ]


def _document(**changes) -> dict:
    runs = _runs()
    for position, change in changes.get("records", {}).items():
        runs[position] = change(runs[position])
    return {"results": runs}


def _replace(key, value):
    return lambda record: {**record, key: value}


def _without(key):
    return lambda record: {name: value for name, value in record.items() if name != key}


FLAGS = {"records": "results", "item_field": "task_id", "score_field": "reward", "model_field": "agent"}

# name -> (files, keyword changes, fragments every one of which the message holds)
DAMAGED = {
    "records path missing": ({"r.json": {"runs": _runs()}}, {}, ["r.json", "'results'", "--records"]),
    "records path to a number": ({"r.json": {"results": 3}}, {}, ["r.json", "--records 'results'", "number (3)"]),
    "records path to an object": (
        {"r.json": {"results": {"a": 1}}},
        {},
        ["r.json", "--records 'results'", "object", "--item-field @key"],
    ),
    "top level an object without --records": (
        {"r.json": _document()},
        {"records": None},
        ["r.json", "top level", "--records"],
    ),
    "a record not an object": (
        {"r.json": _document(records={4: lambda record: [1, 2]})},
        {},
        ["r.json, record /results/4", "list", "object"],
    ),
    "missing item field in record 7": (
        {"r.json": _document(records={7: _without("task_id")})},
        {},
        ["r.json, record /results/7", "--item-field 'task_id'", "'agent'"],
    ),
    "score as text": (
        {"r.json": _document(records={3: _replace("reward", "1")})},
        {},
        ["r.json, record /results/3", "--score-field 'reward'", "'1'", "text"],
    ),
    "score 1.5": (
        {"r.json": _document(records={5: _replace("reward", 1.5)})},
        {},
        ["r.json, record /results/5", "--score-field 'reward'", "1.5", "[0, 1]"],
    ),
    "score an object": (
        {"r.json": _document(records={2: _replace("reward", {"v": 1})})},
        {},
        ["record /results/2", "--score-field 'reward'", "{'v': 1}"],
    ),
    "null score": (
        {"r.json": _document(records={6: _replace("reward", None)})},
        {},
        ["r.json, record /results/6", "--score-field 'reward'", "null", "--on-missing intersect"],
    ),
    "duplicate (item, model)": (
        {"r.json": _document(records={2: _replace("task_id", "t0")})},
        {},
        ["r.json, record /results/2", "'t0'", "'a'", "record /results/0", "--repeat-field"],
    ),
    "id 1 and '1'": (
        {
            "r.json": {
                "results": [{"task_id": 1, "agent": "a", "reward": 1}, {"task_id": "1", "agent": "b", "reward": 0}]
            }
        },
        {},
        ["r.json, record /results/1", "'1'", "record /results/0", "--item-field 'task_id'", "one way"],
    ),
    "cluster 1 and '1' (A6)": (
        {"r.json": _document(records={0: _replace("c", 1), 1: _replace("c", 1), 2: _replace("c", "1")})},
        {"cluster_field": "c", "missing_cluster": "own"},
        ["r.json, record /results/2", "--cluster-field 'c' is '1'", "record /results/0 has 1", "cluster label"],
    ),
    "two scorings of one item (N2)": (
        {
            "r.jsonl": "".join(
                json.dumps({"doc_id": i, "filter": f, "exact_match": (i + k) % 2}) + "\n"
                for i in range(3)
                for k, f in enumerate(["strict-match", "flexible-extract"])
            )
        },
        {"records": None, "model_field": None, "item_field": "doc_id", "score_field": "exact_match"},
        [
            "r.jsonl, line 2",
            "second record for item '0'",
            "r.jsonl, line 1",
            "--repeat-field",
            "two filters",
            "--filter",
        ],
    ),
    "item id a float": (
        {"r.json": _document(records={1: _replace("task_id", 2.0)})},
        {},
        ["r.json, record /results/1", "--item-field 'task_id'", "2.0", "whole number"],
    ),
    "model field null": (
        {"r.json": _document(records={8: _replace("agent", None)})},
        {},
        ["r.json, record /results/8", "--model-field 'agent'", "null"],
    ),
    "empty list": ({"r.json": {"results": []}}, {}, ["r.json", "--records 'results'", "empty"]),
    "two files with one stem": (
        {"a/run.json": _runs(models="a"), "b/run.jsonl": _runs(models="b")},
        {"records": None, "model_field": None},
        ["run.json", "run.jsonl", "'run'", "--model-field"],
    ),
    "nested field written with a dot": (
        {"r.json": _document()},
        {"cluster_field": "meta.topic"},
        ["r.json, record /results/0", "--cluster-field 'meta.topic'", "/meta/topic"],
    ),
    "NaN in a JSON Lines file": (
        {"r.jsonl": "".join(json.dumps(run) + "\n" for run in _runs()).replace('"reward": 1.0', '"reward": NaN', 1)},
        {"records": None},
        ["r.jsonl, line 2", "NaN"],
    ),
    "a cut last line": (
        {"r.jsonl": "".join(json.dumps(run) + "\n" for run in _runs())[:-9]},
        {"records": None},
        ["r.jsonl, line 20", "cut short"],
    ),
    "a .json file of JSON Lines": (
        {"r.json": "".join(json.dumps(run) + "\n" for run in _runs())},
        {"records": None},
        ["r.json", "line 2", ".jsonl"],
    ),
    "--records with JSON Lines": (
        {"r.jsonl": "".join(json.dumps(run) + "\n" for run in _runs())},
        {},
        ["r.jsonl", "--records 'results'", "JSON Lines"],
    ),
    "a file named .json": ({".json": _runs()}, {"records": None, "model_field": None}, [".json", "no name before"]),
    "a text file": ({"r.txt": _runs()}, {"records": None}, ["r.txt", ".json", ".jsonl"]),
    "one generation with --repeat-field": (
        {name: [{**run, "trial": 0} for run in _runs(models=name[0])] for name in ("a.json", "b.json")},
        {"records": None, "model_field": None, "repeat_field": "trial"},
        ["a.json, record /0", "the only trial", ">= 2 generations", "--repeat-field"],
    ),
    "two flags name one field": ({"r.json": _document()}, {"cluster_field": "/agent"}, ["--cluster-field", "'agent'"]),
}


@pytest.mark.parametrize("name", list(DAMAGED))
def test_damaged_records_are_refused_naming_the_place(tmp_path, name):
    files, changes, fragments = DAMAGED[name]
    paths = []
    for relative, content in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        paths.append(path)
    with pytest.raises((InputError, ArgumentError)) as caught:
        read_records(paths, **{**FLAGS, **changes})
    message = str(caught.value)
    assert "\n" not in message
    missing = [fragment for fragment in fragments if fragment not in message]
    assert not missing, f"{message!r} lacks {missing}"


def test_ids_differing_by_blanks_are_two_items(tmp_path):
    """JSON strings are exact: "a " and "a" are two ids, each one model's only (A5), never merged into one item."""
    path = tmp_path / "r.jsonl"
    records = [{"id": "a", "m": "alpha", "s": 1}, {"id": "a ", "m": "beta", "s": 0}, {"id": "b", "m": "alpha", "s": 0}]
    records.append({"id": "b", "m": "beta", "s": 1})
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    fields = dict(item_field="id", score_field="s", model_field="m")
    with pytest.raises(InputError, match="'alpha' lacks 1, 'beta' lacks 1 of 3"):
        read_records([path], **fields)
    matrix = read_records([path], **fields, on_missing="intersect")
    assert matrix.item_ids == ("b",)


def test_places_of_many_records_are_made_when_named(tmp_path):
    """The places of kept records are made only for a message: a builder's refusal still names the file and line."""
    paths = []
    for name in ("first", "second"):
        lines = [
            json.dumps({"id": f"q{i}", "m": name, "s": i % 2, "c": None if (name, i) == ("second", 2) else "x"})
            for i in range(5)
        ]
        paths.append(tmp_path / f"{name}.jsonl")
        paths[-1].write_text("\n".join(lines))
    with pytest.raises(InputError) as caught:
        read_records(paths, item_field="id", score_field="s", model_field="m", cluster_field="c")
    assert "second.jsonl, line 3" in str(caught.value) and "'q2'" in str(caught.value), str(caught.value)


FAST = ("--n-resamples", "0", "--n-cluster-resamples", "0", "--quiet")


def _tau_pair(tmp_path: Path) -> list[Path]:
    table = pd.read_csv(TAU_TRIALS)
    halves = {"early": table[table.trial <= 1], "late": table[table.trial >= 2]}
    return [_write_json(tmp_path / f"{name}.json", _tau_runs(half)) for name, half in halves.items()]


def test_command_line_reads_declared_fields(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _tau_pair(tmp_path)
    arguments = ["audit", "early.json", "late.json", "--item-field", "task_id", "--score-field", "reward"]
    assert main([*arguments, "--repeat-field", "trial", *FAST, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    table = pd.read_csv(TAU_TRIALS)
    expected = {"early": table[table.trial <= 1].reward.mean(), "late": table[table.trial >= 2].reward.mean()}
    # Means of 100 rewards of 0 or 1: exact in double, and printed by the report to full precision.
    assert {row["model"]: row["mean_score"] for row in report["ranking"]} == expected
    assert report["data"]["n_items"] == 50


def test_command_line_refusal_is_one_line_naming_the_record(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    early, _ = _tau_pair(tmp_path)
    runs = json.loads(early.read_text())
    runs[4]["reward"] = "1"
    early.write_text(json.dumps(runs))
    arguments = ["audit", "early.json", "late.json", "--item-field", "task_id", "--score-field", "reward"]
    assert main([*arguments, "--repeat-field", "trial", *FAST]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    assert "early.json, record /4: --score-field 'reward' is '1' (text)" in lines[0]


def test_read_scores_passes_the_fields(tmp_path):
    paths = _tau_pair(tmp_path)
    fields = dict(item_field="task_id", score_field="reward", repeat_field="trial")
    matrix = read_scores(paths, **fields)
    direct = read_records(paths, **fields)
    assert matrix.models == direct.models and matrix.item_ids == direct.item_ids
    np.testing.assert_array_equal(matrix.scores, direct.scores)
