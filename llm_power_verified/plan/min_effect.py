"""A declared smallest gap of interest DELTA: per pair, the items that resolve a true gap of DELTA, and the power now.

The observed-gap plan answers "how many items resolve the gap this audit saw"; at the observed gap that is the Wald
statistic again (q = z^2 / (z_{1 - alpha/2} + z_{1 - beta})^2), and a gap of one item asks for hundreds of thousands.
A declared DELTA asks instead: how many items resolve a *true* gap of DELTA in each pair, at the pair's observed
discordance?

* 0/1 scores: with the discordance psi = P(the two models disagree on an item) held at its estimate
  psi_hat = (b + c) / N, a true gap d has sigma_D^2(d) = psi - d^2 (the per-item difference is +-1 with probability
  psi, 0 otherwise), so N*(DELTA) = (z_{1 - alpha'/2} + z_{1 - beta})^2 (psi_hat - DELTA^2) / DELTA^2.
  A true gap DELTA = p10 - p01 needs psi = p10 + p01 >= DELTA: a pair whose psi_hat < DELTA cannot have that gap at
  its discordance, and is reported as such (no N, NaN, named in the plan), never clamped.
* Graded scores: sigma_D^2 is the observed variance of the differences, whatever DELTA (NaN, no N, where it is 0).
* Accuracies only: the discordance at the ends of the admissible interval of rho is exact (Frechet bounds on
  P(both correct)): psi = min(p_A + p_B, 2 - p_A - p_B) at the smallest rho, taken at the allowed counts where it is
  largest when the audit has them (the worst case, :mod:`llm_power_verified.plan.printed_counts`), and
  psi = abs(p_A - p_B) at the largest rho, at the printed values (one model solves every item the other does, so a
  DELTA above the printed gap is impossible there); at an assumed rho, psi(rho) = sigma_D^2(rho) + (p_A - p_B)^2
  (Eq. 5 at the printed accuracies).

Everything goes through the generated Wald closed forms (``derivations/wald.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from llm_power_verified._generated import wald as _wald
from llm_power_verified._validation import ceil_sample_size
from llm_power_verified.leaderboard.accuracy_rounding import CountBoxes
from llm_power_verified.leaderboard.settings import check_min_effect
from llm_power_verified.plan.printed_counts import discordance_ends
from llm_power_verified.power.gap_of_interest import binary_variance_at_gap, graded_variance_at_gap
from llm_power_verified.power.sample_size import paired_difference_variance
from llm_power_verified.results import Result

__all__ = [
    "MIN_EFFECT_NOTES",
    "MinEffectColumns",
    "MinEffectSummary",
    "check_min_effect",
    "min_effect_columns",
    "summarize_min_effect",
    "whole_items",
]

#: The plan's note on --min-effect, for 0/1 scores (True) and graded ones (False).
MIN_EFFECT_NOTES = {
    True: "--min-effect DELTA: each pair is planned for a true gap of DELTA at its discordance psi (sigma_D^2 = psi - "
    "DELTA^2); a true gap of DELTA needs psi >= DELTA, so a pair below it gets no N and is named",
    False: "--min-effect DELTA: each pair is planned for a true gap of DELTA at its observed variance of the "
    "differences; a pair whose differences have a variance of 0 (the same difference on every item) gets no N and is "
    "named",
}


def whole_items(items: float) -> int | float:
    """An item count as a whole number (int, so JSON prints 1711, not 1711.0); inf and NaN stay floats.

    Parameters
    ----------
    items : float
        An already rounded-up item count, inf (no N is enough) or NaN (no N is defined).

    Returns
    -------
    int or float
        ``int(items)`` when finite, else ``items``.

    Examples
    --------
    >>> whole_items(1711.0), whole_items(float("inf"))
    (1711, inf)
    """
    return int(items) if math.isfinite(items) else float(items)


@dataclass(frozen=True, repr=False)
class MinEffectColumns(Result):
    """One scenario's per-pair figures at a true gap of DELTA.

    Attributes
    ----------
    discordance : numpy.ndarray
        psi per pair (NaN for graded scores, which have none).
    variance : numpy.ndarray
        sigma_D^2(DELTA), times the design effect in the clustered scenario; NaN where no gap of DELTA is possible.
    required_n : numpy.ndarray
        N*(DELTA) at the planning level, unrounded; NaN where no gap of DELTA is possible.
    power_now : numpy.ndarray
        The power at the audit's N to detect a true gap of DELTA, at the planning level (two-sided Wald).
    mde_now : numpy.ndarray
        The smallest true gap the audit's N resolves at that discordance and level (q = 1); for 0/1 scores NaN when
        it would exceed psi (no gap the discordance allows is resolved at N) and at psi = 0 (a variance of 0).
    """

    discordance: np.ndarray
    variance: np.ndarray
    required_n: np.ndarray
    power_now: np.ndarray
    mde_now: np.ndarray


def _columns(discordance, base_variance, effect, min_effect, n_items, level, power, binary) -> MinEffectColumns:
    """N*(DELTA), the power at N and the MDE at N from sigma_D^2(DELTA) times the design effect (generated Wald forms).

    With sigma^2(d) = f (psi - d^2) (f the design effect, 1 without clusters), N*(d) = K f (psi - d^2) / d^2 = N
    solves to d = sqrt(K f psi / (N + K f)), K = (z_{1 - alpha'/2} + z_{1 - beta})^2; graded: sigma^2 does not
    depend on d, so d = sqrt(K f sigma^2 / N).  All two-sided at alpha'.
    """
    variance = base_variance * effect
    with np.errstate(invalid="ignore", divide="ignore"):
        required = _wald.required_n_wald(variance, min_effect, level, power, 2)
        power_now = _wald.power_wald_two_sided(variance, min_effect, n_items, level)
        if binary:
            z_sum = _wald.critical_value(level, 2) + _wald.critical_value(1 - power, 1)
            mde = _wald.minimum_detectable_effect_wald(
                discordance * effect, n_items + z_sum**2 * effect, level, power, 2
            )
            # Above psi: no gap this discordance allows is resolved; at psi = 0 (a tie at rho_max) no MDE from a
            # variance of 0, as elsewhere.
            mde = np.where((mde <= discordance) & (discordance > 0), mde, np.nan)
        else:
            mde = _wald.minimum_detectable_effect_wald(variance, n_items, level, power, 2)
    return MinEffectColumns(discordance, variance, required, power_now, mde)


def min_effect_columns(
    rows: pd.DataFrame,
    min_effect: float,
    *,
    n_items: int,
    level: float,
    power: float,
    binary: bool,
    accuracies: bool,
    rho: float | None = None,
    boxes: CountBoxes | None = None,
) -> dict[str, MinEffectColumns]:
    """Per scenario, each pair's N*(DELTA), power now and MDE now, at its observed (or admissible) discordance.

    Parameters
    ----------
    rows : pandas.DataFrame
        The planned pairs: an audit's pair-table rows (``b``, ``c``, ``n``, ``variance``, ``design_effect`` of a
        per-item audit; ``p_a``, ``p_b``, ``rho_min``, ``rho_max`` of an accuracies-only one).
    min_effect : float
        DELTA, in (0, 1) (:func:`check_min_effect`).
    n_items : int
        The audit's N.
    level : float
        The per-comparison planning level alpha' (two-sided).
    power : float
        The target power 1 - beta.
    binary : bool
        0/1 scores (or accuracies) against graded scores.
    accuracies : bool
        True for an accuracies-only audit (scenarios rho_min, rho_max and, with ``rho``, assumed).
    rho : float, optional
        The assumed correlation of an accuracies-only plan (already checked against every pair's interval).
    boxes : CountBoxes, optional
        The counts an accuracies-only audit's printed values allow: rho_min (the worst case) is then at the allowed
        counts' largest discordance (:func:`~llm_power_verified.plan.printed_counts.discordance_ends`).

    Returns
    -------
    dict of str to MinEffectColumns
        "observed" (and "clustered" with clusters) for a per-item audit; "rho_min", "rho_max" (and "assumed") for
        accuracies only.

    Notes
    -----
    N*(DELTA) = (z_{1 - alpha'/2} + z_{1 - beta})^2 sigma_D^2(DELTA) / DELTA^2 (paper Eq. 3) with
    sigma_D^2(DELTA) = psi - DELTA^2 (0/1) or the observed variance (graded); see the module docstring.

    Examples
    --------
    >>> rows = pd.DataFrame({"b": [3], "c": [2], "n": [500], "variance": [0.00996]})
    >>> out = min_effect_columns(rows, 0.005, n_items=500, level=0.05, power=0.8, binary=True, accuracies=False)
    >>> round(float(out["observed"].required_n[0]), 1)
    3131.7
    """
    min_effect = check_min_effect(min_effect)
    if accuracies:
        p_a, p_b = rows["p_a"].to_numpy(dtype=np.float64), rows["p_b"].to_numpy(dtype=np.float64)
        ends = discordance_ends(p_a, p_b, boxes)  # exact at the ends of rho (Frechet bounds), not sigma^2 + d^2
        if rho is not None:
            ends["assumed"] = np.atleast_1d(paired_difference_variance(p_a, p_b, float(rho))) + (p_a - p_b) ** 2
        out = {}
        for scenario, psi in ends.items():
            variance = binary_variance_at_gap(psi, min_effect)
            out[scenario] = _columns(psi, variance, 1.0, min_effect, n_items, level, power, True)
        return out
    effects = {"observed": np.ones(len(rows))}
    if "design_effect" in rows and rows["design_effect"].notna().all():
        effects["clustered"] = rows["design_effect"].to_numpy(dtype=np.float64)
    if binary:
        psi = (rows["b"].to_numpy(dtype=np.float64) + rows["c"].to_numpy(dtype=np.float64)) / rows["n"].to_numpy(
            dtype=np.float64
        )
        variance = binary_variance_at_gap(psi, min_effect)
    else:
        psi = np.full(len(rows), np.nan)
        variance = graded_variance_at_gap(rows["variance"].to_numpy(dtype=np.float64))
    return {
        scenario: _columns(psi, variance, effect, min_effect, n_items, level, power, binary)
        for scenario, effect in effects.items()
    }


@dataclass(frozen=True, repr=False)
class MinEffectSummary(Result):
    """The benchmark's answer at DELTA, per scenario (see :class:`~llm_power_verified.plan.targets.LeaderboardPlan`).

    Attributes
    ----------
    required_n, more_items : dict of str to int or None
        The largest N*(DELTA) over the pairs where a gap of DELTA is possible, rounded up, and how many items beyond
        the audit's that is; None when it is possible in no pair.
    limiting : dict of str to str or None
        The pair behind each maximum.
    impossible : dict of str to tuple of str
        The pairs whose discordance is below DELTA, each "A vs B (psi 0.0060)"; graded: the pairs whose differences
        have a variance of 0, each "A vs B (variance 0)".
    """

    required_n: dict[str, int | None]
    more_items: dict[str, int | None]
    limiting: dict[str, str | None]
    impossible: dict[str, tuple[str, ...]]


def summarize_min_effect(table: pd.DataFrame, columns: dict[str, MinEffectColumns], n_items: int) -> MinEffectSummary:
    """Add each scenario's per-pair columns to the plan's ``table`` (in place) and take the largest requirement.

    Parameters
    ----------
    table : pandas.DataFrame
        The plan's pair table (``model_a``, ``model_b``), one row per planned pair, in the order of ``columns``.
    columns : dict of str to MinEffectColumns
        :func:`min_effect_columns`' figures.
    n_items : int
        The audit's N.

    Returns
    -------
    MinEffectSummary
        Per scenario: the items that resolve a true gap of DELTA in every pair where one is possible, how many more
        that is, the limiting pair, and the pairs where it is not possible (named, never clamped).

    Examples
    --------
    >>> table = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "z"]})
    >>> rows = pd.DataFrame({"b": [30, 1], "c": [20, 1], "n": [500, 500], "variance": [0.0996, 0.004]})
    >>> found = min_effect_columns(rows, 0.02, n_items=500, level=0.05, power=0.8, binary=True, accuracies=False)
    >>> summary = summarize_min_effect(table, found, 500)
    >>> summary.required_n["observed"], summary.impossible["observed"]
    (1955, ('y vs z (psi 0.004)',))
    """
    names = (table["model_a"].astype(str) + " vs " + table["model_b"].astype(str)).to_numpy()
    required, more, limiting, impossible = {}, {}, {}, {}
    for scenario, found in columns.items():
        table[f"discordance_{scenario}"] = found.discordance
        table[f"required_n_min_effect_{scenario}"] = found.required_n
        table[f"power_min_effect_{scenario}"] = found.power_now
        table[f"mde_{scenario}"] = found.mde_now
        possible = ~np.isnan(found.required_n)
        table[f"resolved_now_min_effect_{scenario}"] = np.where(possible, n_items >= found.required_n, False)
        impossible[scenario] = tuple(
            f"{name} (psi {psi:.3g})" if np.isfinite(psi) else f"{name} (variance 0)"  # graded: no psi, variance 0
            for name, psi in zip(names[~possible], found.discordance[~possible], strict=True)
        )
        if not possible.any():
            required[scenario] = more[scenario] = limiting[scenario] = None
            continue
        worst = int(np.argmax(np.where(possible, found.required_n, -np.inf)))
        required[scenario] = whole_items(ceil_sample_size(found.required_n[worst]))
        more[scenario] = max(required[scenario] - int(n_items), 0) if math.isfinite(required[scenario]) else math.inf
        limiting[scenario] = str(names[worst])
    return MinEffectSummary(required, more, limiting, impossible)
