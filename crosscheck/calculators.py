"""What each power calculator returns for a paired LLM comparison, and the (1 - rho) misuse.

:func:`table1_rows` reproduces the paper's Table 1 comparison at any
(p_A, p_B, rho, alpha, power): for each tool its native per-arm output (from
the real tool where it runs here: R through Rscript, statsmodels in-process;
from the documented formula for G*Power and Cohen), that output times
(1 - rho), the ratio to the correct paired N*, and a verdict.  At the paper's
own inputs each row also shows the paper's printed figures and whether the
tool's real output agrees with them.

:func:`lemma1_grid` compares the exact ratio n_h / N* with Lemma 1's
expansion 1/2 + c2 delta^2 (+ c4 delta^4) over a (p, rho, delta) grid.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import llm_power_verified as lpv
from crosscheck.documented import DOCUMENTED
from crosscheck.r_tools import RUnavailable, run_calls

PAPER_CASE = (0.65, 0.60, 0.30, 0.05, 0.80)

#: The paper's Table 1 (arXiv 2605.30315, Section 4.1), at PAPER_CASE: per-arm and x(1 - rho).
PAPER_TABLE_1 = {
    "Cohen (1988)": (736, 515),
    "G*Power 3.1": (736, 515),
    "R pwr::pwr.2p.test": (736, 515),
    "statsmodels NormalIndPower": (1471, 1030),
    "llm-power-verified (paired)": (None, 1028),
}


@dataclass(frozen=True)
class CalculatorRow:
    """One calculator's figure for one design, beside this package's, with where it was read."""

    tool: str
    procedure: str
    source: str
    convention: str
    per_arm: float | None
    times_one_minus_rho: float | None
    ratio_to_required: float | None
    paper_per_arm: float | None
    paper_times_one_minus_rho: float | None
    agrees_with_paper: bool | None
    verdict: str


def _verdict(ratio: float | None, paired: bool) -> str:
    if ratio is None:
        return "not available"
    if paired:
        return "correct paired N*"
    if ratio < 0.75:
        return f"the (1 - rho) readout underestimates N* by a factor of {1 / ratio:.2f}"
    if ratio <= 1.05:
        return "the (1 - rho) readout lands near N* (the per-arm value already counts both arms)"
    return f"the (1 - rho) readout overestimates N* by a factor of {ratio:.2f}"


def _real_r(p_a, p_b, alpha, power):
    h = f"ES.h({p_a!r}, {p_b!r})"
    calls = {
        "two": {"n": f"pwr.2p.test(h = {h}, sig.level = {alpha!r}, power = {power!r})$n"},
        "one": {"n": f"pwr.p.test(h = {h}, sig.level = {alpha!r}, power = {power!r})$n"},
        "prop": {"n": f"power.prop.test(p1 = {p_a!r}, p2 = {p_b!r}, sig.level = {alpha!r}, power = {power!r})$n"},
    }
    values, environment = run_calls(calls)
    return values, environment


def table1_rows(
    p_a: float = 0.65, p_b: float = 0.60, rho: float = 0.30, alpha: float = 0.05, power: float = 0.80
) -> list[CalculatorRow]:
    """Every calculator at one case; R rows say so when R is missing."""
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    required = float(lpv.required_n_paired_binary(p_a, p_b, rho, alpha, power))
    at_paper = (p_a, p_b, rho, alpha, power) == PAPER_CASE
    keep = 1 - rho
    rows = []

    def add(tool, procedure, source, convention, per_arm, paper_key=None, paired=False):
        times = per_arm if paired else (None if per_arm is None else per_arm * keep)
        ratio = None if times is None else times / required
        paper = PAPER_TABLE_1.get(paper_key) if at_paper and paper_key else None
        agrees = None
        if paper is not None and per_arm is not None:
            printed = paper[1] if paired else paper[0]
            agrees = abs(math.ceil(per_arm - 1e-9) - printed) <= 1
        rows.append(
            CalculatorRow(
                tool,
                procedure,
                source,
                convention,
                None if paired else per_arm,
                times,
                ratio,
                paper[0] if paper else None,
                paper[1] if paper else None,
                agrees,
                _verdict(ratio, paired),
            )
        )

    for entry in DOCUMENTED:
        key = entry.tool if entry.tool != "Cohen (1988)" or entry.convention == "one-sample-arcsine" else None
        add(
            entry.tool,
            entry.procedure,
            f"reproduced from documentation: {entry.source}",
            entry.convention,
            entry.per_arm(p_a, p_b, alpha, power),
            key,
        )
    try:
        values, environment = _real_r(p_a, p_b, alpha, power)
        r_source = f"run: {environment.get('R')}, pwr {environment.get('pwr')}"
        add(
            "R pwr::pwr.2p.test",
            "two independent samples, Cohen's h",
            r_source,
            "two-sample-arcsine",
            values["two"]["n"],
            "R pwr::pwr.2p.test",
        )
        add(
            "R pwr::pwr.p.test",
            "one sample against a constant, Cohen's h",
            r_source,
            "one-sample-arcsine",
            values["one"]["n"],
        )
        add(
            "R stats::power.prop.test",
            "two independent proportions",
            f"run: {environment.get('R')}",
            "two-proportion-z",
            values["prop"]["n"],
        )
    except RUnavailable as error:
        for tool in ("R pwr::pwr.2p.test", "R pwr::pwr.p.test", "R stats::power.prop.test"):
            rows.append(
                CalculatorRow(tool, "", f"not run: {error}", "", None, None, None, None, None, None, "not available")
            )
    import statsmodels

    h = float(proportion_effectsize(p_a, p_b))
    n_statsmodels = float(NormalIndPower().solve_power(effect_size=h, alpha=alpha, power=power, ratio=1.0))
    add(
        "statsmodels NormalIndPower",
        "solve_power(effect_size=proportion_effectsize(p_a, p_b), ratio=1)",
        f"run: statsmodels {statsmodels.__version__}",
        "two-sample-arcsine",
        n_statsmodels,
        "statsmodels NormalIndPower",
    )
    add(
        "llm-power-verified (paired)",
        "required_n_paired_binary (Eq. 6)",
        f"run: llm_power_verified {lpv.__version__}",
        "paired",
        required,
        "llm-power-verified (paired)",
        paired=True,
    )
    return rows


def paper_discrepancies(rows: list[CalculatorRow]) -> list[str]:
    """Sentences for every row whose real output differs from what the paper prints for it."""
    notes = []
    for row in rows:
        if row.agrees_with_paper is False:
            notes.append(
                f"{row.tool}: the paper prints per-arm {row.paper_per_arm} (x(1 - rho) = "
                f"{row.paper_times_one_minus_rho}); "
                f"the tool returns {row.per_arm:.2f} (x(1 - rho) = {row.times_one_minus_rho:.2f}, "
                f"{row.ratio_to_required:.3f} of N*), the {row.convention} convention."
            )
    return notes


def lemma1_grid(
    p_values=(0.5, 0.65, 0.8), rho_values=(0.0, 0.3, 0.5, 0.7, 0.9), delta_values=(0.005, 0.01, 0.02, 0.05, 0.1, 0.2)
):
    """Exact n_h/N* at p +/- delta/2 against Lemma 1's second- and fourth-order expansions.

    Returns (rows, summary): one dict per cell (``admissible`` False where rho
    is not attainable at p +/- delta/2, or p +/- delta/2 leaves (0, 1); the
    ratio is then not computed), and
    the worst absolute errors of both expansions per delta band.
    """
    rows = []
    for p in p_values:
        for rho in rho_values:
            constant = float(lpv.shortcut_constant(p, rho))
            for delta in delta_values:
                high, low = p + delta / 2, p - delta / 2
                admissible = low > 0 and high < 1 and rho < 1
                if admissible:
                    interval = lpv.admissible_rho_interval(high, low)
                    admissible = interval.low <= rho <= interval.high
                row = {"p": p, "rho": rho, "delta": delta, "admissible": admissible, "C": constant}
                if admissible:
                    exact = float(lpv.shortcut_ratio(high, low, rho))
                    second = float(lpv.shortcut_ratio_series(p, rho, delta, order=2))
                    fourth = float(lpv.shortcut_ratio_series(p, rho, delta, order=4))
                    row.update(
                        exact=exact,
                        deviation=abs(exact - 0.5),
                        bound=constant * delta**2,
                        error_order_2=abs(exact - second),
                        error_order_4=abs(exact - fourth),
                    )
                rows.append(row)
    summary = []
    bands = [(0, 0.02), (0.02, 0.05), (0.05, 0.1), (0.1, 0.2)]
    for low, high in bands:
        cells = [r for r in rows if r["admissible"] and low < r["delta"] <= high]
        if cells:
            summary.append(
                {
                    "delta_band": f"({low}, {high}]",
                    "cells": len(cells),
                    "worst_deviation_from_half": max(r["deviation"] for r in cells),
                    "worst_error_order_2": max(r["error_order_2"] for r in cells),
                    "worst_error_order_4": max(r["error_order_4"] for r in cells),
                }
            )
    return rows, summary


def as_dicts(rows: list[CalculatorRow]) -> list[dict]:
    """The rows as plain dicts (for JSON)."""
    return [asdict(row) for row in rows]
