"""Power and N of Tango's score test against a margin (Nam 1997): identities, round trips and a Monte Carlo."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtri

from llm_power_verified._generated.connor import required_n_connor
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.margin import margin_power, margin_required_n, margin_score_z

ALPHA = 0.05
#: (p10, p01, margin, test): true cells inside and near each test's alternative
CASES = [
    (0.12, 0.10, 0.02, "non-inferiority"),
    (0.05, 0.04, 0.01, "non-inferiority"),
    (0.12, 0.08, 0.01, "superiority"),
    (0.15, 0.10, 0.02, "superiority"),
    (0.10, 0.10, 0.03, "equivalence"),
    (0.20, 0.22, 0.05, "equivalence"),
]


def _rejects(b, c, n, margin, test):
    """The score test's decision on simulated tables, each one-sided test at ALPHA."""
    critical = -ndtri(ALPHA)
    if test == "superiority":
        return np.asarray(margin_score_z(b, c, n, margin)) >= critical
    lower = np.asarray(margin_score_z(b, c, n, -margin)) >= critical
    if test == "non-inferiority":
        return lower
    return lower & (np.asarray(margin_score_z(b, c, n, margin)) <= -critical)


@pytest.mark.parametrize("p10, p01, margin, test", CASES)
def test_power_agrees_with_a_seeded_monte_carlo_of_the_score_test(p10, p01, margin, test):
    n = float(np.ceil(margin_required_n(p10, p01, margin, ALPHA, 0.7, test)))
    replications = 20_000
    rng = np.random.default_rng(20261124)
    cells = rng.multinomial(int(n), [p10, p01, 1.0 - p10 - p01], size=replications)
    simulated = _rejects(cells[:, 0], cells[:, 1], n, margin, test).mean()
    predicted = margin_power(p10, p01, n, margin, ALPHA, test)
    # Monte Carlo: 4 binomial standard errors (~0.013 at power 0.7); plus 0.005 for the normal approximation
    # itself at these n (650 to 2,200 items): over three seeds the simulated power exceeded it by at most 0.0075,
    # a discreteness bias that shrinks like 1/sqrt(n).
    tolerance = 4 * np.sqrt(predicted * (1 - predicted) / replications) + 0.005
    assert abs(simulated - predicted) <= tolerance


@pytest.mark.parametrize("p10, p01, margin", [(0.12, 0.10, 0.02), (0.05, 0.04, 0.01), (0.3, 0.2, 0.05)])
def test_size_at_the_non_inferiority_boundary_is_alpha(p10, p01, margin):
    """At true gap d = -margin (on H0's boundary) both the formula and the simulated test reject at rate alpha."""
    shift = (p10 - p01 + margin) / 2  # move both cells so that d = -margin with the same discordance
    p10, p01 = p10 - shift, p01 + shift
    assert margin_power(p10, p01, 1000, margin, ALPHA) == pytest.approx(ALPHA, rel=1e-12)  # sqrt(n) * 0 exactly
    rng = np.random.default_rng(7)
    cells = rng.multinomial(2000, [p10, p01, 1.0 - p10 - p01], size=20_000)
    simulated = _rejects(cells[:, 0], cells[:, 1], 2000, margin, "non-inferiority").mean()
    # 4 binomial standard errors at alpha = 0.05 and 20,000 tables: 0.0062.
    assert abs(simulated - ALPHA) <= 4 * np.sqrt(ALPHA * (1 - ALPHA) / 20_000)


@pytest.mark.parametrize("p10, p01, margin, test", CASES)
@pytest.mark.parametrize("target", [0.5, 0.8, 0.95])
def test_required_n_round_trips_through_the_power(p10, p01, margin, test, target):
    n = margin_required_n(p10, p01, margin, ALPHA, target, test)
    # One-sided: closed forms inverse to each other (rounding only).  Equivalence: bisection to 1e-12 in n.
    assert margin_power(p10, p01, n, margin, ALPHA, test) == pytest.approx(target, rel=1e-10)


def test_superiority_at_margin_zero_is_connors_one_sided_n():
    """At margin 0 the restricted MLE is p10~ = p01~ = psi/2 at the limit, so sigma_0^2 = psi: Connor's formula."""
    p10 = np.array([0.12, 0.05, 0.3, 0.011])
    p01 = np.array([0.08, 0.01, 0.1, 0.010])
    ours = margin_required_n(p10, p01, 0.0, ALPHA, 0.8, "superiority")
    # Two generated formulas from different derivations: rounding only.
    np.testing.assert_allclose(ours, required_n_connor(p10, p01, ALPHA, 0.8, 1), rtol=1e-12, atol=0)


def test_power_grows_with_n_and_falls_with_a_tighter_margin():
    n = np.array([50.0, 200, 800, 3200])
    for test in ("non-inferiority", "equivalence", "superiority"):
        power = margin_power(0.12, 0.1, n, 0.03 if test != "superiority" else 0.0, ALPHA, test)
        # Equivalence power is 0 (clipped) until both one-sided tests can reject, then grows.
        assert np.all(np.diff(power) >= 0) and power[-1] > power[2] > 0
    margins = np.array([0.05, 0.04, 0.03, 0.025])
    assert np.all(np.diff(margin_power(0.1, 0.1, 1000, margins, ALPHA, "equivalence")) < 0)


def test_a_gap_inside_h0_needs_infinitely_many_items():
    assert margin_required_n(0.1, 0.13, 0.02) == np.inf  # d = -0.03 below -0.02
    assert margin_required_n(0.1, 0.1, 0.02, test="superiority") == np.inf  # d = 0 not above 0.02
    assert margin_required_n(0.375, 0.125, 0.25, test="equivalence") == np.inf  # d = 0.25 on the margin, exactly


def test_no_discordance_gives_a_deterministic_power():
    """p10 = p01 = 0: every table has b = c = 0; the non-inferiority Z is sqrt(n m / (1 - m)), fixed."""
    # sqrt(n * 0.05 / 0.95) >= 1.645 from n = 51.4 on.
    assert margin_power(0.0, 0.0, [51.0, 52.0], 0.05).tolist() == [0.0, 1.0]
    assert margin_power(0.0, 0.0, 100, 0.0, test="superiority") == 0.0  # Z = 0/0 = 0 never rejects


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: margin_power(0.6, 0.5, 100, 0.05), "p10 \\+ p01 must be at most 1"),
        (lambda: margin_power(0.1, 0.1, 100, 0.0), "margin must lie in \\(0, 1\\]"),
        (lambda: margin_power(0.1, 0.1, 0, 0.05), "n must be positive"),
        (lambda: margin_power(0.1, 0.1, 100, 0.05, test="two-sided"), "test must be one of"),
        (lambda: margin_required_n(0.1, 0.1, 0.05, 0.05, 0.01), "power must exceed alpha"),
        (lambda: margin_required_n(-0.1, 0.1, 0.05), "p10 must lie in \\[0, 1\\]; got -0.1"),
    ],
)
def test_bad_arguments_are_refused_naming_them(call, message):
    with pytest.raises(ArgumentError, match=message):
        call()


def test_cells_a_rounding_above_the_simplex_edge_are_accepted():
    """Cells computed as ratios may sum to 1 plus a rounding where b + c = n: that is the edge, not beyond it."""
    p01 = np.nextafter(np.nextafter(0.75, 1.0), 1.0)  # two units in the last place above 0.75
    assert 0.25 + p01 > 1.0
    assert 0.0 <= margin_power(0.25, p01, 1000, 0.05) <= 1.0
    with pytest.raises(ArgumentError, match="p10 \\+ p01 must be at most 1"):
        margin_power(0.25, 0.75 + 1e-12, 1000, 0.05)


@pytest.mark.parametrize("test", ["superiority", "non-inferiority", "equivalence"])
@pytest.mark.parametrize("target", [0.5, 0.8, 0.9])
def test_power_over_a_grid_of_cells_agrees_with_the_monte_carlo(test, target):
    """The same check as above over a grid of cells and target powers, 100,000 tables each (about 1 s in all).

    The normal approximation needs discordant items: with 6 to 20 expected (p10 = 0.05, p01 = 0.03 at a 0.04
    margin) the simulated power exceeded it by up to 0.025, so the grid keeps n (p10 + p01) >= 90, where it stayed
    within 0.004.
    """
    rng = np.random.default_rng(np.random.SeedSequence([2026, 11, 24, int(target * 10)]))
    replications = 100_000
    for p10, p01 in [(0.15, 0.13), (0.3, 0.25), (0.1, 0.09)]:
        margin = 0.0 if test == "superiority" else 0.02
        if test == "equivalence":
            p10 = p01 + 0.005  # a gap well inside (-m, m)
        n = float(np.ceil(margin_required_n(p10, p01, margin, ALPHA, target, test)))
        assert n * (p10 + p01) >= 90
        cells = rng.multinomial(int(n), [p10, p01, 1.0 - p10 - p01], size=replications)
        simulated = _rejects(cells[:, 0], cells[:, 1], n, margin, test).mean()
        predicted = margin_power(p10, p01, n, margin, ALPHA, test)
        # 4 binomial standard errors (at most 0.0063 here) plus the normal approximation's 0.005 as above.
        assert abs(simulated - predicted) <= 4 * np.sqrt(predicted * (1 - predicted) / replications) + 0.005


@pytest.mark.parametrize("test", ["superiority", "non-inferiority", "equivalence"])
def test_nan_in_gives_nan_out(test):
    power = margin_power(np.array([np.nan, 0.12]), 0.1, 1000, 0.02, ALPHA, test)
    required = margin_required_n(np.array([np.nan, 0.11]), 0.1, 0.02, ALPHA, 0.8, test)
    assert np.isnan(power[0]) and np.isfinite(power[1])
    assert np.isnan(required[0]) and not np.isnan(required[1])
