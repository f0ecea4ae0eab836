"""Audits from accuracies only: rho_c against brute force over rho, the agreement share against a built 2x2 table,
the verdicts against the per-item audit of the same 26 models, and the reader's rules."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import llm_power_verified as lpv
from llm_power_verified.cli import main
from llm_power_verified.io import InputError, read_scores
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.leaderboard.accuracies import audit_accuracies
from llm_power_verified.power.critical import agreement_share, critical_correlation
from llm_power_verified.report import render

ROOT = Path(__file__).resolve().parents[2]
ACCURACIES = ROOT / "llm_power_verified" / "data" / "mmlu_pro_accuracies.csv"
SCORES = ROOT / "tests" / "fixtures" / "mmlu_pro_tiger" / "scores.csv.gz"


def _brute_force(p_a, p_b, n, alpha, power, points=20001):
    """q on a fine grid over the admissible interval: the verdict and the bracket of the first rho with q >= 1."""
    low, high = lpv.admissible_rho_interval(p_a, p_b)
    grid = np.linspace(low, high, points)
    resolved = n >= lpv.required_n_paired_binary(p_a, p_b, grid, alpha=alpha, power=power)
    return grid, resolved


@pytest.mark.parametrize("seed", range(40))
def test_critical_correlation_brackets_the_brute_force_crossing(seed):
    rng = np.random.default_rng(seed)
    p_a, p_b = rng.uniform(0.05, 0.95, 2)
    alpha, power = rng.choice([0.05, 0.01, 0.005]), rng.choice([0.8, 0.9])
    n = float(rng.integers(100, 200_000))
    rho_c = float(critical_correlation(p_a, p_b, n, alpha=alpha, power=power))
    grid, resolved = _brute_force(p_a, p_b, n, alpha, power)
    # N* falls in rho, so the resolved grid points are one upper run; rho_c lies between its first point and the one
    # before.
    assert np.all(np.diff(resolved.astype(int)) >= 0)
    if resolved.all():
        assert rho_c <= grid[0]
    elif not resolved.any():
        assert rho_c > grid[-1]
    else:
        first = int(np.argmax(resolved))
        assert grid[first - 1] < rho_c <= grid[first]
        assert lpv.required_n_paired_binary(p_a, p_b, rho_c, alpha=alpha, power=power) == pytest.approx(n, rel=1e-10)


def test_agreement_share_matches_a_built_table():
    rng = np.random.default_rng(7)
    for _ in range(50):
        p_a, p_b = rng.uniform(0.05, 0.95, 2)
        low, high = lpv.admissible_rho_interval(p_a, p_b)
        rho = rng.uniform(low, high)
        share = float(agreement_share(p_a, p_b, rho))
        # Build the cell probabilities with that agreement share and the two marginals; their phi coefficient
        # (the textbook (ad - bc) / sqrt(row and column totals)) must be rho.
        a = (share - 1 + p_a + p_b) / 2
        b, c = p_a - a, p_b - a
        d = 1 - a - b - c
        assert min(a, b, c, d) >= -1e-12
        phi = (a * d - b * c) / np.sqrt((a + b) * (c + d) * (a + c) * (b + d))
        assert phi == pytest.approx(rho, abs=1e-10)


def test_zero_gap_and_contradicted_direction_never_resolve():
    assert critical_correlation(0.6, 0.6, 10_000) == np.inf
    assert critical_correlation(0.6, 0.7, 10_000, alternative="larger") == np.inf
    assert np.isfinite(critical_correlation(0.6, 0.7, 10_000, alternative="smaller"))


@pytest.fixture(scope="module")
def per_item():
    matrix = read_scores(SCORES, cluster_column="category")
    audit = lpv.audit_leaderboard(matrix, mode="adjacent", n_resamples=0, n_cluster_resamples=0)
    accuracy = matrix.scores.mean(axis=0)
    frame = pd.DataFrame(
        {"model": list(matrix.models), "accuracy": [repr(float(value)) for value in accuracy], "n": matrix.n_items}
    )
    return audit, audit_accuracies(read_accuracies(frame), correction="none")


def test_accuracies_only_verdicts_agree_with_the_per_item_audit(per_item):
    audit, summary = per_item
    pairs = audit.pairs.set_index(["model_a", "model_b"])
    assert len(summary.pairs) == 25
    for _, row in summary.pairs.iterrows():
        observed = pairs.loc[(row["model_a"], row["model_b"])]
        assert row["rho_min"] <= observed["rho"] <= row["rho_max"]
        # With the exact accuracies, Eq. 6 at rho-hat is the per-item plug-in N*: resolved iff rho-hat >= rho_c.
        assert bool(observed["resolved"]) == (observed["rho"] >= row["rho_critical"])
        if row["verdict"] != "depends on rho":
            assert bool(observed["resolved"]) == (row["verdict"] == "resolved")


def test_shipped_leaderboard_reads_percent_and_is_consistent():
    table = read_accuracies(ACCURACIES)
    assert table.scale == "percent" and table.n == 12032 and len(table.models) == 26
    assert table.consistent.all()
    matrix = read_scores(SCORES, cluster_column="category")
    correct = dict(zip(matrix.models, matrix.scores.sum(axis=0).astype(int), strict=True))
    for model, low, high in zip(table.models, table.count_low, table.count_high, strict=True):
        assert low <= correct[model] <= high


def test_verdict_counts_and_order_invariance():
    table = read_accuracies(ACCURACIES)
    audit = audit_accuracies(table)
    kinds = audit.pairs.loc[audit.pairs["adjacent"], "verdict"].value_counts().to_dict()
    assert (audit.adjacent.resolved, audit.adjacent.unresolved, audit.adjacent.depends_on_rho) == (
        kinds.get("resolved", 0),
        kinds.get("unresolved", 0),
        kinds.get("depends on rho", 0),
    )
    shuffled = pd.read_csv(ACCURACIES, dtype=str).sample(frac=1, random_state=3)
    again = audit_accuracies(read_accuracies(shuffled))
    pd.testing.assert_frame_equal(audit.pairs, again.pairs)


def test_assumed_rho_matches_eq6_and_holm_levels():
    table = read_accuracies(ACCURACIES)
    audit = audit_accuracies(table, correction="holm", rho=0.45)
    pairs = audit.pairs
    required = lpv.required_n_paired_binary(pairs["p_a"].to_numpy(), pairs["p_b"].to_numpy(), 0.45)
    np.testing.assert_allclose(pairs["required_n_assumed"], required, rtol=1e-14)
    assert ((pairs["verdict_assumed"] == "resolved") == (table.n >= required)).all()
    # Holm at one assumed rho: step k (ascending Wald p) at alpha / (m - k + 1); recomputed here from the z statistics.
    z = (
        np.abs(pairs["delta"])
        * np.sqrt(table.n)
        / np.sqrt(lpv.paired_difference_variance(pairs["p_a"], pairs["p_b"], 0.45))
    )
    order = np.argsort(-z.to_numpy(), kind="stable")
    level = np.empty(len(z))
    level[order] = 0.05 / (len(z) - np.arange(len(z)))
    holm_required = lpv.required_n_paired_binary(pairs["p_a"].to_numpy(), pairs["p_b"].to_numpy(), 0.45, alpha=level)
    assert ((pairs["verdict_assumed_family"] == "resolved") == (table.n >= holm_required)).all()


def _write(tmp_path, text, name="board.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text, scale",
    [
        ("model,accuracy\na,0.71\nb,0.70\n", "fraction"),
        ("model,accuracy\na,71.0\nb,70.0\n", "percent"),
        ("model,accuracy\na,71%\nb,0.5%\n", "percent"),
        ("model,acc_pct\na,90\nb,80\n", "percent"),
    ],
)
def test_scale_is_read_and_said(tmp_path, text, scale):
    column = "acc_pct" if "acc_pct" in text else "accuracy"
    table = read_accuracies(_write(tmp_path, text), n=1000, accuracy_column=column)
    assert table.scale == scale
    assert table.notes[0].startswith(f"accuracies read as {'percentages' if scale == 'percent' else 'fractions'}")


@pytest.mark.parametrize(
    "text, options, message",
    [
        ("model,accuracy\na,71\nb,0.70\nc,69\n", {}, "line 3: accuracy 0.70 looks like a fraction among percentages"),
        (
            "model,accuracy\na,0.5\nb,0.7\nc,0.9\nd,1.5\ne,0.6\n",
            {},
            "line 5: accuracy 1.5 exceeds 1 while most accuracies are at most 1",
        ),
        ("model,accuracy\na,71%\nb,70\n", {}, "line 3: accuracy '70' lacks a % sign"),
        ("model,accuracy\na,0.7\nb,0.6\n", {}, "no 'n' column and no benchmark size; give it with --n N"),
        ("model,accuracy,n\na,0.7,100\nb,0.6,90\n", {}, "line 3: n 90 differs from 100 on line 2"),
        ("model,accuracy\na,0.7\na,0.6\n", {"n": 10}, "line 3: model 'a' appears twice"),
        ("model,accuracy\na,0.7\nb,x\n", {"n": 10}, "line 3: accuracy 'x' is not a number"),
        (
            "model,accuracy\na,0.7\nb,0\n",
            {"n": 10},
            "line 3: accuracy 0 read as a fraction must lie strictly between 0 and 1",
        ),
        ("model,accuracy\na,0.7\nb,\n", {"n": 10}, "line 3: accuracy is missing"),
        ("model,score\na,0.7\nb,0.6\n", {"n": 10}, "no 'accuracy' column"),
        ("model,accuracy\na,0.7\n", {"n": 10}, "1 model(s); a comparison needs at least two"),
    ],
)
def test_bad_tables_are_refused_by_line(tmp_path, text, options, message):
    with pytest.raises(InputError, match=None) as error:
        read_accuracies(_write(tmp_path, text), **options)
    assert message in str(error.value)


def test_inconsistent_n_is_refused_unless_declared_approximate(tmp_path):
    path = _write(tmp_path, "model,accuracy\na,73.03\nb,70.00\n")
    with pytest.raises(InputError) as error:
        read_accuracies(path, n=100)
    assert str(error.value).endswith(
        "board.csv, line 2: accuracy 73.03 is not k/100 for any whole k at its printed digits (N = 100); "
        "check N (the 'n' column or --n) or the accuracies, or pass --approximate-accuracies if they "
        "are averages or were rounded elsewhere"
    )
    table = read_accuracies(path, n=100, approximate=True)
    assert list(table.consistent) == [False, True]
    text = render(audit_accuracies(table))
    assert (
        "inputs inconsistent: 1 of 2 printed accuracies are not k/100 for any whole k at their printed digits: a "
        "(73.03); "
        "accepted as approximate (--approximate-accuracies)" in text
    )
    assert "none: inconsistent" in text


def test_cli_summary_formats_and_gate(tmp_path, capsys):
    assert main(["audit-accuracies", str(ACCURACIES), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["schema"] == "llm-power-verified/audit-accuracies/1" and len(document["pairs"]) == 25
    assert document["data"]["scale"] == "percent"
    assert main(["audit-accuracies", str(ACCURACIES), "--fail-on", "unresolved"]) == 1
    captured = capsys.readouterr()
    assert "gate failed" in captured.err and "Adjacent gaps: resolved at every admissible rho" in captured.out
    assert (
        main(
            [
                "audit-accuracies",
                str(ACCURACIES),
                "--rho",
                "0.5",
                "--mode",
                "all",
                "--format",
                "csv",
                "--out",
                str(tmp_path / "pairs.csv"),
            ]
        )
        == 0
    )
    assert len(pd.read_csv(tmp_path / "pairs.csv")) == 26 * 25 // 2
    page = render(audit_accuracies(read_accuracies(ACCURACIES), rho=0.5), "html")
    assert page.startswith("<!DOCTYPE html>") and "ASSUMING rho = 0.5" in page


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["audit-accuracies", "X", "--cluster-column", "c"], "unrecognized arguments: --cluster-column c"),
        (
            ["audit-accuracies", "X", "--mode", "reference"],
            "argument --mode: invalid choice: 'reference' (choose from 'adjacent', 'all')",
        ),
        (
            ["audit-accuracies", "X", "--rho", "0.1", "--rho-range", "0", "1"],
            "argument --rho-range: not allowed with argument --rho",
        ),
        (
            ["audit-accuracies", "X", "--rho-range", "0.5", "0.1"],
            "argument --rho-range: 0.5 0.1: LO must not exceed HI",
        ),
        (
            ["audit-accuracies", "X", "--fail-on", "not-significant"],
            "argument --fail-on: invalid choice: 'not-significant'",
        ),
        (["audit-accuracies", "X", "--format", "parquet"], "argument --format: invalid choice: 'parquet'"),
        (["audit", "--rho", "0.3"], "unrecognized arguments: --rho"),
        (["audit", "--accuracy-scale", "percent"], "unrecognized arguments: --accuracy-scale"),
        (["audit", "--summary", "X"], "unrecognized arguments: --summary (accuracies only: audit-accuracies FILE)"),
        (["audit-accuracies", "X", "--n-resamples", "100"], "unrecognized arguments: --n-resamples 100"),
        (["audit-accuracies", "X", "--on-missing", "intersect"], "unrecognized arguments: --on-missing intersect"),
        (["audit-accuracies", "X", "--seed", "4"], "unrecognized arguments: --seed 4"),
    ],
)
def test_cli_accuracies_offers_only_its_own_options(capsys, arguments, message):
    """audit-accuracies is not offered per-item options, nor audit the accuracies' ones.

    argparse refuses them in one line.
    """
    arguments = [str(ACCURACIES) if value == "X" else value for value in arguments]
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("options", [{}, {"rho": 0.5, "mode": "all"}, {"rho_range": (0.2, 0.9), "correction": "bh"}])
def test_json_report_follows_its_schema(options):
    from importlib import resources

    import jsonschema

    schema = json.loads((resources.files("llm_power_verified") / "report" / "audit_accuracies.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    mode = options.pop("mode", "adjacent")
    document = json.loads(render(audit_accuracies(read_accuracies(ACCURACIES), mode, **options), "json"))
    jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)


def test_terminal_table_fits_its_width_and_says_what_it_dropped():
    audit = audit_accuracies(read_accuracies(ACCURACIES), rho=0.5)
    for width in (80, 100, 120):
        text = render(audit, width=width)
        table = text[text.index("\nPairs") : text.index("\nLegend")].strip("\n").split("\n")[1:]
        assert max(len(line.rstrip()) for line in table) <= width
        assert "more column" in text
    wide = render(audit, width=400)
    assert "more column" not in wide and "admissible rho" in wide and "q (assumed)" in wide


@pytest.mark.parametrize("correction", ["holm", "bh"])
def test_assumed_rho_outside_some_intervals_counts_those_pairs_as_never_rejected(correction):
    """rho = 0.9 is above two adjacent pairs' largest admissible rho: they get 'not admissible', and Holm's or BH's
    levels of the others are those of a family where those two have p = 1."""
    table = read_accuracies(ACCURACIES)
    pairs = audit_accuracies(table, correction=correction, rho=0.9).pairs
    outside = (pairs["rho_max"] < 0.9).to_numpy()
    assert outside.sum() == 2 and (pairs.loc[outside, "verdict_assumed_family"] == "not admissible").all()
    z = np.abs(pairs["delta"]) * np.sqrt(
        table.n / lpv.paired_difference_variance(pairs["p_a"], pairs["p_b"], np.where(outside, 0.0, 0.9))
    )
    pvalues = np.where(outside, 1.0, 2 * stats.norm.sf(z))
    m = len(pvalues)
    if correction == "holm":
        level = np.empty(m)
        level[np.argsort(pvalues, kind="stable")] = 0.05 / (m - np.arange(m))
    else:
        ordered = np.sort(pvalues)
        passing = np.flatnonzero(ordered <= 0.05 * np.arange(1, m + 1) / m)
        level = np.full(m, 0.05 * max(passing[-1] + 1 if passing.size else 0, 1) / m)
    required = lpv.required_n_paired_binary(
        pairs["p_a"].to_numpy()[~outside], pairs["p_b"].to_numpy()[~outside], 0.9, alpha=level[~outside]
    )
    assert ((pairs.loc[~outside, "verdict_assumed_family"] == "resolved").to_numpy() == (table.n >= required)).all()
