"""How many items resolve a target: one gap, or every adjacent pair among the top k of an audit.

Corrections are planned at the level that guarantees the target whatever the
other pairs do.  Bonferroni and Sidak fix it.  Holm's step-down and BH test a
pair at a level between alpha / m and alpha that depends on the other pairs'
p-values: only alpha / m guarantees the power, so both are planned at
Bonferroni's level, and the report gives the N at alpha (what Holm's last step
or BH with every pair rejected would need) beside it.

From an audit, each adjacent pair's requirement is its N* (Eq. 6 at its
observed accuracies and rho-hat, i.e. more items "of the same kind") times the
family's inflation, and with clusters times its design effect at the observed
ICC; the benchmark needs the largest.  From an accuracies-only audit, rho is
not known: the plan is given at both ends of each pair's admissible interval,
and at an assumed rho when one is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified._validation import ceil_sample_size, check_count, require_choice
from llm_power_verified.contract import CORRECTIONS
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.multiplicity import guaranteed_level, inflation_at_level
from llm_power_verified.leaderboard.accuracies import AccuracyAudit
from llm_power_verified.leaderboard.audit import AuditResult
from llm_power_verified.plan.figures import AuditFigures, generations_note
from llm_power_verified.plan.min_effect import MIN_EFFECT_NOTES, min_effect_columns, summarize_min_effect, whole_items
from llm_power_verified.plan.printed_counts import ACCURACIES_NOTES, accuracy_scenarios, printed_boxes
from llm_power_verified.power.sample_size import paired_difference_variance, required_n_paired_binary
from llm_power_verified.results import Result

__all__ = ["GapPlan", "LeaderboardPlan", "plan_gap", "plan_leaderboard", "planning_level"]


@docfill("correction")
def planning_level(correction: str, family_size: int, alpha: float) -> tuple[float, str]:
    """The per-comparison level that guarantees the target under ``correction``, and why.

    Parameters
    ----------
    %(correction)s
    family_size : int
        m, the number of comparisons in the declared family (>= 1).
    alpha : float
        Family-wise significance level, in (0, 1).

    Returns
    -------
    level : float
        The per-comparison level alpha'.
    reason : str
        The rule, in words (for the report).

    Notes
    -----
    alpha' = alpha ("none", or m = 1); 1 - (1 - alpha)^(1/m) (Sidak); alpha / m (Bonferroni, and Holm and BH, whose
    first step it is: they may test a pair at up to alpha depending on the other pairs' p-values, so only alpha / m
    guarantees the power).  Through :func:`~llm_power_verified.inference.multiplicity.guaranteed_level`; the
    inflation of N* it implies is derived in ``derivations/multiplicity.py``.

    Examples
    --------
    >>> level, reason = planning_level("sidak", 9, 0.05)
    >>> round(level, 6), reason
    (0.005683, 'Sidak: 1 - (1 - alpha)^(1/m)')
    """
    require_choice("correction", correction, CORRECTIONS)
    level = guaranteed_level(correction, family_size, alpha)
    if correction == "none" or family_size == 1:
        return level, "alpha (no correction)" if correction == "none" else "alpha (a family of one)"
    if correction in ("sidak", "bonferroni"):
        return level, "Sidak: 1 - (1 - alpha)^(1/m)" if correction == "sidak" else "Bonferroni: alpha / m"
    name = "Holm" if correction == "holm" else "BH"
    return level, (
        f"{name}: alpha / m, the only level that guarantees the power whatever the other pairs' p-values "
        f"({name} may test at up to alpha)"
    )


@dataclass(frozen=True, repr=False)
class GapPlan(Result):
    """N for one gap at a correlation: ``required_n`` (unrounded) at the planning ``level``, ``items`` its ceiling.

    Attributes
    ----------
    p_a, p_b, rho, alpha, power : float
        The gap, correlation and operating point planned for.
    family_size : int
        m, the comparisons in the family.
    correction : str
        The multiplicity correction.
    level : float
        The per-comparison planning level (:func:`planning_level`).
    level_reason : str
        Why that level, in words.
    variance : float
        sigma_D^2 of the per-item difference at (p_a, p_b, rho).
    required_n : float
        N* at ``level``, unrounded.
    items : int or float
        Its ceiling, the items to collect: a whole number (int), or inf for a gap of 0.
    required_n_at_alpha : float
        N* at alpha itself (what Holm's last step or BH with every pair rejected would need).
    """

    p_a: float
    p_b: float
    rho: float
    alpha: float
    power: float
    family_size: int
    correction: str
    level: float
    level_reason: str
    variance: float
    required_n: float
    items: int | float
    required_n_at_alpha: float


@docfill("p_a_float", "rho_float", "alpha_float", "power_float", "family_size", "correction")
def plan_gap(
    p_a: float,
    p_b: float,
    rho: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    family_size: int = 1,
    correction: str = "bonferroni",
) -> GapPlan:
    """Items that resolve the gap p_a - p_b at correlation rho, tested within a family of ``family_size`` comparisons.

    Parameters
    ----------
    %(p_a_float)s
    %(rho_float)s
    %(alpha_float)s
    %(power_float)s
    %(family_size)s
    %(correction)s
        Default "bonferroni".

    Returns
    -------
    GapPlan
        N* at the planning level, its ceiling, and N* at alpha.

    Notes
    -----
    N* = (z_{1 - alpha'/2} + z_{1 - beta})^2 sigma_D^2 / delta^2 with
    sigma_D^2 = p_A q_A + p_B q_B - 2 rho sqrt(p_A q_A p_B q_B) (paper Eq. 6: Eq. 3 with Eq. 5), at the level alpha' of
    :func:`planning_level`; through
    :func:`~llm_power_verified.power.sample_size.required_n_paired_binary`, derived in ``derivations/wald.py`` and
    ``derivations/paired_variance.py``.

    Examples
    --------
    >>> plan = plan_gap(0.65, 0.60, 0.30, family_size=9)
    >>> plan.items, round(plan.required_n / plan.required_n_at_alpha, 3)
    (1711, 1.665)
    """
    family_size = int(check_count("family_size", family_size, minimum=1))
    level, reason = planning_level(correction, family_size, alpha)
    required = float(required_n_paired_binary(p_a, p_b, rho, alpha=level, power=power))
    return GapPlan(
        p_a=float(p_a),
        p_b=float(p_b),
        rho=float(rho),
        alpha=alpha,
        power=power,
        family_size=family_size,
        correction=correction,
        level=level,
        level_reason=reason,
        variance=float(paired_difference_variance(p_a, p_b, rho)),
        required_n=required,
        items=whole_items(ceil_sample_size(required)),
        required_n_at_alpha=float(required_n_paired_binary(p_a, p_b, rho, alpha=alpha, power=power)),
    )


@dataclass(frozen=True, repr=False)
class LeaderboardPlan(Result):
    """Items that resolve every adjacent pair among the top ``top`` models of an audit.

    Attributes
    ----------
    n_items : int
        Items the audit had.
    top : int
        The models planned for (the top ``top`` of the ranking).
    family_size : int
        top - 1, the adjacent pairs.
    correction : str
        The multiplicity correction.
    level : float
        The per-comparison planning level (:func:`planning_level`).
    level_reason : str
        Why that level, in words.
    pairs : pandas.DataFrame
        One row per adjacent pair: model_a, model_b, delta, and per scenario ``required_n_<scenario>`` and
        ``resolved_now_<scenario>``.
    required_n : dict of str to int or float
        The largest requirement, whole (an int; inf when a gap is 0), per scenario: "observed" for a per-item audit,
        plus "clustered" with clusters; "rho_min", "rho_max" and "assumed" for accuracies only.
    more_items : dict of str to int or float
        How many items beyond ``n_items`` that is (0 when already enough; inf when no N is enough), per scenario.
    limiting : dict of str to str
        The pair behind each maximum.
    notes : tuple of str
        What the scenarios assume.
    min_effect : float or None
        DELTA, the declared smallest gap of interest, when one was given.  The pair table then also has, per
        scenario, ``discordance_<scenario>``, ``required_n_min_effect_<scenario>``, ``power_min_effect_<scenario>``
        (at the audit's N), ``mde_<scenario>`` and ``resolved_now_min_effect_<scenario>``
        (:mod:`llm_power_verified.plan.min_effect`).
    required_n_min_effect : dict of str to int or None
        Per scenario, the items that resolve a true gap of DELTA in every pair where one is possible at its
        discordance (None when it is possible in none).
    more_items_min_effect : dict of str to int or None
        How many items beyond ``n_items`` that is.
    limiting_min_effect : dict of str to str or None
        The pair behind each maximum.
    impossible_min_effect : dict of str to tuple of str
        Per scenario, the pairs whose discordance is below DELTA (a true gap DELTA needs psi >= DELTA; graded: whose
        differences have a variance of 0): no N is planned for them, and they are named rather than clamped.
    printed_counts : bool
        Accuracies only: True when the worst case (rho_min) covers every count of correct items the printed digits
        allow (an accuracies-only audit), False when it is at the printed values (a saved report: no counts).
    """

    n_items: int
    top: int
    family_size: int
    correction: str
    level: float
    level_reason: str
    pairs: pd.DataFrame
    required_n: dict[str, int | float]
    more_items: dict[str, int | float]
    limiting: dict[str, str]
    notes: tuple[str, ...] = field(default_factory=tuple)
    min_effect: float | None = None
    required_n_min_effect: dict[str, int | None] = field(default_factory=dict)
    more_items_min_effect: dict[str, int | None] = field(default_factory=dict)
    limiting_min_effect: dict[str, str | None] = field(default_factory=dict)
    impossible_min_effect: dict[str, tuple[str, ...]] = field(default_factory=dict)
    printed_counts: bool = False

    def to_dict(self) -> dict:
        """The fields as plain containers, the pair table as records (one object per pair, every pair).

        Returns
        -------
        dict
            Field name to value; ``pairs`` a list of one dict per pair.
        """
        plain = super().to_dict()
        plain["pairs"] = self.pairs.to_dict(orient="records")
        return plain


def _adjacent_top(pairs: pd.DataFrame, top: int) -> pd.DataFrame:
    """The adjacent pairs among the top ``top`` models, by their ``adjacent`` column.

    Every audit writes the column; a saved report's is checked against its ranks when it is read.
    """
    adjacent = pairs[pairs["adjacent"].to_numpy(dtype=bool)]
    return adjacent[(adjacent[["rank_a", "rank_b"]].max(axis=1) <= top)].sort_values("rank_a").reset_index(drop=True)


def _per_item(rows: pd.DataFrame, inflation: float) -> dict[str, np.ndarray]:
    columns = {"observed": rows["required_n"].to_numpy(dtype=np.float64) * inflation}
    if "design_effect" in rows and rows["design_effect"].notna().all():
        columns["clustered"] = columns["observed"] * rows["design_effect"].to_numpy(dtype=np.float64)
    return columns


@docfill("correction")
def plan_leaderboard(
    audit: AuditResult | AccuracyAudit | AuditFigures,
    top: int | None = None,
    *,
    correction: str | None = None,
    rho: float | None = None,
    min_effect: float | None = None,
) -> LeaderboardPlan:
    """Items that resolve every adjacent pair among the ``top`` models (default: all) of an audit.

    Parameters
    ----------
    audit : AuditResult, AccuracyAudit or AuditFigures
        The audit: per-item, accuracies-only, or read from a saved JSON report
        (:func:`~llm_power_verified.plan.reports.read_audit_report`).
    top : int, optional
        How many of the top-ranked models to resolve (>= 2); default all.
    %(correction)s
        Default None: the audit's own (``AuditFigures.correction``: the one it was run, or its report written, with).
    rho : float, optional
        For an accuracies-only audit, an assumed correlation inside every pair's admissible interval (the
        "assumed" scenario); refused for a per-item audit, which plans at each pair's observed rho-hat.
    min_effect : float, optional
        DELTA, a declared smallest gap of interest in score units, in (0, 1): the plan then also gives, per pair
        and scenario, the items that resolve a *true* gap of DELTA at the pair's observed discordance (graded: its
        observed variance; accuracies only: the discordance each end of rho, or ``rho``, implies), the power to
        detect it now and the MDE now, at the same planning level
        (:func:`~llm_power_verified.plan.min_effect.min_effect_columns`).

    Returns
    -------
    LeaderboardPlan
        Each adjacent pair's requirement per scenario, the largest, and how many more items it takes.

    Notes
    -----
    The family is the ``top - 1`` adjacent pairs, tested at the guaranteeing level alpha' of
    :func:`planning_level`.  Per-item audit: each pair's N* (Eq. 6 at its observed table) times the inflation
    (z_{1 - alpha'/2} + z_{1 - beta})^2 / (z_{1 - alpha/2} + z_{1 - beta})^2 (``derivations/multiplicity.py``), and
    with clusters times the design effect 1 + (m - 1) max(ICC, 0) (``derivations/design_effect.py``).
    Accuracies only: N* (Eq. 6) at both ends of each pair's admissible interval (Eqs. 7-8), and at ``rho``; at
    rho_min (the worst case) the most over every count the printed digits allow when the audit has them
    (:mod:`llm_power_verified.plan.printed_counts`; a saved report does not: then at the printed values).
    The benchmark needs the largest, rounded up.

    At the observed gap, q = N / N* is z_Wald^2 / (z_{1 - alpha/2} + z_{1 - beta})^2: the plan restates the test
    statistic, and a gap of one item asks for a huge N.  With ``min_effect`` = DELTA, each pair is planned for a true
    gap of DELTA at its discordance psi: N*(DELTA) = (z_{1 - alpha'/2} + z_{1 - beta})^2 (psi - DELTA^2) / DELTA^2
    for 0/1 scores (psi_hat = (b + c) / N; accuracies: psi at each rho), the observed variance of the differences for
    graded ones.  A pair with psi < DELTA cannot have a true gap of DELTA; it is named in ``impossible_min_effect``
    and left out of the maximum.

    Examples
    --------
    >>> from pathlib import Path
    >>> import llm_power_verified as lpv
    >>> from llm_power_verified.io.accuracy_table import read_accuracies
    >>> from llm_power_verified.leaderboard.accuracies import audit_accuracies
    >>> audit = audit_accuracies(read_accuracies(Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"))
    >>> plan = plan_leaderboard(audit, 4, rho=0.4)
    >>> plan.family_size, round(plan.level, 6), plan.required_n
    (3, 0.016667, {'rho_min': 478571, 'rho_max': 2266, 'assumed': 148127})
    >>> plan_leaderboard(audit, 4, rho=0.4, min_effect=0.02).required_n_min_effect
    {'rho_min': 25778, 'rho_max': 2699, 'assumed': 7857}
    """
    figures = AuditFigures.of(audit)
    accuracies = figures.accuracies
    if rho is not None and not accuracies:
        raise ArgumentError(
            "rho (--rho) is for accuracies-only audits; a per-item audit plans at each pair's observed rho-hat: "
            "drop --rho"
        )
    models = figures.n_models
    top = models if top is None else int(check_count("top (--top)", top, minimum=2))
    if top > models:
        raise ArgumentError(f"top (--top) {top} exceeds the audit's {models} models; choose --top from 2 to {models}")
    rows = _adjacent_top(figures.pairs, top)
    if len(rows) != top - 1:
        raise ArgumentError(
            f"the audit reports {len(rows)} of the {top - 1} adjacent pairs among the top {top}; audit with --mode "
            "adjacent or all"
        )
    family_size = top - 1
    correction = figures.correction if correction is None else correction
    level, reason = planning_level(correction, family_size, figures.alpha)
    boxes = printed_boxes(rows, figures.counts, figures.n_items) if accuracies else None
    if accuracies:
        columns = accuracy_scenarios(rows, level, figures.power, rho, boxes)
    else:
        columns = _per_item(rows, float(inflation_at_level(level, figures.alpha, figures.power)))
    n_items = figures.n_items
    table = rows[["model_a", "model_b", "delta"]].copy()
    required, more, limiting = _largest(table, columns, n_items)
    notes = [
        "items 'of the same kind': each pair keeps its observed accuracies, rho and (clustered) ICC and cluster size"
    ]
    if accuracies:
        notes = [ACCURACIES_NOTES[boxes is not None]]
    if figures.generations is not None:
        notes.append(generations_note(figures.generations))
    effect = None
    if min_effect is not None:
        found = min_effect_columns(
            rows,
            min_effect,
            n_items=n_items,
            level=level,
            power=figures.power,
            binary=figures.binary,
            accuracies=accuracies,
            rho=rho,
            boxes=boxes,
        )
        effect = summarize_min_effect(table, found, n_items)
        notes.append(MIN_EFFECT_NOTES[figures.binary])
    return LeaderboardPlan(
        n_items=int(n_items),
        top=top,
        family_size=family_size,
        correction=correction,
        level=level,
        level_reason=reason,
        pairs=table,
        required_n=required,
        more_items=more,
        limiting=limiting,
        notes=tuple(notes),
        min_effect=None if effect is None else float(min_effect),
        required_n_min_effect={} if effect is None else effect.required_n,
        more_items_min_effect={} if effect is None else effect.more_items,
        limiting_min_effect={} if effect is None else effect.limiting,
        impossible_min_effect={} if effect is None else effect.impossible,
        printed_counts=boxes is not None,
    )


def _largest(table: pd.DataFrame, columns: dict[str, np.ndarray], n_items: int) -> tuple[dict, dict, dict]:
    """Add the observed-gap columns to ``table``; per scenario the largest requirement, the items more, the pair."""
    required, more, limiting = {}, {}, {}
    for scenario, values in columns.items():
        table[f"required_n_{scenario}"] = values
        table[f"resolved_now_{scenario}"] = n_items >= values
        worst = int(np.argmax(values))
        required[scenario] = whole_items(ceil_sample_size(values[worst]))
        more[scenario] = max(required[scenario] - int(n_items), 0) if math.isfinite(required[scenario]) else math.inf
        limiting[scenario] = f"{table['model_a'].iloc[worst]} vs {table['model_b'].iloc[worst]}"
    return required, more, limiting
