"""The parameter glossary (README, "Parameter glossary") holds over every public signature and result.

Read from the live package: every public function and class of every room
(the names in each module's ``__all__``).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import pytest

import llm_power_verified as lpv
from llm_power_verified.errors import ArgumentError
from llm_power_verified.examples import shipped_example
from llm_power_verified.results import Result

#: Names the glossary retired, and what replaced them.
RETIRED = {
    "n_bootstrap": "n_resamples",
    "cluster_bootstrap": "n_cluster_resamples",
    "draws": "n_resamples",
    "bootstrap_draws": "n_resamples",
    "replicates": "n_simulations",
    "trials": "n_simulations",
    "two_sided": "two_sided_rule or alternative",
    "n11": "a",
    "n10": "b",
    "n01": "c",
    "n00": "d",
    "both": "a",
    "only_a": "b",
    "only_b": "c",
}
ALTERNATIVES = ("two-sided", "larger", "smaller")


def _public_objects():
    for info in pkgutil.walk_packages(lpv.__path__, "llm_power_verified."):
        if "._generated" in info.name or info.name.rsplit(".", 1)[-1].startswith("_") or ".cli" in info.name:
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if getattr(value, "__module__", None) == info.name and (
                inspect.isfunction(value) or inspect.isclass(value)
            ):
                yield f"{info.name}.{name}", value


PUBLIC = dict(_public_objects())
FUNCTIONS = {name: value for name, value in PUBLIC.items() if inspect.isfunction(value)}
# The contract's dataclasses (Column, Field, Composite) declare outputs; they are not results a computation returns.
RESULTS = {
    name: value
    for name, value in PUBLIC.items()
    if inspect.isclass(value)
    and dataclasses.is_dataclass(value)
    and not name.startswith("llm_power_verified.contract.")
    and name != "llm_power_verified.leaderboard.request.AuditRequest"
}  # the inputs of an audit not yet run, not a result


def _parameters(value):
    try:
        return inspect.signature(value).parameters
    except (TypeError, ValueError):
        return {}


def test_the_survey_sees_the_package():
    assert len(FUNCTIONS) > 100 and len(RESULTS) >= 15


def test_no_public_signature_uses_a_retired_name():
    problems = [
        f"{name}({parameter}=): use {RETIRED[parameter]}"
        for name, value in PUBLIC.items()
        for parameter in _parameters(value)
        if parameter in RETIRED
    ]
    problems += [
        f"{name}.{field.name}: use {RETIRED[field.name]}"
        for name, value in RESULTS.items()
        for field in dataclasses.fields(value)
        if field.name in RETIRED
    ]
    assert not problems, "\n".join(problems)


def test_rho_is_always_the_correlation():
    """``rho`` names the within-pair correlation only; the confidence sequence's tuning constant has another name."""
    fields = {f"{name}.{field.name}" for name, value in RESULTS.items() for field in dataclasses.fields(value)}
    assert "llm_power_verified.sequential.confidence.ConfidenceSequence.mixture_scale" in fields
    assert not any(name.endswith("ConfidenceSequence.rho") for name in fields)
    assert "rho" not in inspect.signature(lpv.confidence_sequence).parameters


@pytest.mark.parametrize("parameter, default", [("alpha", 0.05), ("power", 0.8), ("alternative", "two-sided")])
def test_shared_parameters_share_their_defaults(parameter, default):
    problems = []
    for name, value in PUBLIC.items():
        found = _parameters(value).get(parameter)
        if found is not None and found.default is not inspect.Parameter.empty and found.default != default:
            problems.append(f"{name}: {parameter} = {found.default!r}")
    assert not problems, "\n".join(problems)


def test_alternative_takes_the_same_three_values_everywhere():
    """Functions with ``alternative`` accept the three values and refuse another with the one message naming them."""
    calls = {
        "mcnemar_exact": lambda alternative: lpv.mcnemar_exact(3, 9, alternative=alternative),
        "mcnemar_midp": lambda alternative: lpv.mcnemar_midp(3, 9, alternative=alternative),
        "mcnemar_chi2": lambda alternative: lpv.mcnemar_chi2(3, 9, alternative=alternative),
        "required_n_paired_binary": lambda alternative: lpv.required_n_paired_binary(
            0.65, 0.6, 0.3, alternative=alternative
        ),
        "required_n_paired_t": lambda alternative: lpv.required_n_paired_t(0.3, 1.0, alternative=alternative),
    }
    for call in calls.values():
        for alternative in ALTERNATIVES:
            call(alternative)
        with pytest.raises(ArgumentError, match="alternative must be one of 'two-sided', 'larger', 'smaller'"):
            call("greater")


def test_method_names_a_test_variant_only():
    """``method`` picks a test or calculation variant only.

    Bootstrap intervals and multiplicity corrections have their own names.
    """
    for name in ("paired_bootstrap", "paired_bootstrap_counts", "adjust_pvalues", "required_n_inflation"):
        assert "method" not in inspect.signature(getattr(lpv, name)).parameters, name
    assert "interval" in inspect.signature(lpv.paired_bootstrap).parameters
    assert "correction" in inspect.signature(lpv.adjust_pvalues).parameters


@pytest.mark.parametrize(
    "call, old",
    [
        (lambda **k: lpv.mcnemar_midp(5, 5, **k), {"two_sided": "no-more-likely"}),
        (lambda **k: lpv.mcnemar_exact(3, 9, **k), {"two_sided": "no-more-likely"}),
        (lambda **k: lpv.correlation_from_counts(**k), {"n11": 40, "n10": 10, "n01": 5, "n00": 45}),
        (lambda **k: lpv.adjust_pvalues([0.01, 0.2, 0.03], **k), {"method": "bh"}),
        (lambda **k: lpv.required_n_inflation(10, **k), {"method": "sidak"}),
        (lambda **k: lpv.paired_bootstrap_counts(30, 20, 200, seed=1, **k), {"method": "bca"}),
        (lambda **k: lpv.confidence_sequence([1, 0, -1, 1] * 20, **k), {"rho": 50.0}),
    ],
)
def test_a_retired_name_is_an_unknown_keyword(call, old):
    """0.1.0 was never released: the glossary names are the only ones, with no alias for an old name."""
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{next(iter(old))}'"):
        call(**old)


def test_results_are_frozen_typed_and_summarised():
    problems = []
    for name, value in RESULTS.items():
        if not issubclass(value, Result):
            problems.append(f"{name} is not a Result (no short repr, no to_dict)")
        if not value.__dataclass_params__.frozen:
            problems.append(f"{name} is not frozen")
        untyped = [field.name for field in dataclasses.fields(value) if field.type in ("dict", "list", "Any", "object")]
        if untyped:
            problems.append(f"{name} has untyped fields {untyped}")
    assert not problems, "\n".join(problems)


def test_every_public_function_declares_its_return_type():
    missing = [name for name, value in FUNCTIONS.items() if "return" not in value.__annotations__]
    assert not missing, "\n".join(missing)


def test_top_level_functions_carry_formula_source_and_example():
    """Every function the top level exports has Notes (the formula), References (the source) and a doctest."""
    problems = []
    for name in lpv.__all__:
        value = getattr(lpv, name)
        if inspect.isclass(value):
            continue
        doc = inspect.getdoc(value) or ""
        problems += [
            f"{name}: no {section}"
            for section, marker in (
                ("Notes", "Notes\n-----"),
                ("References", "References\n----------"),
                ("doctest", ">>> "),
            )
            if marker not in doc
        ]
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def shipped_audit():
    return lpv.audit_leaderboard(shipped_example(), "adjacent", n_resamples=0, n_cluster_resamples=0)


def test_audit_result_prints_one_short_line(shipped_audit):
    text = repr(shipped_audit)
    assert "\n" not in text and len(text) < 600, len(text)
    assert text.startswith("AuditResult(matrix=ScoreMatrix(12032 items x 10 models")
    document = shipped_audit.to_dict()
    assert document["verdicts"]["fixed-n"] == shipped_audit.verdicts.fixed_n
    assert document["verdicts"]["benjamini-hochberg"] == shipped_audit.verdicts.benjamini_hochberg
    assert isinstance(document["multiplicity"]["inflation"]["bonferroni"], float)
    assert document["pairs"] is shipped_audit.pairs
    assert [bucket["bucket"] for bucket in document["by_gap"]] == [bucket.bucket for bucket in shipped_audit.by_gap]


def test_correction_is_always_the_multiplicity_correction():
    """``correction`` names the multiplicity correction only; McNemar's continuity correction is ``continuity``."""
    from llm_power_verified.contract import CORRECTIONS

    # None is a default only where it means "the audit's own correction" (a plan made from an audit), never "none".
    inherits = {"llm_power_verified.plan.targets.plan_leaderboard"}
    problems = [
        f"{name}: correction = {found.default!r}"
        for name, value in PUBLIC.items()
        if (found := _parameters(value).get("correction")) is not None
        and found.default is not inspect.Parameter.empty
        and found.default not in CORRECTIONS
        and not (found.default is None and name in inherits)
    ]
    assert not problems, "\n".join(problems)
    assert "continuity" in inspect.signature(lpv.mcnemar_chi2).parameters
