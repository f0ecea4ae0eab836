"""Readers against the genuine harness fixtures in tests/fixtures (see PROVENANCE.md there), and alignment errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.io import (
    AlignmentError,
    InputError,
    from_long,
    from_wide,
    read_inspect,
    read_lm_eval,
    read_table,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def needs_fixtures(test):
    """Kept as a marker of the tests that read the harness fixtures; they ship with the repository."""
    return test


def _expected(set_name: str) -> dict:
    data = json.loads((FIXTURES / "expected_counts.json").read_text())
    return next(entry for entry in data["sets"] if entry["set"] == set_name)


def _table(matrix, first: str, second: str) -> dict:
    x, y = matrix.scores[:, matrix.models.index(first)], matrix.scores[:, matrix.models.index(second)]
    return {
        "both": int(np.sum(x * y)),
        "b": int(np.sum(x * (1 - y))),
        "c": int(np.sum((1 - x) * y)),
        "neither": int(np.sum((1 - x) * (1 - y))),
    }


def _check_against(matrix, set_name: str, rename=lambda name: name):
    expected = _expected(set_name)
    for run, info in expected["runs"].items():
        column = matrix.models.index(rename(run))
        assert matrix.scores[:, column].sum() == info["n_correct"]
        assert matrix.n_items == info["n"]
    for pair in expected["pairs"]:
        table = _table(matrix, rename(pair["first"]), rename(pair["second"]))
        assert table == {key: pair[key] for key in ("both", "b", "c", "neither")}


@needs_fixtures
@pytest.mark.parametrize("metric", ["acc", "acc_norm"])
def test_lm_eval_dummy(metric):
    folders = sorted((FIXTURES / "lm_eval" / "dummy").iterdir())
    matrix = read_lm_eval(folders, task="arith_mc", metric=metric)
    _check_against(matrix, f"lm_eval dummy arith_mc {metric}")


@needs_fixtures
def test_lm_eval_hashlm_and_filters():
    folders = sorted((FIXTURES / "lm_eval" / "hashlm").iterdir())
    _check_against(read_lm_eval(folders, task="arith_mc", metric="acc"), "lm_eval hashlm arith_mc acc")
    with pytest.raises(AlignmentError, match=r"filters .*flexible-extract.*strict-match.*--filter"):
        read_lm_eval(folders, task="arith_gen", metric="exact_match")
    strict = read_lm_eval(folders, task="arith_gen", metric="exact_match", filter="strict-match")
    _check_against(strict, "lm_eval hashlm arith_gen exact_match filter=strict-match")
    flexible = read_lm_eval(folders, task="arith_gen", metric="exact_match", filter="flexible-extract")
    _check_against(flexible, "lm_eval hashlm arith_gen exact_match filter=flexible-extract")
    with pytest.raises(AlignmentError, match="no per-item metric 'f1'"):
        read_lm_eval(folders, task="arith_mc", metric="f1")
    with pytest.raises(AlignmentError, match="no samples file for task 'gsm8k'"):
        read_lm_eval(folders, task="gsm8k", metric="acc")


@needs_fixtures
def test_lm_eval_group_task_keys_on_task_and_doc_id():
    folders = sorted((FIXTURES / "lm_eval" / "hashlm_by_subject").iterdir())
    grouped = read_lm_eval(folders, task="arith_mc_by_subject", metric="acc")
    assert grouped.n_items == 200 and len(set(grouped.clusters)) == 5
    assert _table(grouped, "model-a", "model-b") == {"both": 84, "b": 31, "c": 45, "neither": 40}
    subjects = {
        "addition": (4, 10),
        "division": (11, 6),
        "multiplication": (5, 9),
        "remainder": (5, 9),
        "subtraction": (6, 11),
    }
    x, y = grouped.scores[:, 0], grouped.scores[:, 1]
    labels = np.array(grouped.clusters)
    for subject, (b, c) in subjects.items():
        inside = labels == f"arith_mc_{subject}"
        assert (int(np.sum(x[inside] * (1 - y[inside]))), int(np.sum((1 - x[inside]) * y[inside]))) == (b, c)


@needs_fixtures
def test_lm_eval_rerun_files_are_not_mixed(tmp_path):
    import shutil

    for name in ("model-a", "model-b"):
        shutil.copytree(FIXTURES / "lm_eval" / "hashlm" / name, tmp_path / name)
    source = next((tmp_path / "model-a").glob("samples_arith_mc_*.jsonl"))
    shutil.copy(source, tmp_path / "model-a" / "samples_arith_mc_2026-11-22T10-00-00.000000.jsonl")
    with pytest.raises(AlignmentError, match="2 samples files for task 'arith_mc'"):
        read_lm_eval([tmp_path / "model-a", tmp_path / "model-b"], task="arith_mc", metric="acc")


@needs_fixtures
def test_inspect_eval_logs():
    matrix = read_inspect(sorted((FIXTURES / "inspect" / "eval").glob("*.eval")))
    _check_against(matrix, "inspect arith_mc choice", rename=lambda name: name if "/" in name else f"mockllm/{name}")


@needs_fixtures
def test_inspect_epochs_and_json():
    epochs_file = next((FIXTURES / "inspect" / "eval_epochs2").glob("*.eval"))
    json_file = next((FIXTURES / "inspect" / "json").glob("*.json"))
    model_a = sorted((FIXTURES / "inspect" / "eval").glob("*.eval"))[0]
    with pytest.raises(AlignmentError, match="both logs of model 'mockllm/model-a'"):
        read_inspect([epochs_file, json_file], epochs="first")
    with pytest.raises(AlignmentError, match="2 epochs per sample"):
        read_inspect(
            [epochs_file, sorted((FIXTURES / "inspect" / "eval").glob("*.eval"))[1]],
            epochs="error",
            on_missing="intersect",
        )
    with pytest.raises(AlignmentError, match=r"2 epochs per sample.*choose --epochs all"):
        read_inspect([epochs_file, sorted((FIXTURES / "inspect" / "eval").glob("*.eval"))[1]], on_missing="intersect")
    first = read_inspect(
        [epochs_file, sorted((FIXTURES / "inspect" / "eval").glob("*.eval"))[1]], epochs="first", on_missing="intersect"
    )
    assert (
        first.n_items == 50 and first.scores[:, 0].sum() == 31 and any("kept epoch 1" in note for note in first.notes)
    )
    mean = read_inspect(
        [epochs_file, sorted((FIXTURES / "inspect" / "eval").glob("*.eval"))[1]], epochs="mean", on_missing="intersect"
    )
    values = mean.scores[:, 0]
    assert not mean.binary and sorted(Counter_values(values)) == [(0.0, 11), (0.5, 24), (1.0, 15)]
    json_matrix = read_inspect(
        [json_file, sorted((FIXTURES / "inspect" / "eval").glob("*.eval"))[1]], on_missing="intersect"
    )
    assert json_matrix.n_items == 20 and json_matrix.scores[:, 0].sum() == 10
    full_a = read_inspect([model_a, sorted((FIXTURES / "inspect" / "eval").glob("*.eval"))[1]])
    first_twenty = [full_a.item_ids.index(item) for item in json_matrix.item_ids]
    assert np.array_equal(full_a.scores[first_twenty, 0], json_matrix.scores[:, 0])


def Counter_values(values):
    unique, counts = np.unique(values, return_counts=True)
    return list(zip(unique.tolist(), counts.tolist(), strict=True))


def test_wide_long_and_formats_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    wide = pd.DataFrame({"item_id": [f"q{i}" for i in range(50)], "topic": rng.choice(["x", "y", "z"], 50)})
    for model in ("m1", "m2", "m3"):
        wide[model] = rng.integers(0, 2, 50)
    reference = from_wide(wide, cluster_column="topic")
    long = wide.melt(id_vars=["item_id", "topic"], var_name="model", value_name="score")
    wide.to_csv(tmp_path / "wide.csv", index=False)
    wide.to_parquet(tmp_path / "wide.parquet")
    long.to_json(tmp_path / "long.jsonl", orient="records", lines=True)
    long.to_csv(tmp_path / "long.csv", index=False)
    for name in ("wide.csv", "wide.parquet", "long.jsonl", "long.csv"):
        matrix = read_table(tmp_path / name, cluster_column="topic")
        assert matrix.models == reference.models and matrix.item_ids == reference.item_ids
        assert np.array_equal(matrix.scores, reference.scores) and matrix.clusters == reference.clusters


def _long(rows):
    return pd.DataFrame(rows, columns=["item_id", "model", "score"])


@pytest.mark.parametrize(
    "rows, kwargs, fragment",
    [
        ([("1", "a", 1), ("2", "a", 0), ("1", "b", 0)], {}, "'b' lacks 1 of 2; e.g. 'b' has no item '2'"),
        (
            [("1", "a", 1), ("1", "a", 0), ("1", "b", 0), ("2", "a", 1), ("2", "b", 1)],
            {},
            "model 'a' has two results for item '1' (line 2 and line 3)",
        ),
        (
            [("1", "a", float("nan")), ("2", "a", 0), ("1", "b", 0), ("2", "b", 1)],
            {},
            "line 2: model 'a' has no score for item '1'",
        ),
        (
            [("1", "a", 1.5), ("2", "a", 0), ("1", "b", 0), ("2", "b", 1)],
            {},
            "line 2 (model 'a', item '1') has score 1.5, outside [0, 1]",
        ),
        ([("1", "a", 1), ("2", "a", 0)], {}, "only 1 model ('a')"),
        ([("1", "a", 1), ("2", "b", 0)], {"on_missing": "intersect"}, "no item in common"),
    ],
)
def test_alignment_errors_name_model_and_item(rows, kwargs, fragment):
    with pytest.raises(InputError) as error:
        from_long(_long(rows), **kwargs)
    assert fragment in str(error.value)


def test_constant_model_is_kept_with_a_note():
    matrix = from_long(_long([("1", "a", 1), ("2", "a", 1), ("1", "b", 0), ("2", "b", 1)]))
    assert matrix.constant_models == ("a",)
    assert any("model 'a' scores 1 on every item" in note for note in matrix.notes)


def test_intersect_reports_counts():
    matrix = from_long(
        _long([("1", "a", 1), ("2", "a", 0), ("3", "a", 1), ("1", "b", 0), ("2", "b", 1)]), on_missing="intersect"
    )
    assert matrix.item_ids == ("1", "2")
    assert "dropped 1" in matrix.notes[0] and "'b' lacks 1" in matrix.notes[0]
