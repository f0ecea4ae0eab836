"""``audit --tiles``: the band files are the in-memory Parquet table, the summary is the in-memory audit's, refusals.

The command line's dataset (the band files read in name order, and ``pandas.read_parquet`` of the folder, which skips
``_report.json``) equals the in-memory ``audit --mode all --format parquet`` file of the same ``--columns`` (the
default set, and all) (``DataFrame.equals``), in this process (the local backend) and with a real Dask LocalCluster of
two workers under a memory limit; ``_report.json``'s numbers and headline equal the in-memory audit's and follow its
schema; the terminal lists at most ``ROW_LIMIT`` adjacent pairs and models unless ``--pairs all``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.cli import main
from llm_power_verified.io import from_array
from llm_power_verified.io.output import json_ready
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.report.headline import headline_lines
from llm_power_verified.report.machine import pair_records
from llm_power_verified.report.schemas import audit_schema, check
from llm_power_verified.report.tiled_schema import TILED_SCHEMA_FILE, generated_file
from llm_power_verified.report.view import ROW_LIMIT

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

_TILES = ["--tiles", "--mode", "all", "--format", "parquet", "--quiet"]


def _leaderboard(folder, models: int, items: int, seed: int):
    """A seeded wide CSV of strongly paired neighbours, and the same scores as a matrix."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(items, 1)) + np.linspace(0.4, -0.4, models) + rng.normal(size=(items, models))
    scores = (latent > 0).astype(int)
    names = [f"m{k:03d}" for k in rng.permutation(models)]
    ids = [f"i{row:04d}" for row in range(items)]
    frame = pd.DataFrame(scores, columns=names)
    frame.insert(0, "item_id", ids)
    path = folder / "scores.csv"
    frame.to_csv(path, index=False)
    return path, from_array(scores.astype(float), models=names, item_ids=ids)


def _dataset(folder) -> pd.DataFrame:
    """The band files read in name order, as one frame."""
    files = sorted(name for name in os.listdir(folder) if name.startswith("band-"))
    return pa.concat_tables([pq.read_table(folder / name) for name in files]).to_pandas()


def _in_memory_parquet(tmp_path, path, columns: list[str]) -> pd.DataFrame:
    """The in-memory audit's Parquet table (``audit --mode all --format parquet``) of the same --columns."""
    out = tmp_path / "local.parquet"
    command = ["audit", str(path), "--mode", "all", "--format", "parquet", "--quiet", "--out", str(out)]
    assert main([*command, "--n-resamples", "0", *columns]) == 0
    return pd.read_parquet(out)


def _assert_schema(report: dict) -> None:
    """``_report.json`` follows its schema (report/tiled_audit.schema.json)."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(TILED_SCHEMA_FILE.read_text())
    jsonschema.validate(report, schema, cls=jsonschema.Draft202012Validator)


def _assert_report(report: dict, local, items: int) -> None:
    """The summary's numbers are the in-memory audit's (exact: counts, and floats that went through JSON unchanged)."""
    pairs = local.pairs
    assert (report["models"], report["items"], report["pairs"]) == (len(local.ranking), items, len(pairs))
    assert report["multiplicity"] == json_ready(local.multiplicity)
    assert report["holm_rejections"] == local.tiers.significant_pairs == int(pairs["p_holm"].le(0.05).sum())
    assert report["resolved_pairs"] == local.tiers.resolved_pairs
    assert report["verdicts"] == json_ready(local.verdicts)
    assert report["headline"] == headline_lines(local.headline)  # the in-memory audit's sentences, median rho included
    # The median of every pair's rho, exact (no pair of these leaderboards has an undefined rho).
    assert report["median_rho"] == float(np.median(pairs["rho"])) == local.headline.median_rho
    _assert_schema(report)
    assert report["adjacent"] == pair_records(pairs[pairs["adjacent"]])
    ranking = pd.DataFrame(report["ranking"])
    for column in ("rank", "model", "mean_score", "rank_low", "rank_high", "tier"):
        assert ranking[column].tolist() == local.ranking[column].tolist(), column
    assert (ranking["tied_first"] <= ranking["rank"]).all() and (ranking["rank"] <= ranking["tied_last"]).all()


@pytest.mark.parametrize("columns", [[], ["--columns", "all"], ["--columns", "default,log_e"]])
@pytest.mark.parametrize(("models", "items", "band_pairs"), [(60, 400, 150), (150, 900, 2_000)])
def test_local_tiles_are_the_in_memory_audit(tmp_path, capsys, models, items, band_pairs, columns):
    path, matrix = _leaderboard(tmp_path, models, items, seed=models)
    out = tmp_path / "pairs"
    command = ["audit", str(path), *_TILES, "--out", str(out), "--n-resamples", "0", "--band-pairs", str(band_pairs)]
    assert main([*command, *columns]) == 0
    printed = capsys.readouterr()
    local = audit_leaderboard(matrix, "all", n_resamples=0)
    files = sorted(os.listdir(out))
    assert files[0] == "_report.json" and len(files) > 2  # several bands
    expected = _in_memory_parquet(tmp_path, path, columns)
    assert len(expected.columns) == (
        len(local.pairs.columns) if columns == ["--columns", "all"] else 22 + bool(columns)
    )
    assert _dataset(out).equals(expected)
    assert pd.read_parquet(out).equals(expected)  # the summary is skipped by dataset readers
    report = json.loads((out / "_report.json").read_text())
    _assert_report(report, local, items)
    assert report["files"] == files[1:]
    assert report["pairs_columns"] == list(expected.columns)
    band = json.loads(pq.ParquetFile(out / files[1]).metadata.metadata[b"llm-power-verified-band"])
    assert (band["band"], band["start"], band["pairs_columns"]) == (0, 0, list(expected.columns))
    names = pq.ParquetFile(out / files[1]).metadata.row_group(0).column(0)
    assert names.path_in_schema == "model_a" and "RLE_DICTIONARY" in names.encodings
    assert printed.err == ""
    assert printed.out.startswith("\n".join(headline_lines(local.headline)))
    assert f"tiled all-pairs audit: {models} models, {items} items, {len(local.pairs):,} pairs" in printed.out
    assert f"rejected: Holm {local.tiers.significant_pairs:,}, BH {local.multiplicity.bh_rejections:,}" in printed.out


def test_the_terminal_lists_at_most_row_limit_adjacent_pairs_and_models(tmp_path, capsys):
    models = ROW_LIMIT + 5
    path, _ = _leaderboard(tmp_path, models, 60, seed=4)
    command = ["audit", str(path), *_TILES, "--n-resamples", "0"]
    assert main([*command, "--out", str(tmp_path / "top")]) == 0
    top = capsys.readouterr().out
    assert f"({ROW_LIMIT:,} of {models - 1:,} adjacent pairs listed; --pairs all lists every one" in top
    assert f"({ROW_LIMIT:,} of {models:,} models listed; --pairs all lists every one" in top
    assert main([*command, "--out", str(tmp_path / "all"), "--pairs", "all"]) == 0
    every = capsys.readouterr().out
    assert "listed;" not in every
    # Every adjacent pair and model past the limit is one line more (the notes sit in the two headings).
    assert len(every.splitlines()) - len(top.splitlines()) == (models - 1 - ROW_LIMIT) + (models - ROW_LIMIT)
    assert main([*command, "--out", str(tmp_path / "none"), "--pairs", "none"]) == 0
    none = capsys.readouterr().out
    assert f"(0 of {models:,} models listed" in none and len(none.splitlines()) < 25
    report = json.loads((tmp_path / "top" / "_report.json").read_text())
    assert (len(report["adjacent"]), len(report["ranking"])) == (models - 1, models)  # the file holds them all


def test_dask_tiles_under_a_memory_limit_are_the_in_memory_audit(tmp_path):
    if not os.environ.get("CI"):
        pytest.importorskip("dask.distributed")
    path, matrix = _leaderboard(tmp_path, 120, 600, seed=7)
    out = tmp_path / "pairs"
    command = [sys.executable, "-m", "llm_power_verified.cli", "audit", str(path), *_TILES, "--out", str(out)]
    command += ["--n-resamples", "0", "--band-pairs", "1500", "--workers", "2", "--worker-memory", "1GB"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    local = audit_leaderboard(matrix, "all", n_resamples=0)
    assert len(os.listdir(out)) > 5
    assert _dataset(out).equals(_in_memory_parquet(tmp_path, path, []))
    _assert_report(json.loads((out / "_report.json").read_text()), local, 600)


def test_fail_on_gates_on_the_adjacent_pairs(tmp_path, capsys):
    path, matrix = _leaderboard(tmp_path, 8, 300, seed=3)
    command = ["audit", str(path), *_TILES, "--out", str(tmp_path / "pairs"), "--n-resamples", "0"]
    local = audit_leaderboard(matrix, "all", n_resamples=0)
    expected = int(not local.pairs[local.pairs["adjacent"]]["resolved"].all())
    assert main([*command, "--fail-on", "unresolved"]) == expected == 1
    assert "gate failed" in capsys.readouterr().err


def _refused(capsys, command: list[str], fragment: str) -> None:
    assert main(command) == 2
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1 and fragment in message, message


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--mode", "adjacent"], "give --mode all"),
        (["--family", "adjacent"], "give --mode all"),
        (["--format", "csv"], "give --format parquet --out FOLDER"),
        (["--columns", "nonsense"], "unknown column 'nonsense'"),
        (["--columns", "icc"], "present when the items have clusters"),
        (["--n-rank-resamples", "100"], "drop --n-rank-resamples"),
        (["--worker-memory", "2GB"], "add --workers N"),
        (["--workers", "2", "--worker-memory", "2XB"], "not a memory size"),
        (["--workers", "2", "--worker-memory", "1KB"], "under 1 MiB"),
        (["--band-pairs", "0"], "--band-pairs"),
    ],
)
def test_refusals_name_the_flag(tmp_path, capsys, extra, fragment):
    path, _ = _leaderboard(tmp_path, 4, 50, seed=1)
    _refused(capsys, ["audit", str(path), *_TILES, "--out", str(tmp_path / "pairs"), *extra], fragment)
    assert not (tmp_path / "pairs").exists()


def test_band_pairs_needs_tiles(tmp_path, capsys):
    path, _ = _leaderboard(tmp_path, 4, 50, seed=1)
    _refused(capsys, ["audit", str(path), "--band-pairs", "10"], "add --tiles")


def test_folder_must_be_new_or_empty(tmp_path, capsys):
    path, _ = _leaderboard(tmp_path, 4, 50, seed=1)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "other.txt").write_text("x")
    _refused(capsys, ["audit", str(path), *_TILES, "--out", str(tmp_path / "full")], "new or empty folder")
    _refused(capsys, ["audit", str(path), *_TILES, "--out", str(path)], "a file, not a folder")


def test_scores_the_tiles_do_not_audit_are_refused(tmp_path, capsys):
    rng = np.random.default_rng(2)
    graded = pd.DataFrame(rng.random((60, 3)).round(3), columns=["a", "b", "c"])
    graded.insert(0, "item_id", [f"i{k}" for k in range(60)])
    graded.to_csv(tmp_path / "graded.csv", index=False)
    out = tmp_path / "pairs"
    _refused(capsys, ["audit", str(tmp_path / "graded.csv"), *_TILES, "--out", str(out)], "drop --tiles")
    clustered = pd.DataFrame((rng.random((60, 3)) < 0.6).astype(int), columns=["a", "b", "c"])
    clustered.insert(0, "item_id", [f"i{k}" for k in range(60)])
    clustered.insert(1, "topic", [f"t{k % 4}" for k in range(60)])
    clustered.to_csv(tmp_path / "clustered.csv", index=False)
    command = ["audit", str(tmp_path / "clustered.csv"), "--cluster-column", "topic", *_TILES, "--out", str(out)]
    _refused(capsys, command, "--cluster-column")
    long = pd.DataFrame(
        [(f"i{k}", model, epoch, int(rng.random() < 0.6)) for k in range(30) for model in "ab" for epoch in (1, 2)],
        columns=["item_id", "model", "epoch", "score"],
    )
    long.to_csv(tmp_path / "repeats.csv", index=False)
    command = ["audit", str(tmp_path / "repeats.csv"), "--repeat-column", "epoch", *_TILES, "--out", str(out)]
    _refused(capsys, command, "--tiles takes one score per item")
    assert not out.exists()


def test_an_interrupted_run_leaves_no_partial_dataset(tmp_path, capsys, monkeypatch):
    from llm_power_verified.report import tiled_run as tiled_module

    real = tiled_module.tiled_audit

    def interrupted(matrix, folder, **options):
        real(matrix, folder, **options)  # every band written, then the run is stopped
        raise KeyboardInterrupt

    monkeypatch.setattr(tiled_module, "tiled_audit", interrupted)
    path, _ = _leaderboard(tmp_path, 20, 100, seed=5)
    out = tmp_path / "pairs"
    assert main(["audit", str(path), *_TILES, "--out", str(out), "--n-resamples", "0", "--band-pairs", "30"]) == 130
    capsys.readouterr()
    assert not out.exists()


def test_tiles_on_an_existing_scheduler(tmp_path, capsys):
    if not os.environ.get("CI"):
        pytest.importorskip("dask.distributed")
    from dask.distributed import LocalCluster

    path, matrix = _leaderboard(tmp_path, 70, 300, seed=11)
    out = tmp_path / "pairs"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        command = ["audit", str(path), *_TILES, "--out", str(out), "--n-resamples", "0", "--band-pairs", "400"]
        assert main([*command, "--scheduler", cluster.scheduler_address]) == 0
    capsys.readouterr()
    local = audit_leaderboard(matrix, "all", n_resamples=0)
    assert _dataset(out).equals(_in_memory_parquet(tmp_path, path, []))
    _assert_report(json.loads((out / "_report.json").read_text()), local, 300)


def test_the_committed_schema_is_the_generated_one():
    """report/tiled_audit.schema.json is fresh (one of schemas.generated_files, so contract check covers it)."""
    assert check(generated_file(audit_schema("binary+graded"))) == ""
