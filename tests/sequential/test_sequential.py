"""Anytime-valid monitoring: e-values against 50-digit mpmath, Ville's bound by simulation, properties."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy.special import ndtri
from scipy.stats import binomtest

import llm_power_verified as lpv
from llm_power_verified.cli import main
from llm_power_verified.errors import ArgumentError
from llm_power_verified.sequential import (
    anytime_pvalue,
    confidence_sequence,
    e_bh,
    e_process,
    log_e_value,
    optional_stopping_calibration,
    required_n_anytime,
    required_n_anytime_simulated,
    threshold,
)
from tests.support import mpmath_oracle as reference


@st.composite
def counts(draw, largest=10**6):
    total = round(math.exp(draw(st.floats(0, math.log(largest)))))
    if draw(st.booleans()):
        spread = max(1, int(5 * math.sqrt(total)))
        b = min(total, max(0, total // 2 + draw(st.integers(-spread, spread))))
    else:
        b = draw(st.integers(0, total))
    return b, total - b


def _close(value: float, exact) -> None:
    """Relative error of e <= 1e-10 where e is a double (|log e| <= 700); of log e <= 1e-13 beyond."""
    exact = float(exact)
    if abs(exact) <= 700:
        assert abs(value - exact) <= 1e-10
    else:
        assert abs(value - exact) <= 1e-13 * abs(exact)


@example((500_000, 500_000))
@example((510_000, 490_000))
@example((999_990, 10))
@given(counts())
@pytest.mark.parametrize("mixture", ["grid", "two-point", "beta"])
def test_e_values_against_mpmath(mixture, pair):
    b, c = pair
    _close(float(log_e_value(b, c, mixture)), reference.log_e_value(b, c, mixture))


@given(counts(largest=10**5), st.floats(0.3, 5), st.floats(0.3, 5))
def test_beta_mixture_with_any_prior(pair, a, a2):
    b, c = pair
    _close(float(log_e_value(b, c, "beta", (a, a2))), reference.log_e_value(b, c, "beta", (a, a2)))


@pytest.mark.parametrize("n", [1, 2, 7, 10, 55, 100, 1000, 12032, 60001])
def test_threshold_against_mpmath(n):
    exact = reference.threshold(n)
    value = float(threshold(n))
    assert (math.isinf(value) and exact == mpmath_inf()) or abs(value - float(exact)) <= 1e-12 * max(1.0, float(exact))


def mpmath_inf():
    import mpmath

    return mpmath.inf


def test_symmetry_and_monotonicity():
    for mixture in ("grid", "two-point", "beta"):
        for b, c in [(30, 10), (400, 380), (5, 0)]:
            assert float(log_e_value(b, c, mixture)) == pytest.approx(float(log_e_value(c, b, mixture)), abs=1e-12)
        # for fixed n the e-value grows as the split moves away from n/2
        n = 200
        splits = np.arange(100, 201)
        values = np.asarray(log_e_value(splits, n - splits, mixture))
        assert np.all(np.diff(values) > 0)
    # an asymmetric Beta prior: swapping the models swaps the prior parameters
    assert float(log_e_value(30, 10, "beta", (2, 1))) == pytest.approx(
        float(log_e_value(10, 30, "beta", (1, 2))), abs=1e-12
    )


def test_villes_bound_under_optional_stopping_and_the_peeked_chi2():
    """Under H0 with 40 looks: the e-process stays at or below alpha; a chi-square peeked at the same looks does not."""
    result = optional_stopping_calibration(
        n_items=1200, looks=40, p10=0.15, p01=0.15, n_simulations=2000, seed=20261121
    )
    n = result["n_simulations"]
    assert binomtest(result["e_process_any_item"], n, 0.05, alternative="greater").pvalue > 0.001
    assert result["e_process_at_looks"] <= result["e_process_any_item"]
    assert binomtest(result["peeked_chi2"], n, 0.05, alternative="greater").pvalue < 1e-6


@pytest.mark.slow
def test_villes_bound_large():
    result = optional_stopping_calibration(n_items=2500, looks=100, p10=0.2, p01=0.2, n_simulations=2000, seed=7)
    assert binomtest(result["e_process_any_item"], 2000, 0.05, alternative="greater").pvalue > 0.001


def test_confidence_sequence_is_time_uniform():
    """300 seeded paths of 2000 items: the share whose sequence ever excludes the true mean is at most alpha."""
    rng = np.random.default_rng(11)
    truth = 0.12 - 0.08
    misses = 0
    for _ in range(300):
        cells = rng.choice([1, -1, 0], size=2000, p=[0.12, 0.08, 0.80])
        sequence = confidence_sequence(cells, 0.05)
        misses += bool(np.any((sequence.lower > truth) | (sequence.upper < truth)))
    assert binomtest(misses, 300, 0.05, alternative="greater").pvalue > 0.001


def test_trajectory_and_anytime_pvalue():
    a = np.array([1, 1, 0, 1, 1, 0, 1, 1, 1, 0] * 30)
    b = np.array([0, 1, 0, 0, 1, 1, 0, 1, 0, 0] * 30)
    path = e_process(a, b)
    assert path.b[-1] == 120 and path.c[-1] == 30
    assert path.log_e[-1] == pytest.approx(float(log_e_value(120, 30)))
    assert anytime_pvalue(path.log_e) == pytest.approx(min(1.0, math.exp(-path.log_e.max())))


def test_e_bh_definition():
    rng = np.random.default_rng(2)
    for _ in range(50):
        log_e = rng.normal(1.5, 2, size=12)
        rejected = e_bh(log_e, 0.1)
        k = int(rejected.sum())
        ordered = np.sort(np.exp(log_e))[::-1]
        passes = [kk for kk in range(1, 13) if ordered[kk - 1] >= 12 / (0.1 * kk)]
        assert k == (max(passes) if passes else 0)
        if k:
            assert np.exp(log_e[rejected]).min() >= np.exp(log_e[~rejected]).max(initial=0)


def test_anytime_required_n_exceeds_fixed_and_simulation_agrees_in_scale():
    fixed = lpv.required_n_from_counts(1680, 1454, 12032)
    anytime = required_n_anytime(1680, 1454, 12032)
    assert anytime > fixed
    simulated = required_n_anytime_simulated(1680, 1454, 12032, n_simulations=400, seed=3)
    assert simulated["crossed"] > 0.95
    assert 0.5 < simulated["required_n"] / anytime < 1.5
    assert required_n_anytime(1449, 1439, 12032) == math.inf  # theta = 0.5017: the grid's e-process drifts down


def test_audit_has_the_anytime_column():
    from llm_power_verified.examples import shipped_example
    from llm_power_verified.leaderboard.audit import audit_leaderboard

    result = audit_leaderboard(shipped_example(clusters=False), "adjacent", n_resamples=0)
    assert result.verdicts.anytime_valid == int((result.pairs["required_n_anytime"] > 12032).sum())
    assert np.all(result.pairs["required_n_anytime"] >= result.pairs["required_n"])
    assert result.multiplicity.e_bh_rejections is not None


def test_cli_monitor(tmp_path, capsys):
    rng = np.random.default_rng(0)
    a = (rng.random(2000) < 0.7).astype(int)
    b = np.where(rng.random(2000) < 0.5, a, (rng.random(2000) < 0.55).astype(int))
    np.savetxt(tmp_path / "a.txt", a, fmt="%d")
    np.savetxt(tmp_path / "b.txt", b, fmt="%d")
    assert (
        main(["monitor", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--json", "--plot", str(tmp_path / "m.png")])
        == 0
    )
    document = json.loads(capsys.readouterr().out)
    path = e_process(a, b)
    assert document["summary"]["p_anytime_running"] == pytest.approx(anytime_pvalue(path.log_e))
    assert document["summary"]["p_anytime_at_n"] == pytest.approx(min(1.0, math.exp(-path.log_e[-1])))
    assert document["summary"]["p_anytime_running"] <= document["summary"]["p_anytime_at_n"]
    first = document["summary"]["first_crossing"]
    assert first is not None and path.log_e[first - 1] >= math.log(20) > path.log_e[: first - 1].max()
    assert (tmp_path / "m.png").read_bytes()[:4] == b"\x89PNG"


def test_anytime_n_of_a_pair_does_not_depend_on_the_other_pairs():
    """The threshold grid above m = 4,096 is fixed, so a batch with a much larger m does not move this pair's N_av."""
    from llm_power_verified.sequential.thresholds import ThresholdTable

    alone = required_n_anytime(1680, 1454, 12032)
    batch = required_n_anytime([1680, 400_000], [1454, 398_000], [12032, 2_000_000])
    fresh = required_n_anytime(1680, 1454, 12032, table=ThresholdTable(0.05, "grid", (1.0, 1.0)))
    assert batch[0] == alone == fresh


def test_audit_computes_one_count_matrix(monkeypatch):
    """The K x K both-correct counts are built once per audit and passed down (no cache to leave behind)."""
    from llm_power_verified.examples import shipped_example
    from llm_power_verified.leaderboard import contingency
    from llm_power_verified.leaderboard.audit import audit_leaderboard

    calls = []
    original = contingency._both_correct
    monkeypatch.setattr(contingency, "_both_correct", lambda scores, rows: calls.append(1) or original(scores, rows))
    result = audit_leaderboard(shipped_example(clusters=False), "all", n_resamples=0)
    assert len(calls) == 1 and len(result.pairs) == 45


# ---------------------------------------------------------------------------- N_av: the first crossing, proven


def _first_crossing_by_scan(b: int, c: int, n: int, thresholds: np.ndarray, power: float = 0.8) -> float:
    """Every N from 1 on: the first with a sqrt(N) >= u(M(N)) + z, u read from an exact table (inf past it)."""
    psi, gap = (b + c) / n, abs(b - c) / n
    slope = gap / math.sqrt(psi - gap * gap)
    z = float(-ndtri(1 - power))
    largest = int((thresholds.size - 1) / psi)
    items = np.arange(1, largest + 1, dtype=np.float64)
    counts = np.maximum(1, np.floor(psi * items + 0.5)).astype(np.int64)
    meets = slope * np.sqrt(items) >= thresholds[counts - 1] + z
    return float(items[np.argmax(meets)]) if meets.any() else math.inf


@pytest.mark.parametrize("alpha, mixture", [(0.05, "grid"), (0.01, "grid"), (0.05, "two-point")])
def test_anytime_n_is_the_first_crossing_found_by_a_scan_over_every_n(alpha, mixture):
    """Against a brute-force scan over every N with u computed exactly (bisection) at every discordant count."""
    largest = 60_000
    thresholds = np.asarray(threshold(np.arange(1, largest + 1), alpha, mixture))
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(80):
        n = int(rng.integers(200, 20_000))
        discordant = int(n * rng.uniform(0.02, 0.6))
        b = int(rng.integers(discordant // 2, discordant + 1))
        c = discordant - b
        if b == c:
            continue
        found = float(required_n_anytime(b, c, n, alpha, mixture=mixture))
        scanned = _first_crossing_by_scan(b, c, n, thresholds)
        if math.isinf(scanned) and found > (largest - 1) / ((b + c) / n):
            continue  # beyond the scanned table: the scan cannot tell
        assert found == scanned, (b, c, n)
        checked += 1
    assert checked >= 60


def test_anytime_n_lands_inside_the_saw_tooth_where_a_fixed_point_iteration_cycles():
    """u is saw-toothed, so a sqrt(N) - u(psi N) is not monotone: the answer is the first N that meets it.

    No earlier N meets it.
    """
    from llm_power_verified.sequential.crossing import envelope

    bounds = envelope(0.05)
    b, c, n = 1680, 1454, 12032
    found = int(required_n_anytime(b, c, n))
    psi, gap = (b + c) / n, abs(b - c) / n
    slope, z = gap / math.sqrt(psi - gap**2), float(-ndtri(0.2))
    items = np.arange(1, found + 1, dtype=np.float64)
    counts = np.maximum(1, np.floor(psi * items + 0.5))
    margin = slope * np.sqrt(items) - bounds.u(counts) - z
    assert margin[-1] >= 0 and np.all(margin[:-1] < 0)
    later = np.arange(found + 1, found + 3000, dtype=np.float64)
    later_margin = slope * np.sqrt(later) - bounds.u(np.maximum(1, np.floor(psi * later + 0.5))) - z
    assert (later_margin < 0).any()  # the condition fails again after the first crossing: not monotone


def test_the_envelope_lemmas_hold_where_they_can_be_checked():
    """Points 1-3 of the Envelope notes, checked on exact thresholds.

    The points: k steps by 0 or 1, u > gamma sqrt(m), D nondecreasing, and the bound gamma sqrt(m') + D(m) / sqrt(m')
    <= u(m') for m' >= m.
    """
    from llm_power_verified.sequential.crossing import envelope
    from llm_power_verified.sequential.thresholds import exact_counts

    bounds = envelope(0.05)
    m = np.arange(1, 60_001, dtype=np.float64)
    u = np.asarray(threshold(m))
    counts = np.where(np.isfinite(u), (u * np.sqrt(m) + m) / 2, m + 1)
    steps = np.diff(np.rint(counts))
    assert set(np.unique(steps)) <= {0.0, 1.0}
    assert np.all(u > bounds.gamma * np.sqrt(m))
    rng = np.random.default_rng(4)
    big = np.sort(rng.integers(60_000, 10**10, size=400)).astype(np.float64)
    assert np.array_equal(exact_counts(big, bounds.table), np.asarray(threshold(big)) * np.sqrt(big) / 2 + big / 2)
    sample = np.concatenate([np.arange(100, 60_001, 97, dtype=np.float64), big])
    excess = bounds.excess(sample)
    # D itself is nondecreasing; the computed one sits below it by at most twice the slack taken off for rounding
    assert np.all(np.diff(excess) >= -2 * bounds.slack(sample[1:]))
    start = rng.choice(sample[:-1], size=200)
    later = start + rng.integers(1, 10**6, size=200)
    floor = bounds.gamma * np.sqrt(later) + bounds.excess(start) / np.sqrt(later)
    assert np.all(floor <= bounds.u(later))


def test_anytime_n_refuses_the_beta_mixture_and_a_power_below_one_half():
    with pytest.raises(ArgumentError, match=r"mixture='beta'.*required_n_anytime_simulated"):
        required_n_anytime(1680, 1454, 12032, mixture="beta")
    with pytest.raises(ArgumentError, match="power must lie in"):
        required_n_anytime(1680, 1454, 12032, power=0.4)


def test_anytime_n_is_inf_exactly_when_the_grid_cannot_resolve_the_split():
    """A <= gamma: the grid has no theta within 0.01 of 1/2, so u grows like gamma sqrt(M) and is never met."""
    from llm_power_verified.sequential.crossing import envelope

    gamma = envelope(0.05).gamma
    assert required_n_anytime(1449, 1439, 12032) == math.inf
    n = 100_000
    # a split whose A sits just above gamma crosses, far out but below 1e12 items
    b, c = 2000, 1950
    psi, gap = (b + c) / n, (b - c) / n
    assert gap / math.sqrt(psi - gap**2) / math.sqrt(psi) > gamma
    assert math.isfinite(required_n_anytime(b, c, n))
