"""The compared pair on items with several generations each: the split of its gap's noise and q at K' generations.

When every item is a mean over K generations (``matrix.generations``), the variance of the per-item difference
D_i = candidate - baseline has two parts (:func:`~llm_power_verified.repeats.split.pair_split`): the generation
noise (sigma_wA^2 / K_A + sigma_wB^2 / K_B, which more generations per item shrink) and the between part
sigma_item^2 (which only more items shrink).  ``compare`` reports both, the share of the first, and the resolution
ratio q of the decision the observed gap points to at K' = 1, 2, 5, 10, 20 and unlimited generations per item
(:func:`~llm_power_verified.repeats.split.resolution_curve` with the one-sided level alpha of each of compare's
tests): q >= 1 when N items at K' generations reach the target power (normal approximation), and N / q items are
needed at K'.

A pair whose item-mean differences do not vary while its generations do (:func:`flat_item_means`) has a
zero-width interval that rests on item means agreeing by chance: ``compare`` calls it inconclusive.
"""

from __future__ import annotations

import math

from llm_power_verified.comparison.planning import decision_direction
from llm_power_verified.repeats.means import mean_difference
from llm_power_verified.repeats.split import CURVE_GENERATIONS, pair_split, resolution_curve

__all__ = ["CURVE_FIELDS", "SPLIT_FIELDS", "flat_item_means", "generation_fields", "generation_notes"]

#: The record's q curve keys, one per K' of ``CURVE_GENERATIONS``.
CURVE_FIELDS = tuple(f"q_generations_{'inf' if math.isinf(count) else int(count)}" for count in CURVE_GENERATIONS)
#: The record's keys of the split, then the curve (null all when the items have one score each).
SPLIT_FIELDS = ("generations_per_item", "gap_within_part", "gap_between_variance", "generation_share", *CURVE_FIELDS)


def _finite(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def _distance(test: str, margin: float, difference: float) -> float:
    """How far the observed gap lies from the boundary of the decision it points to (0 on a boundary)."""
    direction = decision_direction(test, margin, difference)
    if direction is None:
        return 0.0
    _, bound, sign = direction
    return margin - abs(difference) if sign == 0 else abs(difference - bound)


def generation_fields(
    matrix, candidate: str, baseline: str, test: str, margin: float, alpha: float, power: float
) -> dict[str, float | None]:
    """The record's split and q curve of the pair (None each when the items have one score each).

    Parameters
    ----------
    matrix : ScoreMatrix
        The input (item means with ``generations``, or plain scores).
    candidate, baseline : str
        The two models (names of ``matrix.models``).
    test : {"superiority", "non-inferiority", "equivalence"}
        The test.
    margin : float
        The margin m of non-inferiority and equivalence (score units).
    alpha : float
        The level of each one-sided test.
    power : float
        The target power of the curve.

    Returns
    -------
    dict
        ``SPLIT_FIELDS`` -> float or None: the mean generations per item of the two models, the gap's within part
        and between variance, the generation share (None where the differences do not vary), and q at each K'
        (None where infinite: no variance left at K'; or where power <= 2 alpha, when q is not defined).

    Notes
    -----
    q(K') = N g^2 / ((z_(1-alpha) + z_power)^2 (max(sigma_item^2, 0) + (sigma_wA^2 + sigma_wB^2) / K')) with g the
    distance of the observed gap from the boundary of the decision it points to (equivalence's pass: the nearer
    boundary, m - abs(d)), ``derivations/repeats.py`` (``resolution_ratio_repeated``) at the two-sided level 2 alpha.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io.generations import Generations
    >>> from llm_power_verified.io.matrix import ScoreMatrix
    >>> generations = Generations(np.full((3, 2), 2), np.full((3, 2), 0.5), binary=True, label="epoch")
    >>> matrix = ScoreMatrix(np.array([[0.5, 0.5], [1.0, 0.5], [1.0, 0.0]]), ("a", "b"), ("1", "2", "3"),
    ...                      binary=False, generations=generations)
    >>> fields = generation_fields(matrix, "a", "b", "superiority", 0.0, 0.05, 0.8)
    >>> fields["generations_per_item"], fields["gap_within_part"], round(fields["q_generations_1"], 4)  # 0.75 / 6.18
    (2.0, 0.5, 0.1213)
    """
    if matrix.generations is None:
        return dict.fromkeys(SPLIT_FIELDS)
    candidate, baseline = matrix.models.index(candidate), matrix.models.index(baseline)
    split = pair_split(matrix, [candidate], [baseline])
    counts = matrix.generations.counts[:, [candidate, baseline]]
    values = {
        "generations_per_item": float(counts.mean()),
        "gap_within_part": float(split.within_part[0]),
        "gap_between_variance": float(split.between_variance[0]),
        "generation_share": _finite(split.generation_share[0]),
    }
    difference = mean_difference(matrix, baseline, candidate)  # exact for 0/1 generations: a tie is 0
    if not power > 2 * alpha:  # z_(1-alpha) + z_power <= 0: no q
        return {**values, **dict.fromkeys(CURVE_FIELDS)}
    curve = resolution_curve(
        matrix.n_items,
        _distance(test, margin, difference),
        split.between_variance,
        split.within_variance,
        2 * alpha,
        power,
    )[0]
    return {**values, **{name: _finite(value) for name, value in zip(CURVE_FIELDS, curve, strict=True)}}


def flat_item_means(fields: dict, sd_difference: float, anytime: bool = False) -> bool:
    """Whether the item-mean differences do not vary (sd 0) although the generations do (a within part > 0).

    Parameters
    ----------
    fields : dict
        :func:`generation_fields`' values.
    sd_difference : float
        The standard deviation of the item-mean differences.
    anytime : bool, default False
        The anytime variant, whose betting confidence sequence does not shrink to a point on such data (it is
        valid for any bounded differences): never flat.

    Returns
    -------
    bool
        True for such a fixed-N comparison: its zero-width interval shows nothing.
    """
    within = fields["gap_within_part"]
    return not anytime and within is not None and within > 0 and sd_difference == 0


def generation_notes(fields: dict, clustered: bool, sd_difference: float, anytime: bool) -> list[str]:
    """The notes of a pair with generations: a flat pair's reason, the clusters the curve does not see.

    Parameters
    ----------
    fields : dict
        :func:`generation_fields`' values.
    clustered : bool
        Whether the items have clusters.
    sd_difference : float
        The standard deviation of the item-mean differences.
    anytime : bool
        The anytime variant (:func:`flat_item_means`).

    Returns
    -------
    list of str
        The notes (empty without generations).
    """
    if fields["gap_within_part"] is None:
        return []
    notes = []
    if flat_item_means(fields, sd_difference, anytime):
        notes.append(
            "the item-mean differences do not vary (sd 0) although the generations do (within part "
            f"{fields['gap_within_part']:.4g}): the zero-width interval rests on item means that agree by chance, so "
            "the verdict is inconclusive; more items are needed (the q curve treats the between part as 0)"
        )
    if fields["gap_between_variance"] < 0:
        notes.append(
            f"the gap's between part is estimated negative ({fields['gap_between_variance']:.4g}), not "
            "distinguishable from 0: the q curve treats it as 0"
        )
    if clustered:
        notes.append("the q curve treats the items as independent; the clusters' design effect is not in it")
    return notes
