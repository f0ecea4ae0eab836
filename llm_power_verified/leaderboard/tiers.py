"""Tiers of statistically indistinguishable models.

Two views of the same question, which rankings the data cannot resolve:

* adjacent-rank breaks: walk down the ranking and start a new tier after each
  adjacent pair that is resolved (q >= 1);
* a compact letter display over all pairs (Piepho 2004, insert-and-absorb):
  models sharing a letter are not resolved from each other.

Reference: Piepho, H.-P. (2004). An algorithm for a letter-based
representation of all-pairwise comparisons. J. Comput. Graph. Stat. 13(2), 456-466.
"""

from __future__ import annotations

import string

import numpy as np
import pandas as pd

from llm_power_verified.leaderboard.contingency import (
    both_correct_counts,
    correct_counts,
)
from llm_power_verified.planning.sample_size import (
    required_n_from_counts,
    required_n_wald,
)

__all__ = ["adjacent_tiers", "compact_letter_display", "letters_from_resolved"]


def adjacent_tiers(ranked_models: list[str], pairs: pd.DataFrame, mode: str) -> dict[str, int] | None:
    """Tier number per model from the adjacent pairs' verdicts (None unless adjacent pairs are present)."""
    adjacent = pairs[pairs["rank_b"] == pairs["rank_a"] + 1]
    lookup = {(a, b): bool(r) for a, b, r in zip(adjacent["model_a"], adjacent["model_b"], adjacent["resolved"])}
    tiers, tier = {}, 1
    for position, model in enumerate(ranked_models):
        if position:
            key = (ranked_models[position - 1], model)
            if key not in lookup:
                return None
            tier += lookup[key]
        tiers[model] = tier
    return tiers


def letters_from_resolved(models: list[str], resolved: np.ndarray) -> dict[str, str]:
    """Insert-absorb letters from a symmetric boolean matrix of resolved pairs (models in rank order)."""
    size = len(models)
    columns = [frozenset(range(size))]
    for i in range(size):
        for j in range(i + 1, size):
            if not resolved[i, j]:
                continue
            updated = []
            for column in columns:
                if i in column and j in column:
                    updated.append(column - {i})
                    updated.append(column - {j})
                else:
                    updated.append(column)
            # absorb: drop columns contained in another
            unique = list(dict.fromkeys(updated))
            columns = [c for c in unique if not any(c < other for other in unique)]
    columns.sort(key=lambda column: (min(column), sorted(column)))
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    labels = {model: "" for model in models}
    for index, column in enumerate(columns):
        letter = alphabet[index] if index < len(alphabet) else f"[{index}]"
        for member in sorted(column):
            labels[models[member]] += letter
    return labels


def compact_letter_display(matrix, order: np.ndarray, alpha: float, power: float) -> dict[str, str]:
    """Letters over all pairs of the ranked models, by the fixed-n resolution verdict."""

    scores = matrix.scores[:, order]
    n = matrix.n_items
    if matrix.binary:
        both = both_correct_counts(scores)
        correct = correct_counts(scores)
        only_a = correct[:, None] - both
        only_b = correct[None, :] - both
        required = np.asarray(required_n_from_counts(only_a, only_b, n, alpha, power))
    else:
        centred = scores - scores.mean(axis=0)
        covariance = centred.T @ centred / (n - 1)
        variance = np.maximum(np.diag(covariance)[:, None] + np.diag(covariance)[None, :] - 2 * covariance, 0.0)
        gap = scores.mean(axis=0)[:, None] - scores.mean(axis=0)[None, :]
        required = np.asarray(required_n_wald(variance, gap, alpha, power))
    resolved = n >= required
    np.fill_diagonal(resolved, False)
    return letters_from_resolved([matrix.models[i] for i in order], resolved)
