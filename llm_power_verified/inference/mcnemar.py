"""McNemar's test for paired binary scores, at any benchmark size.

Four variants (the paper's Table 2 rows), from a paired 2x2 table or from two
aligned 0/1 score vectors.  Only the discordant counts matter: ``b`` items
model A solves and B does not, ``c`` the reverse.  Under H0 (equal
accuracies), b given b + c is Binomial(b + c, 1/2).

* ``"chi2"``: X^2 = (b - c)^2 / (b + c) against chi-square(1) (McNemar 1947).
* ``"chi2-corrected"``: X^2 = (abs(b - c) - 1)^2 / (b + c), Edwards' continuity
  correction.  This module clips abs(b - c) - 1 at zero, so b = c gives X^2 = 0
  and p = 1, as R's ``mcnemar.test`` does (it leaves the correction out when
  b = c); statsmodels' ``mcnemar`` does not clip and gives X^2 = 1/(b + c)
  there (b = c = 7: X^2 = 0.0714, p = 0.789).  Elsewhere all three agree
  (``tests/inference/test_mcnemar.py`` runs both).
* ``"exact"``: conditional binomial test.
* ``"mid-p"``: the exact test with the observed outcome counted at half
  weight: one-sided, the exact p less P(X = b)/2; two-sided, 2 P(X <= k) less
  P(X = k) with k = min(b, c), half coming off each tail (Lancaster 1961;
  Fagerland, Lydersen and Laake 2013).

Two-sided conventions (``two_sided_rule``) for the exact and mid-p tests
------------------------------------------------------------------------
"double" (the default) doubles the smaller tail, capped at 1.
"no-more-likely" sums the probabilities of all outcomes no more likely than
the observed one (scipy's ``binomtest``, R's ``binom.test``).  Under H0 the
binomial is symmetric, so for the exact test the two rules coincide
everywhere (at b = c the doubled tail is 1 + P(X = b), capped to 1).  For
the mid-p value they differ only at b = c: "double" gives 1, while
"no-more-likely" gives 1 - P(X = b)/2; so only the mid-p test takes the rule.

One-sided tests: ``alternative="larger"`` (H1: model A's accuracy is the
larger, so b tends to exceed c) or ``"smaller"``, as in the planning
functions; the default is ``"two-sided"``.

b + c = 0 (no discordant item) gives statistic 0 and p = 1 for every variant:
the data carry no evidence either way.

p-values far below 1e-300 do not underflow silently: every result carries
``log_pvalue``.  Accuracy, with n = b + c and eps = 2.2e-16: the absolute
error of log p (the relative error of p while p > 1e-300) is at most
1e-15 + 4 sqrt(n) eps + 32 eps abs(log p), tested against 50-digit mpmath
(``tests/inference/test_mcnemar.py``) for n up to 10^9.  Near the centre the first two
terms dominate (Boost's incomplete beta there, see
:mod:`~llm_power_verified.inference.binomial`; 1e-11 at n = 10^9).  In the
far tail the third does: Loader's deviance terms, of the size of abs(log p),
partly cancel (measured up to 17 eps abs(log p): 2.9e-12 at n = 26,006,
log p = -739).  Relative to log p itself that is below 1e-14 everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import log_ndtr

from llm_power_verified._docstrings import docfill
from llm_power_verified._validation import check_count, describe_index, finish, sides_for
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.binomial import log_pmf_half
from llm_power_verified.inference.cells import binary_counts
from llm_power_verified.inference.mcnemar_tails import log_smaller_tail_half, log_upper_tail_half
from llm_power_verified.results import Result

__all__ = [
    "TWO_SIDED_RULES",
    "VARIANTS",
    "McNemarResult",
    "binary_counts",
    "exact_and_midp",
    "exact_with_tail",
    "mcnemar_all",
    "mcnemar_chi2",
    "mcnemar_exact",
    "mcnemar_midp",
    "mcnemar_test",
]

VARIANTS = ("chi2", "chi2-corrected", "exact", "mid-p")
TWO_SIDED_RULES = ("double", "no-more-likely")
_LOG_2 = math.log(2.0)


@dataclass(frozen=True, repr=False)
class McNemarResult(Result):
    """Result of one McNemar variant (floats and ints, or arrays for array input).

    Attributes
    ----------
    statistic
        Two-sided: X^2 for the chi-square variants, min(b, c) for the exact and
        mid-p tests.  One-sided: the signed z = (b - c -/+ kappa) / sqrt(b + c)
        for the chi-square variants, the count b ("larger") or c ("smaller")
        for the exact and mid-p tests.
    pvalue
        The p-value (0.0 only when it underflows; see ``log_pvalue``).
    log_pvalue
        Natural log of the p-value, finite however small the p-value is.
    method
        The variant, one of ``VARIANTS``.
    b, c
        Discordant counts (ints, or int64 arrays): b = A right and B wrong, c = A wrong and B right.
    alternative
        "two-sided", "larger" (H1: A's accuracy is larger, b > c) or "smaller".
    two_sided_rule
        Two-sided rule of the mid-p variant, else None.
    """

    statistic: float | np.ndarray
    pvalue: float | np.ndarray
    log_pvalue: float | np.ndarray
    method: str
    b: int | np.ndarray
    c: int | np.ndarray
    alternative: str = "two-sided"
    two_sided_rule: str | None = None


def _counts(b: Any, c: Any) -> tuple[np.ndarray, np.ndarray]:
    b = check_count("b", b)
    c = check_count("c", c)
    bad = np.isnan(b + c)
    if bad.any():
        which = "b" if np.isnan(np.broadcast_to(b, bad.shape)[bad]).any() else "c"
        raise ArgumentError(f"{which} must be a whole number >= 0; got nan{describe_index(bad)}")
    return np.broadcast_arrays(b, c)


def _whole(count: np.ndarray) -> int | np.ndarray:
    """Counts as Python ints (0-d) or int64 arrays; they are whole numbers up to 2^53, checked on entry."""
    count = np.asarray(count)
    return int(count) if count.ndim == 0 else count.astype(np.int64)


def _result(statistic, log_p, method, b, c, alternative="two-sided", two_sided_rule=None) -> McNemarResult:
    log_p = np.minimum(log_p, 0.0)
    return McNemarResult(
        statistic=finish(statistic),
        pvalue=finish(np.exp(log_p)),
        log_pvalue=finish(log_p),
        method=method,
        b=_whole(b),
        c=_whole(c),
        alternative=alternative,
        two_sided_rule=two_sided_rule,
    )


def _oriented(b: np.ndarray, c: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """(count in favour of H1, count against): (b, c) for "larger", (c, b) for "smaller"."""
    return (b, c) if alternative == "larger" else (c, b)


@docfill("counts", "alternative", returns="mcnemar")
def mcnemar_chi2(b: Any, c: Any, continuity: bool = False, alternative: str = "two-sided") -> McNemarResult:
    r"""Asymptotic McNemar test, with or without Edwards' continuity correction.

    Parameters
    ----------
    %(counts)s
    continuity : bool, default False
        Edwards' continuity correction (kappa = 1, method "chi2-corrected").
    %(alternative)s

    Notes
    -----
    .. math:: X^2 = \frac{(|b - c| - \kappa)^2}{b + c}, \quad
              p = P(\chi^2_1 \ge X^2) = 2\Phi(-\sqrt{X^2})

    with kappa = 0, or kappa = 1 clipped so that abs(b - c) - kappa >= 0.
    One-sided ("larger"): z = (b - c - kappa) / sqrt(b + c), p = Phi(-z)
    ("smaller" swaps b and c).  log p is computed with ``scipy.special.log_ndtr``.
    b + c = 0 gives statistic 0 and p = 1.  No closed form is generated (no ``derivations/`` module).

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between
    correlated proportions or percentages. Psychometrika 12, 153-157.
    Edwards, A. L. (1948). Psychometrika 13, 185-187 (continuity correction).

    Examples
    --------
    >>> result = mcnemar_chi2(150, 86)
    >>> round(result.statistic, 3), f"{result.pvalue:.3e}"
    (17.356, '3.099e-05')
    >>> f"{mcnemar_chi2(150, 86, alternative='larger').pvalue:.3e}"
    '1.550e-05'
    """
    sides = sides_for(alternative)
    b, c = _counts(b, c)
    total = b + c
    kappa = 1.0 if continuity else 0.0
    method = "chi2-corrected" if continuity else "chi2"
    with np.errstate(divide="ignore", invalid="ignore"):
        if sides == 2:
            z = np.where(total > 0, np.maximum(np.abs(b - c) - kappa, 0.0) / np.sqrt(total), 0.0)
            return _result(z * z, _LOG_2 + log_ndtr(-z), method, b, c)
        favour, against = _oriented(b, c, alternative)
        z = np.where(total > 0, (favour - against - kappa) / np.sqrt(total), 0.0)
    return _result(z, np.where(total > 0, log_ndtr(-z), 0.0), method, b, c, alternative)


def _check_rule(two_sided_rule: str) -> None:
    if two_sided_rule not in TWO_SIDED_RULES:
        raise ArgumentError(f"two_sided_rule must be one of {TWO_SIDED_RULES}; got {two_sided_rule!r}")


@docfill("counts", "alternative", returns="mcnemar")
def mcnemar_exact(b: Any, c: Any, alternative: str = "two-sided") -> McNemarResult:
    """Exact conditional McNemar test: b | b + c ~ Binomial(b + c, 1/2) under H0.

    Notes
    -----
    Two-sided: p = min(1, 2 P(X <= min(b, c))); the doubled-tail and the
    no-more-likely rules give this same value for the symmetric null (see the
    module notes), so the exact test takes no rule.  One-sided ("larger"):
    p = P(X >= b); "smaller": p = P(X >= c).  The tails come from
    :func:`~llm_power_verified.inference.binomial.log_lower_tail_half` (no ``derivations/`` module).

    References
    ----------
    McNemar (1947), as for :func:`mcnemar_chi2`; Fagerland, M. W., Lydersen, S.
    and Laake, P. (2013). The McNemar test for binary matched-pairs data:
    mid-p and asymptotic are better than exact conditional. BMC Med. Res.
    Methodol. 13, 91.

    Examples
    --------
    >>> round(mcnemar_exact(1, 7).pvalue, 4)
    0.0703
    >>> round(mcnemar_exact(1, 7, alternative="smaller").pvalue, 4)
    0.0352
    """
    sides = sides_for(alternative)
    b, c = _counts(b, c)
    if sides == 1:
        favour, against = _oriented(b, c, alternative)
        log_upper, _ = log_upper_tail_half(favour, against)
        return _result(favour, log_upper, "exact", b, c, alternative)
    return exact_with_tail(b, c)[0]


@docfill("counts")
def exact_with_tail(b: Any, c: Any) -> tuple[McNemarResult, np.ndarray]:
    """The two-sided exact test and the log tail log P(X <= min(b, c)) behind it (0 where b + c = 0).

    Returns
    -------
    exact : McNemarResult
        The same values as ``mcnemar_exact(b, c)``.
    log_tail : numpy.ndarray
        The tail, which :func:`exact_and_midp` takes so as not to compute it again.

    Examples
    --------
    >>> exact, log_tail = exact_with_tail(1, 7)
    >>> round(exact.pvalue, 6), round(float(np.exp(log_tail)), 6)
    (0.070312, 0.035156)
    """
    b, c = _counts(b, c)
    smaller, total, log_tail, _ = log_smaller_tail_half(b, c, with_pmf=False)
    log_p = np.where(total > 0, _LOG_2 + log_tail, 0.0)
    return _result(smaller, log_p, "exact", b, c), log_tail


@docfill("counts", "two_sided_rule", "alternative", returns="mcnemar")
def mcnemar_midp(b: Any, c: Any, two_sided_rule: str = "double", alternative: str = "two-sided") -> McNemarResult:
    """Mid-p McNemar test: the exact test with the observed outcome counted at half weight.

    One-sided that is the exact p less P(X = b)/2; two-sided (doubled) it is
    the exact p 2 P(X <= k) less P(X = k), k = min(b, c): half of the observed
    probability comes off each of the two tails.

    Notes
    -----
    Two-sided, "double": p = 2 P(X < min(b, c)) + P(X = min(b, c)), which is 1 at b = c;
    "no-more-likely": the same for b != c, and 1 - P(X = b)/2 at b = c.
    One-sided ("larger"): p = P(X > b) + P(X = b)/2 ("smaller" with c); the rule does not apply.

    Computed as log p = log(2 P(X <= k)) + log1p(-P(X = k) / (2 P(X <= k))),
    which stays accurate in the far tail (no ``derivations/`` module).

    References
    ----------
    Lancaster, H. O. (1961). Significance tests in discrete distributions.
    J. Am. Stat. Assoc. 56, 223-234.  Fagerland, Lydersen and Laake (2013),
    BMC Med. Res. Methodol. 13, 91.

    Examples
    --------
    >>> round(mcnemar_midp(1, 7).pvalue, 4)
    0.0391
    >>> round(mcnemar_midp(1, 7, alternative="smaller").pvalue, 4)
    0.0195
    """
    _check_rule(two_sided_rule)
    sides = sides_for(alternative)
    b, c = _counts(b, c)
    if sides == 1:
        favour, against = _oriented(b, c, alternative)
        log_upper, log_pmf = log_upper_tail_half(favour, against)
        with np.errstate(divide="ignore"):
            log_p = log_upper + np.log1p(-0.5 * np.exp(log_pmf - log_upper))
        return _result(favour, np.where(favour + against > 0, log_p, 0.0), "mid-p", b, c, alternative)
    smaller, total, log_tail, log_pmf = log_smaller_tail_half(b, c)
    return _result(
        smaller, _log_midp(b, c, total, log_tail, log_pmf, two_sided_rule), "mid-p", b, c, two_sided_rule=two_sided_rule
    )


def _log_midp(b, c, total, log_tail, log_pmf, two_sided_rule: str) -> np.ndarray:
    """The two-sided mid-p value's log from the lower tail and pmf at min(b, c)."""
    with np.errstate(divide="ignore"):
        log_p = _LOG_2 + log_tail + np.log1p(-np.exp(log_pmf - _LOG_2 - log_tail))
    tie = (b == c) & (total > 0)
    if two_sided_rule == "double":
        log_p = np.where(tie, 0.0, log_p)
    else:
        log_p = np.where(tie, np.log1p(-0.5 * np.exp(log_pmf)), log_p)
    return np.where(total > 0, log_p, 0.0)


@docfill("counts")
def exact_and_midp(b: Any, c: Any, log_tail: np.ndarray | None = None) -> tuple[McNemarResult, McNemarResult]:
    """The two-sided exact and mid-p tests (default rules) from one evaluation of the binomial tail.

    Parameters
    ----------
    %(counts)s
    log_tail : numpy.ndarray, optional
        The tail log P(X <= min(b, c)) of these counts when already computed (:func:`exact_with_tail`, the same
        values); only the pmf is computed then.

    Returns
    -------
    exact, midp : McNemarResult
        The same values as ``mcnemar_exact(b, c)`` and ``mcnemar_midp(b, c)``.

    Notes
    -----
    An all-pairs audit needs both for every pair, and the tail P(X <= min(b, c)) is most of their cost.

    Examples
    --------
    >>> exact, midp = exact_and_midp(1, 7)
    >>> round(exact.pvalue, 6), round(midp.pvalue, 6)
    (0.070312, 0.039062)
    """
    b, c = _counts(b, c)
    if log_tail is None:
        smaller, total, log_tail, log_pmf = log_smaller_tail_half(b, c)
    else:
        smaller, total, log_pmf = np.minimum(b, c), b + c, np.zeros(np.shape(b))
        some = total > 0
        log_pmf[some] = log_pmf_half(smaller[some], total[some])
        log_tail = np.asarray(log_tail, dtype=np.float64).reshape(log_pmf.shape)
    log_exact = np.where(total > 0, _LOG_2 + log_tail, 0.0)
    return (
        _result(smaller, log_exact, "exact", b, c),
        _result(smaller, _log_midp(b, c, total, log_tail, log_pmf, "double"), "mid-p", b, c, two_sided_rule="double"),
    )


@docfill("counts", "two_sided_rule", "alternative", returns="mcnemar")
def mcnemar_test(
    b: Any, c: Any, method: str = "exact", two_sided_rule: str = "double", alternative: str = "two-sided"
) -> McNemarResult:
    """Run one variant by name: "chi2", "chi2-corrected", "exact" or "mid-p".

    Parameters
    ----------
    %(counts)s
    method : {"chi2", "chi2-corrected", "exact", "mid-p"}, default "exact"
        The variant (``VARIANTS``).
    %(two_sided_rule)s
    %(alternative)s

    Notes
    -----
    See :func:`mcnemar_chi2`, :func:`mcnemar_exact` and :func:`mcnemar_midp` for the formulas.

    References
    ----------
    McNemar (1947), Psychometrika 12, 153-157; Fagerland, Lydersen and Laake (2013).

    Examples
    --------
    >>> mcnemar_test(1, 7, "mid-p").method
    'mid-p'
    """
    _check_rule(two_sided_rule)
    if method == "chi2":
        return mcnemar_chi2(b, c, alternative=alternative)
    if method == "chi2-corrected":
        return mcnemar_chi2(b, c, continuity=True, alternative=alternative)
    if method == "exact":
        return mcnemar_exact(b, c, alternative)
    if method == "mid-p":
        return mcnemar_midp(b, c, two_sided_rule, alternative)
    raise ArgumentError(f"method must be one of {VARIANTS}; got {method!r}")


@docfill("counts", "two_sided_rule", "alternative")
def mcnemar_all(
    b: Any, c: Any, two_sided_rule: str = "double", alternative: str = "two-sided"
) -> dict[str, McNemarResult]:
    """Every variant at once, keyed by method name.

    Returns
    -------
    dict of str to McNemarResult
        One result per name of ``VARIANTS``, in that order.

    Notes
    -----
    The formulas are those of :func:`mcnemar_test`'s variants.

    References
    ----------
    McNemar (1947); Fagerland, Lydersen and Laake (2013).

    Examples
    --------
    >>> {name: round(result.pvalue, 4) for name, result in mcnemar_all(1, 7).items()}
    {'chi2': 0.0339, 'chi2-corrected': 0.0771, 'exact': 0.0703, 'mid-p': 0.0391}
    """
    return {method: mcnemar_test(b, c, method, two_sided_rule, alternative) for method in VARIANTS}
