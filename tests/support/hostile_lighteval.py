"""Damaged copies of the genuine lighteval details (``tests/fixtures/lighteval/``), each with its ending.

The genuine output (lighteval 0.13, three local models on 60 questions) is copied as lighteval laid it out,
``out/details/MODEL/TIMESTAMP/details_TASK_TIMESTAMP.parquet`` beside ``out/results/MODEL/results_TIMESTAMP.json``,
and one thing is changed: a row of the first model's Parquet file (read with pyarrow, rewritten with the schema
pyarrow infers), its bytes, or the layout.  :data:`DAMAGED` holds (name, edit, read_lighteval keywords, error
type, the fragments the one-line refusal must hold: file, row, value, flag).  ``tests/io/test_lighteval.py``
reads them through the Python API; :func:`lighteval_cases` runs them through the command line as cases of the
held-out corpus (``tests/support/hostile.py``), with the variants that read right.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.errors import InputError
from tests.support.hostile import FAST, FIXTURES, Case, Read, json_holds, refused

SOURCE = FIXTURES / "lighteval"
OLD = SOURCE / "v0_10"  # the same run by lighteval 0.10.0: the flat schema
MODELS = ("arith-model-e15", "arith-model-e30", "arith-model-e50")
STAMPS = ("2026-11-24T14-03-30.216191", "2026-11-24T14-03-39.162252", "2026-11-24T14-03-47.716462")
TASK_FILE = "details_arith_mc_0_{stamp}.parquet"
FIRST = f"out/details/{MODELS[0]}/{STAMPS[0]}/{TASK_FILE.format(stamp=STAMPS[0])}"  # the file edited
FOLDERS = tuple(f"out/details/{model}" for model in MODELS)

Files = dict[str, bytes]
Edit = Callable[[Files], Files]


def genuine(source: Path = SOURCE) -> Files:
    """The fixture's details and results files, keyed by their path under a work folder (``out/...``)."""
    return {
        f"out/{path.relative_to(source).as_posix()}": path.read_bytes()
        for part in ("details", "results")
        for path in sorted((source / part).rglob("*"))
        if path.is_file()
    }


def parquet_bytes(rows: list[dict], schema: pa.Schema | None = None) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), buffer)
    return buffer.getvalue()


def rows_of(data: bytes) -> list[dict]:
    return pq.read_table(io.BytesIO(data)).to_pylist()


def with_rows(change: Callable[[list[dict]], list[dict] | None], target: str = FIRST) -> Edit:
    """The file ``target``'s rows changed by ``change`` (in place, or the list it returns), written back."""

    def edit(files: Files) -> Files:
        rows = rows_of(files[target])
        changed = change(rows)
        rows = rows if changed is None else changed
        # No rows: the genuine schema kept (pyarrow cannot infer one from nothing).
        schema = None if rows else pq.read_schema(io.BytesIO(files[target]))
        return {**files, target: parquet_bytes(rows, schema)}

    return edit


def set_metric(row: int, value) -> Edit:
    """Row ``row`` (1-based) of the first file gets ``acc`` = ``value``."""
    return with_rows(lambda rows: rows[row - 1]["metric"].update(acc=value))


def set_doc(row: int, **values) -> Edit:
    return with_rows(lambda rows: rows[row - 1]["doc"].update(values))


def with_bytes(change: Callable[[bytes], bytes]) -> Edit:
    return lambda files: {**files, FIRST: change(files[FIRST])}


def without_column(name: str) -> Edit:
    return with_rows(lambda rows: [{key: value for key, value in row.items() if key != name} for row in rows])


def another_file(relative: str, source: str = FIRST) -> Edit:
    """A copy of ``source`` at ``relative`` (under the first model's folder): a second run or task."""
    return lambda files: {**files, f"out/details/{MODELS[0]}/{relative}": files[source]}


def same_model_name(files: Files) -> Files:
    """The second model's results file names the first model."""
    key = next(key for key in files if key.startswith(f"out/results/{MODELS[1]}/"))
    document = json.loads(files[key])
    document["config_general"]["model_name"] = MODELS[0]
    return {**files, key: json.dumps(document).encode()}


def all_text_metric(rows: list[dict]) -> list[dict]:
    for row in rows:
        row["metric"] = {"acc": str(row["metric"]["acc"])}
    return rows


def second_metric(rows: list[dict]) -> None:
    """Every row gets ``acc_norm`` beside ``acc``."""
    for row in rows:
        row["metric"]["acc_norm"] = row["metric"]["acc"]


def text_num_samples(rows: list[dict]) -> None:
    """Every row's ``doc.num_samples`` written as text."""
    for row in rows:
        row["doc"]["num_samples"] = str(row["doc"]["num_samples"])


def one_row_twice(rows: list[dict]) -> list[dict]:
    """Row 2 replaced by a copy of row 1 (same doc, same id)."""
    rows[1] = json.loads(json.dumps(rows[0]))
    return rows


FILE = TASK_FILE.format(stamp=STAMPS[0])
LATER = "2026-11-25T09-00-00.000000"
NO_DATE = "2026-13-45T99-99-99"  # the name's shape, no date
SHORT_FRACTION = "2026-11-24T14-03-30.5"  # a moment, not written as datetime.isoformat() writes it
SAME = "2026-11-24T14-03-30.500000"


def renamed_run(stamp: str) -> Edit:
    """The first model's run folder and details file renamed to the run stamp ``stamp``."""

    def edit(files: Files) -> Files:
        moved = f"out/details/{MODELS[0]}/{stamp}/{TASK_FILE.format(stamp=stamp)}"
        return {moved if key == FIRST else key: data for key, data in files.items()}

    return edit


def copied_model(files: Files) -> Files:
    """The second model's details file replaced, byte for byte, by the first model's: one run under two names."""
    second = next(key for key in files if key.startswith(f"out/details/{MODELS[1]}/"))
    return {**files, second: files[FIRST]}


DAMAGED: list[tuple[str, Edit, dict, type, tuple[str, ...]]] = [
    ("truncated parquet", with_bytes(lambda data: data[: len(data) // 2]), {}, InputError, (FILE, "not a readable")),
    ("text named .parquet", with_bytes(lambda data: b"acc\n1\n0\n"), {}, InputError, (FILE, "not a readable")),
    ("empty file", with_bytes(lambda data: b""), {}, InputError, (FILE, "not a readable")),
    (
        "doc column missing",
        without_column("doc"),
        {},
        InputError,
        (FILE, "columns metric, model_response", "not lighteval details", "--input-format"),
    ),
    ("metric missing in a row", set_metric(3, None), {}, InputError, (FILE, "row 3", "is None", "--metric")),
    ("metric 1.5", set_metric(4, 1.5), {}, InputError, (FILE, "row 4", "is 1.5", "[0, 1]", "--metric")),
    ("metric NaN", set_metric(5, math.nan), {}, InputError, (FILE, "row 5", "is nan", "--metric")),
    ("metric infinite", set_metric(6, -math.inf), {}, InputError, (FILE, "row 6", "is -inf", "--metric")),
    ("metric negative", set_metric(7, -1), {}, InputError, (FILE, "row 7", "is -1;", "--metric")),
    ("metric as text", with_rows(all_text_metric), {}, InputError, (FILE, "row 1", "is '0'", "--metric")),
    (
        "metric column not a struct",
        with_rows(lambda rows: [{**row, "metric": str(row["metric"])} for row in rows]),
        {},
        InputError,
        (FILE, "column metric is string", "not the struct"),
    ),
    (
        "metric column a list",
        with_rows(lambda rows: [{**row, "metric": [row["metric"]["acc"]]} for row in rows]),
        {},
        InputError,
        (FILE, "column metric is list<element: int64>", "not the struct"),
    ),
    ("two metrics, none chosen", with_rows(second_metric), {}, InputError, (FILE, "metrics acc, acc_norm", "--metric")),
    ("unknown metric", lambda files: files, {"metric": "f1"}, InputError, (FILE, "no metric 'f1'", "acc", "--metric")),
    (
        "two runs without --run",
        another_file(f"{LATER}/{TASK_FILE.format(stamp=LATER)}"),
        {},
        InputError,
        (MODELS[0], STAMPS[0], LATER, "--run latest", "--run TIMESTAMP"),
    ),
    (
        "unknown --run",
        another_file(f"{LATER}/{TASK_FILE.format(stamp=LATER)}"),
        {"run": "2020-01-01T00-00-00"},
        InputError,
        (MODELS[0], "no lighteval run '2020-01-01T00-00-00'", STAMPS[0], LATER, "--run"),
    ),
    ("--run not a timestamp", lambda files: files, {"run": "newest"}, ArgumentError, ("--run 'newest'", "latest")),
    ("--run not a date", lambda files: files, {"run": "2026-13-45T99-99-99"}, ArgumentError, ("--run", "month")),
    (
        "run folder not a date",
        renamed_run(NO_DATE),
        {},
        InputError,
        (MODELS[0], f"run stamp '{NO_DATE}'", "month must be in 1..12", "rename it"),
    ),
    (
        "run folder not isoformat's",
        renamed_run(SHORT_FRACTION),
        {},
        InputError,
        (MODELS[0], f"run stamp '{SHORT_FRACTION}'", "six digits", "rename it"),
    ),
    (
        "two runs of one moment",
        lambda files: renamed_run(SAME.replace("14-03-30", "14:03:30"))(
            another_file(f"{SAME}/{TASK_FILE.format(stamp=SAME)}")(files)
        ),
        {"run": "latest"},
        InputError,
        (MODELS[0], SAME, SAME.replace("14-03-30", "14:03:30"), "the same moment", "keep one"),
    ),
    ("one run copied as another model", copied_model, {}, InputError, (MODELS[0], MODELS[1], "byte-identical")),
    (
        "unknown --task",
        lambda files: files,
        {"task": "gsm8k|5"},
        InputError,
        (STAMPS[0], "no details file for task 'gsm8k|5'", "arith_mc_0", "--task"),
    ),
    (
        "two tasks without --task",
        another_file(f"{STAMPS[0]}/{TASK_FILE.format(stamp=STAMPS[0]).replace('arith_mc', 'other_mc')}"),
        {},
        InputError,
        (STAMPS[0], "2 tasks", "arith_mc_0", "other_mc_0", "--task"),
    ),
    ("duplicate doc id", with_rows(one_row_twice), {}, InputError, (FILE, "rows 1 and 2", "doc id '38'")),
    (
        "duplicate doc by hash",
        with_rows(one_row_twice),
        {"align_on": "hash"},
        InputError,
        (FILE, "rows 1 and 2", "hash"),
    ),
    (
        "doc differs under one id",
        set_doc(1, query="Question: What is 1 + 1?\nAnswer:"),
        {},
        InputError,
        (FILE, "row 1", "doc id '38'", "What is 1 + 1", "What is 69 + 88", "--align-on hash"),
    ),
    (
        "doc id with a blank",
        set_doc(1, id="38 "),
        {},
        InputError,
        ("no item 'arith_mc|0:38 '", "of 61", "--on-missing"),
    ),
    ("empty doc id", set_doc(2, id=""), {}, InputError, (FILE, "row 2", "doc.id is ''", "--align-on hash")),
    ("doc id null", set_doc(3, id=None), {}, InputError, (FILE, "row 3", "doc.id is None", "--align-on hash")),
    ("num_samples as text", with_rows(text_num_samples), {}, InputError, (FILE, "row 1", "doc.num_samples is '1'")),
    ("two task names", set_doc(5, task_name="other|0"), {}, InputError, (FILE, "row 5", "'other|0'", "'arith_mc|0'")),
    (
        "doc not a struct",
        with_rows(lambda rows: [{**row, "doc": str(row["doc"])} for row in rows]),
        {},
        InputError,
        (FILE, "column doc is string"),
    ),
    ("doc missing, by hash", with_rows(lambda rows: rows[1:]), {"align_on": "hash"}, InputError, ("--on-missing",)),
    ("doc missing, by id", with_rows(lambda rows: rows[1:]), {}, InputError, ("'arith_mc|0:38'", "--on-missing")),
    ("no rows", with_rows(lambda rows: rows[:0]), {}, InputError, (FILE, "no rows")),
    ("same model twice", same_model_name, {}, InputError, (MODELS[0], MODELS[1], "both details of model")),
    ("--align-on other", lambda files: files, {"align_on": "position"}, ArgumentError, ("'position'", "--align-on")),
]


def _flags(options: dict) -> tuple[str, ...]:
    return tuple(part for key, value in options.items() for part in (f"--{key.replace('_', '-')}", str(value)))


def edited(edit: Edit) -> Files:
    return edit(genuine())


def _read_right(count: int, means: dict[str, float]):
    def holds(report) -> bool:
        got = {row["model"]: row["mean_score"] for row in report["ranking"]}
        return report["data"]["n_items"] == count and all(
            abs(got.get(model, -1) - mean) <= 1e-12 for model, mean in means.items()
        )

    return json_holds(holds, f"not {count} items with means {means}")


def lighteval_cases() -> list[Case]:
    """Every damaged variant through ``audit out/details/MODEL ...``, and variants that read right."""
    family = "lighteval details (damaged copies of the genuine details files)"
    cases = []
    for name, edit, options, _, fragments in DAMAGED:
        cases.append(
            Case(family, name, ("audit", *FOLDERS, *_flags(options), *FAST), refused(fragments[0]), edited(edit))
        )
    means = {MODELS[0]: 53 / 60, MODELS[1]: 45 / 60, MODELS[2]: 36 / 60}
    later = another_file(f"{LATER}/{TASK_FILE.format(stamp=LATER)}")
    read = [
        ("genuine details", genuine(), (), 60, means),
        ("genuine details by hash", genuine(), ("--align-on", "hash"), 60, means),
        ("two runs, --run latest", edited(later), ("--run", "latest"), 60, means),
        ("two runs, --run TIMESTAMP", edited(later), ("--run", STAMPS[0]), 60, means),
        ("task named", genuine(), ("--task", "arith_mc|0", "--metric", "acc"), 60, means),
        ("doc missing, intersect", edited(with_rows(lambda rows: rows[1:])), ("--on-missing", "intersect"), 59, {}),
    ]
    for name, files, extra, count, expected in read:
        argv = ("audit", *FOLDERS, *extra, *FAST, "--format", "json")
        cases.append(Case(family, name, argv, Read(_read_right(count, expected)), files))
    files = genuine()
    details = tuple(sorted(key for key in files if key.endswith(".parquet")))
    cases.append(
        Case(
            family,
            "details files given",
            ("audit", *details, *FAST, "--format", "json"),
            Read(_read_right(60, means)),
            files,
        )
    )
    old = genuine(OLD)
    flat = tuple(f"out/details/{model}" for model in MODELS)
    cases += [
        Case(
            family,
            "lighteval 0.10 by hash",
            ("audit", *flat, "--align-on", "hash", *FAST, "--format", "json"),
            Read(_read_right(60, means)),
            old,
        ),
        Case(family, "lighteval 0.10 by id", ("audit", *flat, *FAST), refused("no doc id", "--align-on hash"), old),
    ]
    return cases
