"""Reproduction report: printed numbers of the source papers beside values computed from their stated inputs.

Every printed value is stored as data (:data:`PRINTED`) with its location in
the paper, the quantity, the printed text and the inputs the paper states.
:func:`reproduce` recomputes each one from those inputs with this package and
gives a verdict:

* "agrees": the computed value rounds to the printed one (within half a unit
  of the printed last digit, or the printed bound holds);
* "differs": it does not; the reason says what the printed number would need.

* "not reproducible": the stated inputs do not determine the value (for
  example, it needs per-item data the paper does not print).

Monte Carlo quantities (the main paper's Tables 2 and 10, seed 001's grid)
are compared with an exact or analytic value where one exists (noncentral-t
power, exact unconditional McNemar power) and otherwise with this package's
own simulation; they agree when within 3 Monte Carlo standard errors (of
the printed estimate, combined with the simulation's own where the computed
value is simulated).  Ranges ("500-1000", "~0.45-0.55") and one-sided claims
("exceeds 85%") are checked as intervals.

No computation is adjusted toward a printed number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Callable

import numpy as np

from llm_power_verified.examples import appendix_e
from llm_power_verified.inference import mcnemar_test, required_n_inflation
from llm_power_verified.planning import (
    admissible_rho_interval,
    ceil_sample_size,
    cluster_adjusted_required_n,
    correlation_from_counts,
    critical_value,
    delta_star,
    design_effect,
    required_n_arcsine,
    required_n_from_counts,
    required_n_paired_binary,
    required_n_wald,
    resolution_ratio_from_counts,
    shortcut_constant,
    shortcut_ratio,
)
from llm_power_verified.results import Result
from llm_power_verified.sequential import required_n_anytime

__all__ = ["EMBEDDING", "MAIN", "PAPERS", "Printed", "ReproductionRow", "main_paper_rows", "sample_size_rows", "table_7_rows", "verdict_of"]

MAIN = "arXiv 2605.30315 (seed 003)"
SAMPLE_SIZE = "seed 004 (Power Analysis for Pairwise Model Comparisons)"
EMBEDDING = "seed 001 (How Many Test Pairs Do You Need?)"
PAPERS = ("main", "embedding", "sample-size")


@dataclass(frozen=True, repr=False)
class Printed(Result):
    paper: str
    location: str
    quantity: str
    printed: str
    compute: Callable[[], float]
    inputs: str
    kind: str = "value"  # "value", "upper-bound", "lower-bound", "range", "monte-carlo" or "not-reproducible"
    input_range: Callable[[], tuple[float, float]] | None = None  # the value over the rounding of printed inputs
    tolerance: Callable[[], float] | float | None = None  # "monte-carlo": 3 standard errors
    bounds: tuple[float, float] | None = None  # "range": the printed interval, ends included
    reason: str = ""  # "not-reproducible": why


@dataclass(frozen=True, repr=False)
class ReproductionRow(Result):
    paper: str
    location: str
    quantity: str
    inputs: str
    printed: str
    computed: float
    relative_difference: float | None
    verdict: str
    reason: str


def _clean(text: str) -> tuple[str, float]:
    cleaned = text.replace(",", "").replace("<", "").replace(">", "").replace("~", "").replace("%", "").strip()
    if cleaned.endswith("M"):
        return cleaned[:-1], 1e6
    return cleaned, 1.0


def _half_unit(text: str) -> float:
    """Half a unit in the last printed digit of a number like '1,028', '0.43', '31.4M' or '9.9e-14'."""
    cleaned, scale = _clean(text)
    exponent = Decimal(cleaned).as_tuple().exponent
    return 0.5 * 10.0 ** exponent * scale


def _printed_number(text: str) -> float:
    cleaned, scale = _clean(text)
    return float(cleaned) * scale


def table_7_rows() -> tuple[list[dict], list[dict]]:

    return appendix_e()["table_7_mmlu_pro_adjacent"], appendix_e()["table_6_oll_v1_close_pairs"]


def _rows_tables_6_7() -> list[Printed]:
    rows: list[Printed] = []
    table_7, table_6 = table_7_rows()
    for index, row in enumerate(table_7, start=1):
        b, c, n = row["b"], row["c"], row["n"]
        where = f"Table 7, pair {index} vs {index + 1}"
        inputs = f"b = {b}, c = {c}, N = {n}"
        rows.append(Printed(MAIN, where, "N* (Eq. 6)", f"{row['required_n']:,}", lambda b=b, c=c, n=n: float(required_n_from_counts(b, c, n)), inputs))
        for key, method in (("p_chi2", "chi2"), ("p_exact", "exact")):
            rows.append(Printed(MAIN, where, f"{method} p-value", row[key], lambda b=b, c=c, m=method: float(mcnemar_test(b, c, m).pvalue), inputs,
                                "upper-bound" if row[key].startswith("<") else "value"))
        both = round(row["p_a"] * n) - b
        rows.append(Printed(MAIN, where, "rho-hat", f"{row['rho']}", lambda both=both, b=b, c=c, n=n: float(correlation_from_counts(both, b, c, n - both - b - c)),
                            f"{inputs}, a = round(p_A N) - b = {both}"))
    for row in table_6:
        b, c, n = row["b"], row["c"], row["n"]
        where = f"Table 6, {row['task']} {row['model_a']} vs {row['model_b']}"
        inputs = f"b = {b}, c = {c}, N = {n}"
        rows.append(Printed(MAIN, where, "N* (Eq. 6)", f"{row['required_n']:,}", lambda b=b, c=c, n=n: float(required_n_from_counts(b, c, n)), inputs))
        for key, method in (("p_chi2", "chi2"), ("p_exact", "exact")):
            rows.append(Printed(MAIN, where, f"{method} p-value", row[key], lambda b=b, c=c, m=method: float(mcnemar_test(b, c, m).pvalue), inputs))
    return rows


def _lemma_rows() -> list[Printed]:
    rows = [
        Printed(MAIN, "Section 4, Lemma 1", "C(1/2, rho) for rho = 0.3", "0.3333333333", lambda: float(shortcut_constant(0.5, 0.3)), "p = 1/2, rho = 0.3 (printed as 1/3)"),
        Printed(MAIN, "Corollary 1", "delta*(0.65, 0.3, 0.05), leading order", "0.43", lambda: delta_star(0.65, 0.3, 0.05).leading_order, "p = 0.65, rho = 0.3, epsilon = 0.05"),
        Printed(MAIN, "Appendix A, numerical cross-check", "C(0.65, 0.0)", "0.31", lambda: float(shortcut_constant(0.65, 0.0)), "p = 0.65, rho = 0"),
        Printed(MAIN, "Appendix A, numerical cross-check", "C(0.8, 0.5)", "0.80", lambda: float(shortcut_constant(0.8, 0.5)), "p = 0.8, rho = 0.5"),
        Printed(MAIN, "Appendix A, numerical cross-check", "C(0.65, 0.9)", "0.67", lambda: float(shortcut_constant(0.65, 0.9)), "p = 0.65, rho = 0.9"),
    ]
    for delta, bound in ((0.05, "0.0008"), (0.20, "0.014")):
        def worst(delta=delta):
            values = []
            for p in (0.5, 0.65, 0.8):
                for rho in np.linspace(0.0, 0.7, 15):
                    if rho > admissible_rho_interval(p + delta / 2, p - delta / 2).high:
                        continue  # the paper restricts its claims to admissible rho
                    values.append(abs(float(shortcut_ratio(p + delta / 2, p - delta / 2, rho)) - 0.5))
            return max(values)
        rows.append(Printed(MAIN, "Section 4, numerical check", f"max |n_h/N* - 1/2| at delta = {delta}", bound, worst,
                            "grid p in {0.5, 0.65, 0.8}, admissible rho in [0, 0.7] (15 values)", "upper-bound"))
    return rows


def _table_1_rows() -> list[Printed]:
    inputs = "p_A = 0.65, p_B = 0.60, rho = 0.30, alpha = 0.05, power = 0.80"
    return [
        Printed(MAIN, "Table 1", "correct N* (Eq. 6), integer", "1,028", lambda: float(ceil_sample_size(required_n_paired_binary(0.65, 0.60, 0.30))), inputs),
        Printed(MAIN, "Table 1", "per-arm K/h^2, integer", "736", lambda: float(ceil_sample_size(required_n_arcsine(0.65, 0.60, convention="one-sample"))), inputs),
        Printed(MAIN, "Table 1", "K/h^2 x (1 - rho), integer", "515", lambda: float(ceil_sample_size(0.7 * required_n_arcsine(0.65, 0.60, convention="one-sample"))), inputs),
        Printed(MAIN, "Table 1", "statsmodels per-arm 2K/h^2, integer", "1,471", lambda: float(ceil_sample_size(required_n_arcsine(0.65, 0.60, convention="two-sample"))), inputs),
        Printed(MAIN, "Table 1", "2K/h^2 x (1 - rho), integer", "1,030", lambda: float(ceil_sample_size(0.7 * required_n_arcsine(0.65, 0.60, convention="two-sample"))), inputs),
    ]


def _multiplicity_rows() -> list[Printed]:
    return [
        Printed(MAIN, "Section 6.3", "z_{1 - alpha/(2 m)}, m = 40", "3.227", lambda: float(critical_value(0.05 / 40)), "alpha = 0.05, m = 40"),
        Printed(MAIN, "Section 6.3", "Bonferroni N* inflation, m = 40", "2.11", lambda: float(required_n_inflation(40)), "alpha = 0.05, power = 0.8"),
        Printed(MAIN, "Section 6.3", "Sidak N* inflation, m = 40", "2.10", lambda: float(required_n_inflation(40, correction="sidak")), "alpha = 0.05, power = 0.8"),
        Printed(MAIN, "Section 6.2", "Bonferroni N* inflation, m = 45", "2.14", lambda: float(required_n_inflation(45)), "alpha = 0.05, power = 0.8"),
        Printed(MAIN, "Section 3", "z_{1-alpha/2} + z_{1-beta}", "2.80", lambda: float(critical_value(0.05) + critical_value(0.2, "larger")), "alpha = 0.05, power = 0.8"),
        Printed(MAIN, "Section 3 / Table 6", "HellaSwag q = N/N*", "0.5", lambda: float(resolution_ratio_from_counts(295, 249, 10042)), "b = 295, c = 249, N = 10,042 (printed as q ~ 1/2)"),
    ]


def _table_4_rows() -> list[Printed]:
    """Table 4's design effects from its own printed ICC and m-bar ~ 859, and cluster N* = N* x DE."""
    table_7, _ = table_7_rows()
    icc = [0.0004, -0.0003, 0.0002, 0.036, 0.0067, 0.012, -0.0002, 0.0010, 0.0029]
    printed_de = ["1.37", "1.00", "1.19", "31.5", "6.74", "11.5", "1.00", "1.88", "3.52"]
    printed_n = ["2,327", "778", "40,660", "13,621", "39,009", None, "4,628", "24,632", None]
    rows = []
    mean_size = 12032 / 14
    for index, (value, de, cluster_n, row) in enumerate(zip(icc, printed_de, printed_n, table_7), start=1):
        where = f"Table 4, pair {index} vs {index + 1}"
        half = _half_unit(str(value))
        spread = lambda f, v=value, h=half: (f(v - h), f(v + h))  # noqa: E731
        effect = lambda v: float(design_effect(mean_size, v))  # noqa: E731
        rows.append(Printed(MAIN, where, "design effect", de, lambda v=value: effect(v), f"printed ICC = {value}, m-bar = 12,032/14",
                            input_range=lambda s=spread: s(effect)))
        if cluster_n is not None:
            required = float(required_n_from_counts(row["b"], row["c"], row["n"]))
            adjusted = lambda v, r=required: float(cluster_adjusted_required_n(r, mean_size, v))  # noqa: E731
            rows.append(Printed(MAIN, where, "cluster-adjusted N*", cluster_n, lambda v=value, a=adjusted: a(v),
                                f"N* from b = {row['b']}, c = {row['c']} x DE from the printed ICC", input_range=lambda s=spread, a=adjusted: s(a)))
    return rows


def _anytime_rows() -> list[Printed]:

    table_7, _ = table_7_rows()
    b = np.array([row["b"] for row in table_7])
    c = np.array([row["c"] for row in table_7])
    return [
        Printed(MAIN, "Section 6.2 / Table 5", "fixed-n unresolved of 9 MMLU-Pro pairs", "4", lambda: float(np.sum(np.asarray(required_n_from_counts(b, c, 12032)) > 12032)), "Table 7 counts"),
        Printed(MAIN, "Section 6.5 / Table 5", "anytime-valid unresolved of 9", "5", lambda: float(np.sum(np.asarray(required_n_anytime(b, c, 12032)) > 12032)),
                "Table 7 counts; grid mixture; N_av by the boundary definition"),
        Printed(MAIN, "Section 6.5", "anytime N* inflation at N = 12,032", "2.15", lambda: float(np.median(np.asarray(required_n_anytime(b, c, 12032))[np.isfinite(np.asarray(required_n_anytime(b, c, 12032)))]
                                                                                                       / np.asarray(required_n_from_counts(b, c, 12032))[np.isfinite(np.asarray(required_n_anytime(b, c, 12032)))])),
                "median of N_av / N* over the Table 7 pairs with finite N_av (the paper states one factor)"),
    ]


def sample_size_rows() -> list[Printed]:
    printed = {0.0: ("65,920", "16,480", "4,120"), 0.4: ("39,552", "9,888", "2,472"), 0.6: ("26,368", "6,592", "1,648"), 0.8: ("13,184", "3,296", "824")}
    rows = []
    for rho, values in printed.items():
        for delta, value in zip((0.005, 0.01, 0.02), values):
            rows.append(Printed(SAMPLE_SIZE, "Section 3 table", f"required n, rho = {rho}, Delta = {delta}", value,
                                lambda rho=rho, delta=delta: float(required_n_wald(0.42 - 2 * rho * 0.21, delta)),
                                "sigma_A^2 = sigma_B^2 = 0.21 (p ~ 0.7), alpha = 0.05, power = 0.8, its own formula"))
    rows.append(Printed(SAMPLE_SIZE, "Abstract", "required n at Delta = 0.01, rho = 0.7 (range low end)", "3,800",
                        lambda: float(required_n_wald(0.42 * 0.3, 0.01)), "p ~ 0.7, rho = 0.7"))
    rows.append(Printed(SAMPLE_SIZE, "Abstract", "required n at Delta = 0.01, rho = 0.4 (range high end)", "9,600",
                        lambda: float(required_n_wald(0.42 * 0.6, 0.01)), "p ~ 0.7, rho = 0.4"))
    return rows


def verdict_of(entry: Printed, computed: float) -> tuple[float | None, str, str]:
    if entry.kind == "not-reproducible":
        return None, "not reproducible", entry.reason
    if entry.kind == "range":
        low, high = entry.bounds
        inside = low <= computed <= high
        return None, "agrees" if inside else "differs", f"computed {computed:.4g} {'inside' if inside else 'outside'} the printed range [{low:g}, {high:g}]"
    number = _printed_number(entry.printed)
    relative = abs(computed - number) / abs(number) if number else None
    if entry.kind == "monte-carlo":
        tolerance = entry.tolerance() if callable(entry.tolerance) else float(entry.tolerance)
        if abs(computed - number) <= tolerance + _half_unit(entry.printed):
            return relative, "agrees", f"within Monte Carlo error (3 SE = {tolerance:.3g}, plus printed rounding)"
        return relative, "differs", f"beyond 3 Monte Carlo SE ({tolerance:.3g}) of the computed value"
    if entry.kind == "upper-bound":
        if computed <= number:
            return relative, "agrees", f"bound holds: computed {computed:.4g} <= {entry.printed}"
        if computed <= number + _half_unit(entry.printed):
            return relative, "agrees", f"bound holds only within the printed rounding: computed {computed:.4g} vs {entry.printed}"
        return relative, "differs", f"printed bound {entry.printed} fails: computed {computed:.4g}"
    if entry.kind == "lower-bound":
        if computed >= number:
            return relative, "agrees", f"bound holds: computed {computed:.4g} >= {entry.printed}"
        if computed >= number - _half_unit(entry.printed):
            return relative, "agrees", f"bound holds only within the printed rounding: computed {computed:.4g} vs {entry.printed}"
        return relative, "differs", f"printed bound {entry.printed} fails: computed {computed:.4g}"
    if abs(computed - number) <= _half_unit(entry.printed) * (1 + 1e-9):
        return relative, "agrees", "rounds to the printed digits"
    if entry.printed.startswith("~") and abs(computed - number) <= 2 * _half_unit(entry.printed) * (1 + 1e-9):
        return relative, "agrees", "printed as approximate: within one unit of its last digit"
    if entry.input_range is not None:
        low, high = sorted(entry.input_range())
        if low - _half_unit(entry.printed) <= number <= high + _half_unit(entry.printed):
            return relative, "agrees", f"within the rounding of the printed inputs (range {low:.4g} to {high:.4g})"
        return relative, "differs", f"outside the range {low:.4g} to {high:.4g} allowed by the rounding of the printed inputs"
    ratio = computed / number if number else math.inf
    if number and abs(ratio - 2) < 0.01:
        return relative, "differs", "printed value is half the computed one (the factor-of-two pattern)"
    if relative is not None and relative < 0.002:
        return relative, "differs", "within 0.2%: the paper likely computed from rounded inputs"
    return relative, "differs", "does not follow from the stated inputs"


def main_paper_rows(extra_tables) -> list[Printed]:
    """The main paper's printed values in report order; ``extra_tables`` supplies the tables built in :mod:`.extra`."""
    return (_table_1_rows() + _lemma_rows() + _multiplicity_rows() + _rows_tables_6_7() + extra_tables.table_11_rows()
            + _table_4_rows() + extra_tables.table_9_rows() + _anytime_rows() + extra_tables.table_5_rows() + extra_tables.table_3_rows()
            + extra_tables.table_2_rows() + extra_tables.table_10_rows() + extra_tables.appendix_b_rows())
