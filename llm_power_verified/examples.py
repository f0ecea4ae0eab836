"""The shipped example: MMLU-Pro top-10 per-item matrix reconstructed from the paper's Appendix E.

Built by ``python -m crosscheck.build_shipped_example`` (see its docstring for
exactly what is and is not reconstructed).  The cluster column
``random_category`` holds MMLU-Pro's real 14 category sizes assigned to items
at random, so cluster diagnostics on it are a null check.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from llm_power_verified.io import ScoreMatrix, from_wide
from llm_power_verified.io.json_input import parse_json

__all__ = ["appendix_e", "shipped_example"]


def shipped_example(clusters: bool = True) -> ScoreMatrix:
    """The 12,032 x 10 MMLU-Pro matrix (with the random categories as clusters unless ``clusters=False``).

    Parameters
    ----------
    clusters : bool, default True
        Whether the items carry the ``random_category`` column as cluster labels (14 clusters of MMLU-Pro's category
        sizes, assigned at random: a null check).

    Returns
    -------
    ScoreMatrix
        The binary (items x models) scores of the ten models, with a note on the clusters when they are kept.

    Examples
    --------
    >>> from llm_power_verified.examples import shipped_example
    >>> matrix = shipped_example()
    >>> matrix.scores.shape, matrix.models[0], len(set(matrix.clusters))
    ((12032, 10), 'calme-3.2-78b', 14)
    """
    with resources.as_file(resources.files("llm_power_verified") / "data" / "mmlu_pro_top10.csv.gz") as path:
        frame = pd.read_csv(path, dtype={"item_id": str})
    matrix = from_wide(
        frame,
        item_column="item_id",
        cluster_column="random_category" if clusters else None,
        models=[c for c in frame.columns if c not in ("item_id", "random_category")],
        source="shipped example: MMLU-Pro top-10 reconstructed from arXiv 2605.30315 Appendix E",
    )
    note = "clusters are MMLU-Pro's 14 category sizes assigned at random: a null check, not real subjects"
    return ScoreMatrix(
        matrix.scores,
        matrix.models,
        matrix.item_ids,
        matrix.clusters,
        matrix.binary,
        matrix.source,
        matrix.notes + ((note,) if clusters else ()),
    )


def appendix_e() -> dict:
    """The paper's Tables 6 and 7 as printed, with provenance and reconstruction notes.

    Returns
    -------
    dict
        The parsed ``paper_appendix_e.json``: ``table_6_oll_v1_close_pairs`` and ``table_7_mmlu_pro_adjacent`` (lists
        of the printed rows), with ``source``, ``note``, ``reconstruction`` and ``categories``.

    Examples
    --------
    >>> from llm_power_verified.examples import appendix_e
    >>> tables = appendix_e()
    >>> len(tables["table_7_mmlu_pro_adjacent"]), tables["table_7_mmlu_pro_adjacent"][0]["required_n"]
    (9, 1697)
    """
    data = (resources.files("llm_power_verified") / "data" / "paper_appendix_e.json").read_bytes()
    return parse_json(data, "shipped data paper_appendix_e.json")
