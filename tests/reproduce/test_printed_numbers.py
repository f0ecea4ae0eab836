"""Printed numbers mean what they say, and degenerate inputs end without a warning.

* infinities print as inf (the bootstrap N* interval once printed 0.05 x the largest double, 8.988e+306);
* a bootstrap p-value is never 0: (k + 1) / (B + 1) counting (Davison & Hinkley Eq. 4.11), so log p is finite;
* rho_c outside the admissible interval is reported as none beside the verdict it implies;
* every alpha the checks admit, down to the smallest double, gives a finite N*;
* two clusters and graded N = 1 give no RuntimeWarning (pytest turns warnings into errors): the leave-one-out ICC of
  one cluster is not estimable, and a graded audit of one item is refused in one line.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ndtri

import llm_power_verified as lpv
from llm_power_verified.cli import main
from llm_power_verified.inference.bootstrap import paired_bootstrap_counts, percentile_pvalue
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.leaderboard.accuracies import audit_accuracies
from llm_power_verified.numeric import quantiles
from llm_power_verified.power.sample_size import paired_difference_variance, required_n_paired_binary
from llm_power_verified.sequential.confidence import MIN_ALPHA

ACCURACIES = Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"
SMALLEST = 5e-324


def _cli(arguments) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(part) for part in arguments])
    return status, out.getvalue(), err.getvalue()


def _linear_quantile(values: list[float], level: float) -> float:
    """np.quantile's linear rule in plain Python, with x + g (inf - x) = inf for g > 0 (the reference)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * level
    low = math.floor(position)
    weight = position - low
    if weight == 0:
        return ordered[low]
    below, above = ordered[low], ordered[low + 1]
    if math.isinf(below) and math.isinf(above) and below != above:
        return math.nan  # -inf + g (inf - -inf): undefined
    if math.isinf(below):
        return below  # weight 1 - g > 0 on it
    if math.isinf(above):
        return above  # weight g > 0 on it
    return below + weight * (above - below)


@pytest.mark.parametrize("seed", range(40))
def test_quantiles_with_infinite_order_statistics_are_inf_never_a_huge_finite(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 60))
    values = rng.normal(size=size) * 100
    values[rng.random(size) < rng.uniform(0, 0.3)] = np.inf
    values[rng.random(size) < rng.uniform(0, 0.1)] = -np.inf
    if seed % 10 == 0:
        values[: size // 2] = -np.inf  # some arrays with no finite value between the infinities
        values[size // 2 :] = np.inf
    levels = np.concatenate([[0.0, 0.05, 0.5, 0.95, 1.0], rng.random(10)])
    result = quantiles(values, levels)
    for level, value in zip(levels, result, strict=True):
        expected = _linear_quantile(values.tolist(), float(level))
        if math.isnan(expected):
            assert math.isnan(value)
        elif math.isinf(expected):
            assert value == expected
        else:
            # Finite neighbours: NumPy's lerp and the plain formula differ by rounding only (a few ulps of 100s).
            assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)
            assert abs(value) < 1e300


def test_the_case_that_printed_8_988e306():
    # Linear index 94.05 of 100 sorted values whose last 5 are inf: 0.05 of the way to inf is inf.
    values = np.concatenate([np.arange(95.0), np.full(5, np.inf)])
    assert quantiles(values, 0.95).item() == np.inf
    assert quantiles(values, 0.05).item() == pytest.approx(4.95, rel=1e-12)  # finite neighbours: plain interpolation
    assert np.isnan(quantiles(np.array([-np.inf, np.inf]), 0.5).item())  # -inf + 0.5 (inf - -inf) is undefined
    assert quantiles(np.array([-np.inf, -np.inf, 1.0]), [0.25, 0.75]).tolist() == [-np.inf, -np.inf]


def test_bootstrap_interval_of_n_star_prints_inf_from_the_command_line(tmp_path):
    rng = np.random.default_rng(1)
    first = (rng.random(200) < 0.6).astype(int)
    second = first.copy()
    second[np.flatnonzero(first)[:3]] = 0  # 3 discordant items: about 5% of resamples have a gap of 0 (N* = inf)
    third = (rng.random(200) < 0.3).astype(int)
    path = tmp_path / "board.csv"
    path.write_text(
        "item_id,A,B,C\n"
        + "".join(f"i{k},{x},{y},{z}\n" for k, (x, y, z) in enumerate(zip(first, second, third, strict=True)))
    )
    seen = set()
    for seed in range(16):
        status, out, err = _cli(["audit", path, "--format", "csv", "--n-resamples", "100", "--seed", seed])
        assert status == 0 and err == ""
        for row in csv.DictReader(io.StringIO(out)):
            for key in ("required_n_p05", "required_n_p95"):
                value = float(row[key])
                assert value == math.inf or value < 1e9, (seed, key, row[key])
                seen.add(row[key] == "inf")
    assert seen == {True, False}  # both kinds of upper bound occurred, so the check above was exercised


def test_bootstrap_pvalue_counts_the_observed_sample():
    assert percentile_pvalue(np.full(999, 0.3)) == pytest.approx(2 / 1000, rel=1e-15)  # k = 0: the smallest, 2/(B+1)
    assert percentile_pvalue(np.array([-1.0, 0.0, 1.0, 2.0])) == 1.0  # k = 2 (0 counts on both sides): min(1, 6/5)
    batch = np.column_stack([np.full(99, 0.3), np.linspace(-1, 1, 99)])
    np.testing.assert_allclose(percentile_pvalue(batch, axis=0), [2 / 100, 1.0], rtol=1e-15)
    result = paired_bootstrap_counts(80, 20, 1000, n_resamples=10_000, seed=0)
    assert result.pvalue == pytest.approx(2 / 10_001, rel=1e-15)


def test_test_command_prints_a_positive_bootstrap_pvalue_and_a_finite_log():
    status, out, err = _cli(["test", "--b", "80", "--c", "20", "--n", "1000", "--json"])
    assert status == 0 and err == ""
    row = next(row for row in json.loads(out) if row["method"].startswith("bootstrap"))
    assert row["pvalue"] == pytest.approx(2 / (row["n_resamples"] + 1), rel=1e-15)
    assert row["log_pvalue"] == pytest.approx(math.log(2 / (row["n_resamples"] + 1)), rel=1e-15)
    status, out, err = _cli(["test", "--b", "80", "--c", "20", "--n", "1000"])
    line = next(line for line in out.splitlines() if line.startswith("bootstrap"))
    assert status == 0 and "-inf" not in line and " 0 " not in line


def test_audit_bootstrap_pvalues_are_at_least_two_over_b_plus_one():
    status, out, err = _cli(["audit", "--format", "json", "--n-resamples", "200", "--n-cluster-resamples", "0"])
    assert status == 0 and err.count("\n") <= 1  # the shipped example's one note
    pvalues = [pair["p_bootstrap"] for pair in json.loads(out)["pairs"]]
    assert min(pvalues) == pytest.approx(2 / 201, rel=1e-15) and max(pvalues) <= 1


def test_rho_c_outside_the_admissible_interval_is_reported_as_none():
    audit = audit_accuracies(read_accuracies(ACCURACIES))
    first = audit.pairs.iloc[0]
    assert first["rho_critical"] < -1  # the closed form's root (-33.02) is kept in the API frame, as documented
    status, out, err = _cli(["audit-accuracies", ACCURACIES, "--format", "json"])
    assert status == 0 and err == ""
    pairs = json.loads(out)["pairs"]
    nones = 0
    for pair in pairs:
        for suffix, verdict in (("", pair["verdict"]), ("_family", pair["verdict_family"])):
            value = pair["rho_critical" + suffix]
            if value is None:
                nones += 1
                assert verdict in ("resolved", "unresolved", "depends on p-value order")
            else:
                assert pair["rho_min"] <= value <= pair["rho_max"]
                assert verdict != "resolved" or suffix  # a pair resolved at every rho has no rho_c inside
    assert nones and pairs[0]["rho_critical"] is None and pairs[0]["verdict"] == "resolved"
    status, out, err = _cli(["audit-accuracies", ACCURACIES, "--width", "160"])
    first_row = next(line for line in out.splitlines() if line.startswith("#1 "))
    assert status == 0 and " none " in first_row and "-33" not in out
    status, out, _ = _cli(["audit-accuracies", ACCURACIES, "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[0]["rho_critical"] == "" and all(
        row["rho_critical"] == "" or -1 <= float(row["rho_critical"]) <= 1 for row in rows
    )


# The command line admits alpha down to MIN_ALPHA (1e-100: below it the monitored boundary's alpha^2 underflows, and one
# floor serves every command); the API's extreme tails down to the smallest double are checked in the next test.
@pytest.mark.parametrize("alpha", [MIN_ALPHA, 1e-50])
def test_every_admitted_alpha_gives_a_finite_n_star(alpha):
    status, out, err = _cli(
        ["design", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.3", "--alpha", repr(alpha), "--n", "1000", "--json"]
    )
    assert status == 0 and err == ""
    report = json.loads(out)
    for key in ("required_n", "required_n_connor", "shortcut_n", "mde"):
        assert isinstance(report[key], float) and math.isfinite(report[key]), key
    # N* = sigma^2 (z_{alpha/2} + z_beta)^2 / delta^2 with z from ndtri, the tail kept at the smallest double when
    # alpha/2 underflows (the one-tail rule documented in power.sample_size.one_tail_level); 1e-12: a few roundings.
    tail = max(alpha / 2, SMALLEST)
    expected = paired_difference_variance(0.65, 0.60, 0.30) * (ndtri(tail) + ndtri(0.2)) ** 2 / (0.65 - 0.60) ** 2
    assert report["required_n"] == pytest.approx(expected, rel=1e-12)
    assert report["power_at_n"] is not None and 0 <= report["power_at_n"] < 1e-6


def test_n_star_grows_as_alpha_falls_down_to_the_smallest_double():
    alphas = np.array([1e-2, 1e-10, 1e-100, 1e-300, 1e-320, 1e-323, SMALLEST])
    required = required_n_paired_binary(0.65, 0.60, 0.30, alpha=alphas)
    assert np.isfinite(required).all() and (np.diff(required) >= 0).all()


def test_plan_at_the_smallest_admitted_alpha_and_below_it():
    status, out, err = _cli(
        [
            "plan",
            "gap",
            "--p-a",
            "0.65",
            "--p-b",
            "0.6",
            "--rho",
            "0.3",
            "--alpha",
            repr(MIN_ALPHA),
            "--family-size",
            "90",
        ]
    )
    assert status == 0 and err == "" and "inf" not in out
    status, out, err = _cli(["plan", "gap", "--p-a", "0.65", "--p-b", "0.6", "--rho", "0.3", "--alpha", "5e-324"])
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "argument --alpha: must be a finite number in [1e-100, 1)" in err


def _two_cluster_table(path: Path, graded: bool = False) -> Path:
    rng = np.random.default_rng(5)
    lines = ["item_id,topic,A,B,C"]
    for k in range(60):
        scores = rng.random(3) if graded else (rng.random(3) < [0.7, 0.5, 0.3]).astype(int)
        lines.append(f"q{k},{'xy'[k % 2]}," + ",".join(f"{value:.3f}" if graded else str(value) for value in scores))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("graded", [False, True])
def test_two_clusters_audit_without_warnings_and_leave_one_out_not_estimable(tmp_path, graded):
    path = _two_cluster_table(tmp_path / "two.csv", graded)
    common = [path, "--cluster-column", "topic", "--n-resamples", "100", "--n-cluster-resamples", "100"] + (
        ["--scores", "graded"] if graded else []
    )
    status, out, err = _cli(["audit", *common, "--format", "json"])
    assert status == 0 and err == ""
    clusters = json.loads(out)["clusters"]
    assert clusters["n_clusters"] == 2 and clusters["leave_one_cluster_out"] == {"x": None, "y": None}
    assert all(math.isfinite(pair["icc"]) for pair in json.loads(out)["pairs"])
    status, out, err = _cli(["audit", *common])
    assert status == 0 and err == "" and "leave one cluster out: not estimable" in out
    status, out, err = _cli(
        ["plan", "items", path, "--cluster-column", "topic"] + (["--scores", "graded"] if graded else [])
    )
    assert status == 0 and err == ""


def test_single_item_clusters_and_three_clusters_audit_without_warnings(tmp_path):
    rng = np.random.default_rng(8)
    for name, label in (("singletons", lambda k: f"c{k}"), ("three", lambda k: "xyz"[k % 3])):
        path = tmp_path / f"{name}.csv"
        path.write_text(
            "item_id,topic,A,B\n"
            + "".join(f"q{k},{label(k)},{int(rng.random() < 0.7)},{int(rng.random() < 0.4)}\n" for k in range(40))
        )
        status, out, err = _cli(
            [
                "audit",
                path,
                "--cluster-column",
                "topic",
                "--format",
                "json",
                "--n-resamples",
                "100",
                "--n-cluster-resamples",
                "100",
            ]
        )
        assert status == 0 and err == ""
        loco = json.loads(out)["clusters"]["leave_one_cluster_out"]
        assert all(isinstance(count, int) for count in loco.values())


def test_graded_audit_of_one_item_is_refused_in_one_line(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("item_id,A,B,C\nq1,0.5,0.25,0.75\n")
    status, out, err = _cli(["audit", path, "--scores", "graded"])
    assert status == 2 and out == "" and err.count("\n") == 1
    # Refused before any statistic (a graded test of one item has N - 1 = 0 degrees of freedom), naming file and count.
    assert "one.csv" in err and "needs at least 2 items; got 1" in err
    status, out, err = _cli(["plan", "items", path, "--scores", "graded"])
    assert status == 2 and err.count("\n") == 1 and "needs at least 2 items; got 1" in err


def test_icc_of_one_group_is_refused_not_a_warning():
    from llm_power_verified.errors import ArgumentError
    from llm_power_verified.power.clustering import icc_oneway

    for values, labels in (([1, 0, 1], ["a"] * 3), ([1.0, 0.0], ["a", "b"])):
        with pytest.raises(ArgumentError, match="at least two groups"):
            icc_oneway(values, labels)


def test_tiny_tables_say_no_gap_is_resolvable(tmp_path, capsys):
    """Two items with rho-hat -1 at p = 1/2 (outside the admissible interval of equal accuracies, whose bound is only
    approached) and three items: the headline states that no gap is resolvable instead of an MDE above 1."""
    for rows, items in (("1,1,0\n2,0,1\n", 2), ("1,1,0,1\n2,0,1,1\n3,1,1,0\n", 3)):
        header = "item_id,a,b\n" if items == 2 else "item_id,a,b,c\n"
        path = tmp_path / f"t{items}.csv"
        path.write_text(header + rows)
        status = main(
            ["audit", str(path), "--n-resamples", "0", "--n-cluster-resamples", "0", "--quiet", "--format", "json"]
        )
        captured = capsys.readouterr()
        assert status == 0 and captured.err == "", captured.err
        assert f"No gap is resolvable with {items} items" in captured.out


def test_an_id_column_under_another_name_is_named_in_the_refusal(tmp_path, capsys):
    path = tmp_path / "ids.csv"
    path.write_text("item,a,b\n1,1,0\n2,0,1\n3,1,1\n")
    assert main(["audit", str(path), "--quiet"]) == 2
    assert "--item-column item" in capsys.readouterr().err
    path.write_text("item_id,a,b\n1,1,0\n2,0,7\n")  # a stray 7 in a model's column is not taken for an id column
    assert main(["audit", str(path), "--quiet"]) == 2
    assert "--item-column" not in capsys.readouterr().err
