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
from llm_power_verified.contract import COLUMN_SETS, MAX_COUNT, MAX_RESAMPLES, PAIR_COLUMNS
from llm_power_verified.contract.choices import MIN_GAP
from llm_power_verified.contract.views import COLUMN_CHOICES

__all__ = [
    "ALPHA",
    "AUDIT_RESAMPLES",
    "CHECKPOINTS",
    "CORRELATION",
    "COUNT",
    "HORIZON",
    "MAX_AUDIT_RESAMPLES",
    "MIN_EFFECT",
    "MIN_RESAMPLES",
    "POSITIVE",
    "POSITIVE_COUNT",
    "PROBABILITY",
    "RESAMPLES",
    "SEED",
    "SIZE",
    "WIDTH",
    "column_list",
    "number",
    "separated",
    "size_list",
]

#: Digits beyond which a whole number written with an exponent (1e400) is not expanded: it is out of every range.
_DIGITS = 40


def _whole_number(text: str) -> int | None:
    """``text`` as an int when it is one; else None.

    It is one when written plainly (1000) or as an exactly whole number (1e3, 1000.0).
    """
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

    return (
        f"{'(' if low_open or low is None else '['}{show(low, '-inf')}, "
        f"{show(high, 'inf')}{')' if high_open or high is None else ']'}"
    )


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

        # Python's int() and float() also read 1_000 and other scripts' digits (Arabic-Indic, fullwidth); the input
        # files' numbers are refused with them (io.cells), so options are too: one spelling of a number everywhere.
        if not text.isascii() or "_" in text:
            kind = (
                "a whole number in ASCII digits without underscores (1000, 1e3)"
                if integer
                else ("a number in ASCII digits without underscores (0.02, 1e-3)")
            )
            raise argparse.ArgumentTypeError(f"must be {kind}; got {text[:40]!r}")
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

    parse.__doc__ = _TYPE_DOC.format(
        summary=summary,
        kind="a whole number" if integer else "a finite number",
        bounds=_range(integer, **limits),
        type="int" if integer else "float",
    )
    return parse


PROBABILITY = number(
    low=0, high=1, low_open=True, high_open=True, summary="A probability (--alpha, --power, --p-a, --p-b, --quantile)"
)
CORRELATION = number(low=-1, high=1, summary="A correlation (--rho)")
COUNT = number(
    integer=True, low=0, high=MAX_COUNT, summary="A count of items (--b, --c), at most the contract's MAX_COUNT"
)
SIZE = number(integer=True, low=1, high=MAX_COUNT, summary="A number of items (--n), at most the contract's MAX_COUNT")
POSITIVE = number(low=0, low_open=True, summary="A positive number")
SEED = number(integer=True, low=0, high=2**63 - 1, summary="The seed of every resample (--seed)")
# A smallest gap of interest (audit's and plan's --min-effect): scores lie in [0, 1], so a gap of two mean scores is
# below 1.  (A plain comment: number() writes the type's docstring.)
MIN_EFFECT = number(low=MIN_GAP, high=1, high_open=True, summary="A smallest gap of interest (--min-effect)")
#: Resample counts are bounded so that a typo cannot exhaust memory (a bootstrap of B resamples holds B x pairs values).
MAX_AUDIT_RESAMPLES = 100_000
RESAMPLES = number(
    integer=True,
    low=100,
    high=MAX_RESAMPLES,
    summary="The paired test's bootstrap resamples, at most the contract's MAX_RESAMPLES",
)
#: Fewest resamples of a bootstrap interval or percentile (as the paired test's --n-resamples): fewer give an
#: interval from a handful of draws.
MIN_RESAMPLES = 100
_SOME_RESAMPLES = number(integer=True, low=MIN_RESAMPLES, high=MAX_AUDIT_RESAMPLES)


def AUDIT_RESAMPLES(text: str) -> int:
    """An audit's resamples (--n-resamples and the like): 0 (none) or a whole number in [100, 100,000].

    Parameters
    ----------
    text : str
        The option's value, as typed.

    Returns
    -------
    int
        The value, checked.

    Raises
    ------
    argparse.ArgumentTypeError
        Anything else, 1 to 99 included (an interval or a percentile of so few draws means nothing).
    """
    if _whole_number(text) == 0:
        return 0
    try:
        return _SOME_RESAMPLES(text)
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(
            f"must be 0 (none) or {str(error).removeprefix('must be ')}".replace(
                "; got", " (fewer give intervals and percentiles from a handful of draws); got", 1
            )
        ) from None


CHECKPOINTS = number(integer=True, low=1, high=1_000_000, summary="The monitor's checkpoints")
POSITIVE_COUNT = number(integer=True, low=1, high=1024, summary="The local processes of --workers")
WIDTH = number(
    integer=True,
    low=60,
    high=1000,
    summary="--width (a terminal report narrower than 60 columns cannot hold the pair table's names and verdicts)",
)


def _deferred(
    module: str, name: str, make: Callable[[float], Callable[[str], float | int]], doc: str
) -> Callable[[str], float | int]:
    """A type whose limit is ``module.name``, a constant of the numerical code, imported at the first value parsed.

    The command line's range is then the one the computation keeps, stated in one place, and ``--help`` still
    imports no numpy.
    """

    def parse(text: str) -> float | int:
        from importlib import import_module

        return make(getattr(import_module(module), name))(text)

    parse.__doc__ = doc
    return parse


# --alpha: the e-process boundaries divide by alpha^2 (sequential.confidence.MIN_ALPHA), so every command takes
# the same (0, 1) level from that floor on.
ALPHA = _deferred(
    "llm_power_verified.sequential.confidence",
    "MIN_ALPHA",
    lambda floor: number(low=floor, high=1, high_open=True),
    _TYPE_DOC.format(
        summary="The significance level (--alpha)",
        kind="a finite number",
        bounds="[sequential.confidence.MIN_ALPHA = 1e-100, 1)",
        type="float",
    ),
)
# --horizon: above EXACT_HORIZON the stopping N is simulated from SIMULATIONS paths of at most MAX_SIMULATED_STEPS
# steps in all (sequential.stopping), so the longest horizon is MAX_HORIZON.
HORIZON = _deferred(
    "llm_power_verified.sequential.stopping",
    "MAX_HORIZON",
    lambda longest: number(integer=True, low=100, high=longest),
    _TYPE_DOC.format(
        summary="--horizon, the discordant items the monitored test follows",
        kind="a whole number",
        type="int",
        bounds="[100, sequential.stopping.MAX_HORIZON = 2e9 / 4,000 simulated paths]",
    ),
)


@docfill("option_text")
def column_list(text: str) -> list[str]:
    """--columns: comma-separated pair-table column names, and the sets "default" and "all".

    The text view's names (``COLUMN_CHOICES``, table and markdown) or the contract's per-item pair columns and
    ``COLUMN_SETS`` (csv, jsonl, parquet); which apply to the format asked is checked when the format is known.

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
    names = separated(text, "names")
    unknown = [name for name in names if name not in _COLUMN_NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown column {unknown[0][:80]!r}{' (cut at 80 characters)' if len(unknown[0]) > 80 else ''}; choose "
            "from default, all or pair columns (every name in the "
            "documentation's reference/columns; table and markdown take the names --help lists)"
        )
    return names


#: Every name --columns takes: the text view's, the per-item pair columns and the sets.
_COLUMN_NAMES = frozenset(
    (*COLUMN_CHOICES, *COLUMN_SETS, *(item.name for item in PAIR_COLUMNS if item.audits & {"binary", "graded"}))
)


def separated(text: str, what: str) -> list[str]:
    """The comma-separated elements of a list option, each stripped; an empty or repeated element is refused.

    Parameters
    ----------
    text : str
        The option's value, as typed.
    what : str
        What the elements are, for the message ("names", "sizes").

    Returns
    -------
    list of str
        The elements, in the order given.

    Raises
    ------
    argparse.ArgumentTypeError
        An empty element (``"5,,10"``, ``""``, a trailing comma) or one given twice, by its position.

    Examples
    --------
    >>> separated(" delta, rho ", "names")
    ['delta', 'rho']
    >>> separated("delta,,rho", "names")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: element 2 of 'delta,,rho' is empty; give the names separated by single commas
    """
    elements = [element.strip() for element in text.split(",")]
    for position, element in enumerate(elements, 1):
        if not element:
            raise argparse.ArgumentTypeError(
                f"element {position} of {text[:60]!r} is empty; give the {what} separated by single commas"
            )
        if element in elements[: position - 1]:
            raise argparse.ArgumentTypeError(
                f"element {position} ({element[:40]!r}) of {text[:60]!r} repeats element "
                f"{elements.index(element) + 1}; give each once"
            )
    return elements


@docfill("option_text")
def size_list(text: str) -> list[int]:
    """--cluster-sizes: comma-separated whole numbers >= 1, each given once.

    Parameters
    ----------
    %(option_text)s

    Returns
    -------
    list of int
        The sizes, in the order given.

    Raises
    ------
    argparse.ArgumentTypeError
        An empty or repeated element, or one that is not a whole number >= 1, by its position.
    """
    sizes = []
    for position, element in enumerate(separated(text, "sizes"), 1):
        size = _whole_number(element)
        if size is None or not 1 <= size <= MAX_COUNT:
            raise argparse.ArgumentTypeError(
                f"element {position} ({element[:40]!r}) of {text[:60]!r} is not a whole "
                "number >= 1; give cluster sizes separated by commas"
            )
        if size in sizes:
            raise argparse.ArgumentTypeError(
                f"element {position} ({element[:40]!r}) of {text[:60]!r} repeats element "
                f"{sizes.index(size) + 1}; give each size once"
            )
        sizes.append(size)
    return sizes
