"""The within/between split against an independent pandas computation on the raw generations.

The reference below never touches the package's estimators: it groups a long table of one row per generation by
(item, model) with pandas, takes each cell's mean, sample variance and count, and forms the method-of-moments
quantities of the plan's definitions directly.  The matrix handed to the split is built from the same rows by the
readers' :func:`~llm_power_verified.io.generations.cell_summaries`.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.generations import Generations, cell_summaries
from llm_power_verified.io.matrix import ScoreMatrix, from_array
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.repeats.split import CURVE_GENERATIONS, model_split, pair_split, resolution_curve

MODELS = ("alpha", "beta", "gamma", "delta")
#: Sums of a few hundred terms taken in another order: the two routes agree to a few ulps of the largest term.
RELATIVE = 1e-12


def _long_table(seed: int, binary: bool, equal: bool, n_items: int = 120) -> pd.DataFrame:
    """One row per generation: item, model, repeat, score (seeded two-level data)."""
    rng = np.random.default_rng(seed)
    rows = []
    item_effect = rng.normal(0.0, 0.8, n_items)
    for m, model in enumerate(MODELS):
        shift = 0.3 * m + 0.4 * rng.normal(0.0, 1.0, n_items)
        for i in range(n_items):
            count = 4 if equal else int(rng.integers(2, 7))
            if binary:
                probability = 1 / (1 + math.exp(-(item_effect[i] + shift[i] - 0.5)))
                scores = (rng.random(count) < probability).astype(float)
            else:
                # Graded scores in (0, 1), as the audit reads them: a logistic of a normal generation.
                scores = 1 / (1 + np.exp(-(item_effect[i] + shift[i] + rng.normal(0.0, 0.7, count))))
            rows += [(f"item{i:03d}", model, f"r{r}", float(score)) for r, score in enumerate(scores)]
    return pd.DataFrame(rows, columns=["item", "model", "repeat", "score"])


def _matrix(table: pd.DataFrame, binary: bool) -> ScoreMatrix:
    items = tuple(sorted(table["item"].unique()))
    rows = pd.Categorical(table["item"], categories=items).codes
    cols = pd.Categorical(table["model"], categories=MODELS).codes
    means, counts, within = cell_summaries(
        rows,
        cols,
        table["repeat"].to_numpy(),
        table["score"].to_numpy(),
        (len(items), len(MODELS)),
        describe=str,
        label="repeat",
    )
    generations = Generations(counts.astype(np.int64), within, binary=binary, label="repeat")
    return ScoreMatrix(means, MODELS, items, binary=False, source="generated.csv", generations=generations)


def _reference(table: pd.DataFrame) -> tuple[pd.DataFrame, dict[tuple[str, str], dict[str, float]]]:
    cells = table.groupby(["model", "item"])["score"].agg(["mean", "var", "count"]).reset_index()
    cells["part"] = cells["var"] / cells["count"]
    per_model = cells.groupby("model").agg(
        generations=("count", "mean"),
        within_variance=("var", "mean"),
        within_part=("part", "mean"),
        item_mean_variance=("mean", "var"),
    )
    per_model["between_variance"] = per_model["item_mean_variance"] - per_model["within_part"]
    per_model["generation_share"] = per_model["within_part"] / per_model["item_mean_variance"]
    means = cells.pivot(index="item", columns="model", values="mean")
    pairs = {}
    for a, b in combinations(MODELS, 2):
        gap_variance = (means[a] - means[b]).var()
        within_part = per_model.loc[a, "within_part"] + per_model.loc[b, "within_part"]
        pairs[a, b] = {
            "gap_variance": gap_variance,
            "within_part": within_part,
            "within_variance": per_model.loc[a, "within_variance"] + per_model.loc[b, "within_variance"],
            "between_variance": gap_variance - within_part,
            "generation_share": within_part / gap_variance,
        }
    return per_model.loc[list(MODELS)], pairs


def _close(ours: float, expected: float, scale: float) -> None:
    # A difference of two estimates (between = total - within) is compared on the scale of the total it came from.
    assert abs(ours - expected) <= RELATIVE * max(abs(expected), abs(scale)), (ours, expected)


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "graded"])
@pytest.mark.parametrize("equal", [True, False], ids=["equal-K", "unequal-K"])
def test_split_equals_an_independent_groupby(binary, equal):
    table = _long_table(seed=20261124 + 2 * binary + equal, binary=binary, equal=equal)
    matrix = _matrix(table, binary)
    per_model, pairs = _reference(table)
    split = model_split(matrix)
    for name in ("generations", "within_variance", "within_part", "item_mean_variance", "between_variance"):
        for k in range(len(MODELS)):
            _close(getattr(split, name)[k], per_model[name].iloc[k], per_model["item_mean_variance"].iloc[k])
    np.testing.assert_allclose(split.generation_share, per_model["generation_share"], rtol=RELATIVE)
    counts = table.groupby(["model", "item"]).size().groupby("model")
    assert split.fewest.tolist() == counts.min().loc[list(MODELS)].tolist()
    assert split.most.tolist() == counts.max().loc[list(MODELS)].tolist()
    first, second = np.array(list(combinations(range(len(MODELS)), 2))).T
    result = pair_split(matrix, first, second, split)
    for k, (a, b) in enumerate(combinations(MODELS, 2)):
        for name, expected in pairs[a, b].items():
            _close(getattr(result, name)[k], expected, pairs[a, b]["gap_variance"])


def test_blocks_give_the_same_gap_variances(monkeypatch):
    """Pairs formed in blocks of one pair give the values of one block holding them all."""
    import llm_power_verified.repeats.split as split_module

    matrix = _matrix(_long_table(seed=7, binary=False, equal=False, n_items=30), binary=False)
    first, second = np.array([0, 0, 1, 2, 3]), np.array([1, 3, 2, 3, 0])
    whole = pair_split(matrix, first, second)
    monkeypatch.setattr(split_module, "_BLOCK_CELLS", 1)
    blocked = pair_split(matrix, first, second)
    assert blocked.gap_variance.tolist() == whole.gap_variance.tolist()


def test_q_at_the_generations_read_is_the_audits_q():
    """Equal K: max(sigma_item^2, 0) + sigma_w^2 / K is the gap variance again, so q(K) is the audit's graded q."""
    table = _long_table(seed=11, binary=False, equal=True)
    matrix = _matrix(table, binary=False)
    audit = audit_leaderboard(matrix, mode="all", n_resamples=0)
    pairs = audit.pairs
    index = {name: k for k, name in enumerate(MODELS)}
    first = pairs["model_a"].map(index).to_numpy()
    second = pairs["model_b"].map(index).to_numpy()
    result = pair_split(matrix, first, second)
    assert (result.between_variance > 0).all()  # the identity needs a non-negative between part
    curve = resolution_curve(
        matrix.n_items,
        pairs["delta"],
        result.between_variance,
        result.within_variance,
        generations=(4, *CURVE_GENERATIONS),
    )
    # Subtracting and adding back the within part costs a few ulps of the gap variance (share < 1 here).
    np.testing.assert_allclose(curve[:, 0], pairs["q"], rtol=1e-12)
    np.testing.assert_allclose(result.gap_variance, pairs["variance"], rtol=1e-12)
    assert (np.diff(curve[:, 1:], axis=1) > 0).all()  # more generations: more resolution


def test_curve_limits():
    curve = resolution_curve([50, 50, 50], [0.2, 0.0, 0.2], [-0.01, 0.1, 0.0], [0.4, 0.4, 0.4])
    assert curve.shape == (3, len(CURVE_GENERATIONS))
    assert math.isinf(curve[2, -1]) and curve[2, 0] > 0  # no between part: unlimited generations resolve any gap
    assert math.isinf(curve[0, -1])  # a negative between estimate counts as 0
    assert (curve[1] == 0).all()  # no gap, no resolution
    np.testing.assert_allclose(curve[0, :-1], curve[2, :-1], rtol=0)


def test_a_matrix_without_generations_is_refused():
    matrix = from_array([[0.1, 0.2], [0.3, 0.5], [0.2, 0.2]], models=["a", "b"])
    with pytest.raises(ArgumentError, match="--repeat-column"):
        model_split(matrix)
    with pytest.raises(ArgumentError, match="--epochs all"):
        pair_split(matrix, [0], [1])


def test_bad_pair_indices_and_curve_arguments_are_refused():
    matrix = _matrix(_long_table(seed=3, binary=True, equal=True, n_items=10), binary=True)
    with pytest.raises(ArgumentError, match=r"second must hold model indices in \[0, 3\]; got 4"):
        pair_split(matrix, [0], [4])
    with pytest.raises(ArgumentError, match="one model index per pair"):
        pair_split(matrix, [0, 1], [2])
    with pytest.raises(ArgumentError, match="generations must be numbers >= 1"):
        resolution_curve(10, 0.1, 0.1, 0.1, generations=(0.5,))
    with pytest.raises(ArgumentError, match="within_variance must be >= 0"):
        resolution_curve(10, 0.1, 0.1, -0.1)
