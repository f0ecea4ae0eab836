"""A calculator conformance check as a report: terminal text, Markdown, JSON (with a schema) or one HTML page.

Every format says what each number is measured against.  Two errors are kept apart: the largest relative error
against the convention the calculator *claims* (is it what it says it is?) and against the *correct* quantity (the
paired N*, the exact McNemar p, the noncentral-t power or n: is it what a user needs?).  The convention *found* is
the candidate nearest to its values, with its level and tails.  The failures carry minimal counterexamples and,
for an overflow, the threshold; the deviation map (:mod:`~llm_power_verified.report.conformance_map`) shows where
the error against the correct quantity lies, as a table and (HTML) a figure.
"""

from __future__ import annotations

import html
import math

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.escaping import terminal_text
from llm_power_verified.io.output import json_text
from llm_power_verified.report.cells import fmt
from llm_power_verified.report.conformance_map import AXES, REFERENCE_NAMES, deviation_figure, map_rows
from llm_power_verified.report.conformance_schema import CONFORMANCE_SCHEMA_ID
from llm_power_verified.report.table import grid
from llm_power_verified.testing.candidates import ONE_SIDED
from llm_power_verified.testing.conformance_results import CalculatorConformance

__all__ = ["CONFORMANCE_FORMATS", "conformance_document", "convention_meaning", "render_conformance"]

#: The formats :func:`render_conformance` writes.
CONFORMANCE_FORMATS = ("table", "markdown", "json", "html")

_MEANINGS = {
    "paired": "the paired N* of Eq. 6 (paired normal approximation, McNemar's variance)",
    "connor": "Connor's (1987) paired sample size (McNemar, conditional variance)",
    "one-sample-arcsine": "one-sample arcsine K / h^2 (pwr.p.test): a one-sample size, not paired",
    "two-sample-arcsine": "two-sample arcsine 2K / h^2 per arm (pwr.2p.test, NormalIndPower): unpaired",
    "unpaired-wald": "unpaired Wald per arm (unpooled variances): ignores the pairing",
    "two-proportion-z": "two-proportion z per arm (pooled under H0, power.prop.test): ignores the pairing",
    "shortcut": "the (1 - rho) shortcut (1 - rho) K / h^2 (about N*/2 for close comparisons)",
    "two-sample-arcsine-x(1-rho)": "the two-sample arcsine per-arm size times (1 - rho)",
    "unpaired-wald-x(1-rho)": "the unpaired Wald per-arm size times (1 - rho)",
    "paired-one-p-lower": "paired K 2 p (1 - p) (1 - rho) / delta^2 with one accuracy p = min(p_a, p_b)",
    "unpaired-wald-one-p-lower": "unpaired Wald per arm K 2 p (1 - p) / delta^2, p = min(p_a, p_b), ignoring rho",
    "paired-null-variance": "paired K psi / delta^2: the discordant rate psi = p_01 + p_10 (D's variance under H0) "
    "in place of sigma_D^2 = psi - delta^2",
    "mcnemar-exact": "the smallest n whose exact (conditional binomial) McNemar test reaches the power",
    "exact": "the exact (conditional binomial) McNemar p, two-sided",
    "mid-p": "the mid-p McNemar p",
    "chi2": "McNemar's chi-square p without continuity correction",
    "chi2-corrected": "McNemar's chi-square p with the continuity correction",
    "exact-one-sided": "the exact McNemar p, one tail only",
    "noncentral-t": "the noncentral-t power of the paired t test (two-sided, both tails)",
    "noncentral-t-upper-tail": "the noncentral-t power counting the upper tail only (R power.t.test's default)",
    "normal": "the normal approximation to the paired t test",
    "normal-upper-tail": "the normal approximation counting the upper tail only, Phi(|d| sqrt(n) - z_{1-alpha/2})",
}


def convention_meaning(name: str | None, *, short: bool = False) -> str:
    """What a candidate convention computes, with its level and tails.

    Parameters
    ----------
    name : str or None
        A candidate convention of the quantity's table (``CANDIDATES`` of ``llm_power_verified.testing.candidates``;
        None: none was found).
    short : bool, default False
        True: the tails named without the quantile they use (for a table).

    Returns
    -------
    str
        One phrase.

    Examples
    --------
    >>> convention_meaning("shortcut-one-sided")
    'the (1 - rho) shortcut (1 - rho) K / h^2 (about N*/2 for close comparisons); one-sided: z_{1-alpha} where ...'
    """
    if name is None:
        return "no candidate convention within the tolerance"
    base, tails = name, ""
    if name in _MEANINGS:
        return _MEANINGS[name]
    if name.endswith(ONE_SIDED):
        base, tails = name[: -len(ONE_SIDED)], "; one-sided: z_{1-alpha} where a two-sided test uses z_{1-alpha/2}"
    elif name.endswith("-total"):
        base, tails = name[: -len("-total")], "; both arms' total (twice the per-arm size)"
    meaning = _MEANINGS.get(base, base)
    if tails.startswith("; one-sided"):  # the base's own "two-sided" would contradict it
        meaning = meaning.replace(" (two-sided, both tails)", "").replace(", two-sided", "")
    return meaning + (tails if not short else tails.split(":")[0])


def conformance_document(result: CalculatorConformance, source: str | None = None) -> dict:
    """The JSON report: ``schema``, ``source`` and every field of the result (``report/conformance.schema.json``).

    Parameters
    ----------
    result : CalculatorConformance
        The check.
    source : str, optional
        How the calculator was reached (the ``--python`` or ``--command`` value).

    Returns
    -------
    dict
        The document, in plain containers.
    """
    return {"schema": CONFORMANCE_SCHEMA_ID, "source": source, **result.to_dict()}


def _percent(value: float | None) -> str:
    if value is None:
        return "n/a"
    if math.isinf(value):
        return "inf (no valid answer there)"
    return f"{value:.3g} ({100 * value:.3g}%)"


def _point(inputs: dict[str, float]) -> str:
    return ", ".join(f"{name}={value:g}" for name, value in inputs.items()) or "-"


def _facts(result: CalculatorConformance, source: str | None) -> list[tuple[str, str]]:
    """(label, text) of the report's head, every number with what it is measured against."""
    correct = REFERENCE_NAMES[result.quantity]
    claim = result.claimed_convention
    return [
        ("calculator", result.function + (f" ({source})" if source else "")),
        ("quantity", result.quantity),
        (
            "conforms",
            ("yes" if result.conforms else "no") + f" (against {result.reference}, tolerance "
            f"{result.tolerance:g} relative)",
        ),
        ("convention found", f"{result.convention or 'none'}: {convention_meaning(result.convention)}"),
        ("closest candidate", f"{result.closest}: {convention_meaning(result.closest)}"),
        ("claimed convention", f"{claim}: {convention_meaning(claim)}" if claim else "none claimed"),
        ("error against its claim", _percent(result.error_against_claim) + _claim_verdict(result)),
        (
            f"error against the correct quantity ({correct})",
            _percent(result.error_against_correct)
            + (f" at {_point(result.correct_region)}" if result.correct_region else ""),
        ),
        (
            f"largest error against the reference ({result.reference})",
            _percent(result.max_relative_error) + (f" at {_point(result.region)}" if result.region else ""),
        ),
        ("calls", f"{result.calls:,} (seed {result.seed})"),
    ]


def _claim_verdict(result: CalculatorConformance) -> str:
    """Whether the values are within the tolerance of the claim, and the failures that fail it apart from them."""
    if result.claimed_convention is None or result.error_against_claim is None:
        return ""
    within = result.error_against_claim <= result.tolerance
    text = f", {'within' if within else 'beyond'} the tolerance"
    if result.failures:
        kinds = ", ".join(dict.fromkeys(failure.kind for failure in result.failures))
        text += f"; it fails its claim by its failures ({kinds})" if within else f"; failures: {kinds}"
    return text


def _failure_rows(result: CalculatorConformance) -> list[list[str]]:
    return [
        [
            item.kind,
            _point(item.counterexample),
            fmt(item.value, 6),
            fmt(item.expected, 6),
            fmt(item.threshold, 6),
            item.message,
        ]
        for item in result.failures
    ]


_FAILURE_HEADERS = ["failure", "minimal counterexample", "returned", "expected", "threshold", "what"]


def _map_table(result: CalculatorConformance) -> tuple[list[str], list[list[str]]]:
    (first, _), (second, _) = AXES[result.quantity]
    correct = REFERENCE_NAMES[result.quantity]
    headers = [first, second, "points", "failed", f"worst error vs {correct}", "at", "returned", "correct"]
    if result.claimed_convention:
        headers.insert(5, "worst error vs claim")
    rows = []
    for row in map_rows(result):
        cells = [fmt(row[first]), fmt(row[second]), str(row["points"]), str(row["failed"])]
        cells.append(_percent(row["error_against_correct"]).split(" (")[0])
        if result.claimed_convention:
            cells.append(fmt(row["error_against_claim"]))
        cells += [_point(row["inputs"]), fmt(row["value"], 6), fmt(row["correct"], 6)]
        rows.append(cells)
    return headers, rows


def _candidates(result: CalculatorConformance) -> list[list[str]]:
    ranked = sorted(result.candidate_errors.items(), key=lambda item: (math.isnan(item[1]), item[1]))
    return [[name, fmt(error), convention_meaning(name, short=True)] for name, error in ranked]


def _text(result: CalculatorConformance, source: str | None, markdown: bool) -> str:
    head = "## " if markdown else ""
    lines = [("# " if markdown else "") + f"Calculator conformance: {result.function}", "", result.summary, ""]
    facts = _facts(result, source)
    if markdown:
        lines += [f"- **{terminal_text(label)}**: {terminal_text(text)}" for label, text in facts]
    else:
        width = max(len(label) for label, _ in facts)
        lines += [f"{label.ljust(width)}  {terminal_text(text)}" for label, text in facts]
    lines += ["", f"{head}Failures", ""]
    rows = _failure_rows(result)
    lines.append(grid(_FAILURE_HEADERS, rows, markdown) if rows else "none")
    headers, rows = _map_table(result)
    (first, _), (second, _) = AXES[result.quantity]
    lines += ["", f"{head}Deviation map over ({first}, {second}): the worst grid point in each cell", ""]
    lines.append(grid(headers, rows, markdown))
    lines += ["", f"{head}Candidate conventions: largest relative deviation from the calculator", ""]
    lines.append(grid(["convention", "largest deviation", "what it computes"], _candidates(result), markdown))
    return "\n".join(line.rstrip() for line in "\n".join(lines).split("\n"))


def _escaped(text: str) -> str:
    return html.escape(terminal_text(text))


def _html_table(identifier: str, headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{_escaped(label)}</th>" for label in headers)
    body = "".join("<tr>" + "".join(f"<td>{_escaped(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<table id="{identifier}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _html(result: CalculatorConformance, source: str | None) -> str:
    # Lazy: the page frame and its styles come with the audit's HTML module (pandas), which text formats don't need.
    from llm_power_verified.report.html import html_page

    facts = "".join(f"<dt>{_escaped(label)}</dt><dd>{_escaped(text)}</dd>" for label, text in _facts(result, source))
    (first, _), (second, _) = AXES[result.quantity]
    failures = _failure_rows(result)
    parts = [
        f'<section id="headline"><p>{_escaped(result.summary)}</p><dl>{facts}</dl></section>',
        '<section id="failures"><h2>Failures</h2>'
        + (_html_table("failure-table", _FAILURE_HEADERS, failures) if failures else "<p>none</p>")
        + "</section>",
        f'<section id="deviation-map"><h2>Deviation map over ({_escaped(first)}, {_escaped(second)})</h2>',
    ]
    try:
        parts.append(f'<figure id="figure-deviation-map">{deviation_figure(result)}</figure>')
    except ArgumentError as missing:
        parts.append(f"<p>{_escaped(str(missing))}</p>")
    parts.append(_html_table("map-table", *_map_table(result)) + "</section>")
    every = [
        [
            _point(item.inputs),
            fmt(item.value, 6),
            fmt(item.correct, 6),
            fmt(item.claimed, 6),
            fmt(item.found, 6),
            fmt(item.error_against_correct),
            fmt(item.error_against_claim),
            fmt(item.error_against_found),
        ]
        for item in result.deviations
    ]
    labels = [
        "inputs",
        "returned",
        "correct",
        "claimed convention",
        "found convention",
        "error vs correct",
        "error vs claim",
        "error vs found",
    ]
    parts.append(
        f'<details id="grid-points"><summary>Every grid point ({len(every)})</summary>'
        f"{_html_table('point-table', labels, every)}</details>"
    )
    parts.append(
        '<section id="candidates"><h2>Candidate conventions</h2>'
        + _html_table("candidate-table", ["convention", "largest deviation", "what it computes"], _candidates(result))
        + "</section>"
    )
    # The page's tables are numeric (right-aligned); the columns of words read from the left.
    words = "#failure-table td:last-child, #candidate-table td:last-child"
    parts.insert(0, f"<style>{words} {{ text-align: left; white-space: normal; }}</style>")
    return html_page(f"Calculator conformance: {result.function}", parts)


def render_conformance(result: CalculatorConformance, format: str = "table", *, source: str | None = None) -> str:
    """The conformance report in one format.

    Parameters
    ----------
    result : CalculatorConformance
        What :func:`~llm_power_verified.testing.conformance.check_calculator` found.
    format : {"table", "markdown", "json", "html"}
        Terminal text, Markdown, the JSON document (:func:`conformance_document`) or one self-contained HTML page
        with the deviation figure inline (SVG; without matplotlib the page says so in its place).
    source : str, optional
        How the calculator was reached, shown beside its name.

    Returns
    -------
    str
        The report (without a final newline, but for HTML).

    Raises
    ------
    ArgumentError
        An unknown format.
    """
    if format == "json":
        return json_text(conformance_document(result, source))
    if format in ("table", "markdown"):
        return _text(result, source, format == "markdown")
    if format == "html":
        return _html(result, source)
    raise ArgumentError(f"format must be one of {', '.join(CONFORMANCE_FORMATS)}; got {format!r}")
