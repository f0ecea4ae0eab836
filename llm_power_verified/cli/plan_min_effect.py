"""The text of ``plan items | accuracies | report``: each scenario's N, and the plan at a true gap of DELTA."""

from __future__ import annotations

import math

from llm_power_verified.cli.text_tables import render_rows
from llm_power_verified.numeric import exact

__all__ = [
    "SCENARIO_LABELS",
    "min_effect_cells",
    "min_effect_lines",
    "report_min_effect",
    "scenario_labels",
    "scenario_lines",
]

#: How each scenario of a leaderboard plan is named in the text ("{rho}" is the assumed rho).
SCENARIO_LABELS = {
    "observed": "at the observed rho-hat",
    "clustered": "with the observed clusters (design effect)",
    "rho_min": "at each pair's smallest admissible rho (worst case over the counts the printed digits allow)",
    "rho_max": "at each pair's largest admissible rho (best case, at the printed values)",
    "assumed": "ASSUMING rho = {rho} (at the printed values)",
}


def scenario_labels(plan) -> dict[str, str]:
    """The scenario labels of ``plan``: an accuracies-only worst case without the counts is at the printed values.

    Parameters
    ----------
    plan : LeaderboardPlan
        The plan (its ``printed_counts`` says whether the worst case covers the allowed counts).

    Returns
    -------
    dict of str to str
        Scenario to label ("{rho}" stands for the assumed rho).
    """
    if plan.printed_counts:
        return dict(SCENARIO_LABELS)
    return {**SCENARIO_LABELS, "rho_min": "at each pair's smallest admissible rho (worst case at the printed values)"}


def scenario_lines(plan, rho: float | None) -> list[str]:
    """Per scenario, the items that resolve every planned pair's observed gap; an infinite N in words.

    Parameters
    ----------
    plan : LeaderboardPlan
        The plan (:func:`~llm_power_verified.plan.targets.plan_leaderboard`).
    rho : float or None
        The assumed rho of an accuracies-only plan (for its scenario's label).

    Returns
    -------
    list of str
        One line per scenario.
    """
    lines = []
    for scenario, required in plan.required_n.items():
        label = scenario_labels(plan)[scenario].format(rho=rho)
        if math.isinf(required):
            never = plan.pairs[plan.pairs[f"required_n_{scenario}"] == math.inf]
            printed = scenario in ("rho_min", "rho_max", "assumed")  # accuracies only
            tie = "are tied at the printed values" if printed else "are tied"
            why = "; ".join(
                f"{row.model_a} vs {row.model_b} "
                + (tie if row.delta == 0 else "can be tied at the counts their printed digits allow")
                for row in never.itertuples()
            )
            lines.append(f"  {label}: no N resolves every one, a gap of 0 is never resolved ({why})")
            continue
        more = plan.more_items[scenario]
        lines.append(
            f"  {label}: N = {required:,.0f} items resolve every one; "
            + ("already enough" if more == 0 else f"{more:,.0f} more items of the same kind")
            + f" (limiting pair: {plan.limiting[scenario]})"
        )
    return lines


def _shown(value: float, spec: str, missing: str = "-") -> str:
    return missing if not math.isfinite(value) else format(value, spec)


def _items(required: float, binary: bool) -> str:
    """N*(DELTA) rounded up as the plan counts items; "no N" where a true gap of DELTA is impossible (NaN)."""
    # Lazy: _validation imports numpy, which `plan --help` (this module is imported by cli.plan) does not need.
    from llm_power_verified._validation import ceil_sample_size

    if math.isnan(required):
        return "no N (psi < DELTA)" if binary else "no N (variance 0)"
    return "inf" if math.isinf(required) else f"{int(ceil_sample_size(required)):,}"


def report_min_effect(given: float | None, audited: float | None, report: bool) -> tuple[float | None, str]:
    """DELTA to plan at, and where it came from: --min-effect, else a saved report's own ``settings.min_effect``.

    Parameters
    ----------
    given : float or None
        --min-effect.
    audited : float or None
        The report's ``settings.min_effect`` (None for a report without one, and for an audit run now).
    report : bool
        The plan starts from a saved report.

    Returns
    -------
    tuple of (float or None, str)
        DELTA, and the words on its source for the text ("" when it is --min-effect and nothing else is in play).

    Examples
    --------
    >>> report_min_effect(None, 0.02, True)
    (0.02, "the report's settings.min_effect")
    >>> report_min_effect(0.01, 0.02, True)[1]
    '--min-effect; the report was audited with settings.min_effect 0.02'
    """
    if not report or audited is None:
        return given, ""
    if given is None:
        return audited, "the report's settings.min_effect"
    if given == audited:
        return given, "--min-effect, the report's settings.min_effect too"
    return given, f"--min-effect; the report was audited with settings.min_effect {audited:g}"


def min_effect_lines(plan, rho: float | None, whose: str = "") -> list[str]:
    """The plan at a true gap of DELTA: per scenario the N, then the pairs where no such gap is possible.

    Parameters
    ----------
    plan : LeaderboardPlan
        A plan made with ``min_effect`` (:func:`~llm_power_verified.plan.targets.plan_leaderboard`).
    rho : float or None
        The assumed rho of an accuracies-only plan (for its scenario's label).
    whose : str, optional
        Where DELTA came from, when not (only) --min-effect (:func:`report_min_effect`).

    Returns
    -------
    list of str
        The lines, ending with the per-pair table of the first scenario.
    """
    delta = plan.min_effect
    first = next(iter(plan.required_n_min_effect))
    binary = plan.pairs[f"discordance_{first}"].notna().any()
    spread = "observed discordance" if binary else "observed variance of the differences"
    if first != "observed":  # accuracies only: the discordance each rho implies
        spread = "discordance at each rho below"
    labels = {**scenario_labels(plan), "observed": f"at each pair's {spread}"}
    lines = [
        "",
        f"a true gap of DELTA = {exact(delta)} ({whose or '--min-effect'}) in each pair, at the pair's {spread}, "
        "same level "
        f"{plan.level:.4g} (beside the observed gaps above):",
    ]
    for scenario, required in plan.required_n_min_effect.items():
        label = labels[scenario].format(rho=rho)
        impossible = plan.impossible_min_effect[scenario]
        if required is None:
            lines.append(
                f"  {label}: no pair can have a true gap of {exact(delta)} at its discordance"
                if binary
                else f"  {label}: no N for any pair: the differences of every pair have a variance of 0"
            )
        else:
            more = plan.more_items_min_effect[scenario]
            where = "it is possible" if binary else "the variance is > 0"
            every = "every pair" if not impossible else f"every pair where {where} ({len(impossible)} not)"
            lines.append(
                f"  {label}: N = {required:,.0f} items resolve a gap of {exact(delta)} in {every}; "
                + ("already enough" if more == 0 else f"{more:,.0f} more items of the same kind")
                + f" (limiting pair: {plan.limiting_min_effect[scenario]})"
            )
        if impossible and binary:
            lines.append(
                f"    no true gap of {exact(delta)} possible (it needs discordance psi >= DELTA; no N, not clamped): "
                + "; ".join(impossible)
            )
        elif impossible:
            lines.append(
                "    no N from a variance of 0 (the same difference on every item, so the plug-in variance plans "
                "nothing; not clamped): " + "; ".join(impossible)
            )
    rows = [
        {
            "pair": f"{row.model_a} vs {row.model_b}",
            "gap": f"{row.delta:.4g}",
            "psi": _shown(getattr(row, f"discordance_{first}"), ".4g"),
            "n": _items(getattr(row, f"required_n_min_effect_{first}"), binary),
            "power": _shown(getattr(row, f"power_min_effect_{first}"), ".3f"),
            "mde": _shown(getattr(row, f"mde_{first}"), ".4g"),
        }
        for row in plan.pairs.itertuples()
    ]
    psi = "discordance psi" if binary else "psi (graded: none)"
    columns = [("pair", "pair"), ("gap", "observed gap"), ("psi", psi), ("n", f"N*({exact(delta)})")]
    columns += [("power", f"power at {plan.n_items:,} items"), ("mde", "MDE now")]
    return [*lines, f"  per pair ({labels[first].format(rho=rho)}):", render_rows(rows, columns, "table")]


def min_effect_cells(plan: dict, accuracies: bool) -> tuple[str, float, float, float] | None:
    """The DELTA plan's limiting pair and its discordant cells under a true gap of DELTA, for ``--anytime``.

    Parameters
    ----------
    plan : dict
        ``LeaderboardPlan.to_dict()``.
    accuracies : bool
        An accuracies-only plan (its stopping time is at the assumed rho, "assumed"; else "observed").

    Returns
    -------
    tuple of (str, float, float, float) or None
        (pair, psi, p10, p01) with p10 = (psi + DELTA) / 2 and p01 = (psi - DELTA) / 2; None without --min-effect,
        or when no pair can have a true gap of DELTA.
    """
    scenario = "assumed" if accuracies else "observed"
    if plan.get("min_effect") is None or plan["limiting_min_effect"].get(scenario) is None:
        return None
    pair = plan["limiting_min_effect"][scenario]
    row = next(row for row in plan["pairs"] if f"{row['model_a']} vs {row['model_b']}" == pair)
    psi, delta = float(row[f"discordance_{scenario}"]), float(plan["min_effect"])
    return pair, psi, (psi + delta) / 2, (psi - delta) / 2
