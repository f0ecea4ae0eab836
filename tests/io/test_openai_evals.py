"""OpenAI ``evals`` logs: the genuine oaieval logs of three completion functions, and damaged copies of them.

The fixture (``tests/fixtures/openai_evals/``, provenance in ``tests/fixtures/PROVENANCE.md``) is three logs of
the same local match eval (60 samples).  The expectations are recomputed here from the raw files with ``json``
(the match events' ``correct`` by ``sample_id``, the ``final_report``'s accuracy), not taken from the reader;
PROVENANCE's figures (56, 40, 33 correct; b, c of 19/3, 27/4, 21/14) are checked as a second source.  Each
damaged case edits a copy of one genuine log and asserts the one-line refusal names the file, the line, the
value and the flag where one exists.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from llm_power_verified.cli import main
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import InputError
from llm_power_verified.io.openai_evals import is_openai_evals_log, read_openai_evals
from llm_power_verified.io.repeat_choice import CHOOSE
from tests.io.test_bounded_reading import refused
from tests.support.hostile_openai_evals import (
    DAMAGED,
    MATCH_LINE,
    copies,
    drop_lines,
    replace_text,
    set_accuracy,
    twice,
    with_record,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "openai_evals"
NAMES = ("arith-solver-a", "arith-solver-b", "arith-solver-c")
LOGS = tuple(FIXTURES / f"{name}.jsonl" for name in NAMES)
EXACT = 1e-15  # a mean of 60 scores of 0 or 1: the sum is exact and the division correctly rounded, as evals'


def _raw(path: Path) -> tuple[dict[str, bool], float]:
    """Independently of the reader: {sample_id: correct} of the match events, and the final report's accuracy."""
    correct, accuracy = {}, None
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if "final_report" in record:
            accuracy = record["final_report"]["accuracy"]
        elif record.get("type") == "match":
            correct[record["sample_id"]] = record["data"]["correct"]
    return correct, accuracy


def test_means_equal_the_final_reports_accuracy():
    matrix = read_openai_evals(LOGS)
    assert matrix.models == NAMES
    assert matrix.scores.shape == (60, 3)
    for column, path in enumerate(LOGS):
        correct, accuracy = _raw(path)
        assert set(matrix.item_ids) == set(correct)
        assert abs(matrix.scores[:, column].mean() - accuracy) <= EXACT
        assert abs(matrix.scores[:, column].mean() - sum(correct.values()) / len(correct)) <= EXACT
    assert matrix.scores.sum(axis=0).tolist() == [56, 40, 33]  # PROVENANCE.md, a second source
    assert matrix.notes[0] == (
        "OpenAI evals eval 'arith-match.dev.v0', match.correct per sample; items keyed by sample_id"
    )


def test_discordant_counts_of_every_pair_are_exact():
    matrix = read_openai_evals(LOGS)
    raw = [_raw(path)[0] for path in LOGS]
    found = {}
    for first in range(3):
        for second in range(first + 1, 3):
            x, y = matrix.scores[:, first], matrix.scores[:, second]
            b = sum(raw[first][item] and not raw[second][item] for item in raw[first])
            c = sum(raw[second][item] and not raw[first][item] for item in raw[first])
            assert (int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())) == (b, c)
            found[(NAMES[first][-1], NAMES[second][-1])] = (b, c)
    assert found == {("a", "b"): (19, 3), ("a", "c"): (27, 4), ("b", "c"): (21, 14)}  # PROVENANCE.md


def test_items_are_paired_by_sample_id_whatever_the_order_of_each_log():
    matrix = read_openai_evals(LOGS[::-1])
    raw = _raw(LOGS[0])[0]
    column = matrix.models.index("arith-solver-a")
    assert {item: bool(score) for item, score in zip(matrix.item_ids, matrix.scores[:, column], strict=True)} == raw


# --------------------------------------------------------------------------- detection
def test_detection_claims_the_logs_and_nothing_else(tmp_path):
    assert all(is_openai_evals_log(path) for path in LOGS)
    gz = tmp_path / "a.jsonl.gz"
    gz.write_bytes(gzip.compress(LOGS[0].read_bytes()))
    assert is_openai_evals_log(gz)
    others = {
        "folder": tmp_path,
        "empty.jsonl": b"",
        "records.jsonl": b'{"item_id": "q1", "model": "a", "score": 1}\n',
        "spec-and-more.jsonl": b'{"spec": {}, "samples": []}\n',
        "spec-not-object.jsonl": b'{"spec": 1}\n',
        "table.csv": LOGS[0].read_bytes(),  # the right content under another extension
        "long-first-line.jsonl": b'{"spec": {"x": "' + b"y" * (1 << 20) + b'"}}\n',
        "bad.jsonl": b'{"spec": {"a": 1, "a": 2}}\n',
        "bad.jsonl.gz": b"not gzip",
    }
    for name, content in others.items():
        path = tmp_path / name if name != "folder" else tmp_path
        if isinstance(content, bytes):
            path.write_bytes(content)
        assert not is_openai_evals_log(path), name


def test_gzip_crlf_and_byte_order_mark_read_alike(tmp_path):
    text = LOGS[0].read_bytes()
    variants = {
        "a.jsonl.gz": gzip.compress(text),
        "a-crlf.jsonl": text.replace(b"\n", b"\r\n"),
        "a-bom.jsonl": b"\xef\xbb\xbf" + text,
    }
    expected = read_openai_evals(LOGS[:2]).scores
    for name, content in variants.items():
        (tmp_path / name).write_bytes(content)
        assert is_openai_evals_log(tmp_path / name), name
        assert np.array_equal(read_openai_evals([tmp_path / name, LOGS[1]]).scores, expected), name


# --------------------------------------------------------------------------- damaged copies of the genuine logs
@pytest.mark.parametrize(("name", "edit", "options", "error", "fragments"), DAMAGED, ids=[case[0] for case in DAMAGED])
def test_damaged_copy_is_refused_naming_the_place(tmp_path, name, edit, options, error, fragments):
    paths = copies(tmp_path, edit)
    with pytest.raises(error) as raised:
        read_openai_evals(paths, **options)
    message = str(raised.value)
    assert "\n" not in message
    missing = [fragment for fragment in fragments if fragment not in message]
    assert not missing, f"{message!r} lacks {missing}"


def test_two_logs_of_one_completion_function_name_both_files(tmp_path):
    copy = tmp_path / "again.jsonl"
    shutil.copyfile(LOGS[0], copy)
    with pytest.raises(InputError, match=r"again\.jsonl and .*arith-solver-a\.jsonl are both logs of completion "):
        read_openai_evals([LOGS[0], copy])


def _renamed(lines: list[str]) -> list[str]:
    """Log a's lines with its completion function renamed: one run under another name."""
    return with_record(lines, 1, lambda r: r["spec"].update(completion_fns=["renamed"]))


def test_one_run_under_two_names_is_refused_naming_both_files(tmp_path):
    """The same spec.run_id, or the same events line for line under a rewritten run id: one run given twice."""
    same_run = tmp_path / "same-run.jsonl"
    same_run.write_text("".join(line + "\n" for line in _renamed(LOGS[0].read_text().splitlines())))
    with pytest.raises(
        InputError,
        match=r"same-run\.jsonl and .*arith-solver-a\.jsonl are one run given twice "
        r"\(spec\.run_id '261124135732AEN27BDX'\) under two completion functions \('renamed'",
    ):
        read_openai_evals([LOGS[0], same_run])
    rewritten = tmp_path / "rewritten.jsonl"
    rewritten.write_text(same_run.read_text().replace("261124135732AEN27BDX", "261124135732OTHERID0"))
    with pytest.raises(
        InputError,
        match=r"rewritten\.jsonl and .*arith-solver-a\.jsonl are one run given twice "
        r"\(the same events, line for line \(the run id aside\)\)",
    ):
        read_openai_evals([LOGS[0], rewritten])


def test_ids_differing_by_blanks_are_two_samples(tmp_path):
    """A sample_id is an exact JSON string: 'x ' and 'x' are not merged (refused as missing, dropped by intersect)."""
    paths = copies(tmp_path, replace_text(MATCH_LINE, '"arith-match.dev.53"', '"arith-match.dev.53 "'))
    with pytest.raises(InputError, match=r"has no item 'arith-match\.dev\.53 '.*--on-missing intersect"):
        read_openai_evals(paths)
    matrix = read_openai_evals(paths, on_missing="intersect")
    assert len(matrix.item_ids) == 59
    assert "arith-match.dev.53" not in matrix.item_ids and "arith-match.dev.53 " not in matrix.item_ids


def test_different_evals_are_refused_naming_both_files(tmp_path):
    paths = copies(
        tmp_path, lambda lines: with_record(lines, 1, lambda r: r["spec"].update(eval_name="other.dev.v0")), (1,)
    )
    with pytest.raises(
        InputError, match=r"arith-solver-b\.jsonl is a log of eval 'other\.dev\.v0' but .*arith-solver-a"
    ):
        read_openai_evals(paths)


def test_metric_that_is_not_type_dot_field_is_refused():
    for metric in ("correct", "match.", ".correct", ""):
        with pytest.raises(ArgumentError, match=r"--metric for an OpenAI evals log is TYPE\.FIELD"):
            read_openai_evals(LOGS, metric=metric)
    with pytest.raises(ArgumentError, match="epochs must be"):
        read_openai_evals(LOGS, epochs="last")


# --------------------------------------------------------------------------- what is read with a note
def test_missing_sample_is_dropped_with_on_missing_intersect(tmp_path):
    matrix = read_openai_evals(copies(tmp_path, drop_lines(2, MATCH_LINE)), on_missing="intersect")
    assert len(matrix.item_ids) == 59 and "arith-match.dev.53" not in matrix.item_ids
    assert any("no final_report" in note for note in matrix.notes)
    assert any("dropped 1" in note and "--on-missing intersect" in note for note in matrix.notes)


def test_a_disagreeing_report_is_a_note_when_match_correct_is_named(tmp_path):
    matrix = read_openai_evals(copies(tmp_path, set_accuracy(0.95)), metric="match.correct")
    note = next(note for note in matrix.notes if "final_report accuracy 0.95" in note)
    assert "read as asked (--metric match.correct)" in note
    assert matrix.scores.sum(axis=0).tolist() == [56, 40, 33]


def test_another_event_type_and_field_is_read(tmp_path):
    """--metric sampling.model is text: refused; a numeric field of the sampling events is read."""

    def add_field(lines):
        return [
            json.dumps({**(record := json.loads(line)), "data": {**record["data"], "len": 1.0}})
            if '"type": "sampling"' in line
            else line
            for line in lines
        ]

    paths = copies(tmp_path, add_field, (0, 1, 2))
    matrix = read_openai_evals(paths, metric="sampling.len")
    assert matrix.scores.shape == (60, 3) and (matrix.scores == 1.0).all()
    assert matrix.notes[0].endswith("sampling.len per sample; items keyed by sample_id")
    with pytest.raises(InputError, match=r"line 3: sampling\.model is 'arith-solver-a'.*--metric"):
        read_openai_evals(LOGS, metric="sampling.model")


def test_several_match_events_per_sample_by_epochs(tmp_path):
    """A log with n = 2 match events per sample (second one always wrong), against two genuine logs."""
    paths = copies(tmp_path, twice(lambda record: False))
    with pytest.raises(
        InputError, match=re.escape(f"sample 'arith-match.dev.53' has 2 match events (lines 4, 123); {CHOOSE}")
    ):
        read_openai_evals(paths)
    first = read_openai_evals(paths, epochs="first")
    assert first.scores.sum(axis=0).tolist() == [56, 40, 33]
    assert "arith-solver-a: 60 of 60 samples have several match events (2 each); kept the one of lowest event_id" in (
        " ".join(first.notes)
    )
    mean = read_openai_evals(paths, epochs="mean")
    assert mean.score_kind == "graded"
    assert mean.scores[:, 0].sum() == 28  # halves of 0/1 sums are exact in binary
    with pytest.raises(
        InputError, match=r"arith-solver-b\.jsonl: one match event per sample.*read it without --epochs$"
    ):
        read_openai_evals(paths, epochs="all")


def test_epochs_all_keeps_each_match_event_as_a_generation(tmp_path):
    flip = twice(lambda record: record["sample_id"].endswith("7"))
    paths = copies(tmp_path, flip, (0, 1, 2))
    matrix = read_openai_evals(paths, epochs="all")
    assert matrix.generations is not None
    assert matrix.generations.count_range == (2, 2)
    raw = [_raw(path)[0] for path in LOGS]
    for column in range(3):
        for row, item in enumerate(matrix.item_ids):
            second = item.endswith("7")
            assert matrix.scores[row, column] == (raw[column][item] + second) / 2


# --------------------------------------------------------------------------- through the command line
def test_audit_reads_the_logs_by_detection(capsys):
    status = main(["audit", *map(str, LOGS), "--n-resamples", "0", "--quiet", "--format", "json"])
    captured = capsys.readouterr()
    assert status == 0 and captured.err == ""
    report = json.loads(captured.out)
    assert report["data"]["n_items"] == 60
    means = {row["model"]: row["mean_score"] for row in report["ranking"]}
    for path in LOGS:
        assert abs(means[path.stem] - _raw(path)[1]) <= EXACT
    assert report["notes"][0].startswith("OpenAI evals eval 'arith-match.dev.v0', match.correct per sample")


def test_audit_flags_reach_the_reader(tmp_path, capsys):
    paths = list(map(str, copies(tmp_path, twice(lambda record: False))))
    for flag in ([], ["--epochs", "error"]):
        message = refused(["audit", *paths, *flag], ["arith-solver-a.jsonl, line 123"], capsys)
        assert message.endswith(CHOOSE)
    refused(["audit", *paths, "--metric", "metricz.score"], ["no 'metricz' events", "--metric TYPE.FIELD"], capsys)
    status = main(["audit", *paths, "--epochs", "mean", "--n-resamples", "0", "--quiet", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0 and report["data"]["binary"] is False
