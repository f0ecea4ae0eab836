"""Item ids of harness files are exact strings: ``from_long(..., exact_ids=True)`` never merges 'q1 ' with 'q1'."""

from __future__ import annotations

import pandas as pd
import pytest

from llm_power_verified.io import AlignmentError, InputError, from_long, from_long_repeated


def _table() -> pd.DataFrame:
    return pd.DataFrame(
        {"item": ["q1", "q2", "q1 ", "q2"], "model": ["a", "a", "b", "b"], "score": [1.0, 0.0, 0.0, 1.0]}
    )


def test_blanks_around_an_id_are_dropped_in_a_table_and_kept_in_harness_ids():
    assert from_long(_table(), item_column="item").item_ids == ("q1", "q2")  # a table's cells: blanks dropped
    with pytest.raises((AlignmentError, InputError), match=r"lacks"):
        from_long(_table(), item_column="item", exact_ids=True)  # 'q1 ' is another item, which 'a' lacks
    kept = from_long(_table(), item_column="item", exact_ids=True, on_missing="intersect")
    assert kept.item_ids == ("q2",)


def test_the_repeated_reader_keeps_ids_exact_too():
    table = pd.concat([_table().assign(epoch=0), _table().assign(epoch=1)])
    assert from_long_repeated(table, repeat_column="epoch", item_column="item").n_items == 2
    exact = from_long_repeated(table, repeat_column="epoch", item_column="item", exact_ids=True, on_missing="intersect")
    assert exact.item_ids == ("q2",)
