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
    """Tier number per model from the adjacent pairs' verdicts.

    Tiers walk down the ranking, starting a new tier after each resolved (q >= 1) adjacent pair; only adjacent pairs
    oriented downwards (rank_b > rank_a) count.

    Parameters
    ----------
    ranked_models : list of str
        The models in rank order.
    pairs : pandas.DataFrame
        Pair rows with ``model_a``, ``rank_a``, ``rank_b``, ``adjacent`` and ``resolved``.
    mode : str
        The audit's mode.

    Returns
    -------
    dict of str to int or None
        Model -> tier (1 for the top); None unless adjacent pairs are present.

    Examples
    --------
    >>> import pandas as pd
    >>> pairs = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "z"], "rank_a": [1, 2], "rank_b": [2, 3],
    ...                       "adjacent": [True, True], "resolved": [False, True]})
    >>> adjacent_tiers(["x", "y", "z"], pairs, "adjacent")
    {'x': 1, 'y': 1, 'z': 2}
    """
    adjacent = pairs[pairs["adjacent"] & (pairs["rank_b"] > pairs["rank_a"])]
    lookup = {
        (a, b): bool(r) for a, b, r in zip(adjacent["model_a"], adjacent["model_b"], adjacent["resolved"], strict=True)
    }
    tiers, tier = {}, 1
    for position, model in enumerate(ranked_models):
        if position:
            key = (ranked_models[position - 1], model)
            if key not in lookup:
                return None
            tier += lookup[key]
        tiers[model] = tier
    return tiers
