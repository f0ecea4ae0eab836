"""Scale: the blocked, streamed and Dask paths give the in-memory audit's rows bit for bit; the machine formats stream.

The Dask backend's tests are in ``test_dask.py``.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.io import from_array
from llm_power_verified.leaderboard import blocks as blocks_module
from llm_power_verified.leaderboard.audit import AuditSettings, audit_leaderboard, stream_audit
from llm_power_verified.leaderboard.request import AuditRequest
from llm_power_verified.parallel import JoblibBackend, LocalBackend, backend_for
from llm_power_verified.report import document as report_document
from llm_power_verified.report import read_audit_metadata, render, write
from llm_power_verified.report.machine import pair_records


def _matrix(models=12, items=3000, seed=3, graded=False):
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(items, 1)) + np.linspace(0.3, -0.3, models)[None, :] + rng.normal(size=(items, models))
    scores = np.clip(0.5 + 0.2 * latent, 0, 1) if graded else (latent > 0).astype(float)
    return from_array(scores, models=[f"m{k:02d}" for k in range(models)], item_ids=[f"i{k}" for k in range(items)])


def assert_same_rows(left: pd.DataFrame, right: pd.DataFrame) -> None:
    """Same columns in the same order and every value identical (NaN equal to NaN, None to None)."""
    assert list(left.columns) == list(right.columns)
    assert len(left) == len(right)
    for column in left.columns:
        a, b = left[column].to_numpy(), right[column].to_numpy()
        if a.dtype.kind == "f" and b.dtype.kind == "f":
            assert np.array_equal(a, b, equal_nan=True), column
        else:
            assert all(x == y or (x is None and y is None) for x, y in zip(a, b, strict=True)), column


@pytest.mark.parametrize("graded", [False, True])
def test_blocks_of_any_size_give_the_same_table(monkeypatch, graded):
    matrix = _matrix(graded=graded)
    whole = audit_leaderboard(matrix, "all", n_resamples=60, seed=5, min_effect=0.03)
    assert "equivalence" in whole.pairs  # --min-effect's columns are block columns too
    monkeypatch.setattr(blocks_module, "PAIR_BLOCK", 7)
    blocked = audit_leaderboard(matrix, "all", n_resamples=60, seed=5, min_effect=0.03)
    assert_same_rows(whole.pairs, blocked.pairs)
    assert whole.verdicts == blocked.verdicts and whole.multiplicity == blocked.multiplicity
    assert whole.ranking.equals(blocked.ranking)


@pytest.mark.parametrize("mode, family", [("all", None), ("adjacent", "all"), ("all", "adjacent")])
def test_streamed_blocks_are_the_in_memory_rows(monkeypatch, mode, family):
    monkeypatch.setattr(blocks_module, "PAIR_BLOCK", 10)
    matrix = _matrix()
    whole = audit_leaderboard(matrix, mode, family=family, n_resamples=40, seed=2, min_effect=0.03)
    received = []
    streamed = stream_audit(matrix, received.append, mode, family=family, n_resamples=40, seed=2, min_effect=0.03)
    assert len(received) == -(-len(whole.pairs) // 10)
    assert_same_rows(whole.pairs, pd.concat(received, ignore_index=True))
    assert streamed.pairs_written == len(whole.pairs)
    assert streamed.verdicts == whole.verdicts and streamed.by_gap == whole.by_gap and streamed.tiers == whole.tiers
    assert streamed.ranking.equals(whole.ranking)
    adjacent = whole.pairs[whole.pairs["adjacent"]].reset_index(drop=True)
    assert_same_rows(adjacent, streamed.adjacent.reset_index(drop=True))
    assert streamed.headline == whole.headline


@pytest.mark.parametrize("graded", [False, True])
def test_streamed_and_in_memory_headlines_agree_in_reference_mode(graded):
    """The reference ranked in the middle has one neighbour above and one below: both are adjacent pairs.

    The one above has rank_b < rank_a.

    The streamed audit once kept only rank_b - rank_a == 1, so its headline counted one adjacent pair where the
    in-memory
    one counted two; both now read the ``adjacent`` column.
    """
    matrix = _matrix(models=7, graded=graded)
    whole = audit_leaderboard(matrix, "reference", reference="m03", n_resamples=0)
    reference_rank = int(whole.ranking.loc[whole.ranking["model"] == "m03", "rank"].iloc[0])
    assert 1 < reference_rank < 7  # neighbours on both sides
    received = []
    streamed = stream_audit(matrix, received.append, "reference", reference="m03", n_resamples=0)
    assert whole.headline.adjacent_pairs == 2 == len(streamed.pairs)
    assert streamed.headline == whole.headline
    assert sorted(whole.pairs.loc[whole.pairs["adjacent"], "rank_b"]) == [reference_rank - 1, reference_rank + 1]
    assert_same_rows(whole.pairs[whole.pairs["adjacent"]].reset_index(drop=True), streamed.pairs.reset_index(drop=True))


def test_streamed_audit_refuses_clusters():
    matrix = _matrix()
    clustered = from_array(
        matrix.scores, models=list(matrix.models), clusters=[f"c{k % 9}" for k in range(matrix.n_items)]
    )
    with pytest.raises(ValueError, match="does not take item clusters"):
        stream_audit(clustered, lambda frame: None, "all")


def test_parquet_holds_every_row_and_the_report(tmp_path):
    matrix = _matrix()
    whole = audit_leaderboard(matrix, "all", n_resamples=30, min_effect=0.03)
    path = tmp_path / "audit.parquet"
    result = write(AuditRequest(matrix, AuditSettings(mode="all", n_resamples=30, min_effect=0.03)), "parquet", path)
    table = pd.read_parquet(path)
    expected = whole.pairs.copy()
    # Parquet keeps no NaN in a nullable column: undefined values come back as NaN (floats) or None (objects).
    assert_same_rows(expected, table)
    metadata = read_audit_metadata(path)
    assert metadata["pairs_written"] == len(whole.pairs) == result.pairs_written
    assert metadata["verdicts"] == json.loads(json.dumps(whole.verdicts.to_dict()))
    assert [row["model"] for row in metadata["ranking"]] == whole.ranking["model"].tolist()


def test_machine_formats_stream_the_whole_table(monkeypatch):
    monkeypatch.setattr(blocks_module, "PAIR_BLOCK", 9)
    matrix = _matrix(models=8)
    result = audit_leaderboard(matrix, "all", n_resamples=20)
    document = json.loads(render(result, "json"))
    assert list(document)[-1] == "pairs" and len(document["pairs"]) == 28
    assert document == json.loads(json.dumps({**report_document(result), "pairs": pair_records(result.pairs)}))
    lines = render(result, "jsonl").splitlines()
    assert [json.loads(line) for line in lines] == document["pairs"]
    back = pd.read_csv(io.StringIO(render(result, "csv")))
    assert len(back) == 28 and list(back.columns) == list(result.pairs.columns)
    assert np.allclose(back["required_n"], result.pairs["required_n"], rtol=1e-15)


def test_pairs_option_chooses_what_text_formats_list():
    result = audit_leaderboard(_matrix(models=25), "all", n_resamples=0)
    top = render(result, "markdown", pairs="top")
    assert "200 pairs closest in rank of 300" in top
    assert render(result, "markdown", pairs="all").count("\n| m") > 300
    none = render(result, "markdown", pairs="none")
    assert "300 pairs not listed" in none and "| m00 | m01 |" not in none


def test_backend_names_and_checks():
    assert isinstance(backend_for(), LocalBackend)
    assert isinstance(backend_for("threads", workers=2), JoblibBackend)
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        backend_for("joblib", workers=0)
    with pytest.raises(ValueError, match="backend must be one of"):
        backend_for("spark")
    with backend_for("threads", workers=2) as threads:
        assert list(threads.map(pow, [(2, k) for k in range(6)])) == [2**k for k in range(6)]
