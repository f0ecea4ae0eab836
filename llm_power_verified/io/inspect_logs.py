"""UK AISI Inspect logs: ``.eval`` (a zip archive) or ``.json``, one model per file (``eval.model``).

Items are keyed by sample id.  Epochs are exact: in each log every sample
must have the same set of epochs, each exactly once, or the reader refuses
naming the sample and the epoch.  Then ``epochs="first"`` (default) keeps
the lowest epoch of the log and the notes name it; ``"mean"`` averages the
epochs (the scores become graded, as asked) and the notes name them;
``"error"`` refuses logs with more than one epoch.

Reading under damage.  Every member that is read is located through the zip
directory and decompressed here, in chunks of 1 MiB, whatever its method:
stored, deflate (``zlib``), bzip2 (``bz2``), LZMA (``lzma``) and zstd (zip
method 93, which Python's ``zipfile`` cannot read before Python 3.14; the
``zstandard`` package).  ``zipfile``'s own reader is not used for the data
because it inflates bzip2 and LZMA input without an output bound (722 bytes
of bzip2 hold 1 GB of zeros).  Every member is

* size-bounded: its declared size must be at most :data:`MAX_MEMBER_BYTES`
  (128 MiB), a zstd frame that declares more content than the zip directory
  is refused before anything is decompressed, and decompression stops as
  soon as the output would exceed the declared size;
* CRC-checked against the zip directory;
* parsed by :func:`~llm_power_verified.io.json_input.parse_json`, which bounds
  the memory of what the JSON builds (768 MiB), so that reading a hostile log
  stays under about 1 GB (the member's bytes, their text and the objects);
* reduced at once to what this reader uses (id, epoch, score values), so
  that the memory kept across members is a few hundred bytes per sample.

An archive holding two members of one name is refused (``zipfile`` would
read the last).  The members of one log may declare at most
:data:`MAX_LOG_BYTES` together.  Any failure is an
:class:`~llm_power_verified.io.errors.InputError` naming the file and the
member (and the sample where there is one).
"""

from __future__ import annotations

import bz2
import lzma
import math
import struct
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.tables import from_long
from llm_power_verified.io.text import Shown, check_input_kind, kept_value, read_input_bytes

__all__ = ["MAX_ID_CHARACTERS", "MAX_MEMBER_BYTES", "MAX_LOG_BYTES", "read_inspect", "read_zip_member"]

#: Largest declared (uncompressed) size of one member that is read (128 MiB).
MAX_MEMBER_BYTES = 128 << 20
#: Largest total of the members read from one log (4 GiB; members are read one at a time).
MAX_LOG_BYTES = 4 << 30
#: Longest sample id read (4,096 characters).
MAX_ID_CHARACTERS = 4096
_ZSTD = 93
_CHUNK = 1 << 20
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma",
            _ZSTD: "zstd"}


def _compressed(path: Path, info: zipfile.ZipInfo, where: str) -> bytes:
    """The member's compressed bytes, found through its local header."""
    with open(path, "rb") as stream:
        stream.seek(info.header_offset)
        header = stream.read(30)
        if len(header) < 30:
            raise InputError(f"{where}: the archive is cut short before the member's header")
        signature, *_, name_length, extra_length = struct.unpack("<IHHHHHIIIHH", header)
        if signature != 0x04034B50:
            raise InputError(f"{where}: damaged zip member header")
        stream.seek(info.header_offset + 30 + name_length + extra_length)
        raw = stream.read(info.compress_size)
    if len(raw) < info.compress_size:
        raise InputError(f"{where}: the archive is cut short ({len(raw)} of {info.compress_size} compressed bytes)")
    return raw


class _Output:
    """Decompressed chunks, refused as soon as they exceed the member's declared size."""

    def __init__(self, declared: int, where: str) -> None:
        self.chunks: list[bytes] = []
        self.size, self.declared, self.where = 0, declared, where

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > self.declared:
            raise InputError(f"{self.where}: decompresses to more than its declared {self.declared:,} bytes")
        self.chunks.append(chunk)


def _zstd(raw: bytes, info: zipfile.ZipInfo, output: _Output) -> None:
    # Lazy: only Inspect logs with zstd members need it.
    import zstandard

    try:
        declared = zstandard.frame_content_size(raw)
    except zstandard.ZstdError as error:
        raise InputError(f"{output.where}: not a zstd frame ({error})") from None
    if declared > info.file_size:
        raise InputError(f"{output.where}: the zstd frame declares {declared:,} bytes but the zip directory says {info.file_size:,}; "
                         "refusing to decompress a damaged or hostile member")
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        while chunk := reader.read(_CHUNK):
            output.add(chunk)
    except zstandard.ZstdError as error:
        raise InputError(f"{output.where}: damaged zstd data ({error})") from None


def _deflate(raw: bytes, output: _Output) -> None:
    decompressor = zlib.decompressobj(-15)
    while True:
        chunk = decompressor.decompress(raw, _CHUNK)
        raw = decompressor.unconsumed_tail
        output.add(chunk)
        if decompressor.eof or not (raw or chunk):
            break


def _stream(decompressor: Any, raw: bytes, output: _Output) -> None:
    """bz2 / lzma decompressor objects: at most one chunk out per call."""
    while not decompressor.eof:
        output.add(decompressor.decompress(raw, _CHUNK))
        raw = b""
        if decompressor.needs_input:
            break


def _lzma(raw: bytes, info: zipfile.ZipInfo, output: _Output) -> None:
    # A zip LZMA member: 2 bytes of version, 2 of property size, the 5 properties, the raw stream.  As the ".lzma"
    # (alone) format: the properties, then the size (unknown, all ones, when flag bit 1 says an end marker follows).
    if len(raw) < 9:
        raise InputError(f"{output.where}: damaged LZMA member header")
    (size,) = struct.unpack("<H", raw[2:4])
    declared = b"\xff" * 8 if info.flag_bits & 0x02 else struct.pack("<Q", info.file_size)
    _stream(lzma.LZMADecompressor(lzma.FORMAT_ALONE), raw[4:4 + size] + declared + raw[4 + size:], output)


def read_zip_member(archive: zipfile.ZipFile, path: Path, name: str) -> bytes:
    """A member's bytes, size-bounded and CRC-checked (see the module notes)."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise InputError(f"{path}: no member {name!r} in the archive") from None
    where = f"{path}, member {name!r}"
    if info.file_size > MAX_MEMBER_BYTES:
        raise InputError(f"{where}: declares {info.file_size:,} bytes, over the {MAX_MEMBER_BYTES:,}-byte limit per member")
    if info.compress_type not in _METHODS:
        raise InputError(f"{where}: unsupported zip compression method {info.compress_type}")
    if info.flag_bits & 0x01:
        raise InputError(f"{where}: the member is encrypted")
    raw = _compressed(path, info, where)
    output = _Output(info.file_size, where)
    try:
        if info.compress_type == zipfile.ZIP_STORED:
            output.add(raw)
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            _deflate(raw, output)
        elif info.compress_type == zipfile.ZIP_BZIP2:
            _stream(bz2.BZ2Decompressor(), raw, output)
        elif info.compress_type == zipfile.ZIP_LZMA:
            _lzma(raw, info, output)
        else:
            _zstd(raw, info, output)
    except (zlib.error, OSError, EOFError, lzma.LZMAError) as error:
        raise InputError(f"{where}: damaged {_METHODS[info.compress_type]} data ({error})") from None
    del raw
    if output.size != info.file_size:
        raise InputError(f"{where}: decompresses to {output.size:,} bytes, not the declared {info.file_size:,}")
    data = b"".join(output.chunks)
    output.chunks.clear()
    if zlib.crc32(data) != info.CRC:
        raise InputError(f"{where}: CRC-32 mismatch (damaged member)")
    return data


@dataclass(frozen=True)
class _Sample:
    """What this reader keeps of one sample record: its place, id, epoch and score values by scorer."""

    where: str
    id: str | int
    epoch: int
    scores: dict[str, Any]


def _sample(record: Any, where: str) -> _Sample:
    if not isinstance(record, dict):
        raise InputError(f"{where}: a JSON {type(record).__name__} where a sample object is expected")
    sample_id = record.get("id")
    if isinstance(sample_id, bool) or not isinstance(sample_id, (str, int)):
        raise InputError(f"{where}: sample id is {describe_value(sample_id)}; expected a string or whole number")
    if isinstance(sample_id, str) and len(sample_id) > MAX_ID_CHARACTERS:
        raise InputError(f"{where}: sample id {describe_value(sample_id)} has {len(sample_id):,} characters "
                         f"(at most {MAX_ID_CHARACTERS:,}); an id names a sample, it is not the sample")
    epoch = record.get("epoch", 1)
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        raise InputError(f"{where}: sample {sample_id!r} has epoch {describe_value(epoch)}; expected a whole number >= 1")
    scores = record.get("scores")
    if scores is None:
        scores = {}
    if not isinstance(scores, dict):
        raise InputError(f"{where}: sample {sample_id!r} has 'scores' {describe_value(scores)}, not an object")
    # Keep only the values: a score's explanation and metadata can be large.
    values = {name: score.get("value") if isinstance(score, dict) else score for name, score in scores.items()}
    return _Sample(where, sample_id, epoch, {name: kept_value(value) for name, value in values.items()})


def _model(header: Any, where: str) -> str:
    model = header.get("eval", {}).get("model") if isinstance(header, dict) and isinstance(header.get("eval"), dict) else None
    if not isinstance(model, str) or not model:
        raise InputError(f"{where}: no 'eval.model' (got {describe_value(model)}); not an Inspect log header")
    return model


def _samples(records: Any, where: str) -> list[_Sample]:
    if not isinstance(records, list):
        raise InputError(f"{where}: a JSON {type(records).__name__} where a list of samples is expected")
    return [_sample(record, f"{where}[{i}]") for i, record in enumerate(records)]


def _inspect_records(path: Path) -> tuple[str, list[_Sample]]:
    """(model, samples) of one log."""
    if path.suffix.lower() == ".json":
        log = parse_json(read_input_bytes(path, MAX_MEMBER_BYTES), str(path))
        samples = log.get("samples") if isinstance(log, dict) else None
        if not isinstance(samples, list):
            raise InputError(f"{path}: no 'samples' list (got {describe_value(samples)}); was the log written with samples?")
        return _model(log, str(path)), _samples(samples, f"{path}, samples")
    check_input_kind(path)
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise InputError(f"{path}: not a readable .eval archive ({error})") from None
    with archive:
        names = archive.namelist()
        repeated = [name for name, count in Counter(names).items() if count > 1]
        if repeated:
            raise InputError(f"{path}: member {repeated[0]!r} appears {names.count(repeated[0])} times in the archive "
                             "(a damaged or tampered log: which copy is the log is unknown)")
        total = sum(info.file_size for info in archive.infolist() if info.filename in ("header.json", "summaries.json")
                    or info.filename.startswith("samples/"))
        if total > MAX_LOG_BYTES:
            raise InputError(f"{path}: its members declare {total:,} bytes, over the {MAX_LOG_BYTES:,}-byte limit per log")

        def member(name: str) -> Any:
            return parse_json(read_zip_member(archive, path, name), f"{path}, member {name!r}")

        model = _model(member("header.json"), f"{path}, member 'header.json'")
        if "summaries.json" in names:
            return model, _samples(member("summaries.json"), f"{path}, member 'summaries.json'")
        return model, [_sample(member(name), f"{path}, member {name!r}") for name in names if name.startswith("samples/")]


def _score_value(value: Any, where: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise InputError(f"{where}: score {value!r} is not finite")
        return float(value)
    if isinstance(value, str) and not isinstance(value, Shown) and value in _LETTERS:
        return _LETTERS[value]
    raise InputError(f"{where}: score {describe_value(value)} is not a number or one of C/I/P/N")


def _epoch_list(epochs: list[int]) -> str:
    """1, 2, 3 -> "1-3"; otherwise the numbers."""
    if len(epochs) > 2 and epochs == list(range(epochs[0], epochs[-1] + 1)):
        return f"{epochs[0]}-{epochs[-1]}"
    return ", ".join(map(str, epochs))


def _by_sample(path: Path, samples: list[_Sample]) -> tuple[dict[str, dict[int, _Sample]], list[int]]:
    """{item: {epoch: sample}} and the log's epochs, refusing a repeated (id, epoch) or a sample that lacks an epoch."""
    table: dict[str, dict[int, _Sample]] = {}
    for sample in samples:
        epochs = table.setdefault(str(sample.id), {})
        if sample.epoch in epochs:
            raise AlignmentError(f"{sample.where}: sample {sample.id!r} epoch {sample.epoch} appears twice in one log "
                                 f"(also at {epochs[sample.epoch].where}); a log holds each (sample, epoch) once")
        epochs[sample.epoch] = sample
    every = sorted({epoch for epochs in table.values() for epoch in epochs})
    for item, epochs in table.items():
        if len(epochs) != len(every):
            lacking = next(epoch for epoch in every if epoch not in epochs)
            raise AlignmentError(f"{path}: sample {item!r} has no epoch {lacking} (its epochs: {_epoch_list(sorted(epochs))}; "
                                 f"the log's: {_epoch_list(every)}); every sample needs the same epochs, each once")
    return table, every


def read_inspect(paths: Iterable[str | Path], *, scorer: str | None = None, epochs: str = "first", on_missing: str = "error",
                 score_kind: str = "auto") -> ScoreMatrix:
    """Read Inspect ``.eval`` or ``.json`` logs, one model per file (``eval.model``); epochs as in the module notes."""
    if epochs not in ("first", "mean", "error"):
        raise ArgumentError(f"epochs must be 'first', 'mean' or 'error'; got {epochs!r}")
    rows: dict[str, list] = {"item": [], "model": [], "score": [], "line": []}
    notes, seen_models = [], {}
    averaged = False
    for path in map(Path, paths):
        if not path.is_file():
            raise InputError(f"{path}: no such file")
        model, samples = _inspect_records(path)
        if model in seen_models:
            raise AlignmentError(f"{path.name} and {seen_models[model]} are both logs of model {model!r}")
        seen_models[model] = path.name
        scorers = sorted({name for sample in samples for name in sample.scores})
        if scorer is None and len(scorers) > 1:
            raise AlignmentError(f"{path}: several scorers {scorers}; choose one with --scorer")
        chosen = scorer or (scorers[0] if scorers else None)
        if chosen not in scorers:
            raise AlignmentError(f"{path}: no scorer {chosen!r} (scorers: {scorers}); check --scorer")
        table, every = _by_sample(path, samples)
        kept = every[:1] if epochs == "first" else every
        if len(every) > 1:
            if epochs == "error":
                raise AlignmentError(f"{path}: {len(every)} epochs per sample (epochs {_epoch_list(every)}); "
                                     "choose --epochs first or mean")
            notes.append(f"{model}: {len(every)} epochs per sample (epochs {_epoch_list(every)}); "
                         + (f"kept epoch {kept[0]} of each sample" if epochs == "first"
                            else f"averaged all {len(kept)} of each sample (scores are graded)"))
            averaged |= epochs == "mean"
        elif every and every[0] != 1:
            notes.append(f"{model}: one epoch per sample, epoch {every[0]}")
        for item, by_epoch in table.items():
            values = []
            for epoch in kept:
                sample = by_epoch[epoch]
                if sample.scores.get(chosen) is None:
                    raise AlignmentError(f"{sample.where}: sample {sample.id!r} epoch {epoch} has no {chosen!r} score")
                values.append(_score_value(sample.scores[chosen], sample.where))
            rows["item"].append(item)
            rows["model"].append(model)
            rows["score"].append(math.fsum(values) / len(values))
            rows["line"].append(by_epoch[kept[0]].where)
    if not rows["item"]:
        raise AlignmentError("inspect logs: no per-item results found")
    long = pd.DataFrame(rows)
    lines = long.pop("line").to_numpy(dtype=object)
    # Averaging epochs was asked for: the scores are graded by request, not by a silent switch.
    kind = "graded" if averaged and score_kind == "auto" else score_kind
    return from_long(long, item_column="item", model_column="model", score_column="score", on_missing=on_missing,
                     score_kind=kind, source="inspect logs", lines=lines, notes=notes)
