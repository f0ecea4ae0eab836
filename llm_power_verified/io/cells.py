"""What a cell of an input may hold: the one number rule, and the ids, names and labels of items, models and clusters.

**What is a number.**  One rule for every number read from text (score cells of every table, plain
score files, the accuracies and ``n`` of an accuracy table):

* a number is written in ASCII: an optional sign, digits with an optional
  decimal point (``1.`` and ``.5`` included), an optional exponent
  (``1e-3``, ``2E+1``); spaces and tabs around it are ignored (``" 1"``);
* ``inf``/``infinity`` in any case, with a sign or not, reads as infinite,
  and an infinite score is then refused as not finite (so is ``1e400``);
* missing, in table cells only: empty, or one of ``NA``, ``NaN``, ``null``,
  ``None``, ``n/a`` in any case (``MISSING_TEXT``); a plain score file
  has no missing values;
* not numbers, refused naming the line, cell and value: Python's underscore
  literals (``1_000``, ``0_1``), hexadecimal (``0x1``), digits outside ASCII
  (``١``, which ``float`` would accept), other blanks (a no-break space),
  ``TRUE``/``FALSE``, decimal commas, thousands separators and units;
* typed values keep their type: integers and floats in Parquet and JSON are
  numbers as they are (NaN, which only Parquet can hold, is missing), typed
  booleans (a Parquet bool column, JSON ``true``/``false``) are 1 and 0; a
  text value goes through the rule above.

Names, ids and labels are text that can be written: a lone surrogate (which no UTF-8 file can hold, but a DataFrame
can) and a NUL character (which ends a C string and makes a table file unreadable) are refused; other control
characters are kept and escaped by every output format (:mod:`llm_power_verified.io.escaping`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.io.errors import InputError, describe_value

__all__ = [
    "EXACT_FLOATS",
    "FINITE_NUMBER",
    "MISSING_TEXT",
    "exact_text",
    "is_missing_label",
    "item_text",
    "label_codes",
    "number_cells",
    "number_matrix",
    "read_number",
    "row_place",
    "text_problem",
]

#: Texts read as a missing value, in any case and with blanks around them ignored (an empty score
#: cell, a missing cluster label).
MISSING_TEXT = frozenset({"", "na", "nan", "null", "none", "n/a"})

#: A finite number as text (module notes: what is a number).
FINITE_NUMBER = re.compile(r"[ \t]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t]*")
_INFINITE = re.compile(r"[ \t]*[+-]?inf(?:inity)?[ \t]*", re.IGNORECASE)
_NUMBER = re.compile(f"{FINITE_NUMBER.pattern}|{_INFINITE.pattern}", re.IGNORECASE)
#: pandas 3 parses floats correctly rounded by default (and deprecates the option); pandas 2's default
#: "high" parser can be one ulp off, so it is asked for the round-trip parser.
EXACT_FLOATS = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
_NUL = "\x00"


def row_place(lines, row) -> str:
    """Where a row came from, for a message.

    Parameters
    ----------
    lines : sequence of int or str
        Per row, its line number in a table, or a place a harness reader gives (``"file, line N"``).
    row : int
        The row.

    Returns
    -------
    str
        ``"line N"`` for a number, the text itself otherwise.

    Examples
    --------
    >>> row_place([2, 3], 1), row_place(["run.jsonl, line 7"], 0)
    ('line 3', 'run.jsonl, line 7')
    """
    value = lines[row]
    return f"line {value}" if isinstance(value, (int, np.integer)) else str(value)


def is_missing_label(value: object) -> bool:
    """Whether a cell is a missing value: None, NaN/NA, or a text that is blank or one of ``MISSING_TEXT`` in any case.

    Parameters
    ----------
    value : object
        A cell.

    Returns
    -------
    bool
        True for a missing value.

    Examples
    --------
    >>> [is_missing_label(value) for value in ("NA", " nan ", "", "t1", 0)]
    [True, True, True, False, False]
    """
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip().lower() in MISSING_TEXT
    try:
        return bool(value != value)  # NaN and pandas NA
    except (TypeError, ValueError):
        return False


def text_problem(text: str) -> str | None:
    r"""Why a text cannot be a name, id or label, or None.

    Parameters
    ----------
    text : str
        A name, id or label.

    Returns
    -------
    str or None
        "holds a NUL character (U+0000)" or "holds a lone surrogate U+XXXX, which is not text"; None for text that
        can be written.

    Examples
    --------
    >>> text_problem("model\x00a"), text_problem("modèle")
    ('holds a NUL character (U+0000)', None)
    """
    if _NUL in text:
        return "holds a NUL character (U+0000)"
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"holds a lone surrogate U+{ord(text[error.start]):04X}, which is not text"
    return None


def read_number(text: str) -> float | None:
    r"""The number a text spells under the one number rule (module notes), infinite included, or None.

    Parameters
    ----------
    text : str
        A cell or line.

    Returns
    -------
    float or None
        The number, or None for a text that is not one (missing-value texts included).

    Examples
    --------
    >>> [read_number(text) for text in (" 1", "1.", ".5", "+1", "1e-3", "0_1", "0x1", "\u0661", "TRUE")]
    [1.0, 1.0, 0.5, 1.0, 0.001, None, None, None, None]
    """
    return float(text) if _NUMBER.fullmatch(text) else None


def number_cells(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """One column's cells as numbers under the one number rule.

    Parameters
    ----------
    values : pandas.Series
        The column: typed numbers and booleans are taken as they are (NaN missing); texts go through the rule.

    Returns
    -------
    numbers : numpy.ndarray
        float64, NaN where a cell is missing or not a number.
    bad : numpy.ndarray
        bool, True where a cell is not a number and not missing.

    Examples
    --------
    >>> import pandas as pd
    >>> numbers, bad = number_cells(pd.Series(["1", " 0.5", "NA", "x", None], dtype=object))
    >>> numbers.tolist(), bad.tolist()
    ([1.0, 0.5, nan, nan, nan], [False, False, False, True, False])
    """
    if pd.api.types.is_bool_dtype(values.dtype):
        return values.to_numpy(dtype=np.float64, na_value=np.nan), np.zeros(len(values), dtype=bool)
    if pd.api.types.is_numeric_dtype(values.dtype):
        return values.to_numpy(dtype=np.float64, na_value=np.nan), np.zeros(len(values), dtype=bool)
    cells = values.to_numpy(dtype=object)
    result = np.full(cells.size, np.nan)
    bad = np.zeros(cells.size, dtype=bool)
    if pd.api.types.infer_dtype(cells, skipna=True) in ("string", "empty"):
        present = np.flatnonzero(~pd.isna(cells))
        texts = pd.Series(cells[present], dtype=object)
        number = texts.str.fullmatch(_NUMBER).to_numpy(dtype=bool)
        result[present[number]] = texts[number].to_numpy(dtype=object).astype(np.float64)
        missing = texts.str.strip().str.lower().isin(MISSING_TEXT).to_numpy(dtype=bool)
        bad[present[~number & ~missing]] = True
        return result, bad
    for index, value in enumerate(cells):
        if isinstance(value, str):
            number = read_number(value)
            if number is not None:
                result[index] = number
            elif not is_missing_label(value):
                bad[index] = True
        elif isinstance(value, (bool, np.bool_, int, np.integer, float, np.floating)):
            try:
                result[index] = float(value)
            except OverflowError:  # an integer beyond the float range
                result[index] = np.inf if value > 0 else -np.inf
        elif not is_missing_label(value):
            bad[index] = True
    return result, bad


@docfill("source_name")
def number_matrix(
    raw: pd.DataFrame,
    source: str,
    lines: np.ndarray,
    columns: Sequence[str],
    text_hint: Callable[[str, object], str] | None = None,
) -> np.ndarray:
    """Every cell of the score columns as a float: missing cells become NaN, anything else not a number is refused.

    Parameters
    ----------
    raw : pandas.DataFrame
        The score columns.
    %(source_name)s
    lines : numpy.ndarray
        Where each row came from (:func:`row_place`).
    columns : sequence of str
        The columns' names, for messages.
    text_hint : callable, optional
        ``text_hint(column, example) -> str``: the message for a column whose non-missing cells are mostly text
        (a column of ids or labels under a name the reader did not expect).

    Returns
    -------
    numpy.ndarray
        float64, rows x columns.

    Raises
    ------
    InputError
        The first cell that is not a number, naming its line, column and value (a list or object said so).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> number_matrix(pd.DataFrame({"a": ["1", "0"], "b": [0.5, None]}), "t.csv", np.array([2, 3]), ["a", "b"]).tolist()
    [[1.0, 0.5], [0.0, nan]]
    """
    result = np.empty(raw.shape, dtype=np.float64)
    # Typed columns (numbers, booleans) converted together, one block per dtype: what number_cells does to each, without
    # a Python step per column (20,000 columns of a 3-item table: 0.1 s instead of 3 s).
    dtypes = raw.dtypes.to_numpy()
    typed = np.array([pd.api.types.is_numeric_dtype(dtype) for dtype in dtypes], dtype=bool)
    if typed.all():  # the common case: no column selection (a take over 20,000 one-column blocks costs seconds)
        result[:] = raw.to_numpy(dtype=np.float64, na_value=np.nan)
    for dtype in set(dtypes[typed]) if not typed.all() else ():
        same = np.flatnonzero(typed & (dtypes == dtype))
        result[:, same] = raw.iloc[:, same].to_numpy(dtype=np.float64, na_value=np.nan)
    for k in np.flatnonzero(~typed):
        column = columns[k]
        values = raw.iloc[:, k]
        parsed, bad = number_cells(values)
        if bad.any():
            row = int(np.argmax(bad))
            example = values.iloc[row]
            if not isinstance(example, str):
                raise InputError(
                    f"{source}: {row_place(lines, row)}, column {column!r}: {_shown(example)} is {_kind(example)}, "
                    "not a "
                    "number; scores are numbers in [0, 1]"
                )
            if text_hint is not None and bad.sum() > (len(values) - int((np.isnan(parsed) & ~bad).sum())) / 2:
                raise InputError(f"{source}: {text_hint(column, example)}")
            raise InputError(
                f"{source}: {row_place(lines, row)}, column {column!r}: {describe_value(example)} is not a number; "
                "scores are numbers in [0, 1] written like 0, 1 or 0.25 (an empty cell is a missing score)"
            )
        result[:, k] = parsed
    return result


def item_text(value: object) -> str:
    """An id or label as text: 12.0 read from a float column is "12"; surrounding blanks dropped.

    Parameters
    ----------
    value : object
        The cell.

    Returns
    -------
    str
        Its text.

    Examples
    --------
    >>> item_text(12.0), item_text(" q1 ")
    ('12', 'q1')
    """
    return exact_text(value).strip()


def exact_text(value: object) -> str:
    """An id as text, exactly as written (12.0 read from a float column is "12"; blanks kept).

    Parameters
    ----------
    value : object
        The cell.

    Returns
    -------
    str
        Its text.

    Examples
    --------
    >>> exact_text(12.0), exact_text(" q1 ")
    ('12', ' q1 ')
    """
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    return str(value)


_SCALARS = (str, int, float, bool, np.generic)


def _kind(value: object) -> str:
    """What a non-scalar cell is, in JSON's words: "a list", "an object", or its type."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return "a list"
    return "an object" if isinstance(value, dict) else f"a {type(value).__name__}"


def _shown(value: object) -> str:
    return describe_value(value.tolist() if isinstance(value, np.ndarray) else value)


@docfill("source_name")
def label_codes(
    values: pd.Series,
    source: str,
    lines: np.ndarray,
    column: str,
    what: str,
    *,
    text: Callable[[object], str] = item_text,
    missing: Callable[[object], bool] | None = None,
) -> tuple[np.ndarray, list[str]]:
    """The code of each row and the distinct texts of an id, name or label column.

    Parameters
    ----------
    values : pandas.Series
        The column.
    %(source_name)s
    lines : numpy.ndarray
        Where each row came from (:func:`row_place`).
    column : str
        The column's name, for messages.
    what : str
        What a value is, for messages ("a cluster label").
    text : callable, default item_text
        Turns a value into its text, once per distinct value.
    missing : callable, optional
        Says which further values are missing (an empty text, NaN and None always are).

    Returns
    -------
    codes : numpy.ndarray
        int64 per row: the index of its text, -1 for a missing value.
    names : list of str
        The distinct texts; values with one text (1 and "1") share a code.

    Raises
    ------
    InputError
        A value that is not a scalar (a JSON list or object) or whose text holds a NUL character or a lone surrogate,
        naming its line.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> codes, names = label_codes(pd.Series(["t1", 1, "1", None, "t1"], dtype=object), "t.csv", np.arange(2, 7),
    ...                            "cluster", "a cluster label")
    >>> codes.tolist(), names
    ([0, 1, 1, -1, 0], ['t1', '1'])
    """

    def refuse(code_row: int, value: object, problem: str) -> None:
        raise InputError(
            f"{source}: {row_place(lines, code_row)}, column {column!r}: {_shown(value)} {problem}; "
            "item ids, model names and cluster labels are text or numbers"
        )

    try:
        raw_codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError:  # an unhashable value: a JSON list or object
        row, value = next(
            (
                (row, value)
                for row, value in enumerate(values.tolist())
                if not isinstance(value, (*_SCALARS, type(None)))
            ),
            (0, values.iloc[0]),
        )
        refuse(row, value, f"is {_kind(value)}, not {what}")
    names: list[str | None] = []
    for code, value in enumerate(uniques):
        if not isinstance(value, _SCALARS):
            refuse(int(np.argmax(raw_codes == code)), value, f"is {_kind(value)}, not {what}")
        name = text(value)
        if not name.strip() or (missing is not None and missing(value)):
            names.append(None)
            continue
        problem = text_problem(name)
        if problem is not None:
            refuse(int(np.argmax(raw_codes == code)), value, problem)
        names.append(name)
    # Distinct values may share a text (1 and "1"): codes are renumbered per text, through the small table of values.
    per_value, distinct = pd.factorize(np.asarray(names, dtype=object), use_na_sentinel=True)
    return np.append(per_value, -1).astype(np.int64)[raw_codes], [str(name) for name in distinct]
