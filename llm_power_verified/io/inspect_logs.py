"""UK AISI Inspect logs: ``.eval`` (a zip archive) or ``.json``, one model per file (``eval.model``).

Items are keyed by sample id.  Repeated epochs: ``epochs="first"`` (default)
keeps epoch 1 and says so in the notes; ``"mean"`` averages the epochs (the
scores become graded, as asked); ``"error"`` refuses files with repeats.

Reading under damage.  Inspect compresses ``.eval`` members with zstd (zip
method 93), which Python's ``zipfile`` cannot read before Python 3.14, so
those members are located through the zip directory and decompressed here
with the ``zstandard`` package; this is the one hand-written part, kept
because no maintained library reads zstd zip members on the Pythons we
support.  Every member that is read is

* size-bounded: its declared size must be at most :data:`MAX_MEMBER_BYTES`, a
  zstd frame that declares more content than the zip directory is refused
  before anything is decompressed, and decompression streams in chunks and
  stops as soon as the output would exceed the declared size;
* CRC-checked against the zip directory (``zipfile`` does this itself for
  stored and deflated members);
* parsed as JSON and checked for the keys this reader uses.

Any failure is an :class:`~llm_power_verified.io.errors.InputError` naming the
file and the member.
"""

from __future__ import annotations

import json
import math
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.tables import from_long

__all__ = ["MAX_MEMBER_BYTES", "MAX_LOG_BYTES", "read_inspect", "read_zip_member"]

#: Largest declared (uncompressed) size of one member that is read (1 GiB).
MAX_MEMBER_BYTES = 1 << 30
#: Largest total of the members read from one log (4 GiB).
MAX_LOG_BYTES = 4 << 30
_ZSTD = 93
_CHUNK = 1 << 20
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


def _zstd_member(path: Path, info: zipfile.ZipInfo) -> bytes:
    # Lazy: only Inspect logs with zstd members need it.
    import zstandard

    where = f"{path}, member {info.filename!r}"
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
    try:
        declared = zstandard.frame_content_size(raw)
    except zstandard.ZstdError as error:
        raise InputError(f"{where}: not a zstd frame ({error})") from None
    if declared > info.file_size:
        raise InputError(f"{where}: the zstd frame declares {declared:,} bytes but the zip directory says {info.file_size:,}; "
                         "refusing to decompress a damaged or hostile member")
    output = bytearray()
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        while True:
            chunk = reader.read(_CHUNK)
            if not chunk:
                break
            output += chunk
            if len(output) > info.file_size:
                raise InputError(f"{where}: decompresses to more than its declared {info.file_size:,} bytes")
    except zstandard.ZstdError as error:
        raise InputError(f"{where}: damaged zstd data ({error})") from None
    if len(output) != info.file_size:
        raise InputError(f"{where}: decompresses to {len(output):,} bytes, not the declared {info.file_size:,}")
    if zlib.crc32(output) != info.CRC:
        raise InputError(f"{where}: CRC-32 mismatch (the member is damaged)")
    return bytes(output)


def read_zip_member(archive: zipfile.ZipFile, path: Path, name: str) -> bytes:
    """A member's bytes, size-bounded and CRC-checked (see the module notes)."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise InputError(f"{path}: no member {name!r} in the archive") from None
    where = f"{path}, member {name!r}"
    if info.file_size > MAX_MEMBER_BYTES:
        raise InputError(f"{where}: declares {info.file_size:,} bytes, over the {MAX_MEMBER_BYTES:,}-byte limit per member")
    if info.compress_type == _ZSTD:
        return _zstd_member(path, info)
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        raise InputError(f"{where}: unsupported zip compression method {info.compress_type}")
    try:
        with archive.open(info) as stream:
            data = stream.read(info.file_size + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as error:
        raise InputError(f"{where}: damaged member ({error})") from None
    if len(data) != info.file_size:
        raise InputError(f"{where}: holds {len(data):,} bytes, not the declared {info.file_size:,}")
    return data


def _json(data: bytes, where: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None


def _model(header: Any, where: str) -> str:
    model = header.get("eval", {}).get("model") if isinstance(header, dict) and isinstance(header.get("eval"), dict) else None
    if not isinstance(model, str) or not model:
        raise InputError(f"{where}: no 'eval.model' (got {describe_value(model)}); not an Inspect log header")
    return model


def _inspect_records(path: Path) -> tuple[str, list[tuple[str, dict]]]:
    """(model, [(where, sample record)])."""
    if path.suffix.lower() == ".json":
        try:
            log = _json(path.read_bytes(), str(path))
        except OSError as error:
            raise InputError(f"{path}: cannot read it ({error.strerror})") from None
        samples = log.get("samples") if isinstance(log, dict) else None
        if not isinstance(samples, list):
            raise InputError(f"{path}: no 'samples' list (got {describe_value(samples)}); was the log written with samples?")
        return _model(log, str(path)), [(f"{path}, samples[{i}]", record) for i, record in enumerate(samples)]
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise InputError(f"{path}: not a readable .eval archive ({error})") from None
    with archive:
        total = sum(info.file_size for info in archive.infolist() if info.filename in ("header.json", "summaries.json")
                    or info.filename.startswith("samples/"))
        if total > MAX_LOG_BYTES:
            raise InputError(f"{path}: its members declare {total:,} bytes, over the {MAX_LOG_BYTES:,}-byte limit per log")
        model = _model(_json(read_zip_member(archive, path, "header.json"), f"{path}, member 'header.json'"), f"{path}, member 'header.json'")
        names = archive.namelist()
        if "summaries.json" in names:
            where = f"{path}, member 'summaries.json'"
            records = _json(read_zip_member(archive, path, "summaries.json"), where)
            if not isinstance(records, list):
                raise InputError(f"{where}: a JSON {type(records).__name__} where a list of samples is expected")
            return model, [(f"{where}[{i}]", record) for i, record in enumerate(records)]
        found = []
        for name in names:
            if name.startswith("samples/"):
                found.append((f"{path}, member {name!r}", _json(read_zip_member(archive, path, name), f"{path}, member {name!r}")))
        return model, found


def _score_value(value: Any, where: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise InputError(f"{where}: score {value!r} is not finite")
        return float(value)
    if isinstance(value, str) and value in _LETTERS:
        return _LETTERS[value]
    raise InputError(f"{where}: score {describe_value(value)} is not a number or one of C/I/P/N")


def read_inspect(paths: Iterable[str | Path], *, scorer: str | None = None, epochs: str = "first", on_missing: str = "error",
                 score_kind: str = "auto") -> ScoreMatrix:
    """Read Inspect ``.eval`` or ``.json`` logs, one model per file (``eval.model``)."""
    if epochs not in ("first", "mean", "error"):
        raise ArgumentError(f"epochs must be 'first', 'mean' or 'error'; got {epochs!r}")
    rows: dict[str, list] = {"item": [], "model": [], "score": [], "line": []}
    notes, seen_models = [], {}
    averaged = False
    for path in map(Path, paths):
        if not path.is_file():
            raise InputError(f"{path}: no such file")
        model, records = _inspect_records(path)
        if model in seen_models:
            raise AlignmentError(f"{path.name} and {seen_models[model]} are both logs of model {model!r}")
        seen_models[model] = path.name
        for where, record in records:
            if not isinstance(record, dict):
                raise InputError(f"{where}: a JSON {type(record).__name__} where a sample object is expected")
            if isinstance(record.get("id"), bool) or not isinstance(record.get("id"), (str, int)):
                raise InputError(f"{where}: sample id is {describe_value(record.get('id'))}; expected a string or whole number")
            epoch = record.get("epoch", 1)
            if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
                raise InputError(f"{where}: epoch is {describe_value(epoch)}; expected a whole number >= 1")
            if not isinstance(record.get("scores") or {}, dict):
                raise InputError(f"{where}: 'scores' is {describe_value(record.get('scores'))}, not an object")
        scorers = sorted({name for _, record in records for name in (record.get("scores") or {})})
        if scorer is None and len(scorers) > 1:
            raise AlignmentError(f"{path}: several scorers {scorers}; choose one with --scorer")
        chosen = scorer or (scorers[0] if scorers else None)
        if chosen not in scorers:
            raise AlignmentError(f"{path}: no scorer {chosen!r} (scorers: {scorers}); check --scorer")
        epochs_present = sorted({int(record.get("epoch", 1)) for _, record in records})
        if len(epochs_present) > 1:
            if epochs == "error":
                raise AlignmentError(f"{path}: {len(epochs_present)} epochs per sample; choose --epochs first or mean")
            notes.append(f"{model}: {len(epochs_present)} epochs per sample; " + ("kept epoch 1" if epochs == "first" else "averaged the epochs (scores are graded)"))
            averaged |= epochs == "mean"
        values: dict[str, list[float]] = {}
        location: dict[str, str] = {}
        for where, record in records:
            if epochs == "first" and record.get("epoch", 1) != epochs_present[0]:
                continue
            score = (record.get("scores") or {}).get(chosen)
            if score is None:
                raise AlignmentError(f"{where}: sample {record.get('id')!r} has no {chosen!r} score")
            item = str(record["id"])
            values.setdefault(item, []).append(_score_value(score.get("value") if isinstance(score, dict) else score, where))
            location.setdefault(item, where)
        for item, scores in values.items():
            if epochs == "first" and len(scores) > 1:
                raise AlignmentError(f"{path}: sample id {item!r} appears {len(scores)} times in one epoch")
            rows["item"].append(item)
            rows["model"].append(model)
            rows["score"].append(sum(scores) / len(scores))
            rows["line"].append(location[item])
    if not rows["item"]:
        raise AlignmentError("inspect logs: no per-item results found")
    long = pd.DataFrame(rows)
    lines = long.pop("line").to_numpy(dtype=object)
    # Averaging epochs was asked for: the scores are graded by request, not by a silent switch.
    kind = "graded" if averaged and score_kind == "auto" else score_kind
    return from_long(long, item_column="item", model_column="model", score_column="score", on_missing=on_missing,
                     score_kind=kind, source="inspect logs", lines=lines, notes=notes)
