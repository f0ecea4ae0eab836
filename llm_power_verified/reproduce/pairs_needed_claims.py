"""How Many Test Pairs Do You Need? Statistical Power Analysis for Embedding Model Comparisons: the claims register.

Sentences that state a number, a count, a bound or a direction, recomputed with
the analytic power of :mod:`.pairs_needed` and judged by the rules of :mod:`.verdicts`.
"""

from __future__ import annotations

import math

from llm_power_verified.reproduce.pairs_needed import analytic_power, embedding_rows
from llm_power_verified.reproduce.records import EMBEDDING, Printed, holds_claim, missing_claim

__all__ = ["embedding_claims"]


def _type_i_ranges() -> tuple[bool, str]:
    """The printed Type-I rates of Section 5.1's table, by score model, against the ranges the text states."""
    from_table = {"normal": [], "beta": []}
    for row in embedding_rows():
        if row.location == "Section 5.1 table":
            from_table["normal" if "normal" in row.quantity else "beta"].append(float(row.printed))
    found = {model: (min(values), max(values)) for model, values in from_table.items()}
    holds = found["normal"] == (0.037, 0.061) and found["beta"] == (0.039, 0.061)
    return (
        holds,
        f"Section 5.1's table: normal {found['normal'][0]} to {found['normal'][1]}, Beta {found['beta'][0]} to "
        f"{found['beta'][1]}",
    )


def _embedding_power(n: int, effect: float, rho: float) -> float:
    return analytic_power("normal", n, effect, rho)


def _opening_claims() -> list[Printed]:
    """Section 2.1's worked example and the abstract's two powers at N = 100."""
    return [
        holds_claim(
            EMBEDDING,
            "Section 2.1",
            "0.865 - 0.847 = 0.018",
            "0.018",
            lambda: (round(0.865 - 0.847, 3) == 0.018, "0.865 - 0.847 = 0.018"),
            "the example",
        ),
        Printed(
            EMBEDDING,
            "Abstract",
            "power for delta = 0.01 at N = 100, moderate rho (0.50)",
            "0.13",
            lambda: _embedding_power(100, 0.01, 0.5),
            "normal model, analytic noncentral-t power (printed as 13%, a simulation of R = 1,000)",
            "monte-carlo",
            tolerance=lambda: 3 * math.sqrt(0.13 * 0.87 / 1000),
        ),
        Printed(
            EMBEDDING,
            "Abstract",
            "power for delta = 0.02 at N = 100, moderate rho (0.50)",
            "0.37",
            lambda: _embedding_power(100, 0.02, 0.5),
            "normal model, analytic noncentral-t power (printed as 37%, a simulation of R = 1,000)",
            "monte-carlo",
            tolerance=lambda: 3 * math.sqrt(0.37 * 0.63 / 1000),
        ),
    ]


def _results_claims() -> list[Printed]:
    """Sections 4.4, 4.6 and 5.1: the large-effect powers, the Wilcoxon test's efficiency and the Type-I ranges."""
    sizes, correlations = (50, 100, 200, 500, 1000), (0.5, 0.8, 0.95)

    def lowest(effect: float, least_n: int) -> float:
        """The smallest power at ``effect`` over the table's N >= ``least_n`` and correlations."""
        return min(_embedding_power(n, effect, rho) for n in sizes if n >= least_n for rho in correlations)

    return [
        Printed(
            EMBEDDING,
            "Section 4.4",
            "lowest power at delta = 0.05 over N >= 100 and rho >= 0.50 (claimed > 98%)",
            "0.98",
            lambda: lowest(0.05, 100),
            "normal model, analytic noncentral-t power",
            "lower-bound",
        ),
        Printed(
            EMBEDDING,
            "Section 4.4",
            "lowest power at delta = 0.10 over every N >= 50 and rho (claimed ~100%)",
            "0.995",
            lambda: lowest(0.10, 50),
            "normal model, analytic noncentral-t power",
            "lower-bound",
        ),
        Printed(
            EMBEDDING,
            "Section 4.6",
            "asymptotic relative efficiency of the Wilcoxon test, 3/pi",
            "0.955",
            lambda: 3 / math.pi,
            "normal scores",
        ),
        holds_claim(
            EMBEDDING,
            "Section 4.6",
            "the largest t-over-Wilcoxon advantage is 3.0 pp at N = 200, delta = 0.01, rho = 0.80",
            "3.0",
            lambda: (
                max(0.152 - 0.147, 0.763 - 0.738, 0.463 - 0.433, 0.842 - 0.815, 0.989 - 0.982) == 0.463 - 0.433,
                "Section 4.6's table: 0.5, 2.5, 3.0, 2.7, 0.7 pp",
            ),
            "the paper's own table",
        ),
        holds_claim(
            EMBEDDING,
            "Section 5.1",
            "Type-I rates range over 0.037-0.061 (normal) and 0.039-0.061 (Beta)",
            "0.037-0.061",
            _type_i_ranges,
            "the paper's own table",
        ),
    ]


def _guidance_claims() -> list[Printed]:
    """Section 6.2's guidance: which effects are detectable at N ~ 100, 500 and 1,000."""

    def hundred() -> tuple[bool, str]:
        """Whether delta = 0.02 reaches 80% power at N = 100 and rho = 0.80."""
        at_08 = _embedding_power(100, 0.02, 0.8)
        return (
            at_08 >= 0.8,
            f"at N = 100, delta = 0.02, rho = 0.80 the power is {at_08:.3f} < 0.80; only rho = 0.95 reaches it",
        )

    def thousand() -> tuple[bool, str]:
        """Whether delta = 0.01 reaches 80% power at N = 1,000 and the paper's moderate rho = 0.50."""
        at_05 = _embedding_power(1000, 0.01, 0.5)
        return (
            at_05 >= 0.8,
            f"at N = 1,000, delta = 0.01 the power is {at_05:.3f} at rho = 0.50 (the paper's 'moderate'), below 0.80",
        )

    return [
        holds_claim(
            EMBEDDING,
            "Section 6.2",
            "at N ~ 100, delta >= 0.02 is detectable when rho >= 0.80",
            "rho >= 0.80",
            hundred,
            "normal model, analytic power",
        ),
        holds_claim(
            EMBEDDING,
            "Section 6.2",
            "at N ~ 500, delta >= 0.02 is detectable at every rho; delta = 0.01 needs rho >= 0.80",
            "N ~ 500",
            lambda: (
                _embedding_power(500, 0.02, 0.5) >= 0.8
                and _embedding_power(500, 0.01, 0.5) < 0.8 <= _embedding_power(500, 0.01, 0.8),
                (
                    f"{_embedding_power(500, 0.02, 0.5):.3f} at (0.02, 0.5); {_embedding_power(500, 0.01, 0.5):.3f} "
                    "at (0.01, 0.5); "
                    f"{_embedding_power(500, 0.01, 0.8):.3f} at (0.01, 0.8)"
                ),
            ),
            "normal model, analytic power",
        ),
        holds_claim(
            EMBEDDING,
            "Section 6.2",
            "at N ~ 1,000, delta = 0.01 has reasonable power at moderate-to-high rho",
            "moderate",
            thousand,
            "normal model, analytic power",
        ),
    ]


def _conclusion_claims() -> list[Printed]:
    """Section 12's conclusions, then Section 7.3's expectation, which no data backs."""

    def small_n() -> tuple[bool, str]:
        """Whether every cell with N < 200, delta = 0.01-0.02 and rho <= 0.80 stays below 80% power."""
        cells = [(n, e, r, _embedding_power(n, e, r)) for n in (50, 100) for e in (0.01, 0.02) for r in (0.5, 0.8)]
        adequate = [f"N = {n}, delta = {e}, rho = {r}: {p:.3f}" for n, e, r, p in cells if p >= 0.8]
        return not adequate, "below 0.80 in every N < 200 cell with rho <= 0.80" if not adequate else "; ".join(
            adequate
        )

    return [
        holds_claim(
            EMBEDDING,
            "Section 12",
            "below 200 instances, delta = 0.01-0.02 lacks power unless rho is very high",
            "N < 200",
            small_n,
            "normal model, analytic power",
        ),
        holds_claim(
            EMBEDDING,
            "Section 12",
            "100 instances at rho = 0.95 beat 500 at rho = 0.50 for the same effect",
            "100 > 500",
            lambda: (
                all(_embedding_power(100, e, 0.95) > _embedding_power(500, e, 0.5) for e in (0.01, 0.02)),
                f"delta = 0.01: {_embedding_power(100, 0.01, 0.95):.3f} vs {_embedding_power(500, 0.01, 0.5):.3f}",
            ),
            "normal model, analytic power",
        ),
        holds_claim(
            EMBEDDING,
            "Section 12",
            "150 parameter combinations = 5 sizes x 4 nonzero effects x 3 correlations x 2 distributions",
            "150",
            lambda: (5 * 4 * 3 * 2 == 150, "5 x 4 x 3 x 2 = 120; 150 needs the 5 effects including 0"),
            "Section 12 as printed",
        ),
        missing_claim(
            EMBEDDING,
            "Section 7.3",
            "likely rho ranges by model family (0.60-0.85, 0.40-0.60)",
            "0.60-0.85",
            "stated as expectation, no data",
        ),
    ]


def embedding_claims() -> list[Printed]:
    """The paper's sentence-level claims, each checked as stated.

    Returns
    -------
    list of Printed
        One record per claim.
    """
    return _opening_claims() + _results_claims() + _guidance_claims() + _conclusion_claims()
