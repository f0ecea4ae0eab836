"""The records of the reproduction report: the papers, a printed value with its stated inputs, a report row.

A printed value (:class:`Printed`) is stored as data: the paper, its location
there, the quantity, the printed text, the inputs the paper states and how to
recompute it; :mod:`.verdicts` judges it and :mod:`.run` turns it into a
:class:`ReproductionRow`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from llm_power_verified.results import Result

__all__ = [
    "EMBEDDING",
    "MAIN",
    "PAPERS",
    "SAMPLE_SIZE",
    "SUMMARY",
    "Paper",
    "Printed",
    "ReproductionRow",
    "holds_claim",
    "missing_claim",
]


@dataclass(frozen=True, repr=False)
class Paper(Result):
    """A source paper: ``key`` is its ``--paper`` choice, ``arxiv`` its arXiv id (None when it has none).

    Attributes
    ----------
    key : str
        The ``--paper`` choice ("main", "embedding", "sample-size").
    title : str
        The paper's title.
    arxiv : str or None
        Its arXiv id; None when it has none.
    """

    key: str
    title: str
    arxiv: str | None = None

    @property
    def name(self) -> str:
        """The title, with the arXiv id when there is one: how the report names the paper.

        Examples
        --------
        >>> from llm_power_verified.reproduce.records import MAIN
        >>> MAIN.name
        'Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315)'
        """
        return self.title if self.arxiv is None else f"{self.title} (arXiv {self.arxiv})"


MAIN = Paper("main", "Resolution Diagnostics for Paired LLM Evaluation", "2605.30315")
#: The one-page summary of the main paper; its claims are reported with ``--paper main``.
SUMMARY = Paper("main", "Resolution Diagnostics for Paired LLM Evaluation, one-page summary", "2605.30315")
EMBEDDING = Paper(
    "embedding", "How Many Test Pairs Do You Need? Statistical Power Analysis for Embedding Model Comparisons"
)
SAMPLE_SIZE = Paper("sample-size", "Power Analysis for Pairwise Model Comparisons on Reasoning Benchmarks")
#: The papers in report order, one per ``--paper`` choice.
PAPERS = (MAIN, EMBEDDING, SAMPLE_SIZE)


@dataclass(frozen=True, repr=False)
class Printed(Result):
    """One printed value or claim, with the inputs its paper states and the way to recompute it.

    Attributes
    ----------
    paper : Paper
        The paper that prints it.
    location : str
        Where in the paper ("Table 7", "Section 4", ...).
    quantity : str
        What is printed (for a claim, the claim).
    printed : str
        The printed text ("1,028", "~0.43", "31.4M").
    compute : callable
        Recomputes the value from the stated inputs (no argument; returns a float).
    inputs : str
        The inputs the paper states, as the report shows them.
    kind : str, default "value"
        "value", "required-n", "upper-bound", "lower-bound", "range", "monte-carlo", "holds" or "not-reproducible"
        (the rules of :mod:`llm_power_verified.reproduce.verdicts`).
    input_range : callable or None
        The value's range over the rounding of the printed inputs (no argument; returns (low, high)).
    tolerance : callable or float or None
        "monte-carlo": 3 Monte Carlo standard errors (or a callable giving them).
    bounds : tuple of two floats or None
        "range": the printed interval, ends included.
    reason : str
        "not-reproducible": what is missing.
    other_reading : callable or None
        Another reading of the inputs, shown beside a "differs" (no argument; returns a str).
    check : callable or None
        "holds": whether the claim holds and what was found (no argument; returns (bool, str)).
    claim : bool, default True
        False: a check this package adds (its location says so), not a printed claim.
    """

    paper: Paper
    location: str
    quantity: str
    printed: str
    compute: Callable[[], float]
    inputs: str
    #: "value", "required-n", "upper-bound", "lower-bound", "range", "monte-carlo", "holds" or "not-reproducible"
    kind: str = "value"
    input_range: Callable[[], tuple[float, float]] | None = None  # the value over the rounding of printed inputs
    tolerance: Callable[[], float] | float | None = None  # "monte-carlo": 3 standard errors
    bounds: tuple[float, float] | None = None  # "range": the printed interval, ends included
    reason: str = ""  # "not-reproducible": why
    other_reading: Callable[[], str] | None = None  # another reading of the inputs, shown beside a "differs"
    check: Callable[[], tuple[bool, str]] | None = None  # "holds": whether the claim holds, and what was found
    claim: bool = True  # False: a check this package adds (its location says so), not a printed claim


@dataclass(frozen=True, repr=False)
class ReproductionRow(Result):
    """One row of the report: the printed value beside the computed one, with the verdict and its reason.

    Attributes
    ----------
    paper : str
        The paper's name (its ``Paper.name``).
    location : str
        Where in the paper.
    quantity : str
        What is printed.
    inputs : str
        The inputs the paper states.
    printed : str
        The printed text.
    computed : float
        The value recomputed from the stated inputs; nan for a claim without a value or one not reproducible.
    relative_difference : float or None
        abs(computed - printed) / abs(printed); None where it has no meaning (bounds, ranges, claims).
    verdict : str
        "agrees", "differs" or "not reproducible".
    reason : str
        Why, in words.
    claim : bool
        False: a check this package adds, not a printed claim.
    """

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


def holds_claim(
    paper: Paper,
    location: str,
    claim: str,
    printed: str,
    check: Callable[[], tuple[bool, str]],
    inputs: str,
    value: Callable[[], float] = lambda: math.nan,
) -> Printed:
    """A claimed direction or count, checked as stated: ``check`` says whether it holds and what was found.

    Parameters
    ----------
    paper : Paper
        The paper that states the claim.
    location : str
        Where in the paper.
    claim : str
        The claim, in words.
    printed : str
        The printed text the claim rests on.
    check : callable
        No argument; returns (whether the claim holds, what was found).
    inputs : str
        The inputs the paper states.
    value : callable, optional
        No argument; the value shown as computed (default: nan).

    Returns
    -------
    Printed
        The record, of kind "holds".
    """
    return Printed(paper, location, claim, printed, value, inputs, "holds", check=check)


def missing_claim(paper: Paper, location: str, claim: str, printed: str, reason: str) -> Printed:
    """A claim the paper's printed figures cannot decide; ``reason`` says what is missing.

    Parameters
    ----------
    paper : Paper
        The paper that states the claim.
    location : str
        Where in the paper.
    claim : str
        The claim, in words.
    printed : str
        The printed text.
    reason : str
        What the printed figures lack.

    Returns
    -------
    Printed
        The record, of kind "not-reproducible".
    """
    return Printed(paper, location, claim, printed, lambda: math.nan, "", "not-reproducible", reason=reason)
