"""Several generations per item on reading: long tables (--repeat-column), wide tables (--repeat-pattern), Inspect
logs (--epochs all).

Every form is checked against an independent computation on the raw generations (a pandas groupby: mean, count and
sample variance per (item, model)), and the refusals through the CLI: exit status 2, one line on stderr naming the
file, the line or column, and the flag that fixes it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_power_verified.cli.main import main
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io import read_scores
from llm_power_verified.io.errors import AlignmentError, InputError
from llm_power_verified.io.repeated_tables import from_long_repeated, from_wide_repeated
from llm_power_verified.io.table_columns import header_splits
from tests.io.test_bounded_reading import refused
from tests.support.damaged import eval_bytes

FIXTURES = Path(__file__).parents[1] / "fixtures" / "inspect"
#: Means and variances of at most 7 scores in [0, 1]: a few ulps apart between the reader's two-pass bincount and
#: pandas' groupby (different summation orders), far below 1e-12 relative.
RELATIVE = 1e-12


def _generations(seed: int, items: int = 25, models=("a", "b", "c"), counts=(3,), binary=True) -> pd.DataFrame:
    """One row per generation; each (item, model) cell gets a count drawn from ``counts``; rows shuffled."""
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(items):
        level = rng.random()
        for model in models:
            for repeat in range(int(rng.choice(counts))):
                score = float(rng.random() < level) if binary else float(np.clip(level + rng.normal(0, 0.2), 0, 1))
                rows.append((f"q{item:03d}", model, f"s{repeat}", score))
    frame = pd.DataFrame(rows, columns=["item_id", "model", "seed", "score"])
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)


def _expected(frame: pd.DataFrame, item_ids, models, repeat="seed") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means, counts and sample variances (ddof=1) per (item, model) by pandas, in the matrix's order."""
    grouped = frame.groupby(["item_id", "model"])["score"]
    index = pd.MultiIndex.from_product([list(item_ids), list(models)])
    shape = (len(item_ids), len(models))
    mean = grouped.mean().reindex(index).to_numpy().reshape(shape)
    count = grouped.count().reindex(index).to_numpy().reshape(shape)
    variance = grouped.var(ddof=1).reindex(index).to_numpy().reshape(shape)
    return mean, count, variance


def _check_against_pandas(matrix, frame: pd.DataFrame) -> None:
    mean, count, variance = _expected(frame, matrix.item_ids, matrix.models)
    np.testing.assert_allclose(matrix.scores, mean, rtol=RELATIVE, atol=0)
    assert (matrix.generations.counts == count).all()
    # Variances of identical generations are exactly 0 on both sides; atol 1e-15 absorbs a squared 1-ulp mean.
    np.testing.assert_allclose(matrix.generations.within, variance, rtol=RELATIVE, atol=1e-15)


@pytest.mark.parametrize(("binary", "counts"), [(True, (4,)), (False, (4,)), (True, (2, 3, 5)), (False, (2, 7))])
def test_a_long_table_gives_the_means_counts_and_variances_of_its_generations(tmp_path, binary, counts):
    frame = _generations(11, counts=counts, binary=binary)
    path = tmp_path / "long.csv"
    frame.to_csv(path, index=False)
    matrix = read_scores(path, repeat_column="seed")
    _check_against_pandas(matrix, frame)
    assert matrix.generations.binary is binary and matrix.generations.label == "seed"
    assert not matrix.binary and matrix.score_kind == "graded"
    low, high = matrix.generations.count_range
    assert (low, high) == (min(counts), max(counts))
    span = f"{low}" if low == high else f"{low} to {high}"
    assert f"item means over {span} generations (seed) analysed as graded scores" in matrix.notes
    unequal = f"{low} to {high} generations per (item, model): the within part uses each cell's own count"
    assert (unequal in matrix.notes) is (low != high)


def test_row_order_does_not_matter_and_the_forms_agree(tmp_path):
    frame = _generations(5, counts=(2, 3, 4))
    first = from_long_repeated(frame, repeat_column="seed")
    shuffled = from_long_repeated(frame.sample(frac=1.0, random_state=3), repeat_column="seed")
    # Items come in order of first appearance: align the two by id before comparing cell by cell.
    rows = np.array([shuffled.item_ids.index(item) for item in first.item_ids])[:, None]
    columns = np.array([shuffled.models.index(model) for model in first.models])
    assert sorted(shuffled.item_ids) == sorted(first.item_ids) and sorted(shuffled.models) == sorted(first.models)
    # The same generations summed in another order: the means may differ in the last bits only.
    np.testing.assert_allclose(shuffled.scores[rows, columns], first.scores, rtol=RELATIVE, atol=0)
    within = shuffled.generations.within[rows, columns]
    np.testing.assert_allclose(within, first.generations.within, rtol=RELATIVE, atol=1e-15)
    assert (shuffled.generations.counts[rows, columns] == first.generations.counts).all()
    # Wide with one column per (model, seed): every cell filled (a blank cell is refused, see below).
    equal = _generations(5, counts=(3,))
    wide = equal.assign(column=equal["model"] + "@" + equal["seed"]).pivot(
        index="item_id", columns="column", values="score"
    )
    path = tmp_path / "wide.csv"
    wide.reset_index().to_csv(path, index=False)
    from_file = read_scores(path, repeat_pattern="{model}@{repeat}")
    _check_against_pandas(from_file, equal)
    assert from_file.generations.label == "repeat"
    # JSON Lines with whole-number repeat labels reads the same.
    jsonl = tmp_path / "long.jsonl"
    numbered = frame.assign(seed=frame["seed"].str[1:].astype(int))
    jsonl.write_text("".join(json.dumps(record) + "\n" for record in numbered.to_dict("records")))
    _check_against_pandas(read_scores(jsonl, repeat_column="seed"), frame)


def test_a_dataframe_reads_long_or_wide_with_the_repeat_options():
    frame = _generations(2)
    _check_against_pandas(read_scores(frame, repeat_column="seed"), frame)
    wide = frame.assign(column=frame["model"] + "_seed" + frame["seed"]).pivot(
        index="item_id", columns="column", values="score"
    )
    _check_against_pandas(read_scores(wide.reset_index(), repeat_pattern="{model}_seed{repeat}"), frame)
    with pytest.raises(InputError, match="--repeat-column 'seed' reads a long table"):
        read_scores(wide.reset_index(), repeat_column="seed")
    with pytest.raises(InputError, match=r"this table is long .*name its repeat column with --repeat-column"):
        read_scores(frame, repeat_pattern="{model}@{repeat}")
    with pytest.raises(InputError, match="give one"):
        read_scores(frame, repeat_column="seed", repeat_pattern="{model}@{repeat}")
    with pytest.raises(InputError, match="--repeat-column 'seed' applies to a table file; INPUT is an array"):
        read_scores(np.zeros((3, 2)), repeat_column="seed")


def test_binary_score_kind_is_refused_for_item_means():
    # The flag is --scores (there is no --score-kind); the advice is one that reads the table.
    with pytest.raises(ArgumentError, match=r"graded scores; --scores binary .*leave --scores out") as error:
        read_scores(_generations(1), repeat_column="seed", score_kind="binary")
    assert "--score-kind" not in str(error.value)


# --------------------------------------------------------------------------- long tables: refusals
def _long_csv(tmp_path: Path, text: str) -> str:
    path = tmp_path / "t.csv"
    path.write_text(text)
    return str(path)


HEADER = "item_id,model,seed,score\n"
CLEAN = "q1,a,1,1\nq1,a,2,0\nq1,b,1,1\nq1,b,2,1\nq2,a,1,0\nq2,a,2,0\nq2,b,1,1\nq2,b,2,0\n"


def test_a_clean_small_table_reads_through_the_cli(tmp_path, capsys):
    path = _long_csv(tmp_path, HEADER + CLEAN)
    assert main(["audit", path, "--repeat-column", "seed", "--n-resamples", "0"]) == 0
    captured = capsys.readouterr()
    assert "item means over 2 generations (seed) analysed as graded scores" in captured.out and not captured.err


@pytest.mark.parametrize(
    ("body", "options", "fragments"),
    [
        # One repeat twice for one (item, model): both lines named.
        (CLEAN + "q1,a,2,1\n", [], ["line 10 (model 'a', item 'q1')", "seed '2'", "also at", "line 3"]),
        # One generation in a cell: its line, and the way to read one score per cell.
        (
            CLEAN.replace("q2,b,2,0\n", ""),
            [],
            ["line 8 (model 'b', item 'q2')", ">= 2 generations", "leave that item's rows out"],
        ),
        # A score out of range in one generation: its line, although the cell's mean is in range.
        (CLEAN.replace("q1,b,2,1", "q1,b,2,1.5"), [], ["line 5 (model 'b', item 'q1') has score 1.5", "outside"]),
        # A row without a score.
        (CLEAN.replace("q1,b,2,1", "q1,b,2,"), [], ["line 5", "has no score", "leave the row out"]),
        # A row without a repeat label.
        (CLEAN.replace("q1,b,2,1", "q1,b,,1"), [], ["line 5, column 'seed'", "missing", "--repeat-column"]),
        # A missing cell under --on-missing error names the flag.
        (CLEAN.replace("q2,b,1,1\nq2,b,2,0\n", ""), [], ["'b' has no item 'q2'", "--on-missing intersect"]),
    ],
    ids=["repeat-twice", "single-generation", "out-of-range", "no-score", "no-repeat", "missing-cell"],
)
def test_long_table_refusals_name_the_place(tmp_path, capsys, body, options, fragments):
    path = _long_csv(tmp_path, HEADER + body)
    refused(["audit", path, "--repeat-column", "seed", "--n-resamples", "0", *options], fragments, capsys)


def test_missing_cells_with_intersect_drop_the_item(tmp_path):
    extra = "q3,a,1,1\nq3,a,2,1\nq3,b,1,0\nq3,b,2,1\n"
    path = _long_csv(tmp_path, HEADER + CLEAN.replace("q2,b,1,1\nq2,b,2,0\n", "") + extra)
    matrix = read_scores(path, repeat_column="seed", on_missing="intersect")
    assert matrix.item_ids == ("q1", "q3") and matrix.generations.counts.shape == (2, 2)
    assert matrix.scores.tolist() == [[0.5, 1.0], [1.0, 0.5]]
    assert any("dropped 1 ('b' lacks 1)" in note for note in matrix.notes)
    # A cell with one generation on a dropped item is no longer a cell: nothing to refuse.
    single = CLEAN.replace("q2,b,1,1\nq2,b,2,0\n", "q2,b,1,1\n").replace("q2,a,1,0\nq2,a,2,0\n", "")
    matrix = read_scores(_long_csv(tmp_path, HEADER + single + extra), repeat_column="seed", on_missing="intersect")
    assert matrix.item_ids == ("q1", "q3")


def test_clusters_with_repeats(tmp_path, capsys):
    rows = [line.split(",") for line in CLEAN.splitlines()]
    labelled = "".join(f"{','.join(row)},{'t1' if row[0] == 'q1' else 't2'}\n" for row in rows)
    path = _long_csv(tmp_path, "item_id,model,seed,score,topic\n" + labelled)
    matrix = read_scores(path, repeat_column="seed", cluster_column="topic")
    assert matrix.clusters == ("t1", "t2") and matrix.generations.counts.tolist() == [[2, 2], [2, 2]]
    # q2 without a label in every row: dropped with its generations under --missing-cluster drop.
    unlabelled = _long_csv(tmp_path, "item_id,model,seed,score,topic\n" + labelled.replace(",t2\n", ",\n"))
    dropped = read_scores(unlabelled, repeat_column="seed", cluster_column="topic", missing_cluster="drop")
    assert dropped.item_ids == ("q1",) and dropped.generations.counts.shape == (1, 2)
    assert dropped.generations.within.tolist() == [[0.5, 0.0]]
    # One generation of q2 labelled otherwise: the item has two clusters across its repeats.
    conflicting = labelled.replace("q2,b,2,0,t2", "q2,b,2,0,t3")
    refused(
        [
            "audit",
            _long_csv(tmp_path, "item_id,model,seed,score,topic\n" + conflicting),
            *("--repeat-column", "seed", "--cluster-column", "topic", "--n-resamples", "0"),
        ],
        ["line 9", "item 'q2' has cluster 't3' here and 't2' in an earlier row"],
        capsys,
    )


def test_repeat_options_the_input_does_not_read_are_refused(tmp_path, capsys):
    path = _long_csv(tmp_path, HEADER + CLEAN)
    refused(["audit", path, "--repeat-column", "run"], ["no column 'run'", "check --repeat-column"], capsys)
    refused(["audit", path, "--repeat-column", "model"], ["'model' is the column --model-column names"], capsys)
    refused(["audit", path, "--repeat-pattern", "{model}@{repeat}"], ["this table is long", "--repeat-column"], capsys)
    wide = _long_csv(tmp_path, "item_id,a,b\nq1,1,0\nq2,0,1\n")
    refused(["audit", wide, "--repeat-column", "seed"], ["reads a long table", "--repeat-pattern"], capsys)
    refused(
        ["audit", wide, "--repeat-pattern", "{model}@{repeat}", "--score-column", "acc"],
        ["--score-column 'acc' applies to long tables", "leave it out"],
        capsys,
    )
    logs = sorted((FIXTURES / "eval").glob("*.eval"))[:2]
    refused(
        ["audit", *map(str, logs), "--repeat-column", "epoch"],
        ["applies to a table file; INPUT is Inspect logs", "--epochs all"],
        capsys,
    )


# --------------------------------------------------------------------------- wide tables with a pattern
def test_repeat_pattern_splits_and_its_refusals(tmp_path, capsys):
    assert header_splits("gpt-4o@3", "{model}@{repeat}") == [("gpt-4o", "3")]
    assert header_splits("a.b@c", "{model}@{repeat}") == [("a.b", "c")]
    assert header_splits("run2:m", "run{repeat}:{model}") == [("m", "2")]
    assert header_splits("a3", "{model}@{repeat}") == [] and header_splits("@3", "{model}@{repeat}") == []
    for pattern in ("{model}", "{model}@{repeat}@{repeat}", "{model}{repeat}"):
        with pytest.raises(ArgumentError, match="--repeat-pattern"):
            header_splits("a@1", pattern)
    table = "item_id,topic,a@1,a@2,b@1,b@2\nq1,t,1,0,1,1\nq2,t,0,0,1,0\n"
    matrix = read_scores(_long_csv(tmp_path, table), repeat_pattern="{model}@{repeat}", cluster_column="topic")
    assert matrix.models == ("a", "b") and matrix.clusters == ("t", "t")
    assert matrix.generations.counts.tolist() == [[2, 2], [2, 2]]
    cases = [
        # A column that does not match: named, with the flags that name the other columns.
        ("item_id,a@1,a@2,b@1,b@2,notes\nq1,1,0,1,1,2\n", ["column 'notes' does not match", "--item-column"]),
        # A header that splits two ways.
        ("item_id,a@x@1,a@x@2,b@1,b@2\nq1,1,0,1,1\n", ["column 'a@x@1' splits two ways", "model 'a', repeat 'x@1'"]),
        # One generation of a cell (the model has one column).
        ("item_id,a@1,b@1,b@2\nq1,1,1,1\n", ["line 2, column 'a@1' (item 'q1')", ">= 2 generations", "row out"]),
        # A score out of range in one generation.
        ("item_id,a@1,a@2,b@1,b@2\nq1,1,0,2,1\n", ["line 2, column 'b@1' (item 'q1') has score 2", "outside"]),
    ]
    for text, fragments in cases:
        refused(
            ["audit", _long_csv(tmp_path, text), "--repeat-pattern", "{model}@{repeat}", "--n-resamples", "0"],
            fragments,
            capsys,
        )


def test_wide_blank_cells_are_refused_or_drop_their_item(tmp_path):
    """A blank generation is refused naming its cell, as the plain wide reader refuses a blank score; --on-missing
    intersect leaves out the items with a blank cell, with a note (unequal generations go in a long table)."""
    text = "item_id,a@1,a@2,a@3,b@1,b@2,b@3\nq1,1,0,,1,1,1\nq2,,,,1,0,0\nq3,0,0,1,1,0,1\nq4,1,1,0,0,0,1\n"
    with pytest.raises(
        InputError, match=r"line 2, column 'a@3' \(item 'q1'\) has no score \(4 blank cells\).*intersect"
    ):
        from_wide_repeated(pd.read_csv(_long_csv(tmp_path, text)), repeat_pattern="{model}@{repeat}")
    matrix = read_scores(_long_csv(tmp_path, text), repeat_pattern="{model}@{repeat}", on_missing="intersect")
    assert matrix.item_ids == ("q3", "q4") and matrix.generations.counts.tolist() == [[3, 3], [3, 3]]
    assert matrix.scores.tolist() == [[1 / 3, 2 / 3], [2 / 3, 1 / 3]]  # k/3 of 0/1 generations: exact as computed
    assert any(note.startswith("dropped 2 items with a blank cell (--on-missing intersect") for note in matrix.notes)
    with pytest.raises(AlignmentError, match="every item has a blank cell"):
        read_scores(_long_csv(tmp_path, text.split("q3")[0]), repeat_pattern="{model}@{repeat}", on_missing="intersect")


def _every_split(name: str, pattern: str) -> list[tuple[str, str]]:
    """Every (model, repeat) of non-empty fields that spells ``name`` under ``pattern``, by trying all cuts."""
    found = []
    for start in range(len(name) + 1):
        for end in range(start + 1, len(name) + 1):
            for other_start in range(end, len(name) + 1):
                for other_end in range(other_start + 1, len(name) + 1):
                    first, second = name[start:end], name[other_start:other_end]
                    for model, repeat in ((first, second), (second, first)):
                        if pattern.replace("{model}", model).replace("{repeat}", repeat) == name:
                            found.append((model, repeat))
    return sorted(set(found))


@given(st.text("a@_s", max_size=9), st.sampled_from(["{model}@{repeat}", "{model}_s{repeat}", "s{repeat}@{model}_"]))
def test_header_splits_finds_every_split(name, pattern):
    """At most two splits are returned: all of them when there are fewer, two of them otherwise."""
    every = _every_split(name, pattern)
    splits = header_splits(name, pattern)
    assert len(splits) == min(len(every), 2) and set(splits) <= set(every)


def test_header_splits_takes_linear_time():
    """A hostile header of 2 million characters with a million separators is split in one pass, not per separator."""
    assert header_splits("a@" * 1_000_000 + "#", "{model}@{repeat}#")[:1] == [("a", "a@" * 999_999)]
    assert header_splits("a@" * 1_000_000, "{model}@{repeat}#") == []


# --------------------------------------------------------------------------- Inspect logs, every epoch
def _log(tmp_path: Path, name: str, values: dict[tuple[int, int], float], model: str) -> Path:
    samples = [
        {"id": f"q{item:02d}", "epoch": epoch, "scores": {"match": {"value": value}}}
        for (item, epoch), value in values.items()
    ]
    path = tmp_path / f"{name}.eval"
    header = json.dumps({"eval": {"model": model, "task": "t"}}).encode()
    path.write_bytes(eval_bytes({"header.json": header, "summaries.json": json.dumps(samples).encode()}))
    return path


def test_inspect_epochs_all_keeps_every_epoch(tmp_path, capsys):
    rng = np.random.default_rng(9)
    x = {(i, e): float(rng.random() < 0.6) for i in range(15) for e in (1, 2, 3)}
    y = {(i, e): round(float(rng.random()), 3) for i in range(15) for e in (2, 5)}
    paths = [_log(tmp_path, "x", x, "m/x"), _log(tmp_path, "y", y, "m/y")]
    matrix = read_scores(paths, epochs="all")
    frame = pd.DataFrame(
        [(f"q{i:02d}", model, e, v) for model, values in (("m/x", x), ("m/y", y)) for (i, e), v in values.items()],
        columns=["item_id", "model", "seed", "score"],
    )
    _check_against_pandas(matrix, frame)
    assert matrix.generations.label == "epoch" and not matrix.generations.binary
    assert "m/x: 3 epochs per sample (epochs 1-3); kept every epoch as a generation of its sample" in matrix.notes
    assert "2 to 3 generations per (item, model): the within part uses each cell's own count" in matrix.notes
    # The item means are --epochs mean's (same sums in the same order, up to the summation method).
    np.testing.assert_allclose(matrix.scores, read_scores(paths, epochs="mean").scores, rtol=RELATIVE, atol=0)
    one = _log(tmp_path, "z", {(i, 1): 1.0 for i in range(15)}, "m/z")
    refused(
        ["audit", str(paths[0]), str(one), "--epochs", "all", "--n-resamples", "0"],
        ["z.eval: one epoch per sample (epoch 1)", "read it without --epochs"],
        capsys,
    )


def test_the_genuine_two_epoch_log_with_a_one_epoch_log_is_refused_naming_it():
    epochs_file = next((FIXTURES / "eval_epochs2").glob("*.eval"))
    other = sorted((FIXTURES / "eval").glob("*.eval"))[1]
    with pytest.raises(AlignmentError, match=f"{other.name}: one epoch per sample"):
        read_scores([epochs_file, other], epochs="all", on_missing="intersect")


def test_parquet_with_whole_number_repeats_and_lm_eval_refusal(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    frame = _generations(4, counts=(2, 3))
    path = tmp_path / "long.parquet"
    frame.assign(seed=frame["seed"].str[1:].astype(np.int64)).to_parquet(path)
    _check_against_pandas(read_scores(path, repeat_column="seed"), frame)
    folders = [str(folder) for folder in sorted((FIXTURES.parent / "lm_eval" / "hashlm").iterdir())]
    refused(
        ["audit", *folders, "--task", "t", "--metric", "acc", "--repeat-column", "seed"],
        ["--repeat-column 'seed' applies to a table file; INPUT is lm-eval folders", "no repeats to keep"],
        capsys,
    )


@given(
    st.lists(st.sampled_from((0, 1, 2, 2, 3, 3, 4)), min_size=12, max_size=12),
    st.lists(st.sampled_from((0.0, 0.25, 1.0)), min_size=48, max_size=48),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_any_long_table_is_read_to_its_groupby_or_refused_in_one_line(counts, scores, duplicate, seed):
    """4 items x 3 models, each cell with 0 to 4 generations, rows shuffled, maybe one row twice."""
    rows = [
        (f"q{cell // 3}", "abc"[cell % 3], f"s{repeat}", scores[cell * 4 + repeat])
        for cell, count in enumerate(counts)
        for repeat in range(count)
    ]
    rng = np.random.default_rng(seed)
    if duplicate and rows:
        rows.append(rows[int(rng.integers(len(rows)))])
    frame = pd.DataFrame(rows, columns=["item_id", "model", "seed", "score"]).iloc[rng.permutation(len(rows))]
    grid = np.asarray(counts).reshape(4, 3)
    grid = grid[:, grid.sum(axis=0) > 0]  # a model without any row is not in the table
    kept = (grid > 0).all(axis=1)
    try:
        matrix = from_long_repeated(frame.reset_index(drop=True), repeat_column="seed", on_missing="intersect")
    except (InputError, AlignmentError) as error:
        message = str(error)
        assert "\n" not in message and message.startswith("long table"), message
        reasons = {
            "also at": duplicate,
            ">= 2 generations": bool((grid[kept] == 1).any()),
            "no item in common": not kept.any(),
            "no per-item results": not rows,
            # A few 0.25 among 0/1 generations are strays of binary data, as without repeats (--scores auto).
            "read as damage": 0.25 in frame["score"].tolist(),
            "only 1 model": grid.shape[1] == 1,
        }
        assert any(wanted for fragment, wanted in reasons.items() if fragment in message), message
        return
    assert not duplicate and kept.any() and (grid[kept] >= 2).all()
    used = frame[frame["item_id"].isin(matrix.item_ids)]
    _check_against_pandas(matrix, used)
    assert matrix.generations.binary is bool(used["score"].isin((0.0, 1.0)).all())


# --------------------------------------------------------------------------- issue 27 fix round: labels and messages
@pytest.mark.parametrize(
    ("first", "second", "how"),
    [
        ("1.0", "1", "the same number"),
        ("01", "1", "the same number"),
        ("1e0", "1", "the same number"),
        ("\uff11", "1", "the same number"),  # full-width digit one
        ("\u0662", "2", "the same number"),  # Arabic-Indic digit two
        ("1\u200b", "1", "the same number"),  # zero width space after the digit
        ("r\u200b1", "r1", "one label once Unicode-normalised (NFKC)"),
        ("\uff52" + "1", "r1", "one label once Unicode-normalised (NFKC)"),  # full-width letter r
    ],
)
def test_one_repeat_spelled_two_ways_is_refused_naming_both(tmp_path, capsys, first, second, how):
    """q1/a's first generation spells ``second`` as ``first`` (it would count as a third generation of its cell)."""
    rows = [line.split(",") for line in CLEAN.splitlines()]
    labels = {"1": second, "2": "x9"}
    body = "".join(
        f"{item},{model},{first if row == 0 else labels[seed]},{score}\n"
        for row, (item, model, seed, score) in enumerate(rows)
    )
    refused(
        ["audit", _long_csv(tmp_path, HEADER + body), "--repeat-column", "seed", "--n-resamples", "0"],
        [f"seed {first!r} (line 2) and {second!r} (line 4)", how, "write each repeat one way"],
        capsys,
    )


def test_one_repeat_spelled_two_ways_in_headers_and_json_lines(tmp_path):
    wide = "item_id,a@1,a@1.0,a@2,b@1,b@2\nq1,1,1,0,1,1\nq2,0,0,0,1,0\n"
    with pytest.raises(InputError, match=r"repeat '1' \(column 'a@1'\) and '1.0' \(column 'a@1.0'\) are the same"):
        read_scores(_long_csv(tmp_path, wide), repeat_pattern="{model}@{repeat}")
    path = tmp_path / "t.jsonl"
    records = [("q1", "a", 1), ("q1", "a", 2), ("q1", "b", "1"), ("q1", "b", 2)]
    path.write_text("".join(json.dumps(dict(item_id=i, model=m, seed=s, score=1)) + "\n" for i, m, s in records))
    with pytest.raises(InputError, match=r"seed 1 \(line 1\) and '1' \(line 3\) are the same number"):
        read_scores(path, repeat_column="seed")


@pytest.mark.parametrize("label", ["NA", "NaN", "null", "None", "n/a", " na "])
def test_a_missing_repeat_label_is_refused_naming_the_line(tmp_path, label):
    path = _long_csv(tmp_path, HEADER + CLEAN.replace("q1,b,2,1", f"q1,b,{label},1"))
    with pytest.raises(InputError, match=r"line 5, column 'seed': the seed is missing .*--repeat-column"):
        read_scores(path, repeat_column="seed")
    wide = f"item_id,a@1,a@{label},b@1,b@2\nq1,1,0,1,1\n"
    with pytest.raises(InputError, match=r"column 'a@.*' has the repeat .* a missing-value text"):
        read_scores(_long_csv(tmp_path, wide), repeat_pattern="{model}@{repeat}")


def test_a_missing_repeat_label_in_parquet_is_refused(tmp_path):
    frame = pd.DataFrame(
        {"item_id": ["q1"] * 4, "model": ["a", "a", "b", "b"], "seed": [1.0, np.nan, 1.0, 2.0], "score": [1.0] * 4}
    )
    frame.to_parquet(tmp_path / "t.parquet")
    with pytest.raises(InputError, match="column 'seed': the seed is missing"):
        read_scores(tmp_path / "t.parquet", repeat_column="seed")


@pytest.mark.parametrize(
    ("option", "value"), [("--repeat-column", ""), ("--repeat-pattern", ""), ("--repeat-pattern", " ")]
)
def test_an_empty_repeat_option_is_refused(tmp_path, capsys, option, value):
    wide = _long_csv(tmp_path, "item_id,a@1,a@2,b@1,b@2\nq1,1,0,1,1\nq2,0,0,1,0\n")
    refused(["audit", wide, option, value], [f"{option} {value!r}", "is empty"], capsys)
    with pytest.raises(ArgumentError, match="is empty"):
        read_scores(wide, **{option[2:].replace("-", "_"): value})


def test_kind_notes_follow_the_generations(tmp_path, capsys):
    # Every item's generations agree (item means 0 or 1): no note on --scores graded, which nobody asked for.
    agree = HEADER + "".join(f"q{i},{m},{s},{(i + (m == 'b')) % 2}\n" for i in range(6) for m in "ab" for s in (1, 2))
    assert main(["audit", _long_csv(tmp_path, agree), "--repeat-column", "seed", "--n-resamples", "0"]) == 0
    assert "--scores graded was asked for" not in capsys.readouterr().out
    # One 0.5 among 0/1 generations is a stray of binary data under --scores auto, as without repeats.
    stray = HEADER + CLEAN.replace("q1,b,2,1", "q1,b,2,0.5")
    with pytest.raises(InputError, match=r"line 5 .* has score 0.5 but the other scores are 0 or 1 .*--scores graded"):
        read_scores(_long_csv(tmp_path, stray), repeat_column="seed")
    matrix = read_scores(_long_csv(tmp_path, stray), repeat_column="seed", score_kind="graded")
    assert matrix.scores[0, 1] == 0.75 and not matrix.generations.binary  # (1 + 0.5) / 2, exact in binary


def test_forgotten_repeat_column_and_saved_report_get_their_hints(tmp_path, capsys):
    refused(
        ["audit", _long_csv(tmp_path, HEADER + CLEAN)],
        ["has two results for item 'q1'", "name their column with --repeat-column NAME"],
        capsys,
    )
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"schema": "llm-power-verified/audit/2", "pairs": []}))
    for command in (["plan", "repeats"], ["audit"]):
        refused([*command, str(report)], ["a saved llm-power-verified report", "'plan report FILE'"], capsys)


def test_the_repeated_readers_are_exported():
    import llm_power_verified.io as io

    assert io.from_long_repeated is from_long_repeated and io.from_wide_repeated is from_wide_repeated
    assert {"from_long_repeated", "from_wide_repeated"} <= set(io.__all__)


def test_models_that_look_like_generations_get_a_note(tmp_path):
    hint = "look like generations of fewer models: if they are, read them with --repeat-pattern '{model}@{repeat}'"
    path = _long_csv(tmp_path, "item_id,a@1,a@2,b@1,b@2\nq1,1,0,1,1\nq2,0,0,1,0\nq3,1,1,0,1\n")
    assert any(hint in note for note in read_scores(path).notes)
    # Distinct models whose names end in @digits (one column each) are not generations: no note.
    other = _long_csv(tmp_path, "item_id,gpt@4,llama@3\nq1,1,0\nq2,0,0\nq3,1,1\n")
    assert not any("look like generations" in note for note in read_scores(other).notes)
    seeds = read_scores(pd.DataFrame({"item_id": ["q1", "q2"], "m_seed1": [1, 0], "m_seed2": [0, 1]}))
    assert any("--repeat-pattern '{model}_seed{repeat}'" in note for note in seeds.notes)
