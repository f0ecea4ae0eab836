"""A clustered request written as Parquet runs in memory and holds the JSON report (defect 7: it used to be refused)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import jsonschema
import pyarrow.parquet as pq

from llm_power_verified.cli.main import main
from llm_power_verified.examples import shipped_example
from llm_power_verified.leaderboard.audit import AuditResult, AuditSettings
from llm_power_verified.leaderboard.request import AuditRequest
from llm_power_verified.report import read_audit_metadata, render, write
from llm_power_verified.report.machine import pair_records
from llm_power_verified.report.schemas import SCHEMA_FILES

SCHEMA = Path(__file__).resolve().parents[2] / "llm_power_verified" / "report" / SCHEMA_FILES["binary+graded"]


def _same(left, right) -> bool:
    """Equal values; floats within 1e-12 relative (the same computation, Parquet stores float64)."""
    if isinstance(left, float) and isinstance(right, float):
        return math.isclose(left, right, rel_tol=1e-12, abs_tol=0.0) or (math.isnan(left) and math.isnan(right))
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))
    return left == right


def _rows_equal(rows: list[dict], expected: list[dict]) -> None:
    assert len(rows) == len(expected)
    for row, want in zip(rows, expected, strict=True):
        assert row.keys() == want.keys()
        differing = [key for key in row if not _same(row[key], want[key])]
        assert not differing, differing


def test_cli_audit_format_parquet_on_the_shipped_example(tmp_path):
    """The README's first command as Parquet with every column (the shipped example has clusters): the JSON's rows."""
    # --columns all: the command line's Parquet default is the contract's default set, the JSON has every column.
    assert (
        main(["audit", "--quiet", "--format", "parquet", "--columns", "all", "--out", str(tmp_path / "audit.parquet")])
        == 0
    )
    assert main(["audit", "--quiet", "--format", "json", "--out", str(tmp_path / "audit.json")]) == 0
    document = read_audit_metadata(tmp_path / "audit.parquet")
    document["pairs"] = pair_records(pq.read_table(tmp_path / "audit.parquet").to_pandas())
    jsonschema.validate(document, json.loads(SCHEMA.read_text()), cls=jsonschema.Draft202012Validator)
    expected = json.loads((tmp_path / "audit.json").read_text())
    assert document["clusters"] == expected["clusters"]
    _rows_equal(document["pairs"], expected["pairs"])


def test_a_clustered_request_writes_parquet_whose_rows_are_the_json_rows(tmp_path):
    request = AuditRequest(shipped_example(), AuditSettings(n_resamples=0, n_cluster_resamples=20))
    path = tmp_path / "clustered.parquet"
    written = write(request, "parquet", path)
    assert isinstance(written, AuditResult) and written.clusters is not None  # run in memory, with its clusters
    document = read_audit_metadata(path)
    rows = pair_records(pq.read_table(path).to_pandas())
    document["pairs"] = rows
    jsonschema.validate(document, json.loads(SCHEMA.read_text()), cls=jsonschema.Draft202012Validator)
    expected = json.loads(render(request.run(), "json"))
    assert document["clusters"] == expected["clusters"]
    assert len(rows) == 9
    _rows_equal(rows, expected["pairs"])
