"""Prospective validation of a prescribed N* (paper Table 10) and bootstrap power curves (Appendix B).

:func:`prospective_validation` takes a real pair, computes N* from its
(p_A, p_B, rho) by Eq. 6, draws ``n_simulations`` benchmarks of fraction x N* items
from the pair's own items and reports how often McNemar rejects.  Drawing
items with replacement is a multinomial draw of the four cell counts with the
pair's empirical proportions, so the exact unconditional power of the test at
those proportions (:func:`~llm_power_verified.power.mcnemar_power.power_mcnemar_exact`'s
engine) is the expected value of the empirical power and is reported beside it.

:func:`bootstrap_power_curve_binary` and :func:`bootstrap_power_curve_graded`
measure the power of the percentile paired bootstrap (Definition 2) over a
range of n on synthetic pairs and locate where it crosses the target, beside
Eq. 6's N* (binary) or the noncentral-t paired N (graded).

Randomness only from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._validation import require_choice
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.mcnemar import binary_counts, mcnemar_test
from llm_power_verified.leaderboard.pairs import bootstrap_pair_cells
from llm_power_verified.power.correlation import correlation_from_counts, validate_marginals_and_rho
from llm_power_verified.power.mcnemar_power import power_exact_at_cells
from llm_power_verified.power.paired_t import required_n_paired_t
from llm_power_verified.power.sample_size import required_n_from_counts, required_n_paired_binary
from llm_power_verified.results import Result
from llm_power_verified.simulation.grids import monte_carlo_se, simulate_graded
from llm_power_verified.simulation.moments import latent_pair_moments

__all__ = [
    "ProspectiveValidation",
    "bootstrap_power_curve_binary",
    "bootstrap_power_curve_graded",
    "prospective_validation",
]

METHODS = ("chi2", "exact", "mid-p", "chi2-corrected")


@dataclass(frozen=True, repr=False)
class ProspectiveValidation(Result):
    """N* of a pair and the empirical McNemar power of benchmarks drawn at fractions of it.

    Attributes
    ----------
    cells : tuple of four int
        The pair's 2x2 cells (a, b, c, d): both right, only A, only B, both wrong.
    p_a, p_b, rho : float
        The pair's accuracies and phi correlation.
    required_n : float
        N*, Eq. 6 at the pair's (p_a, p_b, rho), unrounded.
    method : str
        The McNemar variant tested.
    n_simulations : int
        Benchmarks drawn per fraction.
    rows : list of dict
        Per fraction: fraction, n = ceil(fraction N*), empirical_power, exact_power (the test's exact unconditional
        power at the pair's proportions), mc_se and z = (empirical - exact) / mc_se.
    """

    cells: tuple[int, int, int, int]
    p_a: float
    p_b: float
    rho: float
    required_n: float
    method: str
    n_simulations: int
    rows: list[dict] = field(default_factory=list)


def _check_trials_alpha(n_simulations: int, alpha: float) -> None:
    if isinstance(n_simulations, bool) or int(n_simulations) != n_simulations or n_simulations < 1:
        raise ArgumentError(f"n_simulations must be a positive integer; got {n_simulations!r}")
    if not 0 < alpha < 1:
        raise ArgumentError(f"alpha must lie in (0, 1); got {alpha!r}")


@docfill("scores", "n_simulations", "alpha_float", "power_float", "seed")
def prospective_validation(
    scores_a: Any = None,
    scores_b: Any = None,
    *,
    counts: Any = None,
    fractions=(0.8, 1.0, 1.2),
    n_simulations: int = 1000,
    alpha: float = 0.05,
    power: float = 0.8,
    method: str = "chi2",
    replace: bool = True,
    seed: int = 0,
) -> ProspectiveValidation:
    """Empirical McNemar power at fractions of the pair's own N* (the paper's Table 10 protocol).

    Parameters
    ----------
    %(scores)s
    counts : sequence of four int, optional
        The pair as its cells (a, b, c, d) instead of scores: both right, only A, only B, both wrong.
    fractions : sequence of float, default (0.8, 1.0, 1.2)
        The benchmark sizes as fractions f of N*: ceil(f N*) items each, f > 0.
    %(n_simulations)s
    %(alpha_float)s
    %(power_float)s
    method : {"chi2", "exact", "mid-p", "chi2-corrected"}, default "chi2"
        The McNemar variant.
    replace : bool, default True
        Draw items with replacement (a multinomial draw of the cells); False draws without replacement (multivariate
        hypergeometric) and needs ceil(f N*) <= N.
    %(seed)s

    Returns
    -------
    ProspectiveValidation
        N* and, per fraction, the empirical and the exact power.

    Raises
    ------
    ArgumentError
        Neither scores nor counts, counts that are not four whole numbers >= 0, b = c (zero observed gap, N* infinite),
        a fraction <= 0 or (without replacement) beyond the pair's items, n_simulations < 1, alpha outside (0, 1),
        an unknown method.

    Notes
    -----
    N* is Eq. 6 at the pair's observed (p_a, p_b, rho)
    (:func:`~llm_power_verified.power.sample_size.required_n_from_counts`;
    ``derivations/wald.py``).  Drawing with replacement makes the exact unconditional power of the test at the pair's
    proportions the expected value of the empirical power, so ``z`` should be a standard normal draw.

    References
    ----------
    The paper's Table 10.

    Examples
    --------
    >>> result = prospective_validation(counts=(4000, 900, 700, 2000), n_simulations=400, seed=1)
    >>> round(result.required_n, 1), [row["n"] for row in result.rows]
    (2378.2, [1903, 2379, 2854])
    >>> [(row["empirical_power"], round(row["exact_power"], 4)) for row in result.rows]
    [(0.71, 0.7075), (0.77, 0.8002), (0.88, 0.8665)]
    """
    _check_trials_alpha(n_simulations, alpha)
    require_choice("method", method, METHODS)
    if counts is None:
        if scores_a is None or scores_b is None:
            raise ArgumentError("give scores_a and scores_b, or counts=(a, b, c, d)")

        cells = binary_counts(scores_a, scores_b)
    else:
        cells = tuple(int(value) for value in np.asarray(counts).ravel())
        if len(cells) != 4 or min(cells) < 0 or not np.allclose(np.asarray(counts, dtype=float).ravel(), cells):
            raise ArgumentError(f"counts must be four non-negative integers (a, b, c, d); got {counts!r}")
    n = sum(cells)
    both, only_a, only_b, neither = cells
    if only_a == only_b:
        raise ArgumentError(f"the pair has b = c = {only_a}: zero observed gap, N* is infinite; nothing to validate")
    for fraction in fractions:
        if not fraction > 0:
            raise ArgumentError(f"fractions must be positive; got {fraction!r}")
    required = float(required_n_from_counts(only_a, only_b, n, alpha, power))
    probabilities = np.array(cells, dtype=float) / n
    rng = np.random.default_rng(seed)
    rows = []
    for fraction in fractions:
        size = math.ceil(fraction * required - 1e-9)
        if replace:
            n_resamples = rng.multinomial(size, probabilities, size=int(n_simulations))
        else:
            if size > n:
                raise ArgumentError(
                    f"fraction {fraction} x N* = {size} items exceeds the pair's {n} items; use replace=True"
                )
            n_resamples = rng.multivariate_hypergeometric(np.array(cells), size, size=int(n_simulations))
        pvalues = np.asarray(mcnemar_test(n_resamples[:, 1], n_resamples[:, 2], method).pvalue)
        empirical = float(np.mean(pvalues <= alpha))
        expected = power_exact_at_cells(size, only_a / n, only_b / n, alpha, method)
        se = monte_carlo_se(expected, int(n_simulations))
        rows.append(
            {
                "fraction": float(fraction),
                "n": size,
                "empirical_power": empirical,
                "exact_power": expected,
                "mc_se": se,
                "z": (empirical - expected) / se,
            }
        )
    rho = float(correlation_from_counts(both, only_a, only_b, neither))
    return ProspectiveValidation(
        cells, (both + only_a) / n, (both + only_b) / n, rho, required, method, int(n_simulations), rows
    )


def _crossing(sizes: np.ndarray, powers: np.ndarray, target: float) -> float:
    """The n at which the power curve first reaches the target, interpolated linearly in log n (NaN if never)."""
    above = np.flatnonzero(powers >= target)
    if above.size == 0:
        return math.nan
    first = above[0]
    if first == 0:
        return float(sizes[0]) if powers[0] == target else math.nan
    low, high = powers[first - 1], powers[first]
    weight = (target - low) / (high - low)
    return float(math.exp(math.log(sizes[first - 1]) + weight * (math.log(sizes[first]) - math.log(sizes[first - 1]))))


def _check_sizes(sizes) -> np.ndarray:
    array = np.asarray(sizes)
    if (
        array.ndim != 1
        or array.size < 2
        or np.any(array != np.round(array))
        or np.any(array < 2)
        or np.any(np.diff(array) <= 0)
    ):
        raise ArgumentError(f"sizes must be increasing whole numbers >= 2 (at least two); got {sizes!r}")
    return array.astype(np.int64)


@docfill("p_a_float", "rho_float", "sizes", "n_simulations", "n_resamples", "alpha_float", "power_float", "seed")
def bootstrap_power_curve_binary(
    p_a: float,
    p_b: float,
    rho: float,
    sizes,
    *,
    n_simulations: int = 1000,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    power: float = 0.8,
    seed: int = 0,
) -> dict:
    """Power of the percentile paired bootstrap (Definition 2) against n for a paired-Bernoulli population.

    Parameters
    ----------
    %(p_a_float)s
    %(rho_float)s
    %(sizes)s
    %(n_simulations)s
    %(n_resamples)s
    %(alpha_float)s
    %(power_float)s
    %(seed)s

    Returns
    -------
    dict
        sizes; powers (the rejection rates); mc_se (sqrt(r (1 - r) / n_simulations) each); crossing_n, where the curve
        first reaches ``power`` (interpolated linearly in log n; NaN if it never does, or is above it already at the
    first size);
        required_n, Eq. 6's N*; reference, "Eq. 6 N*".

    Raises
    ------
    ArgumentError
        Sizes that are not increasing whole numbers >= 2, marginals or rho that are not admissible, n_simulations < 1,
        alpha outside (0, 1).

    Notes
    -----
    Each dataset of n items is a multinomial draw of the cells implied by (p_a, p_b, rho)
    (``derivations/paired_variance.py``), and its bootstrap distribution of the mean difference comes from resampled
    cell counts (no loop over items).  N* is :func:`~llm_power_verified.power.sample_size.required_n_paired_binary`
    (``derivations/wald.py``).

    Examples
    --------
    >>> curve = bootstrap_power_curve_binary(0.65, 0.61, 0.3, [800, 1600], n_simulations=300, n_resamples=400, seed=2)
    >>> [round(power, 3) for power in curve["powers"]], round(curve["crossing_n"], 1), round(curve["required_n"], 1)
    ([0.477, 0.83], 1508.6, 1598.3)
    """
    _check_trials_alpha(n_simulations, alpha)
    sizes = _check_sizes(sizes)
    p_a, p_b, rho = (float(value) for value in validate_marginals_and_rho(p_a, p_b, rho))
    both = float(_variance.joint_success_probability(p_a, p_b, rho))
    probabilities = np.clip([both, p_a - both, p_b - both, 1 - p_a - p_b + both], 0, 1)
    rng = np.random.default_rng(seed)
    powers = []
    for n in sizes:
        counts = rng.multinomial(int(n), probabilities / probabilities.sum(), size=int(n_simulations))
        low, high, _, _, _ = bootstrap_pair_cells(
            counts[:, 0], counts[:, 1], counts[:, 2], int(n), int(n_resamples), 1 - alpha, rng, required=False
        )
        powers.append(float(np.mean((low > 0) | (high < 0))))
    powers = np.array(powers)
    return {
        "sizes": sizes.tolist(),
        "powers": powers.tolist(),
        "mc_se": np.sqrt(powers * (1 - powers) / n_simulations).tolist(),
        "crossing_n": _crossing(sizes, powers, power),
        "required_n": float(required_n_paired_binary(p_a, p_b, rho, alpha, power)),
        "reference": "Eq. 6 N*",
    }


def graded_difference_moments(
    mean_a: float,
    mean_b: float,
    rho_z: float,
    model: str = "beta",
    sd: float = 0.15,
    beta_shape: tuple[float, float] = (4.0, 2.0),
    nodes: int = 120,
) -> tuple[float, float]:
    """Mean and SD of D = A - B under :func:`~llm_power_verified.simulation.grids.simulate_graded`'s model.

    They are computed by quadrature.
    """

    def beta_score(z):  # nodes beyond |z| = 8.5 (weight < 1e-16) are clipped: scipy's beta.ppf is NaN there
        return stats.beta.ppf(stats.norm.cdf(np.clip(z, -8.5, 8.5)), *beta_shape)

    if model == "normal":

        def difference(z_a, z_b):
            return np.clip(mean_a + sd * z_a, 0, 1) - np.clip(mean_b + sd * z_b, 0, 1)
    elif model == "beta":

        def difference(z_a, z_b):
            return np.clip(beta_score(z_a), 0, 1) - np.clip(beta_score(z_b) - (mean_a - mean_b), 0, 1)
    else:
        raise ArgumentError(f"model must be 'normal' or 'beta'; got {model!r}")
    return latent_pair_moments(difference, rho_z, nodes)


@docfill("sizes", "n_simulations", "n_resamples", "alpha_float", "power_float", "seed")
def bootstrap_power_curve_graded(
    effect: float,
    rho_z: float,
    sizes,
    *,
    model: str = "beta",
    beta_shape=(4.0, 2.0),
    n_simulations: int = 400,
    n_resamples: int = 500,
    alpha: float = 0.05,
    power: float = 0.8,
    seed: int = 0,
    chunk: int = 16,
) -> dict:
    """Power of the percentile paired bootstrap against n on graded scores (Appendix B's Beta(4, 2) stress test).

    Parameters
    ----------
    effect : float
        The gap in means, A's minus B's, > 0.
    rho_z : float
        Correlation of the latent normals, in (-1, 1).
    %(sizes)s
    model : {"beta", "normal"}, default "beta"
        The score model of :func:`~llm_power_verified.simulation.grids.simulate_graded`.
    beta_shape : tuple of two floats, default (4.0, 2.0)
        Model A's Beta shape (a, b); its mean a / (a + b) is model A's mean.
    %(n_simulations)s
    %(n_resamples)s
    %(alpha_float)s
    %(power_float)s
    %(seed)s
    chunk : int, default 16
        Datasets resampled at a time (memory: chunk x n_resamples x n floats).

    Returns
    -------
    dict
        As :func:`bootstrap_power_curve_binary`, with required_n the exact noncentral-t paired N at the model's mean
        and SD of D (reference "paired-t N (noncentral t)"), and mean_difference and sd_difference.

    Raises
    ------
    ArgumentError
        effect <= 0, sizes that are not increasing whole numbers >= 2, an unknown model, n_simulations < 1, alpha
        outside (0, 1).

    Notes
    -----
    Model B's scores are the same marginal through a Gaussian copula with correlation ``rho_z``, shifted down by
    ``effect`` and clipped to [0, 1]; datasets are resampled item by item.  The mean and SD of D come from quadrature
    (:func:`~llm_power_verified.simulation.moments.latent_pair_moments`), the N from
    :func:`~llm_power_verified.power.paired_t.required_n_paired_t` (``derivations/paired_t.py``).

    Examples
    --------
    >>> curve = bootstrap_power_curve_graded(0.04, 0.3, [60, 240], n_simulations=100, n_resamples=200, seed=1)
    >>> curve["powers"], round(curve["crossing_n"], 1), round(curve["required_n"], 1), round(curve["sd_difference"], 4)
    ([0.32, 0.86], 205.7, 221.7, 0.2117)
    """
    _check_trials_alpha(n_simulations, alpha)
    sizes = _check_sizes(sizes)
    if not effect > 0:
        raise ArgumentError(f"effect must be positive; got {effect!r}")
    mean_a = beta_shape[0] / (beta_shape[0] + beta_shape[1])
    rng = np.random.default_rng(seed)
    lower_q, upper_q = alpha / 2, 1 - alpha / 2
    powers = []
    for n in sizes:
        rejected = 0
        for start in range(0, int(n_simulations), int(chunk)):
            count = min(int(chunk), int(n_simulations) - start)
            scores = simulate_graded(
                int(n), mean_a, mean_a - effect, rho_z, count, rng, model=model, beta_shape=beta_shape
            )
            difference = (scores[..., 0] - scores[..., 1]).astype(np.float32)
            index = rng.integers(0, int(n), size=(count, int(n_resamples), int(n)))
            means = np.take_along_axis(difference[:, None, :], index, axis=2).mean(axis=2)
            low, high = np.quantile(means, [lower_q, upper_q], axis=1)
            rejected += int(np.sum((low > 0) | (high < 0)))
        powers.append(rejected / n_simulations)
    powers = np.array(powers)
    mean, spread = graded_difference_moments(mean_a, mean_a - effect, rho_z, model, beta_shape=beta_shape)
    return {
        "sizes": sizes.tolist(),
        "powers": powers.tolist(),
        "mc_se": np.sqrt(powers * (1 - powers) / n_simulations).tolist(),
        "crossing_n": _crossing(sizes, powers, power),
        "required_n": float(required_n_paired_t(mean, spread, alpha, power)),
        "reference": "paired-t N (noncentral t)",
        "mean_difference": mean,
        "sd_difference": spread,
    }
