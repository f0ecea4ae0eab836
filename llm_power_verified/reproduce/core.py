"""Reproduction report: printed numbers and claims of the source papers beside values computed from their stated inputs.

Every printed value is stored as data (:data:`PRINTED`) with its location in
the paper, the quantity, the printed text and the inputs the paper states;
:mod:`.claims` adds the sentences that state a number, a count, a bound or a
direction.  :func:`reproduce` recomputes each one with this package and gives
one of three verdicts, by one rule per kind of printed quantity:

* a required sample size ("required-n") is compared by the ceiling, as
  the paper rounds N* up: it agrees when the printed integer is the ceiling of
  the computed value (or, where printed inputs are rounded, of some value in
  the range those inputs allow);
* any other value agrees when it rounds to the printed digits (within half a
  unit of the last printed digit; one unit when printed as approximate), or
  lies in the range allowed by the rounding of the printed inputs;
* bounds, ranges and one-sided claims are checked as intervals; a claimed
  direction or count ("holds") is checked as stated;
* Monte Carlo values agree within 3 Monte Carlo standard errors (of the
  printed estimate, combined with the simulation's own where the computed
  value is simulated);
* "not reproducible": the stated inputs do not determine the value; the
  reason says what is missing, and where an input can be solved for from the
  printed value (Table 10's p_A), the solved value is shown.

The same printed number for the same quantity gets the same verdict wherever
it appears (tested).  Where a different reading of the inputs reproduces a
printed value (Table 7's N* with N = 12,031), the reason says so; the verdict
stays with the stated inputs.  No computation is adjusted toward a printed number.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from llm_power_verified.examples import appendix_e
from llm_power_verified.inference import mcnemar_test, required_n_inflation
from llm_power_verified.power import (
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
from llm_power_verified.sequential import log_e_value, required_n_anytime

__all__ = ["EMBEDDING", "MAIN", "PAPERS", "TABLE_5_MMLU", "Printed", "ReproductionRow", "holds_claim", "main_paper_rows", "missing_claim", "one_fewer_range", "sample_size_rows", "table_7_rows", "tighter_than_fixed_n", "verdict_of"]

MAIN = "arXiv 2605.30315 (seed 003)"
SAMPLE_SIZE = "seed 004 (Power Analysis for Pairwise Model Comparisons)"
EMBEDDING = "seed 001 (How Many Test Pairs Do You Need?)"
PAPERS = ("main", "embedding", "sample-size")
#: Table 5's MMLU-Pro column as printed: unresolved of 9 per procedure.
TABLE_5_MMLU = {"fixed-n": 4, "Bonferroni/Holm": 4, "anytime-valid": 5, "clustered": 6}


@dataclass(frozen=True, repr=False)
class Printed(Result):
    paper: str
    location: str
    quantity: str
    printed: str
    compute: Callable[[], float]
    inputs: str
    kind: str = "value"  # "value", "required-n", "upper-bound", "lower-bound", "range", "monte-carlo", "holds" or "not-reproducible"
    input_range: Callable[[], tuple[float, float]] | None = None  # the value over the rounding of printed inputs
    tolerance: Callable[[], float] | float | None = None  # "monte-carlo": 3 standard errors
    bounds: tuple[float, float] | None = None  # "range": the printed interval, ends included
    reason: str = ""  # "not-reproducible": why
    other_reading: Callable[[], str] | None = None  # another reading of the inputs, shown beside a "differs"
    check: Callable[[], tuple[bool, str]] | None = None  # "holds": whether the claim holds, and what was found
    claim: bool = True  # False: a check this package adds (its location says so), not a printed claim


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
    claim: bool = True  # False: a check this package adds, not a printed claim


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
        rows.append(Printed(MAIN, where, "N* (Eq. 6)", f"{row['required_n']:,}", lambda b=b, c=c, n=n: float(required_n_from_counts(b, c, n)), inputs,
                            "required-n", other_reading=lambda b=b, c=c, n=n: _one_fewer(b, c, n)))
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
        rows.append(Printed(MAIN, where, "N* (Eq. 6)", f"{row['required_n']:,}", lambda b=b, c=c, n=n: float(required_n_from_counts(b, c, n)), inputs,
                            "required-n", other_reading=lambda b=b, c=c, n=n: f"rounded to the nearest integer it is "
                                                                        f"{math.floor(float(required_n_from_counts(b, c, n)) + 0.5):,}, as Table 6 rounds"))
        for key, method in (("p_chi2", "chi2"), ("p_exact", "exact")):
            rows.append(Printed(MAIN, where, f"{method} p-value", row[key], lambda b=b, c=c, m=method: float(mcnemar_test(b, c, m).pvalue), inputs))
    rows.append(Printed(MAIN, "Table 7, N* column (this package's check)", "values reproduced by N = 12,031 and the ceiling (of 9)", "9",
                        lambda: float(sum(float(ceil_sample_size(required_n_from_counts(r["b"], r["c"], r["n"] - 1))) == r["required_n"] for r in table_7)),
                        "Table 7 counts with N one fewer than the stated 12,032; at 12,032 the ceiling matches 4 of 9", claim=False))
    rows.append(Printed(MAIN, "Table 6, N* column (this package's check)", "values reproduced by nearest rounding at the stated N (of 7)", "7",
                        lambda: float(sum(math.floor(float(required_n_from_counts(r["b"], r["c"], r["n"])) + 0.5) == r["required_n"] for r in table_6)),
                        "Table 6 counts; the ceiling matches 4 of 7: the two tables round N* differently", claim=False))
    return rows


def one_fewer_range(row: dict, effects) -> str:
    """Table 7's N* with N - 1 items times a range of design effects: what Tables 4 and 9 then allow."""
    base = float(required_n_from_counts(row["b"], row["c"], row["n"] - 1))
    low, high = (float(ceil_sample_size(base * float(e))) for e in sorted(float(e) for e in effects))
    return f"with N = {row['n'] - 1:,} (as Table 7's N* needs) the range is {low:,.0f} to {high:,.0f}"


def _one_fewer(b: int, c: int, n: int) -> str:
    """The ceiling of N* with N - 1 items: what reproduces every Table 7 value."""
    value = float(ceil_sample_size(required_n_from_counts(b, c, n - 1)))
    return f"with N = {n - 1:,} (one fewer than stated) the ceiling is {value:,.0f}"


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
        Printed(MAIN, "Table 1", "correct N* (Eq. 6)", "1,028", lambda: float(required_n_paired_binary(0.65, 0.60, 0.30)), inputs, "required-n"),
        Printed(MAIN, "Table 1", "per-arm K/h^2", "736", lambda: float(required_n_arcsine(0.65, 0.60, convention="one-sample")), inputs, "required-n"),
        Printed(MAIN, "Table 1", "K/h^2 x (1 - rho)", "515", lambda: float(0.7 * required_n_arcsine(0.65, 0.60, convention="one-sample")), inputs, "required-n"),
        Printed(MAIN, "Table 1", "statsmodels per-arm 2K/h^2", "1,471", lambda: float(required_n_arcsine(0.65, 0.60, convention="two-sample")), inputs, "required-n"),
        Printed(MAIN, "Table 1", "2K/h^2 x (1 - rho)", "1,030", lambda: float(0.7 * required_n_arcsine(0.65, 0.60, convention="two-sample")), inputs, "required-n"),
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

    def effect(icc: float) -> float:
        return float(design_effect(mean_size, icc))

    for index, (value, de, cluster_n, row) in enumerate(zip(icc, printed_de, printed_n, table_7), start=1):
        where = f"Table 4, pair {index} vs {index + 1}"
        half = _half_unit(str(value))
        spread = lambda f, v=value, h=half: (f(v - h), f(v + h))
        rows.append(Printed(MAIN, where, "design effect", de, lambda v=value: effect(v), f"printed ICC = {value}, m-bar = 12,032/14",
                            input_range=lambda s=spread: s(effect)))
        if cluster_n is not None:
            required = float(required_n_from_counts(row["b"], row["c"], row["n"]))
            adjusted = lambda v, r=required: float(cluster_adjusted_required_n(r, mean_size, v))
            rows.append(Printed(MAIN, where, "cluster-adjusted N*", cluster_n, lambda v=value, a=adjusted: a(v),
                                f"N* from b = {row['b']}, c = {row['c']} x DE from the printed ICC", "required-n", input_range=lambda s=spread, a=adjusted: s(a),
                                other_reading=lambda v=value, h=half, r=row: one_fewer_range(r, [design_effect(mean_size, v - h), design_effect(mean_size, v + h)])))
    return rows


def _anytime_rows() -> list[Printed]:
    """Section 6.5's count under the paper's rule and under this package's N_av, both labelled."""
    table_7, _ = table_7_rows()
    b = np.array([row["b"] for row in table_7])
    c = np.array([row["c"] for row in table_7])

    def inflation() -> float:
        anytime = np.asarray(required_n_anytime(b, c, 12032))
        finite = np.isfinite(anytime)
        return float(np.median(anytime[finite] / np.asarray(required_n_from_counts(b, c, 12032))[finite]))

    return [
        Printed(MAIN, "Section 6.2 / Table 5", "fixed-n unresolved of 9 MMLU-Pro pairs", "4",
                lambda: float(np.sum(np.asarray(ceil_sample_size(required_n_from_counts(b, c, 12032))) > 12032)), "Table 7 counts"),
        Printed(MAIN, "Section 6.5 / Table 5", "anytime-valid unresolved of 9, by the paper's rule (no rejection: e_N < 1/alpha at the final counts)", "5",
                lambda: float(np.sum(np.asarray(log_e_value(b, c)) < math.log(20))),
                "Table 7 counts; grid mixture; Appendix C's rule 'reject the first n with e_n >= 1/alpha', read at n = N (the item order is not printed)",
                other_reading=lambda: "e_N >= 20 on 5 of 9 pairs: the extra pair 5 vs 6 has e_N = "
                                    f"{math.exp(float(log_e_value(1680, 1454))):.0f}, so under the paper's rule it is rejected; "
                                    "the 5 of 9 holds only under an N_av-type definition (next row)"),
        Printed(MAIN, "Section 6.5 / Table 5", "anytime-valid unresolved of 9, by this package's N_av (first N at which the monitored test has 80% power)", "5",
                lambda: float(np.sum(np.asarray(required_n_anytime(b, c, 12032)) > 12032)), "Table 7 counts; grid mixture; see required_n_anytime"),
        Printed(MAIN, "Section 6.5", "anytime N* inflation at N = 12,032, this package's N_av / N*", "2.15", inflation,
                "median of N_av / N* over the Table 7 pairs with finite N_av (the paper states one factor and not its definition)",
                other_reading=lambda: f"this package's N_av / N* has median {inflation():.2f} over the 8 pairs with finite N_av; "
                                    "the paper does not say how its single factor is defined"),
    ]


def sample_size_rows() -> list[Printed]:
    printed = {0.0: ("65,920", "16,480", "4,120"), 0.4: ("39,552", "9,888", "2,472"), 0.6: ("26,368", "6,592", "1,648"), 0.8: ("13,184", "3,296", "824")}
    rows = []
    for rho, values in printed.items():
        for delta, value in zip((0.005, 0.01, 0.02), values):
            rows.append(Printed(SAMPLE_SIZE, "Section 3 table", f"required n, rho = {rho}, Delta = {delta}", value,
                                lambda rho=rho, delta=delta: float(required_n_wald(0.42 - 2 * rho * 0.21, delta)),
                                "sigma_A^2 = sigma_B^2 = 0.21 (p ~ 0.7), alpha = 0.05, power = 0.8, its own formula", "required-n"))
    rows.append(Printed(SAMPLE_SIZE, "Abstract", "required n at Delta = 0.01, rho = 0.7 (range low end)", "3,800",
                        lambda: float(required_n_wald(0.42 * 0.3, 0.01)), "p ~ 0.7, rho = 0.7"))
    rows.append(Printed(SAMPLE_SIZE, "Abstract", "required n at Delta = 0.01, rho = 0.4 (range high end)", "9,600",
                        lambda: float(required_n_wald(0.42 * 0.6, 0.01)), "p ~ 0.7, rho = 0.4"))
    return rows


def _required_n_verdict(entry: Printed, computed: float) -> tuple[float | None, str, str]:
    number = _printed_number(entry.printed)
    relative = abs(computed - number) / number
    ceiling = float(ceil_sample_size(computed))
    if entry.input_range is not None:
        low, high = (float(ceil_sample_size(value)) for value in sorted(entry.input_range()))
        if low <= number <= high:
            return relative, "agrees", f"ceiling of N* within the rounding of the printed inputs ({low:,.0f} to {high:,.0f})"
        found = f"the printed inputs allow {low:,.0f} to {high:,.0f} (ceiling)"
    elif number == ceiling:
        return relative, "agrees", f"the ceiling of the computed {computed:,.2f}"
    else:
        found = f"the ceiling of the computed {computed:,.2f} is {ceiling:,.0f}"
    if abs(computed / number - 2) < 0.01:
        found += "; the printed value is half the computed one (the factor-of-two pattern)"
    if entry.other_reading is not None:
        found += f"; {entry.other_reading()}"
    return relative, "differs", found


def tighter_than_fixed_n() -> tuple[bool, str]:
    """Whether every other procedure of Table 5 leaves more MMLU-Pro pairs unresolved than fixed-n does."""
    base = TABLE_5_MMLU["fixed-n"]
    same = [name for name, count in TABLE_5_MMLU.items() if name != "fixed-n" and count <= base]
    return not same, (f"Table 5's MMLU-Pro column: {', '.join(f'{k} {v}/9' for k, v in TABLE_5_MMLU.items())}; "
                      f"not tighter than fixed-n: {', '.join(same) or 'none'}")


def holds_claim(paper: str, location: str, claim: str, printed: str, check: Callable[[], tuple[bool, str]], inputs: str,
           value: Callable[[], float] = lambda: math.nan) -> Printed:
    return Printed(paper, location, claim, printed, value, inputs, "holds", check=check)


def missing_claim(paper: str, location: str, claim: str, printed: str, reason: str) -> Printed:
    return Printed(paper, location, claim, printed, lambda: math.nan, "", "not-reproducible", reason=reason)


def verdict_of(entry: Printed, computed: float) -> tuple[float | None, str, str]:
    if entry.kind == "not-reproducible":
        return None, "not reproducible", entry.reason
    if entry.kind == "holds":
        holds, found = entry.check()
        return None, "agrees" if holds else "differs", found
    if entry.kind == "required-n":
        return _required_n_verdict(entry, computed)
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
    if entry.other_reading is not None:
        return relative, "differs", entry.other_reading()
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
