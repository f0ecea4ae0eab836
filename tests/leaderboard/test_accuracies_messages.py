"""The accuracies-only audit's refusals of an assumed rho name the flags that set it (--rho, --rho-range)."""

from __future__ import annotations

from pathlib import Path

import pytest

import llm_power_verified as lpv
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.leaderboard.accuracies import audit_accuracies

ACCURACIES = Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"


@pytest.mark.parametrize("arguments, message", [
    ({"rho": 0.2, "rho_range": (0.0, 0.5)}, "give rho (--rho) or rho_range (--rho-range LO HI), not both"),
    ({"rho_range": (0.5, 0.2)}, "rho (--rho) or rho_range (--rho-range LO HI) must satisfy -1 <= LO <= HI <= 1; got (0.5, 0.2)"),
    ({"rho": 1.5}, "rho (--rho) or rho_range (--rho-range LO HI) must satisfy -1 <= LO <= HI <= 1; got (1.5, 1.5)"),
])
def test_assumed_rho_refusals_name_the_flags(arguments, message):
    with pytest.raises(ArgumentError) as error:
        audit_accuracies(read_accuracies(ACCURACIES), **arguments)
    assert message in str(error.value)
