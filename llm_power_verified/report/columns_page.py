"""The column reference page, ``docs/source/reference/columns.rst``, generated from :mod:`llm_power_verified.contract`.

One table per audit (column, meaning, type, digits, range, when present), then
the composite cells of the text tables.  :mod:`.schemas` writes and checks it
beside the JSON schemas.
"""

from __future__ import annotations

from llm_power_verified.contract import COMPOSITES, MODEL_COLUMNS, WHEN, Column, model_columns, pair_columns
from llm_power_verified.leaderboard.summaries import GenerationSummary, ModelGenerations
from llm_power_verified.report.result_docs import attribute_descriptions

__all__ = ["columns_page"]

_NOT_NUMERIC = "\\-"  # an escaped "-" (a bare one would open a list)


def _rst(text: str) -> str:
    """Text as reStructuredText that shows as written (every markup character escaped)."""
    return "".join("\\" + character if character in "\\*`|_[]<>:" else character for character in text)


def _shown_range(bounds: tuple | None) -> str:
    """A declared range as the columns page shows it: [low, high], >= low, <= high, or "any"."""
    if bounds is None:
        return "any"
    low, high = bounds
    return f"[{low}, {high}]" if low is not None and high is not None else f">= {low}" if high is None else f"<= {high}"


def columns_page(header: str = "GENERATED from llm_power_verified/contract; do not edit") -> str:
    """The text of ``columns.rst``: one table per audit, then the composites.

    An audit's table has a row per column: the column, its meaning, type, digits and when it is present.

    Parameters
    ----------
    header : str, optional
        The generated-file notice of its first line (a comment); :mod:`.schemas` names its command in it.

    Returns
    -------
    str
        The reStructuredText page.
    """
    lines = [
        f".. {header}",
        "",
        "Report columns",
        "==============",
        "",
        "Every column of the audits' tables, from the declarations in ``llm_power_verified/contract``.",
        "Digits are the significant digits of the text tables; a range bounds a column's numbers (the JSON schemas "
        "check it; a float may also be null, or infinite at an open end).",
        "Columns marked *default* are the default set of the per-item pair table's machine formats: what Parquet "
        "holds unless ``--columns`` asks for others (``--columns all``: every column; ``--columns default,icc``: the "
        "set and ``icc``).",
        "",
    ]

    def table(title: str, columns: tuple[Column, ...]) -> None:
        lines.extend(
            [
                title,
                "-" * len(title),
                "",
                ".. list-table::",
                "   :header-rows: 1",
                "   :widths: 18 46 8 6 10 12",
                "",
                "   * - column",
                "     - meaning",
                "     - type",
                "     - digits",
                "     - range",
                "     - present",
            ]
        )
        for item in columns:
            lines.extend(
                [
                    f"   * - ``{item.name}``",
                    f"     - {_rst(item.meaning)}",
                    f"     - {item.kind}",
                    f"     - {_NOT_NUMERIC if item.digits is None else item.digits}",
                    f"     - {_rst(_shown_range(item.range)) if item.kind in ('int', 'float') else _NOT_NUMERIC}",
                    f"     - {_rst(WHEN[item.when]) if item.when else 'always'}"
                    + ("; *default*" if item.default and item.audits & {"binary", "graded"} else ""),
                ]
            )
        lines.append("")

    for kind, title in (
        ("binary", "Pairs: per-item audit, 0/1 scores"),
        ("graded", "Pairs: per-item audit, graded scores"),
        ("accuracies", "Pairs: accuracies-only audit"),
    ):
        table(title, pair_columns(kind))
    table("Models: per-item audit", tuple(item for item in MODEL_COLUMNS if item.audits & {"binary", "graded"}))
    table("Models: accuracies-only audit", model_columns("accuracies"))
    lines.extend(["Composite cells of the text tables", "----------------------------------", ""])
    for item in COMPOSITES.values():
        lines.append(
            f"- ``{item.name}`` ({_rst(item.header)}; from {', '.join(f'``{part}``' for part in item.parts)}): "
            f"{_rst(item.meaning)}"
        )
    lines += ["", *_generations_summary()]
    return "\n".join(lines) + "\n"


def _generations_summary() -> list[str]:
    """The keys of the JSON report's ``generations`` summary (several generations per item), as their classes say."""
    title = "The generations summary of a JSON report"
    lines = [
        title,
        "-" * len(title),
        "",
        f"Present {_rst(WHEN['generations'])}; ``models`` maps each model to the keys of the second list.",
        "",
    ]
    for cls in (GenerationSummary, ModelGenerations):
        lines += [f"- ``{name}``: {_rst(text)}" for name, text in attribute_descriptions(cls).items()]
        lines.append("")
    return lines[:-1]
