"""McNemar family: 50-digit references, scipy/statsmodels agreement, textbook examples, bad input."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy import stats
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar as statsmodels_mcnemar

from llm_power_verified.inference.mcnemar import binary_counts, mcnemar_all, mcnemar_chi2, mcnemar_exact, mcnemar_midp
from tests.support import mpmath_oracle as reference

TOLERANCE = 1e-12
TINY = mpmath.mpf("1e-300")


@st.composite
def discordant_counts(draw, largest=10**7):
    """(b, c) with b + c log-uniform up to ``largest`` and the split anywhere, often near the centre."""
    total = round(math.exp(draw(st.floats(0, math.log(largest)))))
    centred = draw(st.booleans())
    if centred:
        spread = max(1, int(8 * math.sqrt(total)))
        b = min(total, max(0, total // 2 + draw(st.integers(-spread, spread))))
    else:
        b = draw(st.integers(0, total))
    return b, total - b


def _tolerance(total: int) -> float:
    """The stated error bound of the binomial tail: 1e-12 + 4 sqrt(b + c) eps, relative.

    The tail's continued fraction (modified Lentz) multiplies O(sqrt(b + c))
    factors near the centre, each rounded once, so its relative error grows like
    sqrt(b + c) eps: measured 1.2-1.5 sqrt(n) eps for n = 10^4 .. 4 x 10^6
    (2.7e-14 .. 5.9e-13); the bound allows a factor of about 3 over that.
    """
    return TOLERANCE + 4 * math.sqrt(total) * 2.2e-16


def _check(value, log_value, reference_value, reference_log, total):
    """Relative error within :func:`_tolerance` on p where p > 1e-300, and on log p everywhere.

    Where |log p| < 1 (p > 0.37, including p = 1 where log p = 0 and a relative
    error is undefined), the log check is on the absolute error, which there
    equals the relative error on p to first order.
    """
    tolerance = _tolerance(total)
    assert abs(log_value - reference_log) <= tolerance * max(abs(reference_log), 1)
    if reference_value > TINY:
        # Deep in the tail p is exp(log p): log p's absolute error, a few eps x |log p|, becomes p's relative error
        # (measured up to 18 eps |log p| over 2,500 random tables, e.g. 2.3e-12 at (5298, 9320), log p = -564).
        exponent = 32 * 2.2e-16 * abs(float(reference_log))
        assert abs(value - reference_value) <= (tolerance + exponent) * reference_value


@example((5_000_000, 4_990_000))
@example((4_960_000, 5_040_000))
@example((9_999_997, 3))
@example((0, 10**7))
@example((3444, 6996))  # p = 6e-270: its relative error is log p's absolute error (see _check)
@given(discordant_counts())
def test_exact_against_mpmath(counts):
    b, c = counts
    result = mcnemar_exact(b, c)
    p, log_p = reference.exact_pvalue(b, c)
    _check(result.pvalue, result.log_pvalue, p, log_p, b + c)


@example((5_000_000, 4_990_000))
@example((4_960_000, 5_040_000))
@example((9_999_997, 3))
@example((0, 10**7))
@given(discordant_counts())
def test_midp_against_mpmath(counts):
    b, c = counts
    result = mcnemar_midp(b, c)
    p, log_p = reference.midp_pvalue(b, c)
    _check(result.pvalue, result.log_pvalue, p, log_p, b + c)


@example((5_000_000, 4_990_000), True)
@example((9_999_997, 3), False)
@given(discordant_counts(), st.booleans())
def test_chi2_against_mpmath(counts, correction):
    b, c = counts
    result = mcnemar_chi2(b, c, continuity=correction)
    p, log_p = reference.chi2_pvalue(b, c, correction)
    _check(result.pvalue, result.log_pvalue, p, log_p, b + c)


def test_extreme_counts_keep_their_log_pvalue():
    """b + c = 10^7 all on one side: p underflows to 0 but log p is exact."""
    result = mcnemar_exact(10**7, 0)
    assert result.pvalue == 0.0
    assert result.log_pvalue == pytest.approx(math.log(2) - 10**7 * math.log(2), rel=1e-14)
    _, log_p = reference.exact_pvalue(9_999_990, 10)
    assert mcnemar_exact(9_999_990, 10).log_pvalue == pytest.approx(float(log_p), rel=1e-13)


@given(discordant_counts(largest=5000))
def test_exact_matches_scipy_binomtest(counts):
    """scipy's binomtest sums outcomes no more likely than the observed; for p = 1/2 that is the doubled tail."""
    b, c = counts
    if b + c == 0:
        return
    expected = binomtest(b, b + c, 0.5).pvalue
    assert mcnemar_exact(b, c).pvalue == pytest.approx(expected, rel=1e-10)
    assert mcnemar_exact(b, c).pvalue == mcnemar_exact(b, c).pvalue


@given(discordant_counts(largest=5000))
def test_matches_statsmodels_mcnemar(counts):
    """statsmodels: exact=True doubles binom.cdf(min); exact=False uses (|b-c| - correction)^2/(b+c), unclipped."""
    b, c = counts
    if b + c == 0:
        return
    table = [[0, b], [c, 0]]
    exact = statsmodels_mcnemar(table, exact=True)
    assert mcnemar_exact(b, c).pvalue == pytest.approx(exact.pvalue, rel=1e-10)
    plain = statsmodels_mcnemar(table, exact=False, correction=False)
    assert mcnemar_chi2(b, c).statistic == pytest.approx(plain.statistic, rel=1e-12)
    assert mcnemar_chi2(b, c).pvalue == pytest.approx(plain.pvalue, rel=1e-9, abs=1e-300)
    if b != c:  # statsmodels does not clip |b - c| - 1 at zero
        corrected = statsmodels_mcnemar(table, exact=False, correction=True)
        assert mcnemar_chi2(b, c, continuity=True).pvalue == pytest.approx(corrected.pvalue, rel=1e-9, abs=1e-300)


def test_continuity_correction_at_a_tie_follows_r_not_statsmodels():
    """b = c: R's mcnemar.test (in crosscheck's R records) gives X^2 = 0 and p = 1, as this package does; statsmodels
    applies (|b - c| - 1)^2 / (b + c) unclipped and gives 1/(b + c) (the README and module notes say so)."""
    ours = mcnemar_chi2(7, 7, continuity=True)
    assert (ours.statistic, ours.pvalue) == (0.0, 1.0)
    theirs = statsmodels_mcnemar([[50, 7], [7, 36]], exact=False, correction=True)
    assert theirs.statistic == pytest.approx(1 / 14, rel=1e-15)
    from crosscheck.data.r_reference import RECORDS

    r_tie = next(record for record in RECORDS if record.key == "mcnemar_tie_true")
    assert r_tie.outputs == {"statistic": 0.0, "pvalue": 1.0}


def test_textbook_presidential_approval():
    """Agresti (1990) p. 350, the example of R's ?mcnemar.test: 794/86/150/570 of 1600.

    Printed by R: McNemar's chi-squared = 16.818, df = 1, p-value = 4.115e-05
    (continuity-corrected); without correction Agresti (2002, Sec. 10.1) gives z = 4.17.
    """
    corrected = mcnemar_chi2(150, 86, continuity=True)
    assert round(corrected.statistic, 3) == 16.818
    assert f"{corrected.pvalue:.3e}" == "4.115e-05"
    assert round(math.sqrt(mcnemar_chi2(150, 86).statistic), 2) == 4.17


def test_textbook_small_sample_example():
    """Fagerland, Lydersen and Laake (2013), BMC Med. Res. Methodol. 13:91, b = 1, c = 7.

    Printed: exact conditional p = 0.070, mid-p = 0.039, asymptotic McNemar p = 0.034.
    The exact values are 18/256 and 10/256.
    """
    results = mcnemar_all(1, 7)
    assert results["exact"].pvalue == pytest.approx(18 / 256, rel=1e-14)
    assert results["mid-p"].pvalue == pytest.approx(10 / 256, rel=1e-14)
    assert round(results["exact"].pvalue, 3) == 0.070
    assert round(results["mid-p"].pvalue, 3) == 0.039
    assert round(results["chi2"].pvalue, 3) == 0.034


def test_no_discordant_items_gives_one():
    for result in mcnemar_all(0, 0).values():
        assert result.pvalue == 1.0 and result.log_pvalue == 0.0 and result.statistic == 0.0


def test_two_sided_rules_differ_only_for_midp_at_a_tie():
    for b in (1, 5, 40):
        assert mcnemar_midp(b, b).pvalue == 1.0
        pmf = math.comb(2 * b, b) / 2 ** (2 * b)
        assert mcnemar_midp(b, b, "no-more-likely").pvalue == pytest.approx(1 - pmf / 2, rel=1e-13)
        assert mcnemar_exact(b, b).pvalue == 1.0
    assert mcnemar_midp(3, 9).pvalue == mcnemar_midp(3, 9, "no-more-likely").pvalue


def test_ordering_and_symmetry():
    for b, c in [(3, 9), (40, 20), (500, 560)]:
        exact, midp = mcnemar_exact(b, c).pvalue, mcnemar_midp(b, c).pvalue
        assert midp < exact
        assert mcnemar_chi2(b, c, continuity=True).pvalue > mcnemar_chi2(b, c).pvalue
        assert mcnemar_exact(c, b).pvalue == exact
    totals = np.full(30, 60)
    smaller = np.arange(30)
    pvalues = mcnemar_exact(smaller, totals - smaller).pvalue
    assert np.all(np.diff(pvalues) > 0)


def test_vectorised_equals_scalar():
    b = np.array([0, 3, 250, 10**6])
    c = np.array([0, 9, 240, 10**6 + 5000])
    vector = mcnemar_midp(b, c)
    for i in range(b.size):
        assert vector.log_pvalue[i] == mcnemar_midp(int(b[i]), int(c[i])).log_pvalue


def test_counts_from_vectors():
    assert binary_counts([1, 1, 0, 0, 1, True], [1, 0, 1, 0, 0, False]) == (1, 3, 1, 1)


@pytest.mark.parametrize(
    "a, b, fragments",
    [
        ([1, 0, 2], [1, 0, 1], ["scores_a", "only 0 and 1", "index 2"]),
        ([1, 0, 1], [1, 0.5, 1], ["scores_b", "0.5", "index 1"]),
        ([1, float("nan"), 1], [1, 0, 1], ["scores_a", "nan", "index 1"]),
        ([1, 0, 1], [1, 0], ["same length", "3", "2"]),
    ],
)
def test_vector_errors_name_argument_and_index(a, b, fragments):
    with pytest.raises(ValueError) as error:
        binary_counts(a, b)
    for fragment in fragments:
        assert fragment in str(error.value)


@pytest.mark.parametrize("b, c, fragment", [(-1, 3, "b"), (2.5, 3, "b"), (3, float("nan"), "c"), (3, -4, "c")])
def test_count_errors(b, c, fragment):
    with pytest.raises(ValueError, match=f"^{fragment} must be a whole number"):
        mcnemar_exact(b, c)


@pytest.mark.parametrize("b, c", [(0, 0), (0, 5), (5, 0), (1, 7), (7, 1), (12, 12), (40, 61), (300, 240), (2000, 2210)])
def test_one_sided_exact_and_midp_against_scipy(b, c):
    """One-sided exact p = P(X >= b) (larger) or P(X >= c) (smaller); mid-p subtracts half the observed pmf."""
    n = b + c
    for alternative, favour in (("larger", b), ("smaller", c)):
        exact = mcnemar_exact(b, c, alternative=alternative)
        expected = stats.binomtest(favour, n, 0.5, alternative="greater").pvalue if n else 1.0
        assert exact.pvalue == pytest.approx(expected, rel=1e-12, abs=1e-300)
        midp = mcnemar_midp(b, c, alternative=alternative)
        pmf = stats.binom.pmf(favour, n, 0.5) if n else 0.0
        assert midp.pvalue == pytest.approx(expected - pmf / 2, rel=1e-11, abs=1e-300)
        assert exact.alternative == alternative and exact.statistic == favour


@pytest.mark.parametrize("b, c", [(1, 7), (150, 86), (86, 150), (9, 9)])
def test_one_sided_chi2_is_the_signed_normal_tail(b, c):
    for correction in (False, True):
        larger = mcnemar_chi2(b, c, continuity=correction, alternative="larger")
        z = (b - c - correction) / math.sqrt(b + c)
        assert larger.statistic == pytest.approx(z, rel=1e-14)
        assert larger.pvalue == pytest.approx(stats.norm.sf(z), rel=1e-12)
        smaller = mcnemar_chi2(b, c, continuity=correction, alternative="smaller")
        assert smaller.pvalue == pytest.approx(stats.norm.sf((c - b - correction) / math.sqrt(b + c)), rel=1e-12)
    # Without the correction, the two one-sided p-values of a non-tie sum to 1 and the smaller is half the two-sided
    # one.
    one = mcnemar_chi2(b, c, alternative="larger").pvalue + mcnemar_chi2(b, c, alternative="smaller").pvalue
    assert one == pytest.approx(1.0, rel=1e-14)


def test_one_sided_far_tail_keeps_its_log():
    result = mcnemar_exact(10**6, 10**5, alternative="larger")
    assert result.pvalue == 0.0 and math.isfinite(result.log_pvalue)
    assert result.log_pvalue == pytest.approx(mcnemar_exact(10**6, 10**5).log_pvalue - math.log(2), rel=1e-12)
    against = mcnemar_exact(10**5, 10**6, alternative="larger")
    assert against.pvalue == 1.0


def test_counts_are_whole_numbers_in_the_result():
    result = mcnemar_exact(5, 9)
    assert type(result.b) is int and type(result.c) is int
    arrays = mcnemar_chi2(np.array([1, 2]), np.array([3, 4]))
    assert arrays.b.dtype == np.int64 and arrays.c.tolist() == [3, 4]


@pytest.mark.parametrize("total", [41, 1_000, 123_457, 10**7, 10**8])
@pytest.mark.parametrize("side", [-1, 1])
def test_both_tail_algorithms_meet_the_bound_at_their_boundary(total, side):
    """Either side of the switch between Boost's betainc (centre) and the continued fraction (tail).

    The bound here is the module's own, 1e-15 + 4 sqrt(n) eps, tighter than the
    1e-12 floor of the randomised tests.
    """
    from llm_power_verified.inference.binomial import CENTRE_Z, log_lower_tail_half

    k = math.floor((total - (CENTRE_Z + side * 0.02) * math.sqrt(total)) / 2)
    log_tail, _ = log_lower_tail_half(np.array([k]), np.array([total]))
    reference_log, _ = reference.log_binomial_lower_tail(k, total, 25)
    error = abs(math.expm1(float(log_tail[0]) - float(reference_log)))
    assert error <= 1e-15 + 4 * math.sqrt(total) * 2.2e-16


def test_batched_equals_one_by_one_across_the_switch():
    """Sorting by convergence speed and the centre/tail split do not change any element."""
    rng = np.random.default_rng(7)
    total = rng.integers(1, 10**6, 300)
    b = np.minimum(total, np.maximum(0, (total / 2 + rng.normal(0, 3, 300) * np.sqrt(total)).astype(np.int64)))
    c = total - b
    batched = mcnemar_exact(b, c).log_pvalue
    assert np.array_equal(batched, [mcnemar_exact(int(x), int(y)).log_pvalue for x, y in zip(b, c, strict=True)])


def test_exact_and_midp_together_equal_each_alone():
    from llm_power_verified.inference.mcnemar import exact_and_midp

    rng = np.random.default_rng(11)
    b, c = rng.integers(0, 5000, 400), rng.integers(0, 5000, 400)
    b[:5], c[:5] = [0, 3, 7, 0, 2500], [0, 3, 0, 9, 2500]
    exact, midp = exact_and_midp(b, c)
    assert np.array_equal(exact.log_pvalue, mcnemar_exact(b, c).log_pvalue)
    assert np.array_equal(midp.log_pvalue, mcnemar_midp(b, c).log_pvalue)


@pytest.mark.parametrize("b, c", [(1, 7), (30, 52), (400, 380), (9, 0)])
def test_midp_is_the_exact_test_less_the_observed_probability(b, c):
    """Two-sided: 2 P(X <= k) - P(X = k); one-sided: P(X >= b) - P(X = b)/2 (the docstring's statement)."""
    k, n = min(b, c), b + c
    exact_two = min(1.0, 2 * stats.binom.cdf(k, n, 0.5))
    assert mcnemar_midp(b, c).pvalue == pytest.approx(exact_two - stats.binom.pmf(k, n, 0.5), rel=1e-12)
    upper = stats.binom.sf(b - 1, n, 0.5)
    assert mcnemar_midp(b, c, alternative="larger").pvalue == pytest.approx(
        upper - stats.binom.pmf(b, n, 0.5) / 2, rel=1e-12
    )


def _documented_bound(total: int, log_p: float) -> float:
    """The module's stated bound on the absolute error of log p: 1e-15 + 4 sqrt(n) eps + 32 eps |log p|."""
    return 1e-15 + 4 * math.sqrt(total) * 2.220446049250313e-16 + 32 * 2.220446049250313e-16 * abs(log_p)


@pytest.mark.parametrize("seed", range(4))
def test_documented_accuracy_bound_over_random_tables(seed):
    """50 tables per seed: n log-uniform up to 2 x 10^6, the split anywhere from the centre to 60 sd out."""
    rng = np.random.default_rng(seed)
    for _ in range(50):
        total = int(10 ** rng.uniform(1, 6.3))
        k = max(0, int(total / 2 - rng.uniform(0, 60) * math.sqrt(total) / 2))
        _, log_p = reference.exact_pvalue(k, total - k, 30)
        error = abs(mcnemar_exact(k, total - k).log_pvalue - float(log_p))
        assert error <= _documented_bound(total, float(log_p)), (k, total - k, error)


@pytest.mark.parametrize("b, c", [(500_000_000, 499_980_000), (500_080_000, 499_920_000), (500_400_000, 499_600_000)])
def test_documented_accuracy_bound_at_a_billion(b, c):
    """n = 10^9 near the centre (z = 0.6), at z = 5 and at z = 25, the bound of the module notes."""
    _, log_p = reference.exact_pvalue(b, c, 25)
    assert abs(mcnemar_exact(b, c).log_pvalue - float(log_p)) <= _documented_bound(b + c, float(log_p))
