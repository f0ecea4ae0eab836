"""The record of one declared column, and the vocabulary its declarations use (audits, kinds, when present).

Paper references are to Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from llm_power_verified.contract.ranges import RANGES

__all__ = ["AUDITS", "KINDS", "WHEN", "Column", "declare"]

#: The audits: per-item 0/1 scores, per-item graded scores, printed accuracies only.
AUDITS = ("binary", "graded", "accuracies")
#: ``decision``: a bool that is None (JSON null) outside the declared family; ``verdict``: text from VERDICT_KINDS;
#: ``rank-bound``: an integer rank, None (JSON null) where it was not computed (a linear mode above 2,000 models).
KINDS = ("text", "int", "float", "bool", "decision", "verdict", "rank-bound")
#: When a column is present (None: always, in the audits that have it).
WHEN = {
    "bootstrap": "with paired-bootstrap resamples (n_resamples > 0)",
    "clusters": "when the items have clusters",
    "cluster-bootstrap": "with clusters and cluster-bootstrap resamples (n_cluster_resamples > 0)",
    "assumption": "with an assumed correlation (--rho or --rho-range)",
    "rank-bootstrap": "with rank-bootstrap resamples (n_rank_resamples > 0)",
    "tiers": "when the adjacent pairs are reported (not --mode reference)",
    "text-tables": "in the text tables only, when the model names are long",
    "min-effect": "when a smallest gap of interest is given (--min-effect DELTA)",
    "generations": "when each item has several generations (--repeat-column, --repeat-pattern, --epochs all)",
}


@dataclass(frozen=True)
class Column:
    """One declared column of a pair or model table.

    Attributes
    ----------
    name : str
        The column's name in every format (CSV header, JSON key, DataFrame column).
    meaning : str
        Its legend text.
    kind : {"text", "int", "float", "bool", "decision", "verdict", "rank-bound"}
        The type (``KINDS``): a ``decision`` is a bool that is None outside the declared family, a ``verdict`` a
        text drawn from ``VERDICT_KINDS``, a ``rank-bound`` an integer rank or None where not computed.
    digits : int or None
        Significant digits in the text tables; None for a column that is not a number.
    audits : frozenset of str
        The audits that have it, a subset of ``AUDITS``.
    when : str or None
        When it is present (a key of ``WHEN``); None: always, in those audits.
    header : str
        Its label in the text tables.
    range : tuple or None
        (low, high), inclusive, None for an open end, of a numeric column that has one (``ranges.RANGES``); None:
        unbounded, or not a number.
    default : bool
        In the default set of the per-item pair table's machine formats (``--columns default``, Parquet's default):
        the columns a reader of the pair table needs, the rest on request.
    """

    name: str
    meaning: str
    kind: str
    digits: int | None
    audits: frozenset[str]
    when: str | None
    header: str
    range: tuple[float | None, float | None] | None = None
    default: bool = False


def declare(audits: str, kind: str, entries: Iterable[tuple], when: str | None = None) -> tuple[Column, ...]:
    """Columns from (name, meaning[, digits[, header]]) entries; audits as letters: b(inary), g(raded), a(ccuracies).

    Parameters
    ----------
    audits : str
        The audits that have the columns, as letters: ``"bg"`` for both per-item audits, ``"bga"`` for all three.
    kind : str
        One of ``KINDS``.
    entries : iterable of tuple
        (name, meaning), optionally followed by the digits and the text tables' header.
    when : str, optional
        A key of ``WHEN``; None: always present in those audits.

    Returns
    -------
    tuple of Column
        One column per entry, with its range from ``ranges.RANGES``.
    """
    chosen = frozenset(name for name in AUDITS if name[0] in audits)
    made = []
    for name, meaning, *rest in entries:
        digits = rest[0] if rest else (4 if kind in ("int", "float") else None)
        header = rest[1] if len(rest) > 1 else name.replace("_", " ")
        made.append(Column(name, meaning, kind, digits, chosen, when, header, RANGES.get(name)))
    return tuple(made)
