"""The reports of an audit with a smallest gap of interest: headline words, the "Gaps that matter" section, schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from llm_power_verified.examples import shipped_example
from llm_power_verified.io import from_array
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.report import render
from llm_power_verified.report.headline import headline
from llm_power_verified.report.schemas import SCHEMA_FILES

SCHEMA = Path(__file__).resolve().parents[2] / "llm_power_verified" / "report" / SCHEMA_FILES["binary+graded"]


@pytest.fixture(scope="module")
def audit():
    return audit_leaderboard(shipped_example(), n_resamples=0, n_cluster_resamples=0, min_effect=0.02)


def test_headline_words_each_fact_with_its_level(audit):
    lines = headline(audit)
    facts = audit.headline
    gaps = next(line for line in lines if line.startswith("Gaps of interest (--min-effect 0.02)"))
    resolved = facts.adjacent["resolved_min_effect"]
    assert f"in {resolved.count}/{resolved.defined} adjacent pairs (q(0.02) >= 1, each pair at alpha)" in gaps
    assert f"n/a for {facts.min_effect_undefined} (discordance below 0.02)" in gaps
    every = next(line for line in lines if line.startswith("N that would resolve a gap of 0.02"))
    assert f"{facts.required_n_min_effect:,} items with each pair at alpha 0.05" in every
    assert f"{facts.required_n_min_effect_family:,} at alpha/9 (Bonferroni over the 9 adjacent pairs" in every
    assert "in the 8 adjacent pairs where it is defined" in every
    equivalence = next(line for line in lines if line.startswith("Equivalence within +-0.02"))
    assert "each at alpha, no multiplicity" in equivalence
    assert all(f"{outcome}: {count}/9" in equivalence for outcome, count in facts.equivalence.items())
    # The all-pairs count names its level as the adjacent one does (the issue: "resolved 39" beside a Holm count).
    assert any(line.startswith("All 45 pairs:") and "resolved (q >= 1, each pair at alpha) " in line for line in lines)


def test_every_text_format_has_the_section_and_its_rows(audit):
    adjacent = audit.pairs[audit.pairs["adjacent"]]
    for output in ("table", "markdown", "html"):
        text = render(audit, output, **({} if output == "html" else {"width": 200}))
        assert "Gaps that matter (--min-effect 0.02: adjacent pairs, each at alpha 0.05)" in text, output
        for outcome in adjacent["equivalence"]:
            assert outcome in text
    html = render(audit, "html")
    assert "margin_ci_low" in html and "p_equivalence" in html  # legend entries of the columns shown


def test_the_json_report_follows_the_schema(audit):
    document = json.loads(render(audit, "json"))
    jsonschema.validate(document, json.loads(SCHEMA.read_text()), cls=jsonschema.Draft202012Validator)
    assert sum(pair["equivalence"] is not None for pair in document["pairs"]) == 9


def test_graded_audit_states_why_a_pair_is_na():
    rng = np.random.default_rng(4)
    base = rng.random((300, 1))
    scores = np.hstack([base, base, np.clip(base - 0.1 + rng.normal(0, 0.1, size=(300, 1)), 0, 1)])
    audit = audit_leaderboard(from_array(scores, models=["x", "twin", "z"]), n_resamples=0, min_effect=0.05)
    twin = audit.pairs[audit.pairs["variance"] == 0]
    assert len(twin) == 1 and np.isnan(twin["q_min_effect"].iloc[0])
    gaps = next(line for line in headline(audit) if line.startswith("Gaps of interest"))
    assert "n/a for 1 (the same difference on every item)" in gaps
    assert any("the same difference on every item (a variance of 0)" in note for note in audit.notes)


def test_the_json_report_counts_the_gaps_of_interest_from_its_own_pairs(audit):
    """gaps_of_interest restates the adjacent rows of the pair table it is written with, count by count."""
    document = json.loads("".join(render(audit, "json")))
    counts = document["gaps_of_interest"]
    adjacent = [row for row in document["pairs"] if row["adjacent"]]
    assert counts["min_effect"] == 0.02 and counts["adjacent_pairs"] == len(adjacent) == 9
    assert counts["resolved"] == sum(bool(row["resolved_min_effect"]) for row in adjacent)
    assert counts["undefined"] == sum(row["q_min_effect"] is None for row in adjacent)
    defined = [row["required_n_min_effect"] for row in adjacent if row["required_n_min_effect"] is not None]
    assert counts["required_n"] == int(np.ceil(max(defined)))
    for outcome, count in counts["equivalence"].items():
        assert count == sum(row["equivalence"] == outcome for row in adjacent)
    plain = json.loads(
        "".join(render(audit_leaderboard(shipped_example(), n_resamples=0, n_cluster_resamples=0), "json"))
    )
    assert plain["gaps_of_interest"] is None
