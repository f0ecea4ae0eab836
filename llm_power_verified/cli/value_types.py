"""The value types of the command line's options: each parses the text and makes the one range check before any work.

A refusal is an ``argparse.ArgumentTypeError``, which argparse prints in one line after the option's name
(``argument --n: must be a whole number in [1, 1,000,000,000]; got '1.5'``).  Nothing here imports numpy at import
time: ``--help`` pays only for argparse.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from llm_power_verified._docstrings import docfill
from llm_power_verified.contract import MAX_COUNT, MAX_RESAMPLES
from llm_power_verified.contract.views import COLUMN_CHOICES

__all__ = ["AUDIT_RESAMPLES", "CHECKPOINTS", "CORRELATION", "COUNT", "HORIZON", "MAX_AUDIT_RESAMPLES", "POSITIVE",
           "POSITIVE_COUNT", "PROBABILITY", "RESAMPLES", "SEED", "SIZE", "WIDTH", "column_list", "number", "output_path"]

#: Digits beyond which a whole number written with an exponent (1e400) is not expanded: it is out of every range.
_DIGITS = 40


def _whole_number(text: str) -> int | None:
    """``text`` as an int when it is one, written plainly (1000) or as an exactly whole number (1e3, 1000.0); else None."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    if not value.is_finite() or value != value.to_integral_value() or value.adjusted() > _DIGITS:
        return None
    return int(value)


def _range(integer: bool, low=None, high=None, low_open: bool = False, high_open: bool = False) -> str:
    """The range of :func:`number`'s limits as its docstring shows it, "[1, 1,000]" or "(0, 1)"."""
    def show(bound, infinite: str) -> str:
        return infinite if bound is None else f"{bound:,}" if integer else f"{bound:g}"

    return (f"{'(' if low_open or low is None else '['}{show(low, '-inf')}, "
            f"{show(high, 'inf')}{')' if high_open or high is None else ']'}")


_TYPE_DOC = """{summary}: {kind} in {bounds}.

Parameters
----------
text : str
    The option's value, as typed.

Returns
-------
{type}
    The value, checked.

Raises
------
argparse.ArgumentTypeError
    Anything else, with the value and the range (argparse names the option).
"""


def number(*, integer: bool = False, summary: str = "A number", **limits) -> Callable[[str], float | int]:
    """An option's number type: parse the text, then the one range check (finite, within ``limits``).

    Parameters
    ----------
    integer : bool, default False
        True: a whole number, written plainly (1000) or as an exactly whole number (1e3, 1000.0); 1.5, 1e400, nan
        and inf are refused with the allowed range.  False: any finite number.
    summary : str, default "A number"
        What the value is, for the type's docstring ("A probability (--alpha, --power)").
    **limits
        The range, as ``llm_power_verified._validation.check_scalar`` takes it: ``low``, ``high``, ``low_open``,
        ``high_open``.

    Returns
    -------
    callable
        The argparse ``type``: text -> int (``integer``) or float.  It raises ``argparse.ArgumentTypeError`` with
        the value and what is allowed; argparse names the option.

    Examples
    --------
    >>> size = number(integer=True, low=1, high=1000)
    >>> size("1e3"), size("20.0")
    (1000, 20)
    >>> size("1.5")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be a whole number in [1, 1,000]; got '1.5'
    """

    def parse(text: str) -> float | int:
        # Lazy: _validation imports numpy (0.1 s), which `--help` does not need.
        from llm_power_verified._validation import check_scalar

        if integer:
            value = _whole_number(text)
            # Not a whole number: nan is refused by the range check for any range, and the message then shows the text.
            shown = None if value is not None and text.strip().lstrip("+-").isdigit() else repr(text[:40])
            value = math.nan if value is None else value
        else:
            try:
                value, shown = float(text), None
            except ValueError:
                raise argparse.ArgumentTypeError(f"must be a number; got {text[:40]!r}") from None
        try:
            return check_scalar("value", value, integer=integer, **limits)
        except ValueError as error:
            message = str(error).removeprefix("value ")
            if shown is not None:
                message = f"{message.rpartition('; got ')[0]}; got {shown}"
            raise argparse.ArgumentTypeError(message) from None

    parse.__doc__ = _TYPE_DOC.format(summary=summary, kind="a whole number" if integer else "a finite number",
                                     bounds=_range(integer, **limits), type="int" if integer else "float")
    return parse


PROBABILITY = number(low=0, high=1, low_open=True, high_open=True,
                     summary="A probability (--alpha, --power, --p-a, --p-b, --quantile)")
CORRELATION = number(low=-1, high=1, summary="A correlation (--rho)")
COUNT = number(integer=True, low=0, high=MAX_COUNT, summary="A count of items (--b, --c), at most the contract's MAX_COUNT")
SIZE = number(integer=True, low=1, high=MAX_COUNT, summary="A number of items (--n), at most the contract's MAX_COUNT")
POSITIVE = number(low=0, low_open=True, summary="A positive number")
SEED = number(integer=True, low=0, high=2**63 - 1, summary="The seed of every resample (--seed)")
#: Resample counts are bounded so that a typo cannot exhaust memory (a bootstrap of B resamples holds B x pairs values).
MAX_AUDIT_RESAMPLES = 100_000
RESAMPLES = number(integer=True, low=100, high=MAX_RESAMPLES,
                   summary="The paired test's bootstrap resamples, at most the contract's MAX_RESAMPLES")
AUDIT_RESAMPLES = number(integer=True, low=0, high=MAX_AUDIT_RESAMPLES,
                         summary="An audit's resamples (--n-resamples and the like; 0 skips them)")
CHECKPOINTS = number(integer=True, low=1, high=1_000_000, summary="The monitor's checkpoints")
POSITIVE_COUNT = number(integer=True, low=1, high=1024, summary="The local processes of --workers")
WIDTH = number(integer=True, low=60, high=1000,
               summary="--width (a terminal report narrower than 60 columns cannot hold the pair table's names and "
                       "verdicts)")
HORIZON = number(integer=True, low=100, high=50_000_000, summary="--horizon, the discordant items the monitored test follows")


@docfill("option_text")
def column_list(text: str) -> list[str]:
    """--columns: comma-separated pair-table column names.

    Parameters
    ----------
    %(option_text)s

    Returns
    -------
    list of str
        The names, in the order given.

    Raises
    ------
    argparse.ArgumentTypeError
        For an unknown name, or none.
    """
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in COLUMN_CHOICES]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"unknown column {(unknown or [text])[0]!r}; choose from {', '.join(COLUMN_CHOICES)}")
    return names


@docfill("option_text")
def output_path(text: str) -> str:
    """--out, --plot: the path of an output, not empty.

    Its other rules are checked before any work, by :func:`~llm_power_verified.io.output_paths.check_outputs`.

    Parameters
    ----------
    %(option_text)s

    Returns
    -------
    str
        The value as given.

    Raises
    ------
    argparse.ArgumentTypeError
        For an empty value.
    """
    if not text:
        raise argparse.ArgumentTypeError("must be a path (a file name, or a folder where the option takes one); "
                                         "got an empty value ''")
    return text
