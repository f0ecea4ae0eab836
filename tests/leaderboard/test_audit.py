"""Leaderboard audit: per-pair figures against the direct functions, families, clusters, tiers, output."""

from __future__ import annotations

import json
import subprocess
import sys
from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import llm_power_verified as lpv
from llm_power_verified.contract import SCHEMA_IDS
from llm_power_verified.examples import appendix_e, shipped_example
from llm_power_verified.io import from_wide
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.power.clustering import icc_oneway
from llm_power_verified.report import render


def _synthetic(models=6, items=800, seed=1, clusters=5, graded=False):
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(size=items)
    topic = rng.integers(0, clusters, items)
    skill = np.linspace(0.6, -0.2, models)
    latent = (
        difficulty[:, None]
        + skill[None, :]
        + 0.8 * rng.normal(size=(items, models))
        + 0.3 * (topic[:, None] == np.arange(models)[None, :] % clusters)
    )
    scores = 1 / (1 + np.exp(-latent)) if graded else (latent > 0).astype(float)
    frame = pd.DataFrame(scores, columns=[f"m{k}" for k in range(models)])
    frame["item_id"] = [f"i{k}" for k in range(items)]
    frame["topic"] = topic.astype(str)
    return from_wide(frame, cluster_column="topic", models=[f"m{k}" for k in range(models)])


def test_binary_pairs_match_direct_functions():
    matrix = _synthetic()
    result = audit_leaderboard(matrix, "all", n_resamples=200, n_cluster_resamples=100)
    assert len(result.pairs) == 15
    for _, row in result.pairs.iterrows():
        x = matrix.scores[:, matrix.models.index(row["model_a"])]
        y = matrix.scores[:, matrix.models.index(row["model_b"])]
        a, b, c, d = lpv.binary_counts(x, y)
        assert (row["a"], row["b"], row["c"], row["d"]) == (a, b, c, d)
        assert row["required_n"] == pytest.approx(lpv.required_n_from_counts(b, c, matrix.n_items), rel=1e-12)
        assert row["p_exact"] == pytest.approx(lpv.mcnemar_exact(b, c).pvalue, rel=1e-12)
        assert row["rho"] == pytest.approx(np.corrcoef(x, y)[0, 1], rel=1e-9)
        assert row["q"] == pytest.approx(matrix.n_items / row["required_n"], rel=1e-12)
        assert row["resolved"] == (row["q"] >= 1)
        assert row["p_a"] >= row["p_b"]  # model A is the higher-ranked one


def test_graded_pairs_match_scipy():
    matrix = _synthetic(graded=True)
    assert not matrix.binary
    result = audit_leaderboard(matrix, "adjacent", n_resamples=200, n_cluster_resamples=50)
    for _, row in result.pairs.iterrows():
        x = matrix.scores[:, matrix.models.index(row["model_a"])]
        y = matrix.scores[:, matrix.models.index(row["model_b"])]
        reference = stats.ttest_rel(x, y)
        assert row["t"] == pytest.approx(reference.statistic, rel=1e-9)
        assert row["p_t"] == pytest.approx(reference.pvalue, rel=1e-9)
        assert row["required_n"] == pytest.approx(lpv.required_n_wald(np.var(x - y, ddof=1), np.mean(x - y)), rel=1e-9)


def test_same_seed_same_report():
    matrix = _synthetic()
    first = json.loads(
        render(audit_leaderboard(matrix, "adjacent", seed=5, n_resamples=200, n_cluster_resamples=100), "json")
    )
    second = json.loads(
        render(audit_leaderboard(matrix, "adjacent", seed=5, n_resamples=200, n_cluster_resamples=100), "json")
    )
    assert first == second
    third = json.loads(
        render(audit_leaderboard(matrix, "adjacent", seed=6, n_resamples=200, n_cluster_resamples=100), "json")
    )
    assert third["pairs"] != first["pairs"]


def test_families_and_multiplicity():
    matrix = _synthetic(models=5)
    adjacent = audit_leaderboard(matrix, "adjacent", n_resamples=0, n_cluster_resamples=0)
    declared_all = audit_leaderboard(matrix, "adjacent", family="all", n_resamples=0, n_cluster_resamples=0)
    assert adjacent.family_size == 4 and declared_all.family_size == 10
    assert declared_all.multiplicity.inflation.bonferroni == pytest.approx(lpv.required_n_inflation(10))
    everything = audit_leaderboard(matrix, "all", n_resamples=0, n_cluster_resamples=0)
    holm = lpv.inference.multiplicity.adjust_pvalues(everything.pairs["p_exact"].to_numpy(), "holm")
    assert np.allclose(everything.pairs["p_holm"], holm)
    # the adjacent pairs' adjusted p-values under the all-pairs family equal the all-pairs run's
    merged = declared_all.pairs.merge(everything.pairs, on=["model_a", "model_b"], suffixes=("", "_all"))
    assert np.allclose(merged["p_holm"], merged["p_holm_all"])
    reference = audit_leaderboard(matrix, "reference", reference="m2", n_resamples=0, n_cluster_resamples=0)
    assert set(reference.pairs["model_a"]) == {"m2"} and len(reference.pairs) == 4


def test_cluster_icc_and_leave_one_out_match_direct_computation():
    matrix = _synthetic(models=4, items=600, clusters=4)
    result = audit_leaderboard(matrix, "adjacent", n_resamples=0, n_cluster_resamples=200)
    labels = np.array(matrix.clusters)
    for _, row in result.pairs.iterrows():
        d = (
            matrix.scores[:, matrix.models.index(row["model_a"])]
            - matrix.scores[:, matrix.models.index(row["model_b"])]
        )
        assert row["icc"] == pytest.approx(icc_oneway(d, labels), rel=1e-9, abs=1e-12)
        # The design effect's m is the size-weighted cluster size sum m_g^2 / N (the mean only for equal clusters).
        sizes = np.unique(labels, return_counts=True)[1]
        weighted_size = np.sum(sizes.astype(float) ** 2) / matrix.n_items
        assert row["design_effect"] == pytest.approx(1 + (weighted_size - 1) * max(row["icc"], 0.0), rel=1e-12)
    for dropped, count in result.clusters.leave_one_cluster_out.items():
        keep = labels != dropped
        reduced = from_wide(
            pd.DataFrame(matrix.scores[keep], columns=matrix.models).assign(
                item_id=np.array(matrix.item_ids)[keep], topic=labels[keep]
            ),
            cluster_column="topic",
            models=list(matrix.models),
        )
        again = audit_leaderboard(reduced, "adjacent", n_resamples=0, n_cluster_resamples=0)
        assert count == int((~again.pairs["resolved_cluster"]).sum())
    distribution = result.clusters.bootstrap.unresolved_count_distribution
    assert sum(distribution.values()) == pytest.approx(1.0)


def test_tiers_follow_verdicts():
    matrix = _synthetic(models=6)
    result = audit_leaderboard(matrix, "adjacent", n_resamples=0, n_cluster_resamples=0)
    tiers = result.tiers.adjacent
    ranked = result.ranking["model"].tolist()
    for (a, b), resolved in zip(pairwise(ranked), result.pairs["resolved"], strict=True):
        assert tiers[b] == tiers[a] + int(resolved)
    letters = result.tiers.letters
    everything = audit_leaderboard(matrix, "all", family="all", n_resamples=0, n_cluster_resamples=0)
    for _, row in everything.pairs.iterrows():
        share = bool(set(letters[row["model_a"]]) & set(letters[row["model_b"]]))
        assert share == (row["p_holm"] > 0.05)


def test_shipped_example_honours_the_printed_discordant_counts():
    matrix = shipped_example()
    table_7 = appendix_e()["table_7_mmlu_pro_adjacent"]
    result = audit_leaderboard(matrix, "adjacent", n_resamples=0, n_cluster_resamples=0)
    assert matrix.n_items == 12032 and len(set(matrix.clusters)) == 14
    for printed, (_, row) in zip(table_7, result.pairs.iterrows(), strict=True):
        assert (row["model_a"], row["model_b"]) == (printed["model_a"], printed["model_b"])
        assert (row["b"], row["c"]) == (printed["b"], printed["c"])
    assert result.verdicts.fixed_n == 4


def test_shipped_example_is_regenerated_identically(tmp_path):
    import gzip
    from importlib import resources

    from crosscheck.build_shipped_example import build

    build(tmp_path)
    shipped = resources.files("llm_power_verified") / "data"
    assert gzip.decompress((tmp_path / "mmlu_pro_top10.csv.gz").read_bytes()) == gzip.decompress(
        (shipped / "mmlu_pro_top10.csv.gz").read_bytes()
    )
    assert (tmp_path / "paper_appendix_e.json").read_text() == (shipped / "paper_appendix_e.json").read_text()


def test_json_document_schema():
    result = audit_leaderboard(_synthetic(), "adjacent", n_resamples=100, n_cluster_resamples=50)
    document = json.loads(render(result, "json"))
    assert document["schema"] == SCHEMA_IDS["binary+graded"]
    assert set(document) >= {
        "settings",
        "data",
        "ranking",
        "pairs",
        "multiplicity",
        "clusters",
        "verdicts",
        "tiers",
        "checklist",
    }
    assert len(document["checklist"]) == 8
    csv_lines = render(result, "csv").strip().splitlines()
    assert len(csv_lines) == len(result.pairs) + 1 and csv_lines[0].startswith("model_a,model_b")
    assert "| A | B |" in render(result, "markdown")


def test_cli_audit_default_runs_on_the_shipped_example():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "llm_power_verified.cli",
            "audit",
            "--format",
            "json",
            "--n-resamples",
            "100",
            "--n-cluster-resamples",
            "100",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "shipped example" in result.stderr
    assert json.loads(result.stdout)["verdicts"]["fixed-n"] == 4


def test_cli_audit_out_is_atomic_and_never_overwrites_input(tmp_path):
    frame = pd.DataFrame({"item_id": range(40), "a": [1, 0] * 20, "b": [1, 1, 0, 0] * 10, "c": [0, 1, 1, 1] * 10})
    table = tmp_path / "scores.csv"
    frame.to_csv(table, index=False)
    before = table.read_bytes()
    command = [
        sys.executable,
        "-m",
        "llm_power_verified.cli",
        "audit",
        str(table),
        "--n-resamples",
        "0",
        "--n-cluster-resamples",
        "0",
    ]
    refused = subprocess.run([*command, "--out", str(table)], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "overwrite an input" in refused.stderr and table.read_bytes() == before
    written = subprocess.run(
        [*command, "--format", "csv", "--out", str(tmp_path / "report.csv")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert written.returncode == 0 and (tmp_path / "report.csv").read_text().startswith("model_a")


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        (["audit", "no_such_file.csv"], "no such file"),
        (["audit", "--mode", "reference", "--reference", "nobody"], "must be one of the models"),
        (["audit", "--alpha", "0.9"], "alpha"),
    ],
)
def test_cli_audit_errors(arguments, fragment, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    lines = [line for line in result.stderr.strip().splitlines() if not line.startswith("no INPUT given")]
    assert len(lines) == 1 and fragment in lines[0] and "Traceback" not in result.stderr


def test_plot_is_written(tmp_path):
    from llm_power_verified.report.plots import plot_resolution

    result = audit_leaderboard(_synthetic(), "adjacent", n_resamples=0, n_cluster_resamples=0)
    plot_resolution(result, tmp_path / "figure.png")
    assert (tmp_path / "figure.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_resolution_by_gap_buckets_partition_the_pairs():
    result = audit_leaderboard(_synthetic(models=8), "all", n_resamples=0, n_cluster_resamples=0)
    buckets = {row.bucket: row for row in result.by_gap}
    assert buckets["all"].pairs == len(result.pairs)
    assert sum(row.pairs for name, row in buckets.items() if name != "all") == len(result.pairs)
    assert sum(row.unresolved for name, row in buckets.items() if name != "all") == int(
        (~result.pairs["resolved"]).sum()
    )
