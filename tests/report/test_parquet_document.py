"""A Parquet audit is the JSON report: its metadata holds every member but ``pairs`` (the checklist too, for a streamed
audit), and metadata plus rows validate against the report's schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pyarrow.parquet as pq
import pytest

from llm_power_verified.examples import shipped_example
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.leaderboard.accuracies import audit_accuracies
from llm_power_verified.leaderboard.audit import AuditSettings, audit_leaderboard
from llm_power_verified.leaderboard.request import AuditRequest
from llm_power_verified.report import read_audit_metadata, render, write
from llm_power_verified.report.machine import pair_records
from llm_power_verified.report.schemas import SCHEMA_FILES

SCHEMAS = Path(__file__).resolve().parents[2] / "llm_power_verified" / "report"
ACCURACIES = SCHEMAS.parent / "data" / "mmlu_pro_accuracies.csv"


def _schema(kind: str) -> dict:
    return json.loads((SCHEMAS / SCHEMA_FILES[kind]).read_text())


def _document(path: Path) -> dict:
    """The JSON report a Parquet audit holds: its metadata with its rows as ``pairs``."""
    document = read_audit_metadata(path)
    document["pairs"] = pair_records(pq.read_table(path).to_pandas())
    return document


@pytest.mark.parametrize("n_resamples", [0, 30])
def test_a_streamed_parquet_audit_carries_the_checklist_and_follows_the_schema(tmp_path, n_resamples):
    # The streamed audit never holds its pair table; the checklist used to be left out of its metadata although
    # the schema requires it.  It is now counted from the blocks written, and equals the in-memory report's.
    request = AuditRequest(shipped_example(clusters=False), AuditSettings(mode="all", n_resamples=n_resamples))
    path = tmp_path / "streamed.parquet"
    write(request, "parquet", path)
    document = _document(path)
    jsonschema.validate(document, _schema("binary+graded"), cls=jsonschema.Draft202012Validator)
    in_memory = json.loads(render(request.run(), "json"))
    assert document["checklist"] == in_memory["checklist"]
    assert document["pairs_written"] == len(in_memory["pairs"]) == 45
    assert set(document) - {"pairs_written"} == set(in_memory)


def test_parquet_of_audits_in_memory_follows_the_schema(tmp_path):
    audit = audit_leaderboard(shipped_example(), "adjacent", n_resamples=0, n_cluster_resamples=0)
    write(audit, "parquet", tmp_path / "clustered.parquet")
    document = _document(tmp_path / "clustered.parquet")
    jsonschema.validate(document, _schema("binary+graded"), cls=jsonschema.Draft202012Validator)
    assert document == json.loads(render(audit, "json"))
    accuracies = audit_accuracies(read_accuracies(ACCURACIES), rho=0.5)
    write(accuracies, "parquet", tmp_path / "accuracies.parquet")
    jsonschema.validate(
        _document(tmp_path / "accuracies.parquet"), _schema("accuracies"), cls=jsonschema.Draft202012Validator
    )
