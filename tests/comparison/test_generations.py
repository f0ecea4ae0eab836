"""``compare`` on items with several generations each: the split of the gap's noise, the q curve at K' generations,
the N to decide at the data's generations, and a pair whose item means agree while their generations vary."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from llm_power_verified.cli import main
from llm_power_verified.comparison import compare
from llm_power_verified.comparison.generations import CURVE_FIELDS, SPLIT_FIELDS
from llm_power_verified.comparison.record import record, report
from llm_power_verified.io import from_array, read_scores

SCHEMA = json.loads((resources.files("llm_power_verified") / "report" / "compare.schema.json").read_text())


def _long_table(seed: int = 3, n_items: int = 80, epochs: int = 4, gap: float = 0.03) -> pd.DataFrame:
    """Binary generations of two models: per item a solve rate (shared item difficulty) and ``epochs`` draws each."""
    rng = np.random.default_rng(seed)
    difficulty = rng.uniform(0.2, 0.8, n_items)
    rows = []
    for model, shift in (("base", 0.0), ("cand", gap)):
        rate = np.clip(difficulty + shift + rng.normal(0, 0.1, n_items), 0, 1)
        draws = rng.random((n_items, epochs)) < rate[:, None]
        for item in range(n_items):
            for epoch in range(epochs):
                rows.append((f"q{item}", model, epoch, int(draws[item, epoch])))
    return pd.DataFrame(rows, columns=["item_id", "model", "epoch", "score"])


def _write(tmp_path, table: pd.DataFrame) -> str:
    path = tmp_path / "generations.csv"
    table.to_csv(path, index=False)
    return str(path)


def test_the_split_equals_an_independent_method_of_moments_computation(tmp_path):
    table = _long_table()
    matrix = read_scores([_write(tmp_path, table)], repeat_column="epoch")
    result = compare(matrix, "base", "cand")
    cells = table.groupby(["item_id", "model"])["score"].agg(["mean", "var", "count"]).unstack("model")
    within = (cells["var"] / cells["count"]).mean()
    differences = cells["mean"]["cand"] - cells["mean"]["base"]
    # 1e-12 relative: two summation orders of one statistic.
    assert result.generations_per_item == 4
    assert result.gap_within_part == pytest.approx(within["cand"] + within["base"], rel=1e-12)
    between = differences.var(ddof=1) - within.sum()
    assert result.gap_between_variance == pytest.approx(between, rel=1e-12)
    assert result.generation_share == pytest.approx(within.sum() / differences.var(ddof=1), rel=1e-12)
    assert between > 0, "this table has a positive between part, so the curve at K' = 4 is the paired test's"
    z = stats.norm.ppf(0.95) + stats.norm.ppf(0.8)
    sigma_w = (cells["var"].mean()).sum()
    expected = [
        differences.size * differences.mean() ** 2 / (z**2 * (between + sigma_w / count)) for count in (1, 2, 5, 10, 20)
    ]
    curve = [getattr(result, name) for name in CURVE_FIELDS]
    assert curve[:-1] == pytest.approx(expected, rel=1e-9)  # 1e-9: the generated formula's z against scipy's ppf
    assert curve[0] < curve[1] < curve[2] < curve[3] < curve[4] < curve[5] < np.inf


def test_without_generations_the_split_is_null_and_the_record_validates_both_ways(tmp_path):
    matrix = read_scores([_write(tmp_path, _long_table())], repeat_column="epoch")
    plain = from_array(matrix.scores, models=list(matrix.models), score_kind="graded")
    with_generations, without = compare(matrix, "base", "cand"), compare(plain, "base", "cand")
    assert all(getattr(without, name) is None for name in SPLIT_FIELDS)
    assert all(getattr(with_generations, name) is not None for name in SPLIT_FIELDS)
    for result in (with_generations, without):
        jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(json.dumps(record(result))))
    # The verdict itself is the paired test on the item means, generations or not.
    assert with_generations.interval_low == without.interval_low and with_generations.verdict == without.verdict
    assert "generations" not in report(without) and "generations per item" in report(with_generations)


def test_the_n_to_decide_says_at_how_many_generations_and_points_at_plan_repeats(tmp_path, capsys):
    path = _write(tmp_path, _long_table(gap=0.02))
    status = main(["compare", path, "--repeat-column", "epoch", "--baseline", "base", "--candidate", "cand"])
    out = capsys.readouterr().out
    assert status == 3, out
    to_decide = next(line for line in out.splitlines() if line.startswith("to decide"))
    assert "items at 4 generations per item, as in the data" in to_decide and "plan repeats" in to_decide
    assert any(line.startswith("q by K'") and "inf: " in line for line in out.splitlines())
    assert main(["compare", path, "--repeat-column", "epoch", "--baseline", "base", "--candidate", "cand", "--json"])
    document = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator(SCHEMA).validate(document)
    assert document["generations_per_item"] == 4 and document["q_generations_inf"] > document["q_generations_1"]
    main(
        [
            "compare",
            path,
            "--repeat-column",
            "epoch",
            "--baseline",
            "base",
            "--candidate",
            "cand",
            "--format",
            "markdown",
        ]
    )
    assert "| q by K' |" in capsys.readouterr().out


def _flat_table() -> pd.DataFrame:
    """Every item: the candidate solves 3 of 4 generations, the baseline 2 of 4; item means agree on every item."""
    rows = []
    for item in range(30):
        for model, solved in (("base", (1, 0, 1, 0)), ("cand", (1, 1, 1, 0))):
            rows += [(f"q{item}", model, epoch, score) for epoch, score in enumerate(solved)]
    return pd.DataFrame(rows, columns=["item_id", "model", "epoch", "score"])


@pytest.mark.parametrize("method", [None, "bootstrap"])
def test_item_means_that_agree_while_generations_vary_are_inconclusive(tmp_path, method):
    """Without the rule this pair passes on the zero-width interval [+0.25, +0.25]."""
    matrix = read_scores([_write(tmp_path, _flat_table())], repeat_column="epoch")
    result = compare(matrix, "base", "cand", method=method, n_resamples=200)
    assert result.interval_low == result.interval_high == 0.25
    assert result.verdict == "inconclusive"
    assert any("agree by chance" in note for note in result.notes)
    assert any("between part is estimated negative" in note for note in result.notes)
    text = report(result)
    assert "INCONCLUSIVE: the item-mean differences do not vary although the generations do" in text
    assert "more items: the spread of the item-mean differences is not estimated" in text
    # The curve treats the between part as 0: q at K' is N d^2 K' / ((z + z)^2 sigma_w^2), finite, and inf at K' = inf.
    z = stats.norm.ppf(0.95) + stats.norm.ppf(0.8)
    sigma_w = 4 / 3 * (0.5 * 0.5 + 0.75 * 0.25)
    assert result.q_generations_1 == pytest.approx(30 * 0.25**2 / (z**2 * sigma_w), rel=1e-9)  # 1e-9: z routes
    assert result.q_generations_inf is None  # infinite: no variance left; the JSON writes null


def test_the_anytime_sequence_keeps_its_own_verdict_on_such_a_pair(tmp_path):
    """The betting sequence is valid for any bounded differences and does not shrink to a point: no override."""
    matrix = read_scores([_write(tmp_path, _flat_table())], repeat_column="epoch")
    result = compare(matrix, "base", "cand", anytime=True)
    assert result.interval_low < 0.25 < result.interval_high
    assert not any("agree by chance" in note for note in result.notes)
    assert "zero-width" not in report(result)


def test_the_same_pair_without_generations_still_passes_on_its_point_interval():
    """The rule needs generations that vary: plain scores with one difference everywhere keep their verdict."""
    matrix = from_array(np.column_stack([np.full(30, 0.5), np.full(30, 0.75)]), models=["base", "cand"])
    assert compare(matrix, "base", "cand").verdict == "pass"
