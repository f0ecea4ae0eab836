"""The within/between split of the variance of item means, per model and per pair, and q at other K.

With K_im generations of model m on item i and s2_im their sample variance (``matrix.generations``), per model:

* ``within_variance`` sigma_w^2 = mean_i s2_im, the noise of one generation;
* ``within_part`` = mean_i s2_im / K_im, the generation-noise part of Var(item mean) (unbiased for unequal K);
* ``item_mean_variance``: the sample variance (divisor N - 1) of the item means;
* ``between_variance`` sigma_b^2 = item_mean_variance - within_part (method of moments; may be negative, and is
  reported as it is);
* ``generation_share`` = within_part / item_mean_variance (NaN when that is 0).

Per pair (A, B) with D_i = ybar_Ai - ybar_Bi: ``gap_variance`` is the sample variance of D_i (what the paired t
uses), ``within_part`` and ``within_variance`` the sums of the two models' (their generations are independent given
the item), ``between_variance`` sigma_item^2 = gap_variance - within_part, ``generation_share`` = within_part /
gap_variance: the share of the gap's noise more generations could remove.

:func:`resolution_curve` gives q at K' generations of both models, N items and the observed gap d:
q(K') = N d^2 / ((z_{1-alpha/2} + z_power)^2 (max(sigma_item^2, 0) + sigma_w^2 / K')).  Derivations (the
unbiasedness with unequal K, Var(Dbar), q(K')): ``derivations/repeats.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified._generated import repeats as _repeats
from llm_power_verified._validation import check_alpha_power
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.results import Result

__all__ = ["CURVE_GENERATIONS", "ModelSplit", "PairSplit", "model_split", "pair_split", "resolution_curve"]

#: The numbers of generations K' of the q curve (the audit's ``q_generations_*`` columns).
CURVE_GENERATIONS = (1, 2, 5, 10, 20, math.inf)

#: Items x pairs of one block of differences D_i (float64: 16 MiB).
_BLOCK_CELLS = 2**21


@dataclass(frozen=True, repr=False)
class ModelSplit(Result):
    """Per model (in ``matrix.models`` order): the method-of-moments split of the variance of its item means.

    Attributes
    ----------
    generations : numpy.ndarray
        Mean number of generations per item.
    fewest, most : numpy.ndarray
        int64: the fewest and the most generations of one of the model's items.
    within_variance : numpy.ndarray
        sigma_w^2 = mean_i s2_i, the variance of one generation around its item's mean.
    within_part : numpy.ndarray
        mean_i s2_i / K_i, the generation-noise part of the variance of an item mean.
    item_mean_variance : numpy.ndarray
        Sample variance (divisor N - 1) of the item means.
    between_variance : numpy.ndarray
        sigma_b^2 = item_mean_variance - within_part (may be negative: the estimate as it is).
    generation_share : numpy.ndarray
        within_part / item_mean_variance (NaN where the item means do not vary).
    """

    generations: np.ndarray
    fewest: np.ndarray
    most: np.ndarray
    within_variance: np.ndarray
    within_part: np.ndarray
    item_mean_variance: np.ndarray
    between_variance: np.ndarray
    generation_share: np.ndarray


@dataclass(frozen=True, repr=False)
class PairSplit(Result):
    """Per pair (A, B): the split of the variance of the item-mean differences D_i.

    Attributes
    ----------
    gap_variance : numpy.ndarray
        Sample variance (divisor N - 1) of D_i, as the paired t uses it.
    within_part : numpy.ndarray
        within_part_A + within_part_B: the generation-noise part of Var(D_i).
    within_variance : numpy.ndarray
        within_variance_A + within_variance_B: the noise of one generation of each model's difference.
    between_variance : numpy.ndarray
        sigma_item^2 = gap_variance - within_part (may be negative: the estimate as it is).
    generation_share : numpy.ndarray
        within_part / gap_variance (NaN where D_i does not vary): what more generations could remove.
    """

    gap_variance: np.ndarray
    within_part: np.ndarray
    within_variance: np.ndarray
    between_variance: np.ndarray
    generation_share: np.ndarray


def _generations_of(matrix: ScoreMatrix):
    generations = matrix.generations
    if generations is None:
        raise ArgumentError(
            f"{matrix.source or 'the score matrix'} has one score per (item, model): the within/between split "
            "needs several generations per item (read with --repeat-column, --repeat-pattern or --epochs all)"
        )
    if matrix.n_items < 2:
        raise ArgumentError(f"{matrix.source or 'the score matrix'}: the split needs >= 2 items; got {matrix.n_items}")
    return generations


def _share(part: np.ndarray, total: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, part / np.where(total > 0, total, 1.0), np.nan)


def model_split(matrix: ScoreMatrix) -> ModelSplit:
    """The within/between split of each model's item means.

    Parameters
    ----------
    matrix : ScoreMatrix
        A matrix of item means read with several generations per item (``matrix.generations`` set).

    Returns
    -------
    ModelSplit
        Per model arrays in ``matrix.models`` order.

    Raises
    ------
    ArgumentError
        The matrix has no generations, or fewer than two items.

    Notes
    -----
    Under y_ij = mu + b_i + e_ij (Var b = sigma_b^2, Var e = sigma_w^2), E[s2_i] = sigma_w^2 and the sample variance
    of independent item means with variances v_i = sigma_b^2 + sigma_w^2 / K_i has expectation mean_i v_i, so
    item_mean_variance - mean_i s2_i / K_i is unbiased for sigma_b^2 whatever the K_i (``derivations/repeats.py``).

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io.generations import Generations
    >>> from llm_power_verified.io.matrix import ScoreMatrix
    >>> generations = Generations(np.full((3, 1), 2), np.array([[0.5], [0.0], [0.5]]), binary=True, label="epoch")
    >>> matrix = ScoreMatrix(np.array([[0.5], [1.0], [0.5]]), ("a",), ("1", "2", "3"), binary=False,
    ...                      generations=generations)
    >>> split = model_split(matrix)
    >>> split.within_variance.round(6).tolist(), split.between_variance.round(6).tolist()
    ([0.333333], [-0.083333])
    """
    generations = _generations_of(matrix)
    counts, within = generations.counts, generations.within
    within_variance = within.mean(axis=0)
    within_part = (within / counts).mean(axis=0)
    item_mean_variance = matrix.scores.var(axis=0, ddof=1)
    return ModelSplit(
        generations=counts.mean(axis=0),
        fewest=counts.min(axis=0).astype(np.int64),
        most=counts.max(axis=0).astype(np.int64),
        within_variance=within_variance,
        within_part=within_part,
        item_mean_variance=item_mean_variance,
        between_variance=item_mean_variance - within_part,
        generation_share=_share(within_part, item_mean_variance),
    )


def pair_split(matrix: ScoreMatrix, first: Any, second: Any, split: ModelSplit | None = None) -> PairSplit:
    """The within/between split of the item-mean differences of each pair (first[k], second[k]).

    Parameters
    ----------
    matrix : ScoreMatrix
        A matrix of item means with generations.
    first, second : array_like of int
        Model indices (columns of ``matrix.scores``) of each pair.
    split : ModelSplit, optional
        ``model_split(matrix)`` when already computed.

    Returns
    -------
    PairSplit
        Per pair arrays, in the order of ``first``/``second``.

    Raises
    ------
    ArgumentError
        The matrix has no generations or fewer than two items; the index arrays differ in shape or name no model.

    Notes
    -----
    Var(D_i) = sigma_item^2 + s2_A / K_A + s2_B / K_B in expectation: the generations of the two models are
    independent given the item, so their within parts add (``derivations/repeats.py``).  The differences are
    formed in blocks of pairs so that memory stays at most about 16 MiB whatever the number of pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io.generations import Generations
    >>> from llm_power_verified.io.matrix import ScoreMatrix
    >>> generations = Generations(np.full((3, 2), 2), np.full((3, 2), 0.5), binary=True, label="epoch")
    >>> matrix = ScoreMatrix(np.array([[0.5, 0.5], [1.0, 0.5], [0.0, 0.5]]), ("a", "b"), ("1", "2", "3"),
    ...                      binary=False, generations=generations)
    >>> result = pair_split(matrix, [0], [1])
    >>> result.gap_variance.tolist(), result.within_part.tolist(), result.between_variance.tolist()
    ([0.25], [0.5], [-0.25])
    """
    split = model_split(matrix) if split is None else split
    first = np.asarray(first, dtype=np.int64).ravel()
    second = np.asarray(second, dtype=np.int64).ravel()
    if first.shape != second.shape:
        raise ArgumentError(f"first and second must have one model index per pair; got {first.size} and {second.size}")
    n_models = matrix.n_models
    for name, index in (("first", first), ("second", second)):
        bad = (index < 0) | (index >= n_models)
        if bad.any():
            raise ArgumentError(f"{name} must hold model indices in [0, {n_models - 1}]; got {int(index[bad][0])}")
    gap_variance = np.empty(first.size)
    block = max(1, _BLOCK_CELLS // matrix.n_items)
    scores = matrix.scores
    for start in range(0, first.size, block):
        stop = start + block
        differences = scores[:, first[start:stop]] - scores[:, second[start:stop]]
        gap_variance[start:stop] = differences.var(axis=0, ddof=1)
    within_part = split.within_part[first] + split.within_part[second]
    return PairSplit(
        gap_variance=gap_variance,
        within_part=within_part,
        within_variance=split.within_variance[first] + split.within_variance[second],
        between_variance=gap_variance - within_part,
        generation_share=_share(within_part, gap_variance),
    )


def resolution_curve(
    n: Any,
    gap: Any,
    between_variance: Any,
    within_variance: Any,
    alpha: float = 0.05,
    power: float = 0.8,
    generations: tuple[float, ...] = CURVE_GENERATIONS,
) -> np.ndarray:
    """The resolution ratio q of each pair with K' generations of both models, for each K' in ``generations``.

    Parameters
    ----------
    n : array_like
        Number of items (per pair, or one for all).
    gap : array_like
        The gap d of each pair (its observed mean difference, or a gap of interest).
    between_variance : array_like
        sigma_item^2 of each pair; a negative estimate counts as 0 (truncated: the curve needs a variance).
    within_variance : array_like
        The pair's per-generation noise sigma_wA^2 + sigma_wB^2.
    alpha, power : float
        Two-sided level and target power.
    generations : tuple of float
        The K' (>= 1; ``math.inf`` for unlimited generations).

    Returns
    -------
    numpy.ndarray
        Pairs x len(generations): q(K') = N d^2 / ((z_{1-alpha/2} + z_power)^2 (max(sigma_item^2, 0) +
        sigma_w^2 / K')); inf where that variance is 0 and d != 0, 0 where d = 0.

    Notes
    -----
    At K' equal to the generations read (equal K, sigma_item^2 >= 0) q(K') is the audit's q = z_wald^2 /
    (z_{1-alpha/2} + z_power)^2 to rounding.  Printed from ``derivations/repeats.py``
    (``resolution_ratio_repeated``).

    Examples
    --------
    >>> resolution_curve(100, 0.1, 0.2, 0.5, generations=(1, 5)).round(4).tolist()
    [[0.182, 0.4247]]
    """
    alpha_value, power_value = check_alpha_power(alpha, power)
    counts = np.asarray(generations, dtype=np.float64)
    if counts.ndim != 1 or counts.size == 0 or np.isnan(counts).any() or (counts < 1).any():
        raise ArgumentError(f"generations must be numbers >= 1 (math.inf allowed); got {generations!r}")
    n, gap, between, within = np.broadcast_arrays(
        *(np.atleast_1d(np.asarray(value, dtype=np.float64)) for value in (n, gap, between_variance, within_variance))
    )
    if (within < 0).any() or (n < 1).any():
        raise ArgumentError("within_variance must be >= 0 and n >= 1 in the q curve")
    between = np.maximum(between, 0.0)[:, None]
    gap, n, within = gap[:, None], n[:, None], within[:, None]
    variance = between + within / counts
    with np.errstate(divide="ignore", invalid="ignore"):
        curve = _repeats.resolution_ratio_repeated(n, gap, between, within, counts, alpha_value, power_value, 2)
    curve = np.where(variance > 0, curve, np.inf)
    return np.where(gap == 0, 0.0, curve)
