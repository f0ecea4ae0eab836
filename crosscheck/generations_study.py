"""Monte Carlo study of the two-level analysis (several generations per item) over a grid of designs.

Run: python -m crosscheck.generations_study [--check]

Writes ``crosscheck/data/generations_study.json`` (the tables with the seed, the numbers of replicates and the
versions that produced them) and the tables of ``docs/source/verification.rst`` between its ``generations-study``
markers.  ``--check`` recomputes and compares with the stored file instead (exit 1 on a difference).

Three parts, each over designs of :class:`llm_power_verified.simulation.generations.TwoLevelDesign`:

* bias: the estimators of ``llm_power_verified.repeats.split`` (per model and per pair) averaged over replicates,
  beside their truth; passes when every |mean - truth| <= 4 Monte Carlo standard errors;
* type I: the paired t-test on item means under mu_A = mu_B at alpha = 0.05; passes when the rate lies in the
  central 99.9% binomial range of R draws at alpha;
* planning: ``plan_generations`` at the true variances; the simulated power of its cheapest (N, K) and of
  K = 1, 2, 5 passes when it is >= power - 3 SE and <= the plan's exact power at that N + 3 SE.

Each cell draws from ``SeedSequence([SEED, part, index])``: one cell's numbers do not depend on the others, so
the tests recompute a few cells in the default run and compare them with the stored file.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
from dataclasses import replace
from itertools import product
from pathlib import Path

import numpy as np
import scipy

import llm_power_verified
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.simulation.generations import TwoLevelDesign, two_level_truth
from llm_power_verified.simulation.generations_study import estimator_bias, planned_power, type_one_error

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "crosscheck" / "data" / "generations_study.json"
DOCS = ROOT / "docs" / "source" / "verification.rst"
BEGIN, END = ".. generations-study-begin", ".. generations-study-end"
SEED = 20261124
ALPHA, POWER = 0.05, 0.8
REPLICATES = {"bias": 4000, "type_one_error": 10000, "planning": 10000}
PARTS = ("bias", "type_one_error", "planning")


def bias_designs() -> list[TwoLevelDesign]:
    """Graded (sigma_b, sigma_w, K, N) and binary (logit sigma_b, location, K, N), equal and unequal counts."""
    graded = [
        TwoLevelDesign("graded", n, k, sigma_b, sigma_w, 0.5, 0.6, 0.55)
        for sigma_b, sigma_w, k, n in product((0.05, 0.2), (0.1, 0.4), (2, 5), (30, 300))
    ]
    binary = [
        TwoLevelDesign("binary", n, k, sigma_b, 0.0, 0.5, location, location - 0.3)
        for sigma_b, location, k, n in product((0.5, 2.0), (0.0, 2.0), (2, 5), (30, 300))
    ]
    unequal = [
        TwoLevelDesign("graded", 100, 6, 0.1, 0.3, 0.5, 0.6, 0.55, unequal=True),
        TwoLevelDesign("binary", 100, 6, 1.0, 0.0, 0.5, 1.0, 0.7, unequal=True),
    ]
    return graded + binary + unequal


def null_designs() -> list[TwoLevelDesign]:
    """The bias designs with model B moved onto model A (no gap)."""
    return [replace(design, location_b=design.location_a) for design in bias_designs()]


#: (design, cost_item, cost_generation): graded and binary truths, generations cheap and dear.
PLANNING = (
    (TwoLevelDesign("graded", 2, 1, 0.1, 0.3, 0.5, 0.55, 0.5), 1.0, 1.0),
    (TwoLevelDesign("graded", 2, 1, 0.1, 0.3, 0.5, 0.55, 0.5), 1.0, 0.1),
    (TwoLevelDesign("binary", 2, 1, 1.0, 0.0, 0.5, 1.0, 0.7), 1.0, 1.0),
    (TwoLevelDesign("binary", 2, 1, 1.0, 0.0, 0.5, 1.0, 0.7), 1.0, 0.1),
)


def _rng(part: str, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([SEED, PARTS.index(part), index]))


def _describe(design: TwoLevelDesign) -> dict[str, object]:
    return {
        "kind": design.kind,
        "between_sd": design.between_sd,
        "within_sd": design.within_sd,
        "generations": design.generations,
        "unequal": design.unequal,
        "items": design.items,
        "correlation": design.correlation,
        "location_a": design.location_a,
        "location_b": design.location_b,
    }


def bias_cell(index: int) -> dict[str, object]:
    """Bias rows of bias design ``index``."""
    design = bias_designs()[index]
    rows = estimator_bias(design, REPLICATES["bias"], _rng("bias", index))
    return {"index": index, "design": _describe(design), "rows": rows}


def type_one_cell(index: int) -> dict[str, object]:
    """Type-I error of null design ``index``."""
    design = null_designs()[index]
    row = type_one_error(design, REPLICATES["type_one_error"], _rng("type_one_error", index), ALPHA)
    return {"index": index, "design": _describe(design), **row}


def planning_cell(index: int) -> dict[str, object]:
    """Planned and simulated power of planning scenario ``index``."""
    design, cost_item, cost_generation = PLANNING[index]
    truth = two_level_truth(design)
    rows = planned_power(
        design,
        REPLICATES["planning"],
        _rng("planning", index),
        alpha=ALPHA,
        power=POWER,
        cost_item=cost_item,
        cost_generation=cost_generation,
    )
    return {
        "index": index,
        "design": _describe(design),
        "cost_item": cost_item,
        "cost_generation": cost_generation,
        "gap": truth.gap,
        "between_variance": truth.pair_between_variance,
        "within_variance": truth.pair_within_variance,
        "rows": rows,
    }


CELLS = {"bias": bias_cell, "type_one_error": type_one_cell, "planning": planning_cell}


def build(cells: dict[str, list[int]] | None = None) -> dict[str, object]:
    """The study: every cell, or the listed cells of each part."""
    counts = {"bias": len(bias_designs()), "type_one_error": len(null_designs()), "planning": len(PLANNING)}
    chosen = cells or {part: list(range(count)) for part, count in counts.items()}
    study = {
        "generator": "python -m crosscheck.generations_study",
        "seed": SEED,
        "alpha": ALPHA,
        "power": POWER,
        "n_simulations": REPLICATES,
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "llm_power_verified": llm_power_verified.__version__,
        },
    }
    for part in PARTS:
        study[part] = [CELLS[part](index) for index in chosen.get(part, [])]
    return study


def failures(study: dict[str, object]) -> list[str]:
    """Every row that misses its criterion (module docstring), one line each."""
    problems = []
    for cell in study["bias"]:
        problems += [
            f"bias {cell['index']} {row['statistic']}: z = {row['z']:.2f}" for row in cell["rows"] if abs(row["z"]) > 4
        ]
    for cell in study["type_one_error"]:
        if not cell["low"] <= cell["rate"] <= cell["high"]:
            problems.append(f"type I {cell['index']}: {cell['rate']} outside [{cell['low']}, {cell['high']}]")
    for cell in study["planning"]:
        for row in cell["rows"]:
            low, high = study["power"] - 3 * row["mc_se"], row["planned_power"] + 3 * row["mc_se"]
            if not low <= row["rate"] <= high:
                problems.append(
                    f"planning {cell['index']} K={row['generations']}: {row['rate']} not in [{low}, {high}]"
                )
    return problems


def differences(fresh: dict[str, object], stored: dict[str, object], relative: float = 1e-9) -> list[str]:
    """Numbers of ``fresh`` that differ from the same cells of ``stored`` by more than ``relative``."""
    found = []

    def compare(path: str, new: object, old: object) -> None:
        if isinstance(new, dict):
            for key in new:
                compare(f"{path}.{key}", new[key], old.get(key) if isinstance(old, dict) else None)
        elif isinstance(new, list):
            if not isinstance(old, list) or len(old) != len(new):
                found.append(f"{path}: {len(new)} entries, stored {old!r:.60}")
                return
            for position, (first, second) in enumerate(zip(new, old, strict=True)):
                compare(f"{path}[{position}]", first, second)
        elif isinstance(new, float) and isinstance(old, (int, float)) and not isinstance(old, bool):
            if abs(new - old) > relative * max(abs(new), abs(old)):
                found.append(f"{path}: {new!r} != stored {old!r}")
        elif new != old:
            found.append(f"{path}: {new!r} != stored {old!r}")

    for part in PARTS:
        by_index = {cell["index"]: cell for cell in stored[part]}
        for cell in fresh[part]:
            compare(f"{part}[{cell['index']}]", cell, by_index.get(cell["index"]))
    return found


def load(path: Path = STORED) -> dict[str, object]:
    """The stored study."""
    return parse_json(path.read_bytes(), str(path.relative_to(ROOT)))


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in [header, *rows]:
        lines += [f"   * - {row[0]}"] + [f"     - {value}" for value in row[1:]]
    return [*lines, ""]


def _cell_label(design: dict[str, object]) -> str:
    kind = design["kind"]
    spread = (
        f"sigma_b {design['between_sd']:g}, sigma_w {design['within_sd']:g}"
        if kind == "graded"
        else f"logit sigma_b {design['between_sd']:g}, mu_A {design['location_a']:g}"
    )
    k = f"K 2-{design['generations']}" if design["unequal"] else f"K {design['generations']}"
    return f"{kind}, {spread}, {k}, N {design['items']}"


def render_rst(study: dict[str, object]) -> str:
    """The docs' tables of the study (reStructuredText), from the stored numbers."""
    statistics = ("model A within_variance", "model A between_variance", "pair between_variance")
    header = ["cell"] + [f"{name}: truth, mean (MC SE)" for name in statistics] + ["largest abs(z) of 8"]
    rows = []
    for cell in study["bias"]:
        by_name = {row["statistic"]: row for row in cell["rows"]}
        values = [
            f"{by_name[name]['truth']:.5g}, {by_name[name]['mean']:.5g} ({by_name[name]['mc_se']:.2g})"
            for name in statistics
        ]
        rows.append([_cell_label(cell["design"]), *values, f"{max(abs(row['z']) for row in cell['rows']):.2f}"])
    designs = [cell["design"] for cell in study["bias"]]
    correlations = ", ".join(sorted({f"{design['correlation']:g}" for design in designs}))
    shifts = {
        kind: ", ".join(sorted({f"{d['location_a'] - d['location_b']:.6g}" for d in designs if d["kind"] == kind}))
        for kind in ("graded", "binary")
    }
    lines = [
        f"Estimator bias ({study['n_simulations']['bias']} replicates per cell; correlation of the item levels "
        f"{correlations}; model B {shifts['graded']} (graded) or {shifts['binary']} logits (binary) below model A;",
        "unequal counts cycle over 2 to K):",
        "",
        *_table(header, rows),
    ]
    rows = [
        [_cell_label(cell["design"]), f"{cell['rate']:.4f}", f"{cell['low']:.4f} to {cell['high']:.4f}"]
        for cell in study["type_one_error"]
    ]
    lines += [
        f"Type-I error of the paired t-test on item means at alpha = {study['alpha']} "
        f"({study['n_simulations']['type_one_error']} replicates per cell, the same designs with no gap):",
        "",
        *_table(["cell", "rate", "99.9% binomial range"], rows),
    ]
    rows = []
    for cell in study["planning"]:
        label = (
            f"{cell['design']['kind']}, gap {cell['gap']:.4g}, sigma_item^2 {cell['between_variance']:.4g}, "
            f"sigma_w^2 {cell['within_variance']:.4g}, cost item {cell['cost_item']:g}, "
            f"generation {cell['cost_generation']:g}"
        )
        rows += [
            [
                label,
                f"{row['generations']}{' (cheapest)' if row['cheapest'] else ''}",
                str(row["items"]),
                f"{row['cost']:g}",
                f"{row['planned_power']:.4f}",
                f"{row['rate']:.4f} ({row['mc_se']:.2g})",
            ]
            for row in cell["rows"]
        ]
    lines += [
        f"Planned (N, K) at the true variances, target power {study['power']}, and the simulated power of the paired",
        f"t-test ({study['n_simulations']['planning']} replicates per row):",
        "",
        *_table(["truth and costs", "K", "N", "cost", "planned power", "simulated (MC SE)"], rows),
    ]
    return "\n".join(lines).strip("\n")


def docs_section(text: str) -> str:
    """The text between the markers of the docs page."""
    start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:stop].strip("\n")


def write(study: dict[str, object]) -> None:
    """Store the study and its tables in the docs page."""
    stored = {**study, "date": datetime.date.today().isoformat()}
    STORED.write_text(json.dumps(stored, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    text = DOCS.read_text(encoding="utf-8")
    start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOCS.write_text(f"{text[:start]}\n\n{render_rst(study)}\n\n{text[stop:]}", encoding="utf-8")


def main() -> None:
    """Run the study, then store it (or, with --check, compare it with the stored one)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored study instead of writing")
    arguments = parser.parse_args()
    study = build()
    problems = failures(study)
    print("\n".join(problems) or "every cell meets its criterion")
    if arguments.check:
        found = differences(study, load())
        print("\n".join(found) or "the stored study is reproduced")
        sys.exit(1 if found or problems else 0)
    write(study)


if __name__ == "__main__":
    main()
