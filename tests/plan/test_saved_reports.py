"""Saved audit reports planned from: checked against their own counts, parsed strictly, and the plan written as records.

Reports are written by the command line (``audit --format json`` on the shipped example, ``audit-accuracies FILE
--format json`` on the shipped accuracies, and a small graded table), one figure is changed, and ``plan report``
must refuse naming the file, the pair, the key and both values; the unchanged report plans exactly as the audit does.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import llm_power_verified as lpv
from llm_power_verified.cli import main
from llm_power_verified.examples import shipped_example
from llm_power_verified.io import InputError
from llm_power_verified.plan import plan_leaderboard, read_audit_report
from llm_power_verified.plan.report_checks import RELATIVE_TOLERANCE

ACCURACIES = Path(lpv.__file__).parent / "data" / "mmlu_pro_accuracies.csv"


def _cli(arguments: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(part) for part in arguments])
    return status, out.getvalue(), err.getvalue()


def _graded_table(path: Path) -> Path:
    rng = np.random.default_rng(11)
    base = rng.random(120)
    lines = ["item_id,topic,A,B,C"]
    for k, value in enumerate(base):
        scores = [min(1.0, max(0.0, value + shift + 0.15 * rng.standard_normal())) for shift in (0.1, 0.05, -0.1)]
        lines.append(f"q{k},{'xyz'[k % 3]}," + ",".join(f"{score:.3f}" for score in scores))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("reports")
    written = {}
    for name, arguments in {
        "per_item": ["audit", "--format", "json", "--n-resamples", "0", "--n-cluster-resamples", "0"],
        "summary": ["audit-accuracies", ACCURACIES, "--format", "json"],
        "graded": [
            "audit",
            _graded_table(folder / "graded.csv"),
            "--cluster-column",
            "topic",
            "--scores",
            "graded",
            "--format",
            "json",
            "--n-resamples",
            "0",
            "--n-cluster-resamples",
            "0",
        ],
    }.items():
        status, out, err = _cli(arguments)
        assert status == 0 and err.count("\n") <= 1, err  # the shipped example's one note at most
        written[name] = folder / f"{name}.json"
        written[name].write_text(out)
    return written


def _tampered(reports, tmp_path, name: str, edit) -> Path:
    document = json.loads(reports[name].read_text())
    edit(document)
    path = tmp_path / f"tampered_{name}.json"
    path.write_text(json.dumps(document))
    return path


def _refused(path: Path) -> str:
    status, out, err = _cli(["plan", "report", path])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err  # one line, never a traceback
    assert str(path) in err
    return err


def _scale(key: str, factor: float):
    return lambda pair: pair.update({key: pair[key] * factor})


@pytest.mark.parametrize(
    "name, index, edit, key, basis",
    [
        ("per_item", 3, _scale("required_n", 1.01), "required_n", "cells b, c, n"),
        ("per_item", 2, lambda p: p.update(b=p["b"] + 1), "n", "cells a + b + c + d"),
        ("per_item", 2, lambda p: p.update(b=p["b"] + 1, d=p["d"] - 1), "p_a", "cells (a + b) / n"),
        ("per_item", 4, lambda p: p.update(c=p["c"] + 1, d=p["d"] - 1), "p_b", "cells (a + c) / n"),
        ("per_item", 0, lambda p: p.update(rho=0.5), "rho", "phi coefficient"),
        ("per_item", 1, lambda p: p.update(design_effect=1.2), "design_effect", "size-weighted cluster size"),
        ("per_item", 1, lambda p: p.update(rank_a=p["rank_a"] + 1, rank_b=p["rank_b"] + 1), "rank_a", "ranking's rank"),
        ("per_item", 5, lambda p: p.update(n=12000), "n", "data.n_items"),
        ("per_item", 6, lambda p: p.update(delta=-p["delta"]), "delta", "cells (b - c) / n"),
        ("summary", 4, lambda p: p.update(rho_min=-0.9), "rho_min", "admissible interval"),
        ("summary", 2, _scale("rho_max", 0.99), "rho_max", "admissible interval"),
        ("summary", 0, lambda p: p.update(p_a=0.63), "p_a", "ranking's accuracy"),
        ("summary", 7, _scale("required_n_rho_min", 2), "required_n_rho_min", "accuracies at rho_min"),
        ("summary", 3, lambda p: p.update(delta=0.5), "delta", "p_a - p_b"),
        ("graded", 1, _scale("variance", 1.1), "variance", "variance_a + variance_b"),
        ("graded", 0, _scale("required_n", 0.9), "required_n", "variance and delta"),
        ("graded", 1, lambda p: p.update(delta=p["delta"] + 0.01), "delta", "p_a - p_b"),
    ],
)
def test_a_figure_that_disagrees_with_the_reports_own_counts_is_refused_by_pair_and_key(
    reports, tmp_path, name, index, edit, key, basis
):
    written = json.loads(reports[name].read_text())["pairs"][index]
    path = _tampered(reports, tmp_path, name, lambda document: edit(document["pairs"][index]))
    message = _refused(path)
    assert f"pairs[{index}] ({written['model_a']} vs {written['model_b']}).{key}: the report says " in message
    assert basis in message and "it is " in message


@pytest.mark.parametrize(
    "name, edit, fragment",
    [
        (
            "per_item",
            lambda d: d["data"].update(n_items=d["data"]["n_items"] + 1),
            "pairs[0] (calme-3.2-78b vs calme-3.1-78b).n: the report says 12032",
        ),
        ("per_item", lambda d: d["data"].update(n_models=11), "data.n_models says 11 but the ranking lists 10 models"),
        (
            "per_item",
            lambda d: d["ranking"][0].update(mean_score=0.5),
            ".p_a: the report says 0.7303025265957447, but recomputed from its own ranking",
        ),
        (
            "per_item",
            lambda d: d["clusters"].update(mean_cluster_size=0.5),
            "clusters.mean_cluster_size 0.5 is not a cluster size",
        ),
        (
            "per_item",
            lambda d: d["clusters"].update(weighted_cluster_size=0.5),
            "clusters.weighted_cluster_size 0.5 is not a cluster size",
        ),
        (
            "per_item",
            lambda d: d["clusters"].pop("weighted_cluster_size"),
            "no clusters.weighted_cluster_size (the size-weighted cluster size of its design effects), so it was "
            "written by an older "
            "version: write the report again with llm-power-verified audit --format json",
        ),
        (
            "per_item",
            lambda d: d["pairs"][0].update(a=-1),
            "pairs[0] (calme-3.2-78b vs calme-3.1-78b).a: -1 is not a count",
        ),
        (
            "summary",
            lambda d: d["data"].update(n_items=1000),
            "pairs[0] (Meta-Llama-3_1-70B-Instruct vs Meta-Llama-3_1-70B).n",
        ),
        (
            "summary",
            lambda d: d["pairs"][0].update(model_b="nobody"),
            "model_b: 'nobody' is not in the report's ranking",
        ),
        ("graded", lambda d: d["pairs"][0].pop("variance"), "pairs[0]: no 'variance'"),
    ],
)
def test_sizes_and_ranking_are_checked_against_the_pairs(reports, tmp_path, name, edit, fragment):
    assert fragment in _refused(_tampered(reports, tmp_path, name, edit))


@pytest.mark.parametrize(
    "replace, fragment",
    [
        (
            lambda text: text.replace('"n_items": 12032', '"n_items": 12032, "n_items": 12032', 1),
            "key 'n_items' appears twice in one object",
        ),
        (lambda text: re.sub(r'"rho": ?[-0-9.e]+', '"rho": NaN', text, count=1), "NaN is not a JSON value"),
        (
            lambda text: re.sub(r'"required_n": ?[-0-9.e]+', '"required_n": Infinity', text, count=1),
            "Infinity is not a JSON value",
        ),
        (lambda text: text[: len(text) // 2], "not valid JSON"),
    ],
)
def test_repeated_keys_and_non_json_numbers_are_refused(reports, tmp_path, replace, fragment):
    text = reports["per_item"].read_text()
    changed = replace(text)
    assert changed != text  # the edit found its target
    path = tmp_path / "edited.json"
    path.write_text(changed)
    assert fragment in _refused(path)


def test_the_tolerance_is_relative_and_as_stated(reports, tmp_path):
    # The report's floats round-trip exactly; a change far below the stated tolerance (1e-12 relative: a few ulps more
    # than a recomputation differs by) is not damage and plans; one above it (1e-8) is refused.
    assert RELATIVE_TOLERANCE == 1e-9
    status, _, err = _cli(
        [
            "plan",
            "report",
            _tampered(reports, tmp_path, "per_item", lambda d: _scale("required_n", 1 + 1e-12)(d["pairs"][3])),
        ]
    )
    assert status == 0 and err == ""
    _refused(_tampered(reports, tmp_path, "per_item", lambda d: _scale("required_n", 1 + 1e-8)(d["pairs"][3])))


def test_untampered_reports_plan_exactly_as_the_audit(reports):
    audit = lpv.audit_leaderboard(shipped_example(), "adjacent", n_resamples=0, n_cluster_resamples=0)
    saved = read_audit_report(reports["per_item"])
    for top in (3, 6, 10):
        # The JSON holds every float by repr (an exact round trip), so the plans agree exactly.
        assert plan_leaderboard(saved, top).required_n == plan_leaderboard(audit, top).required_n
    for name in ("per_item", "summary", "graded"):
        arguments = ["plan", "report", reports[name]] + (["--rho", "0.4"] if name == "summary" else [])
        status, out, err = _cli(arguments)
        assert status == 0 and err == "" and "N = " in out


@pytest.mark.parametrize("name, top", [("per_item", None), ("per_item", 4), ("summary", None), ("graded", None)])
def test_plan_json_writes_the_pair_plan_as_records(reports, name, top):
    arguments = ["plan", "report", reports[name], "--json"] + ([] if top is None else ["--top", str(top)])
    status, out, err = _cli(arguments)
    assert status == 0 and err == ""
    plan = json.loads(out)["plan"]
    figures = read_audit_report(reports[name])
    expected = (top or figures.n_models) - 1
    assert isinstance(plan["pairs"], list) and len(plan["pairs"]) == expected  # every row, none cut
    assert "..." not in out
    for row in plan["pairs"]:
        assert isinstance(row, dict) and {"model_a", "model_b", "delta"} <= set(row)
        required = [value for key, value in row.items() if key.startswith("required_n_")]
        assert required and all(
            value == "inf" or (isinstance(value, float) and math.isfinite(value)) for value in required
        )
    scenario = "observed" if name != "summary" else "rho_min"
    worst = max(row[f"required_n_{scenario}"] for row in plan["pairs"])
    assert plan["required_n"][scenario] == math.ceil(worst)


def test_read_audit_report_raises_input_error_naming_the_place(reports, tmp_path):
    path = _tampered(reports, tmp_path, "summary", lambda d: d["pairs"][1].update(rho_max=0.2))
    with pytest.raises(InputError, match=r"pairs\[1\] \(.+ vs .+\)\.rho_max: the report says 0\.2"):
        read_audit_report(path)


@pytest.mark.parametrize(
    "correction, reason",
    [
        ("bonferroni", "Bonferroni: alpha / m"),
        ("sidak", "Sidak: 1 - (1 - alpha)^(1/m)"),
        ("none", "alpha (no correction)"),
    ],
)
def test_a_report_is_planned_with_the_correction_it_was_written_with(tmp_path, correction, reason):
    path = tmp_path / f"{correction}.json"
    status, out, err = _cli(["audit-accuracies", ACCURACIES, "--format", "json", "--correction", correction])
    assert status == 0 and err == ""
    path.write_text(out)
    assert read_audit_report(path).correction == correction
    status, out, err = _cli(["plan", "report", path, "--top", "5"])
    assert status == 0 and err == ""
    assert f"correction {correction} (the report's settings.correction)" in out and f"({reason})" in out
    status, out, err = _cli(["plan", "report", path, "--top", "5", "--json"])
    assert json.loads(out)["plan"]["correction"] == correction


def test_plan_report_offers_no_correction_of_its_own(reports):
    status, _, err = _cli(["plan", "report", reports["summary"], "--correction", "holm"])
    assert status == 2 and "unrecognized arguments: --correction" in err


@pytest.mark.parametrize(
    "edit, fragment",
    [
        (
            lambda d: d["settings"].update(correction="tukey"),
            "settings.correction 'tukey' is not a correction this package writes",
        ),
        (lambda d: d["settings"].pop("correction"), "the report has no settings.correction"),
    ],
)
def test_a_report_whose_correction_cannot_be_told_is_refused(reports, tmp_path, edit, fragment):
    for name in ("per_item", "summary"):
        assert fragment in _refused(_tampered(reports, tmp_path, name, edit))


def test_an_observed_negative_icc_is_planned_as_zero_and_says_so(reports):
    # The shipped example's limiting pair has a slightly negative observed ICC; its trade-off is planned at 0 (the
    # paper's rule) and the output says so, where a planned --icc below 0 is refused.
    status, out, err = _cli(["plan", "report", reports["per_item"], "--json"])
    assert status == 0 and err == ""
    clusters = json.loads(out)["clusters"]
    assert clusters["icc"] < 0 and clusters["icc_planned"] == 0.0
    assert all(row["design_effect"] == 1.0 for row in clusters["table"])
    status, out, err = _cli(["plan", "report", reports["per_item"]])
    assert "counted as 0 as the paper counts a negative ICC" in out


@pytest.mark.parametrize("name", ["per_item", "graded"])
def test_an_edited_correction_is_refused(reports, tmp_path, name):
    # Attack F4: settings.correction edited alone changed the plan (466 -> 385 items) without a word.
    path = _tampered(reports, tmp_path, name, lambda document: document["settings"].update(correction="none"))
    assert "p_adjusted" in _refused(path) and "settings.correction 'none'" in _refused(path)


@pytest.mark.parametrize("name", ["per_item", "graded"])
def test_a_deleted_clusters_block_is_refused(reports, tmp_path, name):
    # Re-attack: a clustered report without its clusters block gave another clustered plan (1,013 items for 836).
    path = _tampered(reports, tmp_path, name, lambda document: document.pop("clusters"))
    assert "design effects but the report has no clusters block" in _refused(path)
