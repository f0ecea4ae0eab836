"""The declared multiplicity family: its arbiter p-values, adjusted p-values and N* inflations, mapped onto the reported pairs."""

from __future__ import annotations

import numpy as np

from llm_power_verified.inference.mcnemar import (
    mcnemar_exact,
)
from llm_power_verified.inference.multiplicity import (
    adjust_pvalues,
    inflation_at_level,
    required_n_inflation,
)
from llm_power_verified.leaderboard.pairs import (
    binary_pair_counts,
    graded_pair_columns,
    pair_indices,
)
from llm_power_verified.leaderboard.summaries import Inflation, Multiplicity
from llm_power_verified.sequential.e_process import e_bh, log_e_value

__all__ = ["add_multiplicity_columns", "family_pvalues"]


def family_pvalues(matrix, order, family, reference, alpha, power) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arbiter p-values (exact McNemar, or paired t) of every pair in the declared family."""
    first, second = pair_indices(order, family if family != "reference" else "reference", reference)
    if matrix.binary:
        _, only_a, only_b = binary_pair_counts(matrix.scores, first, second)
        return first, second, np.atleast_1d(mcnemar_exact(only_a, only_b).pvalue)
    frame = graded_pair_columns(matrix, first, second, alpha, power, 0, None, None)
    return first, second, frame["p_t"]


def add_multiplicity_columns(matrix, pairs, order, family, reference_index, family_size, alpha, power, first, second) -> Multiplicity:
    """Adjusted p-values over the declared family and the N* inflations, mapped onto the reported pairs."""
    family_first, family_second, family_p = family_pvalues(matrix, order, family, reference_index, alpha, power)
    adjusted = {method: adjust_pvalues(family_p, method) for method in ("bonferroni", "sidak", "holm", "bh")}
    # K x K table: position of each family pair (either orientation), -1 outside the family.
    position = np.full((matrix.n_models, matrix.n_models), -1, dtype=np.int64)
    position[family_first, family_second] = np.arange(family_first.size)
    position[family_second, family_first] = np.arange(family_first.size)
    mapped = position[first, second]
    inside = mapped >= 0
    for method, values in adjusted.items():
        column = np.full(len(pairs), np.nan)
        column[inside] = values[mapped[inside]]
        pairs[f"p_{method}"] = column
    # Holm: the pair at step k (ascending p) is tested at alpha / (m - k + 1).
    ranks = np.empty(family_p.size, dtype=np.int64)
    ranks[np.argsort(family_p, kind="stable")] = np.arange(family_p.size)
    holm_level = alpha / (family_size - ranks)
    rejections = int(np.sum(adjusted["bh"] <= alpha))
    e_bh_rejections = None
    if matrix.binary:
        _, family_b, family_c = binary_pair_counts(matrix.scores, family_first, family_second)
        if "log_e" in pairs and inside.all() and mapped.size == family_first.size:
            # The family is the reported pairs: reuse their e-values (the grid mixture is symmetric in b and c).
            family_log_e = np.empty(family_first.size)
            family_log_e[mapped] = pairs["log_e"].to_numpy()
        else:
            family_log_e = np.atleast_1d(log_e_value(family_b, family_c))
        family_rejected = e_bh(family_log_e, alpha)
        e_bh_rejections = int(family_rejected.sum())
        column = np.zeros(len(pairs), dtype=bool)
        column[inside] = family_rejected[mapped[inside]]
        pairs["rejected_e_bh"] = column
        pairs["rejected_bh"] = pairs["p_bh"] <= alpha
    bh_level = alpha * max(rejections, 1) / family_size
    bonferroni = float(required_n_inflation(family_size, alpha, power))
    sidak = float(required_n_inflation(family_size, alpha, power, correction="sidak"))
    holm_inflation = np.full(len(pairs), np.nan)
    holm_inflation[inside] = np.asarray(inflation_at_level(holm_level, alpha, power)).reshape(-1)[mapped[inside]]
    bh_inflation = float(inflation_at_level(bh_level, alpha, power))
    pairs["required_n_bonferroni"] = pairs["required_n"] * bonferroni
    pairs["required_n_holm"] = pairs["required_n"] * holm_inflation
    pairs["resolved_bonferroni"] = pairs["q"] >= bonferroni
    pairs["resolved_holm"] = pairs["q"] >= holm_inflation
    pairs["resolved_bh"] = pairs["q"] >= bh_inflation
    inflation = Inflation(bonferroni=bonferroni, sidak=sidak, bh=bh_inflation,
                          holm="per pair, alpha / (m - k + 1) at step k; at most the Bonferroni factor")
    return Multiplicity(family=family, family_size=int(family_size), arbiter="exact McNemar" if matrix.binary else "paired t",
                        inflation=inflation, bh_rejections=rejections, bh_level=float(bh_level), e_bh_rejections=e_bh_rejections)
