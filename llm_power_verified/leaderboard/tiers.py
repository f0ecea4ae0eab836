"""Adjacent-break tiers: the secondary, power-based view of which rankings the data cannot resolve.

Walk down the ranking and start a new tier after each adjacent pair that is
resolved (q >= 1).  It chains (a tier can hold models far apart in score) and
answers a power question, not a significance one; the primary view is the
rank intervals and letters of :mod:`.ranking`.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["adjacent_tiers"]


def adjacent_tiers(ranked_models: list[str], pairs: pd.DataFrame, mode: str) -> dict[str, int] | None:
    """Tier number per model from the adjacent pairs' verdicts (None unless adjacent pairs are present).

    Tiers walk down the ranking, so only adjacent pairs oriented downwards (rank_b > rank_a) count.
    """
    adjacent = pairs[pairs["adjacent"] & (pairs["rank_b"] > pairs["rank_a"])]
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
