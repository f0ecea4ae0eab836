"""Two plain score files, one number per line, aligned by position (``test FILE_A FILE_B``, ``monitor``).

These files carry no item ids, so the only alignment there is is the line
order; that is why nothing may shift it: a blank line, a line with two fields
or a value that is not a finite number is an error naming the file and line.
A UTF-8 byte-order mark and CRLF or CR-only line ends are read correctly.
Numbers follow the one rule of :mod:`.tables` (ASCII digits, sign, point,
exponent; no underscores, hexadecimal or other scripts' digits); there is no
missing value here, so ``nan`` and ``inf`` are refused as not finite.  A first
line that is not a number, and does not look like one (it does not start with
a digit, sign or point, and is not ``nan``/``inf``), is a header (it is said in
the notes); the two files must then hold the same number of scores.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from llm_power_verified._docstrings import docfill
from llm_power_verified.io.cells import read_number, text_problem
from llm_power_verified.io.errors import InputError, describe_value
from llm_power_verified.io.matrix import ScoreMatrix, build_matrix
from llm_power_verified.io.text import read_text

__all__ = ["read_score_file", "read_score_files"]

#: A first line that starts like a number (any script's digit, a sign, a point) or spells nan/inf is
#: a damaged score, never a header.
_NUMBER_LIKE = re.compile(r"\s*(?:[+\-.]|\d|(?:nan|inf)\b)", re.IGNORECASE)


def read_score_file(path: str | Path) -> tuple[np.ndarray, str | None]:
    r"""The scores of one plain score file, one number per line, and its header if it has one.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.

    Returns
    -------
    scores : numpy.ndarray
        The scores in line order, float64.
    header : str or None
        The first line, when it is a header (module notes).

    Raises
    ------
    InputError
        A blank line, a value that is not a number (a line with several fields said so), one that is not finite, or a
        file without scores, naming the file and line; and what :func:`~llm_power_verified.io.text.read_text` refuses.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "a.txt"
    ...     _ = path.write_text("correct\n1\n0\n0.5\n")
    ...     scores, header = read_score_file(path)
    >>> scores.tolist(), header
    ([1.0, 0.0, 0.5], 'correct')
    """
    path = Path(path)
    text = read_text(path)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final line end
    header = None
    values = np.empty(len(lines))
    count = 0
    for number, line in enumerate(lines, start=1):
        field = line.strip(" \t")
        if not field:
            raise InputError(
                f"{path}, line {number}: blank line; the files are aligned by line, so every line must hold "
                "one score (remove the line, or write the missing score)"
            )
        value = math.nan if field.lower().lstrip("+-") == "nan" else read_number(field)
        if value is None:
            if number == 1 and not _NUMBER_LIKE.match(field) and text_problem(field) is None:
                header = field
                continue
            more = (
                " (one number per line; this line has several fields)" if any(sep in field for sep in ",;\t ") else ""
            )
            raise InputError(
                f"{path}, line {number}: {describe_value(field)} is not a number{more}; scores are written "
                "like 0, 1 or 0.25 (ASCII digits, no underscores)"
            ) from None
        if not math.isfinite(value):
            raise InputError(f"{path}, line {number}: {describe_value(field)} is not a finite number")
        values[count] = value
        count += 1
    if count == 0:
        raise InputError(f"{path}: no scores")
    return values[:count], header


@docfill("score_kind", returns="score_matrix")
def read_score_files(path_a: str | Path, path_b: str | Path, *, score_kind: str = "auto") -> ScoreMatrix:
    r"""Two plain score files, aligned by line, as a two-model score matrix.

    Parameters
    ----------
    path_a, path_b : str or pathlib.Path
        The two files (models A and B, named by their paths); items are numbered by line.
    %(score_kind)s

    Raises
    ------
    InputError
        What :func:`read_score_file` refuses, two files of different lengths, and what the matrix rules refuse (naming
        the file and line).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = [pathlib.Path(folder) / name for name in ("a.txt", "b.txt")]
    ...     _ = paths[0].write_text("1\n1\n0\n")
    ...     _ = paths[1].write_text("0\n1\n0\n")
    ...     matrix = read_score_files(*paths)
    >>> matrix.scores.tolist(), matrix.item_ids
    ([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]], ('1', '2', '3'))
    """
    paths: Sequence[Path] = (Path(path_a), Path(path_b))
    (scores_a, header_a), (scores_b, header_b) = (read_score_file(path) for path in paths)
    if scores_a.size != scores_b.size:
        raise InputError(
            f"{paths[0]} holds {scores_a.size} scores and {paths[1]} holds {scores_b.size}; "
            "the two files must be aligned item by item"
        )
    offsets = [2 if header else 1 for header in (header_a, header_b)]
    notes = [
        f"{path}: first line {header!r} read as a header"
        for path, header in zip(paths, (header_a, header_b), strict=True)
        if header
    ]
    names = [str(path) for path in paths]
    if names[0] == names[1]:
        names = [f"{names[0]} (A)", f"{names[1]} (B)"]

    def locate(item: int, model: int) -> str:
        return f"{paths[model]}, line {item + offsets[model]}"

    return build_matrix(
        np.column_stack([scores_a, scores_b]),
        names,
        [str(i + 1) for i in range(scores_a.size)],
        score_kind=score_kind,
        source=f"{paths[0]} and {paths[1]}",
        notes=notes,
        locate=locate,
    )
