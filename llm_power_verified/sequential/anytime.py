"""The anytime-valid required N by simulation, and optional-stopping calibration.

See ``llm_power_verified.sequential.e_process`` for the e-process and
:mod:`llm_power_verified.sequential.crossing` for this package's definition of the anytime-valid N.
"""

from __future__ import annotations

import math

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.mcnemar import mcnemar_chi2
from llm_power_verified.sequential.crossing import required_n_anytime
from llm_power_verified.sequential.e_process import log_e_value
from llm_power_verified.sequential.thresholds import exact_counts, threshold_table

__all__ = ["crossing_boundary", "optional_stopping_calibration", "required_n_anytime_simulated", "simulated_crossings"]


def crossing_boundary(horizon: int, table) -> np.ndarray:
    """For m = 1..horizon discordant items, the exact abs(b - c) at which e first reaches 1/alpha (inf where none does).

    Parameters
    ----------
    horizon : int
        The largest number of discordant items, >= 1.
    table : ThresholdTable
        The threshold table of the (alpha, mixture, prior) in question
        (:func:`~llm_power_verified.sequential.thresholds.threshold_table`).

    Returns
    -------
    numpy.ndarray
        2 k(m) - m for m = 1..horizon, k(m) the exact threshold count
        (:func:`~llm_power_verified.sequential.thresholds.exact_counts`); inf where no split of m pairs reaches
        1/alpha.

    Examples
    --------
    >>> from llm_power_verified.sequential.thresholds import threshold_table
    >>> crossing_boundary(6, threshold_table(0.05)).tolist()   # too few items to reach 1/alpha = 20
    [inf, inf, inf, inf, inf, inf]
    >>> crossing_boundary(12, threshold_table(0.05))[6:].tolist()
    [inf, 8.0, 9.0, 10.0, 11.0, 10.0]
    """
    m = np.arange(1, horizon + 1, dtype=np.float64)
    counts = exact_counts(m, table)
    return np.where(counts > m, np.inf, 2 * counts - m)


def simulated_crossings(theta: float, needed: np.ndarray, n_simulations: int, rng: np.random.Generator) -> np.ndarray:
    """Per simulated path, the first discordant count at which a walk with P(+1) = theta reaches abs(b - c) >= needed.

    Paths are drawn in chunks of at most 20 million steps, each chunk's steps in one array.

    Parameters
    ----------
    theta : float
        P(+1), the probability that model A wins a discordant item.
    needed : numpy.ndarray
        The boundary abs(b - c) after m = 1..horizon discordant items (:func:`crossing_boundary`).
    n_simulations : int
        Number of simulated paths.
    rng : numpy.random.Generator
        The source of every random draw.

    Returns
    -------
    numpy.ndarray
        Per path, the first discordant count m with abs(b - c) >= needed[m - 1], inf if none within the horizon.

    Examples
    --------
    >>> walks = simulated_crossings(0.9, np.full(50, 5.0), 4, np.random.default_rng(0))
    >>> walks.tolist()
    [5.0, 5.0, 7.0, 5.0]
    """
    horizon = needed.size
    crossings = np.full(n_simulations, np.inf)
    chunk = max(1, 20_000_000 // horizon)
    for start in range(0, n_simulations, chunk):
        size = min(chunk, n_simulations - start)
        steps = np.where(rng.random((size, horizon)) < theta, 1, -1).astype(np.int32)
        walk = np.abs(np.cumsum(steps, axis=1))
        hit = walk >= needed[None, :]
        crossings[start : start + size] = np.where(hit.any(axis=1), np.argmax(hit, axis=1) + 1, np.inf)
    return crossings


@docfill("counts_int", "n_int", "alpha_float", "power_float", "mixture", "seed", "prior")
def required_n_anytime_simulated(
    b: int,
    c: int,
    n: int,
    alpha: float = 0.05,
    power: float = 0.8,
    mixture: str = "grid",
    n_simulations: int = 2000,
    seed: int = 0,
    prior=(1.0, 1.0),
) -> dict:
    """(1 - beta) quantile of the e-process's first crossing of 1/alpha, in items.

    Discordant signs are simulated with P(A wins) = b / (b + c); discordant
    pairs arrive at rate psi = (b + c)/n per item, so M discordant pairs take
    M / psi items on average.  Paths are simulated up to 4x the boundary
    definition's discordant count; n_simulations that never cross count as inf.

    Parameters
    ----------
    %(counts_int)s
    %(n_int)s
    %(alpha_float)s
    %(power_float)s
    %(mixture)s
    n_simulations : int, default 2000
        Number of simulated paths.
    %(seed)s
    %(prior)s

    Returns
    -------
    dict
        ``required_n`` (the ``power`` quantile of the crossing time, in items), ``median_n``, ``crossed`` (the
        share of paths that crossed), ``n_simulations`` and ``seed``; b = c gives only the first three, inf, inf, 0.

    Notes
    -----
    A path's crossing time in discordant items M is the first m with abs(b_m - c_m) >= 2 k(m) - m
    (:func:`crossing_boundary`); in items it is M / psi.  The exact definition is
    :func:`~llm_power_verified.sequential.crossing.required_n_anytime`.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Appendix C.

    Examples
    --------
    >>> result = required_n_anytime_simulated(1680, 1454, 12032, n_simulations=200, seed=1)
    >>> round(result["required_n"]), round(result["crossed"], 3)
    (12623, 1.0)
    """
    if b == c:
        return {"required_n": math.inf, "median_n": math.inf, "crossed": 0.0}
    rng = np.random.default_rng(seed)
    psi = (b + c) / n
    theta = b / (b + c)
    table = threshold_table(float(alpha), mixture, tuple(prior))
    horizon = int(
        min(4 * psi * float(required_n_anytime(b, c, n, alpha, power, mixture, prior, table)) + 100, 5_000_000)
    )
    crossings = simulated_crossings(theta, crossing_boundary(horizon, table), n_simulations, rng)
    items = crossings / psi
    return {
        "required_n": float(np.quantile(items, power)),
        "median_n": float(np.median(items)),
        "crossed": float(np.mean(np.isfinite(crossings))),
        "n_simulations": n_simulations,
        "seed": seed,
    }


@docfill("alpha_float", "mixture", "seed")
def optional_stopping_calibration(
    n_items: int,
    looks: int,
    p10: float,
    p01: float,
    n_simulations: int = 2000,
    alpha: float = 0.05,
    mixture: str = "grid",
    seed: int = 0,
) -> dict:
    """Rejection rates of the e-process and of a peeked fixed-n chi-square test at the same looks.

    Paired 0/1 items are simulated with discordant probabilities p10 (A only)
    and p01 (B only); at ``looks`` equally spaced times the McNemar chi-square
    test (uncorrected) is run and the e-process is checked.  Under H0
    (p10 = p01) the e-process's rate stays below alpha at any number of looks;
    the peeked chi-square test's does not.

    Parameters
    ----------
    n_items : int
        Items per simulated comparison.
    looks : int
        Number of equally spaced looks.
    p10, p01 : float
        The discordant cell probabilities: model A right and B wrong, and the reverse (p10 + p01 <= 1).
    n_simulations : int, default 2000
        Number of simulated comparisons; n_simulations x n_items is at most 5e6.
    %(alpha_float)s
    %(mixture)s
    %(seed)s

    Returns
    -------
    dict
        Rejection counts out of ``n_simulations``: ``e_process_at_looks``, ``e_process_any_item`` (checked at
        every item), ``peeked_chi2``; with ``looks`` (distinct look times), ``n_simulations``, ``alpha``, ``seed``.

    Notes
    -----
    The e-process rejects when log e >= log(1/alpha) at a look; the chi-square test when the uncorrected
    McNemar p-value (:func:`~llm_power_verified.inference.mcnemar.mcnemar_chi2`) is <= alpha at a look.

    References
    ----------
    Ville, J. (1939). Etude critique de la notion de collectif (the bound P(sup_t e_t >= 1/alpha) <= alpha).

    Examples
    --------
    >>> result = optional_stopping_calibration(500, 10, 0.1, 0.1, n_simulations=400, seed=2)
    >>> result["e_process_any_item"], result["peeked_chi2"]   # under H0, of 400: alpha x 400 = 20
    (10, 79)
    """
    rng = np.random.default_rng(seed)
    cells = (
        rng.multinomial(1, [p10, p01, 1 - p10 - p01], size=(n_simulations, n_items)).astype(np.int8)
        if n_simulations * n_items <= 5_000_000
        else None
    )
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
    return {
        "looks": int(times.size),
        "n_simulations": n_simulations,
        "e_process_at_looks": int(e_reject.sum()),
        "e_process_any_item": int(every_item.sum()),
        "peeked_chi2": int(chi_reject.sum()),
        "alpha": alpha,
        "seed": seed,
    }
