"""UK AISI Inspect logs: ``.eval`` (a zip archive) or ``.json``, one model per file (``eval.model``).

Items are keyed by sample id.  Epochs are exact: in each log every sample
must have the same set of epochs, each exactly once, or the reader refuses
naming the sample and the epoch.  A log of several epochs needs a choice
(``epochs``; the default ``"error"`` refuses it naming the three):
``"all"`` keeps every epoch as a generation of its item (the matrix holds
the item means and their :class:`~llm_power_verified.io.generations.Generations`;
a log needs at least two epochs, the logs may differ in their number);
``"mean"`` averages the epochs (the scores become graded, as asked) and the
notes name them; ``"first"`` keeps the lowest epoch of the log and the notes
name it.

Reading under damage.  Each member is read by
:func:`~llm_power_verified.io.zip_members.read_zip_member` (size-bounded,
CRC-checked, decompressed in bounded chunks whatever its method), then

* parsed by :func:`~llm_power_verified.io.json_input.parse_json`, which bounds
  the memory of what the JSON builds (768 MiB), so that reading a hostile log
  stays under about 1 GB (the member's bytes, their text and the objects);
* reduced at once to what this reader uses (id, epoch, score values), so
  that the memory kept across members is a few hundred bytes per sample.

A sample id whose input or target (their first 1,000 characters; the
summaries cut at 5,120) differs from another log's sample of that id is
refused: the logs did not score the same samples.  Inputs that are message
lists are matched by id alone.

An archive holding two members of one name is refused (``zipfile`` would
read the last).  The members of one log may declare at most
``MAX_LOG_BYTES`` together.  Any failure is an
:class:`~llm_power_verified.io.errors.InputError` naming the file and the
member (and the sample where there is one).
"""

from __future__ import annotations

import hashlib
import json
import math
import zipfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from llm_power_verified._docstrings import docfill
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import AlignmentError, InputError, describe_value
from llm_power_verified.io.json_input import parse_json
from llm_power_verified.io.matrix import ScoreMatrix
from llm_power_verified.io.repeat_choice import CHOOSE, EPOCHS, choose_repeats, exact_repeats, kept_scores
from llm_power_verified.io.repeated_tables import from_long_repeated
from llm_power_verified.io.tables import from_long
from llm_power_verified.io.text import Shown, check_input_kind, kept_value, read_input_bytes
from llm_power_verified.io.zip_members import MAX_MEMBER_BYTES, read_zip_member

__all__ = ["MAX_ID_CHARACTERS", "MAX_LOG_BYTES", "read_inspect"]

#: Largest total of the members read from one log (4 GiB; members are read one at a time).
MAX_LOG_BYTES = 4 << 30
#: Longest sample id read (4,096 characters).
MAX_ID_CHARACTERS = 4096
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


@dataclass(frozen=True)
class _Sample:
    """What this reader keeps of one sample record: its place, id, epoch and score values by scorer."""

    where: str
    id: str | int
    epoch: int
    scores: dict[str, Any]
    content: tuple[str, str] | None = None  # (digest of input and target, the input as shown) when the input is text
    error: str | None = None  # the sample's error message (Inspect: a text in summaries, {message, ...} in samples)


@dataclass(frozen=True)
class _Header:
    """What this reader keeps of a log's header: the model, the task, the run's status and its error message."""

    model: str
    task: str | None
    status: str | None
    error: str | None


def _message(error: Any) -> str | None:
    """An Inspect error's message: the text itself, or an EvalError's ``message``; None when there is none."""
    text = error.get("message") if isinstance(error, dict) else error
    if not isinstance(text, str) or not text.strip():
        return None
    text = " ".join(text.split())  # a traceback's lines on one line
    return text if len(text) <= 100 else text[:97] + "..."


def _sample(record: Any, where: str) -> _Sample:
    if not isinstance(record, dict):
        raise InputError(f"{where}: a JSON {type(record).__name__} where a sample object is expected")
    sample_id = record.get("id")
    if isinstance(sample_id, bool) or not isinstance(sample_id, (str, int)):
        raise InputError(f"{where}: sample id is {describe_value(sample_id)}; expected a string or whole number")
    if isinstance(sample_id, str) and len(sample_id) > MAX_ID_CHARACTERS:
        raise InputError(
            f"{where}: sample id {describe_value(sample_id)} has {len(sample_id):,} characters "
            f"(at most {MAX_ID_CHARACTERS:,}); an id names a sample, it is not the sample"
        )
    epoch = record.get("epoch", 1)
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        raise InputError(
            f"{where}: sample {sample_id!r} has epoch {describe_value(epoch)}; expected a whole number >= 1"
        )
    scores = record.get("scores")
    if scores is None:
        scores = {}
    if not isinstance(scores, dict):
        raise InputError(f"{where}: sample {sample_id!r} has 'scores' {describe_value(scores)}, not an object")
    # Keep only the values: a score's explanation and metadata can be large.
    values = {name: score.get("value") if isinstance(score, dict) else score for name, score in scores.items()}
    kept = {name: kept_value(value) for name, value in values.items()}
    return _Sample(where, sample_id, epoch, kept, _content(record), _message(record.get("error")))


def _content(record: dict) -> tuple[str, str] | None:
    """Digest of the sample's input and target (first 1,000 characters of each), and the input shown; None if not text.

    Only the start of each text is compared: Inspect's sample summaries cut long inputs and targets (at 5,120).
    """
    text, target = record.get("input"), record.get("target")
    if not isinstance(text, str):
        return None
    start = [
        text[:1000],
        *(
            value[:1000] if isinstance(value, str) else value
            for value in (target if isinstance(target, list) else [target])
        ),
    ]
    digest = hashlib.sha256(json.dumps(start, default=str).encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:16], describe_value(text, 60)


def _header(header: Any, where: str) -> _Header:
    spec = header.get("eval") if isinstance(header, dict) else None
    model = spec.get("model") if isinstance(spec, dict) else None
    if not isinstance(model, str) or not model:
        raise InputError(f"{where}: no 'eval.model' (got {describe_value(model)}); not an Inspect log header")
    task, status = spec.get("task"), header.get("status")
    return _Header(
        model,
        task if isinstance(task, str) else None,
        status if isinstance(status, str) else None,
        _message(header.get("error")),
    )


def _samples(records: Any, where: str) -> list[_Sample]:
    if not isinstance(records, list):
        raise InputError(f"{where}: a JSON {type(records).__name__} where a list of samples is expected")
    return [_sample(record, f"{where}[{i}]") for i, record in enumerate(records)]


def _inspect_records(path: Path) -> tuple[_Header, list[_Sample]]:
    """(header, samples) of one log."""
    if path.suffix.lower() == ".json":
        log = parse_json(read_input_bytes(path, MAX_MEMBER_BYTES), str(path))
        samples = log.get("samples") if isinstance(log, dict) else None
        if not isinstance(samples, list):
            schema = log.get("schema") if isinstance(log, dict) else None
            if isinstance(schema, str) and schema.startswith("llm-power-verified/"):
                raise InputError(
                    f"{path}: a saved llm-power-verified report ({schema}), not per-item scores or an Inspect log; "
                    "'plan report FILE' plans from a saved audit report, the other commands read the scores it was "
                    "made from"
                )
            raise InputError(
                f"{path}: no 'samples' list (got {describe_value(samples)}); was the log written with samples?"
            )
        return _header(log, str(path)), _samples(samples, f"{path}, samples")
    check_input_kind(path)
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise InputError(f"{path}: not a readable .eval archive ({error})") from None
    with archive:
        names = archive.namelist()
        repeated = [name for name, count in Counter(names).items() if count > 1]
        if repeated:
            raise InputError(
                f"{path}: member {repeated[0]!r} appears {names.count(repeated[0])} times in the archive "
                "(a damaged or tampered log: which copy is the log is unknown)"
            )
        total = sum(
            info.file_size
            for info in archive.infolist()
            if info.filename in ("header.json", "summaries.json") or info.filename.startswith("samples/")
        )
        if total > MAX_LOG_BYTES:
            raise InputError(
                f"{path}: its members declare {total:,} bytes, over the {MAX_LOG_BYTES:,}-byte limit per log"
            )

        def member(name: str) -> Any:
            return parse_json(read_zip_member(archive, path, name), f"{path}, member {name!r}")

        model = _header(member("header.json"), f"{path}, member 'header.json'")
        if "summaries.json" in names:
            return model, _samples(member("summaries.json"), f"{path}, member 'summaries.json'")
        return model, [
            _sample(member(name), f"{path}, member {name!r}") for name in names if name.startswith("samples/")
        ]


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
    return exact_repeats(
        samples,
        lambda sample: (str(sample.id), sample.epoch),
        twice=lambda sample, earlier: (
            f"{sample.where}: sample {sample.id!r} epoch {sample.epoch} appears twice in one log "
            f"(also at {earlier.where}); a log holds each (sample, epoch) once"
        ),
        lacking=lambda item, epoch, its, every: (
            f"{path}: sample {item!r} has no epoch {epoch} (its epochs: {_epoch_list(its)}; "
            f"the log's: {_epoch_list(every)}); every sample needs the same epochs, each once"
        ),
    )


def _kept_epochs(path: Path, model: str, every: list[int], epochs: str) -> tuple[list[int], str | None]:
    """The epochs of a log that are read under ``epochs``, and the note saying so (None: nothing to say)."""
    listed = f"{len(every)} epochs per sample (epochs {_epoch_list(every)})"
    # Every sample has the same epochs (_by_sample): one choice serves them all.
    kept, note = choose_repeats(
        {path: every},
        epochs,
        refuse_several=lambda _, __: f"{path}: {listed}; {CHOOSE}",
        refuse_single=lambda: (
            f"{path}: one epoch per sample (epoch {every[0]}); --epochs all keeps every epoch as a generation "
            "and needs at least 2 to see the within-item variance: read it without --epochs"
        ),
        note_several=lambda _, __: (
            f"{model}: {listed}; "
            + {
                "first": f"kept epoch {every[0]} of each sample",
                "mean": f"averaged all {len(every)} of each sample (scores are graded)",
                "all": "kept every epoch as a generation of its sample",
            }[epochs]
        ),
        note_single=lambda: f"{model}: one epoch per sample, epoch {every[0]}" if every and every[0] != 1 else None,
    )
    return kept[path], note


def _same_sample(asked: dict, sample: _Sample, model: str) -> None:
    """Refuse a sample id whose input or target differs from another log's sample of that id."""
    first = asked.setdefault(str(sample.id), (sample.content, model, sample.where))
    if first[0] is None:
        asked[str(sample.id)] = (sample.content, model, sample.where)
    elif sample.content is not None and sample.content[0] != first[0][0]:
        raise AlignmentError(
            f"{sample.where}: sample {sample.id!r} asks {sample.content[1]} but {first[1]}'s sample "
            f"{sample.id!r} ({first[2]}) asks {first[0][1]} (or their targets differ): the logs did not "
            "score the same samples (another dataset version or subset); re-run the models on one dataset"
        )


def _scorer(path: Path, header: _Header, samples: list[_Sample], scorer: str | None) -> str:
    """The scorer read from a log; a run that errored, or was not scored, or several scorers unchosen, are refused."""
    errored = [sample for sample in samples if sample.error]
    said = errored[0].error if errored and errored[0].error != header.error else "the same error"
    first = f" (first, sample {errored[0].id!r}: {said})" if errored else ""
    counted = f"{len(errored):,} of {len(samples):,} samples errored{first}"
    rerun = "re-run the eval ('inspect eval-retry LOG' re-runs what failed) and give the log it writes"
    if header.status == "error":
        raise AlignmentError(
            f"{path}: the run ended with status error ({header.error or 'no message'}): {counted}; {rerun}"
        )
    scorers = sorted({name for sample in samples for name in sample.scores})
    if not scorers and errored:
        raise AlignmentError(f"{path}: no sample of the log has a score: {counted}; {rerun}")
    if not scorers:
        raise AlignmentError(
            f"{path}: no sample of the log has a score ({len(samples)} samples): the run was not scored (run "
            "with --no-score, or its scorer failed); score it with 'inspect score LOG' and give the scored log"
        )
    if scorer is None and len(scorers) > 1:
        raise AlignmentError(f"{path}: several scorers {scorers}; choose one with --scorer")
    chosen = scorer or scorers[0]
    if chosen not in scorers:
        raise AlignmentError(f"{path}: no scorer {chosen!r} (scorers: {scorers}); check --scorer")
    return chosen


@docfill("on_missing", "score_kind", returns="score_matrix")
def read_inspect(
    paths: Iterable[str | Path],
    *,
    scorer: str | None = None,
    epochs: str = "error",
    on_missing: str = "error",
    score_kind: str = "auto",
) -> ScoreMatrix:
    """Read Inspect ``.eval`` or ``.json`` logs, one model per file (``eval.model``).

    Parameters
    ----------
    paths : iterable of str or pathlib.Path
        The logs.
    scorer : str, optional
        The scorer whose values are read; required when a log has several (``--scorer``).
    epochs : {"first", "mean", "all", "error"}, default "error"
        "first" keeps each log's lowest epoch, "mean" averages the epochs (the scores are then graded, as asked),
        "all" keeps every epoch as a generation (item means with ``matrix.generations``; at least two epochs per
        log), "error" refuses a log with more than one epoch (``--epochs``).
    %(on_missing)s
    %(score_kind)s

    Raises
    ------
    ArgumentError
        An unknown ``epochs``.
    InputError
        A missing file; a log that is damaged or hostile (module notes), has no ``eval.model`` or samples list, repeats
        a model of another log, has several scorers and none chosen or lacks the one chosen; a sample without a
        whole-number id or epoch, with a repeated (id, epoch), lacking an epoch the others have, or a score that is
        missing, not finite or not a number or one of C/I/P/N; naming the file, member and sample.

    Notes
    -----
    Scores are numbers, booleans (1/0) or Inspect's letters: C (correct) 1, I (incorrect) 0, P (partial) 0.5,
    N (no answer) 0.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = [pathlib.Path(folder) / f"{model}.json" for model in ("m1", "m2")]
    ...     for path, letters in zip(paths, ("CIC", "IIC")):
    ...         samples = [{"id": i + 1, "epoch": 1, "scores": {"match": {"value": v}}} for i, v in enumerate(letters)]
    ...         _ = path.write_text(json.dumps({"eval": {"model": path.stem}, "samples": samples}))
    ...     matrix = read_inspect(paths)
    >>> matrix.models, matrix.item_ids, matrix.scores.tolist()
    (('m1', 'm2'), ('1', '2', '3'), [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    """
    if epochs not in EPOCHS:
        raise ArgumentError(f"epochs must be 'first', 'mean', 'all' or 'error'; got {epochs!r}")
    rows: dict[str, list] = {"item": [], "model": [], "score": [], "line": [], "epoch": []}
    notes, seen_models, asked, read_by, tasks = [], {}, {}, {}, {}
    averaged = False
    for path in map(Path, paths):
        if not path.is_file():
            raise InputError(f"{path}: no such file")
        header, samples = _inspect_records(path)
        model = header.model
        if model in seen_models:
            raise AlignmentError(f"{path.name} and {seen_models[model]} are both logs of model {model!r}")
        seen_models[model] = path.name
        chosen = _scorer(path, header, samples, scorer)
        read_by.setdefault(chosen, path)
        if len(read_by) > 1:  # each log's only scorer, and they differ (a scorer chosen is every log's)
            others = ", ".join(f"{name!r} ({where.name})" for name, where in read_by.items())
            raise AlignmentError(
                f"{path}: the logs hold different scorers ({others}): their scores measure different things; "
                "score every log with one scorer and choose it with --scorer"
            )
        tasks.setdefault(header.task or "(no eval.task)", []).append(model)
        table, every = _by_sample(path, samples)
        kept, note = _kept_epochs(path, model, every, epochs)
        notes.extend([note] if note else [])
        averaged |= epochs == "mean" and len(kept) > 1
        for item, by_epoch in table.items():
            values = []
            for epoch in kept:
                sample = by_epoch[epoch]
                if sample.scores.get(chosen) is None:
                    errored = f" (it errored: {sample.error})" if sample.error else ""
                    raise AlignmentError(
                        f"{sample.where}: sample {sample.id!r} epoch {epoch} has no {chosen!r} score{errored}"
                    )
                values.append(_score_value(sample.scores[chosen], sample.where))
            _same_sample(asked, by_epoch[kept[0]], model)
            for epoch, value in kept_scores(kept, values, epochs):
                rows["item"].append(item)
                rows["model"].append(model)
                rows["score"].append(value)
                rows["line"].append(by_epoch[epoch].where)
                rows["epoch"].append(epoch)
    if not rows["item"]:
        raise AlignmentError("inspect logs: no per-item results found")
    named = ", ".join(
        f"{task!r}" + (f" ({', '.join(models)})" if len(tasks) > 1 else "") for task, models in tasks.items()
    )
    notes.insert(
        0, f"Inspect task {named}, scorer {', '.join(map(repr, read_by))} per sample; items keyed by sample id"
    )
    long = pd.DataFrame(rows)
    lines = long.pop("line").to_numpy(dtype=object)
    common = dict(item_column="item", on_missing=on_missing, source="inspect logs", lines=lines, notes=notes)
    common["exact_ids"] = True  # a sample id is exact: "x " and "x" are two samples
    if epochs == "all":
        return from_long_repeated(long, repeat_column="epoch", score_kind=score_kind, **common)
    # Averaging epochs was asked for: the scores are graded by request, not by a silent switch.
    kind = "graded" if averaged and score_kind == "auto" else score_kind
    return from_long(long, score_kind=kind, **common)
