"""The report: headline first, every verdict explained, fits the terminal, JSON valid against its schema.

And the CLI conventions.
"""

from __future__ import annotations

import argparse
import json
from importlib import resources

import jsonschema
import numpy as np
import pytest

import llm_power_verified as lpv
from llm_power_verified.cli.main import build_parser, main
from llm_power_verified.examples import shipped_example
from llm_power_verified.report import render

SCHEMA = json.loads((resources.files("llm_power_verified") / "report" / "audit.schema.json").read_text())
LONG_NAMES = [f"organisation-{i}/a-rather-long-model-name-instruct-v{i}.{i % 3}-preview" for i in range(28)]


@pytest.fixture(scope="module")
def shipped():
    return lpv.audit_leaderboard(shipped_example(), "adjacent", n_resamples=100, n_cluster_resamples=50)


@pytest.fixture(scope="module")
def long_names():
    rng = np.random.default_rng(1)
    scores = (rng.random((500, 28)) < np.linspace(0.8, 0.4, 28)).astype(float)
    matrix = lpv.from_array(scores, models=LONG_NAMES, clusters=[f"repository-{i % 9}" for i in range(500)])
    return lpv.audit_leaderboard(matrix, "adjacent", n_resamples=100, n_cluster_resamples=50)


def _document(result):
    return json.loads(render(result, "json"))


def test_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("mode", ["adjacent", "all", "reference"])
def test_json_report_follows_its_schema(shipped, mode):
    result = (
        shipped
        if mode == "adjacent"
        else lpv.audit_leaderboard(
            shipped_example(),
            mode,
            reference="Arcee-Blitz" if mode == "reference" else None,
            n_resamples=50,
            n_cluster_resamples=20,
        )
    )
    jsonschema.validate(_document(result), SCHEMA, cls=jsonschema.Draft202012Validator)


def test_graded_json_report_follows_its_schema():
    rng = np.random.default_rng(2)
    matrix = lpv.from_array(rng.beta(4, 2, size=(300, 4)), models=["w", "x", "y", "z"])
    jsonschema.validate(
        _document(lpv.audit_leaderboard(matrix, "all", n_resamples=50)), SCHEMA, cls=jsonschema.Draft202012Validator
    )


def test_the_schema_rejects_a_damaged_report(shipped):
    document = _document(shipped)
    for damage in (
        lambda d: d.pop("headline"),
        lambda d: d["pairs"][0].update(significant="yes"),
        lambda d: d["settings"].update(correction="fdr"),
        lambda d: d["ranking"][0].pop("rank_low"),
    ):
        damaged = json.loads(json.dumps(document))
        damage(damaged)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(damaged, SCHEMA, cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize("fixture", ["shipped", "long_names"])
def test_terminal_report_fits_100_columns_and_starts_with_the_headline(fixture, request):
    result = request.getfixturevalue(fixture)
    lines = render(result, "table", width=100).splitlines()
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    assert lines[0].startswith("Resolution audit:") and lines[2].startswith(
        f"{result.matrix.n_items:,} items x {result.matrix.n_models} models"
    )
    assert any(line.startswith("Adjacent gaps: significant") for line in lines[3:6])
    assert lines.index("Models") < lines.index("Pairs") < lines.index("Legend")


def test_long_names_become_keys_listed_in_the_model_table(long_names):
    text = render(long_names, "table", width=100)
    pairs = text.split("\nPairs\n")[1]
    assert "M1 " in pairs and LONG_NAMES[0] not in pairs
    models = text.split("\nModels\n")[1].split("\nPairs\n")[0]
    assert "key" in models.splitlines()[0]
    wide = render(long_names, "table", wide=True)
    assert LONG_NAMES[0] in wide.split("\nPairs\n")[1]
    assert LONG_NAMES[0] in render(long_names, "markdown")


def test_every_verdict_and_shown_column_is_in_the_legend(shipped):
    text = render(shipped, "table", width=300)
    legend = text.split("\nLegend\n")[1]
    for verdict in ("significant", "resolved", "significant_clustered", "significant_anytime"):
        assert f"{verdict}: " in legend
    for column in ("p_adjusted", "q", "required_n", "mde", "boot_ci"):
        assert f"({column}): " in legend
    assert "rank interval" in legend and "letters" in legend
    assert len(legend.splitlines()) == len(set(legend.splitlines()))  # once per report


def test_significant_and_resolved_are_separate_and_can_disagree(shipped):
    pairs = shipped.pairs
    assert (pairs["significant"] == (pairs["p_holm"] <= 0.05)).all()
    assert (pairs["resolved"] == (pairs["q"] >= 1)).all()
    assert (
        pairs["significant"] & ~pairs["resolved"]
    ).any()  # significant, yet the benchmark cannot reliably detect such a gap


def test_columns_choose_the_pair_table(shipped):
    text = render(shipped, "table", columns=["q", "significant"])
    header = text.split("\nPairs\n")[1].splitlines()[0].split()
    assert header == ["A", "B", "q", "signif."]
    with pytest.raises(lpv.errors.ArgumentError, match="--columns: unknown column 'nope'"):
        render(shipped, "table", columns=["nope"])


def test_fail_on_gates_with_documented_exit_codes(capsys):
    fast = ["audit", "--n-resamples", "0", "--n-cluster-resamples", "0", "--format", "json"]
    assert main(fast) == 0
    assert main([*fast, "--fail-on", "unresolved"]) == 1
    assert "gate failed: 4 of 9 adjacent pairs unresolved" in capsys.readouterr().err
    assert main([*fast, "--fail-on", "not-significant"]) == 1
    # the reference is rank 1, so its one adjacent pair is rank 1 vs 2, which is resolved (q = 7.1)
    assert main([*fast, "--mode", "reference", "--reference", "calme-3.2-78b", "--fail-on", "unresolved"]) == 0
    assert main([*fast, "--mode", "reference", "--reference", "Arcee-Blitz", "--fail-on", "unresolved"]) == 1
    assert main([*fast, "--width", "20"]) == 2


def test_version_and_help_text_everywhere(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out.startswith("llm-power-verified 0.")
    parser = build_parser()
    subparsers = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    missing = [
        f"{name} {'/'.join(action.option_strings) or action.dest}"
        for name, sub in subparsers.choices.items()
        for action in sub._actions
        if not action.help and not isinstance(action, argparse._HelpAction)
    ]
    assert not missing, missing


def test_a_pair_outside_the_declared_family_has_no_family_verdict():
    """--mode all with --family adjacent: the non-adjacent pairs get None (JSON null, "-"), not "not significant"."""
    result = lpv.audit_leaderboard(shipped_example(), "all", family="adjacent", n_resamples=0, n_cluster_resamples=0)
    pairs = result.pairs
    adjacent = (pairs["rank_b"] - pairs["rank_a"]) == 1
    for column in ("significant", "significant_anytime"):
        assert pairs.loc[~adjacent, column].isna().all() and pairs.loc[adjacent, column].notna().all()
    assert pairs.loc[adjacent, "significant"].tolist() == (pairs.loc[adjacent, "p_holm"] <= 0.05).tolist()
    document = _document(result)
    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert document["pairs"][1]["significant"] is None
    assert "Adjacent gaps: significant 6/9" in " ".join(document["headline"])
    assert " - " in render(result, "table", columns=["significant"]).split("\nPairs\n")[1]
