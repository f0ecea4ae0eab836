"""The accuracies-only plan over the counts the printed digits allow: rho_min, the worst case, is the worst count pair.

A printed accuracy stands for every whole count of correct items that prints as it (92.8 at N = 14,042: 13,024 to
13,037 correct); :mod:`llm_power_verified.leaderboard.accuracy_rounding` proves where the extremes of N* lie over
those counts.  The plan's "worst case" (each pair's smallest admissible rho) is the most items over every allowed
count pair and the printed pair:

* at the observed gap, N*(rho_min) is largest at the corner of the smallest gap (a_lo, b_hi), infinite where the
  counts allow a gap of 0 (:func:`~llm_power_verified.leaderboard.accuracy_rounding.required_extremes`);
* at a declared gap DELTA, N*(DELTA) = K (psi - DELTA^2) / DELTA^2 grows with the discordance, which at rho_min is
  psi = min(s, 2 - s), s = p_a + p_b (Frechet's lower bound on P(both correct)): largest at the allowed s nearest 1.

The "best case" (each pair's largest admissible rho) stays at the printed values, where psi = abs(p_a - p_b)
exactly (Frechet's upper bound): over the counts it can need fewer items or more, so it bounds nothing and is named
as the printed values' case.  A plan from a saved JSON report does not read the allowed counts (its ranking's
``count_low`` and ``count_high`` are not checked against the printed values); it is at the printed values, and says
so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.leaderboard.accuracy_rounding import CountBoxes, count_boxes, required_extremes
from llm_power_verified.power.sample_size import required_n_paired_binary

__all__ = ["ACCURACIES_NOTES", "accuracy_scenarios", "discordance_ends", "printed_boxes", "worst_required"]

#: The accuracies-only plan's note, with the allowed counts (True) or at the printed values only (False).
ACCURACIES_NOTES = {
    True: "accuracies only: rho_min is the worst case, the most items over every count of correct items the printed "
    "digits allow (and the printed values); rho_max the best case at the printed values (other allowed counts can "
    "need more or fewer there); 'assumed' is an assumption, at the printed values",
    False: "accuracies only: the plan is at the printed values (a plan from a saved report does not read the counts "
    "of correct items the printed digits allow; plan accuracies FILE covers them): rho_min is the worst case at "
    "those values, rho_max the best; 'assumed' is an assumption",
}


def printed_boxes(rows: pd.DataFrame, counts: pd.DataFrame | None, n_items: int) -> CountBoxes | None:
    """The allowed accuracies of each planned pair, or None when the audit does not carry the counts.

    Parameters
    ----------
    rows : pandas.DataFrame
        The planned pairs, with ``rank_a`` and ``rank_b``.
    counts : pandas.DataFrame or None
        The audit's ranking with ``accuracy``, ``count_low``, ``count_high`` and ``consistent`` (None: a saved report).
    n_items : int
        N.

    Returns
    -------
    CountBoxes or None
        The boxes (:func:`~llm_power_verified.leaderboard.accuracy_rounding.count_boxes`).
    """
    if counts is None:
        return None
    return count_boxes(rows, counts, n_items)


def worst_required(boxes: CountBoxes, level: float, power: float) -> np.ndarray:
    """N* at rho_min, the most over every allowed count pair and the printed pair (inf where a gap of 0 is allowed).

    Parameters
    ----------
    boxes : CountBoxes
        The allowed accuracies.
    level : float
        The two-sided planning level.
    power : float
        The target power.

    Returns
    -------
    numpy.ndarray
        N*, unrounded.
    """
    return np.atleast_1d(required_extremes(boxes, "low", level, power)[0])


def discordance_ends(p_a: np.ndarray, p_b: np.ndarray, boxes: CountBoxes | None) -> dict[str, np.ndarray]:
    """The discordance psi at each end of rho's admissible interval, exact (Frechet bounds); rho_min at its worst.

    Parameters
    ----------
    p_a, p_b : numpy.ndarray
        The printed accuracies.
    boxes : CountBoxes or None
        The allowed accuracies (None: the printed values only).

    Returns
    -------
    dict of str to numpy.ndarray
        "rho_min": min(s, 2 - s), the largest over the allowed s = p_a + p_b (the s nearest 1) and the printed one;
        "rho_max": abs(p_a - p_b) at the printed values.

    Examples
    --------
    >>> ends = discordance_ends(np.array([0.928]), np.array([0.918]), None)
    >>> round(float(ends["rho_min"][0]), 6), float(ends["rho_max"][0]) == abs(0.928 - 0.918)
    (0.154, True)
    """
    total = p_a + p_b
    psi_min = np.minimum(total, 2 - total)
    if boxes is not None:
        nearest = np.clip(1.0, boxes.a_lo + boxes.b_lo, boxes.a_hi + boxes.b_hi)
        psi_min = np.maximum(psi_min, np.minimum(nearest, 2 - nearest))
    return {"rho_min": psi_min, "rho_max": np.abs(p_a - p_b)}


def accuracy_scenarios(
    rows: pd.DataFrame, level: float, power: float, rho: float | None, boxes: CountBoxes | None
) -> dict[str, np.ndarray]:
    """N* (Eq. 6) per scenario of an accuracies-only plan; rho_min (the worst case) over the allowed counts.

    Parameters
    ----------
    rows : pandas.DataFrame
        The planned pairs (``p_a``, ``p_b``, ``rho_min``, ``rho_max``, ``model_a``, ``model_b``).
    level : float
        The two-sided planning level.
    power : float
        The target power.
    rho : float or None
        An assumed correlation ("assumed" scenario), refused outside any pair's admissible interval.
    boxes : CountBoxes or None
        The allowed counts (None: the printed values only).

    Returns
    -------
    dict of str to numpy.ndarray
        "rho_min", "rho_max" (and "assumed") N*, unrounded; inf at a gap of 0 (or counts that allow one).

    Raises
    ------
    llm_power_verified.errors.ArgumentError
        ``rho`` outside a pair's admissible interval.
    """
    p_a, p_b = rows["p_a"].to_numpy(dtype=np.float64), rows["p_b"].to_numpy(dtype=np.float64)
    low, high = rows["rho_min"].to_numpy(dtype=np.float64), rows["rho_max"].to_numpy(dtype=np.float64)
    printed = required_n_paired_binary(p_a, p_b, low, alpha=level, power=power)
    columns = {
        "rho_min": printed if boxes is None else worst_required(boxes, level, power),
        "rho_max": required_n_paired_binary(p_a, p_b, high, alpha=level, power=power),
    }
    if rho is not None:
        inside = (low <= rho) & (rho <= high)
        if not inside.all():
            bad = rows.loc[~inside].iloc[0]
            # Every number in full (repr): a rounded bound could read the same as a rho just outside it.
            raise ArgumentError(
                f"rho (--rho) {float(rho)!r} is outside the admissible interval of {bad['model_a']} vs "
                f"{bad['model_b']}, [{float(bad['rho_min'])!r}, {float(bad['rho_max'])!r}] (paper Eqs. 7-8); "
                "choose a --rho inside every planned pair's interval"
            )
        columns["assumed"] = required_n_paired_binary(p_a, p_b, rho, alpha=level, power=power)
    return {key: np.atleast_1d(value) for key, value in columns.items()}
