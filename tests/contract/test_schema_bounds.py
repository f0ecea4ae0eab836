"""The generated schemas hold what the contract knows: column ranges, no undeclared key, required keys.

Real reports of every kind (0/1 and graded scores, clusters with cluster resamples, rank resamples, accuracies with an
assumed rho) validate; a report with one value out of its declared range, an undeclared key or a missing key does not.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

import llm_power_verified as lpv
from llm_power_verified.contract import PAIR_COLUMNS, column
from llm_power_verified.contract.ranges import RANGES
from llm_power_verified.examples import shipped_example
from llm_power_verified.io import from_array
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.leaderboard.accuracies import audit_accuracies
from llm_power_verified.report import render
from llm_power_verified.report.schemas import audit_schema

ACCURACIES = Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"
VALIDATOR = jsonschema.Draft202012Validator


def _graded() -> dict:
    rng = np.random.default_rng(5)
    scores = np.clip(rng.random((300, 1)) + rng.normal(0, 0.2, (300, 4)) + [0.1, 0.05, 0.0, -0.1], 0, 1)
    clusters = np.repeat(np.arange(12), 25)
    matrix = from_array(scores, models=["w", "x", "y", "z"], clusters=clusters)
    return json.loads(
        render(
            lpv.audit_leaderboard(matrix, "all", n_resamples=40, n_cluster_resamples=30, n_rank_resamples=30), "json"
        )
    )


@pytest.fixture(scope="module")
def reports() -> dict[str, dict]:
    binary = lpv.audit_leaderboard(
        shipped_example(), "all", n_resamples=40, n_cluster_resamples=30, n_rank_resamples=30
    )
    return {
        "binary": json.loads(render(binary, "json")),
        "graded": _graded(),
        "accuracies": json.loads(render(audit_accuracies(read_accuracies(ACCURACIES), mode="all", rho=0.5), "json")),
    }


def _schema(kind: str) -> dict:
    return audit_schema("accuracies" if kind == "accuracies" else "binary+graded")


@pytest.mark.parametrize("kind", ["binary", "graded", "accuracies"])
def test_real_reports_of_every_kind_follow_the_tightened_schema(reports, kind):
    VALIDATOR(_schema(kind)).validate(reports[kind])


def test_the_ranges_name_declared_numeric_columns():
    for name, (low, high) in RANGES.items():
        assert column(name).kind in ("int", "float", "rank-bound") and column(name).range == (low, high)
        assert low is None or high is None or low < high


def _bad(document: dict, edit) -> dict:
    damaged = copy.deepcopy(document)
    edit(damaged)
    return damaged


@pytest.mark.parametrize(
    "kind, edit",
    [
        ("binary", lambda d: d["pairs"][0].update(p_exact=1.5)),  # a p-value above 1
        ("binary", lambda d: d["pairs"][0].update(p_adjusted="inf")),  # a bounded column has no infinity
        ("binary", lambda d: d["pairs"][0].update(b=-1)),  # a negative count
        ("binary", lambda d: d["pairs"][0].update(b=2.5)),  # a count that is not whole
        ("binary", lambda d: d["pairs"][0].update(rho=-1.01)),
        ("binary", lambda d: d["pairs"][0].update(design_effect=0.9)),
        ("binary", lambda d: d["pairs"][0].update(log_p_exact=0.1)),
        ("binary", lambda d: d["pairs"][0].update(made_up=1)),  # an undeclared pair key
        ("binary", lambda d: d["ranking"][0].update(rank=0)),
        ("binary", lambda d: d["ranking"][0].update(extra="x")),  # an undeclared model key
        ("binary", lambda d: d.update(extra=1)),  # an undeclared top-level key
        ("binary", lambda d: d["settings"].update(extra=1)),
        ("binary", lambda d: d.pop("checklist")),  # a missing required key
        ("binary", lambda d: d["checklist"][0].update(extra="x")),
        ("binary", lambda d: d["multiplicity"].update(extra=1)),
        ("graded", lambda d: d["pairs"][0].update(p_t=-0.1)),
        ("graded", lambda d: d["pairs"][0].update(variance=-1e-9)),
        ("accuracies", lambda d: d["pairs"][0].update(agreement_min=1.2)),
        ("accuracies", lambda d: d["pairs"][0].update(required_n_rho_min="-inf")),
        ("accuracies", lambda d: d["ranking"][0].update(accuracy=62.8)),  # a percentage where a fraction belongs
        ("accuracies", lambda d: d["verdicts"].update(extra=1)),
    ],
)
def test_a_value_out_of_its_range_or_an_undeclared_or_missing_key_is_refused(reports, kind, edit):
    VALIDATOR(_schema(kind)).validate(reports[kind])  # intact first
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR(_schema(kind)).validate(_bad(reports[kind], edit))


def test_an_open_end_keeps_its_infinity():
    # N* of a zero gap is infinite: "inf" stays valid for a column bounded below only.
    schema = audit_schema("binary+graded")["properties"]["pairs"]["items"]["properties"]["required_n"]
    VALIDATOR(schema).validate("inf")
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR(schema).validate("-inf")
    assert all(item.range is None or item.kind in ("int", "float") for item in PAIR_COLUMNS)
