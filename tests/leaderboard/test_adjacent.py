"""The ``adjacent`` column (the one rule of "adjacent pair"), the audit protocol and the headline facts computed by the audit."""

from __future__ import annotations

import json

import numpy as np
import pytest

from llm_power_verified.io import from_array
from llm_power_verified.leaderboard.audit import audit_leaderboard, stream_audit
from llm_power_verified.leaderboard.protocol import Audit
from llm_power_verified.plan import plan_leaderboard
from llm_power_verified.plan.reports import read_audit_report
from llm_power_verified.report import render


def _matrix(models: int = 6, items: int = 1500, seed: int = 5):
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(items, 1)) + np.linspace(0.5, -0.5, models)[None, :] + rng.normal(size=(items, models))
    return from_array((latent > 0).astype(float), models=[f"m{k}" for k in range(models)], item_ids=[f"i{k:05d}" for k in range(items)])


@pytest.mark.parametrize("mode, reference", [("adjacent", None), ("all", None), ("reference", "m2")])
def test_adjacent_follows_rank_b_and_marks_neighbours_in_the_ranking(mode, reference):
    pairs = audit_leaderboard(_matrix(), mode, reference=reference, n_resamples=0).pairs
    columns = list(pairs.columns)
    assert columns[columns.index("rank_b") + 1] == "adjacent"
    assert pairs["adjacent"].dtype == bool
    np.testing.assert_array_equal(pairs["adjacent"], (pairs["rank_a"] - pairs["rank_b"]).abs() == 1)
    assert int(pairs["adjacent"].sum()) == (5 if mode != "reference" else 2)


def test_plan_reads_a_report_written_before_the_adjacent_column(tmp_path):
    """A saved JSON report without ``adjacent`` (written before it existed) plans the same as one with it."""
    result = audit_leaderboard(_matrix(), "all", n_resamples=0)
    document = json.loads(render(result, "json"))
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    new.write_text(json.dumps(document))
    for record in document["pairs"]:
        del record["adjacent"]
    old.write_text(json.dumps(document))
    from_new, from_old = plan_leaderboard(read_audit_report(new), 4), plan_leaderboard(read_audit_report(old), 4)
    assert from_old.required_n == from_new.required_n == plan_leaderboard(result, 4).required_n
    assert from_old.pairs.equals(from_new.pairs) and len(from_old.pairs) == 3


def test_both_per_item_audits_implement_the_protocol():
    matrix = _matrix()
    result = audit_leaderboard(matrix, n_resamples=0)
    streamed = stream_audit(matrix, lambda block: None, n_resamples=0)
    for audit in (result, streamed):
        assert isinstance(audit, Audit)
        assert audit.kind == "binary" and audit.source == matrix.source
        assert audit.settings()["family"] == "adjacent" and audit.data()["n_models"] == 6
        assert list(audit.sections()) == ["multiplicity", "clusters", "verdicts", "resolution_by_gap", "tiers"]
    assert streamed.pairs.equals(streamed.adjacent)
    assert streamed.headline == result.headline


def test_headline_facts_count_the_adjacent_pairs():
    result = audit_leaderboard(_matrix(), "all", n_resamples=0)
    facts, adjacent = result.headline, result.pairs[result.pairs["adjacent"]]
    assert facts.adjacent_pairs == 5 and facts.total_pairs == 15 == len(result.pairs)
    assert facts.adjacent["resolved"].count == int(adjacent["resolved"].sum())
    assert facts.adjacent["significant"].defined == int(adjacent["significant"].notna().sum())
    assert facts.required_n_all_adjacent == int(np.ceil(adjacent["required_n"].max())) and facts.zero_gap_pairs == 0
    assert 0 < facts.smallest_resolvable_gap < 1 and facts.n_items == 1500 and facts.score_kind == "0/1"
