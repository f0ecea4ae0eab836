"""``compare`` with clusters: the cluster-robust interval against statsmodels, the pair's design effect against the
ANOVA F statistic, the refusals, and the header's levels per mode."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.regression.linear_model import OLS

from llm_power_verified.comparison import compare
from llm_power_verified.comparison.clustered import cluster_robust, pair_design_effect
from llm_power_verified.comparison.record import exact, percent, report
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io import from_array


def _clustered(seed: int, kind: str, n_clusters: int = 9):
    """A two-model matrix (baseline, candidate) whose per-item gap shifts by cluster; unequal cluster sizes."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 60, n_clusters)
    labels = np.repeat([f"g{index}" for index in range(n_clusters)], sizes)
    shift = np.repeat(rng.normal(0, 0.15, n_clusters), sizes)
    baseline = rng.uniform(0.2, 0.8, labels.size)
    candidate = np.clip(baseline + 0.03 + shift + rng.normal(0, 0.1, labels.size), 0, 1)
    if kind == "binary":
        baseline = (rng.random(labels.size) < baseline).astype(float)
        candidate = (rng.random(labels.size) < candidate).astype(float)
    scores = np.column_stack([baseline, candidate])
    return from_array(scores, models=["base", "cand"], clusters=list(labels), score_kind=kind), labels


def _statsmodels(differences, labels):
    groups = np.unique(labels, return_inverse=True)[1]
    fit = OLS(differences, np.ones_like(differences)).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    return fit


@pytest.mark.parametrize("kind", ["binary", "graded"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_cluster_robust_interval_is_statsmodels_cluster_ols_of_the_differences(kind, seed):
    matrix, labels = _clustered(seed, kind)
    differences = matrix.scores[:, 1] - matrix.scores[:, 0]
    fit = _statsmodels(differences, labels)
    (low, high), p_low, p_high, se, groups = cluster_robust(differences, labels, (-0.02, 0.02), 0.9)
    # Same closed form, different code paths (statsmodels' sandwich): agreement to rounding, 1e-12 relative.
    assert se == pytest.approx(float(fit.bse[0]), rel=1e-12) and groups == 9
    assert (low, high) == pytest.approx(tuple(fit.conf_int(alpha=0.1)[0]), rel=1e-12, abs=1e-15)
    for bound, p, side in ((-0.02, p_low, "larger"), (0.02, p_high, "smaller")):
        tested = fit.t_test(([1.0], [bound]))
        t_value, two_sided = float(np.squeeze(tested.tvalue)), float(np.squeeze(tested.pvalue))
        one_sided = two_sided / 2 if (t_value > 0) == (side == "larger") else 1 - two_sided / 2
        assert p == pytest.approx(one_sided, rel=1e-9, abs=1e-15)  # statsmodels' t cdf against scipy's
    result = compare(matrix, "base", "cand", "equivalence", 0.02, method="cluster")
    assert (result.interval_low, result.interval_high, result.p_low, result.p_high) == pytest.approx(
        (low, high, p_low, p_high), rel=1e-15, abs=1e-15
    )  # the same function, no recomputation
    assert result.method == "cluster" and "cluster-robust" in result.notes[-1]


@pytest.mark.parametrize("seed", [4, 5])
def test_the_design_effect_is_the_anova_icc_at_the_size_weighted_size(seed):
    """ICC from the one-way ANOVA F statistic (scipy), (F - 1) / (F + n0 - 1); DE = 1 + (m_w - 1) max(ICC, 0)."""
    matrix, labels = _clustered(seed, "graded")
    differences = matrix.scores[:, 1] - matrix.scores[:, 0]
    names = np.unique(labels)
    sizes = np.array([np.sum(labels == name) for name in names], dtype=float)
    f_value = stats.f_oneway(*(differences[labels == name] for name in names)).statistic
    n = differences.size
    n0 = (n - np.sum(sizes**2) / n) / (names.size - 1)
    icc = (f_value - 1) / (f_value + n0 - 1)
    effect, found_icc, groups = pair_design_effect(differences, labels)
    assert found_icc == pytest.approx(icc, rel=1e-9)  # two algebraic routes to the same ratio
    assert effect == pytest.approx(1 + (np.sum(sizes**2) / n - 1) * max(icc, 0.0), rel=1e-9)
    assert groups == names.size and effect > 1.5  # the constructed cluster shifts make the ICC clearly positive


def test_the_clusters_note_carries_the_design_effect_and_the_cluster_method_is_refused_without_clusters():
    matrix, labels = _clustered(6, "binary")
    result = compare(matrix, "base", "cand")
    effect = pair_design_effect(matrix.scores[:, 1] - matrix.scores[:, 0], labels)[0]
    note = next(note for note in result.notes if note.startswith("clusters: "))
    assert f"design effect {effect:.2f}" in note and "--method cluster" in note
    plain = from_array(matrix.scores, models=["base", "cand"])
    with pytest.raises(ArgumentError, match="--method cluster needs the items' clusters"):
        compare(plain, "base", "cand", method="cluster")
    with pytest.raises(ArgumentError, match="at least 2 clusters"):
        cluster_robust([0.1, 0.2, 0.3], ["a", "a", "a"], (0, 0), 0.9)


def test_the_header_words_alpha_for_each_mode_and_prints_the_values_used():
    matrix, _ = _clustered(7, "binary")
    fixed = report(compare(matrix, "base", "cand"))
    assert "alpha 0.05 per one-sided test (the ends of the 90% interval)" in fixed
    anytime = report(compare(matrix, "base", "cand", anytime=True))
    assert "alpha 0.05 for the whole sequence (the 95% confidence sequence" in anytime
    assert "per one-sided test" not in anytime
    alpha = 0.4999999999999999
    text = report(compare(matrix, "base", "cand", alpha=alpha))
    assert f"alpha {alpha!r} per one-sided" in text and "alpha 0.5 " not in text
    level = percent(1 - 2 * alpha)
    assert float(level[:-1]) / 100 == 1 - 2 * alpha and f"at {level} " in text  # reads back as the level used
    assert exact(0.05) == "0.05" and float(exact(0.1 + 0.2)) == 0.1 + 0.2
