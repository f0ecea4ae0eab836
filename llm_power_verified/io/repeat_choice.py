"""Choosing among the repeats of an item: Inspect epochs, HELM train trials, OpenAI evals' repeated events.

A harness may score one item several times: Inspect runs ``epochs``, HELM ``train_trial_index`` (draws of the
few-shot examples), an OpenAI evals log several events of one type for a sample (n > 1 answers, retries).  The
readers choose among them by ``epochs`` (``--epochs``), the same four ways:

* ``"first"`` keeps the first repeat of each item (lowest epoch, trial or ``event_id``) and notes that others exist;
* ``"mean"`` averages them (the scores are then graded, as asked);
* ``"all"`` keeps each as a generation of its item
  (:class:`~llm_power_verified.io.generations.Generations`), and so needs an item with at least two;
* ``"error"`` (the default) refuses an item with several, naming the three choices (``CHOOSE``): keeping
  the first alone drops data and can rank models differently from the harness's own accuracy, so it is never
  chosen silently.

:func:`exact_repeats` groups records by item and repeat label for the readers whose items must all have the same
labels (Inspect, HELM); :func:`choose_repeats` applies ``epochs`` to each item's ordered repeats; :func:`kept_scores`
gives the rows of one item.  The words are the reader's: each passes the functions that write its messages and
notes, so that a refusal says "epoch", "train trial" or "match event" as its format does.  Every refusal is an
:class:`~llm_power_verified.io.errors.AlignmentError`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from llm_power_verified.io.errors import AlignmentError

__all__ = ["CHOOSE", "EPOCHS", "choose_repeats", "exact_repeats", "kept_scores"]

#: The values of ``epochs`` (``--epochs``); "error", the default, refuses several rather than choosing silently.
EPOCHS = ("first", "mean", "all", "error")
#: How a refusal of several repeats ends: the three choices and what each gives.
CHOOSE = (
    "choose --epochs all (each a generation of its item: the item means, with the within/between split; their mean "
    "is the harness's accuracy), mean (the item means alone) or first (the first of each, the others dropped)"
)

Item = TypeVar("Item", bound=Hashable)
Record = TypeVar("Record")
Repeat = TypeVar("Repeat")


def exact_repeats(
    records: Iterable[Record],
    key: Callable[[Record], tuple[str, int]],
    *,
    twice: Callable[[Record, Record], str],
    lacking: Callable[[str, int, list[int], list[int]], str],
) -> tuple[dict[str, dict[int, Record]], list[int]]:
    """Group records by item and repeat label, every item having every label exactly once.

    Parameters
    ----------
    records : iterable
        The records of one log or run, in the order read.
    key : callable
        ``key(record)`` is ``(item, label)``: the item the record scores and its repeat (epoch, train trial).
    twice : callable
        ``twice(record, earlier)`` is the message refusing a record whose (item, label) an earlier record has.
    lacking : callable
        ``lacking(item, label, its_labels, every_label)`` is the message refusing an item without ``label``, which
        another item has; ``its_labels`` and ``every_label`` are sorted.

    Returns
    -------
    table : dict
        ``{item: {label: record}}``, items in the order first read.
    every : list of int
        The labels, sorted: the same for every item.

    Raises
    ------
    AlignmentError
        An (item, label) twice, or an item lacking a label, with the reader's message.

    Examples
    --------
    >>> table, every = exact_repeats(
    ...     [("q1", 1), ("q1", 2), ("q2", 2), ("q2", 1)], lambda record: record,
    ...     twice=lambda record, earlier: f"{record} twice", lacking=lambda item, label, its, every: f"{item} lacks")
    >>> every, sorted(table["q2"])
    ([1, 2], [1, 2])
    """
    table: dict[str, dict[int, Record]] = {}
    for record in records:
        item, label = key(record)
        by_label = table.setdefault(item, {})
        if label in by_label:
            raise AlignmentError(twice(record, by_label[label]))
        by_label[label] = record
    every = sorted({label for by_label in table.values() for label in by_label})
    for item, by_label in table.items():
        if len(by_label) != len(every):
            missing = next(label for label in every if label not in by_label)
            raise AlignmentError(lacking(item, missing, sorted(by_label), every))
    return table, every


def choose_repeats(
    repeats: Mapping[Item, Sequence[Repeat]],
    epochs: str,
    *,
    refuse_several: Callable[[Item, Sequence[Repeat]], str],
    refuse_single: Callable[[], str],
    note_several: Callable[[dict[Item, Sequence[Repeat]], int], str],
    note_single: Callable[[], str | None] = lambda: None,
) -> tuple[dict[Item, list[Repeat]], str | None]:
    """The repeats of each item kept under ``epochs``, and the note saying so.

    Parameters
    ----------
    repeats : mapping
        ``{item: its repeats in order}`` (the first is the one ``"first"`` keeps); items may have different
        numbers.  A reader whose items all have the same repeats (:func:`exact_repeats`) may pass its list of
        labels once, under any one key, and so choose for every item at once.
    epochs : {"first", "mean", "all", "error"}
        Checked by the reader before reading (``EPOCHS``).
    refuse_several : callable
        ``refuse_several(item, its_repeats)``: the message refusing, under ``"error"``, the first item with several.
    refuse_single : callable
        ``refuse_single()``: the message refusing ``"all"`` when no item has more than one repeat (the generations
        of an item show its within-item variance only from two on).
    note_several : callable
        ``note_several(several, n_items)``: the note when some items have several (``several`` is
        ``{item: its repeats}`` of those, ``n_items`` the number of items); the reader words what ``epochs`` did.
    note_single : callable, optional
        ``note_single()``: the note (or None) when every item has at most one repeat.

    Returns
    -------
    kept : dict
        ``{item: the repeats kept}``: the first under ``"first"``, all of them otherwise.
    note : str or None
        What was chosen, or None when there is nothing to say.

    Raises
    ------
    AlignmentError
        ``"error"`` with an item of several repeats, or ``"all"`` with no item of two, with the reader's message.

    Examples
    --------
    >>> words = dict(refuse_several=lambda item, found: f"{item!r} has {len(found)}",
    ...              refuse_single=lambda: "one each", note_several=lambda several, n: f"{len(several)} of {n} several")
    >>> choose_repeats({"q1": [1, 2], "q2": [1]}, "first", **words)
    ({'q1': [1], 'q2': [1]}, '1 of 2 several')
    >>> choose_repeats({"q1": [1, 2], "q2": [1]}, "error", **words)
    Traceback (most recent call last):
    ...
    llm_power_verified.io.errors.AlignmentError: 'q1' has 2
    """
    several = {item: found for item, found in repeats.items() if len(found) > 1}
    if not several:
        if epochs == "all" and any(repeats.values()):
            raise AlignmentError(refuse_single())
        return {item: list(found) for item, found in repeats.items()}, note_single()
    if epochs == "error":
        item, found = next(iter(several.items()))
        raise AlignmentError(refuse_several(item, found))
    kept = {item: list(found[:1] if epochs == "first" else found) for item, found in repeats.items()}
    return kept, note_several(several, len(repeats))


def kept_scores(kept: Sequence[Repeat], scores: Sequence[float], epochs: str) -> list[tuple[Repeat, float]]:
    """The rows one item gives: each kept repeat with its score under ``"all"``, else the first with the mean.

    Parameters
    ----------
    kept : sequence
        The item's kept repeats (:func:`choose_repeats`), at least one.
    scores : sequence of float
        Their scores, in the same order.
    epochs : {"first", "mean", "all", "error"}
        ``"all"`` keeps each repeat as a generation; otherwise the item is one row, the mean of the kept scores
        (``math.fsum``: the one score under ``"first"`` and ``"error"``).

    Returns
    -------
    list of (repeat, float)
        The (repeat, score) rows of the item.

    Examples
    --------
    >>> kept_scores([1, 2, 3], [1.0, 0.0, 1.0], "all"), kept_scores([1, 2], [1.0, 0.0], "mean")
    ([(1, 1.0), (2, 0.0), (3, 1.0)], [(1, 0.5)])
    """
    if epochs == "all":
        return list(zip(kept, scores, strict=True))
    return [(kept[0], math.fsum(scores) / len(scores))]
