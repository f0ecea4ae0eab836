"""Every column of the audits' pair and model tables, declared once: name, meaning, kind, digits, audits, when present.

``PAIR_COLUMNS`` (the per-item audits' columns of :mod:`.item_pair_columns`, then the accuracies-only
audit's of :mod:`.accuracy_pair_columns`) is in machine-format order (the CSV/JSON column order);
each audit's pair table holds the subsequence :func:`pair_columns` gives.
The legend (:func:`legend`), the JSON schemas and ``columns.rst``
(:mod:`llm_power_verified.report.schemas`) are read or generated from these
declarations.  Paper references are to Resolution Diagnostics for Paired LLM
Evaluation (arXiv 2605.30315).
"""

from __future__ import annotations

from collections.abc import Iterable

from llm_power_verified.contract.accuracy_pair_columns import ACCURACY_PAIR_COLUMNS
from llm_power_verified.contract.column_record import AUDITS, KINDS, WHEN, Column, declare
from llm_power_verified.contract.generation_columns import GENERATION_MODEL_COLUMNS
from llm_power_verified.contract.item_pair_columns import ITEM_PAIR_COLUMNS

__all__ = [
    "AUDITS",
    "COLUMN_SETS",
    "KINDS",
    "MODEL_COLUMNS",
    "PAIR_COLUMNS",
    "WHEN",
    "Column",
    "column",
    "legend",
    "model_columns",
    "ordered",
    "pair_columns",
]

#: Every pair column, in machine-format order.
PAIR_COLUMNS: tuple[Column, ...] = ITEM_PAIR_COLUMNS + ACCURACY_PAIR_COLUMNS
#: The sets a request of pair columns (``--columns``) may name besides columns: the default set (the columns whose
#: ``default`` is true) and every column of the audit.
COLUMN_SETS = ("default", "all")

MODEL_COLUMNS: tuple[Column, ...] = (
    *declare("bga", "int", [("rank", "position by mean score; equal means are ordered by name")]),
    *declare("bg", "text", [("key", "short name used in the pair table when the names are long")], when="text-tables"),
    *declare("bga", "text", [("model", "model name")]),
    *declare(
        "bg",
        "float",
        [
            ("mean_score", "accuracy (mean score) over the N items", 4, "mean score"),
            (
                "ci_low",
                "interval of the mean score at 1 - alpha (Wilson for 0/1 scores, Student t for graded), low end",
            ),
            ("ci_high", "high end"),
        ],
    ),
    *declare(
        "bg",
        "rank-bound",
        [
            ("rank_low", "best rank consistent with the data: 1 + models significantly better (Holm over all pairs)"),
            ("rank_high", "worst rank: the number of models minus those significantly worse (Holm over all pairs)"),
        ],
    ),
    *declare(
        "bg", "text", [("letters", "models sharing a letter are not significantly different (Holm over all pairs)")]
    ),
    *declare(
        "bg",
        "int",
        [
            (
                "rank_boot_low",
                "bootstrap rank interval (items resampled), alpha/2 quantile of the rank; no family-wise guarantee",
            ),
            ("rank_boot_high", "its 1 - alpha/2 quantile"),
        ],
        when="rank-bootstrap",
    ),
    *declare(
        "bg",
        "int",
        [("tier", "adjacent-break tier (secondary view): a new tier after each resolved adjacent pair; it chains")],
        when="tiers",
    ),
    *GENERATION_MODEL_COLUMNS,
    *declare("a", "float", [("accuracy", "the printed accuracy as a fraction, whatever the scale it was read on", 6)]),
    *declare("a", "text", [("printed", "the accuracy as the input printed it")]),
    *declare(
        "a",
        "int",
        [
            (
                "count_low",
                "fewest correct items k (of N) with k / N rounding to the printed accuracy at its printed digits",
            ),
            ("count_high", "most such k; none when count_low > count_high (the accuracy and N do not belong together)"),
        ],
    ),
    *declare("a", "bool", [("consistent", "some whole count k out of N rounds to the printed accuracy")]),
    *declare("a", "int", [("line", "the input line the model was read from")]),
)

_BY_NAME = {item.name: item for item in PAIR_COLUMNS + MODEL_COLUMNS}
_ORDER = {item.name: position for position, item in enumerate(PAIR_COLUMNS + MODEL_COLUMNS)}


def column(name: str) -> Column:
    """The declaration of a pair or model column.

    Parameters
    ----------
    name : str
        A declared column name.

    Returns
    -------
    Column
        Its declaration.

    Raises
    ------
    ValueError
        When ``name`` is not declared.

    Examples
    --------
    >>> entry = column("q")
    >>> entry.kind, entry.digits, sorted(entry.audits)
    ('float', 3, ['binary', 'graded'])
    """
    if name not in _BY_NAME:
        raise ValueError(f"column {name!r} is not declared in llm_power_verified/contract/columns.py")
    return _BY_NAME[name]


def pair_columns(audit_kind: str) -> tuple[Column, ...]:
    """The pair columns an audit of one kind can have, in machine-format order.

    Parameters
    ----------
    audit_kind : {"binary", "graded", "accuracies"}
        The audit: per-item 0/1 scores, per-item graded scores, or printed accuracies only.

    Returns
    -------
    tuple of Column
        Its pair columns, in the CSV/JSON column order (some present only ``when`` their condition holds).

    Raises
    ------
    ValueError
        When ``audit_kind`` is not one of ``AUDITS``.

    Examples
    --------
    >>> [entry.name for entry in pair_columns("accuracies")][:6]
    ['model_a', 'model_b', 'rank_a', 'rank_b', 'adjacent', 'delta']
    """
    if audit_kind not in AUDITS:
        raise ValueError(f"audit_kind must be one of {AUDITS}; got {audit_kind!r}")
    return tuple(item for item in PAIR_COLUMNS if audit_kind in item.audits)


def model_columns(audit_kind: str) -> tuple[Column, ...]:
    """The model-table columns of an audit of one kind, in machine-format order.

    Parameters
    ----------
    audit_kind : {"binary", "graded", "accuracies"}
        The audit kind, as in :func:`pair_columns`.

    Returns
    -------
    tuple of Column
        Its model columns.

    Raises
    ------
    ValueError
        When ``audit_kind`` is not one of ``AUDITS``.

    Examples
    --------
    >>> [entry.name for entry in model_columns("binary")][:3]
    ['rank', 'key', 'model']
    """
    if audit_kind not in AUDITS:
        raise ValueError(f"audit_kind must be one of {AUDITS}; got {audit_kind!r}")
    return tuple(item for item in MODEL_COLUMNS if audit_kind in item.audits)


def ordered(names: Iterable[str]) -> list[str]:
    """Column names in contract order (pair columns first, then model columns).

    Parameters
    ----------
    names : iterable of str
        Declared column names, in any order.

    Returns
    -------
    list of str
        The same names in the order of ``PAIR_COLUMNS`` then ``MODEL_COLUMNS``.

    Raises
    ------
    ValueError
        When a name is not declared.

    Examples
    --------
    >>> ordered(["q", "delta", "model_a"])
    ['model_a', 'delta', 'q']
    """
    return sorted(names, key=lambda name: _ORDER[column(name).name])


def legend(names: Iterable[str]) -> dict[str, str]:
    """The legend of some columns: name -> meaning, in the order given.

    Parameters
    ----------
    names : iterable of str
        Declared column names.

    Returns
    -------
    dict of str to str
        Each name's meaning (``Column.meaning``).

    Raises
    ------
    ValueError
        When a name is not declared.

    Examples
    --------
    >>> list(legend(["rank_b", "rank_a"]))
    ['rank_b', 'rank_a']
    """
    return {name: column(name).meaning for name in names}
