"""Score kind from the whole matrix: graded pass@1 leaderboards read as graded, stray values in binary data refused.

The leaderboards are built with a seeded generator in the shape of LiveCodeBench (58 models x 400
problems) and CRUXEval-O (37 x 800): pass@1 estimated from k of 10 samples for a few models sampled
at a temperature above 0 (many fractions), from 10 samples at temperature 0 for a few more (almost
always 0/10 or 10/10: a handful of fractions each), and from one sample for the rest (0/1 only).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.cli import main
from llm_power_verified.io import InputError, from_array, read_score_files, read_scores, read_table
from llm_power_verified.io.score_kind import MIN_STRAYS, STRAY_SHARE, stray_bound


def pass_at_1_leaderboard(
    models: int,
    items: int,
    *,
    sampled: int,
    temperature_zero: int,
    seed: int,
    sampled_fraction_share: float | None = None,
) -> np.ndarray:
    """(items x models) pass@1 scores: ``sampled`` models k/10 at temperature > 0, ``temperature_zero`` models
    k/10 at temperature 0 (a near-deterministic pass probability), the rest one sample (0 or 1)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 1.5, items)
    ability = np.sort(rng.normal(0.0, 1.0, models))[::-1]
    probability = 1 / (1 + np.exp(-(ability[None, :] - difficulty[:, None])))
    scores = (rng.random((items, models)) < probability).astype(float)
    kinds = rng.permutation(np.repeat([0, 1, 2], [sampled, temperature_zero, models - sampled - temperature_zero]))
    for model in np.flatnonzero(kinds == 0):
        scores[:, model] = rng.binomial(10, probability[:, model]) / 10
    for model in np.flatnonzero(kinds == 1):
        # Temperature 0: each problem is solved almost always or almost never; about 2% of problems flip.
        deterministic = (rng.random(items) < probability[:, model]).astype(float)
        flips = rng.random(items) < 0.02
        deterministic[flips] = rng.integers(1, 10, int(flips.sum())) / 10
        scores[:, model] = deterministic
    return scores


def _names(count: int, prefix: str) -> list[str]:
    return [f"{prefix}{k:03d}" for k in range(count)]


def _write_wide(scores: np.ndarray, path: Path) -> Path:
    frame = pd.DataFrame(scores, columns=_names(scores.shape[1], "model"))
    frame.insert(0, "item_id", _names(scores.shape[0], "problem"))
    frame.to_csv(path, index=False, float_format="%.17g")
    return path


def _cli(arguments: list[str]) -> tuple[int, str]:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        status = main(arguments)
    return status, stderr.getvalue()


LEADERBOARDS = {
    "LiveCodeBench-like 58 x 400": dict(models=58, items=400, sampled=10, temperature_zero=8, seed=11),
    "CRUXEval-O-like 37 x 800": dict(models=37, items=800, sampled=9, temperature_zero=6, seed=12),
    "only temperature-0 models, 58 x 400": dict(models=58, items=400, sampled=0, temperature_zero=10, seed=13),
}


@pytest.mark.parametrize("name", LEADERBOARDS)
def test_graded_pass_at_1_leaderboards_read_as_graded(tmp_path, name):
    scores = pass_at_1_leaderboard(**LEADERBOARDS[name])
    per_model = ((scores != 0) & (scores != 1)).sum(axis=0)
    # The shape the old per-column rule refused: some models hold only a few fractions (at most 5% of items).
    assert ((per_model > 0) & (per_model <= STRAY_SHARE * scores.shape[0])).any()
    assert (per_model == 0).sum() > scores.shape[1] // 2  # most models are 0/1 only
    matrix = read_scores(_write_wide(scores, tmp_path / "board.csv"))
    assert not matrix.binary and matrix.score_kind == "graded"
    assert np.array_equal(matrix.scores, scores)  # written with 17 digits: read back exactly
    note = next(note for note in matrix.notes if note.startswith("scores read as graded"))
    assert f"{int(per_model.sum()):,} of {scores.size:,} are neither 0 nor 1" in note
    assert not from_array(scores).binary


def _binary_board(seed: int = 21, models: int = 58, items: int = 400) -> np.ndarray:
    scores = pass_at_1_leaderboard(models, items, sampled=0, temperature_zero=0, seed=seed)
    assert set(np.unique(scores)) == {0.0, 1.0}
    return scores


def test_stray_value_in_a_binary_leaderboard_is_refused_naming_its_cell_and_the_flag(tmp_path):
    scores = _binary_board()
    scores[123, 45] = 0.5
    path = _write_wide(scores, tmp_path / "board.csv")
    with pytest.raises(InputError) as error:
        read_scores(path)
    message = str(error.value)
    assert "line 125, column 'model045' (item 'problem123') has score 0.5" in message
    assert "pass --scores graded" in message and "\n" not in message
    status, stderr = _cli(["audit", str(path), "--n-resamples", "0", "--n-cluster-resamples", "0"])
    assert status == 2 and len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
    assert "line 125, column 'model045'" in stderr and "--scores graded" in stderr
    graded = read_scores(path, score_kind="graded")
    assert not graded.binary and graded.scores[123, 45] == 0.5
    with pytest.raises(InputError, match="binary scores must be 0 or 1"):
        read_scores(path, score_kind="binary")


def test_strays_in_several_models_are_still_strays():
    """Two typos in two different models are damage, not a scoring scheme."""
    scores = _binary_board()
    scores[3, 1] = 0.5
    scores[200, 30] = 0.25
    with pytest.raises(
        InputError,
        match=r"model 'model1', item '3' has score 0.5 but the other scores are 0 or 1 \(2 of 23,200 are not, in 2 "
        r"model",
    ):
        from_array(scores, item_ids=[str(i) for i in range(400)])


@pytest.mark.parametrize("items", [10, 40, 400, 800])
def test_the_bound_is_max_of_two_and_five_percent_of_the_items(items):
    bound = stray_bound(items)
    assert bound == max(MIN_STRAYS, STRAY_SHARE * items)
    scores = _binary_board(seed=items, models=6, items=items)
    cells = np.random.default_rng(items).permutation(items * 6)
    at_bound, over = int(np.floor(bound)), int(np.floor(bound)) + 1
    scores.flat[cells[:at_bound]] = 0.5
    with pytest.raises(InputError, match="pass --scores graded"):
        from_array(scores)
    scores.flat[cells[:over]] = 0.5
    matrix = from_array(scores)
    assert not matrix.binary and f"{over:,} of {scores.size:,} are neither 0 nor 1" in matrix.notes[0]


def test_one_stray_in_a_small_table_is_refused_where_the_per_column_rule_read_graded():
    """10 items: one 0.5 was 10% of its column (read as graded before); it is one cell of twenty, a stray."""
    scores = np.tile([[1.0, 0.0], [0.0, 1.0]], (5, 1))
    scores[4, 0] = 0.5
    with pytest.raises(InputError, match="at most max\\(2, 5% of 10 items\\) = 2 read as damage"):
        from_array(scores)


def test_plain_score_files_use_the_same_rule(tmp_path):
    rng = np.random.default_rng(31)
    a, b = (rng.random(400) < 0.6).astype(int), (rng.random(400) < 0.5).astype(int)
    (tmp_path / "a.txt").write_text("".join(f"{v}\n" for v in a))
    lines = [str(v) for v in b]
    lines[7] = "0.5"
    (tmp_path / "b.txt").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"b.txt, line 8 has score 0.5 but the other scores are 0 or 1"):
        read_score_files(tmp_path / "a.txt", tmp_path / "b.txt")
    status, stderr = _cli(["test", str(tmp_path / "a.txt"), str(tmp_path / "b.txt")])
    assert status == 2 and len(stderr.strip().splitlines()) == 1 and "b.txt, line 8 has score 0.5" in stderr
    # Graded pass@1 of two models scored k/10 on 400 items: many fractions, read as graded.
    (tmp_path / "b.txt").write_text("".join(f"{k / 10:g}\n" for k in rng.binomial(10, 0.5, 400)))
    assert not read_score_files(tmp_path / "a.txt", tmp_path / "b.txt").binary


def test_long_table_of_a_graded_leaderboard(tmp_path):
    scores = pass_at_1_leaderboard(**LEADERBOARDS["LiveCodeBench-like 58 x 400"])
    frame = pd.DataFrame(scores, columns=_names(58, "model"))
    frame.insert(0, "item_id", _names(400, "problem"))
    long = frame.melt(id_vars="item_id", var_name="model", value_name="score")
    long.to_csv(tmp_path / "long.csv", index=False, float_format="%.17g")
    matrix = read_table(tmp_path / "long.csv")
    assert not matrix.binary and np.array_equal(matrix.scores, scores)
