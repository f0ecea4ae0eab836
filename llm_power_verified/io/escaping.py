r"""Text escaping of every output: names and ids read from an input are shown, never obeyed.

:func:`csv_text` puts a ``'`` before a leading ``= + - @``, tab, CR or NUL (spreadsheet formulas);
:func:`markdown_text` (pipes, HTML, line breaks) and :func:`terminal_text` show C0/C1 controls, bidirectional controls
and line/paragraph separators as escapes: a name cannot move the cursor or reorder or break the text around it.
"""

from __future__ import annotations

import re

__all__ = ["csv_text", "markdown_text", "terminal_lines", "terminal_text"]

#: OWASP and ASVS 1.2.10: a spreadsheet reads a cell starting with one of these as a formula (or strips it first).
_FORMULA = ("=", "+", "-", "@", "\t", "\r", "\x00")


def csv_text(value: str) -> str:
    """A text cell safe to open in a spreadsheet: a leading ``'`` before ``= + - @``, tab, CR or NUL.

    Parameters
    ----------
    value : str
        The cell's text (a model name, an item id, a note).

    Returns
    -------
    str
        ``value``, with a ``'`` in front when it starts with one of ``= + - @``, tab, CR or NUL.

    Notes
    -----
    CSV injection (OWASP; ASVS 1.2.10): a spreadsheet reads a cell that starts with one of those characters as a
    formula.  The quote makes it text; every other cell is unchanged.

    Examples
    --------
    >>> csv_text("=HYPERLINK(1)"), csv_text("-cmd"), csv_text("gpt-4")
    ("'=HYPERLINK(1)", "'-cmd", 'gpt-4')
    """
    return "'" + value if value.startswith(_FORMULA) else value


#: Shown as escapes on a terminal and in Markdown: C0 and C1 controls (ESC moves the cursor), the bidirectional
#: controls (U+061C, U+200E/F, U+202A-E, U+2066-9: they reorder the text after them, "Trojan Source", CVE-2021-42574),
#: the line and paragraph separators U+2028/9 (a line break inside a cell) and lone surrogates (not printable as UTF-8).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_LINE_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # the same without tab and line feed
_INVISIBLE = re.compile("[\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _visible(value: str, control: re.Pattern = _CONTROL) -> str:
    value = control.sub(lambda match: f"\\x{ord(match.group()):02x}", value)
    return _INVISIBLE.sub(lambda match: f"\\u{ord(match.group()):04x}", value)


_MARKDOWN = str.maketrans({"|": "\\|", "<": "&lt;", ">": "&gt;", "&": "&amp;", "\n": "<br>", "\r": "", "`": "\\`"})


def markdown_text(value: str) -> str:
    r"""Text for a Markdown table cell: pipes escaped, HTML neutralised, line breaks as ``<br>``, controls as escapes.

    Parameters
    ----------
    value : str
        The cell's text.

    Returns
    -------
    str
        ``|`` and backquotes escaped with a backslash, ``< > &`` as HTML entities, a line feed as ``<br>`` (a carriage
        return dropped), and the characters :func:`terminal_text` escapes shown as ``\xNN`` or ``\uNNNN``.

    Examples
    --------
    >>> markdown_text("a|b\nc\u202eevil")
    'a\\|b<br>c\\u202eevil'
    """
    return _visible(value.translate(_MARKDOWN))


def terminal_text(value: str) -> str:
    r"""Text for a terminal, so that a name can neither reshape a table nor reorder what follows it.

    Parameters
    ----------
    value : str
        A name, id or label read from an input.

    Returns
    -------
    str
        C0 and C1 control characters (tab and line feed included) as ``\xNN``; the bidirectional controls (U+061C,
        U+200E/F, U+202A-E, U+2066-9), the line and paragraph separators U+2028/9 and lone surrogates as ``\uNNNN``.

    Notes
    -----
    ESC starts a terminal's cursor and colour sequences; the bidirectional controls reorder the text after them
    ("Trojan Source", CVE-2021-42574).

    Examples
    --------
    >>> terminal_text("esc\x1b[31m \u202eevil \u2028next")
    'esc\\x1b[31m \\u202eevil \\u2028next'
    """
    return _visible(value)


def terminal_lines(text: str) -> str:
    r""":func:`terminal_text` for a whole text whose line breaks and tabs stay (the last guard before a terminal).

    Parameters
    ----------
    text : str
        A rendered report.

    Returns
    -------
    str
        ``text`` with every control character but tab and line feed, and the characters :func:`terminal_text` shows
        as ``\uNNNN``, escaped.

    Examples
    --------
    >>> terminal_lines("a\tb\nc\x1bd")
    'a\tb\nc\\x1bd'
    """
    return _visible(text, _LINE_CONTROL)
