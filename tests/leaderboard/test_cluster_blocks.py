"""The cluster diagnostics in blocks of pairs equal the one-block computation (issue 29, item 1)."""

import dataclasses
import itertools

import numpy as np
import pytest

from llm_power_verified.io import from_array
from llm_power_verified.leaderboard import blocks, cluster_blocks, clusters
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.leaderboard.cluster_blocks import bootstrap_blocks, column_quantiles
from llm_power_verified.numeric import quantiles


def _matrix(models, sizes, graded, seed):
    """Items in clusters of the given sizes; a cluster effect on the items' difficulty, so the ICCs are not all 0."""
    rng = np.random.default_rng(seed)
    labels = np.repeat([f"topic{g}" for g in range(len(sizes))], sizes)
    difficulty = rng.normal(size=(labels.size, 1)) + np.repeat(rng.normal(size=len(sizes)), sizes)[:, None]
    latent = difficulty + np.linspace(0.6, -0.6, models)[None, :] + rng.normal(size=(labels.size, models))
    scores = np.round(1 / (1 + np.exp(-latent)), 3) if graded else (latent > 0).astype(float)
    return from_array(scores, clusters=labels)


def _audit(matrix, n_cluster_resamples, mode="all"):
    result = audit_leaderboard(
        matrix, mode=mode, n_resamples=0, n_cluster_resamples=n_cluster_resamples, seed=11, correction="holm"
    )
    return result.pairs, dataclasses.asdict(result.clusters)


CASES = {
    "binary, unequal clusters": (70, [40, 7, 91, 23, 60], False, 200),
    "graded, unequal clusters": (66, [33, 12, 70, 41], True, 150),
    "binary, two clusters (no leave-one-out)": (64, [120, 81], False, 64),
    "graded, equal clusters, 16 resamples": (62, [30] * 6, True, 16),
    "binary, no bootstrap": (28, [50, 31, 77], False, 0),
    "binary, a handful of resamples (one block)": (20, [25, 40, 35], False, 5),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_blocked_equals_one_block(case, monkeypatch):
    models, sizes, graded, resamples = CASES[case]
    matrix = _matrix(models, sizes, graded, seed=len(case))
    one_pairs, one_summary = _audit(matrix, resamples)
    pair_count = len(one_pairs)
    assert len(bootstrap_blocks(pair_count, resamples)) == 1  # the default blocks hold these few pairs at once
    # Blocks of 64 pairs and a last block of at least 1,024 (the all-pairs product's last columns are computed by
    # BLAS edge code that a short last block does not reproduce): 14 or more blocks with 16 or more resamples.
    monkeypatch.setattr(blocks, "PAIR_BLOCK", 64)
    monkeypatch.setattr(cluster_blocks, "TAIL_PAIRS", 1024)
    # The ICCs, leave-one-cluster-out and the alternative definitions in blocks of about 64 pairs too.
    monkeypatch.setattr(clusters, "BLOCK_BYTES", 64 * 8 * clusters._ALIVE * len(sizes))
    if resamples >= cluster_blocks.MIN_BLOCKED_RESAMPLES:
        assert len(bootstrap_blocks(pair_count, resamples)) >= 14
    pairs, summary = _audit(matrix, resamples)
    assert list(pairs.columns) == list(one_pairs.columns)
    # Bit for bit with the OpenBLAS of the machine the layout was tuned on (checked there against 87be8bf); another
    # BLAS kernel may sum a block's G cluster terms in another order than the all-pairs product.  Each weighted sum
    # then differs by at most 2 gamma_G sum |w x| (Higham 2002, Eq. 3.5), about 1e-15 relative; the ICC's
    # (between - within) cancellation scales it by at most the ratio of the mean squares to their difference
    # (under 1e3 here): rtol 1e-9.  Decisions flip only for an N* x DE within that of N (not in these cases).
    for column in pairs.columns:
        if pairs[column].dtype.kind == "f":
            np.testing.assert_allclose(pairs[column], one_pairs[column], rtol=1e-9, atol=1e-12, err_msg=column)
        else:
            assert pairs[column].equals(one_pairs[column]), column
    _assert_close(summary, one_summary)  # counts, quantiles, leave-one-cluster-out, alternatives, medians
    if len(sizes) == 2:
        assert set(summary["leave_one_cluster_out"].values()) == {None}
    if resamples:
        assert "icc_p05" in pairs and summary["bootstrap"]["n_resamples"] == resamples
        assert np.all(pairs["icc_p05"] <= pairs["icc_p95"])
    else:
        assert "icc_p05" not in pairs and summary["bootstrap"] is None


def _assert_close(got, expected, where="summary"):
    """Equal structure; floats within the bound above (rtol 1e-9), everything else equal."""
    if isinstance(expected, dict):
        assert got.keys() == expected.keys(), where
        for key in expected:
            _assert_close(got[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected), where
        for index, (one, other) in enumerate(zip(got, expected, strict=True)):
            _assert_close(one, other, f"{where}[{index}]")
    elif isinstance(expected, float):
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12, nan_ok=True), where
    else:
        assert got == expected, where


def test_blocks_cover_the_pairs_aligned_with_a_long_last_block():
    for size, resamples in [(0, 1000), (1, 1000), (4095, 1000), (124_750, 1000), (50_000, 40), (300, 3)]:
        slices = bootstrap_blocks(size, resamples)
        assert slices[0].start == 0 and slices[-1].stop == size
        assert all(a.stop == b.start for a, b in itertools.pairwise(slices))
        assert all(s.start % cluster_blocks.ALIGN == 0 for s in slices)
        if len(slices) > 1:
            width = slices[0].stop
            assert width * resamples * 8 * cluster_blocks.ALIVE <= cluster_blocks.BLOCK_BYTES
            assert slices[-1].stop - slices[-1].start >= max(cluster_blocks.TAIL_PAIRS, 4 * resamples)


def _random_columns(rng, rows, columns):
    """Values with ties, signed zeros, infinities, NaN and the largest floats in some columns."""
    values = rng.normal(size=(rows, columns))
    values[:, ::3] = np.round(values[:, ::3], 1)  # ties
    values[:, 1::7] = 0.0
    values[: rows // 2, 1::7] = -0.0
    specials = [np.inf, -np.inf, np.nan, np.finfo(float).max, -np.finfo(float).max]
    for column in range(2, columns, 5):
        where = rng.choice(rows, size=rng.integers(1, max(2, rows // 3)), replace=False)
        values[where, column] = rng.choice(specials, size=where.size)
    # Sorted columns, and few values each many times.
    values[:, 3], values[:, 4] = np.sort(values[:, 3])[::-1], np.sort(values[:, 4])
    values[:, 6] = np.repeat(rng.normal(size=4), -(-rows // 4))[:rows]  # four values, each many times
    return values


@pytest.mark.parametrize("rows", [1, 2, 3, 20, 21, 999, 1000])
def test_column_quantiles_equal_numeric_quantiles(rows):
    rng = np.random.default_rng(rows)
    values = _random_columns(rng, rows, 300)
    scale = np.abs(rng.normal(size=300)) * 1e3
    scale[::4] = np.round(scale[::4])
    scale[5], scale[9], scale[13] = 0.0, np.inf, np.nan
    scale[17] = 1e305  # the scaled values overflow
    with np.errstate(invalid="ignore", over="ignore"):  # inf x 0 and overflowing products are part of the case
        scaled_values = scale[None, :] * values
    for levels in ([0.05, 0.95], [0.0, 0.5, 1.0], [0.25]):
        expected = quantiles(values, levels, axis=0)
        got, got_scaled = column_quantiles(values, levels, scale=scale)
        # Exact: the same order statistics and the same interpolation formula (NaN where NumPy gives NaN).
        assert np.array_equal(got, expected, equal_nan=True)
        assert np.array_equal(np.signbit(got), np.signbit(expected))
        assert np.array_equal(got_scaled, quantiles(scaled_values, levels, axis=0), equal_nan=True)
