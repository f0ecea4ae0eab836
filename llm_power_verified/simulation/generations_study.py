"""The Monte Carlo checks of the two-level analysis (several generations per item), one design at a time.

* :func:`estimator_bias`: the estimators of :mod:`llm_power_verified.repeats.split` averaged over replicates of
  :mod:`llm_power_verified.simulation.generations`, beside their truth and Monte Carlo standard error;
* :func:`type_one_error`: the paired t-test on item means under no gap, beside the binomial range at alpha;
* :func:`planned_power`: the simulated power of the (N, K) that
  :func:`llm_power_verified.repeats.planning.plan_generations` plans at the true variances.

The grid, the stored tables and the docs' tables: ``crosscheck/generations_study.py``.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy import stats

from llm_power_verified._docstrings import docfill
from llm_power_verified._validation import check_alpha_power
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.graded import batched_paired_t_pvalues
from llm_power_verified.repeats.planning import plan_generations
from llm_power_verified.repeats.split import model_split, pair_split
from llm_power_verified.simulation.generations import (
    TwoLevelDesign,
    replicate_matrix,
    simulate_two_level,
    two_level_truth,
)

__all__ = ["estimator_bias", "planned_power", "type_one_error"]


@docfill("n_simulations", "rng")
def estimator_bias(design: TwoLevelDesign, n_simulations: int, rng: np.random.Generator) -> list[dict[str, object]]:
    """The mean of each estimator of :mod:`llm_power_verified.repeats.split` over replicates, beside its truth.

    Parameters
    ----------
    design : TwoLevelDesign
        The cell (at least two generations per cell).
    %(n_simulations)s
    %(rng)s

    Returns
    -------
    list of dict
        One row per statistic: statistic, truth, mean, mc_se (the standard deviation over replicates / sqrt(R)),
        z = (mean - truth) / mc_se.

    Notes
    -----
    Model A's and B's ``within_variance`` and ``between_variance`` from
    :func:`~llm_power_verified.repeats.split.model_split`, the pair's ``gap_variance``, ``within_part``,
    ``within_variance`` and ``between_variance`` from :func:`~llm_power_verified.repeats.split.pair_split`, each
    over the R replicates of one :func:`~llm_power_verified.simulation.generations.replicate_matrix`.
    Unbiased estimators give mean - truth within a few mc_se.

    Examples
    --------
    >>> design = TwoLevelDesign("graded", 40, 3, 0.2, 0.3, 0.5, 0.6, 0.55)
    >>> rows = estimator_bias(design, 200, np.random.default_rng(0))
    >>> [row["statistic"] for row in rows][:2], all(abs(row["z"]) < 4 for row in rows)
    (['model A within_variance', 'model A between_variance'], True)
    """
    truth = two_level_truth(design)
    matrix = replicate_matrix(simulate_two_level(design, n_simulations, rng))
    models = model_split(matrix)
    first = np.arange(0, 2 * n_simulations, 2)
    pairs = pair_split(matrix, first, first + 1)
    estimates = {}
    for index, model in enumerate("AB"):
        for name in ("within_variance", "between_variance"):
            estimates[f"model {model} {name}"] = (
                np.asarray(getattr(models, name))[index::2],
                getattr(truth, name)[index],
            )
    for name in ("gap_variance", "within_part", "within_variance", "between_variance"):
        estimates[f"pair {name}"] = (np.asarray(getattr(pairs, name)), getattr(truth, f"pair_{name}"))
    rows = []
    for statistic, (values, true) in estimates.items():
        mean = float(values.mean())
        se = float(values.std(ddof=1) / math.sqrt(n_simulations))
        rows.append({"statistic": statistic, "truth": true, "mean": mean, "mc_se": se, "z": (mean - true) / se})
    return rows


def _rejection_rate(design: TwoLevelDesign, n_simulations: int, alpha: float, rng: np.random.Generator) -> float:
    """Share of replicates whose paired t-test on the item means rejects at alpha (a NaN p-value does not)."""
    means = simulate_two_level(design, n_simulations, rng).means
    pvalues = batched_paired_t_pvalues(means[..., 0] - means[..., 1])
    return float(np.mean(pvalues <= alpha))


@docfill("n_simulations", "rng", "alpha_float")
def type_one_error(
    design: TwoLevelDesign, n_simulations: int, rng: np.random.Generator, alpha: float = 0.05
) -> dict[str, float]:
    """Type-I error of the paired t-test on item means under a null design (mu_A = mu_B).

    Parameters
    ----------
    design : TwoLevelDesign
        A cell with location_a == location_b.
    %(n_simulations)s
    %(rng)s
    %(alpha_float)s

    Returns
    -------
    dict
        rate (the share rejected), mc_se, and low, high: the central 99.9% binomial range of the rate at alpha.

    Examples
    --------
    >>> design = TwoLevelDesign("binary", 60, 3, 1.0, 0.0, 0.4, 0.5, 0.5)
    >>> row = type_one_error(design, 2000, np.random.default_rng(0))
    >>> row["low"] <= row["rate"] <= row["high"]
    True
    """
    check_alpha_power(alpha)
    if design.location_a != design.location_b:
        raise ArgumentError(
            f"type_one_error needs location_a == location_b; got {design.location_a!r}, {design.location_b!r}"
        )
    rate = _rejection_rate(design, n_simulations, alpha, rng)
    low, high = stats.binom.interval(0.999, n_simulations, alpha)
    return {
        "rate": rate,
        "mc_se": math.sqrt(alpha * (1 - alpha) / n_simulations),
        "low": float(low) / n_simulations,
        "high": float(high) / n_simulations,
    }


@docfill("n_simulations", "rng", "alpha_float", "power_float")
def planned_power(
    design: TwoLevelDesign,
    n_simulations: int,
    rng: np.random.Generator,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    cost_item: float = 1.0,
    cost_generation: float = 1.0,
    k_max: int = 20,
    generations: tuple[int, ...] = (1, 2, 5),
) -> list[dict[str, object]]:
    """The simulated power of the (N, K) that :func:`~llm_power_verified.repeats.planning.plan_generations` plans.

    Parameters
    ----------
    design : TwoLevelDesign
        The truth (its ``items``, ``generations`` and ``unequal`` are replaced by each planned (N, K)).
    %(n_simulations)s
    %(rng)s
    %(alpha_float)s
    %(power_float)s
    cost_item, cost_generation : float, default 1.0
        The plan's costs of one item and of one generation of one model.
    k_max : int, default 20
        The plan's largest K.
    generations : tuple of int, default (1, 2, 5)
        The K of the plan's table to simulate besides the cheapest.

    Returns
    -------
    list of dict
        One row per simulated K: generations, items, cost, cheapest (bool), planned_power (the exact t power at
        that N), rate (simulated), mc_se (sqrt(rate (1 - rate) / R)).

    Notes
    -----
    The plan is made with the true gap, sigma_item^2 and the pair's sigma_w^2
    (:func:`~llm_power_verified.simulation.generations.two_level_truth`); the
    simulation tests the item-mean differences with the paired t at alpha.

    Examples
    --------
    >>> design = TwoLevelDesign("graded", 2, 1, 0.2, 0.4, 0.5, 0.55, 0.5)
    >>> rows = planned_power(design, 400, np.random.default_rng(0), generations=())
    >>> rows[0]["cheapest"], rows[0]["rate"] > 0.7
    (True, True)
    """
    truth = two_level_truth(design)
    plan = plan_generations(
        truth.gap,
        truth.pair_between_variance,
        truth.pair_within_variance,
        alpha=alpha,
        power=power,
        cost_item=cost_item,
        cost_generation=cost_generation,
        k_max=k_max,
    )
    table = plan.table.set_index("generations")
    chosen = [plan.best_generations, *(k for k in generations if k != plan.best_generations and k in table.index)]
    rows = []
    for k in chosen:
        items = int(table.loc[k, "items"])
        cell = replace(design, items=items, generations=int(k), unequal=False)
        rate = _rejection_rate(cell, n_simulations, alpha, rng)
        rows.append(
            {
                "generations": int(k),
                "items": items,
                "cost": float(table.loc[k, "cost"]),
                "cheapest": k == plan.best_generations,
                "planned_power": float(table.loc[k, "power"]),
                "rate": rate,
                "mc_se": math.sqrt(max(rate * (1 - rate), 1 / n_simulations) / n_simulations),
            }
        )
    return rows
