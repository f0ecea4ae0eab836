"""Simulated paired scores and the Monte Carlo calibration of the paired tests (paper Section 5).

Paired Bernoulli scores come from a latent Gaussian copula: X_A = 1{Z_A <= Phi^-1(p_A)},
X_B = 1{Z_B <= Phi^-1(p_B)} with corr(Z_A, Z_B) = rho_z.  The cell
probabilities are exact (bivariate normal CDF), so a replicate of n items is
a single multinomial draw of the four cell counts: no loop over n_simulations
or items.  The implied Bernoulli correlation is reported beside rho_z.

Graded scores: a bivariate normal clipped to [0, 1], or Beta marginals through
the same Gaussian copula.

Randomness comes only from a seeded ``numpy.random.Generator``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.optimize import brentq

from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.mcnemar import mcnemar_test
from llm_power_verified.leaderboard.pairs import bootstrap_pair_cells
from llm_power_verified.parallel import Backend, LocalBackend
from llm_power_verified.power.connor import required_n_connor
from llm_power_verified.results import Result

__all__ = ["CopulaCells", "calibration_table_2", "copula_cells", "monte_carlo_se", "simulate_binary_counts",
           "simulate_graded"]


@dataclass(frozen=True, repr=False)
class CopulaCells(Result):
    """Cell probabilities of a latent-Gaussian paired Bernoulli model and the implied correlation."""

    p11: float
    p10: float
    p01: float
    p00: float
    rho: float


def copula_cells(p_a: float, p_b: float, rho_z: float) -> CopulaCells:
    """Exact cell probabilities for marginals p_a, p_b and latent correlation rho_z.

    Examples
    --------
    >>> cells = copula_cells(0.7, 0.7, 0.0)
    >>> round(cells.p11, 6), round(cells.rho, 12)
    (0.49, 0.0)
    """
    for name, value in (("p_a", p_a), ("p_b", p_b)):
        if not 0 < value < 1:
            raise ArgumentError(f"{name} must lie in (0, 1); got {value!r}")
    if not -1 < rho_z < 1:
        raise ArgumentError(f"rho_z must lie in (-1, 1); got {rho_z!r}")
    z_a, z_b = stats.norm.ppf(p_a), stats.norm.ppf(p_b)
    both = float(stats.multivariate_normal(mean=[0, 0], cov=[[1, rho_z], [rho_z, 1]]).cdf([z_a, z_b])) if rho_z else p_a * p_b
    both = min(max(both, max(0.0, p_a + p_b - 1)), min(p_a, p_b))
    rho = float(_variance.phi_coefficient(both, p_a - both, p_b - both, 1 - p_a - p_b + both))
    return CopulaCells(both, p_a - both, p_b - both, 1 - p_a - p_b + both, rho)


def simulate_binary_counts(n: int, cells: CopulaCells, n_simulations: int, rng: np.random.Generator) -> np.ndarray:
    """(n_simulations, 4) cells (a, b, c, d) of n paired items per replicate."""
    probabilities = np.clip([cells.p11, cells.p10, cells.p01, cells.p00], 0, 1)
    return rng.multinomial(n, probabilities / probabilities.sum(), size=n_simulations)


def simulate_graded(n: int, mean_a: float, mean_b: float, rho_z: float, n_simulations: int, rng: np.random.Generator,
                    model: str = "normal", sd: float = 0.15, beta_shape: tuple[float, float] = (4.0, 2.0)) -> np.ndarray:
    """(n_simulations, n, 2) graded scores in [0, 1].

    ``model="normal"``: bivariate normal with means mean_a, mean_b, sd ``sd``,
    correlation rho_z, clipped to [0, 1].  ``model="beta"``: Beta(``beta_shape``)
    marginals through a Gaussian copula with correlation rho_z, model B shifted
    down by mean_a - mean_b and clipped.
    """
    z = rng.standard_normal((n_simulations, n, 2))
    z[..., 1] = rho_z * z[..., 0] + math.sqrt(1 - rho_z**2) * z[..., 1]
    if model == "normal":
        scores = np.stack([mean_a + sd * z[..., 0], mean_b + sd * z[..., 1]], axis=-1)
    elif model == "beta":
        uniform = stats.norm.cdf(z)
        base = stats.beta.ppf(uniform, *beta_shape)
        scores = np.stack([base[..., 0], base[..., 1] - (mean_a - mean_b)], axis=-1)
    else:
        raise ArgumentError(f"model must be 'normal' or 'beta'; got {model!r}")
    return np.clip(scores, 0.0, 1.0)


def _effect_for_connor_power(p: float, rho_z: float, n: int, alpha: float, power: float) -> tuple[float, CopulaCells]:
    """delta such that Connor's asymptotic power at n is the target, at p +/- delta/2 with latent rho_z."""

    def gap(delta: float) -> float:
        cells = copula_cells(p + delta / 2, p - delta / 2, rho_z)
        return float(required_n_connor(p + delta / 2, p - delta / 2, cells.rho, alpha, power)) - n

    high = 2 * min(p, 1 - p) * 0.999
    delta = brentq(gap, 1e-4, high, xtol=1e-10)
    return delta, copula_cells(p + delta / 2, p - delta / 2, rho_z)


def _bootstrap_rejections(counts: np.ndarray, n: int, alpha: float, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Percentile paired bootstrap (Definition 2) for every replicate: reject when 0 is outside the interval."""

    low, high, _, _, _ = bootstrap_pair_cells(counts[:, 0], counts[:, 1], counts[:, 2], n, n_resamples, 1 - alpha, rng, required=False)
    return (low > 0) | (high < 0)


def calibration_table_2(p_values=(0.5, 0.7, 0.9), rho_values=(0.0, 0.4, 0.8), n: int = 500, n_simulations: int = 1500,
                        alpha: float = 0.05, power: float = 0.8, n_resamples: int = 1000, seed: int = 0,
                        backend: "Backend | None" = None) -> list[dict]:
    """Type-I error and power of five paired-binary variants on the paper's Table 2 grid.

    For each (p, rho_z): ``n_simulations`` datasets of n items under H0 (both
    accuracies p) and under H1 (p +/- delta/2 with delta giving Connor power
    ``power`` at n).  Rejection rates of McNemar chi-square, exact, mid-p,
    continuity-corrected and the percentile paired bootstrap, with Monte Carlo
    standard errors sqrt(r (1 - r) / n_simulations).

    Each (p, rho_z) cell draws from its own child of ``seed``
    (``SeedSequence(seed).spawn``), so a cell's rows do not depend on the other
    cells, and ``backend`` (:mod:`llm_power_verified.parallel`, such as a Dask
    cluster) can compute the cells anywhere with the same result.
    """
    cells = [(p, rho_z) for p in p_values for rho_z in rho_values]
    children = np.random.SeedSequence(seed).spawn(len(cells))
    tasks = [(p, rho_z, child) for (p, rho_z), child in zip(cells, children)]
    runner = backend or LocalBackend()
    results = runner.map(_calibration_cell, tasks, shared=(n, n_simulations, alpha, power, n_resamples))
    return [row for rows in results for row in rows]


def _calibration_cell(n: int, n_simulations: int, alpha: float, power: float, n_resamples: int, p: float, rho_z: float,
                      seed: np.random.SeedSequence) -> list[dict]:
    """The H0 and H1 rows of one (p, rho_z) cell of :func:`calibration_table_2`, from the cell's own seed."""
    rng = np.random.default_rng(seed)
    methods = ("chi2", "exact", "mid-p", "chi2-corrected")
    delta, alternative = _effect_for_connor_power(p, rho_z, n, alpha, power)
    null = copula_cells(p, p, rho_z)
    rows = []
    for hypothesis, cells in (("H0", null), ("H1", alternative)):
        counts = simulate_binary_counts(n, cells, n_simulations, rng)
        row = {"p": p, "rho_z": rho_z, "rho": cells.rho, "hypothesis": hypothesis, "delta": 0.0 if hypothesis == "H0" else delta}
        for method in methods:
            rejected = np.asarray(mcnemar_test(counts[:, 1], counts[:, 2], method).pvalue) <= alpha
            row[method] = float(rejected.mean())
        row["bootstrap"] = float(_bootstrap_rejections(counts[:, [0, 1, 2]], n, alpha, n_resamples, rng).mean())
        row["mc_se"] = {key: math.sqrt(row[key] * (1 - row[key]) / n_simulations) for key in methods + ("bootstrap",)}
        rows.append(row)
    return rows


def monte_carlo_se(rate: float, n_simulations: int) -> float:
    """Standard error sqrt(r (1 - r) / R) of a rejection rate from R n_simulations, floored at r (1 - r) = 1/R."""
    return math.sqrt(max(rate * (1 - rate), 1 / n_simulations) / n_simulations)
