"""The accuracies-only plan over the printed digits, a DELTA at the printed gap, and the plan's wording (issue 26).

References are computed here independently: every allowed count pair enumerated, N* from ``scipy.stats.norm``
quantiles and the Frechet bounds.  Tolerance 1e-9 relative: closed forms evaluated two ways (quantiles and a few
products, each within a few ulps).
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from scipy import stats

import llm_power_verified as lpv
from llm_power_verified.cli import main
from llm_power_verified.examples import shipped_example
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.leaderboard.accuracies import audit_accuracies
from llm_power_verified.plan import plan_leaderboard, read_audit_report
from llm_power_verified.report import render

N_MMLU = 14042
#: simple-evals MMLU, the top six printed at one decimal (the newcomer's table).
TOP_SIX = [("o3-high", 93.3), ("o3", 92.9), ("o3-low", 92.8), ("o1", 91.8), ("gpt-4.5-preview", 90.8)]
TOP_SIX.append(("o1-preview", 90.8))


def _table(tmp_path, rows, name="acc.csv"):
    path = tmp_path / name
    path.write_text("model,accuracy\n" + "".join(f"{model},{value}\n" for model, value in rows))
    return path


def _audit(tmp_path, rows=TOP_SIX, n=N_MMLU):
    return audit_accuracies(read_accuracies(_table(tmp_path, rows), n=n), correction="none")


def _k(level: float, power: float = 0.8) -> float:
    return (stats.norm.ppf(1 - level / 2) + stats.norm.ppf(power)) ** 2


def _pair(plan, model_a):
    return plan.pairs[plan.pairs["model_a"] == model_a].iloc[0]


def test_two_printed_gaps_of_delta_are_planned_alike(tmp_path):
    plan = plan_leaderboard(_audit(tmp_path), 6, correction="bonferroni", min_effect=0.01)
    # 92.8 vs 91.8 and 91.8 vs 90.8: at rho_max psi = the gap = DELTA in both (float noise decided it before).
    impossible = plan.impossible_min_effect["rho_max"]
    assert not any(name.startswith(("o3-low vs", "o1 vs")) for name in impossible)
    first, second = (_pair(plan, model)["required_n_min_effect_rho_max"] for model in ("o3-low", "o1"))
    reference = _k(plan.level) * (0.01 - 0.01**2) / 0.01**2
    assert first == pytest.approx(reference, rel=1e-9) and second == pytest.approx(reference, rel=1e-9)
    # The discordance at rho_max is the printed gap itself (Frechet's upper bound), not sigma^2 + d^2.
    assert _pair(plan, "o1")["discordance_rho_max"] == abs(0.918 - 0.908)


def test_the_worst_case_is_the_worst_count_pair_the_digits_allow(tmp_path):
    audit = _audit(tmp_path)
    plan = plan_leaderboard(audit, 6, correction="bonferroni", min_effect=0.01)
    assert plan.printed_counts
    k = _k(plan.level)
    ranking = audit.ranking.set_index("model")
    for model_a, model_b in (("o3-high", "o3"), ("o3", "o3-low"), ("o3-low", "o1"), ("o1", "gpt-4.5-preview")):
        counts_a = range(ranking.loc[model_a, "count_low"], ranking.loc[model_a, "count_high"] + 1)
        counts_b = range(ranking.loc[model_b, "count_low"], ranking.loc[model_b, "count_high"] + 1)
        points = [(a / N_MMLU, b / N_MMLU) for a, b in itertools.product(counts_a, counts_b)]
        points.append((ranking.loc[model_a, "accuracy"], ranking.loc[model_b, "accuracy"]))
        psi = np.array([min(p + q, 2 - p - q) for p, q in points])  # Frechet's lower bound on P(both right)
        gap = np.array([p - q for p, q in points])
        row = _pair(plan, model_a)
        assert row["required_n_rho_min"] == pytest.approx((k * (psi - gap**2) / gap**2).max(), rel=1e-9)
        assert row["discordance_rho_min"] == pytest.approx(psi.max(), rel=1e-12)
        assert row["required_n_min_effect_rho_min"] == pytest.approx(k * (psi.max() - 1e-4) / 1e-4, rel=1e-9)
    # o3-low vs o1 at level 0.01: 17,974 at the printed values, 21,981.2 at the counts 13,024 vs 12,897.
    row = _pair(plan, "o3-low")
    at_counts = k * (min(25921 / N_MMLU, 2 - 25921 / N_MMLU) / (127 / N_MMLU) ** 2 - 1)
    assert row["required_n_rho_min"] == pytest.approx(at_counts, rel=1e-9) and 21981 < at_counts < 21982


def test_a_saved_report_plans_at_the_printed_values_and_says_so(tmp_path, capsys):
    (tmp_path / "acc.json").write_text(render(_audit(tmp_path), "json"))
    assert read_audit_report(tmp_path / "acc.json").counts is None
    assert main(["plan", "report", str(tmp_path / "acc.json"), "--top", "4"]) == 0
    out = capsys.readouterr().out
    assert "worst case at the printed values" in out and "the plan is at the printed values" in out
    assert main(["plan", "accuracies", str(_table(tmp_path, TOP_SIX)), "--n", str(N_MMLU), "--top", "4"]) == 0
    assert "worst case over the counts the printed digits allow" in capsys.readouterr().out


def test_an_infinite_n_is_worded(tmp_path, capsys):
    assert main(["plan", "accuracies", str(_table(tmp_path, TOP_SIX)), "--n", str(N_MMLU), "--top", "6"]) == 0
    out = capsys.readouterr().out
    assert "N = inf" not in out and "inf more" not in out
    assert "gpt-4.5-preview vs o1-preview are tied at the printed values" in out
    # 90.8 and 90.7 at N = 400 both allow 363 correct (0.9075 prints as either): a tie the counts allow.
    rows = [("a", 91.5), ("b", 90.8), ("c", 90.7)]
    assert main(["plan", "accuracies", str(_table(tmp_path, rows, "tie.csv")), "--n", "400"]) == 0
    out = capsys.readouterr().out
    assert "b vs c can be tied at the counts their printed digits allow" in out and "N = inf" not in out


def test_no_mde_from_a_tie_in_json(tmp_path, capsys):
    arguments = ["plan", "accuracies", str(_table(tmp_path, TOP_SIX)), "--n", str(N_MMLU), "--top", "6"]
    assert main([*arguments, "--min-effect", "0.01", "--json"]) == 0
    pairs = json.loads(capsys.readouterr().out)["plan"]["pairs"]
    tied = next(row for row in pairs if row["model_a"] == "gpt-4.5-preview")
    assert tied["discordance_rho_max"] == 0 and tied["mde_rho_max"] is None


def test_graded_pairs_without_variance_are_named_for_it(tmp_path, capsys):
    rng = np.random.default_rng(26)
    a = rng.integers(0, 4, 300) / 3
    columns = {"m1": np.clip(a + rng.integers(0, 2, 300) / 3, 0, 1), "m2": a, "m3": a, "m4": a * 0.5}
    lines = ["item," + ",".join(columns)] + [
        f"{i}," + ",".join(repr(float(v[i])) for v in columns.values()) for i in range(300)
    ]
    (tmp_path / "graded.csv").write_text("\n".join(lines) + "\n")
    assert main(["plan", "items", str(tmp_path / "graded.csv"), "--item-column", "item", "--min-effect", "0.02"]) == 0
    out = capsys.readouterr().out
    assert "m2 vs m3 (variance 0)" in out and "no N (variance 0)" in out and "variance of 0" in out
    assert "psi nan" not in out and "psi < DELTA" not in out


@pytest.mark.parametrize(
    "source, words",
    [
        ("items", "observed discordance (0/1 scores) or observed variance"),
        ("accuracies", "accuracies have no observed discordance"),
        ("report", "default: the report's settings.min_effect"),
    ],
)
def test_min_effect_help_fits_each_subcommand(capsys, source, words):
    with pytest.raises(SystemExit):
        main(["plan", source, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert words in out
    if source == "accuracies":
        assert "at its observed discordance" not in out


def test_plan_report_takes_the_reports_min_effect(tmp_path, capsys):
    result = lpv.audit_leaderboard(shipped_example(), "adjacent", n_resamples=0, n_cluster_resamples=0, min_effect=0.02)
    path = tmp_path / "audit.json"
    path.write_text(render(result, "json"))
    assert main(["plan", "report", str(path), "--top", "4", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["plan"]["min_effect"] == 0.02 and document["report_min_effect"] == 0.02
    assert main(["plan", "report", str(path), "--top", "4"]) == 0
    assert "DELTA = 0.02 (the report's settings.min_effect)" in capsys.readouterr().out
    assert main(["plan", "report", str(path), "--top", "4", "--min-effect", "0.01"]) == 0
    assert "DELTA = 0.01 (--min-effect; the report was audited with settings.min_effect 0.02)" in (
        capsys.readouterr().out
    )
    document = json.loads(path.read_text())
    document["settings"]["min_effect"] = 2
    path.write_text(json.dumps(document))
    assert main(["plan", "report", str(path), "--top", "4"]) == 2
    assert "settings.min_effect 2 is not a smallest gap of interest" in capsys.readouterr().err
