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

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.mcnemar import mcnemar_test
from llm_power_verified.leaderboard.pairs import bootstrap_pair_cells
from llm_power_verified.parallel import Backend, LocalBackend
from llm_power_verified.power.connor import required_n_connor
from llm_power_verified.results import Result

__all__ = [
    "CopulaCells",
    "calibration_table_2",
    "copula_cells",
    "monte_carlo_se",
    "simulate_binary_counts",
    "simulate_graded",
]


@dataclass(frozen=True, repr=False)
class CopulaCells(Result):
    """Cell probabilities of a latent-Gaussian paired Bernoulli model and the implied correlation.

    Attributes
    ----------
    p11, p10, p01, p00 : float
        P(both correct), P(only A), P(only B), P(neither); they sum to 1.
    rho : float
        The implied Bernoulli (phi) correlation of the two models' 0/1 scores.

    Examples
    --------
    >>> cells = copula_cells(0.7, 0.6, 0.5)
    >>> round(cells.p11 + cells.p10, 12), round(cells.p11 + cells.p01, 12)
    (0.7, 0.6)
    """

    p11: float
    p10: float
    p01: float
    p00: float
    rho: float


@docfill(derivation="paired_variance")
def copula_cells(p_a: float, p_b: float, rho_z: float) -> CopulaCells:
    """Exact cell probabilities for marginals p_a, p_b and latent correlation rho_z.

    Parameters
    ----------
    p_a, p_b : float
        Accuracies of models A and B, each in (0, 1).
    rho_z : float
        Correlation of the latent normals, in (-1, 1).

    Returns
    -------
    CopulaCells
        p11, p10, p01, p00 and the implied Bernoulli correlation rho.

    Raises
    ------
    ArgumentError
        p_a or p_b outside (0, 1), or rho_z outside (-1, 1).

    Notes
    -----
    X_A = 1{Z_A <= Phi^-1(p_a)}, X_B = 1{Z_B <= Phi^-1(p_b)} with corr(Z_A, Z_B) = rho_z, so
    p11 = Phi_2(Phi^-1(p_a), Phi^-1(p_b); rho_z) (the bivariate normal CDF, clipped to the Frechet bounds
    [max(0, p_a + p_b - 1), min(p_a, p_b)]), p10 = p_a - p11, p01 = p_b - p11, p00 = 1 - p_a - p_b + p11.  rho is the
    phi coefficient of the cells, (p11 p00 - p10 p01) / sqrt(p_a (1 - p_a) p_b (1 - p_b)).

    Examples
    --------
    >>> cells = copula_cells(0.7, 0.7, 0.0)
    >>> round(cells.p11, 6), round(cells.rho, 12)
    (0.49, 0.0)
    >>> cells = copula_cells(0.7, 0.6, 0.5)
    >>> round(cells.p11, 6), round(cells.rho, 6)
    (0.491891, 0.320227)
    """
    for name, value in (("p_a", p_a), ("p_b", p_b)):
        if not 0 < value < 1:
            raise ArgumentError(f"{name} must lie in (0, 1); got {value!r}")
    if not -1 < rho_z < 1:
        raise ArgumentError(f"rho_z must lie in (-1, 1); got {rho_z!r}")
    z_a, z_b = stats.norm.ppf(p_a), stats.norm.ppf(p_b)
    both = (
        float(stats.multivariate_normal(mean=[0, 0], cov=[[1, rho_z], [rho_z, 1]]).cdf([z_a, z_b]))
        if rho_z
        else p_a * p_b
    )
    both = min(max(both, max(0.0, p_a + p_b - 1)), min(p_a, p_b))
    rho = float(_variance.phi_coefficient(both, p_a - both, p_b - both, 1 - p_a - p_b + both))
    return CopulaCells(both, p_a - both, p_b - both, 1 - p_a - p_b + both, rho)


@docfill("rng")
def simulate_binary_counts(n: int, cells: CopulaCells, n_simulations: int, rng: np.random.Generator) -> np.ndarray:
    """The 2x2 cells of simulated benchmarks of n paired items, one multinomial draw per replicate.

    Parameters
    ----------
    n : int
        Items per benchmark.
    cells : CopulaCells
        The cell probabilities (:func:`copula_cells`).
    n_simulations : int
        Replicates.
    %(rng)s

    Returns
    -------
    numpy.ndarray
        int64, shape (n_simulations, 4): the cells (a, b, c, d) = (both correct, only A, only B, neither) of each
        replicate; each row sums to n.

    Examples
    --------
    >>> import numpy as np
    >>> simulate_binary_counts(500, copula_cells(0.7, 0.6, 0.5), 3, np.random.default_rng(0)).tolist()
    [[262, 98, 58, 82], [257, 110, 50, 83], [244, 95, 53, 108]]
    """
    probabilities = np.clip([cells.p11, cells.p10, cells.p01, cells.p00], 0, 1)
    return rng.multinomial(n, probabilities / probabilities.sum(), size=n_simulations)


@docfill("rng")
def simulate_graded(
    n: int,
    mean_a: float,
    mean_b: float,
    rho_z: float,
    n_simulations: int,
    rng: np.random.Generator,
    model: str = "normal",
    sd: float = 0.15,
    beta_shape: tuple[float, float] = (4.0, 2.0),
) -> np.ndarray:
    """Simulated graded scores in [0, 1] of two models on n paired items.

    Parameters
    ----------
    n : int
        Items per replicate.
    mean_a, mean_b : float
        Model A's and model B's means ("normal"); "beta" uses only their difference.
    rho_z : float
        Correlation of the latent normals, in (-1, 1).
    n_simulations : int
        Replicates.
    %(rng)s
    model : {"normal", "beta"}, default "normal"
        "normal": a bivariate normal with means mean_a, mean_b, sd ``sd`` and correlation rho_z, clipped to [0, 1].
        "beta": Beta(``beta_shape``) marginals through a Gaussian copula with correlation rho_z, model B shifted down
        by mean_a - mean_b and clipped.
    sd : float, default 0.15
        The normal model's standard deviation.
    beta_shape : tuple of two floats, default (4.0, 2.0)
        The Beta model's shape (a, b).

    Returns
    -------
    numpy.ndarray
        Shape (n_simulations, n, 2): the two models' scores.

    Raises
    ------
    ArgumentError
        An unknown ``model``.

    Examples
    --------
    >>> import numpy as np
    >>> scores = simulate_graded(4, 0.7, 0.6, 0.5, 2, np.random.default_rng(0))
    >>> scores.shape, np.round(scores[0], 3).tolist()
    ((2, 4, 2), [[0.719, 0.592], [0.796, 0.662], [0.62, 0.607], [0.896, 0.821]])
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
    """The delta at which Connor's asymptotic power at n is the target, at p +/- delta/2 with latent rho_z."""

    def gap(delta: float) -> float:
        cells = copula_cells(p + delta / 2, p - delta / 2, rho_z)
        return float(required_n_connor(p + delta / 2, p - delta / 2, cells.rho, alpha, power)) - n

    high = 2 * min(p, 1 - p) * 0.999
    delta = brentq(gap, 1e-4, high, xtol=1e-10)
    return delta, copula_cells(p + delta / 2, p - delta / 2, rho_z)


def _bootstrap_rejections(
    counts: np.ndarray, n: int, alpha: float, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Percentile paired bootstrap (Definition 2) for every replicate: reject when 0 is outside the interval."""
    low, high, _, _, _ = bootstrap_pair_cells(
        counts[:, 0], counts[:, 1], counts[:, 2], n, n_resamples, 1 - alpha, rng, required=False
    )
    return (low > 0) | (high < 0)


@docfill("n_simulations", "alpha_float", "power_float", "n_resamples", "seed")
def calibration_table_2(
    p_values=(0.5, 0.7, 0.9),
    rho_values=(0.0, 0.4, 0.8),
    n: int = 500,
    n_simulations: int = 1500,
    alpha: float = 0.05,
    power: float = 0.8,
    n_resamples: int = 1000,
    seed: int = 0,
    backend: Backend | None = None,
) -> list[dict]:
    """Type-I error and power of five paired-binary tests on the paper's Table 2 grid.

    Parameters
    ----------
    p_values : sequence of float, default (0.5, 0.7, 0.9)
        The accuracies p of the grid.
    rho_values : sequence of float, default (0.0, 0.4, 0.8)
        The latent correlations rho_z of the grid.
    n : int, default 500
        Items per simulated benchmark.
    %(n_simulations)s
    %(alpha_float)s
    %(power_float)s
    %(n_resamples)s
    %(seed)s
    backend : Backend, optional
        Where the cells are computed (``llm_power_verified.parallel``, such as a Dask cluster); default this process.

    Returns
    -------
    list of dict
        Two rows per (p, rho_z), H0 then H1: p, rho_z, the implied rho, hypothesis, delta, the rejection rates
        "chi2", "exact", "mid-p", "chi2-corrected" (McNemar) and "bootstrap" (percentile paired bootstrap,
        Definition 2), and mc_se, their Monte Carlo standard errors sqrt(r (1 - r) / n_simulations).

    Notes
    -----
    For each (p, rho_z): ``n_simulations`` benchmarks of n items under H0 (both accuracies p) and under H1
    (p +/- delta/2, delta solved so that Connor's power at n is ``power``; ``derivations/connor.py``).  Each cell draws
    from its own child of ``seed`` (``SeedSequence(seed).spawn``), so a cell's rows do not depend on the other cells,
    and a backend computes them anywhere with the same result.

    Examples
    --------
    >>> rows = calibration_table_2(p_values=(0.7,), rho_values=(0.4,), n=300, n_simulations=400, n_resamples=200)
    >>> [(row["hypothesis"], round(row["delta"], 4), row["exact"], row["bootstrap"]) for row in rows]
    [('H0', 0.0, 0.045, 0.07), ('H1', 0.0916, 0.795, 0.8075)]
    """
    cells = [(p, rho_z) for p in p_values for rho_z in rho_values]
    children = np.random.SeedSequence(seed).spawn(len(cells))
    tasks = [(p, rho_z, child) for (p, rho_z), child in zip(cells, children, strict=True)]
    runner = backend or LocalBackend()
    results = runner.map(_calibration_cell, tasks, shared=(n, n_simulations, alpha, power, n_resamples))
    return [row for rows in results for row in rows]


def _calibration_cell(
    n: int,
    n_simulations: int,
    alpha: float,
    power: float,
    n_resamples: int,
    p: float,
    rho_z: float,
    seed: np.random.SeedSequence,
) -> list[dict]:
    """The H0 and H1 rows of one (p, rho_z) cell of :func:`calibration_table_2`, from the cell's own seed."""
    rng = np.random.default_rng(seed)
    methods = ("chi2", "exact", "mid-p", "chi2-corrected")
    delta, alternative = _effect_for_connor_power(p, rho_z, n, alpha, power)
    null = copula_cells(p, p, rho_z)
    rows = []
    for hypothesis, cells in (("H0", null), ("H1", alternative)):
        counts = simulate_binary_counts(n, cells, n_simulations, rng)
        row = {
            "p": p,
            "rho_z": rho_z,
            "rho": cells.rho,
            "hypothesis": hypothesis,
            "delta": 0.0 if hypothesis == "H0" else delta,
        }
        for method in methods:
            rejected = np.asarray(mcnemar_test(counts[:, 1], counts[:, 2], method).pvalue) <= alpha
            row[method] = float(rejected.mean())
        row["bootstrap"] = float(_bootstrap_rejections(counts[:, [0, 1, 2]], n, alpha, n_resamples, rng).mean())
        row["mc_se"] = {key: math.sqrt(row[key] * (1 - row[key]) / n_simulations) for key in (*methods, "bootstrap")}
        rows.append(row)
    return rows


def monte_carlo_se(rate: float, n_simulations: int) -> float:
    """The Monte Carlo standard error of a rejection rate.

    Parameters
    ----------
    rate : float
        The rejection rate r, in [0, 1].
    n_simulations : int
        R, the replicates behind it.

    Returns
    -------
    float
        sqrt(max(r (1 - r), 1/R) / R): floored at r (1 - r) = 1/R, so that a rate of 0 or 1 keeps a positive error.

    Examples
    --------
    >>> round(monte_carlo_se(0.8, 1000), 6), monte_carlo_se(0.0, 400)
    (0.012649, 0.0025)
    """
    return math.sqrt(max(rate * (1 - rate), 1 / n_simulations) / n_simulations)
