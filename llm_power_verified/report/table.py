"""The one text-table renderer: plain columns for the terminal, or a Markdown table.

Every cell is escaped for its format.
"""

from __future__ import annotations

from llm_power_verified.io.escaping import markdown_text, terminal_text

__all__ = ["grid"]


def grid(headers: list[str], rows: list[list[str]], markdown: bool) -> str:
    """A text table: plain columns for the terminal, or a Markdown table; every cell escaped for its format.

    Parameters
    ----------
    headers : list of str
        The column labels.
    rows : list of list of str
        The cells.
    markdown : bool
        Markdown (True) or plain columns separated by two spaces.

    Returns
    -------
    str
        The table, without a final newline.

    Examples
    --------
    >>> print(grid(["model", "q"], [["x", "1.2"], ["long-name", "0.5"]], markdown=True))
    | model | q |
    |---|---|
    | x | 1.2 |
    | long-name | 0.5 |
    """
    escape = markdown_text if markdown else terminal_text
    headers = [escape(str(h)) for h in headers]
    rows = [[escape(str(cell)) for cell in row] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines)
