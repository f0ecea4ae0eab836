"""Names that print alike are one name (attack findings F11, F14, F13): Unicode normalisation (NFC vs NFD) and format
characters (U+200B) in accuracies tables, wide headers and long model cells; blanks around a long model cell dropped as
around a header; a header split by the other separator named as such."""

from __future__ import annotations

import numpy as np
import pytest

from llm_power_verified.cli import main
from llm_power_verified.io import InputError, read_scores
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.io.table_alignment import same_name_repeat

NFC, NFD, ZWSP = "caf\u00e9", "cafe\u0301", "m0\u200b"


def _refused(capsys, read, arguments, message):
    """``read()`` raises an InputError holding ``message``; the CLI prints it as one line with exit status 2."""
    with pytest.raises(InputError) as error:
        read()
    assert message in str(error.value)
    assert main(arguments) == 2
    captured = capsys.readouterr()
    assert (
        captured.out == ""
        and message in captured.err
        and captured.err.count("\n") == 1
        and "Traceback" not in captured.err
    )


def _scores(rows=40, models=3):
    return np.random.default_rng(5).integers(0, 2, (rows, models))


def _wide(path, names):
    scores = _scores(models=len(names))
    path.write_text(
        "item_id,"
        + ",".join(names)
        + "\n"
        + "".join(f"q{i}," + ",".join(map(str, row)) + "\n" for i, row in enumerate(scores)),
        encoding="utf-8",
    )
    return path


def _long(path, odd, first="m0"):
    """A long table of models first, m1, m2 where item q5's m1 cell is ``odd``."""
    lines = ["item_id,model,score"]
    for i, (a, b, c) in enumerate(_scores()):
        lines += [f"q{i},{first},{a}", f"q{i},{odd if i == 5 else 'm1'},{b}", f"q{i},m2,{c}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_same_name_repeat():
    assert same_name_repeat([NFC, "b", NFD]) == (0, 2, "Unicode-normalised (NFC)")
    assert same_name_repeat(["m0", "x", ZWSP]) == (0, 2, "format characters (U+200B) are dropped")
    assert same_name_repeat(["GPT-4", "gpt-4", NFC, "cafe", "m0\u2060x", "m0x\u200d"]) == (
        4,
        5,
        "format characters (U+200D, U+2060) are dropped",
    )
    # Case, and names that merely look alike under compatibility forms, stay distinct (deliberate: hostile corpus).
    assert same_name_repeat(["GPT-4", "gpt-4", "m\u00b2", "m2", "\ufb01", "fi"]) is None


@pytest.mark.parametrize(
    "names, message",
    [
        (
            (NFC, NFD),
            f"acc.csv, line 3: model {NFD!r} and {NFC!r} (line 2) are the same name once Unicode-normalised (NFC); "
            "one row per model, spelled one way",
        ),
        (
            ("m0", ZWSP),
            "acc.csv, line 3: model 'm0\\u200b' and 'm0' (line 2) are the same name once format characters (U+200B) "
            "are "
            "dropped; one row per model, spelled one way",
        ),
    ],
)
def test_accuracies_names_that_print_alike_are_refused(tmp_path, capsys, names, message):
    path = tmp_path / "acc.csv"
    path.write_text(
        f"model,accuracy,n\n{names[0]},0.62,1000\n{names[1]},0.55,1000\ngamma,0.50,1000\n", encoding="utf-8"
    )
    _refused(capsys, lambda: read_accuracies(path), ["audit-accuracies", str(path)], message)


def test_accuracies_case_distinct_names_stay_two_models(tmp_path):
    path = tmp_path / "acc.csv"
    path.write_text("model,accuracy,n\nGPT-4,0.62,1000\ngpt-4,0.55,1000\n", encoding="utf-8")
    assert read_accuracies(path).models == ("GPT-4", "gpt-4")


@pytest.mark.parametrize(
    "names, message",
    [
        (
            ("m0", ZWSP, "m2"),
            "wide.csv: columns 2 ('m0') and 3 ('m0\\u200b') are the same name once format characters (U+200B) "
            "are dropped; every model (and the item and cluster columns) must have one column, spelled one way",
        ),
        (
            (NFC, NFD, "m2"),
            f"wide.csv: columns 2 ({NFC!r}) and 3 ({NFD!r}) are the same name once Unicode-normalised (NFC)",
        ),
    ],
)
def test_wide_headers_that_print_alike_are_refused(tmp_path, capsys, names, message):
    path = _wide(tmp_path / "wide.csv", names)
    _refused(capsys, lambda: read_scores(path), ["audit", str(path), "--quiet", "--n-resamples", "0"], message)


@pytest.mark.parametrize(
    "odd, first, message",
    [
        (
            "m1\u200b",
            "m0",
            "long.csv: line 18, column 'model': model 'm1\\u200b' and 'm1' (line 3) are the same name once format "
            "characters (U+200B) are dropped; spell each model one way",
        ),
        (
            NFD,
            NFC,
            f"long.csv: line 18, column 'model': model {NFD!r} and {NFC!r} (line 2) are the same name once "
            "Unicode-normalised (NFC)",
        ),
    ],
)
def test_long_model_cells_that_print_alike_are_refused(tmp_path, capsys, odd, first, message):
    path = _long(tmp_path / "long.csv", odd, first)
    _refused(capsys, lambda: read_scores(path), ["audit", str(path), "--quiet", "--n-resamples", "0"], message)


def test_blanks_around_a_long_model_cell_are_dropped_as_around_a_header(tmp_path):
    # F13: 'm1 ' was a fourth model ("the models have no item in common ('m1' lacks 1, 'm1 ' lacks 39)").
    spaced = read_scores(_long(tmp_path / "long.csv", "m1 "))
    assert spaced.models == ("m0", "m1", "m2") and spaced.n_items == 40
    assert np.array_equal(spaced.scores, read_scores(_wide(tmp_path / "wide.csv", ["m0", "m1 ", "m2"])).scores)


@pytest.mark.parametrize(
    "name, header, message",
    [
        (
            "acc.csv",
            "model\taccuracy\tn",
            "acc.csv, line 1: the header is separated by tabs ('model\\taccuracy\\tn'); name the file "
            ".tsv, or separate the columns with commas",
        ),
        (
            "acc.csv",
            "model\taccuracy,n",
            "acc.csv, line 1: the header is separated by tabs ('model\\taccuracy,n'); name the file .tsv",
        ),
        (
            "acc.tsv",
            "model,accuracy,n",
            "acc.tsv, line 1: the header is separated by commas ('model,accuracy,n'); name the file "
            ".csv, or separate the columns with tabs",
        ),
    ],
)
def test_a_header_split_by_the_other_separator_is_named(tmp_path, capsys, name, header, message):
    # F13: "no 'model' column (columns: model accuracy n); name it with --model-column".
    separator = "\t" if "\t" in header else ","
    path = tmp_path / name
    path.write_text(
        header + "\n" + f"alpha{separator}0.62{separator}1000\nbeta{separator}0.55{separator}1000\n", encoding="utf-8"
    )
    _refused(capsys, lambda: read_accuracies(path), ["audit-accuracies", str(path)], message)


def test_a_quoted_header_name_may_hold_a_tab(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text('item_id,"tab\there",b\nq1,1,0\nq2,0,1\n', encoding="utf-8")
    assert read_scores(path).models == ("tab\there", "b")


def test_the_same_name_check_does_not_depend_on_the_order():
    # Re-attack: the ASCII name first was caught, the ASCII name second was not.
    from llm_power_verified.io.table_alignment import same_name_repeat

    assert same_name_repeat(["m0\u200b", "m0"]) == (0, 1, "format characters (U+200B) are dropped")
    assert same_name_repeat(["cafe\u0301", "b", "caf\u00e9"]) == (0, 2, "Unicode-normalised (NFC)")
    assert same_name_repeat(["m0\u00ad", "m0"]) is not None  # a soft hyphen is a format character too
