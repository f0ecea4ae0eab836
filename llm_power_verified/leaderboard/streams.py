"""Random streams of an audit that depend only on the seed and the names involved.

A pair's bootstrap stream is seeded by (seed, a hash of the two model names in
sorted order), so the pair's interval does not change with ``--mode``, the
declared family, the other models present or the column order of the input.
The item-resampling stream of graded scores is seeded by (seed, "items") over
the items sorted by id, so it does not change with the row order; :func:`canonical_order`
puts a whole matrix in that order (items by id, models by name) before an audit.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence

import numpy as np

from llm_power_verified.io import ScoreMatrix

__all__ = ["canonical_item_order", "canonical_order", "item_stream", "pair_streams", "ranking_order"]

_ITEMS = 0x6974656D  # "item": the item stream's tag, outside the range of the pair hashes' first word


def _words(text: str) -> list[int]:
    """Four 32-bit words of BLAKE2b(text): a stable key (Python's hash() is salted per process)."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
    return [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]


def pair_streams(
    seed: int, first_names: Sequence[str], second_names: Sequence[str]
) -> tuple[list[np.random.Generator], np.ndarray]:
    """One random generator per pair, keyed by the seed and the two names in sorted order.

    Parameters
    ----------
    seed : int
        The audit's seed.
    first_names, second_names : sequence of str
        The models of each pair.

    Returns
    -------
    generators : list of numpy.random.Generator
        One per pair.
    swapped : numpy.ndarray
        True where (first, second) is the reverse of the sorted order, so that the caller draws in the sorted
        orientation and swaps the discordant cells back.
    """
    generators = []
    reversed_order = np.empty(len(first_names), dtype=bool)
    for index, (first, second) in enumerate(zip(first_names, second_names, strict=True)):
        low, high = sorted((first, second))
        reversed_order[index] = first != low
        generators.append(np.random.default_rng([int(seed), *_words(f"{low}\x00{high}")]))
    return generators, reversed_order


def item_stream(seed: int) -> np.random.Generator:
    """The generator of the shared item resampling (graded scores), keyed by the seed only.

    Parameters
    ----------
    seed : int
        The audit's seed.

    Returns
    -------
    numpy.random.Generator
        The generator.
    """
    return np.random.default_rng([int(seed), _ITEMS])


def canonical_item_order(item_ids: Sequence[str]) -> np.ndarray:
    """Row order that sorts the items by id, making every draw independent of the input's row order.

    Parameters
    ----------
    item_ids : sequence of str
        Unique item ids.

    Returns
    -------
    numpy.ndarray
        The row indices in id order.

    Examples
    --------
    >>> canonical_item_order(["b", "c", "a"]).tolist()
    [2, 0, 1]
    """
    return np.argsort(np.asarray(item_ids, dtype=object).astype(str), kind="stable")


def ranking_order(means: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Model indices from the highest mean score down; equal means are ordered by name, not by column position.

    Parameters
    ----------
    means : numpy.ndarray
        Each model's mean score.
    names : sequence of str
        The model names.

    Returns
    -------
    numpy.ndarray
        The indices in rank order.

    Examples
    --------
    >>> ranking_order(np.array([0.5, 0.7, 0.5]), ["b", "c", "a"]).tolist()
    [1, 2, 0]
    """
    return np.lexsort((np.asarray(names, dtype=object).astype(str), -np.asarray(means, dtype=np.float64)))


def canonical_order(matrix: ScoreMatrix) -> ScoreMatrix:
    """The matrix with items sorted by id and models by name.

    The order makes no result depend on the input's row or column order.

    Sorting the models matters for graded scores too: a BLAS product sums in an order that depends on a column's
    position, so a permuted input would move the last bits of a covariance.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores.

    Returns
    -------
    ScoreMatrix
        The same scores in canonical order.
    """
    rows = canonical_item_order(matrix.item_ids)
    columns = np.argsort(np.asarray(matrix.models, dtype=object).astype(str), kind="stable")
    if np.array_equal(rows, np.arange(rows.size)) and np.array_equal(columns, np.arange(columns.size)):
        return matrix
    clusters = None if matrix.clusters is None else tuple(np.asarray(matrix.clusters, dtype=object)[rows])
    return dataclasses.replace(
        matrix,
        scores=matrix.scores[np.ix_(rows, columns)],  # one gather: a single copy of the matrix (C order)
        models=tuple(np.asarray(matrix.models, dtype=object)[columns]),
        item_ids=tuple(np.asarray(matrix.item_ids, dtype=object)[rows]),
        clusters=clusters,
        generations=None if matrix.generations is None else matrix.generations.subset(rows, columns),
    )
