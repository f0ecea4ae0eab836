"""McNemar's test for paired binary scores, at any benchmark size.

Four variants (the paper's Table 2 rows), from a paired 2x2 table or from two
aligned 0/1 score vectors.  Only the discordant counts matter: ``b`` items
model A solves and B does not, ``c`` the reverse.  Under H0 (equal
accuracies), b given b + c is Binomial(b + c, 1/2).

* ``"chi2"``: X^2 = (b - c)^2 / (b + c) against chi-square(1) (McNemar 1947).
* ``"chi2-corrected"``: X^2 = (|b - c| - 1)^2 / (b + c), Edwards' continuity
  correction.  This module clips |b - c| - 1 at zero, so b = c gives p = 1;
  R's ``mcnemar.test`` and statsmodels' ``mcnemar`` do not clip and give
  X^2 = 1/(b + c) there.  Elsewhere they agree.
* ``"exact"``: conditional binomial test.
* ``"mid-p"``: the exact p-value minus half the probability of the observed
  outcome (Lancaster 1961; Fagerland, Lydersen and Laake 2013).

Two-sided conventions for the exact and mid-p tests
---------------------------------------------------
"double" (the default) doubles the smaller tail, capped at 1.
"no-more-likely" sums the probabilities of all outcomes no more likely than
the observed one (scipy's ``binomtest``, R's ``binom.test``).  Under H0 the
binomial is symmetric, so for the exact test the two rules coincide
everywhere (at b = c the doubled tail is 1 + P(X = b), capped to 1).  For
the mid-p value they differ only at b = c: "double" gives 1, while
"no-more-likely" gives 1 - P(X = b)/2.

b + c = 0 (no discordant item) gives statistic 0 and p = 1 for every variant:
the data carry no evidence either way.

p-values far below 1e-300 do not underflow silently: every result carries
``log_pvalue``, accurate to about 1e-13 relative for b + c up to 10^9.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import log_ndtr

from llm_power_verified.inference.binomial import log_lower_tail_half
from llm_power_verified._validation import as_array, check_count, describe_index, finish

__all__ = [
    "McNemarResult",
    "TWO_SIDED_RULES",
    "VARIANTS",
    "binary_counts",
    "mcnemar_chi2",
    "mcnemar_exact",
    "mcnemar_midp",
    "mcnemar_test",
    "mcnemar_all",
]

VARIANTS = ("chi2", "chi2-corrected", "exact", "mid-p")
TWO_SIDED_RULES = ("double", "no-more-likely")
_LOG_2 = math.log(2.0)


@dataclass(frozen=True)
class McNemarResult:
    """Result of one McNemar variant (fields are floats, or arrays for array input).

    Attributes
    ----------
    statistic
        X^2 for the chi-square variants; min(b, c) for the exact and mid-p tests.
    pvalue
        Two-sided p-value (0.0 only when it underflows; see ``log_pvalue``).
    log_pvalue
        Natural log of the p-value, finite however small the p-value is.
    method
        The variant, one of :data:`VARIANTS`.
    b, c
        Discordant counts: b = A right and B wrong, c = A wrong and B right.
    two_sided
        Two-sided rule for the exact and mid-p variants, else None.
    """

    statistic: float | np.ndarray
    pvalue: float | np.ndarray
    log_pvalue: float | np.ndarray
    method: str
    b: float | np.ndarray
    c: float | np.ndarray
    two_sided: str | None = None


def _counts(b: Any, c: Any) -> tuple[np.ndarray, np.ndarray]:
    b = check_count("b", b)
    c = check_count("c", c)
    bad = np.isnan(b + c)
    if bad.any():
        which = "b" if np.isnan(np.broadcast_to(b, bad.shape)[bad]).any() else "c"
        raise ValueError(f"{which} must be a whole number >= 0; got nan{describe_index(bad)}")
    return np.broadcast_arrays(b, c)


def _result(statistic, log_p, method, b, c, two_sided=None) -> McNemarResult:
    log_p = np.minimum(log_p, 0.0)
    return McNemarResult(
        statistic=finish(statistic), pvalue=finish(np.exp(log_p)), log_pvalue=finish(log_p),
        method=method, b=finish(b), c=finish(c), two_sided=two_sided,
    )


def mcnemar_chi2(b: Any, c: Any, correction: bool = False) -> McNemarResult:
    """Asymptotic McNemar test, with or without Edwards' continuity correction.

    Notes
    -----
    .. math:: X^2 = \\frac{(|b - c| - \\kappa)^2}{b + c}, \\quad
              p = P(\\chi^2_1 \\ge X^2) = 2\\Phi(-\\sqrt{X^2})

    with kappa = 0, or kappa = 1 clipped so that |b - c| - kappa >= 0.
    log p is computed as log 2 + log Phi(-sqrt(X^2)) with ``scipy.special.log_ndtr``.

    Examples
    --------
    >>> result = mcnemar_chi2(150, 86)
    >>> round(result.statistic, 3), f"{result.pvalue:.3e}"
    (17.356, '3.099e-05')
    """
    b, c = _counts(b, c)
    total = b + c
    gap = np.abs(b - c)
    if correction:
        gap = np.maximum(gap - 1.0, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(total > 0, gap / np.sqrt(total), 0.0)
    log_p = _LOG_2 + log_ndtr(-z)
    method = "chi2-corrected" if correction else "chi2"
    return _result(z * z, log_p, method, b, c)


def _check_rule(two_sided: str) -> None:
    if two_sided not in TWO_SIDED_RULES:
        raise ValueError(f"two_sided must be one of {TWO_SIDED_RULES}; got {two_sided!r}")


def _tail(b: np.ndarray, c: np.ndarray):
    """log P(X <= min(b, c)) and log P(X = min(b, c)) under Binomial(b + c, 1/2)."""
    smaller = np.minimum(b, c)
    total = b + c
    log_tail = np.zeros(total.shape)
    log_pmf = np.zeros(total.shape)
    some = total > 0
    if some.any():
        log_tail[some], log_pmf[some] = log_lower_tail_half(smaller[some], total[some])
    return smaller, total, log_tail, log_pmf


def mcnemar_exact(b: Any, c: Any, two_sided: str = "double") -> McNemarResult:
    """Exact conditional McNemar test: b | b + c ~ Binomial(b + c, 1/2) under H0.

    Notes
    -----
    p = min(1, 2 P(X <= min(b, c))).  Both two-sided rules give this value for
    the symmetric null (see the module notes).

    Examples
    --------
    >>> round(mcnemar_exact(1, 7).pvalue, 4)
    0.0703
    """
    _check_rule(two_sided)
    b, c = _counts(b, c)
    smaller, total, log_tail, _ = _tail(b, c)
    log_p = np.where(total > 0, _LOG_2 + log_tail, 0.0)
    return _result(smaller, log_p, "exact", b, c, two_sided)


def mcnemar_midp(b: Any, c: Any, two_sided: str = "double") -> McNemarResult:
    """Mid-p McNemar test: the exact p-value less half the observed outcome's probability.

    Notes
    -----
    "double": p = 2 P(X < min(b, c)) + P(X = min(b, c)), which is 1 at b = c.
    "no-more-likely": the same for b != c, and 1 - P(X = b)/2 at b = c.

    Computed as log p = log(2 P(X <= k)) + log1p(-P(X = k) / (2 P(X <= k))),
    which stays accurate in the far tail.

    Examples
    --------
    >>> round(mcnemar_midp(1, 7).pvalue, 4)
    0.0391
    """
    _check_rule(two_sided)
    b, c = _counts(b, c)
    smaller, total, log_tail, log_pmf = _tail(b, c)
    with np.errstate(divide="ignore"):
        log_p = _LOG_2 + log_tail + np.log1p(-np.exp(log_pmf - _LOG_2 - log_tail))
    tie = (b == c) & (total > 0)
    if two_sided == "double":
        log_p = np.where(tie, 0.0, log_p)
    else:
        log_p = np.where(tie, np.log1p(-0.5 * np.exp(log_pmf)), log_p)
    log_p = np.where(total > 0, log_p, 0.0)
    return _result(smaller, log_p, "mid-p", b, c, two_sided)


def mcnemar_test(b: Any, c: Any, method: str = "exact", two_sided: str = "double") -> McNemarResult:
    """Run one variant by name: "chi2", "chi2-corrected", "exact" or "mid-p"."""
    if method == "chi2":
        return mcnemar_chi2(b, c)
    if method == "chi2-corrected":
        return mcnemar_chi2(b, c, correction=True)
    if method == "exact":
        return mcnemar_exact(b, c, two_sided)
    if method == "mid-p":
        return mcnemar_midp(b, c, two_sided)
    raise ValueError(f"method must be one of {VARIANTS}; got {method!r}")


def mcnemar_all(b: Any, c: Any, two_sided: str = "double") -> dict[str, McNemarResult]:
    """Every variant at once, keyed by method name."""
    return {method: mcnemar_test(b, c, method, two_sided) for method in VARIANTS}


def binary_counts(scores_a: Any, scores_b: Any) -> tuple[int, int, int, int]:
    """(n11, n10, n01, n00) from two aligned 0/1 score vectors.

    Raises ``ValueError`` naming the vector and the index of the first item
    that is NaN or not 0/1, or when the lengths differ.

    Examples
    --------
    >>> binary_counts([1, 1, 0, 0, 1], [1, 0, 1, 0, 0])
    (1, 2, 1, 1)
    """
    a = as_binary_vector("scores_a", scores_a)
    b = as_binary_vector("scores_b", scores_b)
    if a.shape != b.shape:
        raise ValueError(f"scores_a and scores_b must have the same length; got {a.size} and {b.size}")
    a_true, b_true = a.astype(bool), b.astype(bool)
    both = int(np.count_nonzero(a_true & b_true))
    only_a = int(np.count_nonzero(a_true & ~b_true))
    only_b = int(np.count_nonzero(~a_true & b_true))
    return both, only_a, only_b, a.size - both - only_a - only_b


def as_binary_vector(name: str, values: Any) -> np.ndarray:
    array = as_array(name, values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} is empty")
    bad = ~((array == 0) | (array == 1))
    if bad.any():
        index = int(np.argmax(bad))
        raise ValueError(f"{name} must contain only 0 and 1 (binary scores); got {array[index]!r} at index {index}")
    return array
