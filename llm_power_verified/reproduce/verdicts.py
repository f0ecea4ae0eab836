"""The verdict rules of the reproduction report: whether a printed value follows from its stated inputs.

Every printed value is stored as data (:class:`~.records.Printed`) with its
location in the paper, the quantity, the printed text and the inputs the paper
states; the claims registers add the sentences that state a number, a count, a
bound or a direction.  :func:`~.run.reproduce` recomputes each one with this
package and :func:`verdict_of` gives one of three verdicts, by one rule per kind
of printed quantity:

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
from decimal import Decimal

from llm_power_verified.power import ceil_sample_size, required_n_from_counts
from llm_power_verified.reproduce.records import Printed

__all__ = ["half_unit", "one_fewer_range", "printed_number", "verdict_of"]


def _clean(text: str) -> tuple[str, float]:
    cleaned = text.replace(",", "").replace("<", "").replace(">", "").replace("~", "").replace("%", "").strip()
    if cleaned.endswith("M"):
        return cleaned[:-1], 1e6
    return cleaned, 1.0


def half_unit(text: str) -> float:
    """Half a unit in the last printed digit of a number like '1,028', '0.43', '31.4M' or '9.9e-14'.

    Parameters
    ----------
    text : str
        The printed number (thousands commas, a leading "~", "<" or ">", a trailing "%" or "M" allowed).

    Returns
    -------
    float
        Half a unit of its last digit, in the number's own scale ("M": millions).

    Examples
    --------
    >>> from llm_power_verified.reproduce.verdicts import half_unit
    >>> half_unit("1,028"), half_unit("0.43"), half_unit("31.4M")
    (0.5, 0.005, 50000.0)
    """
    cleaned, scale = _clean(text)
    exponent = Decimal(cleaned).as_tuple().exponent
    return 0.5 * 10.0**exponent * scale


def printed_number(text: str) -> float:
    """The printed text as a number ('1,028' is 1028.0, '31.4M' is 31.4e6, '~0.43' is 0.43).

    Parameters
    ----------
    text : str
        The printed number, as for :func:`half_unit`.

    Returns
    -------
    float
        Its value ("%" is dropped, not divided by 100).

    Examples
    --------
    >>> from llm_power_verified.reproduce.verdicts import printed_number
    >>> printed_number("1,028"), printed_number("31.4M"), printed_number("~0.43")
    (1028.0, 31400000.0, 0.43)
    """
    cleaned, scale = _clean(text)
    return float(cleaned) * scale


def _required_n_verdict(entry: Printed, computed: float) -> tuple[float | None, str, str]:
    number = printed_number(entry.printed)
    relative = abs(computed - number) / number
    ceiling = float(ceil_sample_size(computed))
    if entry.input_range is not None:
        low, high = (float(ceil_sample_size(value)) for value in sorted(entry.input_range()))
        if low <= number <= high:
            return (
                relative,
                "agrees",
                f"ceiling of N* within the rounding of the printed inputs ({low:,.0f} to {high:,.0f})",
            )
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


def verdict_of(entry: Printed, computed: float) -> tuple[float | None, str, str]:
    """(relative difference or None, verdict, reason) of one printed value against its computed value.

    Parameters
    ----------
    entry : Printed
        The printed value, with its kind.
    computed : float
        The value recomputed from its stated inputs.

    Returns
    -------
    tuple of (float or None, str, str)
        The relative difference (None for claims, ranges and values not reproducible), the verdict ("agrees",
        "differs" or "not reproducible") and its reason.
    """
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
        return (
            None,
            "agrees" if inside else "differs",
            f"computed {computed:.4g} {'inside' if inside else 'outside'} the printed range [{low:g}, {high:g}]",
        )
    number = printed_number(entry.printed)
    relative = abs(computed - number) / abs(number) if number else None
    if entry.kind == "monte-carlo":
        tolerance = entry.tolerance() if callable(entry.tolerance) else float(entry.tolerance)
        if abs(computed - number) <= tolerance + half_unit(entry.printed):
            return relative, "agrees", f"within Monte Carlo error (3 SE = {tolerance:.3g}, plus printed rounding)"
        return relative, "differs", f"beyond 3 Monte Carlo SE ({tolerance:.3g}) of the computed value"
    if entry.kind == "upper-bound":
        if computed <= number:
            return relative, "agrees", f"bound holds: computed {computed:.4g} <= {entry.printed}"
        if computed <= number + half_unit(entry.printed):
            return (
                relative,
                "agrees",
                f"bound holds only within the printed rounding: computed {computed:.4g} vs {entry.printed}",
            )
        return relative, "differs", f"printed bound {entry.printed} fails: computed {computed:.4g}"
    if entry.kind == "lower-bound":
        if computed >= number:
            return relative, "agrees", f"bound holds: computed {computed:.4g} >= {entry.printed}"
        if computed >= number - half_unit(entry.printed):
            return (
                relative,
                "agrees",
                f"bound holds only within the printed rounding: computed {computed:.4g} vs {entry.printed}",
            )
        return relative, "differs", f"printed bound {entry.printed} fails: computed {computed:.4g}"
    if abs(computed - number) <= half_unit(entry.printed) * (1 + 1e-9):
        return relative, "agrees", "rounds to the printed digits"
    if entry.printed.startswith("~") and abs(computed - number) <= 2 * half_unit(entry.printed) * (1 + 1e-9):
        return relative, "agrees", "printed as approximate: within one unit of its last digit"
    if entry.input_range is not None:
        low, high = sorted(entry.input_range())
        if low - half_unit(entry.printed) <= number <= high + half_unit(entry.printed):
            return relative, "agrees", f"within the rounding of the printed inputs (range {low:.4g} to {high:.4g})"
        return (
            relative,
            "differs",
            f"outside the range {low:.4g} to {high:.4g} allowed by the rounding of the printed inputs",
        )
    if entry.other_reading is not None:
        return relative, "differs", entry.other_reading()
    ratio = computed / number if number else math.inf
    if number and abs(ratio - 2) < 0.01:
        return relative, "differs", "printed value is half the computed one (the factor-of-two pattern)"
    if relative is not None and relative < 0.002:
        return relative, "differs", "within 0.2%: the paper likely computed from rounded inputs"
    return relative, "differs", "does not follow from the stated inputs"


def one_fewer_range(row: dict, effects) -> str:
    """Table 7's N* with N - 1 items times a range of design effects: what Tables 4 and 9 then allow.

    Parameters
    ----------
    row : dict
        A row of Table 7 (keys "b", "c" and "n").
    effects : iterable of float
        The design effects; their smallest and largest give the range.

    Returns
    -------
    str
        The sentence the report shows, naming N - 1 and the range of the ceilings.

    Examples
    --------
    >>> from llm_power_verified.reproduce.resolution_diagnostics import table_7_rows
    >>> from llm_power_verified.reproduce.verdicts import one_fewer_range
    >>> one_fewer_range(table_7_rows()[0][0], (1.0, 1.37))
    "with N = 12,031 (as Table 7's N* needs) the range is 1,697 to 2,325"
    """
    base = float(required_n_from_counts(row["b"], row["c"], row["n"] - 1))
    low, high = (float(ceil_sample_size(base * float(e))) for e in sorted(float(e) for e in effects))
    return f"with N = {row['n'] - 1:,} (as Table 7's N* needs) the range is {low:,.0f} to {high:,.0f}"
