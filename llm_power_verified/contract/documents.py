"""The ``settings`` and ``data`` members of the JSON reports, declared once (the schemas are generated from them).

Keys in the order the reports write them (``report.report_data.document``, for
every audit).
"""

from __future__ import annotations

from dataclasses import dataclass

from llm_power_verified.contract.choices import ACCURACY_MODES, CORRECTIONS, FAMILIES, MODES

__all__ = ["DATA", "SETTINGS", "Field"]


@dataclass(frozen=True)
class Field:
    """One member of a JSON report's ``settings`` or ``data``.

    Attributes
    ----------
    name : str
        The JSON key.
    kind : {"text", "int", "float", "bool", "probability", "choice"}
        Its type: "probability" is a number in (0, 1), "choice" one of ``choices``.
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
