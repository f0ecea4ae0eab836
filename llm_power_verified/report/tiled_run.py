"""The tiled all-pairs audit with the Parquet report's band files: a choice of columns, dictionary-encoded names.

:func:`~llm_power_verified.leaderboard.tiled_audit.tiled_audit` computes the bands; how a band's file is written is
the report's: :func:`tiled_parquet` hands each band :class:`BandSink`, which writes through
:class:`~llm_power_verified.report.machine.ParquetSink` (the writer of ``audit --format parquet``: the columns of
``--columns``, zstd, model names dictionary-encoded, row groups of a reader's size), and the folder read back is the
in-memory audit's Parquet table.  ``audit --tiles`` runs it.
"""

from __future__ import annotations

from pathlib import Path

from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.tiled_audit import TiledAudit, tiled_audit
from llm_power_verified.report.column_choice import requested_names
from llm_power_verified.report.machine import ParquetSink

__all__ = ["BandSink", "tiled_parquet"]


class BandSink:
    """The band files' writer: ``BandSink(columns)(stream)`` is a ParquetSink of those columns.

    The writer is :class:`~llm_power_verified.report.machine.ParquetSink` (``--format parquet``'s).

    Parameters
    ----------
    columns : list of str or None
        The pair columns (:func:`~llm_power_verified.report.column_choice.chosen_columns`); None: every column.
    """

    def __init__(self, columns: tuple[str, ...] | None = None) -> None:
        self.columns = columns

    def __call__(self, stream) -> ParquetSink:
        """The writer of one band file into ``stream``."""
        return ParquetSink(stream, None, None if self.columns is None else list(self.columns), "binary")


def tiled_parquet(
    matrix: ScoreMatrix, folder: str | Path, *, columns: str | list[str] | None = "default", **options
) -> TiledAudit:
    """Audit every pair of a 0/1 leaderboard in row bands; the band files hold the chosen pair columns.

    Parameters
    ----------
    matrix : ScoreMatrix
        0/1 scores without clusters or generations.
    folder : str or pathlib.Path
        An empty or new folder for the dataset.
    columns : str, list of str or None, default "default"
        The band files' pair columns, as ``--columns`` chooses them for ``--format parquet``: "default" (the
        contract's default set), "all" or None (every column), or names and sets (``["default", "log_e"]``).
    **options
        :func:`~llm_power_verified.leaderboard.tiled_audit.tiled_audit`'s keyword arguments (alpha, power,
        n_resamples, seed, correction, min_effect, backend, pairs_per_band).

    Returns
    -------
    TiledAudit
        The summaries (``pairs_columns`` the columns written) and the dataset's folder.

    Raises
    ------
    ArgumentError
        A column request that names no pair column (before any work), one this audit does not have (from the first
        band), and every refusal of ``tiled_audit``.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((400, 4)) < [0.8, 0.7, 0.6, 0.5]).astype(float)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     result = tiled_parquet(from_array(scores, models=list("wxyz")), folder, pairs_per_band=2)
    >>> result.bands, result.pairs_columns[:3]
    (3, ['model_a', 'model_b', 'rank_a'])
    """
    names = requested_names(columns)
    return tiled_audit(matrix, folder, sink=BandSink(None if names is None else tuple(names)), **options)
