"""Writing a score matrix as a table file (CSV/TSV, Parquet, JSON Lines).

:func:`~llm_power_verified.io.table_files.read_table` reads the file back to the same matrix.
"""

from __future__ import annotations

import csv
import io as _stdio
import json
from pathlib import Path

import numpy as np
import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import InputError
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.output import write_bytes
from llm_power_verified.io.tables import DEFAULT_ITEM_COLUMN

__all__ = ["write_table"]


def write_table(matrix: ScoreMatrix, path: str | Path, *, layout: str = "wide") -> None:
    """Write a score matrix as a table that reads back to the same matrix.

    It is read back by :func:`~llm_power_verified.io.table_files.read_table`.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores.
    path : str or pathlib.Path
        The file; its suffix (``.csv``, ``.tsv``, ``.parquet``/``.pq``, ``.jsonl``) chooses the format.  It is written
        through :func:`~llm_power_verified.io.output.write_bytes` (atomically).
    layout : {"wide", "long"}, default "wide"
        "wide": ``item_id``, one column per model, then ``cluster``; "long": ``item_id, model, score[, cluster]``.

    Raises
    ------
    ArgumentError
        An unknown ``layout``.
    InputError
        An unknown suffix, or a model named ``item_id`` or ``cluster`` in the wide layout.
    OutputError
        A path that cannot be written.

    Notes
    -----
    Values are written as they are (floats with 17 significant digits), so the round trip is exact.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from llm_power_verified.io.matrix import from_array
    >>> from llm_power_verified.io.table_files import read_table
    >>> matrix = from_array([[1, 0.25], [0, 1], [1, 0.5]], models=["a", "b"], item_ids=["q1", "q2", "q3"],
    ...                     score_kind="graded")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "scores.csv"
    ...     write_table(matrix, path, layout="long")
    ...     lines, again = path.read_text().splitlines(), read_table(path, score_kind="graded")
    >>> lines[:3], bool((again.scores == matrix.scores).all()), again.item_ids == matrix.item_ids
    (['item_id,model,score', 'q1,a,1', 'q1,b,0.25'], True, True)
    """
    if layout not in ("wide", "long"):
        raise ArgumentError(f"layout must be 'wide' or 'long'; got {layout!r}")
    if layout == "wide":
        reserved = {DEFAULT_ITEM_COLUMN, "cluster"} & set(matrix.models)
        if reserved:
            raise InputError(
                f"a model is named {sorted(reserved)[0]!r}, a reserved column of the wide layout; use layout='long'"
            )
        frame = pd.DataFrame(matrix.scores, columns=list(matrix.models))
        frame.insert(0, DEFAULT_ITEM_COLUMN, list(matrix.item_ids))
        if matrix.clusters is not None:
            frame["cluster"] = list(matrix.clusters)
    else:
        frame = pd.DataFrame(
            {
                DEFAULT_ITEM_COLUMN: np.repeat(np.asarray(matrix.item_ids, dtype=object), matrix.n_models),
                "model": np.tile(np.asarray(matrix.models, dtype=object), matrix.n_items),
                "score": matrix.scores.reshape(-1),
            }
        )
        if matrix.clusters is not None:
            frame["cluster"] = np.repeat(np.asarray(matrix.clusters, dtype=object), matrix.n_models)
    path = Path(path)
    name = path.name.lower()
    if name.endswith((".parquet", ".pq")):
        buffer = _stdio.BytesIO()
        frame.to_parquet(buffer, index=False)
        data = buffer.getvalue()
    elif name.endswith(".jsonl"):
        data = "".join(
            json.dumps(record, allow_nan=False) + "\n" for record in frame.to_dict(orient="records")
        ).encode()
    elif name.endswith((".csv", ".tsv")):
        # The csv writer quotes a cell holding LF but not one holding a lone CR, which readers take for a line end:
        # then every text cell is quoted.
        texts = [*matrix.models, *matrix.item_ids, *(matrix.clusters or ())]
        quoting = csv.QUOTE_NONNUMERIC if any("\r" in text for text in texts) else csv.QUOTE_MINIMAL
        data = frame.to_csv(
            index=False, sep="\t" if name.endswith(".tsv") else ",", float_format="%.17g", quoting=quoting
        ).encode()
    else:
        raise InputError(f"{path}: unknown table format (expected .csv, .tsv, .parquet or .jsonl)")
    write_bytes(path, data)
