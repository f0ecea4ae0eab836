"""The paired 2x2 table of two aligned 0/1 score vectors.

Cells follow the glossary: ``a`` both right, ``b`` only model A right, ``c``
only model B right, ``d`` neither (``b`` and ``c`` are McNemar's discordant
counts).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llm_power_verified._validation import as_array
from llm_power_verified.errors import ArgumentError

__all__ = ["as_binary_vector", "binary_counts"]


def binary_counts(scores_a: Any, scores_b: Any) -> tuple[int, int, int, int]:
    """The 2x2 cells (a, b, c, d) from two aligned 0/1 score vectors: both right, only A, only B, neither.

    Raises ``llm_power_verified.errors.ArgumentError`` (a ``ValueError``) naming the vector and the index of
    the first item that is NaN or not 0/1, or when the lengths differ.

    Parameters
    ----------
    scores_a, scores_b : array_like
        The two models' 0/1 scores, aligned item by item (one-dimensional, the same length, no NaN).

    Returns
    -------
    a, b, c, d : int
        The cells: items both models solve, only model A, only model B, neither; a + b + c + d = n.

    Notes
    -----
    a = sum x_A x_B, b = sum x_A (1 - x_B), c = sum (1 - x_A) x_B, d = sum (1 - x_A)(1 -
    x_B); a + b + c + d = n.

    No closed form is involved, so no derivation module; ``derivations/observed_table.py`` uses these cells.

    References
    ----------
    McNemar, Q. (1947). Psychometrika 12, 153-157 (the paired 2x2 table).

    Examples
    --------
    >>> binary_counts([1, 1, 0, 0, 1], [1, 0, 1, 0, 0])
    (1, 2, 1, 1)
    """
    a = as_binary_vector("scores_a", scores_a)
    b = as_binary_vector("scores_b", scores_b)
    if a.shape != b.shape:
        raise ArgumentError(f"scores_a and scores_b must have the same length; got {a.size} and {b.size}")
    a_true, b_true = a.astype(bool), b.astype(bool)
    both = int(np.count_nonzero(a_true & b_true))
    only_a = int(np.count_nonzero(a_true & ~b_true))
    only_b = int(np.count_nonzero(~a_true & b_true))
    return both, only_a, only_b, a.size - both - only_a - only_b


def as_binary_vector(name: str, values: Any) -> np.ndarray:
    """``values`` as a one-dimensional float array of 0s and 1s, or an ArgumentError.

    The error names ``name`` and the first bad index.

    Parameters
    ----------
    name : str
        The argument's name, for the error message.
    values : array_like
        The scores to check.

    Returns
    -------
    numpy.ndarray
        ``values`` as a one-dimensional float64 array of 0s and 1s.

    Notes
    -----
    Refuses (``ArgumentError``, a ``ValueError``) an array that is not one-dimensional, is empty, or holds a
    value other than 0 or 1, naming ``name`` and the first bad index.  No formula: nothing comes from ``derivations/``.

    References
    ----------
    The documentation's parameter glossary (Reference, "Parameter glossary"): a 0/1 score per item and model.

    Examples
    --------
    >>> as_binary_vector("scores_a", [1, 0, 1]).tolist()
    [1.0, 0.0, 1.0]
    """
    array = as_array(name, values)
    if array.ndim != 1:
        raise ArgumentError(f"{name} must be one-dimensional; got shape {array.shape}")
    if array.size == 0:
        raise ArgumentError(f"{name} is empty")
    bad = ~((array == 0) | (array == 1))
    if bad.any():
        index = int(np.argmax(bad))
        raise ArgumentError(f"{name} must contain only 0 and 1 (binary scores); got {array[index]!r} at index {index}")
    return array
