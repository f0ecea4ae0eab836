"""A linear-mode audit above LINEAR_MODELS models: every format says what was not computed, and the JSON is valid."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from llm_power_verified.cli import main
from llm_power_verified.leaderboard.memory import LINEAR_MODELS
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
    assert f"pairs: not tested in this mode at {LINEAR_MODELS + 5:,} models; --mode all counts them." in text
    assert "<NA>" not in text and "nan" not in text.lower().split()
