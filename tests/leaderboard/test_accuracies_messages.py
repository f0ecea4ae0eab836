"""The accuracies-only audit's refusals of an assumed rho name the flags that set it (--rho, --rho-range)."""

from __future__ import annotations

from pathlib import Path

import pytest

import llm_power_verified as lpv
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.leaderboard.accuracies import audit_accuracies

ACCURACIES = Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"rho": 0.2, "rho_range": (0.0, 0.5)}, "give rho (--rho) or rho_range (--rho-range LO HI), not both"),
        (
            {"rho_range": (0.5, 0.2)},
            "rho (--rho) or rho_range (--rho-range LO HI) must satisfy -1 <= LO <= HI <= 1; got (0.5, 0.2)",
        ),
        ({"rho": 1.5}, "rho (--rho) or rho_range (--rho-range LO HI) must satisfy -1 <= LO <= HI <= 1; got (1.5, 1.5)"),
    ],
)
def test_assumed_rho_refusals_name_the_flags(arguments, message):
    with pytest.raises(ArgumentError) as error:
        audit_accuracies(read_accuracies(ACCURACIES), **arguments)
    assert message in str(error.value)


@pytest.mark.parametrize(
    "text, note",
    [
        (
            "model,accuracy\na,0.71\nb,0.70\nc,0.5\n",
            "fractions: every accuracy lies in [0, 1] (median 0.70, largest 0.71); --accuracy-scale percent reads "
            "them as percentages",
        ),
        (
            "model,accuracy\na,71.0\nb,70.0\nc,50\n",
            "percentages: the median accuracy, 70.0, and the largest, 71.0, exceed 1; --accuracy-scale fraction reads "
            "them otherwise",
        ),
        (
            "model,accuracy\na,71%\nb,0.5%\n",
            "percentages: every accuracy carries a % sign (median 71, largest 71); --accuracy-scale fraction reads "
            "them otherwise",
        ),
        (
            "model,acc_pct\na,90\nb,80\n",
            "percentages: the column is named 'acc_pct' (median 90, largest 90); --accuracy-scale fraction reads them "
            "otherwise",
        ),
    ],
)
def test_the_scale_note_says_what_it_saw_and_the_flag_that_overrides_it(tmp_path, text, note):
    # The note used to give the largest value alone ("the largest accuracy, 71.0, exceeds 1") and no flag.
    path = tmp_path / "accuracies.csv"
    path.write_text(text)
    column = "acc_pct" if "acc_pct" in text else "accuracy"
    assert read_accuracies(path, n=1000, accuracy_column=column).notes[0] == f"accuracies read as {note}"
