"""How long a monitored comparison runs: the distribution of the e-process's first crossing of 1/alpha.

For 0/1 scores the mixture e-process moves only on discordant items, and
after m of them it has crossed exactly when abs(b - c) >= 2 k(m) - m, with k(m)
the exact threshold count (:func:`.thresholds.exact_counts`).  The signed
count d = b - c is a random walk with steps +1 (probability theta = p10 /
(p10 + p01)) and -1; its first exit through the boundary is computed exactly
by propagating the distribution of d among the paths that have not crossed
(only abs(d) < 2 k(m) - m is ever held, about 5 sqrt(m) values, so a horizon of
M discordant items costs O(M^1.5)).  Discordant items arrive independently at
rate psi = p10 + p01 per item, so the stopping time in items N satisfies
P(N <= n) = sum_m P(M = m) P(Binomial(n, psi) >= m) and E[N] = E[M] / psi.

Beyond ``EXACT_HORIZON`` discordant items the distribution is simulated
(paths of the same walk), with Monte Carlo standard errors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from llm_power_verified._docstrings import docfill
from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._validation import check_scalar
from llm_power_verified.errors import ArgumentError
from llm_power_verified.power.correlation import validate_marginals_and_rho
from llm_power_verified.results import Result
from llm_power_verified.sequential.anytime import crossing_boundary, simulated_crossings
from llm_power_verified.sequential.confidence import MIN_ALPHA
from llm_power_verified.sequential.thresholds import threshold_table

__all__ = [
    "EXACT_HORIZON",
    "MAX_HORIZON",
    "MAX_SIMULATED_STEPS",
    "SIMULATIONS",
    "StoppingTime",
    "stopping_time",
    "stopping_time_at_cells",
]

#: Largest number of discordant items the exact recursion follows (about 6 s at the limit); a longer ``horizon`` is
#: simulated.
EXACT_HORIZON = 200_000
#: Most steps (n_simulations x horizon) a simulation holds: about 2 GB of int8 paths, and time in proportion.
MAX_SIMULATED_STEPS = 2_000_000_000
#: The paths :func:`stopping_time` simulates unless told otherwise (the command line never tells it otherwise).
SIMULATIONS = 4000
#: Longest horizon at ``SIMULATIONS`` paths: the command line's --horizon range ends here.
MAX_HORIZON = MAX_SIMULATED_STEPS // SIMULATIONS
#: The exact recursion stops once the paths still running carry less than this probability.
SURVIVAL_FLOOR = 1e-9


@dataclass(frozen=True, repr=False)
class StoppingTime(Result):
    """The first item at which the e-process reaches 1/alpha, for a pair with given cells.

    Attributes
    ----------
    p10, p01 : float
        The discordant cell probabilities (A right and B wrong, the reverse).
    alpha, mixture
        The e-process's level and mixture.
    method : str
        "exact" (``*_se`` are 0) or "simulation" (with Monte Carlo standard errors; the quantile's is from the
        order statistics).
    expected_n, expected_n_se : float
        E[N | crossed within the horizon], in items, and its standard error.
    quantile, quantile_n, quantile_n_se : float
        The probability asked for, the stopping N of that quantile (inf when ``probability_crossed`` is below
        it) and its standard error.
    probability_crossed : float
        P(the crossing happens within ``horizon`` discordant items).
    horizon : int
        Discordant items followed.
    n_simulations, seed : int or None
        The simulation's size and seed (None when exact).
    """

    p10: float
    p01: float
    alpha: float
    mixture: str
    method: str
    expected_n: float
    expected_n_se: float
    quantile: float
    quantile_n: float
    quantile_n_se: float
    probability_crossed: float
    horizon: int
    n_simulations: int | None = None
    seed: int | None = None


def _boundary(horizon: int, alpha: float, mixture: str) -> np.ndarray:
    return crossing_boundary(horizon, threshold_table(float(alpha), mixture))


def _exact_discordant(theta: float, needed: np.ndarray) -> np.ndarray:
    """P(M = m), m = 1..horizon: the first m with abs(d_m) >= needed[m - 1], by propagating d among running paths."""
    horizon = needed.size
    finite = needed[np.isfinite(needed)]
    width = int(finite.max()) if finite.size else horizon
    offset = width  # index of d = 0
    running = np.zeros(2 * width + 1)
    running[offset] = 1.0
    stopped = np.zeros(horizon)
    values = np.arange(-width, width + 1)
    survival = 1.0
    for m in range(1, horizon + 1):
        moved = np.empty_like(running)
        moved[1:] = theta * running[:-1]
        moved[0] = 0.0
        moved[:-1] += (1 - theta) * running[1:]
        running = moved
        if np.isfinite(needed[m - 1]):
            out = np.abs(values) >= needed[m - 1]
            stopped[m - 1] = running[out].sum()
            running[out] = 0.0
            survival -= stopped[m - 1]
            if survival < SURVIVAL_FLOOR:
                return stopped[:m]
    return stopped


def _items_quantile(probabilities: np.ndarray, psi: float, target: float) -> float:
    """Smallest whole n with sum_m P(M = m) P(Binomial(n, psi) >= m) >= target."""
    m = np.arange(1, probabilities.size + 1)

    def cdf(n: float) -> float:
        return float(np.sum(probabilities * stats.binom.sf(m - 1, n, psi)))

    if probabilities.sum() < target:
        return math.inf
    low, high = 0, max(1, math.ceil(probabilities.size / psi))
    while cdf(high) < target:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if cdf(middle) >= target else (middle, high)
    return float(high)


def _simulated(theta: float, psi: float, needed: np.ndarray, quantile: float, n_simulations: int, seed: int):
    rng = np.random.default_rng(seed)
    crossings = simulated_crossings(theta, needed, n_simulations, rng)
    crossed = np.isfinite(crossings)
    # The items it takes to see M discordant ones: M plus a negative binomial count of concordant items.
    items = np.full(n_simulations, np.inf)
    items[crossed] = crossings[crossed] + rng.negative_binomial(crossings[crossed].astype(np.int64), psi)
    finite = items[crossed]
    mean = float(finite.mean()) if finite.size else math.inf
    se = float(finite.std(ddof=1) / math.sqrt(finite.size)) if finite.size > 1 else math.inf
    ordered = np.sort(items)
    value = float(np.quantile(items, quantile, method="inverted_cdf"))
    # Order-statistic interval for the quantile (binomial ranks), reported as a standard error (a quarter of its 95%
    # width).
    spread = 1.96 * math.sqrt(n_simulations * quantile * (1 - quantile))
    low = ordered[max(math.floor(n_simulations * quantile - spread), 0)]
    high = ordered[min(math.ceil(n_simulations * quantile + spread), n_simulations - 1)]
    return mean, se, value, float((high - low) / 4) if np.isfinite(high) else math.inf, float(crossed.mean())


@docfill("alpha_float", "mixture", "seed")
def stopping_time(
    p_a: float,
    p_b: float,
    rho: float,
    alpha: float = 0.05,
    mixture: str = "grid",
    quantile: float = 0.9,
    horizon: int | None = None,
    n_simulations: int = SIMULATIONS,
    seed: int = 0,
) -> StoppingTime:
    """Expected and ``quantile`` stopping N of the monitored test of a pair.

    The pair has accuracies p_a, p_b and correlation rho.

    Parameters
    ----------
    p_a, p_b : float
        Accuracies of models A and B, each in (0, 1).
    rho : float
        Correlation of the two models' per-item 0/1 scores, inside the admissible interval of the marginals.
    %(alpha_float)s
    %(mixture)s
    quantile : float, default 0.9
        The probability of the stopping-N quantile, in (0, 1).
    horizon : int, optional
        Discordant items followed (default: 40 times the discordant count a fixed-n test needs, at least 2,000
        and at most ``EXACT_HORIZON``, so the default is always exact).  A longer horizon is simulated.
    n_simulations : int, default ``SIMULATIONS`` (4000)
        Paths simulated when ``horizon`` exceeds ``EXACT_HORIZON``, in [100, ``MAX_SIMULATED_STEPS`` / horizon]
        (checked before anything is computed).
    %(seed)s

    Returns
    -------
    StoppingTime
        The expected and quantile stopping N in items, and the probability of crossing within the horizon.

    Notes
    -----
    With p10, p01 the discordant cells of (p_a, p_b, rho), theta = p10 / (p10 + p01) and psi = p10 + p01, the
    signed count d = b - c is a walk with steps +1 (probability theta) and -1; the e-process has crossed after m
    discordant items when abs(d) >= 2 k(m) - m.  The exact distribution of M is propagated among the paths not yet
    stopped, and P(N <= n) = sum_m P(M = m) P(Binomial(n, psi) >= m), E[N] = E[M] / psi.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Appendix C, Equation 24 (the
    e-process).

    Examples
    --------
    >>> result = stopping_time(0.65, 0.60, 0.30)
    >>> result.method, round(result.expected_n, -1) > 1000
    ('exact', True)
    >>> round(result.expected_n, 1), result.quantile_n
    (1328.2, 2626.0)
    """
    p_a, p_b, rho = (float(value) for value in validate_marginals_and_rho(p_a, p_b, rho))
    both = float(_variance.joint_success_probability(p_a, p_b, rho))
    return stopping_time_at_cells(
        max(p_a - both, 0.0), max(p_b - both, 0.0), alpha, mixture, quantile, horizon, n_simulations, seed
    )


@docfill("alpha_float", "mixture", "seed")
def stopping_time_at_cells(
    p10: float,
    p01: float,
    alpha: float = 0.05,
    mixture: str = "grid",
    quantile: float = 0.9,
    horizon: int | None = None,
    n_simulations: int = SIMULATIONS,
    seed: int = 0,
) -> StoppingTime:
    """:func:`stopping_time` at the discordant cells themselves: all it depends on (e.g. a true gap at a discordance).

    Parameters
    ----------
    p10, p01 : float
        P(A solves an item and B does not), P(B solves it and A does not); each >= 0, summing to at most 1.
    %(alpha_float)s
    %(mixture)s
    quantile : float, default 0.9
        The probability of the stopping-N quantile, in (0, 1).
    horizon : int, optional
        Discordant items followed (:func:`stopping_time`'s default).
    n_simulations : int, default ``SIMULATIONS`` (4000)
        Paths simulated when ``horizon`` exceeds ``EXACT_HORIZON``.
    %(seed)s

    Returns
    -------
    StoppingTime
        The expected and quantile stopping N in items, and the probability of crossing within the horizon.

    Notes
    -----
    A true gap d at discordance psi has p10 = (psi + d) / 2, p01 = (psi - d) / 2 (:func:`stopping_time`'s Notes).

    Examples
    --------
    >>> at_cells = stopping_time_at_cells(0.18990007132671250, 0.13990007132671245)
    >>> round(at_cells.expected_n, 1), at_cells.quantile_n
    (1328.2, 2626.0)
    """
    p10 = check_scalar("p10", p10, low=0, high=1)
    p01 = check_scalar("p01", p01, low=0, high=1 - p10)
    check_scalar("alpha", alpha, low=MIN_ALPHA, high=1, high_open=True)
    check_scalar("quantile", quantile, low=0, high=1, low_open=True, high_open=True)
    psi = p10 + p01
    if psi == 0 or p10 == p01:
        return StoppingTime(p10, p01, alpha, mixture, "exact", math.inf, 0.0, quantile, math.inf, 0.0, 0.0, 0)
    theta = p10 / psi
    drift = abs(2 * theta - 1)
    if horizon is None:
        horizon = int(min(max(2000, 40 * (2.8 / drift) ** 2), EXACT_HORIZON))
    check_scalar("horizon", horizon, low=1, high=MAX_SIMULATED_STEPS // 100, integer=True)
    if horizon > EXACT_HORIZON and not 100 <= n_simulations <= MAX_SIMULATED_STEPS / horizon:
        raise ArgumentError(
            f"horizon {horizon:,} is simulated with n_simulations x horizon at most {MAX_SIMULATED_STEPS:,} "
            f"steps, so n_simulations must lie in [100, {MAX_SIMULATED_STEPS // horizon:,}]; got "
            f"{n_simulations:,} (at {SIMULATIONS:,} paths the horizon is at most {MAX_HORIZON:,})"
        )
    needed = _boundary(int(horizon), alpha, mixture)
    if horizon <= EXACT_HORIZON:
        probabilities = _exact_discordant(theta, needed)
        crossed = float(probabilities.sum())
        m = np.arange(1, probabilities.size + 1)
        expected = float(np.sum(m * probabilities) / crossed / psi) if crossed > 0 else math.inf
        value = _items_quantile(probabilities, psi, quantile)
        return StoppingTime(
            p10, p01, alpha, mixture, "exact", expected, 0.0, quantile, value, 0.0, crossed, int(horizon)
        )
    mean, se, value, value_se, crossed = _simulated(theta, psi, needed, quantile, n_simulations, seed)
    return StoppingTime(
        p10,
        p01,
        alpha,
        mixture,
        "simulation",
        mean,
        se,
        quantile,
        value,
        value_se,
        crossed,
        int(horizon),
        n_simulations,
        seed,
    )
