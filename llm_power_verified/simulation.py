"""Simulated paired scores and the Monte Carlo calibration of the paired tests (paper Section 5).

Paired Bernoulli scores come from a latent Gaussian copula: X_A = 1{Z_A <= Phi^-1(p_A)},
X_B = 1{Z_B <= Phi^-1(p_B)} with corr(Z_A, Z_B) = rho_z.  The cell
probabilities are exact (bivariate normal CDF), so a replicate of n items is
a single multinomial draw of the four cell counts: no loop over replicates
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

from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified.mcnemar import mcnemar_test
from llm_power_verified.sample_size import required_n_connor

__all__ = ["CopulaCells", "calibration_table_2", "copula_cells", "simulate_binary_counts", "simulate_graded"]


@dataclass(frozen=True)
class CopulaCells:
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
            raise ValueError(f"{name} must lie in (0, 1); got {value!r}")
    if not -1 < rho_z < 1:
        raise ValueError(f"rho_z must lie in (-1, 1); got {rho_z!r}")
    z_a, z_b = stats.norm.ppf(p_a), stats.norm.ppf(p_b)
    both = float(stats.multivariate_normal(mean=[0, 0], cov=[[1, rho_z], [rho_z, 1]]).cdf([z_a, z_b])) if rho_z else p_a * p_b
    both = min(max(both, max(0.0, p_a + p_b - 1)), min(p_a, p_b))
    rho = float(_variance.phi_coefficient(both, p_a - both, p_b - both, 1 - p_a - p_b + both))
    return CopulaCells(both, p_a - both, p_b - both, 1 - p_a - p_b + both, rho)


def simulate_binary_counts(n: int, cells: CopulaCells, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """(replicates, 4) counts (n11, n10, n01, n00) of n paired items per replicate."""
    probabilities = np.clip([cells.p11, cells.p10, cells.p01, cells.p00], 0, 1)
    return rng.multinomial(n, probabilities / probabilities.sum(), size=replicates)


def simulate_graded(n: int, mean_a: float, mean_b: float, rho_z: float, replicates: int, rng: np.random.Generator,
                    model: str = "normal", sd: float = 0.15, beta_shape: tuple[float, float] = (4.0, 2.0)) -> np.ndarray:
    """(replicates, n, 2) graded scores in [0, 1].

    ``model="normal"``: bivariate normal with means mean_a, mean_b, sd ``sd``,
    correlation rho_z, clipped to [0, 1].  ``model="beta"``: Beta(``beta_shape``)
    marginals through a Gaussian copula with correlation rho_z, model B shifted
    down by mean_a - mean_b and clipped.
    """
    z = rng.standard_normal((replicates, n, 2))
    z[..., 1] = rho_z * z[..., 0] + math.sqrt(1 - rho_z**2) * z[..., 1]
    if model == "normal":
        scores = np.stack([mean_a + sd * z[..., 0], mean_b + sd * z[..., 1]], axis=-1)
    elif model == "beta":
        uniform = stats.norm.cdf(z)
        base = stats.beta.ppf(uniform, *beta_shape)
        scores = np.stack([base[..., 0], base[..., 1] - (mean_a - mean_b)], axis=-1)
    else:
        raise ValueError(f"model must be 'normal' or 'beta'; got {model!r}")
    return np.clip(scores, 0.0, 1.0)


def _effect_for_connor_power(p: float, rho_z: float, n: int, alpha: float, power: float) -> tuple[float, CopulaCells]:
    """delta such that Connor's asymptotic power at n is the target, at p +/- delta/2 with latent rho_z."""
    from scipy.optimize import brentq

    def gap(delta: float) -> float:
        cells = copula_cells(p + delta / 2, p - delta / 2, rho_z)
        return float(required_n_connor(p + delta / 2, p - delta / 2, cells.rho, alpha, power)) - n

    high = 2 * min(p, 1 - p) * 0.999
    delta = brentq(gap, 1e-4, high, xtol=1e-10)
    return delta, copula_cells(p + delta / 2, p - delta / 2, rho_z)


def _bootstrap_rejections(counts: np.ndarray, n: int, alpha: float, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Percentile paired bootstrap (Definition 2) for every replicate: reject when 0 is outside the interval."""
    from llm_power_verified.audit import _bootstrap_binary

    low, high, _, _, _ = _bootstrap_binary(counts[:, 0], counts[:, 1], counts[:, 2], n, draws, 1 - alpha, rng, required=False)
    return (low > 0) | (high < 0)


def calibration_table_2(p_values=(0.5, 0.7, 0.9), rho_values=(0.0, 0.4, 0.8), n: int = 500, replicates: int = 1500,
                        alpha: float = 0.05, power: float = 0.8, bootstrap_draws: int = 1000, seed: int = 0) -> list[dict]:
    """Type-I error and power of five paired-binary variants on the paper's Table 2 grid.

    For each (p, rho_z): ``replicates`` datasets of n items under H0 (both
    accuracies p) and under H1 (p +/- delta/2 with delta giving Connor power
    ``power`` at n).  Rejection rates of McNemar chi-square, exact, mid-p,
    continuity-corrected and the percentile paired bootstrap, with Monte Carlo
    standard errors sqrt(r (1 - r) / replicates).
    """
    rng = np.random.default_rng(seed)
    rows = []
    methods = ("chi2", "exact", "mid-p", "chi2-corrected")
    for p in p_values:
        for rho_z in rho_values:
            delta, alternative = _effect_for_connor_power(p, rho_z, n, alpha, power)
            null = copula_cells(p, p, rho_z)
            for hypothesis, cells in (("H0", null), ("H1", alternative)):
                counts = simulate_binary_counts(n, cells, replicates, rng)
                row = {"p": p, "rho_z": rho_z, "rho": cells.rho, "hypothesis": hypothesis, "delta": 0.0 if hypothesis == "H0" else delta}
                for method in methods:
                    rejected = np.asarray(mcnemar_test(counts[:, 1], counts[:, 2], method).pvalue) <= alpha
                    row[method] = float(rejected.mean())
                row["bootstrap"] = float(_bootstrap_rejections(counts[:, [0, 1, 2]], n, alpha, bootstrap_draws, rng).mean())
                row["mc_se"] = {key: math.sqrt(row[key] * (1 - row[key]) / replicates) for key in methods + ("bootstrap",)}
                rows.append(row)
    return rows


# ---------------------------------------------------------------------------- embedding-benchmark grid (seed 001)

EMBEDDING_GRID = {
    "sample_sizes": (50, 100, 200, 500, 1000),
    "effects": (0.0, 0.01, 0.02, 0.05, 0.10),
    "correlations": (0.5, 0.8, 0.95),
    "base_mean": 0.65,
    "base_sd": 0.12,
}


def _moment_matched_beta(mean: float, sd: float) -> tuple[float, float]:
    """Beta(a, b) with the given mean and sd (the variance capped at 0.9 mean (1 - mean); a, b >= 0.5)."""
    mean = min(max(mean, 0.01), 0.99)
    variance = min(sd**2, 0.9 * mean * (1 - mean))
    common = mean * (1 - mean) / variance - 1
    return max(mean * common, 0.5), max((1 - mean) * common, 0.5)


def _embedding_scores(z: np.ndarray, effect: float, model: str) -> tuple[np.ndarray, np.ndarray]:
    """Scores of model A (base) and model B (base + effect) from correlated standard normals z[..., 0:2]."""
    mean, sd = EMBEDDING_GRID["base_mean"], EMBEDDING_GRID["base_sd"]
    if model == "normal":
        return np.clip(mean + sd * z[..., 0], 0, 1), np.clip(mean + effect + sd * z[..., 1], 0, 1)
    if model == "beta":
        uniform = stats.norm.cdf(z)
        return (stats.beta.ppf(uniform[..., 0], *_moment_matched_beta(mean, sd)),
                stats.beta.ppf(uniform[..., 1], *_moment_matched_beta(mean + effect, sd)))
    raise ValueError(f"model must be 'normal' or 'beta'; got {model!r}")


def embedding_difference_moments(effect: float, correlation: float, model: str, nodes: int = 120) -> tuple[float, float]:
    """Exact mean and SD of D = B - A under the model (Gauss-Hermite quadrature over the latent normals)."""
    points, weights = np.polynomial.hermite_e.hermegauss(nodes)
    weights = weights / weights.sum()
    first, second = np.meshgrid(points, points, indexing="ij")
    z = np.stack([first, correlation * first + math.sqrt(1 - correlation**2) * second], axis=-1)
    score_a, score_b = _embedding_scores(z, effect, model)
    joint = np.outer(weights, weights)
    difference = score_b - score_a
    mean = float(np.sum(joint * difference))
    return mean, float(math.sqrt(np.sum(joint * (difference - mean) ** 2)))


def embedding_power_grid(replicates: int = 1000, seed: int = 0, alpha: float = 0.05, models=("normal", "beta"),
                         sample_sizes=EMBEDDING_GRID["sample_sizes"]) -> list[dict]:
    """Power of the paired t-test and Wilcoxon signed-rank test over seed 001's grid, vectorised per cell.

    Models: clipped bivariate normal (mean 0.65, sd 0.12) and Beta marginals
    through a Gaussian copula, model B shifted by the effect; every cell draws
    all ``replicates`` datasets at once and tests them along an axis.  Each row
    also carries the analytic noncentral-t power at the model's exact moments
    of D (quadrature) and the Monte Carlo standard error.
    """
    from llm_power_verified.paired_t import power_paired_t

    rng = np.random.default_rng(seed)
    rows = []
    for model in models:
        for n in sample_sizes:
            for effect in EMBEDDING_GRID["effects"]:
                for correlation in EMBEDDING_GRID["correlations"]:
                    z = rng.standard_normal((replicates, n, 2))
                    z[..., 1] = correlation * z[..., 0] + math.sqrt(1 - correlation**2) * z[..., 1]
                    score_a, score_b = _embedding_scores(z, effect, model)
                    difference = score_b - score_a
                    t_p = stats.ttest_rel(score_b, score_a, axis=1).pvalue
                    w_p = stats.wilcoxon(difference, axis=1).pvalue
                    mean, spread = embedding_difference_moments(effect, correlation, model)
                    analytic = float(power_paired_t(n, mean, spread, alpha)) if spread > 0 else float("nan")
                    t_power, w_power = float(np.mean(t_p < alpha)), float(np.mean(np.nan_to_num(w_p, nan=1.0) < alpha))
                    rows.append({"model": model, "n": n, "effect": effect, "correlation": correlation,
                                 "t_test_power": t_power, "wilcoxon_power": w_power, "analytic_t_power": analytic,
                                 "mc_se": math.sqrt(max(analytic * (1 - analytic), 1 / replicates) / replicates)})
    return rows
