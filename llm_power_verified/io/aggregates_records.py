"""What the aggregate readers keep of one result file, and the checks they share.

One :class:`Aggregate` per file: the model, the accuracy as the file stores it
(a binary double), the benchmark size N where the file has it, the standard
error where it has one, and what was read (task, metric, filter, scorer or
split).  :func:`check_stderr` tests the standard error against N;
:mod:`.aggregates` turns the records into an
:class:`~llm_power_verified.io.accuracy_table.AccuracyTable`.
"""

from __future__ import annotations

import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llm_power_verified.contract import MAX_COUNT
from llm_power_verified.io.errors import InputError, describe_value
from llm_power_verified.results import Result

__all__ = [
    "STDERR_TOLERANCE",
    "Aggregate",
    "accuracy_value",
    "check_regular",
    "check_stderr",
    "choose",
    "fitted_n",
    "whole_count",
]

#: Relative tolerance of a standard error against sqrt(p (1 - p) / (N - 1)): the harnesses compute it in doubles
#: (relative error ~1e-15), while N - 1 or N + 1 items change it by about 1 / (2 N), so 1e-9 tells N apart up to
#: N ~ 5e8 and never refuses a standard error written by the harness from N.
STDERR_TOLERANCE = 1e-9


@dataclass(frozen=True, repr=False)
class Aggregate(Result):
    """One model's accuracy as one result file stores it.

    Attributes
    ----------
    path : pathlib.Path
        The file read.
    kind : str
        The harness: "lm-eval", "lighteval", "Inspect" or "HELM".
    model : str
        The model the file names.
    accuracy : float
        The accuracy as stored (a fraction).
    n : int or None
        The benchmark size N the file gives (None: the file has none).
    n_from : str
        Where N was read (for messages and notes).
    what : str
        What was read: task and metric key, scorer, or stat and split.
    stderr : float or None
        The standard error the file gives next to the accuracy (None: none).
    notes : tuple of str
        What the reader has to say about this file.
    """

    path: Path
    kind: str
    model: str
    accuracy: float
    n: int | None
    n_from: str
    what: str
    stderr: float | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def accuracy_value(value: Any, where: str) -> float:
    """An accuracy read from a result file: a finite number in [0, 1], or a refusal naming where and the value.

    Parameters
    ----------
    value : object
        The value read.
    where : str
        The file and key, for the message.

    Returns
    -------
    float
        The accuracy.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where} is {describe_value(value)}; an accuracy is a number in [0, 1]")
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise InputError(
            f"{where} is {value!r}, outside [0, 1]; the accuracies-only audit reads the fraction of items right "
            "(choose another metric with --metric)"
        )
    return float(value)


def whole_count(value: Any, where: str) -> int:
    """A benchmark size read from a file: a whole number from 1 to ``MAX_COUNT`` (``200`` or ``200.0``).

    Parameters
    ----------
    value : object
        The value read.
    where : str
        The file and key, for the message.

    Returns
    -------
    int
        The size.
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value != int(value)
        or not 1 <= value <= MAX_COUNT
    ):
        raise InputError(
            f"{where} is {describe_value(value)}; a number of items is a whole number from 1 to {MAX_COUNT:,}"
        )
    return int(value)


def choose(kind: str, names: list[str], chosen: str | None, flag: str, where: str) -> str:
    """The one of ``names`` that ``chosen`` names, or the only one; otherwise a refusal listing them with the flag.

    Parameters
    ----------
    kind : str
        What is chosen ("task", "metric", "scorer", ...).
    names : list of str
        What the file holds.
    chosen : str or None
        What the user gave with ``flag``.
    flag : str
        The option that chooses.
    where : str
        The file (and place), for the message.

    Returns
    -------
    str
        The name chosen.
    """
    listed = ", ".join(map(repr, names[:20])) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
    if chosen is not None:
        if chosen not in names:
            raise InputError(f"{where}: no {kind} {chosen!r} ({kind}s present: {listed or 'none'}); choose with {flag}")
        return chosen
    if len(names) != 1:
        raise InputError(
            f"{where}: {len(names)} {kind}s ({listed or 'none'}); choose one with {flag}"
            if names
            else f"{where}: no {kind} to read"
        )
    return names[0]


def check_stderr(stderr: Any, accuracy: float, n: int, where: str, n_from: str) -> tuple[float | None, str | None]:
    """Test a stored standard error against the N the accuracy is said to be over.

    Parameters
    ----------
    stderr : object
        The standard error the file stores (None or lm-eval's "N/A": none).
    accuracy : float
        The accuracy p.
    n : int
        The benchmark size N.
    where : str
        The file and key of the standard error, for the message.
    n_from : str
        Where N was read, for the message.

    Returns
    -------
    (float or None, str or None)
        The standard error, and a note when there is none to test.

    Raises
    ------
    InputError
        The standard error is not a number, or differs from sqrt(p (1 - p) / (N - 1)) by more than
        ``STDERR_TOLERANCE`` (relative): the accuracy was not computed on N items.

    Notes
    -----
    lm-eval, lighteval and Inspect write the standard error of a mean of 0/1 scores as the sample standard deviation
    over sqrt(N), s / sqrt(N) = sqrt(p (1 - p) / (N - 1)); the N it fits is p (1 - p) / se^2 + 1.
    """
    if stderr is None or stderr == "N/A":
        return None, f"{where} holds no standard error, so N is not checked against it"
    if isinstance(stderr, bool) or not isinstance(stderr, (int, float)) or not math.isfinite(stderr) or stderr < 0:
        raise InputError(f"{where} is {describe_value(stderr)}; a standard error is a finite number >= 0")
    expected = math.sqrt(accuracy * (1 - accuracy) / (n - 1)) if n > 1 else 0.0
    if abs(stderr - expected) <= STDERR_TOLERANCE * expected:
        return float(stderr), None
    fits = fitted_n(accuracy, stderr) if stderr > 0 else "fits no N (it is 0 while the accuracy is not 0 or 1)"
    raise InputError(
        f"{where} is {stderr!r}, but an accuracy of {accuracy!r} over N = {n:,} ({n_from}) has standard error "
        f"{expected:.10g} (sqrt(p (1 - p) / (N - 1))); it {fits}: the accuracy was not computed on N items (an edited "
        "or merged file?)"
    )


def fitted_n(accuracy: float, stderr: float) -> str:
    """The N a standard error fits, p (1 - p) / se^2 + 1, as a phrase: "fits N = 60" (a whole number of items).

    Parameters
    ----------
    accuracy : float
        The accuracy p, strictly between 0 and 1.
    stderr : float
        The standard error, finite and > 0.

    Returns
    -------
    str
        "fits N = K" when the value is a whole K from 2 to ``MAX_COUNT`` (to 1e-6 relative: the doubles' rounding),
        "fits no whole N (... = X)" when it lies between two, "fits no N from 2 to MAX_COUNT" otherwise (a standard
        error so small that its square underflows, or so large that no N of two items or more gives it).

    Examples
    --------
    >>> fitted_n(0.5, math.sqrt(0.25 / 59))
    'fits N = 60'
    """
    square = stderr * stderr  # a product, not **: no OverflowError for a huge stderr, 0.0 for a tiny one
    fit = accuracy * (1 - accuracy) / square + 1 if square > 0 else math.inf
    if not 2 <= fit <= MAX_COUNT:
        return f"fits no N from 2 to {MAX_COUNT:,}"
    if abs(fit - round(fit)) <= 1e-6 * fit:
        return f"fits N = {round(fit):,}"
    return f"fits no whole N (p (1 - p) / se^2 + 1 = {fit:,.1f})"


def check_regular(path: Path) -> None:
    """Refuse a pipe, a device or a socket where a result file is found by its name.

    Parameters
    ----------
    path : pathlib.Path
        A file found by its name (a ``results_*.json``, a HELM run's ``stats.json`` or ``run_spec.json``, an Inspect
        ``.eval``): it is opened to recognise it, then to read it, and a pipe without a writer would block for ever.

    Raises
    ------
    InputError
        Naming the path and what it is.  A missing path passes (its reader says so).
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if stat.S_ISFIFO(mode):
        what = "a pipe"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        what = "a device"
    elif stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    else:
        what = "not a regular file"
    raise InputError(
        f"{path}: {what}, not a file; a harness result file is recognised by its name and read from a file "
        "(it is opened twice: to recognise it, then to read it): give the file itself"
    )
