"""One block's whole pair table, and the pair table's blocks in order (computed where the backend runs them).

:func:`pair_block` computes every column of a block of pairs from the
:class:`~llm_power_verified.leaderboard.blocks.PairInputs` and the block's slice of the
:class:`~llm_power_verified.leaderboard.blocks.FamilyContext` (see :mod:`llm_power_verified.leaderboard.blocks`);
:func:`pair_blocks` yields the blocks in pair-table order; :func:`stream_blocks` hands them to a sink (the streamed
audit) and keeps the summary columns.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from llm_power_verified._generated import wald as _wald
from llm_power_verified.contract import ADJUSTMENTS, PAIR_COLUMNS
from llm_power_verified.inference.multiplicity import adjust_pvalues
from llm_power_verified.leaderboard.blocks import BlockFamily, BlockSettings, PairInputs, blocks
from llm_power_verified.leaderboard.decisions import add_decision_columns
from llm_power_verified.leaderboard.min_effect import add_min_effect_columns
from llm_power_verified.leaderboard.pairs import (
    add_anytime_columns,
    adjacent_ranks,
    binary_pair_columns,
    graded_log_e,
    graded_pair_columns,
)
from llm_power_verified.parallel import Backend

__all__ = ["pair_block", "pair_block_arrow", "pair_blocks", "stream_blocks"]


def pair_block(
    inputs: PairInputs, settings: BlockSettings, first: np.ndarray, second: np.ndarray, family: BlockFamily
) -> pd.DataFrame:
    """Every column of the pair table for one block of pairs.

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (:func:`~llm_power_verified.leaderboard.blocks.pair_inputs`).
    settings : BlockSettings
        The audit settings a block needs.
    first, second : numpy.ndarray
        Model indices of each pair (``first`` the higher-ranked model, or the reference).
    family : BlockFamily
        The block's slice of the family context.

    Returns
    -------
    pandas.DataFrame
        The block's rows, columns in the contract's order.
    """
    alpha, power, n = settings.alpha, settings.power, inputs.n_items
    compute = binary_pair_columns if inputs.binary else graded_pair_columns
    # 0/1 scores: the family's exact tails of these pairs (when all are inside), not computed again.
    extra = (family.log_tail,) if inputs.binary else ()
    names = np.asarray(inputs.models, dtype=object)
    rank_a, rank_b = inputs.rank[first], inputs.rank[second]
    # The columns are gathered as arrays and made a frame once (adding them one by one to a frame cost more than
    # computing most of them).
    columns = {
        "model_a": names[first],
        "model_b": names[second],
        "rank_a": rank_a,
        "rank_b": rank_b,
        "adjacent": adjacent_ranks(rank_a, rank_b),
        **compute(inputs, first, second, alpha, power, settings.n_resamples, settings.seed, *extra),
    }
    columns["n"] = np.full(first.size, n)
    required = columns["required_n"]
    with np.errstate(divide="ignore", invalid="ignore"):
        columns["q"] = np.where(np.isinf(required), 0.0, n / required)
        # The Wald z of the observed gap (0 for no gap; +-inf when every item differs by the same amount).
        gap = columns["delta"]
        columns["z_wald"] = np.where(gap == 0, 0.0, _wald.z_wald(columns["variance"], gap, n))
    columns["resolved"] = columns["q"] >= 1
    for label in ("rho_minus", "rho_plus"):
        columns[f"resolved_{label}"] = n >= columns[f"required_n_{label}"]
    # The e-values of pairs inside the family were computed in the first pass (the same function of the same data).
    if inputs.binary:
        add_anytime_columns(columns, n, alpha, power, log_e=family.log_e)
    else:
        log_e = family.log_e if family.log_e is not None else graded_log_e(inputs, first, second, alpha)
        columns["log_e"] = log_e
        columns["p_anytime_at_n"] = np.exp(-np.maximum(log_e, 0.0))
    _add_family_columns(columns, family, alpha)
    pairs = pd.DataFrame(columns)
    add_decision_columns(pairs, inputs.binary, settings.correction, alpha)
    if settings.min_effect is not None:
        add_min_effect_columns(pairs, inputs.binary, n, settings.min_effect, alpha, power)
    return pairs


def pair_block_arrow(
    inputs: PairInputs, settings: BlockSettings, first: np.ndarray, second: np.ndarray, family: BlockFamily
) -> pyarrow.Table:  # noqa: F821 - pyarrow is optional, imported inside
    """:func:`pair_block` as a pyarrow Table, converted where the block was computed (a Dask worker), for Parquet.

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (:func:`~llm_power_verified.leaderboard.blocks.pair_inputs`).
    settings : BlockSettings
        The audit settings a block needs.
    first, second : numpy.ndarray
        Model indices of each pair (``first`` the higher-ranked model, or the reference).
    family : BlockFamily
        The block's slice of the family context.

    Returns
    -------
    pyarrow.Table
        The block's rows.
    """
    # Optional dependency (extra parquet): only Parquet output asks for Arrow blocks.
    import pyarrow as pa

    return pa.Table.from_pandas(pair_block(inputs, settings, first, second, family), preserve_index=False)


# The adjusted p-value columns, in the contract's column order (bonferroni, sidak, holm, bh).
_FAMILY_P = tuple(
    column.name.removeprefix("p_") for column in PAIR_COLUMNS if column.name.removeprefix("p_") in ADJUSTMENTS
)


def _add_family_columns(columns: dict[str, np.ndarray], family: BlockFamily, alpha: float) -> None:
    """Adjusted p-values, e-BH and the family-wise verdicts of a block, from its slice of the family context."""
    rows, inside = family.inside.size, family.inside
    for method in _FAMILY_P:
        column = np.full(rows, np.nan)
        if method in ("holm", "bh"):
            column[inside] = getattr(family, method)
        elif inside.any():
            column[inside] = adjust_pvalues(family.pvalues, method, family_size=family.family_size)
        columns[f"p_{method}"] = column
    column = np.zeros(rows, dtype=bool)
    column[inside] = family.rejected_e_bh
    columns["rejected_e_bh"] = column
    columns["rejected_bh"] = columns["p_bh"] <= alpha
    holm = np.full(rows, np.nan)
    holm[inside] = family.holm_inflation
    columns["required_n_bonferroni"] = columns["required_n"] * family.bonferroni
    columns["required_n_holm"] = columns["required_n"] * holm
    columns["resolved_bonferroni"] = columns["q"] >= family.bonferroni
    columns["resolved_holm"] = columns["q"] >= holm
    columns["resolved_bh"] = columns["q"] >= family.bh_inflation


#: The columns a streamed audit keeps in memory for its summaries and headline (the rest go to the sink block by block).
_KEPT = (
    "delta",
    "q",
    "resolved",
    "resolved_bonferroni",
    "resolved_holm",
    "resolved_bh",
    "resolved_rho_minus",
    "resolved_rho_plus",
    "resolved_anytime",
    "rho",
    "variance_a",
    "variance_b",
    "q_min_effect",
    "resolved_min_effect",
    "significant",
    "significant_anytime",
)


def stream_blocks(tables, sink, size: int) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """Hand each block to a sink; keep the summary columns and the adjacent rows.

    Parameters
    ----------
    tables : iterable of pandas.DataFrame or pyarrow.Table
        The pair table's blocks, in order.
    sink : callable
        Called with each block.
    size : int
        The pairs in all.

    Returns
    -------
    kept : pandas.DataFrame
        The summary columns (``_KEPT``) of every pair.
    adjacent : list of pandas.DataFrame
        Each block's adjacent rows (every column).
    """
    kept: dict[str, np.ndarray] = {}
    adjacent, start = [], 0
    for table in tables:
        sink(table)
        stop = start + len(table)
        names = table.columns if isinstance(table, pd.DataFrame) else table.column_names
        for column in _KEPT:
            if column in names:
                values = np.asarray(table[column].to_numpy())
                if column not in kept:
                    kept[column] = np.empty(size, dtype=values.dtype)
                kept[column][start:stop] = values
        adjacent_rows = np.asarray(table["adjacent"].to_numpy(), dtype=bool)
        rows = table[adjacent_rows] if isinstance(table, pd.DataFrame) else table.filter(adjacent_rows).to_pandas()
        adjacent.append(rows)
        start = stop
    return pd.DataFrame(kept, copy=False), adjacent


def pair_blocks(
    inputs, context, settings: BlockSettings, first, second, backend: Backend, progress, task=pair_block
) -> Iterator[pd.DataFrame]:
    """The pair table's blocks in order, computed by ``backend`` (the pair inputs and family context sent once).

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (:func:`~llm_power_verified.leaderboard.blocks.pair_inputs`).
    context : FamilyContext
        The declared family's context.
    settings : BlockSettings
        The audit settings a block needs.
    first, second : numpy.ndarray
        Model indices of each pair (``first`` the higher-ranked model, or the reference).
    backend : Backend
        Where the blocks are computed.
    progress : callable or None
        Called with a short message per block on large audits.
    task : callable, default pair_block
        The block function (:func:`pair_block_arrow` for Parquet).

    Yields
    ------
    pandas.DataFrame or pyarrow.Table
        Each block's rows.
    """
    slices = blocks(first.size)
    # Each task gets its block's slice of the family context; only the pair inputs go to every worker.
    tasks = ((first[sl], second[sl], context.for_block(first[sl], second[sl])) for sl in slices)
    results = backend.map(task, tasks, shared=(inputs, settings))
    for sl, table in zip(slices, results, strict=True):
        if progress and len(slices) > 1:
            progress(f"pairs {sl.start:,}-{sl.stop:,} of {first.size:,}")
        yield table
