"""Each model's mean score, exact where the generations make it exact.

With 0/1 generations an item mean is k / K, which a float holds only to the nearest double: summing those
rounded item means gives two models with the same number of correct generations means that differ in the last
bits (65 correct of 120 as 1/3 + 1/3 + 1/3 + ... against 1 + 0 + 0 + ...), so an exact tie would rank by float
noise and show a gap of 1e-16.  :func:`model_means` reads each cell's count of correct generations back from its
mean (k = K x mean, exact after rounding to the nearest whole number while K is below 2^52), sums the rational
item means k_i / K_i exactly in integers over a common denominator, and rounds once.  Graded generations, and
matrices without generations, keep the plain float mean: there the scores themselves are rounded values.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from llm_power_verified.io import ScoreMatrix

__all__ = ["mean_difference", "model_means"]


def model_means(matrix: ScoreMatrix) -> np.ndarray:
    """The mean score of each model (column), exactly rounded for 0/1 generations (see the module notes).

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores; with ``generations`` of 0/1 generations the means are exact.

    Returns
    -------
    numpy.ndarray
        One mean per model, in ``matrix.models`` order.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import build_matrix
    >>> from llm_power_verified.io.generations import Generations
    >>> correct = np.array([[0, 0], [2, 3], [3, 2], [0, 3], [2, 1], [3, 1]])  # 10 of 18 generations each
    >>> generations = Generations(np.full((6, 2), 3), np.zeros((6, 2)), binary=True, label="epoch")
    >>> matrix = build_matrix(correct / 3, ["a", "c"], [f"q{i}" for i in range(6)], generations=generations)
    >>> matrix.scores.mean(axis=0).tolist(), model_means(matrix).tolist()
    ([0.5555555555555555, 0.5555555555555556], [0.5555555555555556, 0.5555555555555556])
    """
    means = matrix.scores.mean(axis=0)
    exact = _exact_means(matrix)
    return means if exact is None else np.array([float(mean) for mean in exact])


def mean_difference(matrix: ScoreMatrix, baseline: int, candidate: int) -> float:
    """The mean per-item difference candidate - baseline, exactly rounded for 0/1 generations.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores; with ``generations`` of 0/1 generations the difference is exact (0 for a tie).
    baseline, candidate : int
        Column indices of the two models.

    Returns
    -------
    float
        The mean of ``scores[:, candidate] - scores[:, baseline]``.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import build_matrix
    >>> from llm_power_verified.io.generations import Generations
    >>> correct = np.array([[0, 0], [2, 3], [3, 2], [0, 3], [2, 1], [3, 1]])  # 10 of 18 generations each
    >>> generations = Generations(np.full((6, 2), 3), np.zeros((6, 2)), binary=True, label="epoch")
    >>> matrix = build_matrix(correct / 3, ["a", "c"], [f"q{i}" for i in range(6)], generations=generations)
    >>> mean_difference(matrix, 0, 1)
    0.0
    """
    exact = _exact_means(matrix)
    if exact is None:
        return float((matrix.scores[:, candidate] - matrix.scores[:, baseline]).mean())
    return float(exact[candidate] - exact[baseline])


def _exact_means(matrix: ScoreMatrix) -> list[Fraction] | None:
    """Each model's mean as an exact fraction for 0/1 generations; None where the scores are rounded values."""
    generations = matrix.generations
    if generations is None or not generations.binary:
        return None
    counts = generations.counts
    correct = np.rint(matrix.scores * counts).astype(np.int64)
    exact = []
    for model in range(matrix.n_models):
        column = counts[:, model]
        distinct = [int(count) for count in np.unique(column)]
        denominator = math.lcm(*distinct)
        # Python integers: the numerator cannot overflow whatever N and the counts.
        numerator = sum(int(correct[column == count, model].sum()) * (denominator // count) for count in distinct)
        exact.append(Fraction(numerator, denominator * matrix.n_items))
    return exact
