"""Graded anytime-valid inference: the betting and empirical-Bernstein confidence sequences, measured.

Their width against the Hoeffding-type normal mixture on the same paths, type-I error under optional stopping, and
time.

Run: python benchmarks/bench_graded_cs.py [--paths 50] [--seed 0]

Paths: paired differences of two graded scores (a shared item effect plus model noise, clipped to [0, 1]) in three
regimes: Beta(4, 2) marginals through a Gaussian copula (the design of "How Many Test Pairs Do You Need?", latent
correlation 0.5, gap 0.02); normal scores with sd 0.15, correlation 0.8, gap 0.01 (close models); and a heavy, skewed
difference
(0.9 with probability 0.1, else -0.1, plus 0.02).  For each, the median over the paths of width(new) / width(Hoeffding)
at N = 1,000 and 10,000 (each sequence at its own item N, the Hoeffding one tuned to that N as `confidence_sequence`
does by default), and the rejection rate of 'no difference' under the worst stopping rule on null paths.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from llm_power_verified.sequential import confidence_sequence
from llm_power_verified.sequential.betting import (
    betting_confidence_sequence,
    betting_log_e,
    empirical_bernstein_confidence_sequence,
    empirical_bernstein_log_e,
)
from llm_power_verified.simulation.grids import simulate_graded


def _regimes(rng: np.random.Generator, items: int, paths: int, gap_scale: float = 1.0) -> dict[str, np.ndarray]:
    beta = simulate_graded(items, 0.02 * gap_scale, 0.0, 0.5, paths, rng, model="beta")
    normal = simulate_graded(items, 0.6 + 0.01 * gap_scale, 0.6, 0.8, paths, rng, model="normal", sd=0.15)
    skewed = np.where(rng.random((paths, items)) < 0.1, 0.9, -0.1) + 0.02 * gap_scale
    return {
        "Beta(4,2) copula, rho_z 0.5": beta[..., 0] - beta[..., 1],
        "normal sd 0.15, rho_z 0.8": normal[..., 0] - normal[..., 1],
        "skewed 0.9 / -0.1": np.clip(skewed, -1, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--paths", type=int, default=50)
    parser.add_argument("--null-paths", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args(argv)
    rng = np.random.default_rng(arguments.seed)
    print(
        "median width ratio over paths (new / Hoeffding-type normal mixture), and seconds per path of the betting "
        "sequence"
    )
    print(f"{'regime':<28} {'N':>6} {'betting':>8} {'emp. Bernstein':>15} {'sd of D':>8} {'s/path':>7}")
    for items in (1000, 10_000):
        for name, differences in _regimes(rng, items, arguments.paths).items():
            ratios, started = [], time.perf_counter()
            for row in differences:
                hoeffding = confidence_sequence(row)
                width = hoeffding.upper[-1] - hoeffding.lower[-1]
                betting = betting_confidence_sequence(row)
                bernstein = empirical_bernstein_confidence_sequence(row)
                ratios.append(
                    (
                        (betting.upper[-1] - betting.lower[-1]) / width,
                        (bernstein.upper[-1] - bernstein.lower[-1]) / width,
                    )
                )
            seconds = (time.perf_counter() - started) / len(differences)
            median = np.median(np.asarray(ratios), axis=0)
            print(
                f"{name:<28} {items:>6,} {median[0]:>8.3f} {median[1]:>15.3f} {differences.std():>8.3f} {seconds:>7.2f}"
            )
    print()
    print(
        "type-I error under optional stopping: rejections of 'no difference' at the first e_t >= 20, "
        f"{arguments.null_paths:,} null "
        "paths of 2,000 items (alpha 0.05)"
    )
    for name, differences in _regimes(rng, 2000, arguments.null_paths, gap_scale=0.0).items():
        for method, log_e in (("betting", betting_log_e), ("empirical Bernstein", empirical_bernstein_log_e)):
            rejected = int((log_e(differences).max(axis=1) >= math.log(20)).sum())
            print(
                f"  {name:<28} {method:<20} {rejected:>5} of {len(differences):,} ({rejected / len(differences):.4f})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
