"""The audit of a matrix with several generations per item: the within/between split in the pair and model tables.

The audit itself runs on the item means (a graded audit: the paired t and the paired bootstrap resample items, each
with its generations).  When the matrix carries ``generations``
(:class:`~llm_power_verified.io.generations.Generations`) :class:`GenerationColumns` adds, block by block as
the pair table is made (in memory or streamed), the columns of
:mod:`llm_power_verified.contract.generation_columns`: per pair the split of the variance of the per-item
difference (:func:`~llm_power_verified.repeats.split.pair_split`) and q at K' generations per item
(:func:`~llm_power_verified.repeats.split.resolution_curve`); per model the split of its item means
(:func:`~llm_power_verified.repeats.split.model_split`).  ``GenerationColumns.summary`` gives the report's
``generations`` summary and the headline's facts.  Derivations: ``derivations/repeats.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import pandas as pd

from llm_power_verified.contract.generation_columns import CURVE_COLUMNS
from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.summaries import GenerationSummary, ModelGenerations
from llm_power_verified.repeats.split import CURVE_GENERATIONS, model_split, pair_split, resolution_curve

__all__ = ["GenerationColumns", "clustered_curve"]

#: Pair column -> the PairSplit field it holds.
_PAIR_FIELDS = {
    "gap_within_part": "within_part",
    "gap_within_variance": "within_variance",
    "gap_between_variance": "between_variance",
    "gap_generation_share": "generation_share",
}
#: Model column -> the ModelSplit field it holds.
_MODEL_FIELDS = ("generations", "within_variance", "between_variance", "generation_share")


class GenerationColumns:
    """The generation columns of one audit: added to each block of the pair table, counted as they pass.

    Parameters
    ----------
    matrix : ScoreMatrix
        The canonically ordered matrix audited, with ``generations``.
    first, second : numpy.ndarray
        Model indices of the reported pairs, in pair-table order.
    alpha, power : float
        The audit's level and target power (of the q curve).

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.io.generations import Generations
    >>> from llm_power_verified.io.matrix import build_matrix
    >>> rng = np.random.default_rng(0)
    >>> generations = Generations(np.full((50, 2), 4), rng.random((50, 2)) / 10, binary=False, label="epoch")
    >>> matrix = build_matrix(rng.random((50, 2)), ("a", "b"), [str(i) for i in range(50)], source="s",
    ...                       generations=generations)
    >>> columns = GenerationColumns(matrix, np.array([0]), np.array([1]), 0.05, 0.8)
    >>> block = next(columns.added(iter([pd.DataFrame({"delta": [0.1]})])))
    >>> sorted(block.columns)[:3]
    ['delta', 'gap_between_variance', 'gap_generation_share']
    """

    def __init__(self, matrix: ScoreMatrix, first: np.ndarray, second: np.ndarray, alpha: float, power: float):
        self.matrix, self.first, self.second = matrix, first, second
        self.alpha, self.power = alpha, power
        self.split = model_split(matrix)
        self.negative_between = self.flat_gaps = 0
        self._start = 0

    def columns(self, first: np.ndarray, second: np.ndarray, gap: np.ndarray) -> dict[str, np.ndarray]:
        """The pair columns of pairs (first[k], second[k]) with observed gaps ``gap``, in the contract's order."""
        split = pair_split(self.matrix, first, second, self.split)
        made = {name: getattr(split, field) for name, field in _PAIR_FIELDS.items()}
        curve = resolution_curve(
            self.matrix.n_items, gap, split.between_variance, split.within_variance, self.alpha, self.power
        )
        made.update({name: curve[:, index] for index, name in enumerate(CURVE_COLUMNS)})
        made["q_clustered_generations_inf"] = np.full(gap.shape, np.nan)  # filled by add_clustered with clusters
        return made

    def add_clustered(self, pairs: pd.DataFrame) -> None:
        """Fill ``q_clustered_generations_inf`` from the pairs' design effects (with item clusters), in place."""
        pairs["q_clustered_generations_inf"] = clustered_curve(
            self.matrix.n_items, pairs, self.alpha, self.power, (np.inf,)
        )[:, 0]

    def added(self, tables: Iterable) -> Iterator:
        """Each block (a DataFrame, or a pyarrow Table for Parquet) with the pair columns appended, in order."""
        for table in tables:
            stop = self._start + len(table)
            gap = np.asarray(table["delta"].to_numpy(), dtype=np.float64)
            made = self.columns(self.first[self._start : stop], self.second[self._start : stop], gap)
            self.negative_between += int((made["gap_between_variance"] < 0).sum())
            flat = made["gap_between_variance"] + made["gap_within_part"] == 0  # the variance of D_i is 0
            self.flat_gaps += int((flat & (made["gap_within_part"] > 0)).sum())
            self._start = stop
            if isinstance(table, pd.DataFrame):
                for name, values in made.items():
                    table[name] = values
            else:
                for name, values in made.items():
                    table = table.append_column(name, _arrow_array(values))
            yield table

    def add_model_columns(self, ranking: pd.DataFrame) -> None:
        """Add the per-model split to the model table (rows in rank order), in place."""
        position = {name: index for index, name in enumerate(self.matrix.models)}
        rows = np.array([position[name] for name in ranking["model"]], dtype=np.int64)
        for name in _MODEL_FIELDS:
            ranking[name] = getattr(self.split, name)[rows]

    def summary(self, ranking: pd.DataFrame, adjacent: pd.DataFrame) -> GenerationSummary:
        """The report's ``generations`` summary, once every block has passed (see :class:`GenerationSummary`)."""
        generations = self.matrix.generations
        low, high = generations.count_range
        shares = adjacent["gap_generation_share"].to_numpy(dtype=np.float64) if len(adjacent) else np.empty(0)
        shares = shares[np.isfinite(shares)]
        median = float(np.median(shares)) if shares.size else None
        clustered = "design_effect" in adjacent
        limit = adjacent[_LIMIT[clustered]].to_numpy(dtype=np.float64) if len(adjacent) else np.empty(0)
        ratio = None if median is None else (float("inf") if median >= 1 else 1.0 / (1.0 - median))
        if clustered and len(adjacent):
            today = adjacent["q"].to_numpy(dtype=np.float64) / adjacent["design_effect"].to_numpy(dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):  # a gap of 0: q 0 today and at the limit (NaN)
                ratios = limit / today
            ratios = ratios[~np.isnan(ratios)]
            ratio = float(np.median(ratios)) if ratios.size else None
        return GenerationSummary(
            label=generations.label,
            count_low=low,
            count_high=high,
            binary=generations.binary,
            models={name: self._model(name) for name in ranking["model"]},
            adjacent_share_median=median,
            adjacent_share_low=float(shares.min()) if shares.size else None,
            adjacent_share_high=float(shares.max()) if shares.size else None,
            q_limit_ratio=ratio,
            adjacent_beyond_generations=int((limit < 1).sum()),
            negative_between=self.negative_between,
            reported_pairs=self._start,
            design_effect_median=float(np.median(adjacent["design_effect"])) if clustered and len(adjacent) else None,
            flat_gaps=self.flat_gaps,
        )

    def _model(self, name: str) -> ModelGenerations:
        index, split = self.matrix.models.index(name), self.split
        share = float(split.generation_share[index])
        return ModelGenerations(
            generations=float(split.generations[index]),
            fewest=int(split.fewest[index]),
            most=int(split.most[index]),
            within_variance=float(split.within_variance[index]),
            between_variance=float(split.between_variance[index]),
            generation_share=share if np.isfinite(share) else None,
            within_part=float(split.within_part[index]),
            item_mean_variance=float(split.item_mean_variance[index]),
        )

    def notes(self) -> list[str]:
        """The audit's notes on the split: negative between parts, and gaps whose item-mean differences do not vary."""
        notes = []
        if self.negative_between:
            notes.append(
                f"{self.negative_between:,} of {self._start:,} reported pairs have a negative method-of-moments item "
                "variance sigma_item^2 (the generation noise explains more than the observed variance of the "
                "differences; not distinguishable from 0): gap_between_variance is reported as it is and taken as 0 "
                "for the q curve (q_generations_inf is then inf where the gap is not 0)"
            )
        if self.flat_gaps:
            notes.append(
                f"{self.flat_gaps:,} of {self._start:,} reported pairs have item-mean differences that do not vary "
                "although their generations do (gap variance 0, within part > 0): the paired t has variance 0, so its "
                "p and q (p = 0 and q = inf where the gap is not 0) rest on item means that agree by chance; more "
                "items are needed"
            )
        return notes


#: The q limit the summary reads: independent items, or (with clusters) with the clusters' design effect.
_LIMIT = {False: "q_generations_inf", True: "q_clustered_generations_inf"}


def clustered_curve(
    n_items: int, rows: pd.DataFrame, alpha: float, power: float, generations=CURVE_GENERATIONS
) -> np.ndarray:
    """The q at K' generations per item with the clusters' design effect (pair rows with ``design_effect``).

    Parameters
    ----------
    n_items : int
        N.
    rows : pandas.DataFrame
        Pair rows with ``delta``, ``design_effect`` and the generation columns.
    alpha, power : float
        The audit's level and target power.
    generations : tuple of float, optional
        The K' (inf for the limit).

    Returns
    -------
    numpy.ndarray
        pairs x len(generations).

    Notes
    -----
    The between-cluster part (deff - 1) v of the variance v of the item-mean differences does not shrink with
    generations, so q(K') = N d^2 / ((z_(1-alpha/2) + z_power)^2 (max(sigma_item^2, 0) + sigma_w^2 / K' +
    (deff - 1) v)); at the data's K with sigma_item^2 >= 0 it is q / deff.
    """
    between = rows["gap_between_variance"].to_numpy(dtype=np.float64)
    variance = between + rows["gap_within_part"].to_numpy(dtype=np.float64)
    effect = rows["design_effect"].to_numpy(dtype=np.float64)
    between = np.maximum(between, 0.0) + (effect - 1.0) * variance
    gap, within = rows["delta"].to_numpy(dtype=np.float64), rows["gap_within_variance"].to_numpy(dtype=np.float64)
    return resolution_curve(n_items, gap, between, within, alpha, power, generations)


def _arrow_array(values: np.ndarray):
    """A float column as Arrow, NaN as null (as ``pyarrow.Table.from_pandas`` converts the blocks' other columns)."""
    # Optional dependency (extra parquet): only Parquet output hands Arrow blocks.
    import pyarrow as pa

    return pa.array(np.asarray(values, dtype=np.float64), from_pandas=True)
