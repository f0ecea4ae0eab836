"""The choice among the repeats of an item (Inspect epochs, HELM train trials, OpenAI evals' repeated events).

:func:`exact_repeats` groups records by (item, label) and refuses a label twice or lacking; :func:`choose_repeats`
applies ``--epochs`` to each item's ordered repeats, ragged or not, with the reader's own words; :func:`kept_scores`
gives an item's rows.  The readers' own wording is tested in their modules (test_inspect_epochs, test_helm,
test_openai_evals); here the shared logic, with words that show which message was asked for.
"""

from __future__ import annotations

import math

import pytest

from llm_power_verified.io.errors import AlignmentError
from llm_power_verified.io.repeat_choice import EPOCHS, choose_repeats, exact_repeats, kept_scores

#: Messages that name which function wrote them and what it was given.
WORDS = dict(
    refuse_several=lambda item, found: f"several: {item} {list(found)}",
    refuse_single=lambda: "single",
    note_several=lambda several, n_items: f"noted {sorted(several)} of {n_items}",
    note_single=lambda: "one each",
)


def _exact(records):
    return exact_repeats(
        records,
        lambda record: record[:2],
        twice=lambda record, earlier: f"twice: {record} after {earlier}",
        lacking=lambda item, label, its, every: f"lacking: {item} {label} {its} {every}",
    )


def test_exact_repeats_groups_by_item_and_label_whatever_the_order():
    records = [("q2", 3, "a"), ("q1", 1, "b"), ("q1", 3, "c"), ("q2", 1, "d")]
    table, every = _exact(records)
    assert every == [1, 3]
    assert list(table) == ["q2", "q1"]  # items in the order first read
    assert table == {"q2": {3: records[0], 1: records[3]}, "q1": {1: records[1], 3: records[2]}}


def test_exact_repeats_refuses_a_label_twice_with_both_records():
    with pytest.raises(AlignmentError, match=r"^twice: \('q1', 2, 'c'\) after \('q1', 2, 'b'\)$"):
        _exact([("q1", 1, "a"), ("q1", 2, "b"), ("q1", 2, "c")])


def test_exact_repeats_refuses_ragged_repeats_naming_the_item_and_the_label_lacking():
    """q2 lacks label 2 that q1 has: the message gets the item, the first label lacking, its labels and all."""
    with pytest.raises(AlignmentError, match=r"^lacking: q2 2 \[1, 3\] \[1, 2, 3\]$"):
        _exact([("q1", 1), ("q1", 2), ("q1", 3), ("q2", 3), ("q2", 1)])


def test_exact_repeats_of_nothing_is_empty():
    assert _exact([]) == ({}, [])


@pytest.mark.parametrize(
    "epochs, kept, note",
    [
        ("first", {"q1": ["a1"], "q2": ["b1"], "q3": ["c1"]}, "noted ['q1', 'q3'] of 3"),
        ("mean", {"q1": ["a1", "a2"], "q2": ["b1"], "q3": ["c1", "c2", "c3"]}, "noted ['q1', 'q3'] of 3"),
        ("all", {"q1": ["a1", "a2"], "q2": ["b1"], "q3": ["c1", "c2", "c3"]}, "noted ['q1', 'q3'] of 3"),
    ],
)
def test_each_mode_keeps_its_repeats_of_ragged_items_and_notes_those_with_several(epochs, kept, note):
    """Ragged repeats (OpenAI evals): q2 has one, the others several; the note is given only the several."""
    repeats = {"q1": ("a1", "a2"), "q2": ("b1",), "q3": ("c1", "c2", "c3")}
    assert choose_repeats(repeats, epochs, **WORDS) == (kept, note)


def test_error_refuses_the_first_item_with_several_in_the_given_order():
    repeats = {"q2": ["b1"], "q3": ["c1", "c2", "c3"], "q1": ["a1", "a2"]}
    with pytest.raises(AlignmentError, match=r"^several: q3 \['c1', 'c2', 'c3'\]$"):
        choose_repeats(repeats, "error", **WORDS)


@pytest.mark.parametrize("epochs", ["first", "mean", "error"])
def test_one_repeat_each_is_read_by_every_mode_but_all_with_the_single_note(epochs):
    repeats = {"q1": [5], "q2": [5]}
    assert choose_repeats(repeats, epochs, **WORDS) == ({"q1": [5], "q2": [5]}, "one each")


def test_all_refuses_when_no_item_has_two_repeats():
    with pytest.raises(AlignmentError, match=r"^single$"):
        choose_repeats({"q1": [5], "q2": [5]}, "all", **WORDS)


def test_all_of_nothing_is_not_refused_and_the_single_note_is_optional():
    """No repeats at all (an empty log): nothing to refuse; without note_single there is no note."""
    words = {name: word for name, word in WORDS.items() if name != "note_single"}
    assert choose_repeats({}, "all", **words) == ({}, None)
    assert choose_repeats({"log": []}, "all", **words) == ({"log": []}, None)


def test_labels_shared_by_every_item_are_chosen_once():
    """The exact readers pass their one list of labels under one key: the choice holds for every item."""
    table, every = _exact([("q1", 2), ("q1", 4), ("q2", 4), ("q2", 2)])
    kept, note = choose_repeats({"run": every}, "first", **WORDS)
    assert kept == {"run": [2]} and note == "noted ['run'] of 1"
    assert [table[item][label] for item in table for label in kept["run"]] == [("q1", 2), ("q2", 2)]


def test_kept_scores_are_each_repeat_under_all_and_the_first_with_the_mean_otherwise():
    assert kept_scores(["e1", "e2", "e3"], [1.0, 0.0, 0.5], "all") == [("e1", 1.0), ("e2", 0.0), ("e3", 0.5)]
    assert kept_scores(["e1"], [0.25], "first") == [("e1", 0.25)]
    ((first, mean),) = kept_scores(["e1", "e2", "e3"], [0.1, 0.2, 0.3], "mean")
    # 0.1, 0.2, 0.3 are not exact in binary; fsum rounds their sum once and the division once: within an ulp of 0.2.
    assert first == "e1" and math.isclose(mean, 0.2, rel_tol=0, abs_tol=math.ulp(0.2))


def test_kept_scores_refuses_repeats_and_scores_of_different_lengths_under_all():
    with pytest.raises(ValueError, match="zip"):
        kept_scores(["e1", "e2"], [1.0], "all")


def test_the_modes_are_the_four_of_the_flag():
    assert EPOCHS == ("first", "mean", "all", "error")
