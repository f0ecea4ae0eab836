"""The Dask backend on a real ``dask.distributed`` LocalCluster: results bit for bit the local ones.

The LocalCluster has two worker processes.

Under CI (``CI`` set) dask must be installed (it is in the test extra) and
these tests run; elsewhere they are skipped only when dask is missing.
"""

from __future__ import annotations

import os

import pandas as pd
import pytest

from llm_power_verified.leaderboard import blocks as blocks_module
from llm_power_verified.leaderboard.audit import AuditSettings, audit_leaderboard
from llm_power_verified.leaderboard.request import AuditRequest
from llm_power_verified.parallel import DaskBackend
from llm_power_verified.report import read_audit_metadata, write
from llm_power_verified.simulation.embedding import embedding_power_grid
from tests.leaderboard.test_scale import _matrix, assert_same_rows

if not os.environ.get("CI"):
    pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def cluster():
    with DaskBackend(workers=2) as backend:
        yield backend


def test_dask_audit_is_the_local_audit(cluster, monkeypatch):
    monkeypatch.setattr(blocks_module, "PAIR_BLOCK", 11)
    matrix = _matrix()
    local = audit_leaderboard(matrix, "all", n_resamples=50, seed=9, min_effect=0.03)
    remote = audit_leaderboard(matrix, "all", n_resamples=50, seed=9, backend=cluster, min_effect=0.03)
    assert "q_min_effect" in remote.pairs  # the gap of interest travels to the workers in BlockSettings
    assert_same_rows(local.pairs, remote.pairs)
    assert local.verdicts == remote.verdicts and local.headline == remote.headline


def test_dask_parquet_is_the_local_parquet(cluster, tmp_path):
    matrix = _matrix(models=15)
    settings = AuditSettings(mode="all", n_resamples=0, min_effect=0.03)
    write(AuditRequest(matrix, settings), "parquet", tmp_path / "local.parquet")
    write(AuditRequest(matrix, settings, backend=cluster), "parquet", tmp_path / "dask.parquet")
    assert_same_rows(pd.read_parquet(tmp_path / "local.parquet"), pd.read_parquet(tmp_path / "dask.parquet"))
    assert read_audit_metadata(tmp_path / "local.parquet") == read_audit_metadata(tmp_path / "dask.parquet")


@pytest.mark.parametrize("random_numbers", ["common", "independent"])
def test_dask_grid_is_the_local_grid(cluster, random_numbers):
    options = dict(
        n_simulations=40,
        seed=3,
        sample_sizes=(20, 50),
        effects=(0.0, 0.05),
        correlations=(0.2, 0.6),
        random_numbers=random_numbers,
    )
    assert embedding_power_grid(backend=cluster, **options) == embedding_power_grid(**options)


def test_dask_calibration_grid_is_the_local_grid(cluster):
    from llm_power_verified.simulation.grids import calibration_table_2

    options = dict(p_values=(0.6, 0.8), rho_values=(0.2,), n=200, n_simulations=100, n_resamples=100, seed=4)
    assert calibration_table_2(backend=cluster, **options) == calibration_table_2(**options)


@pytest.mark.parametrize("address", ["foo", "tcp://127.0.0.1"])
def test_a_malformed_scheduler_address_is_one_line(tmp_path, address):
    import subprocess
    import sys

    from tests.cli.test_cli import _wide_csv

    table = _wide_csv(tmp_path / "scores.csv")
    result = subprocess.run(
        [sys.executable, "-m", "llm_power_verified.cli", "audit", str(table), "--quiet", "--scheduler", address],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and f"scheduler {address!r}: cannot connect" in result.stderr, result.stderr
