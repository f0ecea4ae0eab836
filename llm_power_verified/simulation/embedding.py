"""The embedding-benchmark grid of "How Many Test Pairs Do You Need?", by Monte Carlo.

The power of the paired t-test and the Wilcoxon signed-rank test on graded scores, beside the analytic noncentral-t
power.

Model A's scores have mean 0.65 and sd 0.12, model B's mean 0.65 + effect; the pair's latent normals have correlation
``correlation``.  "normal" clips a bivariate normal to [0, 1]; "beta" maps the latent normals through the
moment-matched Beta quantile (a Gaussian copula, :class:`CopulaBetaQuantile`).

Randomness comes only from a seeded ``numpy.random.Generator``.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import stats

from llm_power_verified._docstrings import docfill
from llm_power_verified._validation import require_choice
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.graded import paired_t_rows, wilcoxon_rows
from llm_power_verified.parallel import Backend, backend_for
from llm_power_verified.power.paired_t import power_paired_t
from llm_power_verified.simulation.grids import monte_carlo_se
from llm_power_verified.simulation.moments import clipped_normal_difference_moments, latent_pair_moments

__all__ = [
    "BACKENDS",
    "EMBEDDING_GRID",
    "EMBEDDING_MODELS",
    "RANDOM_NUMBERS",
    "CopulaBetaQuantile",
    "embedding_difference_moments",
    "embedding_power_grid",
]

EMBEDDING_GRID = {
    "sample_sizes": (50, 100, 200, 500, 1000),
    "effects": (0.0, 0.01, 0.02, 0.05, 0.10),
    "correlations": (0.5, 0.8, 0.95),
    "base_mean": 0.65,
    "base_sd": 0.12,
}
EMBEDDING_MODELS = ("normal", "beta")
RANDOM_NUMBERS = ("common", "independent")
BACKENDS = ("threads", "joblib", "dask")


def _moment_matched_beta(mean: float, sd: float) -> tuple[float, float]:
    """Beta(a, b) with the given mean and sd (the variance capped at 0.9 mean (1 - mean); a, b >= 0.5)."""
    mean = min(max(mean, 0.01), 0.99)
    variance = min(sd**2, 0.9 * mean * (1 - mean))
    common = mean * (1 - mean) / variance - 1
    return max(mean * common, 0.5), max((1 - mean) * common, 0.5)


class CopulaBetaQuantile:
    """z -> F^-1_Beta(a, b)(Phi(z)), the Gaussian-copula Beta score, by cubic Hermite interpolation.

    scipy's ``beta.ppf`` costs about a microsecond per value; the grid needs tens of millions.  The map is tabulated
    once on ``intervals`` equal steps of z in [-limit, limit] with its exact slope phi(z) / f_Beta(x), and evaluated by
    index arithmetic (no search).  Values of abs(z) beyond the table (probability 4e-8 per draw) are computed exactly
    (``exact``, z clipped to +/-8.5, below which ``beta.ppf`` returns NaN).  The interpolation error is tested below
    1e-11 against scipy.

    Parameters
    ----------
    a, b : float
        The Beta shape, both > 0.
    limit : float, default 5.5
        The table covers z in [-limit, limit].
    intervals : int, default 8192
        Equal steps of the table.

    Examples
    --------
    >>> transform = CopulaBetaQuantile(9.6, 5.2)
    >>> bool(abs(transform(np.array([0.3]))[0] - float(stats.beta.ppf(stats.norm.cdf(0.3), 9.6, 5.2))) < 1e-11)
    True
    """

    def __init__(self, a: float, b: float, limit: float = 5.5, intervals: int = 8192):
        self.a, self.b, self.limit, self.intervals = a, b, limit, intervals
        self.step = 2 * limit / intervals
        z = np.linspace(-limit, limit, intervals + 1)
        values = stats.beta.ppf(stats.norm.cdf(z), a, b)
        slopes = stats.norm.pdf(z) / stats.beta.pdf(values, a, b) * self.step  # d value / d t, t in [0, 1]
        # cubic in t on each interval, highest power first: value(t) = ((c3 t + c2) t + c1) t + c0
        low, high, slope_low, slope_high = values[:-1], values[1:], slopes[:-1], slopes[1:]
        self.coefficients = (
            2 * (low - high) + slope_low + slope_high,
            3 * (high - low) - 2 * slope_low - slope_high,
            slope_low,
            low,
        )

    def exact(self, z: np.ndarray) -> np.ndarray:
        """SciPy's value; z is clipped to +/-8.5 (probability 2e-17), below which beta.ppf returns NaN."""
        return stats.beta.ppf(stats.norm.cdf(np.clip(z, -8.5, 8.5)), self.a, self.b)

    def __call__(self, z: np.ndarray) -> np.ndarray:
        """The interpolated value at each of ``z``."""
        z = np.asarray(z, dtype=float)
        position = z * (1 / self.step)
        position += self.limit / self.step
        index = position.astype(np.int64)
        np.clip(index, 0, self.intervals - 1, out=index)
        position -= index  # now t in [0, 1]
        result = np.take(self.coefficients[0], index)
        for coefficient in self.coefficients[1:]:
            result *= position
            result += np.take(coefficient, index)
        outside = np.abs(z) > self.limit
        if outside.any():
            result[outside] = self.exact(z[outside])
        return result


@functools.lru_cache(maxsize=32)
def _beta_quantile(mean: float) -> CopulaBetaQuantile:
    return CopulaBetaQuantile(*_moment_matched_beta(mean, EMBEDDING_GRID["base_sd"]))


def _embedding_score(z: np.ndarray, mean: float, model: str) -> np.ndarray:
    """Scores with the given mean from standard normals z: clipped normal (sd 0.12) or moment-matched Beta."""
    if model == "normal":
        return np.clip(mean + EMBEDDING_GRID["base_sd"] * z, 0.0, 1.0)
    if model == "beta":
        return _beta_quantile(mean)(z)
    raise ArgumentError(f"model must be one of {EMBEDDING_MODELS}; got {model!r}")


def _embedding_scores(z: np.ndarray, effect: float, model: str) -> tuple[np.ndarray, np.ndarray]:
    """Scores of model A (base mean) and model B (base mean + effect) from correlated normals z[..., 0:2]."""
    mean = EMBEDDING_GRID["base_mean"]
    return _embedding_score(z[..., 0], mean, model), _embedding_score(z[..., 1], mean + effect, model)


def embedding_difference_moments(
    effect: float, correlation: float, model: str, nodes: int = 120
) -> tuple[float, float]:
    """Mean and SD of D = B - A under the grid's model.

    Parameters
    ----------
    effect : float
        Model B's mean minus model A's (A's is 0.65).
    correlation : float
        Correlation of the latent normals, in (-1, 1).
    model : {"normal", "beta"}
        The score model (module notes).
    nodes : int, default 120
        Gauss-Hermite nodes per dimension (the Beta copula).

    Returns
    -------
    mean, sd : float
        The mean and standard deviation of D.

    Notes
    -----
    Exact forms for the clipped normal
    (:func:`~llm_power_verified.simulation.moments.clipped_normal_difference_moments`);
    Gauss-Hermite quadrature over the latent normals for the Beta copula
    (:func:`~llm_power_verified.simulation.moments.latent_pair_moments`; a smooth integrand: 1e-14 against nested
    adaptive quadrature).  No ``derivations/`` module.

    Examples
    --------
    >>> [round(value, 6) for value in embedding_difference_moments(0.02, 0.8, "normal")]
    [0.019953, 0.075762]
    >>> [round(value, 6) for value in embedding_difference_moments(0.02, 0.8, "beta")]
    [0.02, 0.076192]
    """
    mean = EMBEDDING_GRID["base_mean"]
    if model == "normal":
        return clipped_normal_difference_moments(mean, mean + effect, EMBEDDING_GRID["base_sd"], correlation)
    return latent_pair_moments(
        lambda z_a, z_b: _embedding_score(z_b, mean + effect, model) - _embedding_score(z_a, mean, model),
        correlation,
        nodes,
    )


def _grid_task(
    latent: tuple[np.ndarray, np.ndarray] | None,
    model: str,
    correlation: float,
    effects,
    sample_sizes,
    n_simulations: int,
    alpha: float,
    seeds,
) -> list[dict]:
    """Every (effect, n) cell of one (model, correlation): common latent normals, or a fresh draw per cell."""
    mean = EMBEDDING_GRID["base_mean"]
    rows = []
    largest = max(sample_sizes)
    scale = math.sqrt(1 - correlation**2)
    if latent is not None:
        first, second = latent
        latent_b = correlation * first + scale * second
        score_a = _embedding_score(first, mean, model)
    for effect_index, effect in enumerate(effects):
        if latent is not None:
            difference = _embedding_score(latent_b, mean + effect, model) - score_a
        moment_mean, moment_sd = embedding_difference_moments(effect, correlation, model)
        for size_index, n in enumerate(sample_sizes):
            if latent is None:
                rng = np.random.default_rng(seeds[effect_index][size_index])
                first, second = rng.standard_normal((2, n_simulations, n))
                cell = _embedding_score(correlation * first + scale * second, mean + effect, model) - _embedding_score(
                    first, mean, model
                )
            else:
                cell = difference[:, :n] if n < largest else difference
            t_power = float(np.mean(paired_t_rows(cell) < alpha))
            w_power = float(np.mean(np.nan_to_num(wilcoxon_rows(cell), nan=1.0) < alpha))
            analytic = float(power_paired_t(n, moment_mean, moment_sd, alpha)) if moment_sd > 0 else float("nan")
            se = monte_carlo_se(analytic, n_simulations)
            rows.append(
                {
                    "model": model,
                    "n": n,
                    "effect": effect,
                    "correlation": correlation,
                    "t_test_power": t_power,
                    "wilcoxon_power": w_power,
                    "analytic_t_power": analytic,
                    "mean_difference": moment_mean,
                    "sd_difference": moment_sd,
                    "mc_se": se,
                    "t_test_z": (t_power - analytic) / se,
                }
            )
    return rows


@docfill("seed", "alpha_float")
def embedding_power_grid(
    n_simulations: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
    models=EMBEDDING_MODELS,
    sample_sizes=EMBEDDING_GRID["sample_sizes"],
    effects=EMBEDDING_GRID["effects"],
    correlations=EMBEDDING_GRID["correlations"],
    random_numbers: str = "common",
    workers: int = 1,
    backend: str | Backend = "threads",
) -> list[dict]:
    """Power of the paired t-test and the Wilcoxon signed-rank test over the grid of "How Many Test Pairs Do You Need?".

    Parameters
    ----------
    n_simulations : int, default 1000
        Simulated datasets per cell, a whole number >= 2.
    %(seed)s
    %(alpha_float)s
    models : sequence of {"normal", "beta"}, default ("normal", "beta")
        The score models (module notes).
    sample_sizes, effects, correlations : sequence
        The grid: items n (whole numbers >= 2), effects (B's mean minus A's) and latent correlations in (-1, 1);
        default the published grid (``EMBEDDING_GRID``).
    random_numbers : {"common", "independent"}, default "common"
        "common" draws one (n_simulations, max n) array of latent normal pairs for every cell: a cell with n items
        uses each dataset's first n items, and effects, correlations and models share the draws (every cell is still
        ``n_simulations`` independent datasets; only the cells are correlated, which sharpens comparisons between
        them).  "independent" draws fresh normals for every cell from its own child seed, as the published script does.
    workers : int, default 1
        Processes or threads over which the (model, correlation) blocks are spread.
    backend : {"threads", "joblib", "dask"} or Backend, default "threads"
        Threads (NumPy releases the GIL), local processes, a Dask LocalCluster of ``workers`` processes (extra
        ``dask``), or a ``llm_power_verified.parallel`` Backend such as ``DaskBackend(scheduler="tcp://host:8786")``.

    Returns
    -------
    list of dict
        One row per (model, n, effect, correlation), in that order: t_test_power, wilcoxon_power (rejection rates),
        analytic_t_power (the noncentral-t power at the model's exact mean and SD of D), mean_difference,
        sd_difference, mc_se (of a rate at the analytic power) and t_test_z = (t_test_power - analytic) / mc_se.

    Raises
    ------
    ArgumentError
        An unknown model, random_numbers or backend; n_simulations < 2; workers < 1; a size < 2; a correlation
        outside (-1, 1); alpha outside (0, 1).

    Notes
    -----
    Each cell holds ``n_simulations`` datasets of n items, tested row-wise with the scipy defaults the published
    script uses (the engines of :func:`~llm_power_verified.inference.graded.batched_paired_t_pvalues` and
    :func:`~llm_power_verified.inference.graded.batched_wilcoxon_pvalues`).  The analytic power is
    :func:`~llm_power_verified.power.paired_t.power_paired_t` (``derivations/paired_t.py``).  Each block carries its own
    seeds (or the shared common draws), so the output is identical for a given seed whatever the backend and the
    number of workers.

    Examples
    --------
    >>> rows = embedding_power_grid(n_simulations=400, models=("normal",), sample_sizes=(50, 200), effects=(0.02,),
    ...                             correlations=(0.8,))
    >>> [(row["n"], row["t_test_power"], round(row["analytic_t_power"], 4)) for row in rows]
    [(50, 0.4575, 0.4467), (200, 0.96, 0.9596)]
    """
    require_choice("random_numbers", random_numbers, RANDOM_NUMBERS)
    if not isinstance(backend, Backend):
        require_choice("backend", backend, BACKENDS)
    for model in models:
        require_choice("models", model, EMBEDDING_MODELS)
    if int(n_simulations) != n_simulations or n_simulations < 2:
        raise ArgumentError(f"n_simulations must be an integer of at least 2; got {n_simulations!r}")
    if int(workers) != workers or workers < 1:
        raise ArgumentError(f"workers must be a positive integer; got {workers!r}")
    for n in sample_sizes:
        if int(n) != n or n < 2:
            raise ArgumentError(f"sample_sizes must be integers of at least 2; got {n!r}")
    for correlation in correlations:
        if not -1 < correlation < 1:
            raise ArgumentError(f"correlations must lie in (-1, 1); got {correlation!r}")
    if not 0 < alpha < 1:
        raise ArgumentError(f"alpha must lie in (0, 1); got {alpha!r}")
    sample_sizes = tuple(int(n) for n in sorted(sample_sizes))
    blocks = [(model, correlation) for model in models for correlation in correlations]
    latent = None
    children = np.random.SeedSequence(seed).spawn(len(blocks))
    if random_numbers == "common":
        latent = tuple(np.random.default_rng(seed).standard_normal((2, int(n_simulations), sample_sizes[-1])))
        seeds = [None] * len(blocks)
    else:
        seeds = [[child.spawn(len(sample_sizes)) for child in block.spawn(len(effects))] for block in children]
    tasks = [
        (model, correlation, tuple(effects), sample_sizes, int(n_simulations), alpha, seeds[index])
        for index, (model, correlation) in enumerate(blocks)
    ]
    if isinstance(backend, Backend):
        results = list(backend.map(_grid_task, tasks, shared=(latent,)))
    else:
        with backend_for(backend, workers=int(workers)) as runner:
            results = list(runner.map(_grid_task, tasks, shared=(latent,)))
    rows = [row for block in results for row in block]
    order = {model: index for index, model in enumerate(models)}
    return sorted(rows, key=lambda row: (order[row["model"]], row["n"], row["effect"], row["correlation"]))
