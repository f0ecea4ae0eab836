"""The columns of an audit whose items have several generations each (``--repeat-column``, ``--epochs all``).

With generations the audit runs on the item means (a graded audit, as without them); these columns add the
two-level split of :mod:`llm_power_verified.repeats.split` (method of moments, derived in ``derivations/repeats.py``):
per model, the per-generation noise sigma_w^2 and the between-item variance sigma_b^2 of its item means; per pair,
the same split of the per-item difference and the resolution ratio q at K' generations per item.
"""

from __future__ import annotations

from llm_power_verified.contract.column_record import Column, declare

__all__ = ["CURVE_COLUMNS", "GENERATION_MODEL_COLUMNS", "GENERATION_PAIR_COLUMNS"]

#: The q curve's columns: q at K' = 1, 2, 5, 10, 20 generations per item, and its limit for K' -> infinity.
CURVE_COLUMNS = tuple(f"q_generations_{label}" for label in ("1", "2", "5", "10", "20", "inf"))

#: Per pair (names prefixed gap_: the model table has the per-model split under the plain names).
GENERATION_PAIR_COLUMNS: tuple[Column, ...] = (
    *declare(
        "g",
        "float",
        [
            (
                "gap_within_part",
                "the generation-noise part of the variance of the per-item difference: mean_i(s_Ai^2 / K_Ai) + "
                "mean_i(s_Bi^2 / K_Bi), s^2 each (item, model) cell's sample variance over its K generations",
                3,
                "within part",
            ),
            (
                "gap_within_variance",
                "per-generation noise of the difference, sigma_wA^2 + sigma_wB^2 (each the mean of its cells' s^2)",
                3,
                "sigma_wA^2+sigma_wB^2",
            ),
            (
                "gap_between_variance",
                "sigma_item^2, the item part of the variance of the per-item difference: variance - gap_within_part "
                "(method of moments; negative when the generation noise explains more than the observed variance, "
                "reported as it is and taken as 0 for the q curve)",
                3,
                "sigma_item^2",
            ),
            (
                "gap_generation_share",
                "gap_within_part / variance: the share of the gap's noise more generations per item could remove "
                "(n/a where the variance is 0)",
                3,
                "gen. share",
            ),
            *(
                (
                    name,
                    f"q at the observed gap with {count} generation{'s' if count != '1' else ''} per item for both "
                    "models and the same N, the items taken as independent (with item clusters see "
                    "q_clustered_generations_inf): N delta^2 / ((z_(1-alpha/2) + z_power)^2 (max(sigma_item^2, 0) + "
                    f"sigma_w^2 / {count})), sigma_w^2 = sigma_wA^2 + sigma_wB^2; at the data's own generations per "
                    "item it equals q only where sigma_item^2 >= 0 (a negative estimate is taken as 0)",
                    3,
                    f"q(K'={count})",
                )
                for name, count in zip(CURVE_COLUMNS[:-1], ("1", "2", "5", "10", "20"), strict=True)
            ),
            (
                CURVE_COLUMNS[-1],
                "the limit of q as the generations per item grow without bound: N delta^2 / ((z_(1-alpha/2) + "
                "z_power)^2 max(sigma_item^2, 0)), inf where sigma_item^2 <= 0 and the gap is not 0; beyond it only "
                "more items help (items taken as independent)",
                3,
                "q(K'=inf)",
            ),
            (
                "q_clustered_generations_inf",
                "with item clusters, the limit of q as the generations per item grow without bound, with the "
                "clusters' design effect deff of the pair's differences: N delta^2 / ((z_(1-alpha/2) + z_power)^2 "
                "(max(sigma_item^2, 0) + (deff - 1) variance)), where (deff - 1) variance is the between-cluster part "
                "that more generations do not shrink (at the data's generations per item the same formula with "
                "sigma_w^2 / K added gives q / deff where sigma_item^2 >= 0); n/a without clusters",
                3,
                "q clustered(K'=inf)",
            ),
        ],
        when="generations",
    ),
)

#: Per model.
GENERATION_MODEL_COLUMNS: tuple[Column, ...] = (
    *declare(
        "g",
        "float",
        [
            ("generations", "mean number of generations per item (K; the same for every item when equal)", 3, "K"),
            (
                "within_variance",
                "sigma_w^2, the per-generation noise: the mean over items of each item's sample variance over its "
                "generations",
                3,
                "sigma_w^2",
            ),
            (
                "between_variance",
                "sigma_b^2, the between-item variance: the sample variance of the item means minus the mean of "
                "s_i^2 / K_i (method of moments; may be negative, reported as it is)",
                3,
                "sigma_b^2",
            ),
            (
                "generation_share",
                "mean_i(s_i^2 / K_i) / the sample variance of the item means: the share of the variance of the model's "
                "mean score due to generation noise (n/a where the item means do not vary)",
                3,
                "gen. share",
            ),
        ],
        when="generations",
    ),
)
