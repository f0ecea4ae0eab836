"""``compare``: the interval and p-values behind each method, their duality with the verdict, the power and N of an
inconclusive comparison, the anytime variant, the refusals and the record's schema."""

from __future__ import annotations

import dataclasses
import json
from importlib import resources

import jsonschema
import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.weightstats import ttost_paired

from llm_power_verified.comparison import TESTS, Comparison, compare
from llm_power_verified.comparison.planning import power_and_n_binary, power_and_n_graded
from llm_power_verified.comparison.record import record
from llm_power_verified.contract.documents import COMPARE_RECORD
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.margin import margin_score_interval
from llm_power_verified.io import from_array

SCHEMA = json.loads((resources.files("llm_power_verified") / "report" / "compare.schema.json").read_text())
#: Items of the constructed binary pairs.
N = 3000


def _binary(seed: int, only_candidate: float, only_baseline: float, n: int = N):
    """A two-model 0/1 matrix (baseline, candidate) with the given discordant shares, items shuffled."""
    rng = np.random.default_rng(seed)
    cell = rng.choice(4, size=n, p=[0.5, only_candidate, only_baseline, 0.5 - only_candidate - only_baseline])
    candidate = np.isin(cell, (0, 1)).astype(float)
    baseline = np.isin(cell, (0, 2)).astype(float)
    return from_array(np.column_stack([baseline, candidate]), models=["base", "cand"])


def _graded(seed: int, shift: float, n: int = 400):
    rng = np.random.default_rng(seed)
    baseline = rng.uniform(0.2, 0.8, n)
    candidate = np.clip(baseline + shift + rng.normal(0, 0.1, n), 0, 1)
    return from_array(np.column_stack([baseline, candidate]), models=["base", "cand"], score_kind="graded")


def test_the_result_holds_the_record_keys_in_order():
    names = [item.name for item in dataclasses.fields(Comparison)]
    declared = [item.name for item in COMPARE_RECORD if item.name not in ("inputs", "inconclusive_as", "exit_code")]
    assert names == declared


def test_binary_interval_is_tangos_at_one_minus_two_alpha():
    result = compare(_binary(1, 0.12, 0.10), "base", "cand", "non-inferiority", 0.02, alpha=0.025)
    low, high = margin_score_interval(result.candidate_only, result.baseline_only, N, 0.95)
    assert (result.interval_low, result.interval_high) == (low, high)
    assert result.confidence == pytest.approx(0.95, abs=1e-15)  # 1 - 2 alpha, one rounding
    assert result.difference == pytest.approx((result.candidate_only - result.baseline_only) / N, rel=1e-15)


@pytest.mark.parametrize("test", TESTS)
def test_binary_verdicts_are_dual_to_the_one_sided_score_tests(test):
    """Pass exactly when the one-sided p-values behind it are below alpha; fail when the opposite's are."""
    seen = set()
    for seed in range(40):
        rng = np.random.default_rng(seed)
        shares = rng.uniform(0.02, 0.2, 2)
        result = compare(_binary(seed, *shares), "base", "cand", test, 0.02)
        p_low, p_high = result.p_low, result.p_high
        if min(abs(p_low - 0.05), abs(p_high - 0.05)) < 1e-9:
            continue  # on the boundary the two are equal only to the root-finder's tolerance
        seen.add(result.verdict)
        if test == "equivalence":
            assert (result.verdict == "pass") == (max(p_low, p_high) < 0.05)
        else:
            assert (result.verdict == "pass") == (p_low < 0.05)
            assert (result.verdict == "fail") == (p_high <= 0.05)
    assert len(seen) >= 2  # the tables reach more than one verdict


@pytest.mark.parametrize(("shift", "low", "high"), [(0.01, -0.02, 0.02), (-0.03, -0.05, 0.05)])
def test_graded_t_equals_statsmodels_ttost_paired(shift, low, high):
    """Two one-sided paired t tests: statsmodels' ttost_paired is an independent implementation."""
    matrix = _graded(3, shift)
    candidate, baseline = matrix.scores[:, 1], matrix.scores[:, 0]
    result = compare(matrix, "base", "cand", "equivalence", high)
    _, (_, p_lower, _), (_, p_upper, _) = ttost_paired(candidate, baseline, low, high)
    # Both evaluate the same t cdf at the same statistic: agreement to a few roundings.
    assert result.p_low == pytest.approx(p_lower, rel=1e-10)
    assert result.p_high == pytest.approx(p_upper, rel=1e-10)
    interval = stats.ttest_rel(candidate, baseline).confidence_interval(0.9)
    assert (result.interval_low, result.interval_high) == pytest.approx((interval.low, interval.high), rel=1e-12)
    assert result.method == "t" and result.both_correct is None


def test_bootstrap_is_reproducible_and_its_p_values_side_with_the_interval():
    matrix = _graded(5, 0.015)
    first = compare(matrix, "base", "cand", "non-inferiority", 0.01, method="bootstrap", n_resamples=2000, seed=9)
    again = compare(matrix, "base", "cand", "non-inferiority", 0.01, method="bootstrap", n_resamples=2000, seed=9)
    other = compare(matrix, "base", "cand", "non-inferiority", 0.01, method="bootstrap", n_resamples=2000, seed=10)
    assert first == again and first.interval_low != other.interval_low
    assert first.verdict == "pass" and first.p_low < 0.05 and first.p_high > 0.95
    assert first.interval_low < first.difference < first.interval_high
    assert (first.seed, first.n_resamples) == (9, 2000)


@pytest.mark.parametrize(
    ("test", "shares"),
    [("superiority", (0.11, 0.10)), ("non-inferiority", (0.10, 0.11)), ("equivalence", (0.11, 0.10))],
)
def test_the_n_to_decide_gives_the_target_power_back(test, shares):
    """Round trip: at N = n_to_decide, with the same observed shares, the decision has the target power."""
    result = compare(_binary(7, *shares), "base", "cand", test, 0.02 if test != "superiority" else 0.0)
    b, c, n = result.candidate_only, result.baseline_only, result.n_items
    _, needed = power_and_n_binary(test, result.margin, b, c, n, 0.05, 0.8)
    if result.verdict == "inconclusive":
        assert result.n_to_decide == needed
    scale = needed / n
    power, _ = power_and_n_binary(test, result.margin, b * scale, c * scale, n * scale, 0.05, 0.8)
    assert power == pytest.approx(0.8, abs=1e-8)  # the N is solved to far below this


@pytest.mark.parametrize("test", TESTS)
def test_the_graded_n_to_decide_gives_the_target_power_back(test):
    result = compare(_graded(11, 0.004), "base", "cand", test, 0.02 if test != "superiority" else 0.0)
    mean, sd = result.difference, result.sd_difference
    _, needed = power_and_n_graded(test, result.margin, mean, sd, result.n_items, 0.05, 0.8)
    power, _ = power_and_n_graded(test, result.margin, mean, sd, needed, 0.05, 0.8)
    assert power == pytest.approx(0.8, abs=1e-6)  # brentq's and the noncentral t solver's tolerance


@pytest.mark.parametrize(
    ("shares", "test", "margin", "outcome"),
    [
        ((0.16, 0.08), "superiority", 0.0, "pass"),
        ((0.08, 0.16), "non-inferiority", 0.02, "fail"),
        ((0.11, 0.10), "superiority", 0.0, "inconclusive"),
    ],
)
def test_observed_power_and_n_to_decide_are_filled_for_an_inconclusive_verdict_only(shares, test, margin, outcome):
    """Observed (post-hoc) power restates the p-values: reported where the verdict leaves the question open only."""
    result = compare(_binary(3, *shares), "base", "cand", test, margin)
    assert result.verdict == outcome
    filled = (result.power_at_observed_gap is not None, result.n_to_decide is not None)
    assert filled == ((True, True) if outcome == "inconclusive" else (False, False))
    document = record(result)
    assert ("power_at_margin" not in document) and ("decisive_n" not in document)


def test_a_gap_on_the_boundary_has_no_n_to_decide():
    matrix = from_array(np.array([[1, 0], [0, 1]] * 50, dtype=float), models=["base", "cand"])
    result = compare(matrix, "base", "cand")
    assert result.difference == 0 and result.verdict == "inconclusive"
    assert result.power_at_observed_gap is None and result.n_to_decide is None


def test_anytime_decides_where_its_running_interval_first_does():
    matrix = _binary(2, 0.16, 0.08, n=4000)
    result = compare(matrix, "base", "cand", "superiority", 0.0, anytime=True)
    assert result.verdict == "pass" and result.method == "betting" and result.confidence == 0.95
    assert result.p_low is None and result.n_to_decide is None
    prefix = from_array(matrix.scores[: result.decided_at], models=["base", "cand"])
    assert compare(prefix, "base", "cand", anytime=True).verdict == "pass"
    fixed = compare(matrix, "base", "cand")
    # The time-uniform sequence at alpha is wider than the fixed-N interval at 1 - 2 alpha.
    assert result.interval_low < fixed.interval_low and result.interval_high > fixed.interval_high


def test_anytime_passes_a_true_boundary_gap_at_most_at_rate_alpha():
    """Non-inferiority with the true gap exactly -m: a pass is an error; its rate over seeded paths stays <= alpha."""
    rng = np.random.default_rng(2026)
    paths, n, margin = 120, 1500, 0.05
    errors = 0
    for _ in range(paths):
        cell = rng.choice(3, size=n, p=[0.10, 0.15, 0.75])  # p10 - p01 = -0.05 = -m
        matrix = from_array(np.column_stack([(cell == 1), (cell == 0)]).astype(float), models=["base", "cand"])
        errors += compare(matrix, "base", "cand", "non-inferiority", margin, anytime=True).verdict == "pass"
    # P(Binomial(120, 0.05) >= 14) < 0.002: a valid test fails this about once in 500 seeds.
    assert errors < 14, errors


def test_model_names_are_checked():
    matrix = _binary(1, 0.1, 0.1)
    with pytest.raises(
        ArgumentError, match=r"--candidate 'other' is no model of the input; it holds 2: 'base', 'cand'"
    ):
        compare(matrix, "base", "other")
    with pytest.raises(ArgumentError, match="both name 'base'"):
        compare(matrix, "base", "base")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"alpha": 0.5}, r"--alpha 0.5 must lie in \(0, 0.5\)"),
        ({"alpha": 1e-20}, "rounds to 1 in floating point; give --alpha of at least 1e-15"),
        ({"alpha": 1e-20, "anytime": True}, "rounds to 1 in floating point"),
        ({"power": 1.0}, r"--power 1.0 must lie in \(0, 1\)"),
        ({"method": "t"}, "--method 't' does not apply to binary scores; choose from score, bootstrap"),
        ({"method": "betting"}, "betting is --anytime's"),
        ({"method": "score", "anytime": True}, "the anytime variant is a betting confidence sequence"),
        ({"test": "equivalence"}, r"--margin 0.0: the equivalence test takes a margin in \(0, 1\)"),
    ],
)
def test_settings_outside_what_is_allowed_are_refused(options, message):
    with pytest.raises(ArgumentError, match=message):
        compare(_binary(1, 0.1, 0.1), "base", "cand", **options)


def test_one_item_is_refused():
    with pytest.raises(ArgumentError, match="at least 2"):
        compare(from_array(np.array([[1.0, 0.0]]), models=["base", "cand"]), "base", "cand")


@pytest.mark.parametrize(
    ("matrix", "options"),
    [
        (_binary(1, 0.1, 0.1), {}),
        (_binary(1, 0.1, 0.1), {"test": "equivalence", "margin": 0.03, "anytime": True}),
        (_graded(1, 0.0), {"test": "non-inferiority", "margin": 0.02}),
        (_graded(1, 0.0), {"test": "equivalence", "margin": 0.02, "method": "bootstrap", "n_resamples": 500}),
    ],
)
def test_the_record_validates_against_its_schema(matrix, options):
    result = compare(matrix, "base", "cand", **options)
    for inconclusive in (None, "pass", "fail"):
        document = json.loads(json.dumps(record(result, ["scores.csv"], inconclusive)))
        jsonschema.Draft202012Validator(SCHEMA).validate(document)
        assert list(document) == ["schema", *(item.name for item in COMPARE_RECORD)]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SCHEMA).validate({**document, "verdict": "maybe"})


def test_one_graded_difference_on_every_item_has_a_point_interval():
    """sd 0 exactly (not the rounding residue of the mean): the interval is the point, power and N undefined."""
    matrix = from_array(
        np.column_stack([np.full(50, 0.5), np.full(50, 0.6)]), models=["base", "cand"], score_kind="graded"
    )
    result = compare(matrix, "base", "cand", "non-inferiority", 0.02)
    assert result.sd_difference == 0 and result.interval_low == result.interval_high == result.difference
    assert result.verdict == "pass" and result.power_at_observed_gap is None and result.n_to_decide is None
    assert compare(matrix, "base", "cand", "equivalence", 0.02).verdict == "fail"
