"""significant_clustered: the declared correction over the declared family, as for significant (finding F-C)."""

import numpy as np
import pytest

from llm_power_verified.io import from_array
from llm_power_verified.leaderboard import audit_leaderboard
from llm_power_verified.leaderboard.decisions import add_cluster_decisions


def _clustered_matrix(seed: int):
    """Six models of close accuracy on 600 items in 12 clusters of unequal sizes, so that some gaps sit near alpha."""
    rng = np.random.default_rng(seed)
    scores = (rng.random((600, 6)) < [0.74, 0.72, 0.70, 0.67, 0.66, 0.60]).astype(float)
    labels = np.repeat(np.arange(12), [10, 20, 30, 40, 50, 60, 70, 80, 60, 70, 60, 50])
    return from_array(scores, models=[f"m{k}" for k in range(6)], clusters=[f"c{label}" for label in labels])


# (mode, family) where every pair of the family is reported, so that Holm and BH see the whole family.
CASES = [("adjacent", "adjacent"), ("all", "all"), ("all", "adjacent"), ("reference", "reference")]


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "sidak", "bh", "none"])
@pytest.mark.parametrize(("mode", "family"), CASES)
def test_design_effect_one_gives_significant_pair_by_pair(correction, mode, family):
    for seed in range(3):
        matrix = _clustered_matrix(seed)
        reference = "m5" if mode == "reference" else None
        pairs = audit_leaderboard(
            matrix,
            mode,
            family=family,
            reference=reference,
            correction=correction,
            n_resamples=0,
            n_cluster_resamples=0,
        ).pairs.copy()
        pairs["design_effect"] = 1.0
        family_size = int(pairs["p_holm"].notna().sum())
        add_cluster_decisions(pairs, True, correction, 0.05, family_size)
        assert pairs["significant_clustered"].tolist() == pairs["significant"].tolist()
        # p_cluster at DE 1 is the exact p through its z and back: within 1e-9 relative (ndtri/ndtr round trip).
        np.testing.assert_allclose(pairs["p_cluster"], pairs["p_exact"], rtol=1e-9)


def test_shipped_like_holm_pair_keeps_significance_at_design_effect_one():
    """The newcomer's case: Holm-significant, DE 1, Bonferroni-insignificant; clustering must not flip it."""
    import pandas as pd

    pairs = pd.DataFrame(
        {
            "log_p_exact": np.log([0.001, 0.0078, 0.04]),
            "design_effect": [1.0, 1.0, 1.0],
            "p_holm": [0.003, 0.0156, 0.04],
        }
    )
    add_cluster_decisions(pairs, True, "holm", 0.05, 3)
    assert pairs["significant_clustered"].tolist() == [True, True, True]
    add_cluster_decisions(pairs, True, "bonferroni", 0.05, 3)
    assert pairs["significant_clustered"].tolist() == [True, True, False]


def test_outside_family_is_none_and_none_correction_is_plain():
    matrix = _clustered_matrix(0)
    audit = audit_leaderboard(matrix, "all", family="adjacent", n_resamples=0, n_cluster_resamples=0)
    outside = audit.pairs["p_holm"].isna()
    assert outside.any() and (~outside).any()
    assert all(value is None for value in audit.pairs.loc[outside, "significant_clustered"])
    plain = audit_leaderboard(matrix, "all", family="adjacent", correction="none", n_resamples=0, n_cluster_resamples=0)
    assert plain.pairs["significant_clustered"].tolist() == (plain.pairs["p_cluster"] <= 0.05).tolist()


def test_larger_design_effect_never_gains_significance():
    matrix = _clustered_matrix(1)
    pairs = audit_leaderboard(matrix, "all", n_resamples=0, n_cluster_resamples=0).pairs.copy()
    base = pairs.copy()
    base["design_effect"] = 1.0
    add_cluster_decisions(base, True, "holm", 0.05, len(pairs))
    pairs["design_effect"] = 3.0
    add_cluster_decisions(pairs, True, "holm", 0.05, len(pairs))
    assert not np.any(pairs["significant_clustered"].to_numpy(bool) & ~base["significant_clustered"].to_numpy(bool))
    assert np.all(pairs["p_cluster"] >= base["p_cluster"])
