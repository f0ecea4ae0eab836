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
from llm_power_verified.repeats.split import model_split, pair_split, resolution_curve

__all__ = ["GenerationColumns"]

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
        self.negative_between = 0
        self._start = 0

    def columns(self, first: np.ndarray, second: np.ndarray, gap: np.ndarray) -> dict[str, np.ndarray]:
        """The pair columns of pairs (first[k], second[k]) with observed gaps ``gap``, in the contract's order."""
        split = pair_split(self.matrix, first, second, self.split)
        made = {name: getattr(split, field) for name, field in _PAIR_FIELDS.items()}
        curve = resolution_curve(
            self.matrix.n_items, gap, split.between_variance, split.within_variance, self.alpha, self.power
        )
        made.update({name: curve[:, index] for index, name in enumerate(CURVE_COLUMNS)})
        return made

    def added(self, tables: Iterable) -> Iterator:
        """Each block (a DataFrame, or a pyarrow Table for Parquet) with the pair columns appended, in order."""
        for table in tables:
            stop = self._start + len(table)
            gap = np.asarray(table["delta"].to_numpy(), dtype=np.float64)
            made = self.columns(self.first[self._start : stop], self.second[self._start : stop], gap)
            self.negative_between += int((made["gap_between_variance"] < 0).sum())
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
        limit = adjacent["q_generations_inf"].to_numpy(dtype=np.float64) if len(adjacent) else np.empty(0)
        return GenerationSummary(
            label=generations.label,
            count_low=low,
            count_high=high,
            binary=generations.binary,
            models={name: self._model(name) for name in ranking["model"]},
            adjacent_share_median=median,
            adjacent_share_low=float(shares.min()) if shares.size else None,
            adjacent_share_high=float(shares.max()) if shares.size else None,
            q_limit_ratio=None if median is None else (float("inf") if median >= 1 else 1.0 / (1.0 - median)),
            adjacent_beyond_generations=int((limit < 1).sum()),
            negative_between=self.negative_between,
            reported_pairs=self._start,
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
        )

    def note(self) -> str:
        """The audit's note on the split ('' when every reported pair has a between part of at least 0)."""
        if not self.negative_between:
            return ""
        return (
            f"{self.negative_between:,} of {self._start:,} reported pairs have a negative method-of-moments item "
            "variance sigma_item^2 (the generation noise explains more than the observed variance of the "
            "differences): gap_between_variance is reported as it is and taken as 0 for the q curve "
            "(q_generations_inf is then inf where the gap is not 0)"
        )


def _arrow_array(values: np.ndarray):
    """A float column as Arrow, NaN as null (as ``pyarrow.Table.from_pandas`` converts the blocks' other columns)."""
    # Optional dependency (extra parquet): only Parquet output hands Arrow blocks.
    import pyarrow as pa

    return pa.array(np.asarray(values, dtype=np.float64), from_pandas=True)
