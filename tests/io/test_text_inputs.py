"""Text inputs: the number rule on every number path, line ends, physical line numbers, blank lines, names and ids.

Every refusal is checked through the Python API and, for a sample of each kind, through the CLI entry
point (exit status 2, one line on stderr naming file, line and value).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.cli import main
from llm_power_verified.io import InputError, from_array, read_score_files, read_scores, read_table, write_table
from llm_power_verified.io.accuracy_table import read_accuracies

WIDE = "item_id,a,b,topic\nq1,1,0,t1\nq2,0,1,t2\nq3,1,1,t1\nq4,0,0,t2\nq5,1,0,t1\n"


def _cli(arguments: list[str]) -> tuple[int, str]:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        status = main(arguments)
    return status, stderr.getvalue()


def _cli_refuses(arguments: list[str], *fragments: str) -> None:
    status, stderr = _cli(arguments)
    assert status == 2, stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr, stderr
    for fragment in fragments:
        assert fragment in stderr, stderr


def _audit(path: Path, *options: str) -> list[str]:
    return ["audit", str(path), "--n-resamples", "0", "--n-cluster-resamples", "0", *options]


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return path


# --------------------------------------------------------------------------- what is a number
#: (text, value it reads as, or None when refused as not a number).
NUMBERS = [
    ("1", 1.0),
    (" 1", 1.0),
    ("1\t", 1.0),
    ("+1", 1.0),
    ("1.", 1.0),
    (".5", 0.5),
    ("0.25", 0.25),
    ("1e-3", 0.001),
    ("2.5E-1", 0.25),
    ("-0", 0.0),
    ("00.5", 0.5),
    ("0_1", None),
    ("1_000", None),
    ("0x1", None),
    ("\u0661", None),
    ("0.\u0665", None),
    ("TRUE", None),
    ("false", None),
    ("\u00a01", None),
    ("\u22121", None),
    ("1,0", None),
    ("0.5%", None),
    ("1e", None),
    (".", None),
    ("+", None),
    ("1.0.0", None),
    ("½", None),
    ("0b1", None),
    ("1d-1", None),
]


def _wide_with(tmp_path: Path, value: str, separator: str = ",") -> Path:
    rows = [line.split(",") for line in WIDE.strip().split("\n")]
    rows[3][1] = value  # line 4, column 'a'
    return _write(
        tmp_path / f"wide.{'tsv' if separator == chr(9) else 'csv'}",
        "\n".join(separator.join(row) for row in rows) + "\n",
    )


@pytest.mark.parametrize("text, value", NUMBERS)
@pytest.mark.parametrize("separator", [",", "\t"])
def test_score_cells_follow_the_number_rule(tmp_path, text, value, separator):
    if separator in text:
        pytest.skip("the separator splits the cell")
    path = _wide_with(tmp_path, text, separator)
    if value is None:
        with pytest.raises(InputError) as error:
            read_scores(path, cluster_column="topic", score_kind="graded")
        assert f"line 4, column 'a': {text!r} is not a number" in str(error.value)
    else:
        matrix = read_scores(path, cluster_column="topic", score_kind="graded")
        assert matrix.scores[2, 0] == value  # exact: each text spells a value float() reads correctly rounded


@pytest.mark.parametrize("text, value", NUMBERS)
def test_text_scores_in_json_lines_follow_the_number_rule(tmp_path, text, value):
    records = [
        {"item_id": f"q{i}", "model": model, "score": score}
        for i in range(4)
        for model, score in (("a", i % 2), ("b", 1 - i % 2))
    ]
    records[4]["score"] = text  # line 5
    path = _write(tmp_path / "long.jsonl", "".join(json.dumps(record) + "\n" for record in records))
    if value is None:
        with pytest.raises(InputError) as error:
            read_scores(path, score_kind="graded")
        assert f"long.jsonl: line 5, column 'score': {text!r} is not a number" in str(error.value)
    else:
        assert read_scores(path, score_kind="graded").scores[2, 0] == value


@pytest.mark.parametrize("text, value", NUMBERS)
def test_plain_score_files_follow_the_number_rule(tmp_path, text, value):
    a = _write(tmp_path / "a.txt", f"0\n1\n{text}\n0\n1\n")
    b = _write(tmp_path / "b.txt", "1\n1\n0\n0\n0\n")
    if value is None:
        with pytest.raises(InputError) as error:
            read_score_files(a, b, score_kind="graded")
        assert f"a.txt, line 3: {text!r} is not a number" in str(error.value)
    else:
        assert read_score_files(a, b, score_kind="graded").scores[2, 0] == value


@pytest.mark.parametrize("first", ["0_1", "1_000", "\u0661", "+x", ".5.5", "nan", "inf", "-"])
def test_a_damaged_first_number_is_never_taken_for_a_header(tmp_path, first):
    a = _write(tmp_path / "a.txt", f"{first}\n1\n0\n")
    b = _write(tmp_path / "b.txt", "1\n0\n0\n")
    with pytest.raises(InputError, match=r"a\.txt, line 1: .* is not a (finite )?number"):
        read_score_files(a, b)
    assert read_score_files(
        _write(tmp_path / "h.txt", "model_a\n1\n0\n1\n"), _write(tmp_path / "g.txt", "0\n0\n1\n")
    ).notes


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "-Infinity", "1e400"])
def test_plain_score_files_have_no_missing_or_infinite_value(tmp_path, text):
    a = _write(tmp_path / "a.txt", f"0\n{text}\n1\n")
    b = _write(tmp_path / "b.txt", "1\n0\n0\n")
    with pytest.raises(InputError, match=r"line 2: .*(not a finite number|has score inf)"):
        read_score_files(a, b)


@pytest.mark.parametrize("text", ["inf", "-inf", "Infinity", "1e400"])
def test_infinite_scores_are_refused_as_not_finite(tmp_path, text):
    with pytest.raises(InputError, match=r"has score -?inf; scores must be finite"):
        read_scores(_wide_with(tmp_path, text), cluster_column="topic", score_kind="graded")


@pytest.mark.parametrize("text", ["", "NA", "nan", "NULL", "None", "n/a", " na "])
def test_missing_score_texts(tmp_path, text):
    with pytest.raises(InputError, match="line 4 \\(item 'q3'\\) has no score for model 'a'"):
        read_scores(_wide_with(tmp_path, text), cluster_column="topic")
    assert read_scores(_wide_with(tmp_path, text), cluster_column="topic", on_missing="intersect").n_items == 4


@pytest.mark.parametrize("on_missing", ["error", "intersect"])
def test_a_model_column_with_no_score_at_all_is_named_as_empty(tmp_path, on_missing):
    # Not "line 2 has no score": --on-missing intersect would then find no common item and say only that.
    path = tmp_path / "empty_column.csv"
    path.write_text("item_id,a,b,c\nq1,1,,1\nq2,0,,1\nq3,1,NA,0\n")
    with pytest.raises(InputError, match="column 'b' has no score in any of the 3 rows; remove the column"):
        read_scores(path, on_missing=on_missing)


ACCURACIES = [
    ("0.7303", 0.7303),
    (" 0.5", 0.5),
    ("+0.5", 0.5),
    (".5", 0.5),
    ("5e-1", 0.5),
    ("0.5 ", 0.5),
    ("0_5", None),
    ("0x1", None),
    ("0.\u0665", None),
    ("inf", None),
    ("nan", None),
    ("TRUE", None),
    ("\u00a00.5", None),
]


@pytest.mark.parametrize("text, value", ACCURACIES)
def test_accuracies_follow_the_number_rule(tmp_path, text, value):
    path = _write(tmp_path / "acc.tsv", f"model\taccuracy\tn\nA\t0.25\t10000\nB\t{text}\t10000\n")  # 0.7303 is k/10,000
    if value is None:
        with pytest.raises(InputError) as error:
            read_accuracies(path)
        assert f"line 3: accuracy {text.strip(' ')!r} is not a number" in str(error.value)
    else:
        assert read_accuracies(path).accuracy[1] == pytest.approx(value, rel=1e-15)  # Decimal -> float: one rounding


@pytest.mark.parametrize(
    "text, n",
    [
        ("400", 400),
        ("400.0", 400),
        ("4e2", 400),
        ("+400", 400),
        ("1_000", None),
        ("0x190", None),
        ("\u0664\u0660\u0660", None),
        ("400.5", None),
        ("0", None),
        (str(2**53 + 1), None),
    ],
)
def test_the_benchmark_size_follows_the_number_rule(tmp_path, text, n):
    path = _write(tmp_path / "acc.csv", f"model,accuracy,n\nA,0.25,{text}\nB,0.5,{text}\n")
    if n is None:
        with pytest.raises(
            InputError, match=f"acc.csv, line 2: n .*{text[:4]}.* (is not a number|is not a whole number of items)"
        ):
            read_accuracies(path)
        _cli_refuses(["audit-accuracies", str(path)], "acc.csv, line 2: n ")
    else:
        assert read_accuracies(path).n == n


def test_true_false_text_is_not_a_score(tmp_path):
    path = _write(tmp_path / "bool.csv", "item_id,a,b\nq1,TRUE,0\nq2,FALSE,1\nq3,True,1\n")
    with pytest.raises(
        InputError,
        match=r"bool\.csv, line 2, column 'a': true/false text .* is not a number; write the scores as 1 and 0",
    ):
        read_scores(path)
    _cli_refuses(_audit(path), "line 2, column 'a'")
    typed = read_scores(pd.DataFrame({"item_id": ["q1", "q2", "q3"], "a": [True, False, True], "b": [0, 1, 1]}))
    assert typed.scores[:, 0].tolist() == [1.0, 0.0, 1.0]  # typed booleans are 1 and 0


def test_cli_names_file_line_and_value_for_a_bad_number(tmp_path):
    _cli_refuses(
        _audit(_wide_with(tmp_path, "0_1"), "--cluster-column", "topic"),
        "wide.csv: line 4, column 'a': '0_1' is not a number",
    )
    a = _write(tmp_path / "a.txt", "0\n1\n1_000\n")
    _write(tmp_path / "b.txt", "1\n1\n0\n")
    _cli_refuses(["test", str(a), str(tmp_path / "b.txt")], "a.txt, line 3: '1_000' is not a number")


# --------------------------------------------------------------------------- line ends and physical line numbers
@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
def test_line_ends_cr_crlf_lf_read_the_same(tmp_path, end):
    clean = read_scores(_write(tmp_path / "clean.csv", WIDE), cluster_column="topic")
    path = _write(tmp_path / "ends.csv", WIDE.replace("\n", end))
    matrix = read_scores(path, cluster_column="topic")
    assert (
        matrix.item_ids == clean.item_ids
        and np.array_equal(matrix.scores, clean.scores)
        and matrix.clusters == clean.clusters
    )
    damaged = _write(tmp_path / "bad.csv", WIDE.replace("q4,0,0", "q4,0,x").replace("\n", end))
    with pytest.raises(InputError, match=re.escape("bad.csv: line 5, column 'b': 'x' is not a number")):
        read_scores(damaged, cluster_column="topic")
    _cli_refuses(_audit(damaged, "--cluster-column", "topic"), "line 5, column 'b'")
    a = _write(tmp_path / "a.txt", end.join(["1", "0", "1", "0.5", "1"]) + end)
    b = _write(tmp_path / "b.txt", "1\n1\n0\n0\n1\n")
    with pytest.raises(InputError, match=re.escape("a.txt, line 4 has score 0.5")):
        read_score_files(a, b)
    records = "".join(
        json.dumps({"item_id": f"q{i}", "model": m, "score": (i + k) % 2}) + end
        for i in range(3)
        for k, m in enumerate("ab")
    )
    assert read_scores(_write(tmp_path / "long.jsonl", records)).n_items == 3
    accuracies = _write(
        tmp_path / "acc.csv", end.join(["model,accuracy,n", "A,0.25,400", "B,0.5,400", "C,x,400"]) + end
    )
    with pytest.raises(InputError, match=re.escape("acc.csv, line 4: accuracy 'x' is not a number")):
        read_accuracies(accuracies)


def test_line_numbers_count_physical_lines_after_a_quoted_line_break(tmp_path):
    text = 'item_id,a,b\n"q1\nsecond line",1,0\nq2,0,1\n"q3, with a comma",1,1\nq4,0,x\n'
    path = _write(tmp_path / "quoted.csv", text)
    with pytest.raises(InputError, match=re.escape("quoted.csv: line 6, column 'b': 'x' is not a number")):
        read_scores(path)
    _cli_refuses(_audit(path), "line 6, column 'b'")
    duplicate = _write(tmp_path / "dup.csv", 'item_id,a,b\n"q1\n\nthird",1,0\nq2,0,1\nq2,1,1\n')
    with pytest.raises(InputError, match=r"item id 'q2' appears twice \(line 5 and line 6\)"):
        read_scores(duplicate)
    fields = _write(tmp_path / "fields.csv", 'item_id,a,b\n"q1\r\nx",1,0\r\nq2,0,1,1\r\n')
    with pytest.raises(InputError, match=re.escape("fields.csv, line 4: 4 fields where the header has 3")):
        read_scores(fields)
    long = _write(tmp_path / "long.csv", 'item_id,model,score\nq1,"model\na",1\nq1,b,0\nq2,"model\na",0\nq2,b,2\n')
    with pytest.raises(InputError, match=r"line 7 \(model 'b', item 'q2'\) has score 2"):
        read_scores(long)


def test_a_cr_inside_a_quoted_cell_is_kept(tmp_path):
    matrix = from_array([[1, 0], [0, 1], [1, 1]], models=["line\rbreak", "tab\there"], item_ids=["a\nb", "c", "d"])
    write_table(matrix, tmp_path / "round.csv")
    again = read_table(tmp_path / "round.csv")
    assert again.models == matrix.models and again.item_ids == matrix.item_ids


def test_bad_quoting_is_refused_by_line(tmp_path):
    for text, line in (('item_id,a,b\nq1,1,0\n"q2,0,1\nq3,1,1\n', 3), ('item_id,a,b\nq1,1,0\n"q2"x,0,1\n', 3)):
        path = _write(tmp_path / "quotes.csv", text)
        with pytest.raises(InputError, match=f"quotes.csv, line {line}: not a readable CSV table"):
            read_scores(path)
        _cli_refuses(_audit(path), f"line {line}: not a readable CSV table")


# --------------------------------------------------------------------------- blank lines
@pytest.mark.parametrize("blank", ["\n", "   \n", "\t\n", "\n\n\n"])
def test_blank_lines_are_nothing_in_a_table_with_an_item_column(tmp_path, blank):
    clean = read_scores(_write(tmp_path / "clean.csv", WIDE), cluster_column="topic")
    lines = WIDE.split("\n")
    text = "\n".join(lines[:3]) + "\n" + blank + "\n".join(lines[3:]) + blank
    matrix = read_scores(_write(tmp_path / "blank.csv", text), cluster_column="topic")
    assert matrix.item_ids == clean.item_ids and np.array_equal(matrix.scores, clean.scores)
    shift = blank.count("\n")
    damaged = _write(tmp_path / "bad.csv", text.replace("q4,0,0", "q4,0,y"))
    with pytest.raises(InputError, match=f"bad.csv: line {5 + shift}, column 'b': 'y' is not a number"):
        read_scores(damaged, cluster_column="topic")
    _cli_refuses(_audit(damaged, "--cluster-column", "topic"), f"line {5 + shift}, column 'b'")


def test_blank_lines_in_long_tables_json_lines_and_accuracy_tables(tmp_path):
    long = "item_id,model,score\nq1,a,1\nq1,b,0\n\nq2,a,0\nq2,b,1\n\n"
    assert read_scores(_write(tmp_path / "long.csv", long)).n_items == 2
    with pytest.raises(InputError, match=r"line 6 \(model 'b', item 'q2'\) has score 3"):
        read_scores(_write(tmp_path / "long3.csv", long.replace("q2,b,1", "q2,b,3")))
    records = [
        json.dumps({"item_id": f"q{i}", "model": m, "score": (i + k) % 2}) for i in range(3) for k, m in enumerate("ab")
    ]
    text = "\n".join([*records[:2], "", "  ", *records[2:]]) + "\n\n"
    assert read_scores(_write(tmp_path / "long.jsonl", text)).n_items == 3
    bad = text.replace('"item_id": "q1", "model": "a", "score": 1}', '"item_id": "q1", "model": "a", "score": "one"}')
    with pytest.raises(InputError, match=re.escape("bad.jsonl: line 5, column 'score': 'one' is not a number")):
        read_scores(_write(tmp_path / "bad.jsonl", bad))
    accuracies = read_accuracies(_write(tmp_path / "acc.csv", "model,accuracy,n\n\nA,0.25,400\n\nB,0.5,400\n\n"))
    assert accuracies.lines == (3, 5) and accuracies.models == ("A", "B")


def test_blank_lines_are_refused_where_rows_align_by_position(tmp_path):
    no_ids = _write(tmp_path / "noid.csv", "a,b\n1,0\n\n0,1\n1,1\n")
    with pytest.raises(
        InputError, match=re.escape("noid.csv, line 3: blank line inside a table without an item column")
    ):
        read_scores(no_ids)
    _cli_refuses(_audit(no_ids), "noid.csv, line 3: blank line")
    wide_jsonl = _write(tmp_path / "wide.jsonl", '{"a": 1, "b": 0}\n\n{"a": 0, "b": 1}\n')
    with pytest.raises(InputError, match=re.escape("wide.jsonl, line 2: blank line")):
        read_scores(wide_jsonl)
    a = _write(tmp_path / "a.txt", "1\n0\n\n1\n")
    b = _write(tmp_path / "b.txt", "1\n0\n1\n")
    with pytest.raises(InputError, match=re.escape("a.txt, line 3: blank line")):
        read_score_files(a, b)
    _write(tmp_path / "a.txt", "1\n0\n1\n\n")
    with pytest.raises(InputError, match=re.escape("a.txt, line 4: blank line")):
        read_score_files(a, b)
    with pytest.raises(InputError, match="line 1: blank line where the header should be"):
        read_scores(_write(tmp_path / "lead.csv", "\n" + WIDE))


def test_every_record_has_as_many_fields_as_the_header(tmp_path):
    for line, replacement, count in ((3, "q2,0", 2), (4, "q3,1,1,t1,extra", 5)):
        rows = WIDE.split("\n")
        rows[line - 1] = replacement
        path = _write(tmp_path / "fields.csv", "\n".join(rows))
        with pytest.raises(InputError, match=f"fields.csv, line {line}: {count} fields where the header has 4"):
            read_scores(path, cluster_column="topic")
        _cli_refuses(_audit(path, "--cluster-column", "topic"), f"line {line}: {count} fields")


# --------------------------------------------------------------------------- names, ids and cluster labels
def test_nul_characters_are_refused(tmp_path):
    path = _write(tmp_path / "nul.csv", WIDE.replace("q3", "q\x003"))
    with pytest.raises(InputError, match=re.escape("nul.csv, line 4: a NUL character")):
        read_scores(path, cluster_column="topic")
    _cli_refuses(_audit(path, "--cluster-column", "topic"), "nul.csv, line 4: a NUL character")
    with pytest.raises(InputError, match="NUL character"):
        from_array([[1, 0], [0, 1]], models=["a\x00", "b"])
    records = [{"item_id": "q1", "model": "a\u0000b", "score": 1}, {"item_id": "q1", "model": "b", "score": 0}]
    with pytest.raises(InputError, match=r"line 1, column 'model': .* holds a NUL character"):
        read_scores(_write(tmp_path / "nul.jsonl", "".join(json.dumps(record) + "\n" for record in records)))


def test_lone_surrogates_are_refused_by_place(tmp_path):
    records = [{"item_id": "q1", "model": "a", "score": 1}, {"item_id": "q1", "model": "b", "score": 0}]
    text = "".join(json.dumps(record) + "\n" for record in records).replace('"b"', '"b\\ud800"')
    path = _write(tmp_path / "surrogate.jsonl", text)
    with pytest.raises(InputError, match=re.escape("surrogate.jsonl, line 2: a lone surrogate")):
        read_scores(path)
    _cli_refuses(_audit(path), "surrogate.jsonl, line 2: a lone surrogate")
    # pandas' text dtype cannot hold a lone surrogate at all; an object column can.
    frame = pd.DataFrame(
        {"item_id": pd.Series(["q1", "q2\ud800", "q3"], dtype=object), "a": [1, 0, 1], "b": [0, 1, 1]},
        columns=pd.Index(["item_id", "a", "b"], dtype=object),
    )
    with pytest.raises(InputError, match=r"line 3, column 'item_id': 'q2\\ud800' holds a lone surrogate U\+D800"):
        read_scores(frame)
    frame = pd.DataFrame([["q1", 1, 0], ["q2", 0, 1]], columns=pd.Index(["item_id", "a", "b\udc80"], dtype=object))
    with pytest.raises(InputError, match=r"column 3 of the header \('b\\udc80'\) holds a lone surrogate"):
        read_scores(frame)
    with pytest.raises(InputError, match=r"the cluster label of item '1' .* holds a lone surrogate"):
        from_array([[1, 0], [0, 1], [1, 1]], clusters=["t", "\ud801", "t"])
    # Other control characters are text: kept, and escaped by the output formats.
    assert from_array([[1, 0], [0, 1]], models=["esc\x1b[31m", "tab\t"]).models == ("esc\x1b[31m", "tab\t")


@pytest.mark.parametrize(
    "record, column",
    [
        ({"item_id": [1, 2], "model": "a", "score": 1}, "item_id"),
        ({"item_id": {"id": 1}, "model": "a", "score": 1}, "item_id"),
        ({"item_id": "q9", "model": ["a"], "score": 1}, "model"),
        ({"item_id": "q9", "model": "a", "score": 1, "topic": ["t"]}, "topic"),
        ({"item_id": "q9", "model": "a", "score": [1]}, "score"),
    ],
)
def test_ids_that_are_json_lists_or_objects_are_refused_in_one_line(tmp_path, record, column):
    records = [
        {"item_id": f"q{i}", "model": m, "score": (i + k) % 2, "topic": "t"}
        for i in range(3)
        for k, m in enumerate("ab")
    ]
    records.insert(2, {"topic": "t", **record})
    path = _write(tmp_path / "ids.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(InputError, match=f"ids.jsonl: line 3, column '{column}': .* is an? (list|object), not"):
        read_scores(path, cluster_column="topic")
    _cli_refuses(_audit(path, "--cluster-column", "topic"), f"line 3, column '{column}'")


def test_parquet_cells_that_are_lists(tmp_path):
    pytest.importorskip("pyarrow")
    pd.DataFrame({"item_id": [[1], [2], [3]], "a": [1, 0, 1], "b": [0, 1, 1]}).to_parquet(tmp_path / "ids.parquet")
    with pytest.raises(
        InputError, match=r"ids.parquet, column 'item_id': a list<element: int64> column \(several values per row\)"
    ):
        read_scores(tmp_path / "ids.parquet")
    pd.DataFrame({"item_id": ["q1", "q2", "q3"], "a": [[1], [0], [1]], "b": [0, 1, 1]}).to_parquet(
        tmp_path / "scores.parquet"
    )
    with pytest.raises(
        InputError, match=r"scores.parquet, column 'a': a list<element: int64> column \(several values per row\)"
    ):
        read_scores(tmp_path / "scores.parquet")


def test_wide_json_lines_item_id_that_is_a_list(tmp_path):
    path = _write(tmp_path / "wide.jsonl", '{"item_id": "q1", "a": 1, "b": 0}\n{"item_id": ["q2"], "a": 0, "b": 1}\n')
    with pytest.raises(InputError, match=r"wide.jsonl: line 2, column 'item_id': \['q2'\] is a list, not an item id"):
        read_scores(path)


@pytest.mark.parametrize("label", ["NA", "nan", "NaN", "null", "None", "n/a", " na ", ""])
def test_missing_value_texts_are_missing_cluster_labels(tmp_path, label):
    rows = WIDE.split("\n")
    rows[3] = f"q3,1,1,{label}"
    path = _write(tmp_path / "labels.csv", "\n".join(rows))
    with pytest.raises(
        InputError, match=re.escape("labels.csv: line 4, column 'topic': item 'q3' has no cluster label")
    ):
        read_scores(path, cluster_column="topic")
    _cli_refuses(
        _audit(path, "--cluster-column", "topic"),
        "line 4, column 'topic': item 'q3' has no cluster label",
        "--missing-cluster",
    )
    dropped = read_scores(path, cluster_column="topic", missing_cluster="drop")
    assert "q3" not in dropped.item_ids and set(dropped.clusters) == {"t1", "t2"}
    own = read_scores(path, cluster_column="topic", missing_cluster="own")
    assert len(set(own.clusters)) == 3 and not any(
        label.strip().lower() in ("na", "nan", "null", "none", "n/a") for label in own.clusters if label
    )


def test_missing_cluster_labels_in_long_tables_and_json_lines(tmp_path):
    long = "item_id,model,score,topic\nq1,a,1,t1\nq1,b,0,t1\nq2,a,0,NA\nq2,b,1,NA\nq3,a,1,t2\nq3,b,1,t2\n"
    with pytest.raises(InputError, match="line 4, column 'topic': item 'q2' has no cluster label"):
        read_scores(_write(tmp_path / "long.csv", long), cluster_column="topic")
    mixed = long.replace("q2,b,1,NA", "q2,b,1,")  # NA and empty: both missing, so no conflict
    assert (
        read_scores(_write(tmp_path / "mixed.csv", mixed), cluster_column="topic", missing_cluster="drop").n_items == 2
    )
    conflict = long.replace("q2,b,1,NA", "q2,b,1,t3")
    with pytest.raises(InputError, match="item 'q2' has cluster 't3' here and no label in an earlier row"):
        read_scores(_write(tmp_path / "conflict.csv", conflict), cluster_column="topic")
    records = [
        {"item_id": "q1", "model": "a", "score": 1, "topic": None},
        {"item_id": "q1", "model": "b", "score": 0, "topic": None},
        {"item_id": "q2", "model": "a", "score": 0, "topic": "t"},
        {"item_id": "q2", "model": "b", "score": 1, "topic": "t"},
    ]
    path = _write(tmp_path / "labels.jsonl", "".join(json.dumps(record) + "\n" for record in records))
    with pytest.raises(
        InputError, match=re.escape("labels.jsonl: line 1, column 'topic': item 'q1' has no cluster label")
    ):
        read_scores(path, cluster_column="topic")
    assert read_scores(path, cluster_column="topic", missing_cluster="own").n_items == 2


JSON_DAMAGE = {
    "repeated key": ('{"item_id": "q1", "model": "a", "score": 1, "score": 0}', "key 'score' appears twice"),
    "NaN": ('{"item_id": "q1", "model": "a", "score": NaN}', "NaN is not a JSON value"),
    "overflow": ('{"item_id": "q1", "model": "a", "score": 1e999}', "the number 1e999 overflows to infinity"),
    "5,000 digits": ('{"item_id": "q1", "model": "a", "score": ' + "9" * 5000 + "}", "an integer of 5,000 digits"),
    "100,000 deep": (
        '{"item_id": "q1", "model": "a", "score": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "JSON nested too deeply",
    ),
    "cut short": ('{"item_id": "q1", "model": "a", "score": 1', "not valid JSON"),
}


@pytest.mark.parametrize("line, problem", JSON_DAMAGE.values(), ids=JSON_DAMAGE.keys())
def test_json_lines_go_through_the_bounded_parser(tmp_path, line, problem):
    text = '{"item_id": "q0", "model": "a", "score": 1}\n{"item_id": "q0", "model": "b", "score": 0}\n' + line + "\n"
    path = _write(tmp_path / "long.jsonl", text)
    with pytest.raises(InputError, match=f"long.jsonl, line 3: {problem}"):
        read_scores(path)
    _cli_refuses(_audit(path), "long.jsonl, line 3: ", problem)


def test_an_input_of_unknown_kind_is_named(tmp_path):
    (tmp_path / "d.csv").mkdir()
    _cli_refuses(_audit(tmp_path / "d.csv"), "d.csv: a folder, not a file")
    _write(tmp_path / "scores", WIDE)
    _cli_refuses(_audit(tmp_path / "scores"), "scores: unknown input format")
