"""Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315): the claims register, Sections 1-2 and 5.

Each record is a :class:`~.records.Printed` whose quantity restates a sentence
that states a number, a count, a bound or a direction, located by section,
recomputed from the paper's own printed inputs and given a verdict by the rules
of :mod:`.verdicts`.  Claims that repeat a table value already in the report
(for example Table 7's N*, Table 1's calculators) are not repeated: their
locations are listed in ``ALSO_STATED``.  Claims about data the paper does
not print (the 40 OLL v1 pairs, the MMLU-Pro subject categories, the frontier
panel) are "not reproducible" with what is missing; where printed figures of
two places must agree with each other, the record checks that consistency.
The one-page summary's claim is here too.  Sections 3-4 and Appendix A are in
:mod:`.resolution_diagnostics_claims_theory`, Sections 6.1-6.2 in
:mod:`.resolution_diagnostics_claims_benchmarks`, Sections 6.3-6.5 and
Appendix C in :mod:`.resolution_diagnostics_claims_adjustments`.
"""

from __future__ import annotations

import math

import numpy as np

from llm_power_verified.inference.bootstrap import ideal_bootstrap_contains_zero
from llm_power_verified.power import design_effect, required_n_paired_binary, required_n_unpaired
from llm_power_verified.reproduce.records import MAIN, SUMMARY, Printed, holds_claim, missing_claim
from llm_power_verified.reproduce.resolution_diagnostics import (
    ICC,
    MEAN_SIZE,
    N_MMLU,
    count_unresolved,
    required_at_counts,
    second_accuracy,
    table_7_rows,
)

__all__ = [
    "ALSO_STATED",
    "TABLE_5_MMLU",
    "calibration_claims",
    "introduction_claims",
    "summary_claims",
    "tighter_than_fixed_n",
]


#: Claims stated in the text that are table values already in the report, and where else they are stated.
ALSO_STATED = {
    "4 of 9 MMLU-Pro adjacent pairs unresolved": "Abstract, Section 1, Section 6.2, Figure 3, Table 5, one-page "
    "summary",
    "HellaSwag p = 0.049 (chi-square) vs 0.054 (exact), q ~ 1/2": "Abstract, Section 1, Section 3, Table 6, Table 11, "
    "one-page summary",
    "correct N* = 1,028; K/h^2 = 736, x (1 - rho) = 515; 2K/h^2 = 1,471, x (1 - rho) = 1,030": "Section 4, Table 1",
    "z_{1-alpha/2} + z_{1-beta} ~ 2.80": "Section 3, one-page summary",
    "C(1/2, rho) = 1/3; delta*(0.65, 0.3, 0.05) ~ 0.43": "Lemma 1, Corollary 1, Appendix A, one-page summary",
    "Bonferroni 3.227 and 2.11 (m = 40), Sidak 2.10, 2.14 (m = 45)": "Sections 6.2, 6.3, 6.5",
    "anytime-valid 5 of 9 and the 2.15 inflation": "Section 3, Section 6.5, Table 5",
}


#: Table 5's MMLU-Pro column as printed: unresolved of 9 per procedure.
TABLE_5_MMLU = {"fixed-n": 4, "Bonferroni/Holm": 4, "anytime-valid": 5, "clustered": 6}


def tighter_than_fixed_n() -> tuple[bool, str]:
    """Whether every other procedure of Table 5 leaves more MMLU-Pro pairs unresolved than fixed-n does.

    Returns
    -------
    tuple of (bool, str)
        Whether it holds, and the counts found.
    """
    base = TABLE_5_MMLU["fixed-n"]
    same = [name for name, count in TABLE_5_MMLU.items() if name != "fixed-n" and count <= base]
    return not same, (
        f"Table 5's MMLU-Pro column: {', '.join(f'{k} {v}/9' for k, v in TABLE_5_MMLU.items())}; "
        f"not tighter than fixed-n: {', '.join(same) or 'none'}"
    )


def _hellaswag_claims() -> list[Printed]:
    """Section 1's opening example and the HellaSwag pair: its gap and whether its bootstrap interval contains zero."""
    _, table_6 = table_7_rows()
    hellaswag = next(r for r in table_6 if r["task"] == "HellaSwag")

    def bootstrap_ci() -> tuple[bool, str]:
        """Whether the ideal percentile bootstrap interval of the HellaSwag gap contains zero."""
        contains, mass = ideal_bootstrap_contains_zero(hellaswag["b"], hellaswag["c"], hellaswag["n"])
        return contains, (
            f"the ideal (B = infinity) percentile interval {'contains' if contains else 'excludes'} 0: "
            f"P(D* <= 0) = {mass:.4f} against 0.025"
        )

    return [
        holds_claim(
            MAIN,
            "Section 1",
            "78.3% vs 77.5% is a 0.8-point gap",
            "0.8",
            lambda: (round(78.3 - 77.5, 1) == 0.8, "78.3 - 77.5 = 0.8"),
            "the two accuracies",
        ),
        Printed(
            MAIN,
            "Section 1 / Appendix E",
            "HellaSwag gap delta-hat in pp ((b - c)/N)",
            "0.46",
            lambda: 100 * (hellaswag["b"] - hellaswag["c"]) / hellaswag["n"],
            "b = 295, c = 249, N = 10,042",
        ),
        holds_claim(
            MAIN,
            "Section 1",
            "the paired-bootstrap 95% CI of the HellaSwag gap contains zero",
            "contains 0",
            bootstrap_ci,
            "b = 295, c = 249, N = 10,042; a bootstrap of items is a multinomial draw of the counts, so its "
            "distribution is computed exactly",
        ),
    ]


def _oll_v1_claims() -> list[Printed]:
    """The abstract's and Sections 1-2's claims on the 40 OLL v1 pairs: how many are unresolved, and the paired gain."""
    _, table_6 = table_7_rows()

    def close_gain_range() -> tuple[bool, str]:
        """Whether the 7 printed close pairs' paired-vs-unpaired gains lie in the stated range."""
        gains = [
            float(
                required_n_unpaired(r["p_a"], second_accuracy(r))
                / required_n_paired_binary(r["p_a"], second_accuracy(r), r["rho"])
            )
            for r in table_6
        ]
        return min(gains) >= 1.33 - 0.005 and max(
            gains
        ) <= 5.39 + 0.005, f"the 7 Table 6 pairs give {min(gains):.2f} to {max(gains):.2f}"

    return [
        missing_claim(
            MAIN,
            "Abstract, Sections 1, 6.1",
            "11 of 40 OLL v1 comparisons unresolved",
            "11/40",
            "needs the counts of all 40 OLL v1 pairs; the paper prints the 7 close pairs only",
        ),
        missing_claim(
            MAIN,
            "Section 1, 2, Figure 1",
            "paired N* is a median 2.15x smaller than Miller's unpaired N on the 40 OLL v1 pairs (IQR 1.60-2.75)",
            "2.15",
            "needs the 40 OLL v1 pairs",
        ),
        holds_claim(
            MAIN,
            "Section 2",
            "the paired-vs-unpaired gain lies in [1.33, 5.39] over the OLL v1 pairs (checkable on the 7 printed ones)",
            "[1.33, 5.39]",
            close_gain_range,
            "Table 6 accuracies and rho-hat; unpaired N from Miller's formula",
        ),
    ]


def _clustering_claims() -> list[Printed]:
    """The abstract's and Section 1's claims on the MMLU-Pro pairs under Table 4's clustering."""
    table_7, _ = table_7_rows()

    def cluster_flip() -> tuple[bool, str]:
        """Whether exactly two pairs go from resolved to N* > 3N once multiplied by their design effects."""
        iid = required_at_counts(table_7)
        cluster = iid * np.array([float(design_effect(MEAN_SIZE, v)) for v in ICC])
        flips = [i for i in range(9) if iid[i] <= N_MMLU and cluster[i] > 3 * N_MMLU]
        names = ", ".join(f"{i + 1} vs {i + 2} ({cluster[i]:,.0f})" for i in flips)
        return (
            len(flips) == 2,
            f"{len(flips)} pair(s) go from resolved to N* > 3N = {3 * N_MMLU:,}: {names}; pair 4 vs 5 reaches "
            f"{cluster[3]:,.0f} = {cluster[3] / N_MMLU:.2f} N",
        )

    return [
        holds_claim(
            MAIN,
            "Section 1 (contributions)",
            "under clustering two MMLU-Pro pairs flip from resolved to N* > 3N",
            "two pairs",
            cluster_flip,
            "Table 7 counts x design effects from Table 4's printed ICC (m-bar = 12,032/14)",
        ),
        Printed(
            MAIN,
            "Abstract, Section 1, Table 4",
            "unresolved of 9 under Table 4's clustering",
            "6",
            lambda: float(
                count_unresolved(
                    required_at_counts(table_7) * np.array([float(design_effect(MEAN_SIZE, v)) for v in ICC]), N_MMLU
                )
            ),
            "Table 7 counts x design effects from Table 4's printed ICC",
        ),
    ]


def introduction_claims() -> list[Printed]:
    """The abstract's and introduction's claims, each checked as stated.

    Returns
    -------
    list of Printed
        One record per claim.
    """
    return _hellaswag_claims() + _oll_v1_claims() + _clustering_claims()


def calibration_claims() -> list[Printed]:
    """Section 5's (calibration) claims, each checked as stated.

    Returns
    -------
    list of Printed
        One record per claim.
    """
    se_type_i = math.sqrt(0.05 * 0.95 / 1500) * 100
    se_power = math.sqrt(0.8 * 0.2 / 1500) * 100
    return [
        holds_claim(
            MAIN,
            "Section 5 / Table 2 caption",
            "the calibration grid has 5 cells",
            "5",
            lambda: (3 * 3 == 5, "p in {0.5, 0.7, 0.9} x rho_z in {0, 0.4, 0.8} at n = 500 is 9 cells, not 5"),
            "Section 5's grid",
        ),
        Printed(
            MAIN, "Section 5", "Monte Carlo SE on Type-I at M = 1,500, pp", "~0.6", lambda: se_type_i, "alpha = 0.05"
        ),
        Printed(
            MAIN, "Section 5", "Monte Carlo SE on power at M = 1,500, pp", "~1.0", lambda: se_power, "power = 0.80"
        ),
        holds_claim(
            MAIN,
            "Section 5",
            "all five variants within 1.1 pp of alpha (Table 2's own column)",
            "1.1",
            lambda: (max(0.9, 1.1, 0.8, 1.1, 0.9) <= 1.1, "Table 2's max |alpha-hat - alpha|: 0.9, 1.1, 0.8, 1.1, 0.9"),
            "Table 2 as printed",
        ),
        holds_claim(
            MAIN,
            "Section 5",
            "exact and continuity-corrected variants are about 3 pp conservative (Table 2's medians)",
            "~3 pp",
            lambda: (abs((0.79 - 0.76) * 100 - 3) < 0.5, "median power 0.79 (asymptotic trio) vs 0.76: 3 pp"),
            "Table 2 as printed",
        ),
        missing_claim(
            MAIN,
            "Section 5, Appendix B, Figure 6",
            "the bootstrap tracks the paired-t N* within 4-6% on Beta(4, 2) marginals",
            "4-6%",
            "Figure 6's grid of n and the pairing of the Beta(4, 2) scores are not stated",
        ),
    ]


def summary_claims() -> list[Printed]:
    """The one-page summary's claims, each checked as stated.

    Returns
    -------
    list of Printed
        One record per claim.
    """
    return [
        holds_claim(
            SUMMARY,
            "Key findings",
            "the count rises to 6/9 after multiple comparisons, clustering and anytime-validity",
            "6/9",
            _six_of_nine,
            "the main paper's Table 5",
        )
    ]


def _six_of_nine() -> tuple[bool, str]:
    """The summary's 6/9 'after multiple comparisons, clustering and anytime-validity', against Table 5's own column."""
    counts = {name: TABLE_5_MMLU[name] for name in ("Bonferroni/Holm", "clustered", "anytime-valid")}
    return all(count == 6 for count in counts.values()), "Table 5: " + ", ".join(
        f"{k} {v}/9" for k, v in counts.items()
    )
