"""Writing a score matrix in each table format and layout, then reading it back, gives the same matrix.

Written again, it gives the same bytes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from llm_power_verified.io import from_array, read_table, write_table

NAMES = (
    st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters=",\"'"), min_size=1, max_size=12)
    .map(str.strip)
    .filter(
        lambda name: (
            bool(name)
            and name not in ("item_id", "cluster", "model", "score")
            and name.lower() not in ("nan", "na", "null", "none", "n/a")
        )
    )
)


@st.composite
def matrices(draw):
    models = draw(st.lists(NAMES, min_size=2, max_size=5, unique=True))
    items = draw(st.lists(NAMES, min_size=3, max_size=30, unique=True))
    graded = draw(st.booleans())
    shape = (len(items), len(models))
    if graded:
        scores = np.array(
            draw(st.lists(st.floats(0, 1), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1]))
        ).reshape(shape)
        scores[0] = 0.25  # never a 0/1-looking graded matrix
        scores[1] = 0.75
    else:
        scores = np.array(
            draw(st.lists(st.integers(0, 1), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1])), dtype=float
        ).reshape(shape)
    clusters = draw(st.one_of(st.none(), st.lists(NAMES, min_size=len(items), max_size=len(items))))
    return from_array(
        scores, models=models, item_ids=items, clusters=clusters, score_kind="graded" if graded else "binary"
    )


@given(
    matrix=matrices(),
    suffix=st.sampled_from([".csv", ".tsv", ".parquet", ".jsonl"]),
    layout=st.sampled_from(["wide", "long"]),
)
def test_write_then_read_gives_the_same_matrix(tmp_path_factory, matrix, suffix, layout):
    path = tmp_path_factory.mktemp("round") / f"table{suffix}"
    write_table(matrix, path, layout=layout)
    again = read_table(
        path, cluster_column="cluster" if matrix.clusters is not None else None, score_kind=matrix.score_kind
    )
    assert again.models == matrix.models and again.item_ids == matrix.item_ids and again.clusters == matrix.clusters
    assert np.array_equal(again.scores, matrix.scores) and again.binary == matrix.binary
    write_table(again, path.with_name(f"second{suffix}"), layout=layout)
    assert path.with_name(f"second{suffix}").read_bytes() == path.read_bytes()
