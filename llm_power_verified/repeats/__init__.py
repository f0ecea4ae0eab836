"""Several generations per item: the within/between split of the variance and the (N, K) trade-off.

When each model answers each item K times, the variance of an item mean is sigma_b^2 + sigma_w^2 / K (between
items plus generation noise).  :mod:`~llm_power_verified.repeats.split` estimates the two parts by the method of
moments (per model and per pair) and the resolution ratio q at other numbers of generations;
:mod:`~llm_power_verified.repeats.planning` finds the cheapest number of items and generations for a target power.
Every formula is derived in ``derivations/repeats.py``.
"""

from llm_power_verified.repeats.planning import GenerationPlan, plan_generations, smallest_items
from llm_power_verified.repeats.split import (
    CURVE_GENERATIONS,
    ModelSplit,
    PairSplit,
    model_split,
    pair_split,
    resolution_curve,
)

__all__ = [
    "CURVE_GENERATIONS",
    "GenerationPlan",
    "ModelSplit",
    "PairSplit",
    "model_split",
    "pair_split",
    "plan_generations",
    "resolution_curve",
    "smallest_items",
]
