"""Damaged copies of the genuine OpenAI evals logs (``tests/fixtures/openai_evals/``), each with its ending.

Each variant edits the lines of one genuine oaieval log (``arith-solver-a`` unless said) and is read with the two
others: :data:`DAMAGED` holds (name, edit, read_openai_evals keywords, error type, the fragments the one-line
refusal must hold: file, line, value, flag).  ``tests/io/test_openai_evals.py`` reads them through the Python API
and checks every fragment; :func:`openai_evals_cases` runs them through the command line as cases of the held-out
corpus (``tests/support/hostile.py``), with the read-right variants (gzip, CRLF, a byte-order mark, ``--on-missing
intersect``, a named metric).
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Callable
from pathlib import Path

from llm_power_verified.io.errors import InputError
from tests.support.hostile import FAST, FIXTURES, Case, Read, json_holds, refused

LOGS = tuple(FIXTURES / "openai_evals" / f"arith-solver-{letter}.jsonl" for letter in "abc")

Edit = Callable[[list[str]], list[str]]


def with_record(lines: list[str], number: int, change: Callable[[dict], None]) -> list[str]:
    """Line ``number`` (1-based) parsed, changed in place, written back."""
    record = json.loads(lines[number - 1])
    change(record)
    return [*lines[: number - 1], json.dumps(record), *lines[number:]]


def replace_text(number: int, old: str, new: str) -> Edit:
    def edit(lines):
        if old not in lines[number - 1]:
            raise ValueError(f"line {number} lacks {old!r}")
        return [*lines[: number - 1], lines[number - 1].replace(old, new, 1), *lines[number:]]

    return edit


def set_data(number: int, **values) -> Edit:
    return lambda lines: with_record(lines, number, lambda record: record["data"].update(values))


def set_key(number: int, key: str, value=None, *, drop: bool = False) -> Edit:
    def change(record):
        if drop:
            del record[key]
        else:
            record[key] = value

    return lambda lines: with_record(lines, number, change)


def set_accuracy(accuracy) -> Edit:
    return lambda lines: with_record(lines, 2, lambda record: record["final_report"].update(accuracy=accuracy))


def drop_lines(*numbers: int) -> Edit:
    return lambda lines: [line for index, line in enumerate(lines, start=1) if index not in numbers]


def in_turn(*edits: Edit) -> Edit:
    def edit(lines):
        for one in edits:
            lines = one(lines)
        return lines

    return edit


def edited(edit: Edit, which: tuple[int, ...] = (0,)) -> dict[str, bytes]:
    """{file name: bytes} of the three logs, those at ``which`` edited (their lines, then written with LF ends)."""
    files = {}
    for index, source in enumerate(LOGS):
        content = source.read_bytes()
        if index in which:
            lines = edit(content.decode("utf-8").splitlines())
            content = "".join(line + "\n" for line in lines).encode("utf-8")
        files[source.name] = content
    return files


def copies(folder: Path, edit: Edit, which: tuple[int, ...] = (0,)) -> list[Path]:
    """The three logs written into ``folder`` as :func:`edited` makes them; their paths."""
    paths = []
    for name, content in edited(edit, which).items():
        paths.append(folder / name)
        paths[-1].write_bytes(content)
    return paths


MATCH_LINE = 4  # log a's first match event: sample arith-match.dev.53, correct true, event_id 1
A = "arith-solver-a.jsonl"
# (name, edit of log a, read_openai_evals keywords, error type, fragments the one-line message must hold)
# The first sample's match event again, as a later event (so two for one sample), the final report made to agree.
SECOND_MATCH_EVENT = in_turn(
    lambda lines: [*lines, lines[3].replace('"event_id": 1,', '"event_id": 500,')], set_accuracy(57 / 61)
)

DAMAGED = [
    ("spec line missing", drop_lines(1), {}, InputError, (A, "line 1", "'final_report'", "'spec'", "--input-format")),
    (
        "two spec lines",
        lambda lines: [*lines[:49], lines[0], *lines[49:]],
        {},
        InputError,
        (A, "line 50", "second spec line", "one run per file"),
    ),
    (
        "bad JSON line 10",
        replace_text(10, '"type": "match"', '"type": match"'),
        {},
        InputError,
        (A, "line 10", "not valid JSON"),
    ),
    ("truncated last line", lambda lines: [*lines[:-1], lines[-1][:70]], {}, InputError, (A, "line 122", "cut short")),
    (
        "repeated key",
        replace_text(4, '"type": "match"', '"type": "match", "type": "sampling"'),
        {},
        InputError,
        (A, "line 4", "'type' appears twice"),
    ),
    ("NaN score", replace_text(4, '"correct": true', '"correct": NaN'), {}, InputError, (A, "line 4", "NaN")),
    (
        "correct is 'yes'",
        set_data(4, correct="yes"),
        {},
        InputError,
        (A, "line 4", "match.correct is 'yes'", "--metric"),
    ),
    ("correct is 2", set_data(4, correct=2), {}, InputError, (A, "line 4", "match.correct is 2", "[0, 1]", "--metric")),
    ("blank line", lambda lines: [*lines[:6], "", *lines[6:]], {}, InputError, (A, "line 7", "blank line")),
    ("a list line", lambda lines: [*lines[:6], "[1, 2]", *lines[6:]], {}, InputError, (A, "line 7", "a JSON list")),
    ("event without sample_id", set_key(4, "sample_id", drop=True), {}, InputError, (A, "line 4", "'sample_id'")),
    ("event without data", set_key(5, "data", drop=True), {}, InputError, (A, "line 5", "'data'")),
    ("sample_id null", set_key(4, "sample_id", None), {}, InputError, (A, "line 4", "sample_id is None")),
    ("event_id text", set_key(4, "event_id", "1"), {}, InputError, (A, "line 4", "event_id is '1'")),
    ("event of another run", set_key(6, "run_id", "OTHER"), {}, InputError, (A, "line 6", "'OTHER'", "two runs")),
    # evals writes run_id on every event (evals/record.py, Event) and a dict as the final report (Eval.run's metrics).
    ("event without run_id", set_key(6, "run_id", drop=True), {}, InputError, (A, "line 6", "'run_id'")),
    (
        "spec without run_id",
        lambda lines: with_record(lines, 1, lambda r: r["spec"].pop("run_id")),
        {},
        InputError,
        (A, "line 1", "spec.run_id is None"),
    ),
    (
        "final report of another run",
        set_key(2, "run_id", "OTHER"),
        {},
        InputError,
        (A, "line 2", "final_report of run 'OTHER'", "two runs"),
    ),
    (
        "final report a list",
        set_key(2, "final_report", [1]),
        {},
        InputError,
        (A, "line 2", "final_report is [1]", "an object"),
    ),
    ("repeated event_id", set_key(6, "event_id", 1), {}, InputError, (A, "line 6", "event_id 1", "line 4")),
    (
        "second final report",
        lambda lines: [*lines, lines[1]],
        {},
        InputError,
        (A, "line 123", "second final_report", "line 2"),
    ),
    (
        "final report NaN (no match events)",
        replace_text(2, '"accuracy": 0.9333333333333333', '"accuracy": NaN'),
        {},
        InputError,
        (A, "line 2", "NaN", "recorded no match events"),
    ),
    (
        "final report disagrees",
        set_accuracy(0.95),
        {},
        InputError,
        (A, "line 2", "accuracy 0.95", "0.9333333333333333", "--metric match.correct"),
    ),
    (
        "one match event flipped",
        set_data(MATCH_LINE, correct=False),
        {},
        InputError,
        (A, "line 2", "0.9333333333333333", "0.9166666666666666", "--metric match.correct"),
    ),
    (
        "sample missing (report dropped too)",
        drop_lines(2, MATCH_LINE),
        {},
        InputError,
        ("arith-match.dev.53", "--on-missing intersect"),
    ),
    (
        "no match events",
        lambda lines: [line for line in lines if '"type": "match"' not in line],
        {},
        InputError,
        (A, "no 'match' events", "event types in the log: sampling", "--metric TYPE.FIELD"),
    ),
    (
        "unknown metric type",
        lambda lines: lines,
        {"metric": "metricz.score"},
        InputError,
        (A, "no 'metricz' events", "match, sampling", "--metric"),
    ),
    (
        "unknown metric field",
        lambda lines: lines,
        {"metric": "match.score"},
        InputError,
        (A, "line 4", "no data field 'score'", "--metric"),
    ),
    (
        "several match events, --epochs error",
        SECOND_MATCH_EVENT,
        {"epochs": "error"},
        InputError,
        (A, "line 123", "2 match events", "choose --epochs all", "mean (the item means alone)", "or first ("),
    ),
    (
        "several match events, no --epochs (the default refuses)",
        SECOND_MATCH_EVENT,
        {},
        InputError,
        (A, "line 123", "2 match events", "choose --epochs all", "mean (the item means alone)", "or first ("),
    ),
    (
        "one event per sample, --epochs all",
        lambda lines: lines,
        {"epochs": "all"},
        InputError,
        (A, "one match event per sample", "read it without --epochs"),
    ),
    ("empty file", lambda lines: [], {}, InputError, (A, "empty file")),
    (
        "expected differs from another log's",
        set_data(MATCH_LINE, expected="140"),
        {},
        InputError,
        ("arith-solver-b.jsonl", "line 4", "'arith-match.dev.53'", "'140'", "'139'", "not score the same samples"),
    ),
    (
        "spec without completion_fns",
        lambda lines: with_record(lines, 1, lambda r: r["spec"].pop("completion_fns")),
        {},
        InputError,
        (A, "line 1", "spec.completion_fns is None"),
    ),
]


def twice(second_correct: Callable[[dict], bool]) -> Edit:
    """Every match event followed by a second one (event_id + 1000) for the same sample, the report updated."""

    def edit(lines):
        extra = []
        for line in lines:
            record = json.loads(line)
            if record.get("type") == "match":
                again = {**record, "event_id": record["event_id"] + 1000}
                again["data"] = {**record["data"], "correct": second_correct(record)}
                extra.append(again)
        events = [json.loads(line) for line in lines if '"type": "match"' in line] + extra
        accuracy = sum(event["data"]["correct"] for event in events) / len(events)
        lines = [*lines, *map(json.dumps, extra)]
        return set_accuracy(accuracy)(lines)

    return edit


def _flags(options: dict) -> tuple[str, ...]:
    return tuple(item for key, value in options.items() for item in (f"--{key.replace('_', '-')}", value))


def correct_by_sample(content: bytes) -> dict[str, bool]:
    """Independently of the reader: {sample_id: correct} of a log's match events, read with ``json``."""
    records = (json.loads(line) for line in content.decode("utf-8-sig").splitlines())
    return {record["sample_id"]: record["data"]["correct"] for record in records if record.get("type") == "match"}


def _means(files: dict[str, bytes], dropped: str | None = None) -> Callable[[str, Path], str | None]:
    """The JSON report's items and per-model means are the raw logs' (the model is the log's completion function)."""
    texts = [gzip.decompress(content) if name.endswith(".gz") else content for name, content in files.items()]
    raw = {
        json.loads(text.decode("utf-8-sig").splitlines()[0])["spec"]["completion_fns"][0]: correct_by_sample(text)
        for text in texts
    }
    items = set.intersection(*(set(correct) for correct in raw.values())) - {dropped}
    expected = {model: sum(correct[item] for item in items) / len(items) for model, correct in raw.items()}

    def holds(report) -> bool:
        got = {row["model"]: row["mean_score"] for row in report["ranking"]}
        return (
            report["data"]["n_items"] == len(items)
            and set(got) == set(expected)
            # Means of at most 60 scores of 0 or 1: exact to an ulp.
            and all(math.isclose(got[model], mean, rel_tol=0, abs_tol=1e-12) for model, mean in expected.items())
        )

    return json_holds(holds, f"n_items {len(items)} and means {expected}")


def openai_evals_cases() -> list[Case]:
    """Every damaged variant through ``audit a.jsonl b.jsonl c.jsonl``, and the variants that read right."""
    family = "OpenAI evals logs (damaged copies of the genuine oaieval logs)"
    argv = ("audit", *(source.name for source in LOGS))
    # A log whose first line is no spec line is not detected as an oaieval log: the format is named.
    named, named_format = ("spec line missing", "empty file"), ("--input-format", "openai-evals")
    cases = []
    for name, edit, options, _, fragments in DAMAGED:
        # The place (file, line) where there is one, else the most specific fragment (the API test checks them all).
        place = f"{fragments[0]}, {fragments[1]}" if fragments[1:2] and fragments[1].startswith("line ") else None
        place = place or (fragments[1] if fragments[0] == A and fragments[1:2] else fragments[0])
        fmt = named_format if name in named else ()
        expect = refused(place)
        cases.append(Case(family, name, (*argv, *_flags(options), *fmt, *FAST), expect, edited(edit)))
    genuine = {source.name: source.read_bytes() for source in LOGS}
    a, b = genuine[LOGS[0].name], genuine[LOGS[1].name]
    read = [
        ("genuine logs", genuine, (), None),
        ("gzip log, format named", {"a.jsonl.gz": gzip.compress(a), LOGS[1].name: b}, named_format, None),
        ("CRLF log", {"a.jsonl": a.replace(b"\n", b"\r\n"), LOGS[1].name: b}, (), None),
        ("byte-order mark", {"a.jsonl": b"\xef\xbb\xbf" + a, LOGS[1].name: b}, (), None),
        (
            "sample missing, intersect",
            edited(drop_lines(2, MATCH_LINE)),
            ("--on-missing", "intersect"),
            "arith-match.dev.53",
        ),
        ("report disagrees, metric named", edited(set_accuracy(0.95)), ("--metric", "match.correct"), None),
    ]
    for name, files, extra, dropped in read:
        check = _means(files, dropped)
        cases.append(Case(family, name, ("audit", *files, *extra, *FAST, "--format", "json"), Read(check), files))
    return cases
