"""Build the MMLU-Pro leaderboard example from TIGER-AI-Lab's published per-item model outputs.

Run: python -m crosscheck.build_mmlu_pro_leaderboard ZIP_FOLDER

ZIP_FOLDER holds the ``eval_results/model_outputs_*.zip`` files of
https://github.com/TIGER-AI-Lab/MMLU-Pro (Apache-2.0; commit
f418b116db00b065c2aea046518d8fcf74d39872, the archives whose content is in
that snapshot; the three that do not cover all 12,032 items,
DeepSeek-Coder-V2, gemini-1.5-flash-002 and gemini-1.5-pro-002, are left out,
since a paired comparison needs the same items).  Each archive holds one JSON list of 12,032 records with the
item's ``question_id``, its ``category``, the gold ``answer`` and the model's
extracted ``pred``.  An item counts as correct when ``pred == answer``; an
unextracted answer (``pred`` null) counts as wrong.  (The repository's own
``compute_accuracy.py`` re-extracts answers and guesses at random where none
is found; the stored ``pred`` is used here so that the scores are deterministic.)

Writes:

* ``llm_power_verified/data/mmlu_pro_accuracies.csv``: model, accuracy in
  percent at two decimals (as leaderboards print it), n: the accuracies-only
  example of ``audit-accuracies``;
* ``tests/fixtures/mmlu_pro_tiger/scores.csv.gz``: the per-item 0/1 matrix
  (items keyed by question_id, the category as a cluster column), against
  which the tests check the accuracies-only verdicts.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
ACCURACIES = ROOT / "llm_power_verified" / "data" / "mmlu_pro_accuracies.csv"
SCORES = ROOT / "tests" / "fixtures" / "mmlu_pro_tiger" / "scores.csv.gz"
FULL = 12032
_KEYS = ("question_id", "category", "answer", "pred")
_NAME = re.compile(r"model_outputs_(.+?)_5shots(?:\.json)?\.zip$")


def _records(path: Path) -> list[dict]:
    with zipfile.ZipFile(path) as archive:
        (member,) = [name for name in archive.namelist() if name.endswith(".json")]
        return json.loads(archive.read(member))


def build(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-item 0/1 scores of the archives in ``folder`` and the table of their accuracies."""
    columns, categories, skipped = {}, None, []
    for path in sorted(folder.glob("model_outputs_*.zip")):
        match = _NAME.search(path.name)
        if match is None:
            raise SystemExit(f"{path}: not a 5-shot model_outputs archive")
        records = _records(path)
        if len(records) != FULL:
            skipped.append(f"{match.group(1)} ({len(records):,} items)")
            continue
        frame = pd.DataFrame([{key: record.get(key) for key in _KEYS} for record in records]).set_index("question_id")
        if frame.index.has_duplicates:
            raise SystemExit(f"{path}: repeated question_id")
        if categories is None:
            categories = frame["category"]
        elif not frame.index.sort_values().equals(categories.index.sort_values()):
            raise SystemExit(f"{path}: a different item set")
        columns[match.group(1)] = (frame["pred"] == frame["answer"]).astype(np.int8)
    scores = pd.DataFrame(columns).loc[categories.index].sort_index()
    scores.insert(0, "category", categories.loc[scores.index])
    scores.index.name = "item_id"
    accuracy = scores.drop(columns="category").mean()
    table = pd.DataFrame(
        {"model": accuracy.index, "accuracy": [f"{100 * value:.2f}" for value in accuracy], "n": len(scores)}
    )
    print("left out (not scored on all 12,032 items, so not paired with the rest): " + ", ".join(skipped))
    return scores, table.sort_values("accuracy", key=lambda column: -column.astype(float), kind="stable")


def main(argv: list[str] | None = None) -> int:
    """Build the example from the archives in the folder named on the command line and write its two files."""
    parser = argparse.ArgumentParser(
        prog="python -m crosscheck.build_mmlu_pro_leaderboard", description=__doc__.split("\n")[0]
    )
    parser.add_argument("folder", type=Path, help="folder of TIGER-AI-Lab/MMLU-Pro eval_results/model_outputs_*.zip")
    arguments = parser.parse_args(argv)
    scores, table = build(arguments.folder)
    SCORES.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO()
    scores.to_csv(buffer)
    SCORES.write_bytes(gzip.compress(buffer.getvalue().encode(), mtime=0))
    ACCURACIES.write_text(table.to_csv(index=False))
    print(
        f"{scores.shape[1] - 1} models x {len(scores):,} items -> {SCORES.relative_to(ROOT)}, "
        f"{ACCURACIES.relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
