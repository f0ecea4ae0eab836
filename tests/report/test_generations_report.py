"""The reports of an audit with several generations per item: headline line, section, legend, JSON and its schema."""

from __future__ import annotations

import dataclasses
import io
import json
import re
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

from llm_power_verified.contract.generation_columns import CURVE_COLUMNS, GENERATION_PAIR_COLUMNS
from llm_power_verified.io import from_array
from llm_power_verified.leaderboard.audit import audit_leaderboard, stream_audit
from llm_power_verified.leaderboard.summaries import GenerationSummary
from llm_power_verified.repeats.split import resolution_curve
from llm_power_verified.report import render
from llm_power_verified.report.generations import _model_table, generations_line, generations_section
from llm_power_verified.report.headline import headline
from llm_power_verified.report.schemas import SCHEMA_FILES
from tests.leaderboard.test_generations import matrix_of, raw_generations

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "llm_power_verified" / "report" / SCHEMA_FILES["binary+graded"]).read_text()
)


@pytest.fixture(scope="module")
def audit():
    return audit_leaderboard(matrix_of(raw_generations(3, True, False), True), "all", n_resamples=0)


def _summary(**changes) -> GenerationSummary:
    fields = dict(
        label="epoch",
        count_low=5,
        count_high=5,
        binary=True,
        models={},
        adjacent_share_median=0.23,
        adjacent_share_low=0.08,
        adjacent_share_high=0.41,
        q_limit_ratio=1 / 0.77,
        adjacent_beyond_generations=0,
        negative_between=0,
        reported_pairs=3,
    )
    return GenerationSummary(**{**fields, **changes})


def test_the_headline_names_the_share_more_generations_could_remove(audit):
    line = next(line for line in headline(audit) if line.startswith("Generations: "))
    summary = audit.headline.generations
    assert line.startswith("Generations: 5 epochs per item; generation noise is ")
    assert f"{summary.adjacent_share_median:.0%} of the variance of the adjacent gaps (median; " in line
    assert f"{summary.adjacent_share_low:.0%}-{summary.adjacent_share_high:.0%})" in line
    assert f"q would be at most {summary.q_limit_ratio:.3g} times today's" in line


def test_the_headline_words_each_case():
    assert generations_line(_summary(), 3) == (
        "Generations: 5 epochs per item; generation noise is 23% of the variance of the adjacent gaps (median; "
        "8%-41%): more generations per item could remove at most that; with unlimited generations q would be at "
        "most 1.3 times today's at the median share (1 / (1 - share))."
    )
    unequal = generations_line(_summary(count_low=2, count_high=6, label="trial", adjacent_beyond_generations=2), 3)
    assert unequal.startswith("Generations: 2 to 6 trials per item;")
    assert unequal.endswith(
        "; 2 of 3 adjacent gaps stay unresolved however many generations (q at unlimited "
        "generations < 1): only more items resolve them."
    )
    one = generations_line(_summary(adjacent_beyond_generations=1), 3)
    assert one.endswith(
        "; 1 of 3 adjacent gaps stays unresolved however many generations (q at unlimited "
        "generations < 1): only more items resolve it."
    )
    clustered = generations_line(_summary(design_effect_median=9.81, q_limit_ratio=1.08), 3)
    assert "but with the clusters' design effect (median 9.81) the between-cluster part does not shrink" in clustered
    assert "q would be at most 1.08 times today's clustered q" in clustered
    assert "1 / (1 - share)" not in clustered
    over = generations_line(_summary(adjacent_share_median=1.2, adjacent_share_high=1.3, q_limit_ratio=float("inf")), 3)
    assert "is all of the variance of the adjacent gaps at the median (estimated share 120%; 8%-130%" in over
    assert "sets no limit" in over
    assert "n/a (their item-mean differences do not vary)" in generations_line(
        _summary(adjacent_share_median=None, adjacent_share_low=None, adjacent_share_high=None, q_limit_ratio=None), 3
    )
    single = generations_line(_summary(adjacent_share_low=0.23, adjacent_share_high=0.23), 1)
    assert "(median):" in single


def test_every_text_format_has_the_section_and_the_curve(audit):
    adjacent = audit.pairs[audit.pairs["adjacent"]]
    for output in ("table", "markdown", "html"):
        text = render(audit, output, **({} if output == "html" else {"width": 200}))
        assert "Several generations per item (5 epochs per item, every generation 0/1" in text, output
        assert "q(inf)" in text and "sigma_b^2" in text, output
        for model in audit.ranking["model"]:
            assert model in text
        for value in adjacent["q_generations_10"]:
            assert f"{value:.3g}" in text, output
    markdown = render(audit, "markdown")
    assert "| model | generations/item | sigma_w^2 | sigma_b^2 | gen. share |" in markdown
    wide = render(audit, "table", wide=True)
    assert "q(K'=inf)" in wide and "gen. share" in wide  # the view's columns, last


def test_columns_can_be_asked_for_and_carry_their_legend(audit):
    text = render(audit, "table", columns=["delta", "q", "q_generations_inf", "gap_generation_share"], width=200)
    header = next(line for line in text.splitlines() if line.startswith("A "))
    assert "q(K'=inf)" in header and "gen. share" in header
    assert "q_generations_inf): the limit of q as the generations per item grow without bound" in text


def test_the_json_report_follows_the_schema_and_carries_the_summary(audit):
    document = json.loads(render(audit, "json"))
    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
    summary = document["generations"]
    assert summary["count_low"] == summary["count_high"] == 5 and summary["label"] == "epoch"
    assert set(summary["models"]) == set(audit.ranking["model"])
    assert summary["negative_between"] == int((audit.pairs["gap_between_variance"] < 0).sum())
    assert all(set(CURVE_COLUMNS) <= set(pair) for pair in document["pairs"])
    assert {"generations", "within_variance", "between_variance"} <= set(document["ranking"][0])
    assert "gap_generation_share" in document["legend"]["pairs"]
    assert "between_variance" in document["legend"]["models"]


def test_the_schema_refuses_a_broken_summary(audit):
    document = json.loads(render(audit, "json"))
    del document["generations"]["models"]
    with pytest.raises(jsonschema.ValidationError, match="models"):
        jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)


def test_csv_has_every_generation_column(audit):
    table = pd.read_csv(io.StringIO(render(audit, "csv")))
    assert [item.name for item in GENERATION_PAIR_COLUMNS] == [
        name for name in table.columns if name in {item.name for item in GENERATION_PAIR_COLUMNS}
    ]
    # 1e-12 relative: the CSV writes each float in its shortest repr, read back by pandas' C parser (1 ulp at most).
    np.testing.assert_allclose(table["q_generations_5"], audit.pairs["q_generations_5"], rtol=1e-12)


def test_a_streamed_audit_reports_the_same_summary_and_section(audit):
    streamed = stream_audit(audit.matrix, lambda block: None, "all", n_resamples=0)
    assert streamed.headline == audit.headline
    keys = {name: name for name in audit.ranking["model"]}
    # The streamed audit keeps the adjacent rows only: its sentence on negative item parts names the adjacent ones.
    kept = [line for line in generations_section(streamed, keys, "", False) if not line.startswith("Negative")]
    assert kept == [line for line in generations_section(audit, keys, "", False) if not line.startswith("Negative")]
    document = json.loads(render(streamed, "json"))
    assert document["generations"] == json.loads(render(audit, "json"))["generations"]


def test_a_report_without_generations_has_none_of_it():
    rng = np.random.default_rng(1)
    plain = audit_leaderboard(from_array(rng.beta(4, 2, (100, 3)), models=["x", "y", "z"]), n_resamples=0)
    document = json.loads(render(plain, "json"))
    assert "generations" not in document
    assert "Several generations" not in render(plain, "markdown")
    assert not any(line.startswith("Generations:") for line in headline(plain))


def test_negative_item_parts_and_clusters_validate_and_are_named():
    # The same item probability for every model: the item part of each difference is 0, so estimates fall below it.
    rng = np.random.default_rng(11)
    p = rng.beta(2, 2, (200, 1)) + np.array([0.05, 0.0, -0.05])
    raw = pd.DataFrame(
        [
            (f"i{i:03d}", f"m{m}", g, float(rng.random() < p[i, m]))
            for i in range(200)
            for m in range(3)
            for g in range(4)
        ],
        columns=["item", "model", "epoch", "score"],
    )
    clusters = [f"c{index // 20}" for index in range(200)]
    audit = audit_leaderboard(matrix_of(raw, True, clusters), "all", n_resamples=0, n_cluster_resamples=20)
    document = json.loads(render(audit, "json"))
    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
    negative = audit.pairs[audit.pairs["gap_between_variance"] < 0]
    assert len(negative) and document["generations"]["negative_between"] == len(negative)
    text = render(audit, "table", width=300)
    named = next(line for line in text.splitlines() if line.startswith("Negative item variance"))
    assert all(f"{a} vs {b}" in named for a, b in zip(negative["model_a"], negative["model_b"], strict=True))


def test_the_n_lines_say_at_how_many_generations_and_point_at_plan_repeats():
    raw = raw_generations(3, True, False)
    audit = audit_leaderboard(matrix_of(raw, True), "all", n_resamples=0, min_effect=0.05)
    lines = [line for line in headline(audit) if line.startswith("N that would resolve")]
    assert len(lines) == 2
    for line in lines:
        assert line.endswith(", at 5 epochs per item (`plan repeats` trades items against generations per item).")


def test_the_checklist_says_the_n_star_interval_is_for_binary_scores_when_graded_with_resamples():
    audit = audit_leaderboard(matrix_of(raw_generations(3, True, False, n_items=60, n_models=2), True), n_resamples=50)
    text = render(audit, "table", width=300)
    line = next(line for line in text.splitlines() if line.startswith("N* CI: "))
    assert line.startswith("N* CI: computed for 0/1 scores only (graded scores: the B = 50 paired bootstrap gives")
    assert "not computed" not in line


def test_a_negative_between_part_is_not_listed_as_resolvable_by_generations():
    # An A/A-like pair: the same item probabilities for both models, few generations, a small gap.
    rng = np.random.default_rng(6)
    p = rng.beta(2, 2, 80)
    raw = pd.DataFrame(
        [(f"i{i}", m, g, float(rng.random() < p[i])) for i in range(80) for m in ("A", "B") for g in range(2)],
        columns=["item", "model", "epoch", "score"],
    )
    audit = audit_leaderboard(matrix_of(raw, True), n_resamples=0)
    pair = audit.pairs.iloc[0]
    assert pair["gap_between_variance"] < 0 and pair["q"] < 1, "the seed gives a negative between part"
    lines = generations_section(audit, {}, "", False)
    assert not any(line.startswith("More generations per item alone could resolve") for line in lines)
    unknown = next(line for line in lines if line.startswith("Between part estimated negative"))
    assert "not distinguishable from 0" in unknown and f"{pair['model_a']} vs {pair['model_b']}" in unknown


def test_a_model_share_above_one_is_explained():
    summary = audit_leaderboard(matrix_of(raw_generations(3, True, False), True), n_resamples=0).headline.generations
    model = next(iter(summary.models))
    over = dataclasses.replace(summary.models[model], generation_share=2.7, between_variance=-0.01)
    changed = dataclasses.replace(summary, models={**summary.models, model: over})
    lines = _model_table(changed, {}, False)
    assert lines[1].startswith(f"A generation share above 1 ({model}): sigma_b^2 is estimated negative, not dist")


def test_the_schema_describes_every_key_of_the_generations_summary():
    properties = SCHEMA["properties"]["generations"]["properties"]
    assert all(entry.get("description") for entry in properties.values()), properties
    model = properties["models"]["additionalProperties"]["properties"]
    assert all(entry.get("description") for entry in model.values()), model
    assert {"within_part", "item_mean_variance"} <= set(model)


def test_the_json_models_carry_the_whole_split(audit):
    models = json.loads(render(audit, "json"))["generations"]["models"]
    for split in models.values():
        # 1e-12 relative: item_mean_variance is computed directly (ddof 1), the sum from the split's two parts.
        total = split["within_part"] + split["between_variance"]
        np.testing.assert_allclose(split["item_mean_variance"], total, rtol=1e-12)


def test_the_pairs_more_generations_resolve_say_from_how_many():
    audit = audit_leaderboard(matrix_of(raw_generations(4, True, False, n_items=60, n_models=3), True), n_resamples=0)
    line = next(line for line in generations_section(audit, {}, "", False) if line.startswith("More generations"))
    adjacent = audit.pairs[audit.pairs["adjacent"]]
    found = re.findall(r"(\S+) vs (\S+) \(from about (\d+) generations per item\)", line)
    assert len(found) == 2
    for model_a, model_b, count in found:
        pair = adjacent[(adjacent["model_a"] == model_a) & (adjacent["model_b"] == model_b)].iloc[0]
        curve = resolution_curve(
            60,
            pair["delta"],
            pair["gap_between_variance"],
            pair["gap_within_variance"],
            0.05,
            0.8,
            (int(count) - 1, int(count)),
        )[0]
        assert curve[0] < 1 <= curve[1], (model_a, model_b, count, curve)
