"""--min-effect DELTA in the per-item audit: each column against an independent computation on real leaderboards.

The references here share no code with the audit: the discordant counts are counted from the score matrix, the
normal quantiles and tails are scipy.stats.norm's, the restricted maximum likelihood under a margin is found
numerically (scipy.optimize.brentq on the score equation of the constrained multinomial likelihood), the graded
tests are scipy.stats.ttest_1samp on the differences.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

from llm_power_verified.errors import ArgumentError
from llm_power_verified.examples import shipped_example
from llm_power_verified.io import from_array, read_inspect, read_lm_eval, read_table
from llm_power_verified.leaderboard.audit import AuditSettings, audit_leaderboard

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TIGER = FIXTURES / "mmlu_pro_tiger" / "scores.csv.gz"
OUTCOMES = ("different, not equivalent", "equivalent, not different", "different, within the margin", "inconclusive")


@pytest.fixture(scope="module")
def tiger():
    """Real per-item MMLU-Pro results of 26 models (TIGER-Lab), N = 12,032, audited at --min-effect 0.02."""
    matrix = read_table(TIGER, cluster_column="category")
    return matrix, audit_leaderboard(matrix, n_resamples=0, n_cluster_resamples=0, min_effect=0.02)


def _discordant(matrix, model_a: str, model_b: str) -> tuple[int, int]:
    """b, c counted from the score matrix: items only A solves, items only B solves."""
    a = matrix.scores[:, matrix.models.index(model_a)]
    b = matrix.scores[:, matrix.models.index(model_b)]
    return int(np.sum((a == 1) & (b == 0))), int(np.sum((a == 0) & (b == 1)))


def _restricted_mle(b: int, c: int, n: int, margin: float) -> tuple[float, float]:
    """(p10, p01) maximising b log p10 + c log p01 + (n - b - c) log(1 - p10 - p01) subject to p10 - p01 = margin.

    With p10 = p01 + margin the profile log-likelihood is concave in p01 on (max(0, -margin), (1 - margin) / 2); its
    derivative b / (p01 + margin) + c / p01 - 2 (n - b - c) / (1 - 2 p01 - margin) falls from +inf (or from a finite
    value when b or c is 0) to -inf, so the maximum is the derivative's root, or the lower end when it is negative
    there already.
    """
    rest = n - b - c
    low, high = max(0.0, -margin), (1.0 - margin) / 2

    def score(p01: float) -> float:
        terms = -2 * rest / (1 - 2 * p01 - margin)
        terms += b / (p01 + margin) if b else 0.0
        terms += c / p01 if c else 0.0
        return terms

    # Inside the open interval by 1e-15 of its width: the root of a table with b, c > 0 lies far from both ends.
    left, right = low + 1e-15 * (high - low), high - 1e-15 * (high - low)
    if score(left) <= 0:
        return low + margin, low
    p01 = optimize.brentq(score, left, right, xtol=1e-300, rtol=4 * np.finfo(float).eps)
    return p01 + margin, p01


def _score_pvalues(b: int, c: int, n: int, margin: float) -> tuple[float, float]:
    """One-sided p of H0: d <= -margin and of H0: d >= +margin from the numerical restricted MLE."""
    lower_p10, lower_p01 = _restricted_mle(b, c, n, -margin)
    upper_p10, upper_p01 = _restricted_mle(b, c, n, margin)
    z_lower = (b - c + n * margin) / np.sqrt(n * (lower_p10 + lower_p01 - margin**2))
    z_upper = (b - c - n * margin) / np.sqrt(n * (upper_p10 + upper_p01 - margin**2))
    return float(stats.norm.sf(z_lower)), float(stats.norm.cdf(z_upper))


def _harness(name: str):
    """Per-item results written by the harnesses themselves (tests/fixtures/README.md), audited at 0.02 (all pairs)."""
    if name == "lm-eval hashlm":
        matrix = read_lm_eval(sorted((FIXTURES / "lm_eval" / "hashlm").iterdir()), task="arith_mc", metric="acc")
    else:
        matrix = read_inspect(sorted((FIXTURES / "inspect" / "eval").glob("*.eval")))
    return matrix, audit_leaderboard(matrix, "all", n_resamples=0, min_effect=0.02)


@pytest.mark.parametrize("source", ["tiger", "lm-eval hashlm", "inspect eval"])
def test_score_pvalues_against_plus_minus_delta_are_the_numerical_restricted_mle(tiger, source):
    """The issue's done-when: every adjacent pair of a real leaderboard at --min-effect 0.02, to 1e-9 relative.

    TIGER-Lab's MMLU-Pro results (26 models, 25 adjacent pairs); the harness fixtures (3 models, 200 items) add
    every pair of small tables.
    """
    matrix, audit = tiger if source == "tiger" else _harness(source)
    adjacent = audit.pairs[audit.pairs["adjacent"]] if source == "tiger" else audit.pairs
    assert len(adjacent) == (25 if source == "tiger" else 3)
    for _, row in adjacent.iterrows():
        b, c = _discordant(matrix, row["model_a"], row["model_b"])
        assert (b, c) == (row["b"], row["c"])
        lower, upper = _score_pvalues(b, c, matrix.n_items, 0.02)
        # 1e-9 relative: the bar; brentq finds the RMLE to a few ulps, and the tails are scipy's.
        assert row["p_margin_lower"] == pytest.approx(lower, rel=1e-9, abs=0)
        assert row["p_margin_upper"] == pytest.approx(upper, rel=1e-9, abs=0)
        assert row["p_equivalence"] == max(row["p_margin_lower"], row["p_margin_upper"])
        assert row["equivalence"] in OUTCOMES


@pytest.mark.parametrize("source", ["tiger", "shipped"])
def test_power_and_q_at_delta_by_hand(tiger, source):
    """power(DELTA), N*(DELTA) and q(DELTA) with sigma_D^2(DELTA) = (b + c) / N - DELTA^2, by scipy.stats.norm."""
    delta, alpha, power = 0.02, 0.05, 0.8
    if source == "tiger":
        matrix, audit = tiger
    else:
        matrix = shipped_example(clusters=False)
        audit = audit_leaderboard(matrix, "all", n_resamples=0, min_effect=delta)
    n = matrix.n_items
    z_alpha, z_power = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    checked = 0
    for _, row in audit.pairs.iterrows():
        b, c = _discordant(matrix, row["model_a"], row["model_b"])
        discordance = (b + c) / n
        if discordance < delta:  # a true gap of DELTA needs at least DELTA discordant: n/a, not resolved
            assert np.isnan(row["q_min_effect"]) and np.isnan(row["power_min_effect"])
            assert not row["resolved_min_effect"]
            continue
        sd = np.sqrt(discordance - delta**2)
        required = (z_alpha + z_power) ** 2 * sd**2 / delta**2
        shift = delta * np.sqrt(n) / sd
        # 1e-12 relative: the same closed forms evaluated in another order (ndtri/ndtr vs norm.ppf/cdf).
        assert row["required_n_min_effect"] == pytest.approx(required, rel=1e-12)
        assert row["q_min_effect"] == pytest.approx(n / required, rel=1e-12)
        assert row["power_min_effect"] == pytest.approx(
            stats.norm.cdf(-z_alpha - shift) + stats.norm.cdf(shift - z_alpha), rel=1e-12
        )
        assert row["resolved_min_effect"] == (n / required >= 1)
        checked += 1
    assert checked >= 9


def test_the_four_outcomes_follow_the_interval_and_the_raw_difference_test(tiger):
    """Equivalent: the (1 - 2 alpha) interval inside (-DELTA, DELTA); different: the raw exact McNemar p <= alpha."""
    _, audit = tiger
    pairs = audit.pairs
    inside = (pairs["margin_ci_low"] > -0.02) & (pairs["margin_ci_high"] < 0.02)
    different = pairs["p_exact"] <= 0.05
    expected = np.select(
        [different & ~inside, ~different & inside, different & inside], OUTCOMES[:3], default=OUTCOMES[3]
    )
    assert pairs["equivalence"].tolist() == expected.tolist()
    # The interval contains the observed gap, and it is the dual of the two one-sided tests at alpha each.
    assert ((pairs["margin_ci_low"] <= pairs["delta"]) & (pairs["delta"] <= pairs["margin_ci_high"])).all()
    assert (inside == (pairs["p_equivalence"] < 0.05)).all()


def test_headline_counts_are_the_adjacent_columns(tiger):
    _, audit = tiger
    adjacent = audit.pairs[audit.pairs["adjacent"]]
    facts = audit.headline
    assert facts.min_effect == 0.02
    assert facts.equivalence == {outcome: int((adjacent["equivalence"] == outcome).sum()) for outcome in OUTCOMES}
    assert sum(facts.equivalence.values()) == len(adjacent)
    resolved = facts.adjacent["resolved_min_effect"]
    assert (resolved.count, resolved.defined) == (int(adjacent["resolved_min_effect"].sum()), len(adjacent))
    defined = adjacent["required_n_min_effect"].dropna()
    assert facts.min_effect_undefined == len(adjacent) - len(defined)
    assert facts.required_n_min_effect == int(np.ceil(defined.max()))
    assert facts.required_n_min_effect_family >= facts.required_n_min_effect


def test_graded_margin_tests_are_the_one_sample_t_tests_of_the_differences():
    rng = np.random.default_rng(11)
    scores = np.clip(
        rng.beta(5, 3, size=(400, 1)) + rng.normal(0, 0.15, size=(400, 4)) + [0.03, 0.0, -0.01, -0.06], 0, 1
    )
    matrix = from_array(scores, models=["w", "x", "y", "z"])
    audit = audit_leaderboard(matrix, "all", n_resamples=0, min_effect=0.05)
    for _, row in audit.pairs.iterrows():
        differences = scores[:, matrix.models.index(row["model_a"])] - scores[:, matrix.models.index(row["model_b"])]
        lower = stats.ttest_1samp(differences + 0.05, 0.0, alternative="greater").pvalue
        upper = stats.ttest_1samp(differences - 0.05, 0.0, alternative="less").pvalue
        # 1e-9 relative: the t tails of the same statistic, formed in another order.
        assert row["p_margin_lower"] == pytest.approx(lower, rel=1e-9)
        assert row["p_margin_upper"] == pytest.approx(upper, rel=1e-9)
        variance = np.var(differences, ddof=1)
        z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
        assert row["required_n_min_effect"] == pytest.approx(z**2 * variance / 0.05**2, rel=1e-10)


def test_without_min_effect_no_column_and_no_headline_fact():
    audit = audit_leaderboard(shipped_example(clusters=False), n_resamples=0)
    assert not {"q_min_effect", "equivalence", "p_margin_lower"} & set(audit.pairs)
    assert audit.headline.min_effect is None and audit.headline.equivalence == {}


def test_pairs_too_concordant_for_delta_are_na_with_a_note():
    audit = audit_leaderboard(shipped_example(clusters=False), n_resamples=0, min_effect=0.02)
    undefined = audit.pairs["q_min_effect"].isna()
    assert undefined.sum() == 1  # CalmeRys-78B-Orpo vs calme-2.4-rys-78b: 52 discordant of 12,032 < 0.02 N
    row = audit.pairs[undefined].iloc[0]
    assert row["b"] + row["c"] < 0.02 * audit.matrix.n_items and not row["resolved_min_effect"]
    assert any(note.startswith("--min-effect 0.02: 1 of 9 reported pairs") for note in audit.notes)


@pytest.mark.parametrize("value", [0, -0.02, 1, 1.5, float("nan"), float("inf"), "0.02", True])
def test_bad_min_effect_values_are_refused_naming_it(value):
    matrix = shipped_example(clusters=False)
    with pytest.raises(ArgumentError, match=r"^min_effect \(--min-effect") as raised:
        AuditSettings(min_effect=value).checked(matrix)
    assert "\n" not in str(raised.value)


def test_graded_min_effect_is_refused_from_one_too():
    """Graded scores lie in [0, 1] as well: no gap of two mean scores exceeds 1."""
    rng = np.random.default_rng(0)
    matrix = from_array(rng.random((50, 3)), models=["x", "y", "z"])
    assert AuditSettings(min_effect=0.5).checked(matrix).min_effect == 0.5
    for value in (0.0, 1.0, 2.5):
        with pytest.raises(ArgumentError, match=r"^min_effect \(--min-effect.*in \[1\.11022e-16, 1\); got"):
            AuditSettings(min_effect=value).checked(matrix)
