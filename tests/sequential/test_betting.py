"""Anytime-valid inference for graded differences: the betting capital against a literal 50-digit transcription,
the empirical-Bernstein sequence against a plain loop, type-I error under optional stopping (binomial test of
the rejection count on simulated null paths) and the width against the Hoeffding-type sequence."""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest
from scipy import stats

import llm_power_verified as lpv
from llm_power_verified.cli import main
from llm_power_verified.io import from_array
from llm_power_verified.sequential import confidence_sequence, e_bh
from llm_power_verified.sequential.betting import (
    betting_confidence_sequence,
    betting_e_process,
    betting_log_e,
    empirical_bernstein_confidence_sequence,
    empirical_bernstein_log_e,
)


def _literal_capital(differences, m, alpha=0.05, c=0.5, digits=50):
    """Waudby-Smith and Ramdas (2024), hedged capital with predictable plug-in bets, transcribed in mpmath.

    The transcription goes item by item.
    """
    with mpmath.workdps(digits):
        m = mpmath.mpf(m)
        up = down = mpmath.mpf(1)
        total, residuals = mpmath.mpf(0), mpmath.mpf(0)
        variance_before = mpmath.mpf("0.25")
        for i, d in enumerate(differences, start=1):
            x = (mpmath.mpf(d) + 1) / 2
            bet = mpmath.sqrt(2 * mpmath.log(2 / mpmath.mpf(alpha)) / (variance_before * i * mpmath.log(1 + i)))
            up *= 1 + min(bet, c / m) * (x - m)
            down *= 1 - min(bet, c / (1 - m)) * (x - m)
            total += x
            mean = (mpmath.mpf("0.5") + total) / (i + 1)
            residuals += (x - mean) ** 2
            variance_before = (mpmath.mpf("0.25") + residuals) / (i + 1)
        return mpmath.log((up + down) / 2)


@pytest.fixture(scope="module")
def path():
    rng = np.random.default_rng(11)
    a = np.clip(0.7 + 0.15 * rng.standard_normal(300), 0, 1)
    return a - np.clip(a - 0.05 + 0.12 * rng.standard_normal(300), 0, 1)


def test_betting_e_process_matches_the_literal_transcription(path):
    log_e = betting_log_e(path)
    for t in (1, 2, 17, 150, 300):
        assert log_e[t - 1] == pytest.approx(float(_literal_capital(path[:t], 0.5)), rel=1e-10, abs=1e-12)


def test_betting_confidence_sequence_endpoints_are_where_the_capital_reaches_one_over_alpha(path):
    sequence = betting_confidence_sequence(path, refine_at=[150, 300])
    threshold = math.log(20)
    for t in (150, 300):
        for end, inward in ((sequence.lower[t - 1], 1), (sequence.upper[t - 1], -1)):
            m = (end + 1) / 2
            assert float(_literal_capital(path[:t], m)) >= threshold - 1e-9
            assert float(_literal_capital(path[:t], m + inward * 1e-6)) < threshold
    # At every other t the grid hull holds the exact set: the capital at the reported ends is at least 1/alpha (or the
    # end is +/-1).
    for t in (40, 90, 220):
        for end in (sequence.lower[t - 1], sequence.upper[t - 1]):
            assert abs(end) == 1 or float(_literal_capital(path[:t], (end + 1) / 2)) >= threshold - 1e-9


def test_empirical_bernstein_matches_a_plain_loop(path):
    sequence = empirical_bernstein_confidence_sequence(path)
    alpha, mean, residuals, total = 0.05, 0.5, 0.0, 0.0
    variance, weighted, weights, penalty = 0.25, 0.0, 0.0, 0.0
    for i, d in enumerate(path, start=1):
        x = (d + 1) / 2
        bet = min(math.sqrt(2 * math.log(2 / alpha) / (variance * i * math.log(1 + i))), 0.5)
        penalty += 4 * (x - mean) ** 2 * (-math.log(1 - bet) - bet) / 4
        weighted, weights = weighted + bet * x, weights + bet
        centre, radius = weighted / weights, (math.log(2 / alpha) + penalty) / weights
        low, high = max(centre - radius, 0.0), min(centre + radius, 1.0)
        assert sequence.lower[i - 1] == pytest.approx(2 * low - 1, abs=1e-12)
        assert sequence.upper[i - 1] == pytest.approx(2 * high - 1, abs=1e-12)
        total += x
        mean = (0.5 + total) / (i + 1)
        residuals += (x - mean) ** 2
        variance = (0.25 + residuals) / (i + 1)


def _null_paths(kind, paths, items, rng):
    """Paired differences with mean exactly 0: exchangeable graded scores, or a skewed difference centred exactly."""
    if kind == "exchangeable":
        # Two graded scores with the same law, correlated 0.6, clipped to [0, 1]: the pair is exchangeable, so D is
        # symmetric.
        z = rng.standard_normal((paths, items, 2))
        z[..., 1] = 0.6 * z[..., 0] + 0.8 * z[..., 1]
        scores = np.clip(0.7 + 0.2 * z, 0.0, 1.0)
        return scores[..., 0] - scores[..., 1]
    # 0.9 with probability 1/10, -0.1 otherwise: mean 0, skewed, far from the worst case of [-1, 1].
    return np.where(rng.random((paths, items)) < 0.1, 0.9, -0.1)


@pytest.mark.parametrize("kind", ["exchangeable", "skewed"])
@pytest.mark.parametrize("method", ["betting", "empirical-bernstein"])
def test_type_one_error_under_optional_stopping(kind, method):
    """Reject at the first t with e_t >= 1/alpha; the rejection count must not exceed alpha's.

    Rejecting at the first such t is the worst stopping rule.
    """
    rng = np.random.default_rng(2026)
    paths, items, alpha = 1000, 2000, 0.05
    differences = _null_paths(kind, paths, items, rng)
    log_e = betting_log_e(differences, alpha) if method == "betting" else empirical_bernstein_log_e(differences, alpha)
    rejections = int((log_e.max(axis=1) >= math.log(1 / alpha)).sum())
    assert stats.binomtest(rejections, paths, alpha, alternative="greater").pvalue > 0.01, rejections


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["exchangeable", "skewed"])
def test_type_one_error_under_optional_stopping_long_paths(kind):
    rng = np.random.default_rng(7)
    rejections, paths = 0, 0
    for _ in range(20):
        differences = _null_paths(kind, 500, 10_000, rng)
        rejections += int((betting_log_e(differences).max(axis=1) >= math.log(20)).sum())
        paths += 500
    assert stats.binomtest(rejections, paths, 0.05, alternative="greater").pvalue > 0.01, rejections


def test_power_and_width_against_the_hoeffding_sequence():
    rng = np.random.default_rng(3)
    differences = np.clip(0.03 + 0.15 * rng.standard_normal((200, 2000)), -1, 1)
    assert (betting_log_e(differences).max(axis=1) >= math.log(20)).mean() > 0.9
    one = differences[0]
    hoeffding = confidence_sequence(one)
    for sequence in (betting_confidence_sequence(one), empirical_bernstein_confidence_sequence(one)):
        assert sequence.lower[-1] <= one.mean() <= sequence.upper[-1]
        assert (sequence.upper[-1] - sequence.lower[-1]) < 0.5 * (hoeffding.upper[-1] - hoeffding.lower[-1])


def test_bad_differences_are_refused_by_index():
    with pytest.raises(ValueError, match=r"differences must lie in \[-1, 1\]; got 1.5 at index 2"):
        betting_log_e([0.1, 0.2, 1.5])
    with pytest.raises(ValueError, match="method must be 'betting' or 'empirical-bernstein'"):
        betting_e_process([0.1], method="hoeffding")


def test_graded_audit_uses_betting_e_values_and_e_bh():
    rng = np.random.default_rng(4)
    base = rng.uniform(0.3, 0.9, (1500, 1))
    scores = np.clip(base + np.array([0.0, 0.004, 0.03, 0.06]) + 0.1 * rng.standard_normal((1500, 4)), 0, 1)
    # Item ids "0".."1499" sort as text ("0", "1", "10", "100", ...): the audit's declared monitoring order.
    ids = [str(k) for k in range(1500)]
    result = lpv.audit_leaderboard(
        from_array(scores, models=["w", "x", "y", "z"], item_ids=ids), mode="all", n_resamples=0
    )
    pairs = result.pairs
    index = {name: k for k, name in enumerate(["w", "x", "y", "z"])}
    order = np.argsort(np.asarray(ids, dtype=str), kind="stable")
    for _, row in pairs.iterrows():
        differences = (scores[:, index[row["model_a"]]] - scores[:, index[row["model_b"]]])[order]
        assert row["log_e"] == pytest.approx(betting_log_e(differences)[-1], rel=1e-12)
    np.testing.assert_array_equal(pairs["significant_anytime"].astype(bool), e_bh(pairs["log_e"].to_numpy()))
    assert pairs["significant_anytime"].any() and not pairs["significant_anytime"].all()


def test_monitor_graded_json(tmp_path, capsys):
    rng = np.random.default_rng(8)
    a = np.clip(0.6 + 0.2 * rng.standard_normal(1200), 0, 1)
    b = np.clip(a - 0.03 + 0.1 * rng.standard_normal(1200), 0, 1)
    for name, values in (("a.txt", a), ("b.txt", b)):
        (tmp_path / name).write_text("".join(f"{value:.6f}\n" for value in values))
    assert main(["monitor", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    log_e = betting_log_e(np.round(a, 6) - np.round(b, 6))
    crossed = np.flatnonzero(log_e >= math.log(20))
    assert report["summary"]["first_crossing"] == (int(crossed[0]) + 1 if crossed.size else None)
    widths = report["summary"]["width_at_n"]
    assert widths["betting"] < widths["hoeffding"] and widths["eb"] < widths["hoeffding"]
    assert main(["monitor", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--mixture", "beta"]) == 2
    assert "--mixture and --plot are for 0/1 scores" in capsys.readouterr().err


def test_betting_confidence_sequence_memory_is_bounded_by_the_block_not_the_path():
    """Peak allocation of a 60,000-item sequence stays near one block's (1,001 grid means x 4,096 items).

    The truncated bets were formed for the whole path at once, means x items x 8 bytes twice (16 KB per item: 16 GB
    at 10^6 items).  One block's arrays are about 1,001 x 4,096 x 8 bytes = 33 MB each, a handful alive at once;
    400 MB bounds them with room, far below the 960 MB the whole-path bets took here.
    """
    import tracemalloc

    path = np.random.default_rng(3).uniform(-1, 1, 60_000)
    tracemalloc.start()
    try:
        betting_confidence_sequence(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 400e6, f"peak {peak / 1e6:.0f} MB"
