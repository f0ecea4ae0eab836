"""The ``compare`` report: the JSON record, text and Markdown.

The record's schema is generated from ``contract.documents.COMPARE_RECORD``.  One
:class:`~llm_power_verified.comparison.named_comparison.Comparison`, three renderings; none knows another.
"""

from __future__ import annotations

import math

from llm_power_verified.comparison.generations import CURVE_FIELDS, flat_item_means
from llm_power_verified.comparison.planning import decision_direction
from llm_power_verified.comparison.verdict_rules import exit_code
from llm_power_verified.contract.documents import COMPARE_RECORD, COMPARE_SCHEMA_ID
from llm_power_verified.io.escaping import markdown_text, terminal_text
from llm_power_verified.io.output import json_text
from llm_power_verified.numeric import exact

__all__ = ["exact", "percent", "record", "report", "verdict_sentence"]

_SHOWN = {
    ("superiority", "pass"): "the candidate is better than the baseline by more than {m} (d > {m})",
    ("superiority", "fail"): "the candidate is not better than the baseline by more than {m} (d <= {m})",
    ("non-inferiority", "pass"): "the candidate is not worse than the baseline by {m} or more (d > -{m})",
    ("non-inferiority", "fail"): "the candidate is worse than the baseline by {m} or more (d <= -{m})",
    ("equivalence", "pass"): "the candidate and the baseline differ by less than {m} (-{m} < d < {m})",
    ("equivalence", "fail"): "the candidate and the baseline differ by {m} or more (d <= -{m} or d >= {m})",
}
_ALTERNATIVE = {"superiority": "d > {m}", "non-inferiority": "d > -{m}", "equivalence": "-{m} < d < {m}"}
_METHOD = {
    "score": "Tango's score interval",
    "t": "paired t interval",
    "bootstrap": "paired bootstrap percentile interval",
    "betting": "betting confidence sequence, running intersection",
    "cluster": "cluster-robust t interval",
}


def percent(level: float) -> str:
    """The level as a percentage, with the fewest digits (up to 17) whose value / 100 reads back as the level.

    Parameters
    ----------
    level : float
        A confidence level in (0, 1).

    Returns
    -------
    str
        "90%", or the level itself when no percentage reads back as it.

    Examples
    --------
    >>> percent(0.9), percent(1 - 2 * 0.4999999999999999)
    ('90%', '2.220446049250313e-14%')
    """
    for digits in range(18):  # fixed-point first: 90%, 99.9%
        text = f"{100 * level:.{digits}f}"
        if float(text) / 100 == level:
            return text + "%"
    for digits in range(1, 18):
        text = f"{100 * level:.{digits}g}"
        if float(text) / 100 == level:
            return text + "%"
    return f"level {level!r}"


def record(result, inputs=(), inconclusive: str | None = None) -> dict:
    """The ``compare --format json`` record of a comparison: ``schema``, then the keys of ``COMPARE_RECORD`` in order.

    Parameters
    ----------
    result : Comparison
        The comparison.
    inputs : sequence of str, default ()
        The inputs as given (empty: the shipped example).
    inconclusive : {"pass", "fail"}, optional
        What an inconclusive verdict maps to (``--inconclusive``).

    Returns
    -------
    dict
        The record (NumPy-free; NaN still to be written as null by the JSON writer).
    """
    values = {
        **result.to_dict(),
        "inputs": [str(item) for item in inputs],
        "notes": list(result.notes),
        "inconclusive_as": inconclusive,
        "exit_code": exit_code(result.verdict, inconclusive),
    }
    return {"schema": COMPARE_SCHEMA_ID, **{item.name: values[item.name] for item in COMPARE_RECORD}}


def _number(value, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:+.{digits}f}"


def verdict_sentence(result) -> str:
    """One line: the verdict and what it shows (or why it is inconclusive).

    Parameters
    ----------
    result : Comparison
        The comparison.

    Returns
    -------
    str
        "PASS: shown that ...", "FAIL: shown that ..." or "INCONCLUSIVE: ...".
    """
    m = exact(result.margin)
    if result.verdict == "inconclusive" and flat_item_means(result.to_dict(), result.sd_difference, result.anytime):
        return (
            "INCONCLUSIVE: the item-mean differences do not vary although the generations do: the zero-width interval "
            "rests on item means that agree by chance; more items are needed"
        )
    if result.verdict != "inconclusive":
        shown = _SHOWN[(result.test, result.verdict)].format(m=m)
        return f"{result.verdict.upper()}: shown that " + shown.replace(" by more than 0 (", " (")
    return (
        f"INCONCLUSIVE: the interval holds gaps inside and outside the alternative {_ALTERNATIVE[result.test]}".format(
            m=m
        )
        + ": neither it nor its opposite is shown"
    )


def _lines(result, name) -> list[tuple[str, str]]:
    """(label, value) rows shared by the text and the Markdown report; ``name`` escapes a model name."""
    level = percent(result.confidence)
    if result.anytime:
        levels = (
            f"alpha {exact(result.alpha)} for the whole sequence (the {level} confidence sequence, valid at every look)"
        )
    else:
        levels = f"alpha {exact(result.alpha)} per one-sided test (the ends of the {level} interval)"
    rows = [
        (
            "comparison",
            f"candidate {name(result.candidate)} vs baseline {name(result.baseline)}; d = candidate - baseline",
        ),
        ("test", f"{result.test}, margin {exact(result.margin)}, {levels}"),
        ("items", f"N = {result.n_items:,} ({result.scores} scores)"),
    ]
    if result.scores == "binary":
        rows.append(
            (
                "cells",
                f"both {result.both_correct:,}; only candidate {result.candidate_only:,}; "
                f"only baseline {result.baseline_only:,}; neither {result.both_wrong:,}",
            )
        )
    rows += [
        (
            "means",
            f"candidate {result.candidate_mean:.4f}, baseline {result.baseline_mean:.4f}, "
            f"d = {result.difference:+.4f} (sd of the differences {result.sd_difference:.4f})",
        ),
        (
            "interval",
            f"[{_number(result.interval_low)}, {_number(result.interval_high)}] at {level} ({_METHOD[result.method]})",
        ),
    ]
    if result.p_low is not None:
        rows.append(
            (
                "p-values",
                f"H0: d <= {exact(result.margin_low)}: p = {result.p_low:.3g}; "
                f"H0: d >= {exact(result.margin_high)}: p = {result.p_high:.3g}",
            )
        )
    if result.anytime:
        rows.append(("decided", "not yet" if result.decided_at is None else f"at item {result.decided_at:,}"))
    rows += _generation_rows(result)
    rows.append(("verdict", verdict_sentence(result)))
    if result.verdict == "inconclusive" and not result.anytime:
        rows.append(("to decide", _to_decide(result)))
    return rows


def _generations(count: float) -> str:
    return f"{count:g}" if count == round(count) else f"{count:.3g} (mean)"


def _generation_rows(result) -> list[tuple[str, str]]:
    """The split of the gap's noise and the q curve, for items with several generations each (none otherwise)."""
    if result.generations_per_item is None:
        return []
    share = result.generation_share
    shown = "n/a (the differences do not vary)" if share is None else f"{share:.1%}"
    split = (
        f"{_generations(result.generations_per_item)} generations per item; variance of the per-item difference = "
        f"between part {result.gap_between_variance:.4g} (only more items shrink it) + within part "
        f"{result.gap_within_part:.4g} (sigma_wA^2/K_A + sigma_wB^2/K_B: more generations shrink it); generation "
        f"share {shown}"
    )
    values = [getattr(result, name) for name in CURVE_FIELDS]
    if all(value is None for value in values[:-1]) and result.target_power <= 2 * result.alpha:
        return [("generations", split)]
    labels = [name.removeprefix("q_generations_") for name in CURVE_FIELDS]
    curve = ", ".join(
        f"{label}: {'inf' if value is None else f'{value:.3g}'}" for label, value in zip(labels, values, strict=True)
    )
    return [
        ("generations", split),
        (
            "q by K'",
            f"{curve} (K' generations per item; q >= 1: the N = {result.n_items:,} items at K' reach power "
            f"{result.target_power:g} for the decision the gap points to; N / q items are needed at K'; "
            "llm-power-verified plan repeats trades items against generations at a cost)",
        ),
    ]


def _to_decide(result) -> str:
    """What an inconclusive comparison would need, if the observed values were the truth (observed power)."""
    direction = decision_direction(result.test, result.margin, result.difference)
    if flat_item_means(result.to_dict(), result.sd_difference, result.anytime):
        return "more items: the spread of the item-mean differences is not estimated (see the q curve above)"
    if direction is None or result.power_at_observed_gap is None:
        return "the observed gap sits on a boundary (or does not vary): no N decides it"
    needed = "no N reaches it" if result.n_to_decide is None else f"N = {math.ceil(result.n_to_decide):,} items"
    if result.generations_per_item is not None and result.n_to_decide is not None:
        needed += (
            f" at {_generations(result.generations_per_item)} generations per item, as in the data (llm-power-verified"
            " plan repeats trades items against generations)"
        )
    return (
        f"the observed gap points to {direction[0]}; if the observed values were the truth, N = {result.n_items:,} "
        f"would reach it with probability {result.power_at_observed_gap:.3f} (observed power: it restates the "
        f"p-values, no evidence in itself), and power {result.target_power:g} needs {needed}"
    )


def report(result, fmt: str = "text", inputs=(), inconclusive: str | None = None) -> str:
    """The ``compare`` report in one format: text (one labelled line per fact), Markdown (a table) or JSON.

    Parameters
    ----------
    result : Comparison
        The comparison.
    fmt : {"text", "markdown", "json"}, default "text"
        The format; text and Markdown end with the notes and the exit status, JSON is :func:`record`'s record.
    inputs : sequence of str, default ()
        The inputs as given (the JSON record names them).
    inconclusive : {"pass", "fail"}, optional
        What an inconclusive verdict maps to.

    Returns
    -------
    str
        The report; model names with control or bidirectional characters shown escaped.
    """
    if fmt == "json":
        return json_text(record(result, inputs, inconclusive))
    status = _status(result, inconclusive)
    if fmt == "markdown":
        rows = _lines(result, markdown_text)
        lines = [f"## compare: {result.verdict}", "", "| | |", "|---|---|"]
        lines += [f"| {label} | {value} |" for label, value in rows]
        return "\n".join([*lines, "", *(f"- {markdown_text(note)}" for note in result.notes), "", status])
    rows = _lines(result, lambda value: f"'{terminal_text(value)}'")
    width = max(len(label) for label, _ in rows)
    lines = [f"{label:<{width}}  {value}" for label, value in rows]
    return "\n".join([*lines, *(f"note: {terminal_text(note)}" for note in result.notes), status])


def _status(result, inconclusive: str | None) -> str:
    status = exit_code(result.verdict, inconclusive)
    mapped = f" (inconclusive mapped to {inconclusive})" if result.verdict == "inconclusive" and inconclusive else ""
    return f"exit status {status}{mapped}"
