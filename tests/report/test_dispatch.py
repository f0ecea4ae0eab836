"""The dispatcher: render/write choose the format for any audit.

Parquet streams for a request, and is written for audits in memory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from llm_power_verified.contract import FORMATS, SCHEMA_IDS
from llm_power_verified.errors import ArgumentError
from llm_power_verified.examples import shipped_example
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.leaderboard.accuracies import audit_accuracies
from llm_power_verified.leaderboard.audit import AuditSettings
from llm_power_verified.leaderboard.protocol import Audit
from llm_power_verified.leaderboard.request import AuditRequest
from llm_power_verified.report import document, read_audit_metadata, render, write

ACCURACIES = Path(__file__).resolve().parents[2] / "llm_power_verified" / "data" / "mmlu_pro_accuracies.csv"
SETTINGS = AuditSettings(mode="all", n_resamples=20, n_cluster_resamples=0)


@pytest.fixture(scope="module")
def request_and_audit():
    request = AuditRequest(shipped_example(clusters=False), SETTINGS)
    return request, request.run()


@pytest.fixture(scope="module")
def accuracies():
    return audit_accuracies(read_accuracies(ACCURACIES), rho=0.5)


def test_both_audits_implement_the_protocol(request_and_audit, accuracies):
    assert isinstance(request_and_audit[1], Audit) and isinstance(accuracies, Audit)
    assert accuracies.kind == "accuracies" and request_and_audit[1].kind == "binary"
    assert document(accuracies)["schema"] == SCHEMA_IDS["accuracies"]
    assert document(request_and_audit[1])["schema"] == SCHEMA_IDS["binary+graded"]


@pytest.mark.parametrize("format", [name for name in FORMATS if name != "parquet"])
def test_every_text_format_renders_both_audits(request_and_audit, accuracies, format):
    for audit in (request_and_audit[1], accuracies):
        text = render(audit, format, figures=False)
        assert text.endswith("\n") and len(text) > 200
        if format == "json":
            assert len(json.loads(text)["pairs"]) == len(audit.pairs)


def test_parquet_of_a_request_streams_the_same_rows_as_the_audit_in_memory(tmp_path, request_and_audit):
    request, whole = request_and_audit
    streamed = write(request, "parquet", tmp_path / "audit.parquet")
    assert streamed.pairs_written == len(
        whole.pairs
    )  # the audit returned is the streamed one: only adjacent rows in memory
    assert len(streamed.pairs) == int(whole.pairs["adjacent"].sum()) < len(whole.pairs)
    frame = pd.read_parquet(tmp_path / "audit.parquet")
    pd.testing.assert_frame_equal(
        frame[["model_a", "model_b", "required_n"]],
        whole.pairs[["model_a", "model_b", "required_n"]],
        check_dtype=False,
    )
    metadata = read_audit_metadata(tmp_path / "audit.parquet")
    assert metadata["pairs_written"] == len(whole.pairs) and metadata["headline"] == document(whole)["headline"]


def test_accuracies_get_parquet_too(tmp_path, accuracies):
    assert write(accuracies, "parquet", tmp_path / "acc.parquet") is accuracies
    frame = pd.read_parquet(tmp_path / "acc.parquet")
    assert list(frame.columns) == list(accuracies.pairs.columns) and len(frame) == len(accuracies.pairs)
    # A critical correlation outside the admissible interval is reported as none (null), as in JSON.
    outside = ~accuracies.pairs["rho_critical"].between(accuracies.pairs["rho_min"], accuracies.pairs["rho_max"])
    assert outside.any() and frame.loc[outside.to_numpy(), "rho_critical"].isna().all()
    assert read_audit_metadata(tmp_path / "acc.parquet")["schema"] == SCHEMA_IDS["accuracies"]


def test_write_runs_a_request_for_the_other_formats_and_writes_what_render_gives(tmp_path, request_and_audit):
    request, whole = request_and_audit
    audit = write(request, "csv", tmp_path / "audit.csv")
    assert (tmp_path / "audit.csv").read_text() == render(whole, "csv") and len(audit.pairs) == len(whole.pairs)
    write(whole, "markdown", tmp_path / "audit.md")
    assert (tmp_path / "audit.md").read_text() == render(whole, "markdown")


def test_write_to_standard_output(capsys, accuracies):
    write(accuracies, "jsonl")
    assert capsys.readouterr().out == render(accuracies, "jsonl")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda audit: render(audit, "yaml"), "format must be one of"),
        (lambda audit: render(audit, "table", pairs="some"), "pairs must be one of"),
        (lambda audit: render(audit, "table", width=0), "width must be"),
        (lambda audit: render(audit, "table", colour=True), "unknown view option 'colour'"),
        (lambda audit: render(audit, "parquet"), "binary file"),
        (lambda audit: write(audit, "parquet"), "needs a file"),
    ],
)
def test_view_options_are_checked_once_with_one_line(request_and_audit, call, message):
    with pytest.raises(ArgumentError, match=message):
        call(request_and_audit[1])


def test_columns_are_refused_for_an_accuracies_report(accuracies):
    with pytest.raises(ArgumentError, match="columns chooses per-item pair columns"):
        render(accuracies, "table", columns=["q"])
