"""The anytime-valid required N by simulation, and optional-stopping calibration.

See :mod:`llm_power_verified.sequential.e_process` for the e-process and
:mod:`llm_power_verified.sequential.crossing` for this package's definition of the anytime-valid N.
"""

from __future__ import annotations

import math

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.mcnemar import mcnemar_chi2
from llm_power_verified.sequential.crossing import required_n_anytime
from llm_power_verified.sequential.e_process import log_e_value
from llm_power_verified.sequential.thresholds import exact_counts, threshold_table

__all__ = ["crossing_boundary", "optional_stopping_calibration", "required_n_anytime_simulated", "simulated_crossings"]


def crossing_boundary(horizon: int, table) -> np.ndarray:
    """For m = 1..horizon discordant items, the exact |b - c| at which e first reaches 1/alpha (inf where none does)."""
    m = np.arange(1, horizon + 1, dtype=np.float64)
    counts = exact_counts(m, table)
    return np.where(counts > m, np.inf, 2 * counts - m)


def simulated_crossings(theta: float, needed: np.ndarray, n_simulations: int, rng: np.random.Generator) -> np.ndarray:
    """First discordant count at which a walk with P(+1) = theta reaches |b - c| >= needed (inf if never), per simulated path.

    Paths are drawn in chunks of at most 20 million steps, each chunk's steps in one array.
    """
    horizon = needed.size
    crossings = np.full(n_simulations, np.inf)
    chunk = max(1, 20_000_000 // horizon)
    for start in range(0, n_simulations, chunk):
        size = min(chunk, n_simulations - start)
        steps = np.where(rng.random((size, horizon)) < theta, 1, -1).astype(np.int32)
        walk = np.abs(np.cumsum(steps, axis=1))
        hit = walk >= needed[None, :]
        crossings[start:start + size] = np.where(hit.any(axis=1), np.argmax(hit, axis=1) + 1, np.inf)
    return crossings


def required_n_anytime_simulated(b: int, c: int, n: int, alpha: float = 0.05, power: float = 0.8, mixture: str = "grid",
                                 n_simulations: int = 2000, seed: int = 0, prior=(1.0, 1.0)) -> dict:
    """(1 - beta) quantile of the e-process's first crossing of 1/alpha, in items.

    Discordant signs are simulated with P(A wins) = b / (b + c); discordant
    pairs arrive at rate psi = (b + c)/n per item, so M discordant pairs take
    M / psi items on average.  Paths are simulated up to 4x the boundary
    definition's discordant count; n_simulations that never cross count as inf.
    Returns the quantile in items, the median, and the share that crossed.
    """
    if b == c:
        return {"required_n": math.inf, "median_n": math.inf, "crossed": 0.0}
    rng = np.random.default_rng(seed)
    psi = (b + c) / n
    theta = b / (b + c)
    table = threshold_table(float(alpha), mixture, tuple(prior))
    horizon = int(min(4 * psi * float(required_n_anytime(b, c, n, alpha, power, mixture, prior, table)) + 100, 5_000_000))
    crossings = simulated_crossings(theta, crossing_boundary(horizon, table), n_simulations, rng)
    items = crossings / psi
    return {"required_n": float(np.quantile(items, power)), "median_n": float(np.median(items)),
            "crossed": float(np.mean(np.isfinite(crossings))), "n_simulations": n_simulations, "seed": seed}




def optional_stopping_calibration(n_items: int, looks: int, p10: float, p01: float, n_simulations: int = 2000, alpha: float = 0.05,
                                  mixture: str = "grid", seed: int = 0) -> dict:
    """Rejection rates of the e-process and of a peeked fixed-n chi-square test at the same looks.

    Paired 0/1 items are simulated with discordant probabilities p10 (A only)
    and p01 (B only); at ``looks`` equally spaced times the McNemar chi-square
    test (uncorrected) is run and the e-process is checked.  Under H0
    (p10 = p01) the e-process's rate stays below alpha at any number of looks;
    the peeked chi-square test's does not.
    """

    rng = np.random.default_rng(seed)
    cells = rng.multinomial(1, [p10, p01, 1 - p10 - p01], size=(n_simulations, n_items)).astype(np.int8) if n_simulations * n_items <= 5_000_000 else None
    if cells is None:
        raise ArgumentError("n_simulations * n_items must be at most 5e6 for this simulation")
    wins = np.cumsum(cells[:, :, 0], axis=1)
    losses = np.cumsum(cells[:, :, 1], axis=1)
    times = np.unique(np.linspace(n_items / looks, n_items, looks).astype(np.int64)) - 1
    target = math.log(1 / alpha)
    e_reject = np.zeros(n_simulations, dtype=bool)
    chi_reject = np.zeros(n_simulations, dtype=bool)
    for t in times:
        e_reject |= np.asarray(log_e_value(wins[:, t], losses[:, t], mixture)) >= target
        chi_reject |= np.asarray(mcnemar_chi2(wins[:, t], losses[:, t]).pvalue) <= alpha
    every_item = np.zeros(n_simulations, dtype=bool)
    for start in range(0, n_items, 500):
        block = slice(start, min(start + 500, n_items))
        every_item |= (np.asarray(log_e_value(wins[:, block], losses[:, block], mixture)) >= target).any(axis=1)
    return {"looks": int(times.size), "n_simulations": n_simulations, "e_process_at_looks": int(e_reject.sum()),
            "e_process_any_item": int(every_item.sum()), "peeked_chi2": int(chi_reject.sum()), "alpha": alpha, "seed": seed}
