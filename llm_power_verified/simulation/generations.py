"""Simulated evaluations with several generations per item, and the Monte Carlo checks of the two-level analysis.

The two-level model of :mod:`llm_power_verified.repeats`: model m's item i has a level, and each of its K
generations scatters around it.

* graded: level mu_m + sigma_b z_im, generation level + sigma_w e_imj (normal, no clipping: real-valued scores);
* binary: p_im = logistic(mu_m + sigma_b z_im) (logit-normal), generation Bernoulli(p_im).

(z_iA, z_iB) are standard normals with correlation ``correlation`` (the items' shared difficulty), e independent
standard normals.  Each replicate draws every generation (no sufficient-statistic shortcut), in blocks of
replicates that keep memory bounded, and keeps the cell means and sample variances (divisor K - 1).

:func:`replicate_matrix` packs R replicates into one :class:`~llm_power_verified.io.matrix.ScoreMatrix` of
2R models (replicate r's models A and B are columns 2r and 2r + 1), so that the estimators of
:mod:`llm_power_verified.repeats.split` run on every replicate in one vectorised call.  :func:`two_level_truth`
gives what they estimate: closed forms for the graded model, two-dimensional Gauss-Hermite quadrature (80 x 80
nodes) of the logit-normal moments for the binary one.

The checks that use them (estimator bias, type-I error, planned power) are in
:mod:`llm_power_verified.simulation.generations_study`.  Randomness comes only from a seeded
``numpy.random.Generator``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.generations import Generations
from llm_power_verified.io.matrix import ScoreMatrix, build_matrix
from llm_power_verified.results import Result

__all__ = [
    "SimulatedGenerations",
    "TwoLevelDesign",
    "TwoLevelTruth",
    "draw_generations",
    "replicate_matrix",
    "simulate_two_level",
    "two_level_truth",
]

KINDS = ("graded", "binary")
#: Generations drawn at once (float64: 32 MiB per block, twice that with the deviations).
_BLOCK_VALUES = 2**22
#: Gauss-Hermite nodes per dimension of the binary truth (the integrands are smooth; 80 nodes give ~1e-15).
_QUADRATURE_NODES = 80


@dataclass(frozen=True, repr=False)
class TwoLevelDesign(Result):
    """One cell of the study: two models, N items, K generations per (item, model).

    Attributes
    ----------
    kind : {"graded", "binary"}
        Normal generations around normal item levels, or Bernoulli generations of logit-normal item accuracies.
    items : int
        N, at least 2.
    generations : int
        K (the most, when ``unequal``), at least 1.
    between_sd : float
        sigma_b >= 0: the spread of the item levels (graded: in score units; binary: on the logit scale).
    within_sd : float
        sigma_w >= 0 of one graded generation around its item's level; 0 for binary (a Bernoulli generation's
        spread is p (1 - p)).
    correlation : float
        Correlation of the two models' item levels, in [-1, 1].
    location_a, location_b : float
        mu_A, mu_B: the models' mean levels (graded: score units; binary: logits).
    unequal : bool, default False
        Counts 2, 3, ..., K cycling over items (model B shifted by two), instead of K everywhere; needs K >= 3.
    """

    kind: str
    items: int
    generations: int
    between_sd: float
    within_sd: float
    correlation: float
    location_a: float
    location_b: float
    unequal: bool = False

    def __post_init__(self) -> None:
        """Argument checks (ArgumentError naming the field)."""
        if self.kind not in KINDS:
            raise ArgumentError(f"kind must be one of {KINDS}; got {self.kind!r}")
        for name, low in (("items", 2), ("generations", 3 if self.unequal else 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ArgumentError(f"{name} must be a whole number >= {low}; got {value!r}")
        for name in ("between_sd", "within_sd", "location_a", "location_b"):
            if not math.isfinite(getattr(self, name)):
                raise ArgumentError(f"{name} must be finite; got {getattr(self, name)!r}")
        if self.between_sd < 0 or self.within_sd < 0:
            raise ArgumentError(f"between_sd and within_sd must be >= 0; got {self.between_sd!r}, {self.within_sd!r}")
        if self.kind == "binary" and self.within_sd != 0:
            raise ArgumentError(
                f"within_sd must be 0 for binary generations (their spread is p (1 - p)); got {self.within_sd!r}"
            )
        if not -1 <= self.correlation <= 1:
            raise ArgumentError(f"correlation must lie in [-1, 1]; got {self.correlation!r}")

    @property
    def counts(self) -> np.ndarray:
        """int64, items x 2: the generations of each (item, model) cell."""
        if not self.unequal:
            return np.full((self.items, 2), self.generations, dtype=np.int64)
        rows = np.arange(self.items)[:, None] + 2 * np.arange(2)[None, :]
        return (2 + rows % (self.generations - 1)).astype(np.int64)


@dataclass(frozen=True, repr=False)
class TwoLevelTruth(Result):
    """What the estimators of :mod:`llm_power_verified.repeats.split` estimate, for one design.

    Attributes
    ----------
    gap : float
        E[ybar_A] - E[ybar_B]: the true difference of the models' mean scores.
    within_variance, between_variance, within_part, item_mean_variance : tuple of float
        Per model (A, B): sigma_w^2 (graded sigma_w^2; binary E[p (1 - p)]), sigma_b^2 (graded sigma_b^2; binary
        Var p), sigma_w^2 mean_i(1 / K_i) and their sum (the expected sample variance of the item means).
    pair_within_variance, pair_within_part, pair_between_variance, pair_gap_variance : float
        The pair's: the sums of the two models' within parts, sigma_item^2 = Var(level_A - level_B), and
        sigma_item^2 + within part (the expected sample variance of D_i).
    """

    gap: float
    within_variance: tuple[float, float]
    between_variance: tuple[float, float]
    within_part: tuple[float, float]
    item_mean_variance: tuple[float, float]
    pair_within_variance: float
    pair_within_part: float
    pair_between_variance: float
    pair_gap_variance: float


@dataclass(frozen=True, repr=False)
class SimulatedGenerations(Result):
    """Replicates of one design, reduced to their cells.

    Attributes
    ----------
    means : numpy.ndarray
        float64, (replicates, items, 2): each cell's mean over its generations.
    within : numpy.ndarray
        float64, (replicates, items, 2): each cell's sample variance (divisor K - 1; NaN where K = 1).
    counts : numpy.ndarray
        int64, (items, 2): the generations of each cell (the same in every replicate).
    binary : bool
        Every generation is 0 or 1.
    """

    means: np.ndarray
    within: np.ndarray
    counts: np.ndarray
    binary: bool


def two_level_truth(design: TwoLevelDesign) -> TwoLevelTruth:
    """The true values of the split's quantities for a design.

    Parameters
    ----------
    design : TwoLevelDesign
        The cell.

    Returns
    -------
    TwoLevelTruth
        Per model and per pair.

    Notes
    -----
    Graded: sigma_w^2 and sigma_b^2 as declared, sigma_item^2 = 2 sigma_b^2 (1 - correlation).  Binary: with
    p_m = logistic(mu_m + sigma_b z_m), E[s^2 | p] = p (1 - p) gives sigma_w^2 = E[p] - E[p^2], sigma_b^2 = Var p,
    sigma_item^2 = Var(p_A - p_B); the expectations by two-dimensional Gauss-Hermite quadrature.  The within part of
    an item mean is sigma_w^2 mean_i(1 / K_i) at the design's counts (derivations/repeats.py).

    Examples
    --------
    >>> truth = two_level_truth(TwoLevelDesign("graded", 100, 5, 0.2, 0.3, 0.5, 0.6, 0.55))
    >>> round(truth.pair_between_variance, 12), round(truth.pair_gap_variance, 12)
    (0.04, 0.076)
    """
    if design.kind == "graded":
        within = (design.within_sd**2,) * 2
        between = (design.between_sd**2,) * 2
        pair_between = 2 * design.between_sd**2 * (1 - design.correlation)
        gap = design.location_a - design.location_b
    else:
        nodes, weights = np.polynomial.hermite_e.hermegauss(_QUADRATURE_NODES)
        weights = weights / math.sqrt(2 * math.pi)
        grid_weights = weights[:, None] * weights[None, :]
        first, second = nodes[:, None], nodes[None, :]
        other = design.correlation * first + math.sqrt(max(1 - design.correlation**2, 0.0)) * second
        p_a = np.broadcast_to(special.expit(design.location_a + design.between_sd * first), grid_weights.shape)
        p_b = special.expit(design.location_b + design.between_sd * other)
        mean_a, mean_b = float((grid_weights * p_a).sum()), float((grid_weights * p_b).sum())
        var_a = float((grid_weights * (p_a - mean_a) ** 2).sum())
        var_b = float((grid_weights * (p_b - mean_b) ** 2).sum())
        within = (mean_a - var_a - mean_a**2, mean_b - var_b - mean_b**2)
        between = (var_a, var_b)
        pair_between = float((grid_weights * (p_a - p_b - mean_a + mean_b) ** 2).sum())
        gap = mean_a - mean_b
    inverse = (1.0 / design.counts).mean(axis=0)
    part = (within[0] * float(inverse[0]), within[1] * float(inverse[1]))
    return TwoLevelTruth(
        gap=gap,
        within_variance=within,
        between_variance=between,
        within_part=part,
        item_mean_variance=(between[0] + part[0], between[1] + part[1]),
        pair_within_variance=within[0] + within[1],
        pair_within_part=part[0] + part[1],
        pair_between_variance=pair_between,
        pair_gap_variance=pair_between + part[0] + part[1],
    )


@docfill("n_simulations", "rng")
def draw_generations(design: TwoLevelDesign, n_simulations: int, rng: np.random.Generator) -> np.ndarray:
    """Every generation of ``n_simulations`` replicates of a design.

    Parameters
    ----------
    design : TwoLevelDesign
        The cell.
    %(n_simulations)s
    %(rng)s

    Returns
    -------
    numpy.ndarray
        float64, (n_simulations, items, 2, K): generation j of model m on item i; NaN beyond a cell's count.

    Examples
    --------
    >>> design = TwoLevelDesign("binary", 3, 4, 1.0, 0.0, 0.3, 0.5, 0.5, unequal=True)
    >>> scores = draw_generations(design, 1, np.random.default_rng(0))
    >>> scores.shape, np.isfinite(scores).sum(axis=-1)[0].tolist()
    ((1, 3, 2, 4), [[2, 4], [3, 2], [4, 3]])
    """
    if isinstance(n_simulations, bool) or not isinstance(n_simulations, (int, np.integer)) or n_simulations < 1:
        raise ArgumentError(f"n_simulations must be a whole number >= 1; got {n_simulations!r}")
    shape = (n_simulations, design.items, 2)
    shared = rng.standard_normal(shape)
    levels = np.empty(shape)
    levels[..., 0] = design.location_a + design.between_sd * shared[..., 0]
    other = design.correlation * shared[..., 0] + math.sqrt(max(1 - design.correlation**2, 0.0)) * shared[..., 1]
    levels[..., 1] = design.location_b + design.between_sd * other
    full = (*shape, design.generations)
    if design.kind == "graded":
        scores = levels[..., None] + design.within_sd * rng.standard_normal(full)
    else:
        scores = (rng.random(full) < special.expit(levels)[..., None]).astype(np.float64)
    absent = np.arange(design.generations) >= design.counts[..., None]
    scores[:, absent] = np.nan
    return scores


@docfill("n_simulations", "rng")
def simulate_two_level(design: TwoLevelDesign, n_simulations: int, rng: np.random.Generator) -> SimulatedGenerations:
    """Replicates of a design reduced to cell means and sample variances, drawn in memory-bounded blocks.

    Parameters
    ----------
    design : TwoLevelDesign
        The cell.
    %(n_simulations)s
    %(rng)s

    Returns
    -------
    SimulatedGenerations
        Means, sample variances (two-pass, divisor K - 1) and counts.

    Notes
    -----
    Blocks of replicates of at most 2^22 generations each, drawn by :func:`draw_generations` in turn from ``rng``:
    the result depends on the seed and on the block size, not on the memory of the machine.

    Examples
    --------
    >>> design = TwoLevelDesign("graded", 50, 3, 0.2, 0.3, 0.5, 0.6, 0.55)
    >>> simulated = simulate_two_level(design, 4, np.random.default_rng(1))
    >>> simulated.means.shape, simulated.within.shape
    ((4, 50, 2), (4, 50, 2))
    """
    counts = design.counts
    per_replicate = design.items * 2 * design.generations
    block = max(1, _BLOCK_VALUES // per_replicate)
    means, within = [], []
    for start in range(0, n_simulations, block):
        scores = draw_generations(design, min(block, n_simulations - start), rng)
        present = np.isfinite(scores)
        mean = np.where(present, scores, 0.0).sum(axis=-1) / counts
        deviations = np.where(present, scores - mean[..., None], 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):  # K = 1: no sample variance (NaN, as documented)
            variance = np.square(deviations).sum(axis=-1) / (counts - 1)
        means.append(mean)
        within.append(np.where(counts > 1, variance, np.nan))
    return SimulatedGenerations(np.concatenate(means), np.concatenate(within), counts, design.kind == "binary")


def replicate_matrix(simulated: SimulatedGenerations) -> ScoreMatrix:
    """The replicates as one score matrix: replicate r's models A and B are columns 2r and 2r + 1.

    Parameters
    ----------
    simulated : SimulatedGenerations
        Replicates with at least two generations in every cell.

    Returns
    -------
    ScoreMatrix
        items x 2R item means (graded, real-valued), with the cells'
        :class:`~llm_power_verified.io.generations.Generations`.

    Raises
    ------
    ArgumentError
        A cell with one generation (no within-item variance).

    Examples
    --------
    >>> design = TwoLevelDesign("binary", 20, 2, 1.0, 0.0, 0.3, 0.5, 0.5)
    >>> replicate_matrix(simulate_two_level(design, 3, np.random.default_rng(0))).models
    ('A0', 'B0', 'A1', 'B1', 'A2', 'B2')
    """
    if int(simulated.counts.min()) < 2:
        raise ArgumentError("replicate_matrix needs at least 2 generations per cell; got a cell with 1")
    replicates, items, _ = simulated.means.shape
    means = simulated.means.transpose(1, 0, 2).reshape(items, 2 * replicates)
    within = simulated.within.transpose(1, 0, 2).reshape(items, 2 * replicates)
    counts = np.tile(simulated.counts, (1, replicates))
    generations = Generations(counts, np.ascontiguousarray(within), binary=simulated.binary, label="generation")
    models = [f"{model}{replicate}" for replicate in range(replicates) for model in "AB"]
    return build_matrix(
        means,
        models,
        [str(item) for item in range(items)],
        score_kind="graded",
        score_range=(0.0, 1.0) if simulated.binary else None,
        source="simulation",
        generations=generations,
    )
