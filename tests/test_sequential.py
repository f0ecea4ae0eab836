"""Anytime-valid monitoring: e-values against 50-digit mpmath, Ville's bound by simulation, properties."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy.stats import binomtest

import llm_power_verified as lpv
from llm_power_verified.cli import main
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
from tests import mpmath_oracle as reference


@st.composite
def counts(draw, largest=10**6):
    total = int(round(math.exp(draw(st.floats(0, math.log(largest))))))
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
    assert float(log_e_value(30, 10, "beta", (2, 1))) == pytest.approx(float(log_e_value(10, 30, "beta", (1, 2))), abs=1e-12)


def test_villes_bound_under_optional_stopping_and_the_peeked_chi2():
    """Under H0 with 40 looks: the e-process stays at or below alpha; a chi-square peeked at the same looks does not."""
    result = optional_stopping_calibration(n_items=1200, looks=40, p10=0.15, p01=0.15, n_simulations=2000, seed=20261121)
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
    assert main(["monitor", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--json", "--plot", str(tmp_path / "m.png")]) == 0
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
    from llm_power_verified.sequential.anytime import ThresholdTable

    alone = required_n_anytime(1680, 1454, 12032)
    batch = required_n_anytime([1680, 400_000], [1454, 398_000], [12032, 2_000_000])
    fresh = required_n_anytime(1680, 1454, 12032, table=ThresholdTable(0.05, "grid", (1.0, 1.0)))
    assert batch[0] == alone == fresh


def test_audit_shares_one_count_matrix_and_leaves_none_behind(monkeypatch):
    from llm_power_verified.examples import shipped_example
    from llm_power_verified.leaderboard import contingency
    from llm_power_verified.leaderboard.audit import audit_leaderboard

    calls = []
    original = contingency._both_correct
    monkeypatch.setattr(contingency, "_both_correct", lambda scores, rows: calls.append(1) or original(scores, rows))
    result = audit_leaderboard(shipped_example(clusters=False), "all", n_resamples=0)
    assert len(calls) == 1 and len(result.pairs) == 45
    assert contingency._SHARED.get() is None
