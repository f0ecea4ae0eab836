"""The value types of the command line's output options (--out, --plot): each checks the text before any work.

The rules that need the inputs too (an output that is an input, two outputs with one target) are checked by
:func:`~llm_power_verified.io.output_paths.check_outputs` once the command line is parsed.
"""

from __future__ import annotations

import argparse
from pathlib import PurePath

from llm_power_verified._docstrings import docfill

__all__ = ["PLOT_SUFFIXES", "output_path", "plot_path"]


@docfill("option_text")
def output_path(text: str) -> str:
    """--out, --plot: the path of an output, not empty and not "-".

    "-" is refused rather than made a file of that name: it usually means standard output, where a report goes
    without --out (``/dev/stdout`` names it explicitly).

    Its other rules are checked before any work, by :func:`~llm_power_verified.io.output_paths.check_outputs`.

    Parameters
    ----------
    %(option_text)s

    Returns
    -------
    str
        The value as given.

    Raises
    ------
    argparse.ArgumentTypeError
        For an empty value or "-".
    """
    if not text:
        raise argparse.ArgumentTypeError(
            "must be a path (a file name, or a folder where the option takes one); got an empty value ''"
        )
    if text == "-":
        raise argparse.ArgumentTypeError(
            "must be a path; got '-', which is not a file name here (a report goes to standard output when --out is "
            "left out; /dev/stdout names it)"
        )
    return text


#: The image files --plot writes on its own (the audit's resolution figure); any other --plot path is a folder.
PLOT_SUFFIXES = (".png", ".svg", ".pdf")
#: Image suffixes of formats the audit's --plot does not write: a path ending so is refused, not made a folder.
_OTHER_IMAGES = (
    ".jpg",
    ".jpeg",
    ".gif",
    ".tif",
    ".tiff",
    ".webp",
    ".bmp",
    ".eps",
    ".ps",
    ".svgz",
    ".pgf",
    ".raw",
    ".rgba",
    ".heic",
    ".avif",
    ".ico",
)


@docfill("option_text")
def plot_path(text: str) -> str:
    """The audit's --plot: a folder (for every figure), or one .png, .svg or .pdf file (the resolution figure).

    Parameters
    ----------
    %(option_text)s

    Returns
    -------
    str
        The value as given.

    Raises
    ------
    argparse.ArgumentTypeError
        An empty value, or a path ending in another image suffix (.jpg, .tif, ...), which would otherwise be taken
        for a folder's name.
    """
    suffix = PurePath(output_path(text)).suffix.lower()
    if suffix in _OTHER_IMAGES:
        raise argparse.ArgumentTypeError(
            f"{text[:80]!r} is a {suffix} image, which the audit's figures are not written "
            "as: name a .png, .svg or .pdf file, or a folder (no suffix)"
        )
    return text
