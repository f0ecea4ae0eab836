"""How a band writes its file: a sink factory, picklable so that it travels to the workers with the task.

A band task opens its temporary file and calls ``sink(stream)``; the writer it gets takes the band's blocks
(``writer(frame)``), names the columns it writes (``writer.schema.names``) and is closed with the file's key-value
metadata (``writer.close(metadata)``): the interface of :class:`~llm_power_verified.report.machine.ParquetSink`, which
the report's :class:`~llm_power_verified.report.tiled_run.BandSink` hands in with the column choice of ``--columns``.
Without one, :class:`EveryColumn` writes every column (what this layer can do without the report's column choice).
"""

from __future__ import annotations

__all__ = ["EveryColumn"]


class EveryColumn:
    """A sink factory writing every pair column: zstd, the model names dictionary-encoded, one row group per block."""

    def __call__(self, stream) -> _Writer:
        """A writer of one band file into ``stream``."""
        return _Writer(stream)


class _Writer:
    """The writer :class:`EveryColumn` makes (the schema of the band's first block; later blocks cast to it)."""

    def __init__(self, stream) -> None:
        # Optional dependency (extra parquet): the tiled audit writes Parquet.
        import pyarrow as pa

        # Optional dependency (extra parquet), as above.
        import pyarrow.parquet as pq

        self._pa, self._pq, self._stream = pa, pq, stream
        self.writer = self.schema = None

    def __call__(self, frame) -> None:
        """Write one block."""
        table = self._pa.Table.from_pandas(frame, preserve_index=False)
        if self.writer is None:
            self.schema = table.schema.remove_metadata()
            self.writer = self._pq.ParquetWriter(
                self._stream, self.schema, compression="zstd", use_dictionary=["model_a", "model_b"]
            )
        self.writer.write_table(table.cast(self.schema))

    def close(self, metadata: dict[bytes, bytes]) -> None:
        """Add the key-value ``metadata`` and close the file."""
        if self.writer is None:
            self.writer = self._pq.ParquetWriter(self._stream, self._pa.schema([]))
        self.writer.add_key_value_metadata(metadata)
        self.writer.close()
