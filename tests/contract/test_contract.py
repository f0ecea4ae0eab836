"""The contract declares every column the audits write, and nothing they do not write.

Each column is declared with the right audits and presence.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import llm_power_verified as lpv
from llm_power_verified import contract
from llm_power_verified.examples import shipped_example
from llm_power_verified.io.accuracy_table import read_accuracies
from llm_power_verified.io.generations import Generations
from llm_power_verified.io.matrix import build_matrix
from llm_power_verified.leaderboard.accuracies import audit_accuracies
from llm_power_verified.plan import reports
from llm_power_verified.report import render

ACCURACIES = Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"


def _graded(**options):
    rng = np.random.default_rng(2)
    return lpv.audit_leaderboard(
        lpv.from_array(rng.beta(4, 2, size=(300, 4)), models=["w", "x", "y", "z"]), "all", **options
    )


def _generations():
    """Item means of 5 generations per item, with their Generations (what the repeat readers build)."""
    rng = np.random.default_rng(3)
    raw = (rng.random((200, 3, 5)) < rng.beta(2, 2, size=(200, 3, 1))).astype(float)
    generations = Generations(np.full((200, 3), 5), raw.var(axis=2, ddof=1), binary=True, label="epoch")
    matrix = build_matrix(raw.mean(axis=2), ["u", "v", "w"], [str(i) for i in range(200)], generations=generations)
    return lpv.audit_leaderboard(matrix, "all", n_resamples=0)


#: (name, audit kind, settings that turn on each ``when``, the audit): every presence condition on and off at least
#: once.
CASES = {
    "binary, clusters, every bootstrap": (
        "binary",
        {"bootstrap", "clusters", "cluster-bootstrap", "rank-bootstrap", "tiers"},
        lambda: lpv.audit_leaderboard(
            shipped_example(), "all", n_resamples=100, n_cluster_resamples=50, n_rank_resamples=50
        ),
    ),
    "binary, reference, no resamples, a gap of interest": (
        "binary",
        {"clusters", "min-effect"},
        lambda: lpv.audit_leaderboard(
            shipped_example(),
            "reference",
            reference="Arcee-Blitz",
            n_resamples=0,
            n_cluster_resamples=0,
            min_effect=0.02,
        ),
    ),
    "graded with bootstrap and a gap of interest": (
        "graded",
        {"bootstrap", "tiers", "min-effect"},
        lambda: _graded(n_resamples=50, min_effect=0.05),
    ),
    "graded, no resamples": ("graded", {"tiers"}, lambda: _graded(n_resamples=0)),
    "graded, several generations per item": ("graded", {"tiers", "generations"}, _generations),
    "accuracies, assumed rho": (
        "accuracies",
        {"assumption"},
        lambda: audit_accuracies(read_accuracies(ACCURACIES), rho_range=(0.3, 0.6)),
    ),
    "accuracies": ("accuracies", set(), lambda: audit_accuracies(read_accuracies(ACCURACIES), "all")),
}


@pytest.fixture(scope="module")
def audits():
    return {name: (kind, on, make()) for name, (kind, on, make) in CASES.items()}


def _kind(series: pd.Series) -> set[str]:
    """The contract kinds a column's values allow."""
    if pd.api.types.is_bool_dtype(series):
        return {"bool", "decision"}
    if pd.api.types.is_integer_dtype(series):
        # A rank bound is an integer, or missing (pandas' Int64) where it was not computed.
        return {"int", "rank-bound"}
    if pd.api.types.is_float_dtype(series):
        return {"float"}
    values = set(series.dropna())
    if all(isinstance(value, (bool, np.bool_)) for value in values):
        return {"decision"}
    return {"verdict"} if values <= set(contract.VERDICT_KINDS) else {"text"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_column_an_audit_writes_is_declared_for_it_with_its_presence(audits, case):
    kind, on, audit = audits[case]
    for table, declared in ((audit.pairs, contract.pair_columns(kind)), (audit.ranking, contract.model_columns(kind))):
        names = list(table.columns)
        undeclared = [name for name in names if name not in {item.name for item in declared}]
        assert not undeclared, f"{case}: {undeclared} written but not declared for {kind} in contract/columns.py"
        for item in declared:
            if item.when == "text-tables":
                continue  # the text tables' model key: checked in test_no_declaration_goes_unused
            expected = item.when is None or item.when in on
            assert (item.name in names) == expected, (
                f"{case}: {item.name} (when {item.when}) present {item.name in names}"
            )
        for name, values in zip(names, (table[column] for column in table.columns), strict=True):
            assert contract.column(name).kind in _kind(values), (
                f"{case}: {name} holds {values.dtype}, declared {contract.column(name).kind}"
            )


def test_no_declaration_goes_unused(audits):
    written = {name for _, _, audit in audits.values() for table in (audit.pairs, audit.ranking) for name in table}
    long_names = lpv.from_array(
        np.eye(3, dtype=float).repeat(20, axis=0), models=[f"organisation/a-long-model-name-{i}" for i in range(3)]
    )
    assert (
        "key"
        in render(lpv.audit_leaderboard(long_names, n_resamples=0), "table").split("\nModels\n")[1].splitlines()[0]
    )
    written |= {"key"}  # key: the text tables' model key, checked just above
    unused = [item.name for item in contract.PAIR_COLUMNS + contract.MODEL_COLUMNS if item.name not in written]
    assert not unused, f"declared but written by no audit: {unused}"


def test_the_contract_imports_only_the_standard_library():
    code = "import sys, llm_power_verified.contract; print(sorted({'numpy', 'pandas', 'scipy'} & set(sys.modules)))"
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == "[]" and not completed.stderr


def test_declarations_are_well_formed():
    items = contract.PAIR_COLUMNS + contract.MODEL_COLUMNS
    assert len({item.name for item in items}) == len(items)
    for item in items:
        assert item.kind in contract.KINDS and item.audits and item.audits <= set(contract.AUDITS), item
        assert item.when is None or item.when in contract.WHEN, item
        assert (item.digits is not None) == (item.kind in ("int", "float")), item
        assert item.meaning and item.meaning == item.meaning.strip(), item
    for name, rule in contract.VERDICT_RULES.items():
        assert contract.column(name).meaning == rule
    assert {f"p_{name}" for name in contract.ADJUSTMENTS} <= {item.name for item in contract.PAIR_COLUMNS}
    assert contract.CORRECTIONS[-1] == "none" and contract.CORRECTIONS[:-1] == contract.ADJUSTMENTS
    assert set(contract.ACCURACY_MODES) <= set(contract.MODES) and set(contract.TEXT_FORMATS) <= set(contract.FORMATS)


def test_views_name_declared_columns():
    composites = contract.COMPOSITES
    for name in (
        contract.BINARY_VIEW
        + contract.GRADED_VIEW
        + contract.ACCURACIES_VIEW
        + contract.ASSUMED_VIEW
        + contract.DROP_ORDER
    ):
        assert name in composites or contract.column(name)
    for composite in composites.values():
        assert all(contract.column(part) for part in composite.parts)
    assert set(contract.COLUMN_CHOICES) == set(contract.BINARY_VIEW) | set(contract.GRADED_VIEW)
    assert [contract.header(name) for name in ("p_adjusted", "boot_ci", "rho_interval")] == [
        "p adj",
        "boot CI",
        "admissible rho",
    ]


def test_helpers_order_and_define():
    assert contract.ordered(["n", "model", "delta", "model_a"]) == ["model_a", "delta", "n", "model"]
    assert list(contract.legend(["q", "rho"])) == ["q", "rho"]
    assert contract.legend(["q"])["q"] == "resolution ratio N / N*"
    with pytest.raises(ValueError, match="'nope' is not declared"):
        contract.column("nope")
    with pytest.raises(ValueError, match="audit_kind must be one of"):
        contract.pair_columns("ternary")


def test_the_plan_reads_declared_columns_of_the_report_it_reads():
    for schema, needed in reports._NEEDED.items():
        kinds = {"binary", "graded"} if schema == contract.SCHEMA_IDS["binary+graded"] else {"accuracies"}
        for name in needed + (reports._COUNTS[True] + reports._COUNTS[False] if "binary" in kinds else ()):
            assert kinds & contract.column(name).audits, (schema, name)
    assert all(contract.column(name) for name in reports._OPTIONAL)
