"""The pair columns only the accuracies-only audit has (the admissible correlation interval and its verdicts).

Paper references are to Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315).
"""

from __future__ import annotations

from llm_power_verified.contract.column_record import Column, declare

__all__ = ["ACCURACY_PAIR_COLUMNS"]

_ASSUMED = "ASSUMED: "

#: The accuracies-only audit's own pair columns, after the ones it shares with the per-item audits.
ACCURACY_PAIR_COLUMNS: tuple[Column, ...] = (
    *declare(
        "a",
        "float",
        [
            ("rho_min", "smallest correlation the two accuracies allow (paper Eq. 8)"),
            ("rho_max", "largest correlation the two accuracies allow (paper Eq. 7)"),
            (
                "required_n_rho_min",
                "the most items the gap at the printed accuracies could need (N* at rho_min)",
                4,
                "N* at rho_min",
            ),
            (
                "required_n_rho_max",
                "the fewest items the gap at the printed accuracies could need (N* at rho_max)",
                4,
                "N* at rho_max",
            ),
            ("q_rho_min", "N / N* at rho_min"),
            ("q_rho_max", "N / N* at rho_max"),
            ("agreement_min", "share of items the models agree on at rho_min"),
            ("agreement_max", "the same at rho_max"),
        ],
    ),
    *declare(
        "a",
        "verdict",
        [
            (
                "verdict",
                "resolved (N >= N* at every admissible rho and every pair of counts of correct items the printed "
                "accuracies allow), unresolved (N < N* at every one) or depends on rho, at alpha",
            )
        ],
    ),
    *declare(
        "a",
        "text",
        [
            (
                "rounding",
                "'depends on the printed digits' when two pairs of counts the printed accuracies allow give different "
                "verdicts at alpha (the verdict is then the one that holds at all of them), else 'no effect'",
            )
        ],
    ),
    *declare(
        "a",
        "float",
        [
            (
                "required_n_worst",
                "the most items the gap could need: N* at rho_min at the allowed counts that make the gap smallest",
                4,
                "N* worst",
            ),
            (
                "required_n_best",
                "the fewest items the gap could need: N* at rho_max at the allowed counts that make the gap largest",
                4,
                "N* best",
            ),
        ],
    ),
    *declare(
        "a",
        "float",
        [
            (
                "rho_critical",
                "the correlation at which N* = N at the printed accuracies: the gap is resolved iff rho >= rho_c; "
                "'none' (null) when N* = N has no root in [rho_min, rho_max], so that the verdict at the printed "
                "accuracies holds at every admissible rho; over the counts the printed digits allow, see "
                "rho_critical_low and rho_critical_high (the text tables show that range when it is wider)",
                4,
                "rho_c",
            ),
            (
                "agreement_critical",
                "for 'depends on rho': the smallest share of items the two models must agree on (both right or both "
                "wrong) for the gap to be resolved",
                4,
                "agree >=",
            ),
            (
                "rho_critical_low",
                "the smallest rho_c over the pairs of allowed counts whose verdict depends on rho; null when none does",
                4,
                "rho_c from",
            ),
            ("rho_critical_high", "the largest such rho_c", 4, "rho_c to"),
            (
                "agreement_critical_low",
                "the smallest agreement share at rho_c over the same pairs of counts",
                4,
                "agree from",
            ),
            ("agreement_critical_high", "the largest such share", 4, "agree to"),
            ("level_strict", "strictest per-comparison level the correction can use"),
            ("level_lenient", "most lenient one"),
        ],
    ),
    *declare(
        "a",
        "verdict",
        [
            (
                "verdict_family",
                "the verdict under the declared correction: it holds at every level in "
                "[level_strict, level_lenient]; 'depends on p-value order' when it is unresolved at "
                "every rho at the strict level but not at the lenient one",
                None,
                "verdict ({correction})",
            )
        ],
    ),
    *declare(
        "a", "text", [("rounding_family", "the same as rounding for verdict_family", None, "rounding ({correction})")]
    ),
    *declare(
        "a",
        "float",
        [
            (
                "rho_critical_family",
                "rho_c at level_strict; 'none' (null) outside [rho_min, rho_max]: at level_strict the gap is resolved "
                "at every admissible rho (verdict_family resolved) or unresolved at every one (verdict_family "
                "unresolved "
                "or depends on p-value order)",
            ),
            ("agreement_critical_family", "agreement share at rho_critical_family"),
        ],
    ),
    *declare(
        "a",
        "float",
        [
            ("rho_assumed_low", _ASSUMED + "the assumed rho (or range) within the admissible interval"),
            ("rho_assumed_high", _ASSUMED + "upper end of that range"),
            ("required_n_assumed", _ASSUMED + "N* at rho_assumed_low"),
            ("q_assumed", _ASSUMED + "N / required_n_assumed", 4, "q (assumed)"),
        ],
        when="assumption",
    ),
    *declare(
        "a",
        "verdict",
        [
            (
                "verdict_assumed",
                _ASSUMED
                + "the verdict over the assumed rho (range); 'not admissible' when the assumption lies outside "
                "the interval",
                None,
                "verdict (assumed)",
            ),
            (
                "verdict_assumed_family",
                _ASSUMED + "the same under the declared correction (Holm and BH levels from Wald p-values at one "
                "assumed rho)",
                None,
                "{correction} (assumed)",
            ),
        ],
        when="assumption",
    ),
)
