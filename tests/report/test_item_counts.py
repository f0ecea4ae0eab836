"""A required sample size printed as a whole number is its ceiling: the items it takes, as the headline and plan say.

The defect this guards: the pair table printed N* = 1,342.16 as "1,342" (nearest) beside the headline's "1,343 items",
and large N* in scientific notation ("2.727e+06").  Here every required-N cell of the text report is the ceiling, and
no pair shows an N* below the headline's figure for the limiting pair.  Item counts are integers, compared exactly.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from pathlib import Path

import pytest

from llm_power_verified.cli import main
from llm_power_verified.report.cells import cell, item_count

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LM_EVAL = [str(path) for path in sorted((FIXTURES / "lm_eval" / "hashlm").glob("model-*"))]
CASES = {
    "shipped": [],
    "lm-eval": [*LM_EVAL, "--task", "arith_gen", "--metric", "exact_match", "--filter", "strict-match"],
}


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_pair_shows_an_n_star_below_the_headline_items(case):
    status, text, _ = _cli(
        [
            "audit",
            *CASES[case],
            "--n-resamples",
            "0",
            "--n-cluster-resamples",
            "0",
            "--mode",
            "adjacent",
            "--columns",
            "required_n",
        ]
    )
    assert status == 0
    headline = re.search(r"N that would resolve every adjacent gap: ([\d,]+) items", re.sub(r"\s+", " ", text))
    assert headline is not None
    table = text.split("\nPairs\n", 1)[1].split("\n\n", 1)[0].splitlines()
    cells = [line.split()[-1] for line in table[1:] if line.strip() and not line.startswith("(")]
    assert cells and all(re.fullmatch(r"[\d,]+|inf", value) for value in cells), cells
    assert max(int(value.replace(",", "")) for value in cells if value != "inf") == int(
        headline.group(1).replace(",", "")
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (1342.158, "1,343"),
        (23.08, "24"),
        (2727353.2, "2,727,354"),
        (1711.0, "1,711"),
        (math.inf, "inf"),
        (math.nan, "-"),
    ],
)
def test_a_required_n_prints_as_its_ceiling(value, shown):
    assert item_count(value) == shown
    assert cell({"required_n": value}, "required_n") == shown
    assert cell({"required_n_anytime": value}, "required_n_anytime") == shown
