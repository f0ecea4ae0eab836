"""The tiled all-pairs audit (row bands, two passes, one Parquet file per band) is the in-memory audit, bit for bit.

The files read in name order equal ``audit_leaderboard(matrix, "all").pairs`` row for row after the same Arrow round
trip (``DataFrame.equals``: same columns, order, dtypes and values, NaN equal to NaN), with the local backend and with a
real Dask LocalCluster of two worker processes; the summaries (rank intervals, the family's counts, the verdicts) are
the in-memory audit's.
"""

from __future__ import annotations

import itertools
import os

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io import from_array
from llm_power_verified.leaderboard import blocks as blocks_module
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.leaderboard.bands import plan_bands
from llm_power_verified.leaderboard.tiled_audit import tiled_audit

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _matrix(models: int, items: int, seed: int):
    """A seeded leaderboard of strongly paired neighbours (shared item difficulty), models in shuffled columns."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(items, 1)) + np.linspace(0.4, -0.4, models)[None, :] + rng.normal(size=(items, models))
    names = [f"m{k:03d}" for k in rng.permutation(models)]
    return from_array((latent > 0).astype(float), models=names, item_ids=[f"i{k:04d}" for k in range(items)])


def _dataset(folder) -> pd.DataFrame:
    """The band files read in name order, as one frame."""
    files = sorted(name for name in os.listdir(folder) if name.endswith(".parquet"))
    return pa.concat_tables([pq.read_table(os.path.join(folder, name)) for name in files]).to_pandas()


def _round_trip(frame: pd.DataFrame) -> pd.DataFrame:
    """The dtype conversion the files went through (pandas -> Arrow -> pandas)."""
    return pa.Table.from_pandas(frame, preserve_index=False).to_pandas()


def _assert_same_audit(tiled, local, folder) -> None:
    """Rows, rank intervals, family and verdict counts of the tiled audit equal the in-memory audit's."""
    rows = _dataset(folder)
    assert rows.equals(_round_trip(local.pairs))
    assert not [name for name in os.listdir(folder) if not name.endswith(".parquet")]  # no temporary left
    assert tiled.pairs_written == len(local.pairs)
    assert tiled.adjacent.equals(local.pairs[local.pairs["adjacent"]].reset_index(drop=True))
    for column in ("rank", "model", "mean_score", "ci_low", "ci_high", "rank_low", "rank_high", "tier"):
        assert np.array_equal(tiled.ranking[column].to_numpy(), local.ranking[column].to_numpy()), column
    assert tiled.multiplicity == local.multiplicity
    assert tiled.verdicts == local.verdicts
    assert (tiled.tiers.significant_pairs, tiled.tiers.resolved_pairs, tiled.tiers.adjacent) == (
        local.tiers.significant_pairs,
        local.tiers.resolved_pairs,
        local.tiers.adjacent,
    )
    assert [(b.bucket, b.pairs, b.unresolved, b.r_worst) for b in tiled.by_gap] == [
        (b.bucket, b.pairs, b.unresolved, b.r_worst) for b in local.by_gap
    ]


def _assert_neighbourhood(tiled, folder, alpha: float) -> None:
    """tied_first / tied_last: the extreme ranks of the models not significantly different (Holm over all pairs)."""
    rows = _dataset(folder)
    tied = rows[rows["p_holm"] > alpha]
    ranks = np.concatenate([tied["rank_a"], tied["rank_b"]])
    partners = np.concatenate([tied["rank_b"], tied["rank_a"]])
    frame = pd.DataFrame({"rank": ranks, "partner": partners}).groupby("rank")["partner"]
    first, last = frame.min(), frame.max()
    for rank, low, high in tiled.ranking[["rank", "tied_first", "tied_last"]].itertuples(index=False):
        assert low == min(rank, first.get(rank, rank))
        assert high == max(rank, last.get(rank, rank))


@pytest.mark.parametrize(
    ("models", "items", "seed", "per_band", "block"),
    [(60, 500, 1, 97, 301), (150, 1200, 2, 2_000, 20_000), (300, 2_000, 3, 7_000, 5_003)],
)
def test_local_bands_are_the_local_pair_table(tmp_path, monkeypatch, models, items, seed, per_band, block):
    # Blocks smaller than bands and bands smaller than blocks: both grids cut each other.
    monkeypatch.setattr(blocks_module, "PAIR_BLOCK", block)
    matrix = _matrix(models, items, seed)
    local = audit_leaderboard(matrix, "all", n_resamples=0)
    tiled = tiled_audit(matrix, tmp_path / "pairs", pairs_per_band=per_band)
    assert tiled.bands == len(plan_bands(models, per_band)) > 1
    _assert_same_audit(tiled, local, tmp_path / "pairs")
    _assert_neighbourhood(tiled, tmp_path / "pairs", 0.05)


def test_bootstrap_and_gap_of_interest_travel_to_the_bands(tmp_path):
    # The per-pair bootstrap streams and the min-effect columns are the in-memory audit's too.
    matrix = _matrix(40, 600, 4)
    settings = dict(n_resamples=30, seed=5, min_effect=0.03, alpha=0.1, power=0.9, correction="bh")
    local = audit_leaderboard(matrix, "all", **settings)
    tiled = tiled_audit(matrix, tmp_path / "pairs", pairs_per_band=150, **settings)
    assert "q_min_effect" in _dataset(tmp_path / "pairs")
    _assert_same_audit(tiled, local, tmp_path / "pairs")


def test_dask_bands_are_the_local_pair_table(tmp_path):
    if not os.environ.get("CI"):
        pytest.importorskip("dask.distributed")
    from llm_power_verified.parallel import DaskBackend

    matrix = _matrix(200, 1_500, 6)
    local = audit_leaderboard(matrix, "all", n_resamples=0)
    with DaskBackend(workers=2) as backend:
        tiled = tiled_audit(matrix, tmp_path / "pairs", backend=backend, pairs_per_band=3_000)
    assert tiled.bands > 2 * backend.workers
    _assert_same_audit(tiled, local, tmp_path / "pairs")


@pytest.mark.parametrize("models", [2, 3, 17, 64])
@pytest.mark.parametrize("per_band", [1, 5, 100, 10**6])
def test_bands_cover_the_triangle_in_order(models, per_band):
    bands = plan_bands(models, per_band)
    assert bands[0].first_row == 0 and bands[0].start == 0
    assert bands[-1].stop_row == models - 1 and bands[-1].stop == models * (models - 1) // 2
    for before, after in itertools.pairwise(bands):
        assert (before.stop_row, before.stop) == (after.first_row, after.start)
    # A band is a whole number of rows holding at least per_band pairs, unless it is the last.
    assert all(band.stop - band.start >= per_band for band in bands[:-1])
    assert [band.index for band in bands] == list(range(len(bands)))


def test_refusals(tmp_path):
    matrix = _matrix(5, 50, 7)
    graded = from_array(np.full((50, 3), 0.5), models=["a", "b", "c"])
    with pytest.raises(ArgumentError, match="0/1 scores"):
        tiled_audit(graded, tmp_path / "graded")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "other.txt").write_text("x")
    with pytest.raises(ArgumentError, match="new or empty"):
        tiled_audit(matrix, tmp_path / "full")
    with pytest.raises(ArgumentError, match="pairs_per_band"):
        tiled_audit(matrix, tmp_path / "bands", pairs_per_band=0)
    with pytest.raises(ArgumentError, match="alpha"):
        tiled_audit(matrix, tmp_path / "alpha", alpha=1.5)


def test_a_folder_that_is_a_file_or_below_one_is_refused_in_one_line(tmp_path):
    """A raw NotADirectoryError reached the caller for a folder below a file."""
    matrix = from_array((np.random.default_rng(1).random((40, 4)) < 0.6).astype(float), models=list("wxyz"))
    (tmp_path / "file").write_text("x")
    with pytest.raises(ArgumentError, match="a file, not a folder"):
        tiled_audit(matrix, tmp_path / "file")
    with pytest.raises(ArgumentError, match="cannot be made"):
        tiled_audit(matrix, tmp_path / "file" / "below")


@pytest.mark.parametrize(("size", "per_band"), [(10.5, 3), (-1, 3), (10, 0), (10, 2.5), (True, 3)])
def test_plan_bands_refuses_sizes_that_are_not_whole(size, per_band):
    """plan_bands(10.5, 3) gave a band ending at row 9.5."""
    with pytest.raises(ArgumentError, match="must be a whole number"):
        plan_bands(size, per_band)


def _in_memory_parquet(matrix, path, columns) -> pd.DataFrame:
    """The in-memory audit's Parquet table (report.machine.write_parquet, the writer of --format parquet)."""
    from llm_power_verified.report.machine import parquet_blocks, write_parquet

    local = audit_leaderboard(matrix, "all", n_resamples=0)
    write_parquet(path, parquet_blocks(local), columns=columns, kind="binary")
    return pd.read_parquet(path)


@pytest.mark.parametrize("columns", ["default", "all", ["default", "log_e"]])
def test_chosen_columns_are_the_in_memory_parquet_table(tmp_path, columns):
    from llm_power_verified.report.tiled_run import tiled_parquet

    matrix = _matrix(50, 400, 8)
    tiled = tiled_parquet(matrix, tmp_path / "pairs", columns=columns, pairs_per_band=300)
    expected = _in_memory_parquet(matrix, tmp_path / "local.parquet", columns)
    assert tiled.bands > 2
    assert pd.read_parquet(tmp_path / "pairs").equals(expected)
    assert _dataset(tmp_path / "pairs").equals(expected)
    assert tiled.pairs_columns == list(expected.columns)
    assert len(expected.columns) == {"default": 22, "all": 53}.get(str(columns), 23)


def test_the_summary_is_json_and_its_median_rho_is_exact(tmp_path):
    """to_dict() held DataFrames (json.dumps raised TypeError); the median rho of every pair is np.nanmedian's."""
    import json

    from llm_power_verified.io import json_ready

    rng = np.random.default_rng(9)
    scores = (rng.random((300, 30)) < np.linspace(0.3, 0.8, 30)).astype(float)
    scores[:, 4] = 1.0  # a model solving every item: its 29 pairs have an undefined rho (NaN)
    matrix = from_array(scores, models=[f"m{k:02d}" for k in range(30)])
    tiled = tiled_audit(matrix, tmp_path / "pairs", pairs_per_band=40)
    local = audit_leaderboard(matrix, "all", n_resamples=0)
    assert local.pairs["rho"].isna().sum() == 29
    assert tiled.headline.median_rho == np.nanmedian(local.pairs["rho"].to_numpy()) == local.headline.median_rho
    assert tiled.headline == local.headline  # every fact of the headline, the smallest resolvable gap included
    document = json.loads(json.dumps(json_ready(tiled)))
    assert document == json.loads(json.dumps(tiled.to_dict()))
    assert document["median_rho"] == local.headline.median_rho
    assert document["pairs"] == len(local.pairs) and len(document["adjacent"]) == 29


@pytest.mark.parametrize("models", [2, 3, 4, 7])
def test_median_rho_of_few_pairs(tmp_path, models):
    # One, three, six and 21 pairs: odd and even counts, one band per row.
    matrix = _matrix(models, 200, models)
    tiled = tiled_audit(matrix, tmp_path / "pairs", pairs_per_band=1)
    local = audit_leaderboard(matrix, "all", n_resamples=0)
    assert tiled.headline.median_rho == float(np.median(local.pairs["rho"].to_numpy()))
