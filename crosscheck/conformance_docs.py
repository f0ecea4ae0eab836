"""The tables of the calculator-conformance docs page, rendered from the stored conformance run.

``docs/source/reference/calculator-conformance.rst`` holds the tables between its ``calculator-conformance-begin``
and ``-end`` markers; :func:`render_rst` makes them from ``crosscheck/data/conformance.json`` (one table per
quantity, then the tools that were not run), and a test compares the page with that rendering.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from crosscheck.tool_adapters_python import SLOW_TIMEOUT

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "source" / "reference" / "calculator-conformance.rst"
BEGIN, END = ".. calculator-conformance-begin", ".. calculator-conformance-end"

TITLES = {
    "required_n": "Required N for two paired proportions (reference: the paired N* of Eq. 6)",
    "pvalue": "McNemar p-value from the discordant counts b, c (reference: the exact two-sided p)",
    "power_paired_t": "Power of the paired t test (reference: the exact two-sided noncentral-t power)",
    "required_n_paired_t": "Pairs a paired t test needs (reference: the exact two-sided noncentral-t n)",
}
HEADER = ["tool (version)", "function", "claims", "implements", "as claimed", "largest error vs correct", "failures"]
_NAMES = {"p_a": "p_A", "p_b": "p_B", "effect_size": "d"}
#: What check_calculator's message says when a call ran out of time.
TIMEOUT_MESSAGE = "no answer within"
#: Above this discordant total the slow tools' calls (a Python list or a table of b + c rows) approach their time
#: limit of SLOW_TIMEOUT s here (errorbars' exact sum took 0.25 s at 3,783): a failure threshold above it may be
#: the time limit's, which depends on the machine.
TIME_LIMITED_TOTAL = 2048


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _where(point: dict[str, Any]) -> str:
    return ", ".join(f"{_NAMES.get(name, name)} {_number(value)}" for name, value in point.items())


def _percent(error: Any) -> str:
    """A relative error: small ones as a number, moderate ones in percent, huge ones as a factor."""
    if error is None:
        return "n/a"
    if isinstance(error, str) or not math.isfinite(error):
        return "unbounded"
    if error < 1e-4:
        return f"{error:.2g}"
    return f"{100 * error:.3g}%" if error < 10 else f"relative {error:.2g}"


def _failure(failure: dict[str, Any], timeout: float) -> str:
    kind, message = failure["kind"], failure.get("message", "")
    threshold = failure.get("threshold")
    if TIMEOUT_MESSAGE in message or kind == "timeout":
        start = f" from b + c = {_number(threshold)}" if threshold is not None else ""
        return f"time limit ({timeout:g} s a call, depends on the machine){start}: {_short(message)}"
    if threshold is not None:
        text = f"{kind}: {_short(message, 140)}"
        if timeout <= SLOW_TIMEOUT and threshold > TIME_LIMITED_TOTAL:
            text += f" (calls this large take about the {timeout:g} s limit here: the threshold depends on the machine)"
        return text
    return f"{kind}: {_short(message)}"


def _short(message: str, limit: int = 110) -> str:
    return message if len(message) <= limit else message[: limit - 3] + "..."


def _escape(text: str) -> str:
    """Text safe inside a list-table cell (no inline markup, no trailing backslash)."""
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("`", "\\`").replace("|", "\\|").replace("_", "\\_")


def _row(record: dict[str, Any]) -> list[str]:
    result = record["conformance"]
    tool = f"{record['tool']} ({record['version']})"
    if record["status"] == "documented":
        tool = f"{record['tool']} (reproduced from documentation)"
    as_claimed = {True: "yes", False: "no", None: "no claim"}[result["conforms_to_claim"]]
    if result["conforms_to_claim"] is False:
        error = result["error_against_claim"]
        within = isinstance(error, (int, float)) and error <= result["tolerance"]
        as_claimed = "values yes; fails (see failures)" if within else f"no ({_percent(error)} off)"
    correct = _percent(result["error_against_correct"])
    if result.get("correct_region"):
        correct += f" at {_where(result['correct_region'])}"
    failures = "; ".join(_failure(failure, record["timeout"]) for failure in result["failures"]) or "none"
    cells = [
        tool,
        record["function"],
        record["claim"] or "its own formula (no candidate; see its source)",
        result["convention"] or f"none found (closest: {result['closest']})",
        as_claimed,
        correct,
        failures,
    ]
    return [_escape(cell) for cell in cells]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: 14 20 10 12 8 16 20", ""]
    for row in [header, *rows]:
        lines += [f"   * - {row[0]}"] + [f"     - {value}" for value in row[1:]]
    return [*lines, ""]


def render_rst(run: dict[str, Any]) -> str:
    """The page's tables (reStructuredText) from a stored run."""
    environment = run["environment"]
    lines = [
        f"Generated by ``{run['generator']}`` on {run.get('date', 'the run date')}: Python {environment['python']}, "
        f"NumPy {environment['numpy']}, SciPy {environment['scipy']}, {environment.get('R', 'R not available')}, "
        f"pwr {environment.get('pwr', 'not available')}; seed {run['settings']['seed']}, "
        f"{run['settings']['max_examples']} property-search examples per function; "
        f"{len(run['records'])} tool functions, {sum(record.get('seconds', 0) for record in run['records']):.0f} s "
        "of checking in all (each record keeps its own time).",
        "",
    ]
    for quantity, title in TITLES.items():
        rows = [
            _row(record)
            for record in run["records"]
            if record["quantity"] == quantity and record["status"] in ("run", "documented")
        ]
        if rows:
            lines += [f"**{title}**", "", *_table(HEADER, rows)]
    lines += ["Where each claim is documented:", ""]
    lines += [
        f"* {_escape(record['tool'])}, {_escape(record['function'])}: {_escape(record['claim_source'])}"
        for record in run["records"]
    ]
    lines.append("")
    skipped = [record for record in run["records"] if record["status"] == "skipped"]
    if skipped:
        lines += ["Not run here:", ""]
        lines += [f"* {_escape(record['key'])}: {_escape(record['reason'])}" for record in skipped]
    return "\n".join(lines).strip("\n")


def docs_section(text: str) -> str:
    """The text between the page's markers."""
    start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:stop].strip("\n")


def write_docs(run: dict[str, Any], path: Path = DOCS) -> None:
    """Rewrite the tables between the markers of the docs page."""
    text = path.read_text(encoding="utf-8")
    start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
    path.write_text(f"{text[:start]}\n\n{render_rst(run)}\n\n{text[stop:]}", encoding="utf-8")
