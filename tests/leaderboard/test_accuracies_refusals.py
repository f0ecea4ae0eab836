"""Accuracies tables the reader used to accept quietly or refuse with the wrong words.

These are the attack findings F3, F12, F13: a column named as percent whose values say otherwise, accuracies no whole
k out of N gives, a missing or true/false n.
"""

from __future__ import annotations

import pytest

from llm_power_verified.cli import main
from llm_power_verified.io import InputError
from llm_power_verified.io.accuracy_table import read_accuracies


def _write(tmp_path, text, name="acc.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _refused(tmp_path, capsys, text, message, name="acc.csv", **options):
    """The reader refuses with ``message`` and the CLI prints it as one line with exit status 2."""
    path = _write(tmp_path, text, name)
    with pytest.raises(InputError) as error:
        read_accuracies(path, **options)
    assert message in str(error.value)
    flags = [f"--{key.replace('_', '-')}={value}" for key, value in options.items()]
    assert main(["audit-accuracies", str(path), *flags]) == 2
    captured = capsys.readouterr()
    assert (
        captured.out == ""
        and message in captured.err
        and captured.err.count("\n") == 1
        and "Traceback" not in captured.err
    )


@pytest.mark.parametrize("column", ["accuracy (%)", "accuracy_pct"])
def test_a_fraction_among_percentages_is_refused_under_a_percent_name(tmp_path, capsys, column):
    # F3: the name switched the mixed-scale check off, and 0.50 was read as 0.5 %.
    _refused(
        tmp_path,
        capsys,
        f"model,{column},n\nalpha,62,1000\nbeta,55,1000\ngamma,0.50,1000\n",
        f"acc.csv, line 4: {column} 0.50 looks like a fraction among percentages (median 55; the column is named "
        f"{column!r}); fix the row, or force one reading with --accuracy-scale percent|fraction",
        accuracy_column=column,
    )


@pytest.mark.parametrize("column", ["accuracy (%)", "accuracy_pct"])
def test_fractions_under_a_percent_name_are_refused(tmp_path, capsys, column):
    # F3: every value in [0, 1] under a percent name was read as 0.62 %, 0.55 %, 0.5 %.
    _refused(
        tmp_path,
        capsys,
        f"model,{column},n\nalpha,0.62,1000\nbeta,0.55,1000\ngamma,0.50,1000\n",
        f"acc.csv, line 2: {column} 0.62 is the largest accuracy and every one lies in [0, 1] although the column is "
        f"named {column!r}: fractions, or percentages all under 1%? Force one reading with --accuracy-scale "
        "percent|fraction",
        accuracy_column=column,
    )


def test_the_scale_flag_decides_a_percent_name_with_fractions(tmp_path):
    path = _write(tmp_path, "model,accuracy_pct,n\nalpha,0.62,1000\nbeta,0.55,1000\ngamma,0.50,1000\n")
    fractions = read_accuracies(path, accuracy_column="accuracy_pct", scale="fraction")
    percents = read_accuracies(path, accuracy_column="accuracy_pct", scale="percent", approximate=True)
    # Decimal -> float: one rounding each, so 1e-15 relative.
    assert fractions.accuracy.tolist() == pytest.approx([0.62, 0.55, 0.50], rel=1e-15)
    assert percents.accuracy.tolist() == pytest.approx([0.0062, 0.0055, 0.0050], rel=1e-15)
    assert (
        read_accuracies(
            _write(tmp_path, "model,accuracy (%),n\na,62,1000\nb,55,1000\n"), accuracy_column="accuracy (%)"
        ).scale
        == "percent"
    )


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "model,accuracy,n\nalpha,0.6,1\nbeta,0.5,1\n",
            "acc.csv, line 2: accuracy 0.6 is not k/1 for any whole k at its printed digits (N = 1; 2 of 2 accuracies "
            "are not); "
            "check N (the 'n' column or --n) or the accuracies, or pass --approximate-accuracies if they are averages "
            "or were "
            "rounded elsewhere",
        ),
        (
            "model,accuracy,n\nalpha,0.6234,100\nbeta,0.55,100\n",
            "acc.csv, line 2: accuracy 0.6234 is not k/100 for any whole k at its printed digits (N = 100); check N",
        ),
        ("model,accuracy\nalpha,62.5%\nbeta,55.1%\n", "acc.csv, line 2: accuracy 62.5% is not k/7"),
    ],
)
def test_accuracies_no_whole_count_gives_are_refused(tmp_path, capsys, text, message):
    # F12: a note only, and the audit went on with exit status 0.
    _refused(tmp_path, capsys, text, message, **({"n": 7} if ",n\n" not in text else {}))


def test_approximate_accuracies_are_kept_with_a_note(tmp_path):
    table = read_accuracies(_write(tmp_path, "model,accuracy,n\nalpha,0.6234,100\nbeta,0.55,100\n"), approximate=True)
    assert table.consistent.tolist() == [False, True]
    assert table.notes[1] == (
        "inputs inconsistent: 1 of 2 printed accuracies are not k/100 for any whole k at their printed "
        "digits: alpha (0.6234); accepted as approximate (--approximate-accuracies)"
    )


def test_full_precision_floats_of_k_over_n_are_consistent(tmp_path):
    # A float's shortest repr is k/N's nearest double, not k/N: judged at the double's precision, never refused.
    n = 12_032
    counts = [2830, 7559, 6313, 1, n - 1]
    lines = "".join(f"m{k},{count / n!r},{n}\n" for k, count in enumerate(counts))
    table = read_accuracies(_write(tmp_path, "model,accuracy,n\n" + lines))
    assert table.count_low.tolist() == counts and table.count_high.tolist() == counts


@pytest.mark.parametrize(
    "text, name, message",
    [
        # F13: "every model needs its accuracy" for the n cell, and no --n hint.
        (
            "model,accuracy,n\nalpha,0.62,1000\nbeta,0.55,\n",
            "acc.csv",
            "acc.csv, line 3: n is missing; give every row the benchmark size, or leave the column out and give --n N",
        ),
        (
            '{"model":"a","accuracy":0.6,"n":1000}\n{"model":"b","accuracy":0.5}\n',
            "acc.jsonl",
            "acc.jsonl, line 2: n is missing; give every row the benchmark size, or leave the column out and give --n "
            "N",
        ),
        # F13: Python's True for JSON's true.
        (
            '{"model":"a","accuracy":0.6,"n":1000}\n{"model":"b","accuracy":0.5,"n":true}\n',
            "acc.jsonl",
            "acc.jsonl, line 2: n true (a true/false value) is not a number",
        ),
        (
            '{"model":"a","accuracy":false,"n":1000}\n{"model":"b","accuracy":0.5,"n":1000}\n',
            "acc.jsonl",
            "acc.jsonl, line 1: accuracy false (a true/false value) is not a number",
        ),
        (
            "model,accuracy,n\nalpha,,1000\nbeta,0.55,1000\n",
            "acc.csv",
            "acc.csv, line 2: accuracy is missing; every model needs its accuracy",
        ),
    ],
)
def test_missing_and_true_false_cells_are_named_as_written(tmp_path, capsys, text, name, message):
    _refused(tmp_path, capsys, text, message, name)
