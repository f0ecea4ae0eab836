"""An Inspect log that was not scored, or whose run errored, is refused saying which; the notes name what was read.

The errored logs are built as inspect_ai 0.3 writes a run that failed (a ``ConnectionError`` fetching a
tokenizer offline): header ``status: "error"`` and ``error: {message, traceback}``, every sample with an
``error`` (an object in ``samples/*.json`` and a ``.json`` log, its message as text in ``summaries.json``) and
``scores: {}``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_power_verified.io import AlignmentError, read_inspect, read_scores
from tests.support.damaged import eval_bytes

CONNECTION = "ConnectionError(MaxRetryError('HTTPSConnectionPool(host=openaipublic.blob.core.windows.net, port=443)'))"
CANCELLED = "CancelledError('Cancelled via cancel scope 7f8bb2bd4720')"


def _samples(values: dict[str, str | None], errors: dict[str, str] | None = None, text: bool = False) -> list[dict]:
    """Samples of the given match values (None: no score), each error as Inspect writes it (text in summaries)."""
    errors = errors or {}
    samples = []
    for item, value in values.items():
        sample = {"id": item, "epoch": 1, "input": f"What is {item}?", "target": "4"}
        sample["scores"] = {} if value is None else {"match": {"value": value}}
        if item in errors:
            sample["error"] = errors[item] if text else {"message": errors[item], "traceback": "Traceback ..."}
        samples.append(sample)
    return samples


def _json_log(path: Path, model: str, samples: list[dict], status: str = "success", task: str = "addq") -> Path:
    log = {"version": 2, "status": status, "eval": {"model": model, "task": task}, "samples": samples}
    if status == "error":
        log["error"] = {"message": CONNECTION, "traceback": "Traceback (most recent call last):\n  ..."}
    path.write_text(json.dumps(log))
    return path


def _scored(path: Path, model: str = "mockllm/beta", task: str = "addq", scorer: str = "match") -> Path:
    samples = [{"id": f"q{i}", "epoch": 1, "scores": {scorer: {"value": "CI"[i % 2]}}} for i in range(2)]
    return _json_log(path, model, samples, task=task)


def test_a_log_without_scores_is_refused_saying_it_was_not_scored(tmp_path):
    paths = []
    for model in ("a", "b"):
        samples = [{"id": item, "epoch": 1, "input": f"q{item}", "target": "x"} for item in range(3)]
        log = {"version": 2, "status": "success", "eval": {"model": f"mock/{model}", "task": "t"}, "samples": samples}
        paths.append(tmp_path / f"{model}.json")
        paths[-1].write_text(json.dumps(log))
    with pytest.raises(AlignmentError, match=r"a\.json: no sample of the log has a score \(3 samples\).*inspect score"):
        read_scores(paths)


def test_a_run_that_errored_is_refused_as_errored_not_as_unscored(tmp_path):
    samples = _samples({"q0": None, "q1": None}, {"q0": CONNECTION, "q1": CANCELLED})
    errored = _json_log(tmp_path / "alpha.json", "mockllm/alpha", samples, status="error")
    with pytest.raises(AlignmentError) as raised:
        read_inspect([errored, _scored(tmp_path / "beta.json")])
    message = str(raised.value)
    assert message.startswith(f"{errored}: the run ended with status error (ConnectionError(MaxRetryError(")
    assert "2 of 2 samples errored (first, sample 'q0': the same error); re-run the eval" in message
    assert "inspect eval-retry LOG" in message and "inspect score" not in message and "\n" not in message


def test_an_errored_eval_archive_says_so_with_its_summaries_errors_as_text(tmp_path):
    """A .eval archive: the header's status and error, the summaries' errors as text, as inspect_ai writes them."""
    header = {"version": 2, "status": "error", "eval": {"model": "mockllm/alpha", "task": "addq"}}
    header["error"] = {"message": CANCELLED, "traceback": "Traceback ..."}
    summaries = _samples({"q0": None, "q1": None}, {"q1": CONNECTION}, text=True)
    archive = tmp_path / "alpha.eval"
    archive.write_bytes(
        eval_bytes({"header.json": json.dumps(header).encode(), "summaries.json": json.dumps(summaries).encode()})
    )
    with pytest.raises(AlignmentError, match=r"alpha\.eval: the run ended with status error \(CancelledError\(") as e:
        read_inspect([archive, _scored(tmp_path / "beta.json")])
    assert "1 of 2 samples errored (first, sample 'q1': ConnectionError(MaxRetryError(" in str(e.value)


def test_samples_that_errored_in_a_successful_run_are_named(tmp_path):
    """No sample scored because each errored: said so; one errored sample among scored ones: named with its error."""
    all_errored = _json_log(tmp_path / "a.json", "m/a", _samples({"q0": None, "q1": None}, {"q0": CANCELLED}))
    with pytest.raises(AlignmentError, match=r"a\.json: no sample of the log has a score: 1 of 2 samples errored "):
        read_inspect([all_errored, _scored(tmp_path / "b.json")])
    one = _json_log(tmp_path / "a.json", "m/a", _samples({"q0": "C", "q1": None}, {"q1": CANCELLED}))
    with pytest.raises(AlignmentError, match=r"sample 'q1' epoch 1 has no 'match' score \(it errored: CancelledError"):
        read_inspect([one, _scored(tmp_path / "b.json")])


def test_the_notes_name_the_task_and_the_scorer_read(tmp_path):
    matrix = read_inspect([_scored(tmp_path / "a.json", "m/a"), _scored(tmp_path / "b.json", "m/b")])
    assert matrix.notes[0] == "Inspect task 'addq', scorer 'match' per sample; items keyed by sample id"
    other_task = _scored(tmp_path / "c.json", "m/c", task="addq_v2")
    matrix = read_inspect([tmp_path / "a.json", other_task])
    assert matrix.notes[0].startswith("Inspect task 'addq' (m/a), 'addq_v2' (m/c), scorer 'match' per sample")


def test_logs_of_different_scorers_are_refused_unless_one_is_chosen(tmp_path):
    """Each log's only scorer is read when none is chosen; two logs scored differently would compare two measures."""
    paths = [_scored(tmp_path / "a.json", "m/a"), _scored(tmp_path / "b.json", "m/b", scorer="includes")]
    with pytest.raises(AlignmentError, match=r"b\.json: the logs hold different scorers \('match' \(a\.json\), "):
        read_inspect(paths)
    with pytest.raises(AlignmentError, match=r"b\.json: no scorer 'match' \(scorers: \['includes'\]\)"):
        read_inspect(paths, scorer="match")


def test_ids_differing_by_blanks_are_two_samples(tmp_path):
    """A sample id is an exact JSON string: 'q0 ' and 'q0' are not merged (refused as missing, or dropped)."""
    a = _scored(tmp_path / "a.json", "m/a")
    b = _scored(tmp_path / "b.json", "m/b")
    b.write_text(b.read_text().replace('"q0"', '"q0 "'))
    with pytest.raises(AlignmentError, match=r"no item 'q0 '|no item 'q0'"):
        read_inspect([a, b])
    assert read_inspect([a, b], on_missing="intersect").item_ids == ("q1",)
