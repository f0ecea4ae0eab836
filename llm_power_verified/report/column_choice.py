"""The pair columns a machine format writes: every column, the contract's default set, or a list (``--columns``).

A request is None or ``"all"`` (every column of the audit's pair table), ``"default"`` (the columns the contract
marks ``default``: ``DEFAULT_PAIR_NAMES`` in ``llm_power_verified/contract/item_pair_columns.py``), or a list of column
names and those two words (``["default", "icc"]``).  The columns written keep the pair table's (the contract's)
order whatever the order asked, so that two files of one audit have the same schema for the same request.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from llm_power_verified.contract import COLUMN_SETS, PAIR_COLUMNS, WHEN
from llm_power_verified.errors import ArgumentError

__all__ = ["chosen_columns", "requested_names"]

_DECLARED = {item.name: item for item in PAIR_COLUMNS}
#: Where every column name is listed, for a refusal.
_WHERE = "default, all, or pair columns listed in the documentation's reference/columns"


def requested_names(columns: str | Iterable[str] | None) -> list[str] | None:
    """A request as a list of names and sets, checked against the contract; None for every column.

    Parameters
    ----------
    columns : str, iterable of str or None
        ``"all"``, ``"default"``, one column name, or a list of them; None: every column.

    Returns
    -------
    list of str or None
        The names asked for, in the order given; None when every column is asked for.

    Raises
    ------
    ArgumentError
        A name that is neither a declared pair column nor one of ``COLUMN_SETS``, or an empty request.

    Examples
    --------
    >>> requested_names("default,icc".split(","))
    ['default', 'icc']
    >>> requested_names(["default", "all"]) is None
    True
    """
    if columns is None:
        return None
    names = [columns] if isinstance(columns, str) else [str(name) for name in columns]
    if not names:
        raise ArgumentError(f"--columns: no column given; give {_WHERE}")
    unknown = [name for name in names if name not in _DECLARED and name not in COLUMN_SETS]
    if unknown:
        raise ArgumentError(f"--columns {unknown[0]}: not a pair column; give {_WHERE}")
    return None if "all" in names else names


def _absent(name: str, kind: str | None) -> str:
    """Why a declared column is not in this pair table: its condition, or the audits that have it."""
    item = _DECLARED[name]
    if item.when is not None and (kind is None or kind in item.audits):
        return f"present {WHEN[item.when]}"
    audits = sorted(item.audits - {"accuracies"}) or sorted(item.audits)
    return f"a column of the {' and '.join(audits)} audit{'s' if len(audits) > 1 else ''}"


def chosen_columns(present: Sequence[str], columns, kind: str | None = None) -> list[str]:
    """The columns of a pair table to write: those of ``present`` that the request ``columns`` asks for.

    Parameters
    ----------
    present : sequence of str
        The pair table's columns, in order.
    columns : str, iterable of str or None
        The request (:func:`requested_names`).
    kind : {"binary", "graded", "accuracies"}, optional
        The audit, for the refusal of a column it never has.

    Returns
    -------
    list of str
        The columns written, in the order of ``present``; ``model_a`` and ``model_b`` always (they name the pair).

    Raises
    ------
    ArgumentError
        As :func:`requested_names`, and a column named that this table does not have (saying when it is present).

    Examples
    --------
    >>> chosen_columns(["model_a", "model_b", "delta", "p_holm", "q"], ["q", "default"])
    ['model_a', 'model_b', 'delta', 'q']
    >>> chosen_columns(["model_a", "model_b", "delta", "p_holm", "q"], ["q"])  # the pair's names always
    ['model_a', 'model_b', 'q']
    """
    names = requested_names(columns)
    if names is None:
        return list(present)
    missing = [name for name in names if name not in COLUMN_SETS and name not in present]
    if missing:
        raise ArgumentError(
            f"--columns {missing[0]}: not in this audit's pair table ({_absent(missing[0], kind)}); give {_WHERE}"
        )
    # A row names its pair whatever is chosen: without the models a row of numbers identifies nothing.
    wanted = set(names) | {"model_a", "model_b"}
    default = "default" in wanted
    return [name for name in present if name in wanted or (default and name in _DECLARED and _DECLARED[name].default)]
