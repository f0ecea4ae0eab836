"""The ``settings`` and ``data`` members of the JSON reports and the ``compare`` record, declared once.

The schemas are generated from them.  Keys in the order the reports write them
(``report.report_data.document``, for every audit; ``comparison.record`` for
``compare``).
"""

from __future__ import annotations

from dataclasses import dataclass

from llm_power_verified.contract.choices import ACCURACY_MODES, CORRECTIONS, FAMILIES, MODES

__all__ = [
    "COMPARE_EXIT_CODES",
    "COMPARE_METHODS",
    "COMPARE_RECORD",
    "COMPARE_SCHEMA_ID",
    "COMPARE_TESTS",
    "COMPARE_VERDICTS",
    "DATA",
    "SETTINGS",
    "Field",
]


@dataclass(frozen=True)
class Field:
    """One member of a JSON report's ``settings`` or ``data``.

    Attributes
    ----------
    name : str
        The JSON key.
    kind : {"text", "texts", "int", "float", "bool", "probability", "choice"}
        Its type: "texts" is a list of strings, "probability" a number in (0, 1), "choice" one of ``choices``.
    meaning : str
        Its description in the schema.
    choices : tuple of str
        The allowed values of a "choice" (empty otherwise).
    minimum : int or None
        The smallest allowed value of an "int", when there is one.
    nullable : bool
        Whether it may be null.
    """

    name: str
    kind: str
    meaning: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    nullable: bool = False


_ALPHA = Field("alpha", "probability", "significance level of every test")
_POWER = Field("power", "probability", "target power of N*")
_FAMILY_SIZE = Field("family_size", "int", "m, the number of comparisons in the declared family", minimum=1)
_CORRECTION = Field("correction", "choice", "the declared family's correction behind the family verdicts", CORRECTIONS)
_N_ITEMS = Field("n_items", "int", "N, the number of items", minimum=1)
_N_MODELS = Field("n_models", "int", "K, the number of models", minimum=2)

#: ``settings``: how the audit was asked for, by audit ("binary+graded" per item, "accuracies").
SETTINGS = {
    "binary+graded": (
        Field("mode", "choice", "which pairs are reported", MODES),
        Field("family", "choice", "the declared multiplicity family", FAMILIES),
        _FAMILY_SIZE,
        _ALPHA,
        _POWER,
        Field("seed", "int", "seed of every resampling", minimum=0),
        Field("n_resamples", "int", "paired-bootstrap resamples (0: none)", minimum=0),
        _CORRECTION,
        Field(
            "min_effect",
            "float",
            "the declared smallest gap of interest DELTA in score units (--min-effect); null without one",
            nullable=True,
        ),
    ),
    "accuracies": (
        Field("mode", "choice", "which pairs are reported (and the family)", ACCURACY_MODES),
        _FAMILY_SIZE,
        _ALPHA,
        _POWER,
        _CORRECTION,
        Field(
            "assumption",
            "text",
            "the assumed correlation (an assumption, not a measurement); null without one",
            nullable=True,
        ),
    ),
}

#: ``data``: what the audit was given.
DATA = {
    "binary+graded": (
        _N_ITEMS,
        _N_MODELS,
        Field("binary", "bool", "0/1 scores (false: graded scores)"),
        Field("clustered", "bool", "the items have clusters"),
    ),
    "accuracies": (
        _N_ITEMS,
        _N_MODELS,
        Field("scale", "choice", "the scale the accuracies were read on", ("percent", "fraction")),
        Field("scale_reason", "text", "why that scale"),
        Field("consistent", "bool", "every printed accuracy is some whole count k out of N"),
    ),
}

#: ``compare``: the tests (the default first), the verdicts (in the order of their exit codes), the exit status of
#: each verdict (2 stays an input or usage error) and the methods behind the interval.
COMPARE_TESTS = ("superiority", "non-inferiority", "equivalence")
COMPARE_VERDICTS = ("pass", "fail", "inconclusive")
COMPARE_EXIT_CODES = {"pass": 0, "fail": 1, "inconclusive": 3}
COMPARE_METHODS = ("score", "t", "bootstrap", "cluster", "betting")
COMPARE_SCHEMA_ID = "llm-power-verified/compare/1"

_COUNT = "items (0/1 scores; null for graded scores)"
#: The ``compare --format json`` record, after ``schema``; d = candidate - baseline throughout.
COMPARE_RECORD = (
    Field("inputs", "texts", "the inputs read, as given (empty: the shipped example)"),
    Field("baseline", "text", "the baseline model B"),
    Field("candidate", "text", "the candidate model A; d = candidate - baseline"),
    Field("test", "choice", "the test: its alternative is d > m, d > -m or -m < d < m", COMPARE_TESTS),
    Field("margin", "float", "m, in score units (0.02 = 2 points)"),
    Field("alpha", "probability", "the level of each one-sided test"),
    Field(
        "confidence",
        "probability",
        "the level of the interval the verdict is read from: 1 - 2 alpha; anytime 1 - alpha, time-uniform",
    ),
    Field(
        "method",
        "choice",
        "the interval and tests: score (Tango), t (paired t), bootstrap (paired percentile), cluster (cluster-robust "
        "t on G - 1 degrees of freedom), betting (the anytime confidence sequence)",
        COMPARE_METHODS,
    ),
    Field("anytime", "bool", "the anytime-valid variant (items in input order; a time-uniform confidence sequence)"),
    Field("scores", "choice", "the kind of scores", ("binary", "graded")),
    Field("n_items", "int", "N, the paired items", minimum=1),
    Field("both_correct", "int", "a: " + _COUNT + " both solve", minimum=0, nullable=True),
    Field("candidate_only", "int", "b: " + _COUNT + " only the candidate solves", minimum=0, nullable=True),
    Field("baseline_only", "int", "c: " + _COUNT + " only the baseline solves", minimum=0, nullable=True),
    Field("both_wrong", "int", "d: " + _COUNT + " neither solves", minimum=0, nullable=True),
    Field("candidate_mean", "float", "the candidate's mean score"),
    Field("baseline_mean", "float", "the baseline's mean score"),
    Field("difference", "float", "d, the observed mean difference candidate - baseline"),
    Field("sd_difference", "float", "the sample standard deviation of the per-item differences"),
    Field("margin_low", "float", "the null boundary of p_low: m (superiority), -m (non-inferiority, equivalence)"),
    Field("margin_high", "float", "the null boundary of p_high: m (superiority, equivalence), -m (non-inferiority)"),
    Field("p_low", "float", "one-sided p of H0: d <= margin_low (null: anytime)", nullable=True),
    Field("p_high", "float", "one-sided p of H0: d >= margin_high (null: anytime)", nullable=True),
    Field("interval_low", "float", "L, the lower end of the interval at `confidence`"),
    Field("interval_high", "float", "U, the upper end of the interval at `confidence`"),
    Field("verdict", "choice", "pass, fail or inconclusive, from [L, U] and the test's alternative", COMPARE_VERDICTS),
    Field("target_power", "probability", "the power n_to_decide is planned for"),
    Field(
        "power_at_observed_gap",
        "float",
        "filled for an inconclusive fixed-N verdict only (null for pass, fail and anytime): the power at N of the "
        "decision the observed gap points to (pass, or fail when the gap lies outside the alternative) if the "
        "observed cells (0/1 scores) or mean and sd of the differences (graded) were the truth; observed (post-hoc) "
        "power, a function of the p-values that adds no evidence (Hoenig and Heisey 2001), a planning figure for a "
        "larger run; null also where undefined (the observed gap on a boundary)",
        nullable=True,
    ),
    Field(
        "n_to_decide",
        "float",
        "filled with power_at_observed_gap only: the N at which that decision would have target_power under the same "
        "assumption (unrounded); null otherwise, or when no N reaches it",
        nullable=True,
    ),
    *(
        Field(name, "float", meaning + " (null: the items have one score each)", nullable=True)
        for name, meaning in (
            ("generations_per_item", "the mean number of generations per item of the two models"),
            (
                "gap_within_part",
                "the generation-noise part of the variance of the per-item difference of item means, "
                "mean_i(s_Ai^2 / K_Ai) + mean_i(s_Bi^2 / K_Bi): more generations per item shrink it",
            ),
            (
                "gap_between_variance",
                "sigma_item^2, the variance of the per-item differences minus gap_within_part (method of moments; "
                "negative estimates as they are): only more items shrink it",
            ),
            (
                "generation_share",
                "gap_within_part / the variance of the per-item differences: the share of the gap's noise more "
                "generations per item could remove (above 1 when gap_between_variance < 0; null also where the "
                "differences do not vary)",
            ),
        )
    ),
    *(
        Field(
            f"q_generations_{label}",
            "float",
            f"q at {label} generations per item of both models (inf: unlimited) for the decision the observed gap "
            "points to (as n_to_decide): N g^2 / ((z_(1-alpha) + z_power)^2 (max(sigma_item^2, 0) + "
            "(sigma_wA^2 + sigma_wB^2) / K')), g the gap's distance from that decision's boundary (equivalence's "
            "pass: the nearer one); q >= 1: the N items at K' reach target_power (normal approximation), N / q "
            "items are needed at K'; null: the items have one score each, q is infinite (no variance left at K') "
            "or target_power <= 2 alpha",
            nullable=True,
        )
        for label in ("1", "2", "5", "10", "20", "inf")
    ),
    Field("n_resamples", "int", "bootstrap resamples (null: no bootstrap)", minimum=1, nullable=True),
    Field("seed", "int", "seed of the bootstrap (null: no bootstrap)", minimum=0, nullable=True),
    Field("decided_at", "int", "anytime: the item at which the verdict was reached (null: not decided)", nullable=True),
    Field("notes", "texts", "what the reader and the method decided"),
    Field(
        "inconclusive_as",
        "choice",
        "the verdict an inconclusive one maps to (--inconclusive)",
        COMPARE_VERDICTS[:2],
        nullable=True,
    ),
    Field("exit_code", "int", "the exit status: 0 pass, 1 fail, 3 inconclusive (after --inconclusive)", minimum=0),
)
