"""``plan --anytime`` monitors at the declared family's level, and ``plan --json`` gives item counts as integers.

The defects this guards: ``plan gap --family-size 9 --anytime`` planned the fixed-n test at alpha/9 but the monitored
test at e >= 1/alpha (a single comparison), so the two stopping figures answered different questions; and
``"items": 1711.0``.  In a family of m the monitored test stops at e >= m/alpha (Bonferroni on e-values); JSON
``anytime.alpha`` carries the level used.  Levels are compared to 1e-15 relative (alpha / m in floating point).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import pytest

import llm_power_verified
from llm_power_verified.cli import main

DATA = Path(llm_power_verified.__file__).parent / "data"
SHIPPED = str(DATA / "mmlu_pro_top10.csv.gz")
GAP = ["plan", "gap", "--p-a", "0.65", "--p-b", "0.60", "--rho", "0.30", "--anytime"]


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("options", "level", "threshold"),
    [
        (["--family-size", "9"], 0.05 / 9, "e >= 180: m/alpha, Bonferroni on the e-values over the family of 9"),
        (["--family-size", "45", "--correction", "bonferroni"], 0.05 / 45, "e >= 900: m/alpha"),
        (["--family-size", "9", "--correction", "none"], 0.05, "e >= 20: 1/alpha"),
        ([], 0.05, "e >= 20: 1/alpha, each comparison at alpha"),
    ],
)
def test_the_monitored_test_stops_at_the_family_level(options, level, threshold):
    status, text, _ = _cli([*GAP, *options])
    assert status == 0 and threshold in text
    status, out, _ = _cli([*GAP, *options, "--json"])
    document = json.loads(out)
    assert status == 0
    assert math.isclose(document["anytime"]["alpha"], level, rel_tol=1e-15)
    assert isinstance(document["plan"]["items"], int)


def test_a_bigger_family_monitors_longer():
    single = json.loads(_cli([*GAP, "--json"])[1])["anytime"]
    family = json.loads(_cli([*GAP, "--family-size", "9", "--json"])[1])["anytime"]
    assert family["expected_n"] > single["expected_n"]


def test_plan_report_monitors_at_the_reports_family_level(tmp_path):
    report = tmp_path / "audit.json"
    assert (
        _cli(["audit", "--n-resamples", "0", "--n-cluster-resamples", "0", "--format", "json", "--out", str(report)])[0]
        == 0
    )
    status, out, _ = _cli(["plan", "report", str(report), "--anytime", "--json"])
    document = json.loads(out)
    assert status == 0 and document["plan"]["family_size"] == 9
    assert math.isclose(document["anytime"]["alpha"], document["plan"]["level"], rel_tol=1e-15)
    assert all(isinstance(value, int) for value in document["plan"]["required_n"].values())


@pytest.mark.parametrize(
    ("correction", "level"), [("holm", 0.05 / 9), ("sidak", 0.05 / 9), ("bonferroni", 0.05 / 9), ("none", 0.05)]
)
def test_plan_items_monitors_at_the_family_level_whatever_the_correction(correction, level):
    """Per-item plans: the monitored test stops at e >= m/alpha (Bonferroni on e-values; Sidak's level needs
    independence, so it is not used for e-values), or 1/alpha with no correction."""
    argv = ["plan", "items", SHIPPED, "--cluster-column", "random_category", "--correction", correction, "--anytime"]
    status, out, _ = _cli([*argv, "--horizon", "2000", "--json"])
    document = json.loads(out)
    assert status == 0 and document["plan"]["family_size"] == 9
    assert math.isclose(document["anytime"]["alpha"], level, rel_tol=1e-15)
    status, text, _ = _cli([*argv, "--horizon", "2000"])
    assert status == 0 and f"stop at e >= {1 / level:g}" in text


def test_plan_accuracies_monitors_at_the_family_level():
    argv = ["plan", "accuracies", str(DATA / "mmlu_pro_accuracies.csv"), "--top", "4", "--rho", "0.5", "--anytime"]
    status, text, _ = _cli(argv)
    assert status == 0 and "stop at e >= 60: m/alpha" in text
    document = json.loads(_cli([*argv, "--json"])[1])
    assert document["plan"]["family_size"] == 3
    assert math.isclose(document["anytime"]["alpha"], 0.05 / 3, rel_tol=1e-15)
