"""The headline's phrasing: the few lines every format opens with, worded from the audit's facts.

The facts (sizes, the adjacent pairs' verdict counts, all pairs significant and
resolved, the smallest resolvable gap, the N for every adjacent gap) are
computed by the audit (:class:`~llm_power_verified.leaderboard.headline.Headline`);
this module only words them, so the in-memory and the streamed audit say the
same thing about the same facts.
"""

from __future__ import annotations

from statistics import NormalDist

from llm_power_verified.leaderboard.accuracies import AccuracyHeadline, VerdictCounts
from llm_power_verified.leaderboard.headline import IMPRACTICAL_ITEMS, Headline, all_pairs_route
from llm_power_verified.leaderboard.memory import LINEAR_MODELS
from llm_power_verified.numeric import exact
from llm_power_verified.report.cells import fmt, plural
from llm_power_verified.report.generations import generations_line

__all__ = ["accuracy_lines", "headline", "headline_lines"]


def _count(facts: Headline, column: str) -> str:
    """The count "k/m": k pairs with the verdict out of the m for which it is defined.

    The count is None outside the declared family.
    """
    count = facts.adjacent.get(column)
    return "n/a" if count is None else _of(count)


def _resolved_meaning(facts: Headline) -> str:
    """What "resolved" is at the observed gap: a threshold on the Wald statistic, each pair at alpha."""
    # z_(1-alpha/2) as -z_(alpha/2): 1 - alpha/2 rounds to 1 below alpha ~ 1e-16, where inv_cdf refuses it.
    threshold = -NormalDist().inv_cdf(facts.alpha / 2) + NormalDist().inv_cdf(facts.power)
    return (
        f"q = N / N* at the observed gap is z_Wald^2 / (z_(1-alpha/2) + z_power)^2, so 'resolved' is |z_Wald| >= "
        f"{threshold:.3f} at alpha {facts.alpha:g} for each pair, no multiplicity."
    )


def _every_adjacent(facts: Headline, at_alpha_n: int, family_n: int) -> str:
    """The N for every adjacent gap, each pair at alpha and at the family level ``plan`` plans at."""
    at_alpha = f"{at_alpha_n:,} items with each pair at alpha {facts.alpha:g}"
    pairs = facts.adjacent_family_size
    if facts.correction == "none" or pairs == 1:
        why = "correction none" if facts.correction == "none" else "a family of one adjacent pair"
        return f"{at_alpha} ({why}; as `plan` plans)"
    family = f"over the {plural(pairs, 'adjacent pair')}"
    if facts.correction == "sidak":
        level, rule = f"1 - (1 - alpha)^(1/{pairs}) = {facts.adjacent_family_level:.4g}", f"Sidak {family}"
    else:
        name = {"holm": "Holm", "bh": "BH"}.get(facts.correction)
        level, rule = f"alpha/{pairs}", f"Bonferroni {family}"
        rule += "" if name is None else f", the only level {name} guarantees before the p-values are seen"
    return f"{at_alpha}; {family_n:,} at {level} ({rule}; as `plan` plans)"


def headline_lines(facts: Headline) -> list[str]:
    """The headline lines of a per-item audit's facts (plain text; the renderers escape and format them).

    Parameters
    ----------
    facts : Headline
        The audit's :class:`~llm_power_verified.leaderboard.headline.Headline`.

    Returns
    -------
    list of str
        The lines.
    """
    clusters = f", {plural(facts.n_clusters, 'item cluster')}" if facts.n_clusters is not None else ""
    lines = [
        f"{facts.n_items:,} items x {facts.n_models:,} models, {facts.score_kind} scores{clusters}; "
        f"alpha {facts.alpha:g}, power {facts.power:g}; family '{facts.family}' (m = {facts.family_size:,}), "
        f"correction {facts.correction}."
    ]
    if facts.reference:
        lines.append(_reference_line(facts))
    if facts.adjacent_pairs:
        extras = []
        if "significant_clustered" in facts.adjacent:
            extras.append(f"significant with clusters {_count(facts, 'significant_clustered')}")
        if "significant_anytime" in facts.adjacent:
            extras.append(f"significant anytime-valid (e-BH) {_count(facts, 'significant_anytime')}")
        lines.append(
            f"{_adjacent_label(facts)}: significant {_count(facts, 'significant')}, resolved (q >= 1, each pair at "
            f"alpha) {_count(facts, 'resolved')}" + "".join(f", {extra}" for extra in extras) + "."
        )
        if "resolved" in facts.adjacent:
            lines.append(_resolved_meaning(facts))
    every = "The one pair" if facts.total_pairs == 1 else f"All {facts.total_pairs:,} pairs"
    if facts.significant_pairs is None or facts.resolved_pairs is None:
        # A linear mode above LINEAR_MODELS models (the family is the mode): no K x K array, so no all-pairs count.
        route = all_pairs_route(facts.binary, facts.n_clusters is not None, facts.generations is not None)
        lines.append(
            f"{every}: not tested in mode {facts.family} above {LINEAR_MODELS:,} models (an all-pairs pass needs K x K "
            f"arrays; this mode keeps memory linear in the models); {route} tests them."
        )
    else:
        lines.append(
            f"{every}: significant {facts.significant_pairs:,} ({facts.procedure}), resolved (q >= 1, each pair at "
            f"alpha) {facts.resolved_pairs:,}."
        )
    gap, rho, mean = facts.smallest_resolvable_gap, facts.median_rho, facts.mean_score
    if gap == 0.0:  # a plug-in variance of 0: every model scores every item alike, which states no detectable gap
        lines.append(
            "Smallest gap this benchmark resolves: n/a (the plug-in variance of a difference is 0 at the median "
            f"observed rho {rho:.2f} and mean score {mean:.3f})."
        )
    elif gap < 1.0:
        lines.append(
            f"Smallest gap this benchmark resolves: {gap:.3g} (at the median observed rho {rho:.2f} and mean score "
            f"{mean:.3f})."
        )
    else:  # scores lie in [0, 1], so no gap between two mean scores exceeds 1
        lines.append(
            f"No gap is resolvable with {facts.n_items:,} items: the minimum detectable effect is {gap:.3g}, over 1, "
            "the "
            f"largest possible gap (at the median observed rho {rho:.2f} and mean score {mean:.3f})."
        )
    if facts.adjacent_pairs:
        if facts.zero_gap_pairs:
            lines.append(
                f"No N resolves every adjacent gap: {plural(facts.zero_gap_pairs, 'adjacent pair')} "
                f"{'has' if facts.zero_gap_pairs == 1 else 'have'} a gap of 0."
            )
        elif facts.impractical_pairs:
            lines.append(_impractical_line(facts))
        else:
            every = _every_adjacent(facts, facts.required_n_all_adjacent, facts.required_n_all_adjacent_family)
            lines.append(
                f"N that would resolve {_reported_adjacent(facts, 'gap')}: {every} (now {facts.n_items:,})"
                f"{_at_generations(facts)}."
            )
    if facts.min_effect is not None and facts.adjacent_pairs:
        lines += _min_effect_lines(facts)
    if facts.generations is not None:
        lines.append(generations_line(facts.generations, facts.adjacent_pairs))
    return lines


def _reference_line(facts: Headline) -> str:
    """The K - 1 comparisons with the reference: significant under the family's correction, resolved, the others."""
    counts = facts.reference
    parts = [f"significant {_of(counts['significant'])}"] if "significant" in counts else []
    parts += [f"resolved (q >= 1, each pair at alpha) {_of(counts['resolved'])}"] if "resolved" in counts else []
    if "significant_clustered" in counts:
        parts.append(f"significant with clusters {_of(counts['significant_clustered'])}")
    if "significant_anytime" in counts:
        parts.append(f"significant anytime-valid (e-BH) {_of(counts['significant_anytime'])}")
    family = f"family 'reference', m = {facts.family_size:,}, {facts.correction} at alpha {facts.alpha:g}"
    return f"Comparisons with the reference ({family}): " + ", ".join(parts) + "."


def _adjacent_label(facts: Headline) -> str:
    """The adjacent line's subject: every adjacent gap, or (family reference) the reference's neighbours."""
    if facts.family == "reference":
        return f"Adjacent gaps (the reference's {plural(facts.adjacent_pairs, 'neighbour')} in the ranking)"
    return "Adjacent gaps"


def _of(count) -> str:
    """A verdict count as "k/m" with thousands separators."""
    return f"{count.count:,}/{count.defined:,}"


def _impractical_line(facts: Headline) -> str:
    """No practical N resolves every adjacent gap: the pairs past ``IMPRACTICAL_ITEMS`` and the one that drives it."""
    pairs = facts.impractical_pairs
    between = "" if facts.hardest_pair is None else f" between {facts.hardest_pair[0]} and {facts.hardest_pair[1]}"
    gap = "" if facts.hardest_gap is None else f" (a gap of {facts.hardest_gap:.3g}{between})"
    hardest = f"; the hardest{gap} "
    return (
        f"No practical N resolves every adjacent gap: {plural(pairs, 'adjacent pair')} "
        f"{'needs' if pairs == 1 else 'need'} over {IMPRACTICAL_ITEMS:,} items{'' if pairs == 1 else ' each'}, with "
        f"each pair at alpha "
        f"{facts.alpha:g}{hardest}needs {facts.hardest_required_n:,} (now {facts.n_items:,})."
    )


def _at_generations(facts: Headline) -> str:
    """With several generations per item: at how many the N holds, and where items are traded against them."""
    if facts.generations is None:
        return ""
    summary = facts.generations
    low, high, label = summary.count_low, summary.count_high, summary.label
    count = plural(low, label) if low == high else f"{low:,} to {plural(high, label)}"
    return f", at {count} per item (`plan repeats` trades items against generations per item)"


def _reported_adjacent(facts: Headline, noun: str) -> str:
    """Every adjacent gap, or the reported ones when the mode reports only some (mode reference: the neighbours)."""
    if facts.adjacent_pairs < facts.adjacent_family_size:
        return f"the {plural(facts.adjacent_pairs, 'reported adjacent ' + noun)}"
    return f"every adjacent {noun}"


def _undefined_why(facts: Headline) -> str:
    """Why q(DELTA) is n/a for a pair: too few discordant items for a true gap of DELTA, or a variance of 0."""
    return f"discordance below {exact(facts.min_effect)}" if facts.binary else "the same difference on every item"


def _min_effect_lines(facts: Headline) -> list[str]:
    """The smallest gap of interest's lines: resolved at DELTA, the N for DELTA, the four equivalence outcomes."""
    delta, pairs = exact(facts.min_effect), facts.adjacent_pairs
    undefined = facts.min_effect_undefined
    lines = [
        f"Gaps of interest (--min-effect {delta}): the benchmark resolves a true gap of {delta} in "
        f"{_count(facts, 'resolved_min_effect')} adjacent pairs (q({delta}) >= 1, each pair at alpha)"
        + (f"; n/a for {undefined:,} ({_undefined_why(facts)})" if undefined else "")
        + "."
    ]
    if facts.required_n_min_effect is not None:
        every = _every_adjacent(facts, facts.required_n_min_effect, facts.required_n_min_effect_family)
        which = (
            f"the {pairs - undefined:,} adjacent pairs where it is defined"
            if undefined
            else _reported_adjacent(facts, "pair")
        )
        now = f"(now {facts.n_items:,}){_at_generations(facts)}"
        lines.append(f"N that would resolve a gap of {delta} in {which}: {every} {now}.")
    counts = "; ".join(f"{outcome}: {count:,}/{pairs:,}" for outcome, count in facts.equivalence.items())
    lines.append(
        f"Equivalence within +-{delta} (adjacent pairs, each at alpha, no multiplicity; the (1 - 2 alpha) interval) - "
        f"{counts}."
    )
    return lines


def _counts(counts: VerdictCounts, total: int) -> str:
    text = (
        f"resolved at every admissible rho {counts.resolved}/{total}, unresolved at every one "
        f"{counts.unresolved}/{total}, "
        f"depends on rho {counts.depends_on_rho}/{total}"
    )
    if counts.depends_on_order:
        text += f", depends on the p-value order {counts.depends_on_order}/{total}"
    if counts.depends_on_digits:
        # Counted among the kinds above too: each is the verdict that holds at every count the printed digits allow.
        text += f"; the printed digits decide {counts.depends_on_digits}/{total} of these verdicts"
    return text


def accuracy_lines(facts: AccuracyHeadline) -> list[str]:
    """The headline lines of an accuracies-only audit: the three verdict kinds over the adjacent gaps.

    Parameters
    ----------
    facts : AccuracyHeadline
        The audit's :class:`~llm_power_verified.leaderboard.accuracies.AccuracyHeadline`.

    Returns
    -------
    list of str
        The lines (plain text).
    """
    adjacent = facts.adjacent_pairs
    lines = [
        (
            f"{facts.n_models} models, N = {facts.n_items:,} items, accuracies only (read as "
            f"{'percentages' if facts.scale == 'percent' else 'fractions'}); alpha {facts.alpha:g}, power "
            f"{facts.power:g}; "
            f"family '{facts.mode}' (m = {facts.family_size:,}), correction {facts.correction}."
        ),
        f"Adjacent gaps: {_counts(facts.adjacent, adjacent)}.",
        f"Under {facts.correction}: {_counts(facts.adjacent_family, adjacent)}.",
    ]
    if facts.agreement is not None:
        low, high, median = facts.agreement
        lines.append(
            f"The 'depends on rho' gaps need the two models to agree on {fmt(low)} to {fmt(high)} of the items (median "
            f"{fmt(median)}); per-item results would settle them."
        )
    if facts.adjacent_assumed is not None:
        counts = facts.adjacent_assumed
        lines.append(
            f"ASSUMING {facts.assumption} (an assumption, not a measurement): resolved {counts.resolved}/{adjacent}, "
            f"unresolved {counts.unresolved}/{adjacent}"
            + (f", depends {counts.depends_on_rho}/{adjacent}" if counts.depends_on_rho else "")
            + "."
        )
    return lines


def headline(audit) -> list[str]:
    """The headline lines of any audit, worded from its facts.

    Parameters
    ----------
    audit : Audit
        Any audit of the protocol (:class:`~llm_power_verified.leaderboard.protocol.Audit`): per item (in memory or
        streamed) or accuracies only.

    Returns
    -------
    list of str
        The lines (plain text).

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.leaderboard.audit import audit_leaderboard
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float)
    >>> audit = audit_leaderboard(from_array(scores, models=["x", "y", "z"]), n_resamples=0)
    >>> len(headline(audit)) > 0
    True
    """
    return accuracy_lines(audit.headline) if audit.kind == "accuracies" else headline_lines(audit.headline)
