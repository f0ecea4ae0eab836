"""The text cell of a pair-table column, by the contract's kind and digits: one rule for every audit and text format.

A declared column prints by its :class:`~llm_power_verified.contract.columns.Column`:
``bool`` and ``decision`` as yes/no ("-" when undefined), ``int`` with
thousands separators, numbers at the column's significant digits
(:func:`fmt`), text as it is.  A composite (two columns in one cell) prints
as an interval "[low, high]", except the two accuracies-only composites,
whose forms are below.  Before any format sees an accuracies-only pair table,
:func:`reported_pairs` blanks a critical correlation that lies outside the
admissible interval (printed "none", null in JSON).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from llm_power_verified._validation import ceil_sample_size
from llm_power_verified.contract import COMPOSITES, column

__all__ = ["CRITICAL", "cell", "fmt", "is_item_count", "item_count", "plural", "reported_pairs"]

#: The critical correlations: reported only inside the admissible interval [rho_min, rho_max], "none" outside it.
CRITICAL = ("rho_critical", "rho_critical_family")


def fmt(value, digits: int = 4) -> str:
    """A number for the text tables.

    Parameters
    ----------
    value : object
        A number, a bool, None or NaN (printed "-"), or anything else (printed with ``str``).
    digits : int, default 4
        Significant digits of a float.

    Returns
    -------
    str
        Floats to ``digits`` significant digits, with thousands separators from 100, scientific below 1e-3 and from 1e6;
        integers with thousands separators; bools "yes"/"no"; infinity "inf".

    Examples
    --------
    >>> fmt(0.123456), fmt(12345.6), fmt(2.5e-5), fmt(float("nan")), fmt(True)
    ('0.1235', '12,346', '2.500e-05', '-', 'yes')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, float):
        if math.isinf(value):
            return "inf"
        if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
            return f"{value:.{digits - 1}e}"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    return str(value)


def item_count(value) -> str:
    """A required sample size as the items it takes: its ceiling, whole, with thousands separators.

    A required N is an item count: 1,342.16 needs 1,343 items, so a text table prints 1,343 (the headline's and
    ``plan``'s figure), never the nearest integer 1,342.

    Parameters
    ----------
    value : object
        N* (unrounded), None or NaN (printed "-"), or infinity (printed "inf").

    Returns
    -------
    str
        The ceiling (``ceil_sample_size`` of ``llm_power_verified._validation``) with thousands separators.

    Examples
    --------
    >>> item_count(1342.158), item_count(23.08), item_count(2727353.2), item_count(float("inf")), item_count(None)
    ('1,343', '24', '2,727,354', 'inf', '-')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    number = float(value)
    if math.isnan(number):
        return "-"
    return "inf" if math.isinf(number) else f"{int(ceil_sample_size(number)):,}"


def is_item_count(name: str) -> bool:
    """Whether a pair-table column is a required sample size (printed by :func:`item_count`): N*, N_av and the like.

    Parameters
    ----------
    name : str
        A pair-table column's name.

    Returns
    -------
    bool
        True for ``required_n`` and its variants, ``shortcut_n`` and ``unpaired_n``.
    """
    return name.startswith("required_n") or name in ("shortcut_n", "unpaired_n")


def plural(count: int, noun: str) -> str:
    """A count with its noun in the right number: "1 pair", "9 pairs" (nouns whose plural adds an s).

    Parameters
    ----------
    count : int
        How many.
    noun : str
        The noun in the singular.

    Returns
    -------
    str
        The count with thousands separators, then the noun, with an s unless the count is 1.
    """
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


#: Composites printed otherwise than "[low, high]": the admissible interval at 3 decimals, and N* over it as a range.
_COMPOSITE_FORMS = {
    "rho_interval": lambda row, low, high: f"[{row[low]:.3f}, {row[high]:.3f}]",
    "required_n_range": lambda row, low, high: f"{item_count(row[low])} to {item_count(row[high])}",
}


def cell(row: pd.Series, name: str) -> str:
    """The text of one column (or composite) in a row of a pair table.

    Parameters
    ----------
    row : pandas.Series
        A row of a pair table.
    name : str
        A declared column or a composite (``contract.COMPOSITES``).

    Returns
    -------
    str
        By the contract's kind and digits: bools and decisions "yes"/"no" ("-" when undefined), a critical correlation
        that is undefined "none", a composite "[low, high]" (or its own form).

    Examples
    --------
    >>> import pandas as pd
    >>> row = pd.Series({"q": 0.12345, "resolved": False, "boot_ci_low": -0.01, "boot_ci_high": 0.05})
    >>> cell(row, "q"), cell(row, "resolved"), cell(row, "boot_ci")
    ('0.123', 'no', '[-0.01, 0.05]')
    """
    ranged = _over_the_counts(row, name)
    if ranged is not None:
        return ranged
    if name in COMPOSITES:
        low, high = COMPOSITES[name].parts
        if name in _COMPOSITE_FORMS:
            return _COMPOSITE_FORMS[name](row, low, high)
        return f"[{cell(row, low)}, {cell(row, high)}]"
    declared = column(name)
    value = row.get(name)
    undefined = value is None or (isinstance(value, float) and math.isnan(value))
    if declared.kind in ("bool", "decision"):
        return "-" if undefined else ("yes" if value else "no")
    if name in CRITICAL and undefined:
        return "none"
    if declared.kind == "rank-bound" and (value is None or value is pd.NA):
        return "n/a"
    if declared.kind in ("int", "rank-bound"):
        return fmt(int(value))
    if is_item_count(name):
        return item_count(value)
    if name == "mde" and not value > 0:  # a plug-in variance of 0 (a constant difference): no MDE to state
        return "n/a"
    return fmt(value, declared.digits or 4)


#: Accuracies only: the cells shown as their range over the counts the printed digits allow (the columns of each).
_RANGED = {
    "rho_critical": ("rho_critical_low", "rho_critical_high"),
    "agreement_critical": ("agreement_critical_low", "agreement_critical_high"),
    "required_n_range": ("required_n_best", "required_n_worst"),
}


def _over_the_counts(row, name: str) -> str | None:
    """rho_c, the agreement share or N* of an accuracies pair over the counts its printed digits allow, or None.

    At the printed values alone a pair may have no rho_c ("none") or N* inf to inf (a printed tie) while another
    allowed pair of counts resolves it; its verdict is then "depends on rho", and the cell shows the range over the
    allowed counts.  rho_c and the agreement share show their range whenever it is wider than one value; N* (printed
    at the two ends of rho) only when the rounding can change the verdict.
    """
    if name not in _RANGED or (name == "required_n_range" and row.get("rounding") != "depends on the printed digits"):
        return None
    low, high = (row.get(part) for part in _RANGED[name])
    if low is None or high is None or math.isnan(float(low)) or math.isnan(float(high)):
        return None
    if name == "required_n_range":
        return f"{item_count(low)} to {item_count(high)} (counts)"
    digits = column(_RANGED[name][0]).digits or 4
    if fmt(low, digits) == fmt(high, digits):
        return None
    return f"[{fmt(low, digits)}, {fmt(high, digits)}]"


def reported_pairs(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pair table as every format reports it.

    A critical correlation outside [rho_min, rho_max] (rho_c = -33 for a gap resolved at every admissible rho, inf for a
    zero gap) is not a correlation the pair can have: it is reported as none (NaN: null in JSON, empty in CSV, "none" in
    the text formats); the verdict beside it says which way it lies.

    Parameters
    ----------
    pairs : pandas.DataFrame
        A pair table.

    Returns
    -------
    pandas.DataFrame
        A copy with the critical correlations outside the interval set to NaN; a table without them (a per-item audit)
        is returned as it is.
    """
    present = [name for name in CRITICAL if name in pairs]
    if not present:
        return pairs
    pairs = pairs.copy()
    low, high = pairs["rho_min"].to_numpy(), pairs["rho_max"].to_numpy()
    for name in present:
        value = pairs[name].to_numpy(dtype=float)
        pairs[name] = np.where((value >= low) & (value <= high), value, np.nan)
    return pairs
