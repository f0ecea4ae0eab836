"""The audit of several generations per item: the split columns, the q curve, the summary, every audit path.

The split is checked against an independent method-of-moments computation written here with pandas on a long table
of raw generations (one row per item, model and generation), binary and graded, equal and unequal counts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from llm_power_verified.contract.generation_columns import (
    CURVE_COLUMNS,
    GENERATION_MODEL_COLUMNS,
    GENERATION_PAIR_COLUMNS,
)
from llm_power_verified.io import from_array
from llm_power_verified.io.generations import Generations
from llm_power_verified.io.matrix import build_matrix
from llm_power_verified.leaderboard import blocks as blocks_module
from llm_power_verified.leaderboard.audit import AuditSettings, audit_leaderboard, stream_audit
from llm_power_verified.leaderboard.generations import clustered_curve
from llm_power_verified.leaderboard.request import AuditRequest
from llm_power_verified.repeats.split import CURVE_GENERATIONS, pair_split, resolution_curve
from llm_power_verified.report import read_audit_metadata, write
from llm_power_verified.report.generations import generations_section

PAIR_NAMES = [item.name for item in GENERATION_PAIR_COLUMNS]
MODEL_NAMES = [item.name for item in GENERATION_MODEL_COLUMNS]


def raw_generations(seed: int, binary: bool, unequal: bool, n_items: int = 150, n_models: int = 4) -> pd.DataFrame:
    """A long table of raw generations: each model's own item effects (so the between parts are clearly > 0)."""
    rng = np.random.default_rng(seed)
    shift = np.linspace(0.1, -0.1, n_models)
    item = rng.normal(0.0, 1.0, (n_items, 1)) + rng.normal(0.0, 0.6, (n_items, n_models))
    most = 6 if unequal else 5
    counts = rng.integers(2, most + 1, (n_items, n_models)) if unequal else np.full((n_items, n_models), most)
    rows = []
    for i in range(n_items):
        for m in range(n_models):
            if binary:
                p = 1.0 / (1.0 + np.exp(-(item[i, m] + 4 * shift[m])))
                scores = (rng.random(counts[i, m]) < p).astype(float)
            else:
                scores = np.clip(0.5 + 0.15 * item[i, m] + shift[m] + rng.normal(0, 0.2, counts[i, m]), 0.0, 1.0)
            rows += [(f"q{i:03d}", f"model-{m}", g, s) for g, s in enumerate(scores)]
    return pd.DataFrame(rows, columns=["item", "model", "epoch", "score"])


def matrix_of(raw: pd.DataFrame, binary: bool, clusters=None):
    """The score matrix of item means with its Generations, from the long table (what a reader builds)."""
    cells = raw.groupby(["item", "model"])["score"].agg(["mean", "count", "var"])
    means = cells["mean"].unstack()
    generations = Generations(
        cells["count"].unstack().to_numpy(dtype=np.int64),
        cells["var"].unstack().to_numpy(dtype=np.float64),
        binary=binary,
        label="epoch",
    )
    return build_matrix(
        means.to_numpy(),
        list(means.columns),
        list(means.index),
        source="raw.csv",
        generations=generations,
        clusters=clusters,
    )


def independent_split(raw: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """The method of moments by hand: per model, and a function of a pair."""
    cells = raw.groupby(["model", "item"])["score"].agg(["mean", "var", "count"]).reset_index()
    cells["part"] = cells["var"] / cells["count"]
    per_model = cells.groupby("model").agg(
        generations=("count", "mean"), within_variance=("var", "mean"), within_part=("part", "mean")
    )
    means = cells.pivot(index="item", columns="model", values="mean")
    per_model["item_mean_variance"] = means.var(ddof=1)
    per_model["between_variance"] = per_model["item_mean_variance"] - per_model["within_part"]
    per_model["generation_share"] = per_model["within_part"] / per_model["item_mean_variance"]
    pairs = {}
    for a in means.columns:
        for b in means.columns:
            gap_variance = float((means[a] - means[b]).var(ddof=1)) if a != b else 0.0
            part = per_model.loc[a, "within_part"] + per_model.loc[b, "within_part"]
            pairs[a, b] = {
                "gap_within_part": part,
                "gap_within_variance": per_model.loc[a, "within_variance"] + per_model.loc[b, "within_variance"],
                "gap_between_variance": gap_variance - part,
                "gap_generation_share": part / gap_variance if gap_variance else np.nan,
                "scale": max(gap_variance, part),
            }
    return per_model, pairs


CASES = {
    "binary, equal K": (1, True, False),
    "binary, unequal K": (2, True, True),
    "graded, equal K": (3, False, False),
    "graded, unequal K": (4, False, True),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    seed, binary, unequal = CASES[request.param]
    raw = raw_generations(seed, binary, unequal)
    matrix = matrix_of(raw, binary)
    return request.param, raw, matrix, audit_leaderboard(matrix, "all", n_resamples=0)


def test_the_split_equals_an_independent_method_of_moments_computation(case):
    name, raw, _, audit = case
    per_model, pairs = independent_split(raw)
    # 1e-12 relative to the larger of the two variances a difference is made of: both routes sum the same float64
    # numbers in different orders (bincount/NumPy vs pandas groupby), so they agree to a few ulps of the terms.
    for _, row in audit.pairs.iterrows():
        expected = pairs[row["model_a"], row["model_b"]]
        for column in ("gap_within_part", "gap_within_variance", "gap_between_variance", "gap_generation_share"):
            scale = expected["scale"] if column != "gap_generation_share" else 1.0
            assert abs(row[column] - expected[column]) <= 1e-12 * scale, (name, column)
    for _, row in audit.ranking.iterrows():
        expected = per_model.loc[row["model"]]
        scale = max(expected["item_mean_variance"], expected["within_part"], expected["within_variance"])
        for column in ("within_variance", "between_variance"):
            assert abs(row[column] - expected[column]) <= 1e-12 * scale, (name, column)
        assert abs(row["generation_share"] - expected["generation_share"]) <= 1e-12, name
        assert row["generations"] == pytest.approx(expected["generations"], rel=1e-15), name  # a mean of integers


def test_the_columns_are_the_split_and_curve_functions_of_the_repeats_room(case):
    _, _, matrix, audit = case
    position = {model: index for index, model in enumerate(matrix.models)}
    first = audit.pairs["model_a"].map(position).to_numpy()
    second = audit.pairs["model_b"].map(position).to_numpy()
    split = pair_split(matrix, first, second)
    for column, field in zip(
        PAIR_NAMES[:4], ("within_part", "within_variance", "between_variance", "generation_share"), strict=True
    ):
        np.testing.assert_array_equal(audit.pairs[column].to_numpy(), getattr(split, field))
    curve = resolution_curve(matrix.n_items, audit.pairs["delta"], split.between_variance, split.within_variance)
    np.testing.assert_array_equal(audit.pairs[list(CURVE_COLUMNS)].to_numpy(), curve)
    assert len(CURVE_COLUMNS) == len(CURVE_GENERATIONS) and np.isinf(CURVE_GENERATIONS[-1])


def test_q_at_the_generations_read_is_the_audits_q(case):
    name, _, matrix, audit = case
    low, high = matrix.generations.count_range
    if (low, high) != (5, 5):
        pytest.skip("q(K) is the audit's q only with equal counts (K = 5 here)")
    positive = audit.pairs[audit.pairs["gap_between_variance"] >= 0]
    assert len(positive) >= 3, name
    # 1e-10 relative: q is z_wald^2 / (z+z)^2 from the t route and q(5) is N d^2 / ((z+z)^2 V) from the split; the
    # same quantity through different roundings (a few ulps each, amplified by no cancellation here).
    np.testing.assert_allclose(positive["q_generations_5"], positive["q"], rtol=1e-10)


def test_the_summary_restates_the_tables(case):
    _, _, matrix, audit = case
    summary = audit.sections()["generations"]
    adjacent = audit.pairs[audit.pairs["adjacent"]]
    assert (summary.count_low, summary.count_high) == matrix.generations.count_range
    assert summary.label == "epoch" and summary.binary == matrix.generations.binary
    assert list(summary.models) == audit.ranking["model"].tolist()
    for _, row in audit.ranking.iterrows():
        model = summary.models[row["model"]]
        assert (model.within_variance, model.between_variance) == (row["within_variance"], row["between_variance"])
    assert summary.adjacent_share_median == float(np.median(adjacent["gap_generation_share"]))
    assert summary.adjacent_share_low == adjacent["gap_generation_share"].min()
    assert summary.q_limit_ratio == pytest.approx(1 / (1 - summary.adjacent_share_median), rel=1e-15)
    assert summary.negative_between == int((audit.pairs["gap_between_variance"] < 0).sum())
    assert summary.adjacent_beyond_generations == int((adjacent["q_generations_inf"] < 1).sum())
    assert summary.reported_pairs == len(audit.pairs) == 6
    assert audit.headline.generations is summary


def test_the_streamed_audit_writes_the_same_rows_block_by_block(case):
    _, _, matrix, audit = case
    blocks = []
    streamed = stream_audit(matrix, blocks.append, "all", n_resamples=0)
    written = pd.concat(blocks, ignore_index=True)
    pd.testing.assert_frame_equal(written[PAIR_NAMES], audit.pairs[PAIR_NAMES])
    assert streamed.sections()["generations"] == audit.sections()["generations"]
    assert streamed.notes == audit.notes


def test_arrow_blocks_carry_the_columns_too():
    pytest.importorskip("pyarrow")
    matrix = matrix_of(raw_generations(5, False, True, n_items=60, n_models=3), False)
    blocks = []
    stream_audit(matrix, blocks.append, "all", n_resamples=0, arrow=True)
    audit = audit_leaderboard(matrix, "all", n_resamples=0)
    written = pd.concat([block.to_pandas() for block in blocks], ignore_index=True)
    pd.testing.assert_frame_equal(written[PAIR_NAMES], audit.pairs[PAIR_NAMES])


def test_a_negative_between_part_is_noted_and_truncated_for_the_curve():
    # The same item probability for every model: the item part of a difference is 0, half the estimates negative.
    rng = np.random.default_rng(11)
    p = rng.beta(2, 2, (200, 1)) + np.array([0.05, 0.0, -0.05])
    raw = pd.DataFrame(
        [(f"i{i}", f"m{m}", g, float(rng.random() < p[i, m])) for i in range(200) for m in range(3) for g in range(4)],
        columns=["item", "model", "epoch", "score"],
    )
    audit = audit_leaderboard(matrix_of(raw, True), "all", n_resamples=0)
    negative = audit.pairs[audit.pairs["gap_between_variance"] < 0]
    assert len(negative), "the seed gives at least one negative estimate"
    assert np.isinf(negative["q_generations_inf"]).all()  # gaps are not 0 here
    note = next(note for note in audit.notes if "negative method-of-moments" in note)
    assert note.startswith(f"{len(negative)} of 3 reported pairs")


def test_clusters_compose_with_generations():
    raw = raw_generations(6, True, False, n_items=120, n_models=3)
    clusters = [f"c{index // 10}" for index in range(120)]
    audit = audit_leaderboard(matrix_of(raw, True, clusters), "all", n_resamples=0, n_cluster_resamples=20)
    assert {"icc", "design_effect", *PAIR_NAMES} <= set(audit.pairs.columns)
    assert audit.sections()["generations"].reported_pairs == 3


def test_nothing_changes_without_generations():
    rng = np.random.default_rng(0)
    matrix = from_array(rng.beta(4, 2, size=(200, 3)), models=["x", "y", "z"])
    audit = audit_leaderboard(matrix, "all", n_resamples=0)
    assert not set(PAIR_NAMES) & set(audit.pairs.columns)
    assert not set(MODEL_NAMES) & set(audit.ranking.columns)
    assert audit.headline.generations is None and "generations" not in audit.sections()


def test_several_blocks_give_the_rows_of_one(monkeypatch):
    matrix = matrix_of(raw_generations(7, False, True, n_items=80, n_models=5), False)
    whole = audit_leaderboard(matrix, "all", n_resamples=0)
    monkeypatch.setattr(blocks_module, "PAIR_BLOCK", 3)  # 10 pairs in blocks of 3, 3, 3 and 1
    blocks = []
    streamed = stream_audit(matrix, blocks.append, "all", n_resamples=0)
    assert len(blocks) == 4
    pd.testing.assert_frame_equal(pd.concat(blocks, ignore_index=True), whole.pairs)
    pd.testing.assert_frame_equal(audit_leaderboard(matrix, "all", n_resamples=0).pairs, whole.pairs)
    assert streamed.sections()["generations"] == whole.sections()["generations"]


def test_parquet_holds_the_columns_and_the_summary(tmp_path):
    pytest.importorskip("pyarrow")
    matrix = matrix_of(raw_generations(8, True, False, n_items=60, n_models=3), True)
    settings = AuditSettings(mode="all", n_resamples=0)
    write(AuditRequest(matrix, settings), "parquet", tmp_path / "audit.parquet")
    table = pd.read_parquet(tmp_path / "audit.parquet")
    audit = audit_leaderboard(matrix, "all", n_resamples=0)
    pd.testing.assert_frame_equal(table[PAIR_NAMES], audit.pairs[PAIR_NAMES])
    document = read_audit_metadata(tmp_path / "audit.parquet")
    assert document["generations"]["reported_pairs"] == 3
    assert set(document["generations"]["models"]) == set(matrix.models)


def test_the_dask_backend_gives_the_local_columns(monkeypatch):
    pytest.importorskip("dask.distributed")
    from llm_power_verified.parallel import DaskBackend

    matrix = matrix_of(raw_generations(9, False, False, n_items=60, n_models=4), False)
    monkeypatch.setattr(blocks_module, "PAIR_BLOCK", 2)
    local = audit_leaderboard(matrix, "all", n_resamples=0)
    with DaskBackend(workers=1) as backend:
        remote = audit_leaderboard(matrix, "all", n_resamples=0, backend=backend)
    pd.testing.assert_frame_equal(remote.pairs[PAIR_NAMES], local.pairs[PAIR_NAMES])
    assert remote.headline == local.headline


def _clustered_raw(seed: int = 4, n_items: int = 200, n_clusters: int = 10) -> tuple[pd.DataFrame, list[str]]:
    """Two models, 0/1 generations; model A has a per-cluster effect (a design effect well above 1)."""
    rng = np.random.default_rng(seed)
    cluster = np.arange(n_items) // (n_items // n_clusters)
    effect = rng.normal(0.0, 0.8, n_clusters)[cluster]
    item = rng.normal(0.0, 0.5, n_items)
    rows = []
    for i in range(n_items):
        for m, logit in enumerate((item[i] + effect[i] + 0.3, item[i])):
            p = 1.0 / (1.0 + np.exp(-logit))
            rows += [(f"i{i:03d}", f"m{m}", g, float(rng.random() < p)) for g in range(8)]
    return pd.DataFrame(rows, columns=["item", "model", "epoch", "score"]), [f"c{c}" for c in cluster]


def test_with_clusters_the_q_limit_takes_the_design_effect():
    raw, clusters = _clustered_raw()
    audit = audit_leaderboard(matrix_of(raw, True, clusters), "all", n_resamples=0, n_cluster_resamples=0)
    pair = audit.pairs.iloc[0]
    assert pair["design_effect"] > 2, "the seed gives a clear cluster effect"
    variance = pair["gap_between_variance"] + pair["gap_within_part"]
    scale = 200 * pair["delta"] ** 2 / (norm.ppf(0.975) + norm.ppf(0.8)) ** 2
    expected = scale / (max(pair["gap_between_variance"], 0.0) + (pair["design_effect"] - 1) * variance)
    # 1e-12 relative: the same closed form through the generated resolution ratio (a few roundings apart).
    np.testing.assert_allclose(pair["q_clustered_generations_inf"], expected, rtol=1e-12)
    assert pair["q_clustered_generations_inf"] < pair["q_generations_inf"]
    # At the data's 8 generations (sigma_item^2 >= 0 here) the clustered curve is q / deff; 1e-9 relative: the
    # audit's q comes from z_Wald of the paired t, another route to the same variance.
    assert pair["gap_between_variance"] > 0
    at_data = clustered_curve(200, audit.pairs, 0.05, 0.8, (8,))[0, 0]
    np.testing.assert_allclose(at_data, pair["q"] / pair["design_effect"], rtol=1e-9)
    summary = audit.headline.generations
    assert summary.design_effect_median == pair["design_effect"]
    np.testing.assert_allclose(summary.q_limit_ratio, expected / at_data, rtol=1e-9)  # as above
    independent = audit_leaderboard(matrix_of(raw, True), "all", n_resamples=0)
    assert independent.pairs["q_clustered_generations_inf"].isna().all()
    assert independent.headline.generations.design_effect_median is None


def test_item_mean_differences_that_do_not_vary_while_generations_do_are_noted():
    # Every item: A scores 1,0,1,0 and B 1,0,0,0, so every difference of item means is 0.25 (variance 0).
    pattern = {"A": (1.0, 0.0, 1.0, 0.0), "B": (1.0, 0.0, 0.0, 0.0)}
    raw = pd.DataFrame(
        [(f"i{i}", m, g, s) for i in range(30) for m, scores in pattern.items() for g, s in enumerate(scores)],
        columns=["item", "model", "epoch", "score"],
    )
    audit = audit_leaderboard(matrix_of(raw, True), "all", n_resamples=0)
    assert audit.headline.generations.flat_gaps == 1
    note = next(note for note in audit.notes if "do not vary although their generations do" in note)
    assert note.startswith("1 of 1 reported pairs") and "more items are needed" in note
    section = generations_section(audit, {}, "", False)
    assert any(
        line.startswith("Item-mean differences that do not vary although the generations do: A vs B")
        for line in section
    )
