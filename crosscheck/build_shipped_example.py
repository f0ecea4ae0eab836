"""Build the shipped example data from the paper's Appendix E (seeded, deterministic).

Run: python -m crosscheck.build_shipped_example [--output-dir DIR]

Writes into llm_power_verified/data/:

* ``paper_appendix_e.json``: the paper's Tables 6 and 7 (N, p_A, p_B, b, c,
  rho-hat, p-values, N* per pair) as printed, with provenance, and for each
  pair what the printed b, c and accuracies imply;
* ``mmlu_pro_top10.csv.gz``: a per-item 0/1 matrix for the MMLU-Pro top-10
  (N = 12,032) reconstructed from the discordant counts.  The first model gets
  round(p_A N) correct items at random positions; each next model flips b of
  the previous model's correct items to wrong and c of its wrong items to
  right, chosen at random, so every adjacent pair has exactly the printed
  (b, c).  The other cells of the adjacent tables, and every non-adjacent
  pair, are not given in the paper and are only what this construction
  produced.  The column ``random_category`` assigns MMLU-Pro's real 14 test
  category sizes to items AT RANDOM: cluster results on it are a null check.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
from pathlib import Path

import numpy as np

from llm_power_verified.power.correlation import correlation_from_counts

OUTPUT_DIR = Path(__file__).resolve().parent.parent / "llm_power_verified" / "data"
SEED = 20260528
N_MMLU = 12032
SOURCE = "Kotawala (2026), Resolution Diagnostics for Paired LLM Evaluation, arXiv 2605.30315, Appendix E"

# Table 7, MMLU-Pro top-10 adjacent pairs (N = 12,032): (model_a, model_b, p_a, p_b, b, c, rho, p_chi2, p_exact, N*)
TABLE_7 = [
    ("calme-3.2-78b", "calme-3.1-78b", 0.7303, 0.7185, 253, 111, 0.92, "9.9e-14", "7.1e-14", 1697),
    ("calme-3.1-78b", "CalmeRys-78B-Orpo", 0.7185, 0.7012, 284, 76, 0.93, "<1e-15", "<1e-15", 778),
    ("CalmeRys-78B-Orpo", "calme-2.4-rys-78b", 0.7012, 0.7002, 32, 20, 0.99, "0.096", "0.126", 34092),
    ("calme-2.4-rys-78b", "Reflection-70B", 0.7002, 0.6341, 1871, 1076, 0.46, "<1e-15", "<1e-15", 433),
    ("Reflection-70B", "Arcee-Blitz", 0.6341, 0.6153, 1680, 1454, 0.45, "5.4e-5", "5.8e-5", 5787),
    ("Arcee-Blitz", "Homer-Qwen2.5-72B", 0.6153, 0.6145, 1449, 1439, 0.49, "0.852", "0.867", 2727127),
    ("Homer-Qwen2.5-72B", "ultiima-72B-v1.5", 0.6145, 0.6054, 352, 242, 0.90, "6.4e-6", "7.3e-6", 4628),
    ("ultiima-72B-v1.5", "Qwen2.5-72B", 0.6054, 0.5968, 787, 684, 0.75, "7.2e-3", "7.8e-3", 13086),
    ("Qwen2.5-72B", "QwentileSwap", 0.5968, 0.5945, 1227, 1200, 0.58, "0.584", "0.598", 314370),
]
# Table 6, OLL v1 close pairs: (task, model_a, model_b, N, p_a, p_b, b, c, rho, p_chi2, p_exact, N*)
TABLE_6 = [
    ("ARC-C", "gemma-7b", "Llama-3-8B-Instruct", 1172, 0.6109, 0.6075, 98, 94, 0.66, "0.773", "0.829", 110379),
    ("ARC-C", "Llama-3-8B-Instruct", "Llama-3-8B", 1172, 0.6075, 0.5922, 81, 63, 0.74, "0.134", "0.156", 4081),
    ("ARC-C", "gemma-7b", "Llama-3-8B", 1172, 0.6109, 0.5922, 100, 78, 0.68, "0.099", "0.115", 3375),
    ("HellaSwag", "gemma-7b", "Llama-3-8B", 10042, 0.8247, 0.8202, 295, 249, 0.81, "0.049", "0.054", 20255),
    ("Winogrande", "Mistral-7B-I-v0.2", "Llama-3-8B", 1267, 0.7719, 0.7711, 121, 120, 0.46, "0.949", "1.000", 2396624),
    ("Winogrande", "gemma-7b", "Mistral-7B-I-v0.2", 1267, 0.7845, 0.7719, 119, 103, 0.49, "0.283", "0.314", 8616),
    ("Winogrande", "gemma-7b", "Llama-3-8B", 1267, 0.7845, 0.7711, 98, 81, 0.59, "0.204", "0.232", 6152),
]
# MMLU-Pro test-split category sizes (sum 12,032).
CATEGORIES = {
    "math": 1351,
    "physics": 1299,
    "chemistry": 1132,
    "law": 1101,
    "engineering": 969,
    "other": 924,
    "economics": 844,
    "health": 818,
    "psychology": 798,
    "business": 789,
    "biology": 717,
    "philosophy": 499,
    "computer science": 410,
    "history": 381,
}


def reconstruct(seed: int = SEED) -> tuple[np.ndarray, list[str], np.ndarray, list[dict]]:
    """The item matrix, model names, random categories, and per-pair reconstruction notes."""
    if sum(CATEGORIES.values()) != N_MMLU:
        raise AssertionError("category sizes must sum to 12,032")
    rng = np.random.default_rng(seed)
    models = [TABLE_7[0][0]] + [row[1] for row in TABLE_7]
    scores = np.zeros((N_MMLU, len(models)), dtype=np.int8)
    first_correct = round(TABLE_7[0][2] * N_MMLU)
    scores[rng.choice(N_MMLU, first_correct, replace=False), 0] = 1
    notes = []
    for k, (model_a, model_b, p_a, p_b, b, c, rho, *_rest) in enumerate(TABLE_7):
        current = scores[:, k].copy()
        right, wrong = np.flatnonzero(current == 1), np.flatnonzero(current == 0)
        current[rng.choice(right, b, replace=False)] = 0
        current[rng.choice(wrong, c, replace=False)] = 1
        scores[:, k + 1] = current
        x, y = scores[:, k], scores[:, k + 1]
        both = int(np.sum((x == 1) & (y == 1)))
        neither = N_MMLU - both - b - c
        notes.append(
            {
                "pair": f"{model_a} vs {model_b}",
                "printed": {"p_a": p_a, "p_b": p_b, "b": b, "c": c, "rho": rho},
                "reconstructed": {
                    "p_a": float(x.mean()),
                    "p_b": float(y.mean()),
                    "b": int(np.sum((x == 1) & (y == 0))),
                    "c": int(np.sum((x == 0) & (y == 1))),
                    "rho": float(correlation_from_counts(both, b, c, neither)),
                },
            }
        )
    labels = np.repeat(np.array(list(CATEGORIES)), list(CATEGORIES.values()))
    categories = rng.permutation(labels)
    return scores, models, categories, notes


def appendix_e(notes: list[dict]) -> dict:
    """The paper's Tables 6 and 7 as printed, each pair with the gaps its counts and accuracies imply."""

    def implied(n, p_a, p_b, b, c):
        return {"delta_from_counts": (b - c) / n, "delta_from_accuracies": round(p_a - p_b, 6)}

    return {
        "source": SOURCE,
        "note": (
            "Values as printed. The reconstructed item matrix honours every adjacent (b, c) exactly; where the printed "
            "accuracies or rho-hat cannot all hold with those counts, the 'reconstruction' entries show the difference."
        ),
        "table_6_oll_v1_close_pairs": [
            dict(
                zip(
                    (
                        "task",
                        "model_a",
                        "model_b",
                        "n",
                        "p_a",
                        "p_b",
                        "b",
                        "c",
                        "rho",
                        "p_chi2",
                        "p_exact",
                        "required_n",
                    ),
                    row,
                    strict=True,
                ),
                **implied(row[3], row[4], row[5], row[6], row[7]),
            )
            for row in TABLE_6
        ],
        "table_7_mmlu_pro_adjacent": [
            dict(
                zip(
                    ("model_a", "model_b", "p_a", "p_b", "b", "c", "rho", "p_chi2", "p_exact", "required_n"),
                    row,
                    strict=True,
                ),
                n=N_MMLU,
                **implied(N_MMLU, row[2], row[3], row[4], row[5]),
            )
            for row in TABLE_7
        ],
        "reconstruction": notes,
        "categories": {
            "sizes": CATEGORIES,
            "assignment": "random (seeded): cluster results on this column are a null check",
        },
    }


def build(output_dir: Path = OUTPUT_DIR) -> list[Path]:
    """Write the item matrix and the Appendix E summary into ``output_dir``; return their paths."""
    scores, models, categories, notes = reconstruct()
    output_dir.mkdir(parents=True, exist_ok=True)
    table = io.StringIO()
    table.write(",".join(["item_id", "random_category", *models]) + "\n")
    for index in range(N_MMLU):
        table.write(f"mmlu-pro-{index:05d},{categories[index]}," + ",".join(map(str, scores[index])) + "\n")
    matrix_path = output_dir / "mmlu_pro_top10.csv.gz"
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as stream:
        stream.write(table.getvalue().encode())
    matrix_path.write_bytes(buffer.getvalue())
    summary_path = output_dir / "paper_appendix_e.json"
    summary_path.write_text(json.dumps(appendix_e(notes), indent=2) + "\n")
    return [matrix_path, summary_path]


def main(argv=None) -> int:
    """Build the example data into --output-dir and print the paths written."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, default=OUTPUT_DIR)
    for path in build(parser.parse_args(argv).output_dir):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
