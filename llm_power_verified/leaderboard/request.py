"""A per-item audit asked for and not yet run: its inputs, run in memory or streamed block by block.

The report's dispatcher (:func:`~llm_power_verified.report.dispatch.write`) takes a request where it takes an audit:
written as Parquet, the request's pair table streams to the file and is never in memory.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.audit import (
    AuditResult,
    AuditSettings,
    StreamedAudit,
    audit_leaderboard,
    stream_audit,
)
from llm_power_verified.parallel import Backend

__all__ = ["AuditRequest"]


@dataclass(frozen=True)
class AuditRequest:
    """A per-item audit asked for and not yet run.

    ``run()`` gives the audit in memory (:func:`~llm_power_verified.leaderboard.audit.audit_leaderboard`);
    ``stream(sink, arrow=False)`` hands its pair table to ``sink`` block by block
    (:func:`~llm_power_verified.leaderboard.audit.stream_audit`).  The report's
    :func:`~llm_power_verified.report.dispatch.write` streams a request written as Parquet and runs it for every other
    format.

    Attributes
    ----------
    matrix : ScoreMatrix
        The aligned per-item scores.
    settings : AuditSettings
        What the audit is asked for (:class:`~llm_power_verified.leaderboard.audit.AuditSettings`; default: its
        defaults).
    backend : Backend or None
        Where the blocks of pairs are computed (None: this process).
    progress : callable or None
        Called with a short message per block of pairs on large audits.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> from llm_power_verified.leaderboard.audit import AuditSettings
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float)
    >>> request = AuditRequest(from_array(scores, models=["x", "y", "z"]), AuditSettings(n_resamples=0))
    >>> request.run().pairs[["model_a", "model_b"]].values.tolist()
    [['x', 'y'], ['y', 'z']]
    """

    matrix: ScoreMatrix
    settings: AuditSettings = dataclasses.field(default_factory=AuditSettings)
    backend: Backend | None = None
    progress: Callable[[str], None] | None = None

    def run(self) -> AuditResult:
        """The audit in memory (:func:`~llm_power_verified.leaderboard.audit.audit_leaderboard`).

        Returns
        -------
        AuditResult
            The audit, its pair table in memory.
        """
        return audit_leaderboard(self.matrix, **self._keywords(), progress=self.progress, backend=self.backend)

    def stream(self, sink: Callable, *, arrow: bool = False) -> StreamedAudit:
        """The audit with its pair table handed to ``sink`` block by block.

        Parameters
        ----------
        sink : callable
            Called with each block of the pair table, in order
            (:func:`~llm_power_verified.leaderboard.audit.stream_audit`).
        arrow : bool, default False
            True: each block is a pyarrow Table (for a Parquet file); False: a pandas DataFrame.

        Returns
        -------
        StreamedAudit
            The audit without its pair table (the sink had it).
        """
        keywords = self._keywords()
        return stream_audit(
            self.matrix,
            sink,
            keywords.pop("mode"),
            progress=self.progress,
            backend=self.backend,
            arrow=arrow,
            **keywords,
        )

    def _keywords(self) -> dict:
        return {item.name: getattr(self.settings, item.name) for item in dataclasses.fields(self.settings)}
