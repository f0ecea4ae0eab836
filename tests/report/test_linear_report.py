"""A linear-mode audit above LINEAR_MODELS models: every format says what was not computed, and the JSON is valid."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from llm_power_verified.cli import main
from llm_power_verified.io import from_array
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.leaderboard.headline import IMPRACTICAL_ITEMS
from llm_power_verified.leaderboard.memory import LINEAR_MODELS
from llm_power_verified.report.headline import headline
from llm_power_verified.report.schemas import SCHEMA_FILES

SCHEMA = Path(__file__).resolve().parents[2] / "llm_power_verified" / "report" / SCHEMA_FILES["binary+graded"]


@pytest.fixture(scope="module")
def wide(tmp_path_factory) -> Path:
    """LINEAR_MODELS + 5 models on 12 items (seeded), some of them identical (b = c = 0 pairs)."""
    rng = np.random.default_rng(29)
    models = LINEAR_MODELS + 5
    scores = (rng.random((12, models)) < np.linspace(0.9, 0.1, models)).astype(int)
    path = tmp_path_factory.mktemp("linear") / "wide.csv"
    header = "item_id," + ",".join(f"m{k:04d}" for k in range(models))
    rows = [f"q{i}," + ",".join(map(str, row)) for i, row in enumerate(scores)]
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


@pytest.mark.parametrize("mode", ["adjacent", "reference"])
def test_the_json_is_valid_with_its_ranks_null_and_a_note(wide, tmp_path, mode):
    out = tmp_path / "audit.json"
    reference = ["--reference", "m0000"] if mode == "reference" else []
    assert (
        main(
            [
                "audit",
                str(wide),
                "--mode",
                mode,
                *reference,
                "--n-resamples",
                "0",
                "--quiet",
                "--format",
                "json",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    document = json.loads(out.read_text())
    jsonschema.validate(document, json.loads(SCHEMA.read_text()), cls=jsonschema.Draft202012Validator)
    assert {row["rank_low"] for row in document["ranking"]} == {None}
    assert any("above 2,000 models" in note for note in document["notes"])


def test_the_text_report_says_not_tested_and_prints_no_missing_marker(wide, capsys):
    assert main(["audit", str(wide), "--mode", "adjacent", "--n-resamples", "0"]) == 0
    text = capsys.readouterr().out
    assert (
        f"pairs: not tested in mode adjacent above {LINEAR_MODELS:,} models (an all-pairs pass needs K x K arrays; "
        "this mode keeps memory linear in the models); `audit --mode all --tiles" in " ".join(text.split())
    )
    assert "<NA>" not in text and "nan" not in text.lower().split()


def _flat(text: str) -> str:
    """The report with its prose unwrapped (the terminal wraps at the width)."""
    return " ".join(text.split())


def test_the_text_report_has_no_empty_letters_and_says_the_rank_interval_is_na(wide, capsys):
    assert main(["audit", str(wide), "--mode", "adjacent", "--n-resamples", "0", "--width", "200"]) == 0
    text = capsys.readouterr().out
    models = text.split("\nModels\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert models[0].split() == ["rank", "model", "mean", "score", "[interval]", "rank", "interval", "tier"]
    legend = text.split("\nLegend\n", 1)[1]
    assert "\nletters:" not in legend and "Holm over all pairs)" not in legend.split("rank interval:", 1)[1]
    assert (
        f"rank interval: n/a in this audit: mode adjacent computes nothing over all pairs above {LINEAR_MODELS:,}"
        in (_flat(legend))
    )
    # The anytime-valid section lists the pairs it heads.
    anytime = text.split("\nAnytime-valid (grid-mixture e-process at N)\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(anytime) == 1 + 200  # the header, then the 200 listed pairs


def test_counts_have_thousands_separators_and_are_said_once(wide, capsys):
    assert main(["audit", str(wide), "--mode", "adjacent", "--n-resamples", "0", "--pairs", "none"]) == 0
    output = capsys.readouterr().out
    head, rest = output.split("\nModels\n", 1)
    text = _flat(head + rest.split("\n\n", 1)[1])  # the prose and the tables of counts: not the model table's ranks
    pairs = LINEAR_MODELS + 4
    assert re.search(r"(?<![\w.,])200[45](?!\d)", text) is None  # 2,004 pairs and 2,005 models, never 2004 / 2005
    assert f"(m = {pairs:,})" in text and f"(of {pairs:,})" in text
    # Holm stops at a step and counts the pairs past it once, without a "(2003 pairs)" repeat.
    assert re.search(r"so [\d,]+ pairs past it are counted", text) and not re.search(r"past it \(\d+ pairs\)", text)


def test_the_reference_headline_states_the_reference_comparisons(wide, tmp_path, capsys):
    out = tmp_path / "reference.json"
    arguments = ["audit", str(wide), "--mode", "reference", "--reference", "m0000", "--n-resamples", "0", "--quiet"]
    assert main([*arguments, "--format", "json", "--out", str(out)]) == 0
    printed = _flat(capsys.readouterr().out)
    pairs = json.loads(out.read_text())["pairs"]
    significant = sum(pair["significant"] is True for pair in pairs)
    resolved = sum(pair["resolved"] is True for pair in pairs)
    line = (
        f"Comparisons with the reference (family 'reference', m = {len(pairs):,}, holm at alpha 0.05): significant "
        f"{significant:,}/{len(pairs):,}, resolved (q >= 1, each pair at alpha) {resolved:,}/{len(pairs):,}"
    )
    assert len(pairs) == LINEAR_MODELS + 4 and line in printed
    # --format json --out prints what --format parquet --out prints: the pair count and the headline.
    assert printed.startswith(f"wrote {out}: {len(pairs):,} pairs ") and "Adjacent gaps (the reference's" in printed


def test_a_gap_no_practical_n_resolves_is_said_as_such():
    rng = np.random.default_rng(3)
    first = rng.uniform(0.2, 0.8, 200)
    noise = rng.normal(0.0, 0.01, 200)
    second = first + (noise - noise.mean()) + 1e-7  # a mean gap of 1e-7 (graded): N* about 7.6e10
    scores = np.column_stack([first, second, rng.random(200) * 0.5])
    audit = audit_leaderboard(from_array(scores, models=["x", "y", "z"]), n_resamples=0)
    required = audit.pairs.set_index("model_a").loc["y", "required_n"]
    assert required > IMPRACTICAL_ITEMS
    text = " ".join(headline(audit))
    assert (
        f"No practical N resolves every adjacent gap: 1 adjacent pair needs over {IMPRACTICAL_ITEMS:,} items, with "
        f"each pair at alpha 0.05; the hardest (a gap of 1e-07 between y and x) needs {int(np.ceil(required)):,}"
    ) in text
    assert "N that would resolve every adjacent gap" not in text
