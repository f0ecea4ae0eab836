"""``z_wald``: the Wald z of the observed gap, and q as its re-expression (q = z^2 / (z_{1-alpha/2} + z_{1-beta})^2)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from llm_power_verified._generated.wald import z_wald
from llm_power_verified.io import from_array
from llm_power_verified.leaderboard.audit import audit_leaderboard


def _matrix(graded: bool, seed: int = 11, items: int = 800, models: int = 5):
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(items, 1)) + np.linspace(0.4, -0.4, models)[None, :] + rng.normal(size=(items, models))
    scores = 1 / (1 + np.exp(-latent)) if graded else (latent > 0).astype(float)
    return from_array(scores, models=[f"m{k}" for k in range(models)], item_ids=[f"i{k:04d}" for k in range(items)])


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("alpha, power", [(0.05, 0.8), (0.01, 0.9)])
def test_q_at_the_observed_gap_is_the_wald_z_squared_over_the_planning_constant(graded, alpha, power):
    pairs = audit_leaderboard(_matrix(graded), "all", alpha=alpha, power=power, n_resamples=0).pairs
    # Independent of the package: the Wald z from the per-item differences' variance, straight from its definition.
    z = pairs["delta"] / np.sqrt(pairs["variance"] / pairs["n"])
    # rel 1e-12: z is one division and one square root of the same doubles; q goes through N* (a few roundings more).
    np.testing.assert_allclose(pairs["z_wald"], z, rtol=1e-12)
    constant = (norm.ppf(1 - alpha / 2) + norm.ppf(power)) ** 2
    np.testing.assert_allclose(pairs["q"], pairs["z_wald"] ** 2 / constant, rtol=1e-12)


@pytest.mark.parametrize("graded", [False, True])
def test_the_column_is_the_generated_function(graded):
    """The column is derivations/wald.py's z_wald, evaluated on the column's own delta, variance and n, bit for bit."""
    pairs = audit_leaderboard(_matrix(graded), "all", n_resamples=0).pairs
    gap = pairs["delta"].to_numpy()
    assert np.count_nonzero(gap) > 0
    expected = z_wald(pairs["variance"].to_numpy(), gap, pairs["n"].to_numpy())
    np.testing.assert_array_equal(pairs["z_wald"].to_numpy()[gap != 0], expected[gap != 0])


def test_no_gap_is_z_zero_and_a_constant_difference_is_infinite():
    scores = np.zeros((50, 3))
    scores[:, 0] = 1.0  # model 0 solves every item, model 1 none: every item differs by +1 (variance 0)
    pairs = audit_leaderboard(from_array(scores, models=["a", "b", "c"]), "all", n_resamples=0).pairs
    by_pair = {(row.model_a, row.model_b): row.z_wald for row in pairs.itertuples()}
    assert by_pair[("a", "b")] == by_pair[("a", "c")] == np.inf
    assert [value for key, value in by_pair.items() if "a" not in key] == [0.0]  # b and c never differ: z = 0, not NaN
