"""The headline's phrasing: the few lines every format opens with, worded from the audit's facts.

The facts (sizes, the adjacent pairs' verdict counts, all pairs significant and
resolved, the smallest resolvable gap, the N for every adjacent gap) are
computed by the audit (:class:`~llm_power_verified.leaderboard.headline.Headline`);
this module only words them, so the in-memory and the streamed audit say the
same thing about the same facts.
"""

from __future__ import annotations

from llm_power_verified.leaderboard.headline import Headline

__all__ = ["headline", "headline_lines"]


def _count(facts: Headline, column: str) -> str:
    """"k/m": k pairs with the verdict out of the m for which it is defined (None outside the declared family)."""
    count = facts.adjacent.get(column)
    return "n/a" if count is None else f"{count.count}/{count.defined}"


def headline_lines(facts: Headline) -> list[str]:
    """The headline lines of these facts (plain text; the renderers escape and format them)."""
    clusters = f", {facts.n_clusters} item clusters" if facts.n_clusters is not None else ""
    lines = [f"{facts.n_items:,} items x {facts.n_models} models, {facts.score_kind} scores{clusters}; "
             f"alpha {facts.alpha:g}, power {facts.power:g}; family '{facts.family}' (m = {facts.family_size}), "
             f"correction {facts.correction}."]
    if facts.adjacent_pairs:
        extras = []
        if "significant_clustered" in facts.adjacent:
            extras.append(f"significant with clusters {_count(facts, 'significant_clustered')}")
        if "significant_anytime" in facts.adjacent:
            extras.append(f"anytime-valid {_count(facts, 'significant_anytime')}")
        lines.append(f"Adjacent gaps: significant {_count(facts, 'significant')}, resolved (q >= 1) {_count(facts, 'resolved')}"
                     + "".join(f", {extra}" for extra in extras) + ".")
    lines.append(f"All {facts.total_pairs:,} pairs: significant {facts.significant_pairs:,} ({facts.procedure}), "
                 f"resolved {facts.resolved_pairs:,}.")
    gap, rho, mean = facts.smallest_resolvable_gap, facts.median_rho, facts.mean_score
    if gap < 1.0:
        lines.append(f"Smallest gap this benchmark resolves: {gap:.3g} (at the median observed rho {rho:.2f} and mean score {mean:.3f}).")
    else:  # scores lie in [0, 1], so no gap between two mean scores exceeds 1
        lines.append(f"No gap is resolvable with {facts.n_items:,} items: the minimum detectable effect is {gap:.3g}, over 1, the "
                     f"largest possible gap (at the median observed rho {rho:.2f} and mean score {mean:.3f}).")
    if facts.adjacent_pairs:
        if facts.zero_gap_pairs:
            lines.append(f"No N resolves every adjacent gap: {facts.zero_gap_pairs} adjacent pair(s) have a gap of 0.")
        else:
            lines.append(f"N that would resolve every adjacent gap: {facts.required_n_all_adjacent:,} items (now {facts.n_items:,}).")
    return lines


def headline(audit) -> list[str]:
    """The headline lines of a per-item audit (in memory or streamed): :func:`headline_lines` of its ``headline`` facts."""
    return headline_lines(audit.headline)
