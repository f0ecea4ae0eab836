"""Running the reproduction: every stored printed value and claim recomputed and given a verdict (see :mod:`.core`, :mod:`.claims`)."""

from __future__ import annotations

import math

from llm_power_verified.errors import ArgumentError
from llm_power_verified.reproduce import extra
from llm_power_verified.reproduce.claims import claim_rows
from llm_power_verified.reproduce.core import (
    PAPERS,
    Printed,
    ReproductionRow,
    main_paper_rows,
    sample_size_rows,
    verdict_of,
)

__all__ = ["PRINTED", "printed_values", "reproduce"]


def printed_values(paper: str = "all") -> list[Printed]:
    """The stored printed values of one paper ("main", "embedding", "sample-size") or of all."""
    groups = {"main": lambda: main_paper_rows(extra) + claim_rows("main"), "embedding": lambda: extra.embedding_rows() + claim_rows("embedding"),
              "sample-size": lambda: sample_size_rows() + claim_rows("sample-size")}
    if paper == "all":
        return [entry for name in PAPERS for entry in groups[name]()]
    if paper not in groups:
        raise ArgumentError(f"paper must be one of {list(PAPERS) + ['all']}; got {paper!r}")
    return groups[paper]()


PRINTED = printed_values


def reproduce(paper: str = "all") -> list[ReproductionRow]:
    """Recompute every stored printed value and compare (see the module notes)."""
    rows = []
    for entry in printed_values(paper):
        computed = math.nan if entry.kind == "not-reproducible" else float(entry.compute())
        relative, verdict, reason = verdict_of(entry, computed)
        rows.append(ReproductionRow(entry.paper, entry.location, entry.quantity, entry.inputs, entry.printed, computed, relative, verdict, reason,
                                    entry.claim))
    return rows
