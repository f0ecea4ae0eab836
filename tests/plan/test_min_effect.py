"""``plan --min-effect DELTA``: the items that resolve a true gap of DELTA in each pair, at its discordance.

References are computed here independently, with ``scipy.stats.norm`` (not the generated Wald forms the package
uses) and ``scipy.optimize.brentq`` for the MDE.  Tolerances: 1e-12 relative for closed forms evaluated two ways
(a few roundings of quantiles and products), 1e-9 relative for the MDE (brentq's xtol is 1e-14 absolute on values
near 0.03).
"""

from __future__ import annotations

import contextlib
import io
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import llm_power_verified as lpv
from llm_power_verified.cli import main
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.leaderboard.accuracies import audit_accuracies
from llm_power_verified.plan import plan_leaderboard
from llm_power_verified.power.gap_of_interest import binary_variance_at_gap
from llm_power_verified.sequential.stopping import stopping_time, stopping_time_at_cells

N_ITEMS = 500


def _swe_like(binary: bool = True) -> ScoreMatrix:
    """500 items x 5 models (seeded) whose top pair differs by one item, as SWE-bench Verified's adjacent pairs do."""
    rng = np.random.default_rng(20260526)
    ability = rng.random(N_ITEMS)
    columns = [(ability < level + 0.2 * (rng.random(N_ITEMS) - 0.5)) for level in (0.66, 0.62, 0.55, 0.50, 0.40)]
    scores = np.column_stack(columns).astype(np.float64)
    # Model 1 = model 0 with one solved item dropped and nothing else changed: a gap of exactly one item.
    scores[:, 1] = scores[:, 0]
    scores[np.flatnonzero(scores[:, 0] == 1)[:40], 1] = 0
    scores[np.flatnonzero(scores[:, 0] == 0)[:39], 1] = 1
    if not binary:
        scores = np.clip(scores * 0.8 + rng.random(scores.shape) * 0.2, 0, 1)
    models = tuple(f"model-{k}" for k in range(5))
    return ScoreMatrix(scores, models, tuple(f"item-{i}" for i in range(N_ITEMS)), binary=binary, source="test")


def _audit(binary: bool = True):
    return lpv.audit_leaderboard(_swe_like(binary), "adjacent", n_resamples=0, n_cluster_resamples=0)


def _reference_n(variance, delta, level, power):
    k = (stats.norm.ppf(1 - level / 2) + stats.norm.ppf(power)) ** 2
    return k * variance / delta**2


def _reference_power(variance, delta, n, level):
    z, shift = stats.norm.ppf(1 - level / 2), abs(delta) * math.sqrt(n / variance)
    return stats.norm.cdf(shift - z) + stats.norm.cdf(-shift - z)


@pytest.mark.parametrize("delta", [0.01, 0.02, 0.05])
def test_each_pair_against_an_independent_normal_computation(delta):
    audit = _audit()
    plan = plan_leaderboard(audit, min_effect=delta)
    pairs = audit.pairs[audit.pairs["adjacent"]].sort_values("rank_a").reset_index(drop=True)
    assert list(pairs["model_a"]) == list(plan.pairs["model_a"])
    for row, planned in zip(pairs.itertuples(), plan.pairs.itertuples(), strict=True):
        psi = (row.b + row.c) / row.n
        assert math.isclose(planned.discordance_observed, psi, rel_tol=1e-15)  # one division either way
        if psi < delta:
            assert math.isnan(planned.required_n_min_effect_observed)
            continue
        variance = psi - delta**2
        expected = _reference_n(variance, delta, plan.level, 0.8)
        assert math.isclose(planned.required_n_min_effect_observed, expected, rel_tol=1e-12)
        power = _reference_power(variance, delta, N_ITEMS, plan.level)
        assert math.isclose(planned.power_min_effect_observed, power, rel_tol=1e-12)
        # The MDE now: the d in (0, psi] whose N*(d) at this discordance is the audit's N, found by root-finding.
        mde = optimize.brentq(
            lambda d, psi=psi: _reference_n(psi - d**2, d, plan.level, 0.8) - N_ITEMS, 1e-6, psi, xtol=1e-14
        )
        assert math.isclose(planned.mde_observed, mde, rel_tol=1e-9)
    finite = plan.pairs["required_n_min_effect_observed"].dropna()
    assert plan.required_n_min_effect["observed"] == math.ceil(finite.max())


def test_a_one_item_gap_asks_for_a_huge_n_and_delta_for_a_finite_one():
    """The SWE-bench case: the observed-gap plan is the test statistic again; DELTA gives a meaningful N."""
    plan = plan_leaderboard(_audit(), min_effect=0.02)
    top = plan.pairs.iloc[0]
    assert abs(top["delta"]) == pytest.approx(1 / N_ITEMS, rel=1e-12)  # one item of 500
    assert plan.required_n["observed"] > 300_000  # 79 discordant items, a gap of one: (79/500) * 7.85 * 500^2 / 1
    assert plan.limiting["observed"] == "model-0 vs model-1"
    assert 1_000 < plan.required_n_min_effect["observed"] < 10_000
    assert not plan.impossible_min_effect["observed"]


def test_at_the_observed_gap_delta_gives_todays_answer():
    """sigma_D^2(d) = psi - d^2 at d = the observed gap is the observed variance: N*(DELTA) is then today's N*."""
    audit = _audit()
    plan = plan_leaderboard(audit, 2, correction="none")
    gap = abs(float(plan.pairs["delta"].iloc[0]))
    at_gap = plan_leaderboard(audit, 2, correction="none", min_effect=gap)
    assert math.isclose(
        at_gap.pairs["required_n_min_effect_observed"].iloc[0], plan.pairs["required_n_observed"].iloc[0], rel_tol=1e-9
    )  # the audit's variance is computed from the cells by another route (b/n + c/n - (b/n - c/n)^2)


def test_a_gap_larger_than_the_discordance_is_named_not_clamped():
    audit = _audit()
    psi = (audit.pairs["b"] + audit.pairs["c"]) / audit.pairs["n"]
    smallest = float(psi[audit.pairs["adjacent"]].min())
    plan = plan_leaderboard(audit, min_effect=smallest * 1.01)
    impossible = plan.impossible_min_effect["observed"]
    assert len(impossible) == 1 and f"psi {smallest:.3g}" in impossible[0]
    row = plan.pairs[plan.pairs["discordance_observed"] == smallest].iloc[0]
    assert math.isnan(row["required_n_min_effect_observed"]) and math.isnan(row["power_min_effect_observed"])
    assert row["resolved_now_min_effect_observed"] is False or not row["resolved_now_min_effect_observed"]
    assert plan.limiting_min_effect["observed"] not in impossible[0]
    assert np.isnan(binary_variance_at_gap([0.0199999], 0.02)[0]) and binary_variance_at_gap([0.02], 0.02)[0] > 0


def test_graded_scores_plan_at_the_observed_variance():
    audit = _audit(binary=False)
    plan = plan_leaderboard(audit, min_effect=0.05)
    pairs = audit.pairs[audit.pairs["adjacent"]].sort_values("rank_a").reset_index(drop=True)
    expected = _reference_n(pairs["variance"].to_numpy(), 0.05, plan.level, 0.8)
    np.testing.assert_allclose(plan.pairs["required_n_min_effect_observed"], expected, rtol=1e-12)
    assert plan.pairs["discordance_observed"].isna().all() and not plan.impossible_min_effect["observed"]


def test_accuracies_at_the_largest_rho_a_delta_above_the_printed_gap_is_impossible():
    table = pd.DataFrame({"model": ["a", "b", "c"], "accuracy": [0.70, 0.695, 0.60]})
    audit = audit_accuracies(read_accuracies(table, n=1000, scale="fraction"))
    plan = plan_leaderboard(audit, min_effect=0.02)
    # At rho_max one model solves every item the other does: psi = |p_a - p_b| = 0.005 < 0.02 for a vs b.
    assert plan.impossible_min_effect["rho_max"] == ("a vs b (psi 0.005)",)
    assert not plan.impossible_min_effect["rho_min"]
    assert plan.required_n_min_effect["rho_min"] >= plan.required_n_min_effect["rho_max"]


def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def test_bad_delta_is_refused_in_one_line_naming_the_option():
    for binary in (True, False):  # scores are in [0, 1], graded ones too: no gap reaches 1
        with pytest.raises(ArgumentError, match=r"^min_effect \(--min-effect.*in \[1\.11022e-16, 1\); got 1\.5"):
            plan_leaderboard(_audit(binary), min_effect=1.5)
    for value in ("0", "-0.01", "1", "nan", "inf"):
        status, out, err = _cli(["plan", "report", "missing.json", "--min-effect", value])
        assert status == 2 and out == "" and "--min-effect" in err and len(err.strip().splitlines()) == 1


def test_cli_items_and_report_print_both_answers(tmp_path):
    path = tmp_path / "scores.csv"
    matrix = _swe_like()
    frame = pd.DataFrame(matrix.scores.astype(int), columns=matrix.models)
    frame.insert(0, "item", matrix.item_ids)
    frame.to_csv(path, index=False)
    status, text, _ = _cli(["plan", "items", str(path), "--item-column", "item", "--min-effect", "0.02"])
    assert status == 0
    assert "at the observed rho-hat: N = " in text and "a true gap of DELTA = 0.02 (--min-effect)" in text
    status, out, _ = _cli(["plan", "items", str(path), "--item-column", "item", "--min-effect", "0.02", "--json"])
    document = json.loads(out)["plan"]
    assert document["min_effect"] == 0.02
    expected = plan_leaderboard(_audit(), min_effect=0.02).required_n_min_effect
    assert document["required_n_min_effect"] == expected
    report = tmp_path / "audit.json"
    argv = ["audit", str(path), "--item-column", "item", "--n-resamples", "0", "--n-cluster-resamples", "0"]
    assert _cli([*argv, "--format", "json", "--out", str(report)])[0] == 0
    status, out, _ = _cli(["plan", "report", str(report), "--min-effect", "0.02", "--json"])
    assert status == 0 and json.loads(out)["plan"]["required_n_min_effect"] == expected


def test_anytime_with_delta_stops_at_the_family_level_for_a_true_gap_of_delta(tmp_path):
    """--anytime --min-effect: the stopping N of the DELTA-limiting pair at p10, p01 = (psi +- DELTA)/2, at m/alpha."""
    path = tmp_path / "scores.csv"
    matrix = _swe_like()
    frame = pd.DataFrame(matrix.scores.astype(int), columns=matrix.models)
    frame.insert(0, "item", matrix.item_ids)
    frame.to_csv(path, index=False)
    argv = ["plan", "items", str(path), "--item-column", "item", "--min-effect", "0.02", "--anytime", "--json"]
    status, out, _ = _cli(argv)
    document = json.loads(out)
    at_delta, plan = document["anytime_min_effect"], document["plan"]
    assert status == 0 and at_delta["pair"] == plan["limiting_min_effect"]["observed"]
    assert (
        math.isclose(at_delta["alpha"], 0.05 / 4, rel_tol=1e-15) and at_delta["alpha"] == document["anytime"]["alpha"]
    )
    psi = at_delta["discordance"]
    assert math.isclose(at_delta["p10"] - at_delta["p01"], 0.02, rel_tol=1e-12)
    assert math.isclose(at_delta["p10"] + at_delta["p01"], psi, rel_tol=1e-15)
    expected = stopping_time_at_cells((psi + 0.02) / 2, (psi - 0.02) / 2, 0.05 / 4).expected_n
    assert math.isclose(at_delta["expected_n"], expected, rel_tol=1e-12)
    # stopping_time depends on the cells only: the same answer through (p_a, p_b, rho) and through (p10, p01).
    full = stopping_time(0.65, 0.60, 0.30)
    assert stopping_time_at_cells(full.p10, full.p01) == full
