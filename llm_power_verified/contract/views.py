"""What the text tables show: the composite cells, the pair-table view of each audit, and what ``--columns`` offers.

A view is a tuple of names: a declared column (:mod:`.columns`) or a
:class:`Composite`, one text cell made of two columns.  The view orders are
the order of importance: the terminal cuts a per-item pair table from the
end, and the accuracies-only terminal drops ``DROP_ORDER`` first.
"""

from __future__ import annotations

from dataclasses import dataclass

from llm_power_verified.contract.columns import column

__all__ = [
    "ACCURACIES_VIEW",
    "ASSUMED_VIEW",
    "BINARY_VIEW",
    "COLUMN_CHOICES",
    "COMPOSITES",
    "DROP_ORDER",
    "GENERATIONS_VIEW",
    "GRADED_VIEW",
    "MIN_EFFECT_VIEW",
    "MIXED_PAIRS_VIEW",
    "Composite",
    "header",
]


@dataclass(frozen=True)
class Composite:
    """One text cell made of two declared columns (an interval shown as one cell).

    Attributes
    ----------
    name : str
        The view entry's name (a key of ``COMPOSITES``).
    header : str
        Its label in the text tables.
    parts : tuple of str
        The declared columns it is made of (low, high).
    meaning : str
        Its legend text.
    """

    name: str
    header: str
    parts: tuple[str, ...]
    meaning: str


COMPOSITES = {
    item.name: item
    for item in (
        Composite(
            "boot_ci", "boot CI", ("boot_ci_low", "boot_ci_high"), "paired bootstrap interval of the gap at 1 - alpha"
        ),
        Composite(
            "required_n_interval",
            "N* 5-95%",
            ("required_n_p05", "required_n_p95"),
            "bootstrap 5th-95th percentiles of N* (finite where a resampled gap is not 0, even when N* is inf)",
        ),
        Composite(
            "margin_ci",
            "CI(1-2alpha)",
            ("margin_ci_low", "margin_ci_high"),
            "(1 - 2 alpha) interval of the gap dual to the margin tests against +-DELTA (--min-effect)",
        ),
        Composite(
            "rho_interval",
            "admissible rho",
            ("rho_min", "rho_max"),
            "[rho_min, rho_max]: the correlations the two accuracies allow (paper Eqs. 7-8)",
        ),
        Composite(
            "required_n_range",
            "N* over it",
            ("required_n_rho_max", "required_n_rho_min"),
            "N* at rho_max to N* at rho_min: the fewest and the most items the gap could need",
        ),
    )
}

#: With --min-effect: the smallest gap of interest's columns, last in either per-item view (so the terminal's default
#: table is as without it; --wide, --columns and Markdown show them).
MIN_EFFECT_VIEW = (
    "equivalence",
    "q_min_effect",
    "resolved_min_effect",
    "power_min_effect",
    "required_n_min_effect",
    "p_equivalence",
    "margin_ci",
    "p_margin_lower",
    "p_margin_upper",
)
#: With several generations per item (graded audit on the item means): the split of the gap's noise and the q curve,
#: last in the graded view (after min-effect's), so that the terminal's default table is as without them.
GENERATIONS_VIEW = (
    "gap_generation_share",
    "q_generations_inf",
    "q_generations_1",
    "q_generations_2",
    "q_generations_5",
    "q_generations_10",
    "q_generations_20",
    "gap_within_part",
    "gap_within_variance",
    "gap_between_variance",
)
#: The per-item pair table of 0/1 scores, in order of importance.
BINARY_VIEW = (
    "delta",
    "p_adjusted",
    "significant",
    "q",
    "resolved",
    "significant_clustered",
    "significant_anytime",
    "required_n",
    "mde",
    "rho",
    "b",
    "c",
    "p_exact",
    "p_midp",
    "boot_ci",
    "required_n_interval",
    "shortcut_ratio",
    *MIN_EFFECT_VIEW,
)
#: The per-item pair table of graded scores.
GRADED_VIEW = (
    "delta",
    "p_adjusted",
    "significant",
    "q",
    "resolved",
    "significant_clustered",
    "required_n",
    "mde",
    "rho",
    "t",
    "p_t",
    "boot_ci",
    *MIN_EFFECT_VIEW,
    *GENERATIONS_VIEW,
)


def _merged(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    """Both views' columns once each, in either's order: ``second``'s own columns go before its next shared one."""
    merged = list(first)
    for position, name in enumerate(second):
        if name in merged:
            continue
        following = next((later for later in second[position + 1 :] if later in merged), None)
        merged.insert(merged.index(following) if following is not None else len(merged), name)
    return tuple(merged)


#: What ``--columns`` offers: every column of either per-item view, in order of importance.
COLUMN_CHOICES = _merged(BINARY_VIEW, GRADED_VIEW)
#: The accuracies-only pair table (Markdown and HTML; the terminal folds the intervals into the composites).
ACCURACIES_VIEW = (
    "delta",
    "rho_min",
    "rho_max",
    "required_n_rho_min",
    "required_n_rho_max",
    "verdict",
    "rounding",
    "required_n_worst",
    "required_n_best",
    "rho_critical",
    "rho_critical_low",
    "rho_critical_high",
    "agreement_critical",
    "agreement_critical_low",
    "agreement_critical_high",
    "verdict_family",
    "rounding_family",
)
#: Added to it with an assumed correlation.
ASSUMED_VIEW = ("q_assumed", "verdict_assumed", "verdict_assumed_family")
#: Shown first after the two models when the listed pairs are not all adjacent (--mode all or reference, --pairs all):
#: which pairs are next in the ranking (the family of --family adjacent).  A listing of adjacent pairs only omits it.
MIXED_PAIRS_VIEW = ("adjacent",)
#: The accuracies-only terminal's columns dropped first when the pair table is wider than the terminal (the least needed
#: first).
DROP_ORDER = (
    "agreement_critical_low",
    "agreement_critical_high",
    "rho_critical_low",
    "rho_critical_high",
    "required_n_best",
    "required_n_worst",
    "rounding_family",
    "rho_interval",
    "required_n_range",
    "q_assumed",
    "verdict_assumed_family",
    "agreement_critical",
    "verdict_family",
    "rounding",
)


def header(name: str) -> str:
    """The text tables' label of a view entry.

    Parameters
    ----------
    name : str
        A composite (``COMPOSITES``) or a declared column.

    Returns
    -------
    str
        The composite's header, or the column's.

    Raises
    ------
    ValueError
        When ``name`` is neither.

    Examples
    --------
    >>> header("boot_ci"), header("required_n")
    ('boot CI', 'N*')
    """
    if name in COMPOSITES:
        return COMPOSITES[name].header
    return column(name).header
