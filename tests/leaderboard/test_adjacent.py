"""The ``adjacent`` column, the audit protocol and the headline facts computed by the audit.

The ``adjacent`` column is the one rule of "adjacent pair".
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from llm_power_verified.io import from_array
from llm_power_verified.io.errors import InputError
from llm_power_verified.leaderboard.audit import audit_leaderboard, stream_audit
from llm_power_verified.leaderboard.protocol import Audit
from llm_power_verified.plan import plan_leaderboard
from llm_power_verified.plan.reports import read_audit_report
from llm_power_verified.report import render


def _matrix(models: int = 6, items: int = 1500, seed: int = 5):
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(items, 1)) + np.linspace(0.5, -0.5, models)[None, :] + rng.normal(size=(items, models))
    return from_array(
        (latent > 0).astype(float),
        models=[f"m{k}" for k in range(models)],
        item_ids=[f"i{k:05d}" for k in range(items)],
    )


@pytest.mark.parametrize("mode, reference", [("adjacent", None), ("all", None), ("reference", "m2")])
def test_adjacent_follows_rank_b_and_marks_neighbours_in_the_ranking(mode, reference):
    pairs = audit_leaderboard(_matrix(), mode, reference=reference, n_resamples=0).pairs
    columns = list(pairs.columns)
    assert columns[columns.index("rank_b") + 1] == "adjacent"
    assert pairs["adjacent"].dtype == bool
    np.testing.assert_array_equal(pairs["adjacent"], (pairs["rank_a"] - pairs["rank_b"]).abs() == 1)
    assert int(pairs["adjacent"].sum()) == (5 if mode != "reference" else 2)


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda record, index: record.pop("adjacent"), "no 'adjacent'"),
        (lambda record, index: record.update(adjacent="yes"), "'yes' is not true or false"),
        (lambda record, index: record.update(adjacent=not record["adjacent"]) if index == 0 else None, "make it"),
    ],
)
def test_plan_checks_a_saved_reports_adjacent_column_against_its_ranks(tmp_path, damage, message):
    """The saved report's adjacent column must be there and follow its ranks; a plan never guesses it."""
    result = audit_leaderboard(_matrix(), "all", n_resamples=0)
    document = json.loads(render(result, "json"))
    intact, damaged = tmp_path / "intact.json", tmp_path / "damaged.json"
    intact.write_text(json.dumps(document))
    assert plan_leaderboard(read_audit_report(intact), 4).required_n == plan_leaderboard(result, 4).required_n
    for index, record in enumerate(document["pairs"]):
        damage(record, index)
    damaged.write_text(json.dumps(document))
    with pytest.raises(InputError, match=message) as refused:
        read_audit_report(damaged)
    assert "pairs[0]" in str(refused.value) and "audit --format json" in str(refused.value)


def test_both_per_item_audits_implement_the_protocol():
    matrix = _matrix()
    result = audit_leaderboard(matrix, n_resamples=0)
    streamed = stream_audit(matrix, lambda block: None, n_resamples=0)
    for audit in (result, streamed):
        assert isinstance(audit, Audit)
        assert audit.kind == "binary" and audit.source == matrix.source
        assert audit.settings()["family"] == "adjacent" and audit.data()["n_models"] == 6
        assert list(audit.sections()) == [
            "multiplicity",
            "clusters",
            "verdicts",
            "resolution_by_gap",
            "tiers",
            "gaps_of_interest",
        ]
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
