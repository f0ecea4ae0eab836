"""The "Gaps that matter" section of a per-item report audited with a smallest gap of interest (``--min-effect``).

One row per adjacent pair: the observed gap, its (1 - 2 alpha) interval, the equivalence outcome at margin DELTA,
the power and q at a true gap of DELTA and the N that resolves it.  The pair table holds the same columns for every
reported pair (``--wide``, ``--columns``, Markdown and the machine formats); this section reads the adjacent ones
the way a maintainer asks: which neighbours differ by at least DELTA, which are the same within DELTA, and which the
benchmark cannot tell.
"""

from __future__ import annotations

import pandas as pd

from llm_power_verified.numeric import exact
from llm_power_verified.report.cells import cell
from llm_power_verified.report.table import grid

__all__ = ["gaps_section"]

#: The section's columns (declared pair columns, or the interval as one cell).
_SHOWN = ("delta", "margin_ci", "equivalence", "power_min_effect", "q_min_effect", "required_n_min_effect")
#: The difference test behind "different": the pair's own two-sided arbiter p, unadjusted.
_ARBITER = {True: ("p_exact", "exact McNemar p"), False: ("p_t", "paired t p")}


def gaps_section(audit, keys: dict[str, str], head: str, markdown: bool) -> list[str]:
    """The section's lines ([] without ``--min-effect`` or adjacent pairs).

    Parameters
    ----------
    audit : Audit
        A per-item audit (in memory or streamed).
    keys : dict of str to str
        Model name -> its name in the tables (a key such as M1 for long names).
    head : str
        The section heading prefix.
    markdown : bool
        Markdown (True) or the terminal's plain text.

    Returns
    -------
    list of str
        The lines, a blank line first.
    """
    facts = audit.headline
    pairs: pd.DataFrame = audit.pairs
    if getattr(facts, "min_effect", None) is None or "equivalence" not in pairs:
        return []
    adjacent = pairs[pairs["adjacent"].to_numpy(dtype=bool)]
    if not len(adjacent):
        return []
    delta = exact(facts.min_effect)
    arbiter, arbiter_name = _ARBITER[bool(facts.binary)]
    shown = (*_SHOWN[:2], arbiter, *_SHOWN[2:])
    headers = ["A", "B", "gap", "CI (1 - 2 alpha)", "p (2-sided)", "equivalence", f"power({delta})", f"q({delta})"]
    headers.append(f"N*({delta})")
    rows = [
        [keys.get(row["model_a"], row["model_a"]), keys.get(row["model_b"], row["model_b"])]
        + [cell(row, name) for name in shown]
        for _, row in adjacent.iterrows()
    ]
    return [
        "",
        f"{head}Gaps that matter (--min-effect {delta}: adjacent pairs, each at alpha {facts.alpha:g})",
        f"equivalent: the (1 - 2 alpha) interval lies inside +-{delta} (two one-sided tests at alpha); different: "
        f"the pair's two-sided {arbiter_name} <= alpha (p (2-sided)), so an interval that excludes 0 can sit beside "
        "'not different'.",
        grid(headers, rows, markdown),
    ]
