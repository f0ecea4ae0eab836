"""Reading a JSON array element by element: the values and refusals of parse_json, with memory bounded per element.

:func:`~llm_power_verified.io.json_input.json_array_items` must give, on every document that is a list, what
:func:`~llm_power_verified.io.json_input.parse_json` gives, and refuse what it refuses with the same cause (an
element's messages name its index), while a large genuine-shaped HELM ``per_instance_stats.json`` that parse_json
refuses for its estimated size is read holding the text and one entry.
"""

from __future__ import annotations

import json
import re
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_power_verified.io import helm_records, json_input
from llm_power_verified.io.errors import InputError
from llm_power_verified.io.helm_records import PER_INSTANCE, read_stats
from llm_power_verified.io.json_input import json_array_items, parse_json
from tests.support.hostile_helm import RUNS, SUITE

WHERE = "x.json"

# --------------------------------------------------------------------------- documents as text
#: Tokens parse_json refuses inside a document: non-finite constants, an overflowing literal, an integer of 101
#: digits, a lone surrogate escape.
FAULTS = ("NaN", "Infinity", "-Infinity", "1e999", "-" + "7" * 101, '"\\ud800"')
_clean_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
).map(json.dumps)
#: One leaf in ten is a fault.
_leaf = st.integers(0, 9).flatmap(lambda draw: st.sampled_from(FAULTS) if draw == 0 else _clean_leaf)
_keys = st.text(alphabet="abc", min_size=1, max_size=2)  # small: a key repeated in one object happens


def _object(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pairs = st.lists(st.tuples(_keys, children), max_size=4)
    return pairs.map(lambda items: "{" + ", ".join(f"{json.dumps(key)}: {value}" for key, value in items) + "}")


_value = st.recursive(
    _leaf,
    lambda children: _object(children) | st.lists(children, max_size=3).map(lambda items: "[" + ",".join(items) + "]"),
    max_leaves=12,
)
_spaces = st.sampled_from(["", " ", "\n  ", "\t"])
_documents = st.tuples(st.lists(_object(_value), max_size=5), _spaces, _spaces).map(
    lambda parts: f"{parts[1]}[{parts[2]}" + f",{parts[2]}".join(parts[0]) + f"{parts[2]}]{parts[1]}"
)


@st.composite
def _damaged_documents(draw) -> str:
    """A list of objects, left whole or damaged: a character deleted or inserted, cut short, text appended."""
    text = draw(_documents)
    how = draw(st.sampled_from(["whole", "whole", "delete", "insert", "cut", "append"]))
    at = draw(st.integers(0, max(len(text) - 1, 0)))
    if how == "delete":
        return text[:at] + text[at + 1 :]
    if how == "insert":
        return text[:at] + draw(st.sampled_from(list(',[]{}:" 0x\\'))) + text[at:]
    if how == "cut":
        return text[:at]
    return text + draw(st.sampled_from([" x", "]", ",", "[]", " \n"])) if how == "append" else text


def _outcome(read, document: str):
    try:
        return True, read(document)
    except InputError as error:
        return False, str(error)


@given(_damaged_documents())
def test_same_values_and_refusals_as_parse_json(document):
    parsed_ok, parsed = _outcome(lambda text: parse_json(text, WHERE), document)
    items_ok, items = _outcome(lambda text: list(json_array_items(text, WHERE)), document)
    if parsed_ok and isinstance(parsed, list):
        assert items_ok, items
        assert [index for index, _ in items] == list(range(len(parsed)))
        # repr, not ==: 1, 1.0 and True are equal in Python but not the same value read
        assert repr([value for _, value in items]) == repr(parsed)
    elif parsed_ok:
        assert not items_ok
        assert items == f"{WHERE}: a JSON {type(parsed).__name__} where a JSON array is expected"
    else:
        assert not items_ok, f"parse_json refused ({parsed}) but the elements were read"
        assert len(items.splitlines()) == 1
        assert items.startswith(WHERE)
        # An element's surrogates are checked as it is read, parse_json's once the whole document is: with several
        # faults the two may name different ones.  Any other cause is the first in the text for both.
        if "lone surrogate" not in parsed and "lone surrogate" not in items:
            assert re.sub(r"^x\.json\[\d+\]", WHERE, items) == parsed


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ('[{"a": 1} {"a": 2}]', "x.json[0]: not valid JSON (Expecting ',' delimiter at line 1, column 11)"),
        ('[{"a": 1}, {"a": 2}] x', "x.json: not valid JSON (Extra data at line 1, column 22)"),
        ('[{"a": 1},\n {"a": 2', "x.json[1]: not valid JSON (Expecting ',' delimiter at line 2, column 9)"),
        ('[{"a": 1},\n', "x.json[1]: not valid JSON (Expecting value at line 2, column 1)"),
        ('{"a": [1]}', "x.json: a JSON dict where a JSON array is expected"),
        ("", "x.json: not valid JSON (Expecting value at line 1, column 1)"),
        ('[{"a": 1}, {"b": 1, "b": 2}]', "x.json[1]: key 'b' appears twice in one object"),
        ("[1, [2, NaN]]", "x.json[1]: NaN is not a JSON value (write null, or a finite number)"),
        ('[1, 2, "\\udc00"]', "x.json[2]: a lone surrogate '\\udc00' (U+DC00) is not text; the file holds a damaged"),
    ],
)
def test_damaged_arrays_name_the_element(document, message):
    with pytest.raises(InputError) as raised:
        list(json_array_items(document, WHERE))
    assert str(raised.value).startswith(message)


def test_elements_bounded_one_by_one(monkeypatch):
    """Under a limit the whole document exceeds, small elements are read and the one over it is refused by index."""
    small = "[" + ", ".join(['{"a": [1, 2, 3]}'] * 200) + "]"
    monkeypatch.setattr(json_input, "MAX_BUILT_BYTES", 2_000)  # each element: 16 + 4 * 120 = 496 estimated bytes
    with pytest.raises(InputError, match="over the 0 MiB limit; split the file"):
        parse_json(small, WHERE)  # 3,399 + 1,000 * 120 bytes estimated: over
    assert len(list(json_array_items(small, WHERE))) == 200
    large = small[:-1] + ", [" + ", ".join(["[]"] * 30) + "]]"  # element 200: 30 nested lists
    with pytest.raises(
        InputError, match=r"^x\.json\[200\]: 120 bytes of JSON with 60 values .*one element of the array may not"
    ):
        list(json_array_items(large, WHERE))


@pytest.mark.parametrize("run", RUNS)
def test_helm_fixture_reads_identically(run):
    raw = (SUITE / run / PER_INSTANCE).read_bytes()
    assert list(json_array_items(raw, WHERE)) == list(enumerate(parse_json(raw, WHERE)))


# --------------------------------------------------------------------------- a large HELM file
#: Size of the synthetic per_instance_stats.json: about twice the largest that parse_json's estimate admits.
LARGE_BYTES = 150_000_000


def _large_run(folder: Path) -> tuple[int, int]:
    """A run folder whose per_instance_stats.json repeats the genuine fixture's entries (HELM's layout, indent 2)
    under new instance ids up to LARGE_BYTES; returns (entries, bytes)."""
    entries = json.loads((SUITE / RUNS[0] / PER_INSTANCE).read_text())
    texts = [json.dumps(entry, indent=2).replace(json.dumps(entry["instance_id"]), '"{id}"', 1) for entry in entries]
    written, count = 2, 0
    with (folder / PER_INSTANCE).open("w") as file:
        file.write("[\n")
        while written < LARGE_BYTES:
            text = ("" if count == 0 else ",\n") + texts[count % len(texts)].replace('"{id}"', f'"id{count}"')
            file.write(text)
            written += len(text)
            count += 1
        file.write("\n]")
    return count, written + 2


@pytest.mark.slow  # about 10 s to read, 45 s under tracemalloc
def test_large_helm_file_read_within_memory(tmp_path, monkeypatch):
    entries, size = _large_run(tmp_path)
    raw = (tmp_path / PER_INSTANCE).read_bytes()
    with pytest.raises(InputError, match="MiB limit; split the file"):
        parse_json(raw, "large.json")  # what reading it whole would need, refused before parsing
    values = sum(raw.count(mark) for mark in (b"[", b"{", b",", b":"))  # parse_json's estimate, module notes
    estimated_mib = (len(raw) + json_input.BYTES_PER_VALUE * values) / 2**20
    del raw
    # read_input_bytes allocates a buffer of its limit + 1 bytes (untouched pages are never resident, but tracemalloc
    # counts them): the limit is set to the file's size so that the peak measures the reading, not that buffer.
    monkeypatch.setattr(helm_records, "MAX_STATS_BYTES", size)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        run = read_stats(tmp_path, "quasi_exact_match")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    seconds = time.perf_counter() - started
    peak_mib, size_mib = peak / 2**20, size / 2**20
    print(
        f"{size_mib:.0f} MiB, {entries:,} entries: peak {peak_mib:.0f} MiB traced in {seconds:.1f} s "
        f"(parse_json's estimate {estimated_mib:,.0f} MiB)"
    )
    assert run.entries == entries
    assert len(run.values) == entries  # the fixture's entries each hold quasi_exact_match once
    # Bound: the bytes and their text, both held while decoding (2 x 143 MiB), plus 64 MiB for the values kept (18,000
    # StatValue of about 1 KiB) and one entry.  Measured: 286 MiB (while decoding), against parse_json's estimate of
    # 1,568 MiB.
    assert peak_mib < 2 * size_mib + 64
    assert peak_mib < estimated_mib / 4
