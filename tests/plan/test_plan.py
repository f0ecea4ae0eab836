"""Planning: the planned N against simulated power, the leaderboard plan against the audit's own columns, the
cluster table against its formula, and the stopping-time distribution against brute-force enumeration and a
simulation of items that shares nothing with the exact recursion but the e-value itself."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import llm_power_verified as lpv
from llm_power_verified.cli import main
from llm_power_verified.errors import ArgumentError
from llm_power_verified.examples import shipped_example
from llm_power_verified.plan import cluster_tradeoff, plan_gap, plan_leaderboard
from llm_power_verified.sequential.e_process import log_e_value
from llm_power_verified.sequential.stopping import stopping_time


def _cells(p_a, p_b, rho):
    both = p_a * p_b + rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    return p_a - both, p_b - both


@pytest.mark.parametrize("correction, family_size", [("bonferroni", 9), ("holm", 45), ("none", 1)])
def test_planned_n_reaches_the_target_power_in_simulation(correction, family_size):
    plan = plan_gap(0.65, 0.60, 0.30, family_size=family_size, correction=correction)
    p10, p01 = _cells(0.65, 0.60, 0.30)
    rng = np.random.default_rng(5)
    n, simulations = int(plan.items), 20_000
    counts = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=simulations)
    b, c = counts[:, 0].astype(float), counts[:, 1].astype(float)
    z = (b - c) / np.sqrt(b + c - (b - c) ** 2 / n)
    power = float(np.mean(np.abs(z) >= stats.norm.isf(plan.level / 2)))
    # Monte Carlo SE 0.003; the Wald test's normal approximation at N > 1000 moves power by well under 0.01.
    assert abs(power - 0.8) < 0.02, power


def test_holm_and_bh_are_planned_at_the_guaranteeing_level():
    bonferroni = plan_gap(0.7, 0.68, 0.5, family_size=20, correction="bonferroni")
    for correction in ("holm", "bh"):
        plan = plan_gap(0.7, 0.68, 0.5, family_size=20, correction=correction)
        assert plan.level == bonferroni.level == 0.05 / 20 and plan.items == bonferroni.items
        assert "guarantees the power" in plan.level_reason
    assert plan.required_n_at_alpha == pytest.approx(lpv.required_n_paired_binary(0.7, 0.68, 0.5), rel=1e-14)


def test_cluster_tradeoff_matches_the_design_effect_formula():
    table = cluster_tradeoff(1027.576, 0.05, [1, 3, 40, 859])
    for row in table.itertuples():
        effect = 1 + (row.items_per_cluster - 1) * 0.05
        assert row.design_effect == pytest.approx(effect, rel=1e-15)
        assert row.items == math.ceil(1027.576 * effect) and row.clusters == math.ceil(
            row.items / row.items_per_cluster
        )
    assert cluster_tradeoff(1000, 0, [10])["items"].tolist() == [1000]  # independent items: no inflation


@pytest.mark.parametrize("icc", [-1, -0.2, -1e-9, 1 + 1e-9, 1.5, math.nan, math.inf])
def test_a_planned_icc_outside_zero_to_one_is_refused_not_clamped(capsys, icc):
    # A negative planned ICC used to be counted as 0 in silence; the plan now says the range and why.
    with pytest.raises(ArgumentError, match=r"icc must be a finite number in \[0, 1\]; got .*negative ICC as 0"):
        cluster_tradeoff(1000, icc, [10])
    assert main(["plan", *GAP, f"--icc={icc!r}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "argument --icc: must be a" in err and "[0, 1]" in err and "1 + (m - 1) ICC" in err


def test_leaderboard_plan_matches_the_audit_columns():
    result = lpv.audit_leaderboard(shipped_example(), "adjacent", n_resamples=0, n_cluster_resamples=0)
    plan = plan_leaderboard(result, correction="bonferroni")
    # The audit computes N* x the Bonferroni inflation of its adjacent family (m = 9) by its own route.
    audit_n = result.pairs["required_n_bonferroni"].to_numpy()
    assert plan.required_n["observed"] == math.ceil(audit_n.max())
    assert plan.more_items["observed"] == math.ceil(audit_n.max()) - 12032
    clustered = result.pairs["required_n_bonferroni"] * result.pairs["design_effect"]
    assert plan.required_n["clustered"] == math.ceil(clustered.max())
    top = plan_leaderboard(result, top=4, correction="bonferroni")
    assert top.family_size == 3 and len(top.pairs) == 3
    with pytest.raises(ValueError, match=r"top \(--top\) 11 exceeds the audit's 10 models; choose --top from 2 to 10"):
        plan_leaderboard(result, top=11)


def _accuracy_audit():
    from llm_power_verified.io.accuracy_table import read_accuracies
    from llm_power_verified.leaderboard.accuracies import audit_accuracies

    return audit_accuracies(read_accuracies(Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"))


def test_an_inadmissible_rho_is_refused_with_the_bound_in_full():
    # A rho one ulp-scale step above a pair's rho_max used to be refused with both printed to 4 digits ("0.8083 ...
    # [.., 0.8083]"); the message now shows each in full (repr), so the reader sees which side of the bound it is.
    audit = _accuracy_audit()
    bound = float(audit.pairs.loc[audit.pairs["adjacent"], "rho_max"].iloc[:3].min())
    rho = bound + 1e-12
    with pytest.raises(ArgumentError) as error:
        plan_leaderboard(audit, 4, rho=rho)
    message = str(error.value)
    assert f"rho (--rho) {rho!r} is outside the admissible interval" in message and f", {bound!r}]" in message
    assert repr(rho) != repr(bound)


@pytest.mark.parametrize(
    "arguments, flag",
    [
        ({"top": 1}, "top (--top) must be a whole number >= 2"),
        ({"top": 27}, "top (--top) 27 exceeds the audit's 26 models; choose --top from 2 to 26"),
        ({"top": 4, "rho": 0.9999}, "rho (--rho) 0.9999 is outside the admissible interval"),
    ],
)
def test_plan_refusals_name_their_flag(arguments, flag):
    with pytest.raises(ArgumentError) as error:
        plan_leaderboard(_accuracy_audit(), **arguments)
    assert flag in str(error.value)
    result = lpv.audit_leaderboard(shipped_example(clusters=False), "adjacent", n_resamples=0)
    with pytest.raises(ArgumentError, match=r"rho \(--rho\) is for accuracies-only audits.*drop --rho"):
        plan_leaderboard(result, rho=0.3)


def _needed(horizon, alpha=0.05):
    """2 k(m) - m from the e-value by plain bisection over b in [m/2, m] (inf where no count reaches 1/alpha)."""
    m = np.arange(1, horizon + 1)
    low, high = np.floor(m / 2).astype(np.int64), m.astype(np.int64)
    reachable = np.asarray(log_e_value(m, np.zeros_like(m))) >= math.log(1 / alpha)
    while np.any(high - low > 1):
        middle = (low + high) // 2
        reaches = np.asarray(log_e_value(middle, m - middle)) >= math.log(1 / alpha)
        high, low = np.where(reaches, middle, high), np.where(reaches, low, middle)
    at_low = np.asarray(log_e_value(low, m - low)) >= math.log(1 / alpha)
    k = np.where(at_low, low, high)
    return np.where(reachable, 2 * k - m, np.inf)


def test_stopping_distribution_matches_enumeration_of_every_sign_sequence():
    """Alpha 0.3 crosses within a few discordant items; all 2^14 sign sequences give P(M = m) exactly."""
    from llm_power_verified.sequential.stopping import _boundary, _exact_discordant

    needed = _boundary(14, 0.3, "grid")
    assert np.array_equal(needed, _needed(14, 0.3))
    theta = 0.7
    probabilities = _exact_discordant(theta, needed)
    enumerated = np.zeros(14)
    for signs in itertools.product((1, -1), repeat=14):
        walk = np.abs(np.cumsum(signs))
        hit = np.flatnonzero(walk >= needed)
        if hit.size:
            wins = signs.count(1)
            enumerated[hit[0]] += theta**wins * (1 - theta) ** (14 - wins)
    np.testing.assert_allclose(probabilities, enumerated[: probabilities.size], rtol=1e-12, atol=1e-15)


def test_stopping_time_matches_a_simulation_of_items():
    p_a, p_b, rho = 0.70, 0.60, 0.20
    exact = stopping_time(p_a, p_b, rho)
    assert exact.method == "exact" and exact.probability_crossed > 1 - 1e-6
    p10, p01 = _cells(p_a, p_b, rho)
    needed = _needed(4000)
    rng = np.random.default_rng(9)
    stops = []
    for _ in range(4):
        draws = rng.random((1000, 6000))
        b, c = np.cumsum(draws < p10, axis=1), np.cumsum((draws >= p10) & (draws < p10 + p01), axis=1)
        m = b + c
        hit = (m >= 1) & (np.abs(b - c) >= needed[np.maximum(m, 1) - 1])
        assert hit.any(axis=1).all()
        stops.append(np.argmax(hit, axis=1) + 1)
    stops = np.concatenate(stops)
    mean, se = stops.mean(), stops.std(ddof=1) / math.sqrt(stops.size)
    assert abs(exact.expected_n - mean) < 4 * se, (exact.expected_n, mean, se)
    # The exact 0.9 quantile lies inside the simulated one's 99.9% order-statistic interval.
    ordered, spread = np.sort(stops), 3.29 * math.sqrt(stops.size * 0.9 * 0.1)
    assert ordered[int(stops.size * 0.9 - spread)] <= exact.quantile_n <= ordered[int(stops.size * 0.9 + spread)]


def test_stopping_time_simulation_beyond_the_exact_horizon_agrees_with_the_exact_answer():
    from llm_power_verified.sequential.stopping import EXACT_HORIZON

    exact = stopping_time(0.7303, 0.7185, 0.92)
    simulated = stopping_time(0.7303, 0.7185, 0.92, horizon=EXACT_HORIZON + 1, n_simulations=2000, seed=1)
    assert simulated.method == "simulation" and simulated.expected_n_se > 0
    assert abs(simulated.expected_n - exact.expected_n) < 4 * simulated.expected_n_se
    assert abs(simulated.quantile_n - exact.quantile_n) < 6 * simulated.quantile_n_se


def test_cli_plan(capsys):
    assert (
        main(
            [
                "plan",
                "gap",
                "--p-a",
                "0.65",
                "--p-b",
                "0.6",
                "--rho",
                "0.3",
                "--family-size",
                "9",
                "--icc",
                "0.036",
                "--anytime",
                "--json",
            ]
        )
        == 0
    )
    document = json.loads(capsys.readouterr().out)
    assert document["plan"]["items"] == 1711 and len(document["clusters"]) == 10
    assert document["anytime"]["method"] == "exact"
    # A setting of the monitored test asks for it: the same stopping N as --anytime with that setting.
    assert main(["plan", "gap", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.3", "--quantile", "0.5", "--json"]) == 0
    implied = json.loads(capsys.readouterr().out)["anytime"]
    assert (
        main(
            ["plan", "gap", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.3", "--anytime", "--quantile", "0.5", "--json"]
        )
        == 0
    )
    assert implied == json.loads(capsys.readouterr().out)["anytime"]
    assert main(["plan", "gap", "--p-a", "0.65"]) == 2
    assert "the following arguments are required: --p-b, --rho" in capsys.readouterr().err
    assert main(["plan"]) == 2
    assert "required: SOURCE (plan gap | items | accuracies | report | repeats)" in capsys.readouterr().err


def test_plan_from_a_saved_report_equals_the_plan_from_the_audit(tmp_path):
    from llm_power_verified.io.accuracy_table import read_accuracies
    from llm_power_verified.leaderboard.accuracies import audit_accuracies
    from llm_power_verified.plan import read_audit_report
    from llm_power_verified.report import render

    result = lpv.audit_leaderboard(shipped_example(), "adjacent", n_resamples=0, n_cluster_resamples=50)
    (tmp_path / "audit.json").write_text(render(result, "json"))
    saved = read_audit_report(tmp_path / "audit.json")
    assert saved.mean_cluster_size == result.clusters.mean_cluster_size and saved.binary
    assert saved.weighted_cluster_size == result.clusters.weighted_cluster_size
    for top in (4, 10):
        assert plan_leaderboard(saved, top).required_n == plan_leaderboard(result, top).required_n
    summary = audit_accuracies(read_accuracies(Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"))
    (tmp_path / "summary.json").write_text(render(summary, "json"))
    saved = read_audit_report(tmp_path / "summary.json")
    assert saved.accuracies and saved.counts is None
    from_report, from_audit = plan_leaderboard(saved, 7, rho=0.4), plan_leaderboard(summary, 7, rho=0.4)
    # The best case and the assumption are at the printed values in both; the worst case of the audit covers the
    # counts the printed digits allow, which the report does not carry (its plan says it is at the printed values).
    for scenario in ("rho_max", "assumed"):
        assert from_report.required_n[scenario] == from_audit.required_n[scenario]
    assert from_report.required_n["rho_min"] < from_audit.required_n["rho_min"]
    assert "the plan is at the printed values" in from_report.notes[0]
    assert "over every count of correct items" in from_audit.notes[0]


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.update(schema="llm-power-verified/audit/1"), "is not an audit report"),
        (lambda d: d["pairs"][3].pop("required_n"), "pairs[3]: no 'required_n'"),
        (lambda d: d["pairs"][2].update(delta="0.01"), "pairs[2].delta: '0.01' is not a number"),
        (lambda d: d.pop("data"), "the report has no data.n_models"),
        (lambda d: d.update(pairs=[]), "the report has no pairs"),
        (lambda d: d["settings"].pop("alpha"), "the report has no settings.alpha"),
        (lambda d: d["settings"].update(power="0.8"), "settings.power: '0.8' is not a number"),
        (lambda d: d["data"].update(n_items=12032.5), "data.n_items 12032.5 is not a whole number"),
        (lambda d: d["pairs"][1].update(rank_b=2.5), "pairs[1].rank_b: 2.5 is not a rank"),
        (lambda d: d["pairs"][0].update(model_a=7), "pairs[0].model_a: 7 is not a model name"),
        (lambda d: d["data"].update(binary="yes"), "data.binary 'yes' is not true or false"),
        # A binary report relabelled graded: its cells would be dropped and the plan redone from its variances.
        (lambda d: d["data"].update(binary=False), "pairs[0].b: 253, a 0/1 cell, while data.binary is false"),
    ],
)
def test_damaged_saved_reports_are_refused_by_place(tmp_path, edit, message):
    from llm_power_verified.io import InputError
    from llm_power_verified.plan import read_audit_report
    from llm_power_verified.report import render

    result = lpv.audit_leaderboard(shipped_example(clusters=False), "adjacent", n_resamples=0)
    document = json.loads(render(result, "json"))
    edit(document)
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(document))
    with pytest.raises(InputError) as error:
        read_audit_report(path)
    assert message in str(error.value) and str(path) in str(error.value)
    path.write_text('{"schema": ')
    with pytest.raises(InputError, match="not valid JSON"):
        read_audit_report(path)


GAP = ["gap", "--p-a", "0.6", "--p-b", "0.5", "--rho", "0.3"]


@pytest.mark.parametrize(
    "arguments, message",
    [
        ([*GAP, "--top", "3"], "unrecognized arguments: --top 3"),
        ([*GAP, "--n", "100"], "unrecognized arguments: --n 100"),
        ([*GAP, "--cluster-sizes", "5"], "--cluster-sizes needs --icc"),
        (["accuracies", "ACC", "--family-size", "3"], "unrecognized arguments: --family-size 3"),
        (["accuracies", "ACC", "--icc", "0.1"], "unrecognized arguments: --icc 0.1"),
        (["accuracies", "ACC", "--scores", "graded"], "unrecognized arguments: --scores graded"),
        (["accuracies", "ACC", "--cluster-sizes", "5"], "unrecognized arguments: --cluster-sizes 5"),
        (["items", "ACC", "--rho", "0.3"], "unrecognized arguments: --rho"),
        (["items", "ACC", "--n", "100"], "unrecognized arguments: --n"),
        (["report", "ACC", "--power", "0.9"], "unrecognized arguments: --power 0.9"),
        (["--summary", "ACC"], "(accuracies only: plan accuracies FILE)"),
        (["--from", "ACC"], "(per-item results: plan items INPUT ...)"),
        (["--report", "ACC"], "(a saved report: plan report JSON)"),
        (["--p-a", "0.6"], "(one gap: plan gap --p-a P --p-b P --rho R)"),
    ],
)
def test_cli_plan_offers_only_the_options_it_uses(capsys, arguments, message):
    """Each source is a subcommand with its own options; another source's option is argparse's one-line error."""
    accuracies = str(Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv")
    assert main(["plan", *[accuracies if value == "ACC" else value for value in arguments]]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
