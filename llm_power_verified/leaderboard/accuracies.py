"""The resolution audit of a leaderboard that prints accuracies only.

Without per-item results the correlation rho of two models' scores is
unknown; all that is known is its admissible interval (paper Eqs. 7-8).
N* (Eq. 6) falls as rho rises, so each pair gets one of three verdicts:
resolved at every admissible rho (N >= N* at the interval's low end),
unresolved at every one (N < N* at the high end), or depends on rho, with
the critical rho_c (q = 1) and the share of items the two models must agree
on for the gap to be resolved.  An assumed rho (or range) gives verdicts
labelled as assumptions.  Each verdict holds over every pair of correct-item
counts the printed digits allow, and says so when the rounding can change it.

Multiplicity: Bonferroni and Sidak fix the per-comparison level.  Holm's and
BH's level depends on the order of the family's p-values, which accuracies
do not determine, so the level can be anything in [alpha / m, alpha]: a
verdict that holds at both ends holds whatever the order.  At one assumed rho
the p-values (Wald, at that rho) are determined and so are the levels.

This module holds the audit's records and assembles it; the verdict arithmetic is
:mod:`llm_power_verified.leaderboard.accuracy_verdicts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from llm_power_verified._validation import check_alpha_power, require_choice
from llm_power_verified.contract import ACCURACY_MODES, CORRECTIONS
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.accuracy_table import AccuracyTable
from llm_power_verified.leaderboard.accuracy_rounding import ENUMERATED_PAIRS, ROUNDING, add_rounding
from llm_power_verified.leaderboard.accuracy_verdicts import (
    NOT_ADMISSIBLE,
    VERDICTS,
    accuracy_pairs,
    add_assumption,
    add_verdicts,
)
from llm_power_verified.results import Result

__all__ = ["CORRECTIONS", "AccuracyAudit", "AccuracyHeadline", "VerdictCounts", "audit_accuracies"]


@dataclass(frozen=True)
class VerdictCounts(Result):
    """How many pairs fall in each verdict kind of an accuracies-only audit.

    Attributes
    ----------
    resolved, unresolved : int
        Pairs resolved, or unresolved, at every admissible rho.
    depends_on_rho : int
        Pairs whose verdict changes inside the admissible interval (at the critical rho_c).
    depends_on_order : int
        Pairs whose family verdict depends on the order of p-values (Holm, BH), which accuracies do not fix.
    depends_on_digits : int
        Pairs whose verdict the rounding of the printed accuracies can change (another allowed pair of counts gives
        another verdict); each is also counted under the verdict that holds over all of them.
    """

    resolved: int
    unresolved: int
    depends_on_rho: int
    depends_on_order: int
    depends_on_digits: int = 0

    @classmethod
    def of(cls, verdicts: pd.Series, rounding: pd.Series | None = None) -> VerdictCounts:
        """The counts of each verdict in ``verdicts`` (and of ``rounding`` "depends on the printed digits")."""
        digits = 0 if rounding is None else int((rounding == ROUNDING[1]).sum())
        return cls(*(int((verdicts == kind).sum()) for kind in VERDICTS), digits)


@dataclass(frozen=True, repr=False)
class AccuracyHeadline(Result):
    """The facts an accuracies-only report opens with (:mod:`llm_power_verified.report.headline` words them).

    Attributes
    ----------
    n_items, n_models : int
        N and K.
    scale : str
        The scale the accuracies were read on ("percent" or "fraction").
    alpha, power : float
        The operating point.
    mode : {"adjacent", "all"}
        The pairs (and family).
    family_size : int
        m.
    correction : str
        The family's correction.
    adjacent_pairs : int
        The adjacent pairs.
    adjacent, adjacent_family : VerdictCounts
        Their verdicts at alpha, and in the family.
    adjacent_assumed : VerdictCounts or None
        Their verdicts at the assumed rho (None without one).
    assumption : str or None
        The assumed rho, in words.
    agreement : tuple of float or None
        (lowest, highest, median) share of items the models of the adjacent "depends on rho" gaps must agree on; None
        without such a gap.
    """

    n_items: int
    n_models: int
    scale: str
    alpha: float
    power: float
    mode: str
    family_size: int
    correction: str
    adjacent_pairs: int
    adjacent: VerdictCounts
    adjacent_family: VerdictCounts
    adjacent_assumed: VerdictCounts | None
    assumption: str | None
    agreement: tuple[float, float, float] | None


@dataclass(frozen=True, repr=False)
class AccuracyAudit(Result):
    """An accuracies-only audit: the table read, one row per pair, verdict counts over the adjacent pairs.

    ``pairs["rho_critical"]`` (and ``_family``) hold the closed form's root, which lies outside [rho_min, rho_max]
    (even outside [-1, 1]) when the verdict does not depend on rho; the reports print it there as "none"
    (:func:`llm_power_verified.report.cells.reported_pairs`).

    Attributes
    ----------
    table : AccuracyTable
        The accuracies read (:func:`llm_power_verified.io.accuracy_table.read_accuracies`).
    ranking : pandas.DataFrame
        One row per model in rank order (the contract's accuracies model columns).
    pairs : pandas.DataFrame
        One row per pair (the contract's accuracies pair columns).
    mode : {"adjacent", "all"}
        The pairs, and the family.
    correction : str
        The family's correction.
    family_size : int
        m.
    alpha, power : float
        The operating point.
    assumption : str or None
        The assumed rho, in words (None without one).
    adjacent, adjacent_family : VerdictCounts
        The adjacent pairs' verdicts at alpha and in the family.
    adjacent_assumed : VerdictCounts or None
        Their verdicts at the assumed rho.
    notes : tuple of str
        What the reader must know.
    """

    table: AccuracyTable
    ranking: pd.DataFrame
    pairs: pd.DataFrame
    mode: str
    correction: str
    family_size: int
    alpha: float
    power: float
    assumption: str | None
    adjacent: VerdictCounts
    adjacent_family: VerdictCounts
    adjacent_assumed: VerdictCounts | None
    notes: tuple[str, ...] = field(default_factory=tuple)

    # The audit protocol (llm_power_verified.leaderboard.protocol.Audit).
    kind = "accuracies"

    @property
    def source(self) -> str:
        """Where the accuracies were read from."""
        return self.table.source

    @property
    def headline(self) -> AccuracyHeadline:
        """The facts the report opens with: sizes, settings and the adjacent gaps' verdict counts."""
        adjacent = self.pairs[self.pairs["adjacent"]]
        depends = adjacent[(adjacent["verdict"] == VERDICTS[2]) & adjacent["agreement_critical_low"].notna()]
        agreement = (
            (
                float(depends["agreement_critical_low"].min()),
                float(depends["agreement_critical_high"].max()),
                float(depends["agreement_critical"].fillna(depends["agreement_critical_high"]).median()),
            )
            if len(depends)
            else None
        )
        return AccuracyHeadline(
            n_items=self.table.n,
            n_models=len(self.table.models),
            scale=self.table.scale,
            alpha=self.alpha,
            power=self.power,
            mode=self.mode,
            family_size=self.family_size,
            correction=self.correction,
            adjacent_pairs=len(adjacent),
            adjacent=self.adjacent,
            adjacent_family=self.adjacent_family,
            adjacent_assumed=self.adjacent_assumed,
            assumption=self.assumption,
            agreement=agreement,
        )

    def settings(self) -> dict:
        """The settings the audit ran with (the JSON report's ``settings``)."""
        return {
            "mode": self.mode,
            "family_size": self.family_size,
            "alpha": self.alpha,
            "power": self.power,
            "correction": self.correction,
            "assumption": self.assumption,
        }

    def data(self) -> dict:
        """What the audit was given (the JSON report's ``data``)."""
        table = self.table
        return {
            "n_items": table.n,
            "n_models": len(table.models),
            "scale": table.scale,
            "scale_reason": table.scale_reason,
            "consistent": bool(table.consistent.all()),
        }

    def sections(self) -> dict[str, object]:
        """The typed summaries by report key: the verdict counts over the adjacent gaps."""
        return {
            "verdicts": {
                "adjacent": self.adjacent,
                "adjacent_family": self.adjacent_family,
                "adjacent_assumed": self.adjacent_assumed,
            }
        }


def _ranking(table: AccuracyTable) -> pd.DataFrame:
    # Higher accuracy first; equal accuracies by name, so that the input's row order changes nothing.
    order = sorted(range(len(table.models)), key=lambda k: (-table.accuracy[k], table.models[k]))
    return pd.DataFrame(
        {
            "rank": np.arange(1, len(order) + 1),
            "model": [table.models[k] for k in order],
            "accuracy": table.accuracy[order],
            "printed": [table.printed[k] for k in order],
            "count_low": table.count_low[order],
            "count_high": table.count_high[order],
            "consistent": table.consistent[order],
            "line": [table.lines[k] for k in order],
        }
    )


def _rounding_notes(pairs: pd.DataFrame, correction: str, gridded: int) -> list[str]:
    """What the rounding of the printed accuracies does to the verdicts, when it does anything."""
    notes = []
    changed, changed_family = (int((pairs[name] == ROUNDING[1]).sum()) for name in ("rounding", "rounding_family"))
    if changed or changed_family:
        notes.append(
            f"rounding: the printed digits allow several counts of correct items; another allowed pair of counts "
            f"gives another verdict for {changed} of {len(pairs)} pair(s) at alpha and {changed_family} under "
            f"{correction} (column rounding: 'depends on the printed digits'); their verdict is the one that holds at "
            "every allowed pair of counts, so none of them is called resolved; rho_c and the agreement share over the "
            "allowed counts are rho_critical_low/high and agreement_critical_low/high (Markdown, HTML, JSON, CSV)"
        )
    if gridded:
        notes.append(
            f"rounding: {gridded} pair(s) allow too many pairs of counts to list (more than {ENUMERATED_PAIRS:,} each, "
            "or fewer in a large family); their rho_c and agreement ranges come from an evenly spaced grid of counts "
            "(ends included), their verdicts from every one"
        )
    return notes


def audit_accuracies(
    table: AccuracyTable,
    mode: str = "adjacent",
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    correction: str = "holm",
    rho: float | None = None,
    rho_range: tuple[float, float] | None = None,
) -> AccuracyAudit:
    """Resolution verdicts for a leaderboard known only by its accuracies and N.

    Parameters
    ----------
    table : AccuracyTable
        The printed accuracies and N (:func:`llm_power_verified.io.accuracy_table.read_accuracies`).
    mode : {"adjacent", "all"}, default "adjacent"
        Pairs next to each other in the ranking (the family of K - 1), or every pair (K (K - 1) / 2).
    alpha : float, default 0.05
        Two-sided level, in (0, 1).
    power : float, default 0.8
        Target power, in (alpha, 1).
    correction : {"holm", "bonferroni", "sidak", "bh", "none"}, default "holm"
        The family's correction behind ``verdict_family``.
    rho : float, optional
        An assumed correlation, giving the ``*_assumed`` columns (the verdict columns never use it).
    rho_range : tuple of two floats, optional
        An assumed range (low, high) instead, -1 <= low <= high <= 1.

    Returns
    -------
    AccuracyAudit
        The ranking, the pair table and the verdict counts.

    Raises
    ------
    ArgumentError
        An unknown mode or correction, alpha or power out of range, both ``rho`` and ``rho_range``, or a range outside
        [-1, 1].

    Notes
    -----
    Without per-item scores rho is unknown; it is bounded by the admissible interval [rho_min, rho_max] of the two
    accuracies (Eqs. 7-8, ``derivations/admissible_correlation.py``).  N* (Eq. 6, ``derivations/wald.py``) is
    largest at rho_min: the pair is resolved when N >= N* at rho_min, unresolved when N < N* at rho_max, and
    otherwise depends on rho, crossing at the critical rho_c (``derivations/critical_correlation.py``).  The family
    verdict takes N* at rho_min at the strictest level the correction may use (alpha / m; Sidak's level) and at
    rho_max at the most lenient (alpha for Holm and BH, whose level depends on the order of the p-values): a pair
    unresolved at every admissible rho at the strict level but not at the lenient one "depends on p-value order".

    A printed accuracy stands for every count k of correct items whose k / N rounds to it (``count_low`` to
    ``count_high`` of the table).  Both verdicts hold over every admissible rho and every pair of allowed counts (and
    the printed pair): a pair is resolved only if resolved at all of them.  Where two allowed pairs of counts give
    different verdicts, ``rounding`` (``rounding_family``) says "depends on the printed digits" and the verdict is
    the one that holds at all of them; rho_c and the agreement share get ranges over the allowed counts
    (:mod:`llm_power_verified.leaderboard.accuracy_rounding`, which proves where the extremes lie).

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Eqs. 6-8.

    Examples
    --------
    >>> from pathlib import Path
    >>> import llm_power_verified as lpv
    >>> from llm_power_verified.io.accuracy_table import read_accuracies
    >>> audit = audit_accuracies(read_accuracies(Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"))
    >>> audit.family_size, audit.adjacent
    (25, VerdictCounts(resolved=7, unresolved=0, depends_on_rho=18, depends_on_order=0, depends_on_digits=0))
    """
    require_choice("mode", mode, ACCURACY_MODES)
    require_choice("correction", correction, CORRECTIONS)
    alpha_array, power_array = check_alpha_power(alpha, power)
    alpha, power = float(alpha_array), float(power_array)
    if rho is not None and rho_range is not None:
        raise ArgumentError("give rho (--rho) or rho_range (--rho-range LO HI), not both")
    assumed = (
        (float(rho), float(rho)) if rho is not None else None if rho_range is None else tuple(map(float, rho_range))
    )
    if assumed is not None and not (-1 <= assumed[0] <= assumed[1] <= 1):
        raise ArgumentError(
            f"the assumed correlation rho (--rho) or rho_range (--rho-range LO HI) must satisfy "
            f"-1 <= LO <= HI <= 1; got {assumed}"
        )
    ranking = _ranking(table)
    pairs = accuracy_pairs(ranking, table.n, mode)
    family_size = len(pairs)
    strict, lenient = add_verdicts(pairs, table.n, correction, alpha, power)
    gridded = add_rounding(pairs, ranking, table.n, alpha, power, strict, lenient)
    notes = list(table.notes) + _rounding_notes(pairs, correction, gridded)
    if correction in ("holm", "bh"):
        notes.append(
            f"{correction}: the per-pair level depends on the order of p-values that accuracies do not fix; family "
            "verdicts "
            f"hold for every level in [alpha/m, alpha] = [{strict:.3g}, {lenient:.3g}]; the family's rho_c "
            "(rho_critical_family, in the machine formats) is at alpha/m, the rho_c column at alpha"
        )
    label = None
    if assumed is not None:
        add_assumption(pairs, assumed, correction, alpha, power, strict, lenient)
        label = f"rho = {assumed[0]:g}" if assumed[0] == assumed[1] else f"rho in [{assumed[0]:g}, {assumed[1]:g}]"
        outside = int((pairs["verdict_assumed"] == NOT_ADMISSIBLE).sum())
        if outside:
            notes.append(
                f"assumption {label} lies outside the admissible interval of {outside} pair(s); their assumed verdict "
                "is 'not admissible'"
            )
    adjacent = pairs[pairs["adjacent"]]
    return AccuracyAudit(
        table=table,
        ranking=ranking,
        pairs=pairs,
        mode=mode,
        correction=correction,
        family_size=family_size,
        alpha=alpha,
        power=power,
        assumption=label,
        adjacent=VerdictCounts.of(adjacent["verdict"], adjacent["rounding"]),
        adjacent_family=VerdictCounts.of(adjacent["verdict_family"], adjacent["rounding_family"]),
        adjacent_assumed=None if assumed is None else VerdictCounts.of(adjacent["verdict_assumed"]),
        notes=tuple(notes),
    )
