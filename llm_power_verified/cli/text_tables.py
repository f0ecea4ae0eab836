"""The text tables of the small commands (design, crosscheck, audit-calculator, plan).

They go through the report's one table renderer (:func:`~llm_power_verified.report.table.grid`).
"""

from __future__ import annotations

import math

__all__ = ["format_value", "render_rows"]


def format_value(value) -> str:
    """One value as a table or report shows it.

    Parameters
    ----------
    value : object
        A number, None, or anything with a ``str``.

    Returns
    -------
    str
        "n/a" for None, "inf" for an infinite float, a float to 7 significant digits, anything else as ``str``.

    Examples
    --------
    >>> format_value(None), format_value(float("inf")), format_value(2 / 3), format_value(12)
    ('n/a', 'inf', '0.6666667', '12')
    """
    if value is None:
        return "n/a"
    if isinstance(value, float):
        if math.isinf(value):
            return "inf"
        return f"{value:.7g}"
    return str(value)


def render_rows(rows: list[dict], columns: list[tuple[str, str]], output: str) -> str:
    """A small table of dict rows, plain or Markdown, through the report's one renderer.

    Parameters
    ----------
    rows : list of dict
        One dict per row; a key a row lacks is shown as "-", a bool as yes/no, a float by :func:`format_value`.
    columns : list of tuple of (str, str)
        (key, title) of each column, in order.
    output : {"table", "markdown"}
        The format ("markdown": a Markdown table; anything else: plain text).

    Returns
    -------
    str
        The table.
    """

    def cell(value):
        if value is None:
            return "-"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float):
            return format_value(value)
        return str(value)

    # Lazy: the renderer's escaping imports numpy (0.1 s) through the results module, which `--help` does not need.
    from llm_power_verified.report.table import grid

    return grid(
        [title for _, title in columns],
        [[cell(row.get(key)) for key, _ in columns] for row in rows],
        output == "markdown",
    )
