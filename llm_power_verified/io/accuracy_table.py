"""Leaderboards that print one accuracy per model: (model, accuracy[, n]) tables.

The reader keeps each accuracy as the text it was printed as, because two
facts depend on the printed digits: whether the value is a percentage or a
fraction (``scale``), and which whole counts of correct items k out of N
round to it.  A printed accuracy that no k/N rounds to means the accuracy
and N do not belong together; it is refused, unless the accuracies are
declared approximate (then it is reported with the audit, never corrected).

Numbers follow the one rule of :mod:`.tables` (ASCII digits, optional sign,
point and exponent, blanks around ignored; ``1_000``, ``0x1``, digits of
other scripts, ``inf`` and ``nan`` are refused naming the line, column and
value); an accuracy may end in ``%``.  ``n`` is a whole number from 1 to
2^53 written the same way (``400``, ``400.0``, ``4e2``).  Model names are
text (no NUL character, no lone surrogate; blanks around them dropped; two
that are one name once Unicode-normalised, NFC, or without format characters
such as U+200B are refused); a blank line is nothing (the model column
identifies each row).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

import numpy as np
import pandas as pd

from llm_power_verified.contract import MAX_COUNT
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.cells import FINITE_NUMBER, label_codes
from llm_power_verified.io.errors import InputError, describe_value
from llm_power_verified.io.table_alignment import same_name_repeat
from llm_power_verified.io.table_files import read_frame
from llm_power_verified.io.tables import check_columns
from llm_power_verified.io.text import first_repeat
from llm_power_verified.results import Result

__all__ = ["SCALES", "AccuracyTable", "read_accuracies"]

SCALES = ("auto", "percent", "fraction")
_PERCENT_HEADER = re.compile(r"%|percent|pct", re.IGNORECASE)


@dataclass(frozen=True, repr=False)
class AccuracyTable(Result):
    """One accuracy per model on a benchmark of ``n`` items, as printed.

    ``consistent`` (per model) says whether some whole count k out of n rounds to the printed accuracy.

    Attributes
    ----------
    models : tuple of str
        The models, in the table's order.
    accuracy : numpy.ndarray
        The accuracies as fractions, whatever the scale read.
    printed : tuple of str
        The accuracies as printed.
    n : int
        The benchmark size N.
    scale : {"percent", "fraction"}
        The scale read.
    scale_reason : str
        Why that scale.
    lines : tuple of int
        The line of each model's row.
    count_low, count_high : numpy.ndarray
        int64 per model: the whole numbers k of correct items with k / n rounding to the printed value at its printed
        digits lie in [count_low, count_high] (none when count_low > count_high).
    source : str
        Where the table came from.
    notes : tuple of str
        The scale read, and the inconsistent accuracies when there are any.

    Examples
    --------
    >>> from importlib.resources import files
    >>> table = read_accuracies(files("llm_power_verified") / "data" / "mmlu_pro_accuracies.csv")
    >>> len(table.models), table.n, table.scale, round(float(table.accuracy[0]), 4), bool(table.consistent.all())
    (26, 12032, 'percent', 0.6282, True)
    """

    models: tuple[str, ...]
    accuracy: np.ndarray
    printed: tuple[str, ...]
    n: int
    scale: str
    scale_reason: str
    lines: tuple[int, ...]
    count_low: np.ndarray
    count_high: np.ndarray
    source: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def consistent(self) -> np.ndarray:
        """Per model: some whole count k out of n rounds to the printed accuracy."""
        return self.count_low <= self.count_high


def _decimal(
    text: str, where: str, column: str, allowed: str = "accuracies are numbers such as 0.7303 or 73.03"
) -> Decimal:
    """The exact decimal a text spells under the number rule (module notes), or a refusal naming the place."""
    if not FINITE_NUMBER.fullmatch(text):
        raise InputError(
            f"{where}: {column} {describe_value(text)} is not a number; {allowed} (ASCII digits, no underscores)"
        )
    try:
        return Decimal(text.strip(" \t"))
    except InvalidOperation:  # pragma: no cover - the pattern admits only what Decimal reads
        raise InputError(f"{where}: {column} {describe_value(text)} is not a number; {allowed}") from None


def _texts(
    frame: pd.DataFrame, column: str, source: str, lines: np.ndarray, missing: str = "every model needs its accuracy"
) -> list[str]:
    texts = []
    for row, value in enumerate(frame[column].tolist()):
        where = f"{source}, line {lines[row]}"
        if value is None or (isinstance(value, float) and math.isnan(value)) or str(value).strip() == "":
            raise InputError(f"{where}: {column} is missing; {missing}")
        if isinstance(value, (bool, np.bool_)):  # JSON's true/false, a Parquet boolean: shown as JSON writes them
            raise InputError(f"{where}: {column} {str(bool(value)).lower()} (a true/false value) is not a number")
        if not isinstance(value, (str, int, float, np.integer, np.floating)):
            raise InputError(f"{where}: {column} {describe_value(value)} is not a number")
        # A float read from Parquet or JSON has no printed text; its shortest repr is the printed value.
        texts.append(
            value.strip(" \t")
            if isinstance(value, str)
            else repr(float(value))
            if isinstance(value, (float, np.floating))
            else str(value)
        )
    return texts


def _scale(texts: list[str], values: list[Decimal], column: str, scale: str, where: list[str]) -> tuple[str, str]:
    """Which scale the accuracies are on, and why; refuses a table that mixes the two."""
    signs = [text.endswith("%") for text in texts]
    if any(signs) and not all(signs):
        row = signs.index(not signs[0])
        raise InputError(
            f"{where[row]}: {column} {texts[row]!r} {'has' if signs[row] else 'lacks'} a % sign that "
            f"{texts[0]!r} on the first row {'lacks' if signs[row] else 'has'}; write every accuracy the same way"
        )
    if scale != "auto":
        return scale, f"as --accuracy-scale {scale} says"
    largest, median = max(values), sorted(values)[len(values) // 2]  # the upper median (the middle value, or above it)
    # What was seen, and the flag that reads it otherwise: the note says both.
    seen = f"median {median}, largest {largest}"
    if all(signs):
        return "percent", f"every accuracy carries a % sign ({seen}); --accuracy-scale fraction reads them otherwise"
    if _PERCENT_HEADER.search(column):  # the name is evidence, not proof: values at most 1 contradict it
        small = [row for row, value in enumerate(values) if value <= 1]
        if len(small) == len(values):
            row = values.index(largest)
            raise InputError(
                f"{where[row]}: {column} {texts[row]} is the largest accuracy and every one lies in [0, 1] although "
                f"the column is named {column!r}: fractions, or percentages all under 1%? Force one reading with "
                "--accuracy-scale percent|fraction"
            )
        if small:
            row = small[0]
            raise InputError(
                f"{where[row]}: {column} {texts[row]} looks like a fraction among percentages (median {median}; the "
                f"column is named {column!r}); fix the row, or force one reading with --accuracy-scale percent|fraction"
            )
        return "percent", f"the column is named {column!r} ({seen}); --accuracy-scale fraction reads them otherwise"
    if largest > 1:
        small = [row for row, value in enumerate(values) if value <= 1]
        if small and median > 10:
            row = small[0]
            raise InputError(
                f"{where[row]}: {column} {texts[row]} looks like a fraction among percentages (median "
                f"{median}); fix the row, or force one reading with --accuracy-scale percent|fraction"
            )
        if median <= 1:  # most look like fractions: a stray value, or percentages under 1%? Only the user knows.
            row = values.index(largest)
            raise InputError(
                f"{where[row]}: {column} {texts[row]} exceeds 1 while most accuracies are at most 1 (median "
                f"{median}): a fraction table with a stray value, or percentages mostly under 1%? Fix the row, or "
                "force one reading with --accuracy-scale percent|fraction"
            )
        return "percent", (
            f"the median accuracy, {median}, and the largest, {largest}, exceed 1; "
            "--accuracy-scale fraction reads them otherwise"
        )
    return "fraction", f"every accuracy lies in [0, 1] ({seen}); --accuracy-scale percent reads them as percentages"


def _counts(values: list[Decimal], factor: Decimal, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Whole k with k / n (times ``factor``) rounding to each printed value at its printed digits."""
    low, high = [], []
    for value in values:
        exponent = value.as_tuple().exponent
        # Half a unit of the last printed digit, and never finer than the double it was printed from: a float's shortest
        # repr (Parquet, JSON, a DataFrame, a script's CSV) may be k/n's nearest double, up to half an ulp away.
        half = max(Decimal(5).scaleb(exponent - 1), Decimal(math.ulp(float(value))))
        # Exact decimal arithmetic: k in [n (value - half) / factor, n (value + half) / factor].
        low.append(int(((value - half) * n / factor).to_integral_value(rounding="ROUND_CEILING")))
        high.append(int(((value + half) * n / factor).to_integral_value(rounding="ROUND_FLOOR")))
    return np.maximum(np.asarray(low, dtype=np.int64), 0), np.minimum(np.asarray(high, dtype=np.int64), n)


def _benchmark_size(frame: pd.DataFrame, n_column: str, n: int | None, source: str, lines: np.ndarray) -> int:
    if n_column in frame.columns:
        texts = _texts(
            frame, n_column, source, lines, "give every row the benchmark size, or leave the column out and give --n N"
        )
        sizes = [
            _decimal(text, f"{source}, line {lines[row]}", n_column, "the benchmark size is a whole number such as 400")
            for row, text in enumerate(texts)
        ]
        for row, size in enumerate(sizes):
            if size != size.to_integral_value() or size < 1 or size > MAX_COUNT:
                raise InputError(
                    f"{source}, line {lines[row]}: {n_column} {texts[row]} is not a whole number of items "
                    f"from 1 to {MAX_COUNT:,}"
                )
            if size != sizes[0]:
                raise InputError(
                    f"{source}, line {lines[row]}: {n_column} {texts[row]} differs from {texts[0]} on line {lines[0]}; "
                    "a paired comparison needs every model scored on the same items; split the table by benchmark size"
                )
        if n is not None and int(sizes[0]) != n:
            raise InputError(f"{source}: --n {n} contradicts the {n_column} column ({texts[0]}); give one of them")
        return int(sizes[0])
    if n is None:
        raise InputError(
            f"{source}: no {n_column!r} column and no benchmark size; give it with --n N (the number of items)"
        )
    return n


def _model_names(column: pd.Series, name: str, lines, model_column: str, where: list[str]) -> list[str]:
    """The model names of the table's rows, each present once and spelled one way, or the refusal naming the line."""
    codes, names = label_codes(
        column,
        name,
        lines,
        model_column,
        "a model name",
        text=lambda value: str(value).strip(),
        missing=lambda value: isinstance(value, str) and value.strip().lower() in ("nan", "none"),
    )
    if (codes < 0).any():
        raise InputError(f"{where[int(np.argmax(codes < 0))]}: the model name is missing")
    models = [names[code] for code in codes]
    repeat = first_repeat(models)
    if repeat is not None:
        raise InputError(
            f"{where[repeat[1]]}: model {models[repeat[1]]!r} appears twice (also line {lines[repeat[0]]}); one row "
            "per model"
        )
    alike = same_name_repeat(models)
    if alike is not None:
        first, second, how = alike
        raise InputError(
            f"{where[second]}: model {models[second]!r} and {models[first]!r} (line {lines[first]}) are the same name "
            f"once {how}; one row per model, spelled one way"
        )
    return models


def read_accuracies(
    source,
    *,
    n: int | None = None,
    model_column: str = "model",
    accuracy_column: str = "accuracy",
    n_column: str = "n",
    scale: str = "auto",
    approximate: bool = False,
) -> AccuracyTable:
    """Read a (model, accuracy[, n]) table from CSV/TSV, Parquet, JSON Lines or a DataFrame.

    Parameters
    ----------
    source : str, pathlib.Path or pandas.DataFrame
        The table.
    n : int, optional
        The benchmark size, a whole number from 1 to ``MAX_COUNT``; needed when the table has no ``n_column``
        (``--n``), and then the column must agree with it.
    model_column, accuracy_column, n_column : str, default "model", "accuracy", "n"
        The columns (``--model-column``, ``--accuracy-column``; ``n_column`` optional): a table with ``n_column``
        gives the same n on every row.
    scale : {"auto", "percent", "fraction"}, default "auto"
        "auto" reads percentages when every value carries a % sign, the column name says percent, or some value
        exceeds 1 and the median does too, and fractions when every value is at most 1 (the table says which and
        why); a value over 1 among a majority at most 1 is ambiguous and refused; "percent" or "fraction" forces a
        reading (``--accuracy-scale``).
    approximate : bool, default False
        Accept printed accuracies that no whole count k out of N gives at their printed digits (macro-averages,
        values rounded elsewhere; ``--approximate-accuracies``): they are listed in the notes instead of refused.

    Returns
    -------
    AccuracyTable
        The accuracies as fractions, with what was printed and the counts k consistent with it.

    Raises
    ------
    ArgumentError
        An unknown ``scale``, or ``n`` that is not a whole number in range.
    InputError
        A missing column, fewer than two models, a missing or repeated model name, an accuracy that is not a number,
        a % sign on some rows only, a fraction among percentages (also under a column named as percent, or every
        value at most 1 there), an accuracy not strictly between 0 and all items, one that no k/N gives (unless
        ``approximate``),
        sizes that differ, contradict ``n`` or are not whole numbers, naming the line; and what
        :func:`~llm_power_verified.io.table_files.read_frame` refuses.

    Notes
    -----
    A printed accuracy x with d decimals is consistent with N when some whole k has k / N (times 100 for
    percentages) in [x - 0.5 10^-d, x + 0.5 10^-d], computed in exact decimal arithmetic.  An inconsistent one means
    the accuracy and N do not belong together: it is refused, or with ``approximate`` reported in the notes (never
    corrected).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"model": ["a", "b"], "accuracy": ["0.71", "0.7123"]})
    >>> table = read_accuracies(frame, n=400, approximate=True)
    >>> table.count_low.tolist(), table.count_high.tolist(), table.consistent.tolist()
    ([282, 285], [286, 284], [True, False])
    """
    if scale not in SCALES:
        raise ArgumentError(f"scale must be one of {SCALES}; got {scale!r}")
    if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_COUNT):
        raise ArgumentError(f"n must be a whole number of items from 1 to {MAX_COUNT:,}; got {n!r}")
    if isinstance(source, pd.DataFrame):
        frame, lines, name = check_columns(source, "DataFrame"), np.arange(1, len(source) + 1), "DataFrame"
    else:
        frame, lines = read_frame(source, (model_column, accuracy_column, n_column), model_column)
        name = str(Path(source))
    for column, flag in ((model_column, "--model-column"), (accuracy_column, "--accuracy-column")):
        if column not in frame.columns:
            raise InputError(
                f"{name}: no {column!r} column (columns: {', '.join(map(str, frame.columns))}); name it with {flag}"
            )
    if len(frame) < 2:
        raise InputError(f"{name}: {len(frame)} model(s); a comparison needs at least two")
    where = [f"{name}, line {line}" for line in lines]
    models = _model_names(frame[model_column], name, lines, model_column, where)
    texts = _texts(frame, accuracy_column, name, lines)
    values = [_decimal(text.removesuffix("%"), where[row], accuracy_column) for row, text in enumerate(texts)]
    chosen, reason = _scale(texts, values, accuracy_column, scale, where)
    top = Decimal(100) if chosen == "percent" else Decimal(1)
    for row, value in enumerate(values):
        if not 0 < value < top:
            raise InputError(
                f"{where[row]}: {accuracy_column} {texts[row]} read as "
                f"{'a percentage' if chosen == 'percent' else 'a fraction'} "
                f"must lie strictly between 0 and {top}; an accuracy of 0 or all items leaves no per-item variance to "
                "pair"
            )
    size = _benchmark_size(frame, n_column, n, name, lines)
    low, high = _counts(values, top, size)
    notes = [f"accuracies read as {'percentages' if chosen == 'percent' else 'fractions'}: {reason}"]
    bad = np.flatnonzero(low > high)
    if bad.size and not approximate:
        row = int(bad[0])
        others = f"; {bad.size} of {len(models)} accuracies are not" if bad.size > 1 else ""
        raise InputError(
            f"{where[row]}: {accuracy_column} {texts[row]} is not k/{size:,} for any whole k at its printed digits "
            f"(N = {size:,}{others}); check N (the {n_column!r} column or --n) or the accuracies, or pass "
            "--approximate-accuracies if they are averages or were rounded elsewhere"
        )
    if bad.size:
        listed = ", ".join(f"{models[k]} ({texts[k]})" for k in bad[:5]) + (
            f" and {bad.size - 5} more" if bad.size > 5 else ""
        )
        notes.append(
            f"inputs inconsistent: {bad.size} of {len(models)} printed accuracies are not k/{size:,} for any whole k "
            f"at their printed digits: {listed}; accepted as approximate (--approximate-accuracies)"
        )
    accuracy = np.asarray([float(value / top) for value in values])
    return AccuracyTable(
        models=tuple(models),
        accuracy=accuracy,
        printed=tuple(texts),
        n=size,
        scale=chosen,
        scale_reason=reason,
        lines=tuple(int(line) for line in lines),
        count_low=low,
        count_high=high,
        source=name,
        notes=tuple(notes),
    )
