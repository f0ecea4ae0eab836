"""Paired tests against a margin: non-inferiority, equivalence and their intervals, for 0/1 and graded scores.

Sign conventions: b items only model A solves, c items only model B solves, n paired items; the gap is
d = p_A - p_B = p10 - p01, estimated by (b - c) / n.  A margin is in score units (0.02 = 2 points).

0/1 scores: Tango's (1998) score test of H0: d = margin, with the discordant cells estimated under H0 by
restricted maximum likelihood (closed form derived in ``derivations/margin_score.py`` and generated), its
inverted confidence interval, and Nam's (1997) power and sample size.  Graded scores: the paired t-test of
H0: mean difference = margin and its interval (statsmodels' ``ttost_paired`` is the reference in the tests).

``alternative`` takes the glossary's values: "larger" (H0 d <= margin), "smaller" (H0 d >= margin) and
"two-sided" (H0 d = margin, the default).
Equivalence and non-inferiority use one-sided tests at alpha each, i.e. the (1 - 2 alpha) interval
(Schuirmann's two one-sided tests).

Edge cases (each is a limit of the statistic, not a clamp):

* b = c = 0 and margin = 0: Z = 0/0; it is taken as 0 (one-sided p = 1/2, two-sided p = 1), the limit of Z as the
  margin tends to 0 from either side; no discordant item carries no evidence either way.
* margin = 1 (or -1): the restricted cells are p10~ = 1, p01~ = 0 (or the reverse) and the null variance is 0, so
  Z = -inf unless b = n (Z = +inf unless c = n); at b = n (c = n) Z is taken as 0, its limit as the margin tends
  to +-1.  The interval of a table with b = n therefore ends at 1 (with c = n it starts at -1).
* b + c = n (no item both or neither solve): the restricted cells lie on the edge p10~ + p01~ = 1, at
  p01~ = (1 - margin) / 2, a root of the same quadratic; Z = (b - c - n margin) / sqrt(n (1 - margin^2)).
* n = 0 is refused (``ArgumentError`` naming n), as is b + c > n.
* graded scores with sd = 0: t = +-inf where mean != margin, and 0 (p = 1/2) where mean = margin.
* NaN in any input gives NaN (an outcome of None) in that element.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import stdtr, stdtrit

from llm_power_verified._validation import as_array, check_count, check_positive, describe_index, finish
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.margin_power import TESTS, margin_power, margin_required_n
from llm_power_verified.inference.margin_tango import (
    ALTERNATIVES,
    check_alternative,
    check_confidence,
    margin_score_interval,
    margin_score_pvalue,
    margin_score_z,
    restricted_discordance,
)

__all__ = [
    "ALTERNATIVES",
    "EQUIVALENCE_OUTCOMES",
    "TESTS",
    "equivalence_outcome",
    "margin_power",
    "margin_required_n",
    "margin_score_interval",
    "margin_score_pvalue",
    "margin_score_z",
    "paired_t_interval",
    "paired_t_margin",
    "restricted_discordance",
]

#: The four outcomes of an equivalence analysis (Lakens 2017), in the order of :func:`equivalence_outcome`.
EQUIVALENCE_OUTCOMES = (
    "different, not equivalent",
    "equivalent, not different",
    "different, within the margin",
    "inconclusive",
)


def paired_t_margin(mean: Any, sd: Any, n: Any, margin: Any, alternative: str = "two-sided") -> tuple[Any, Any]:
    """Paired t-test of the mean difference against a margin, for graded scores.

    Parameters
    ----------
    mean : array_like
        Mean of the per-item differences A - B.
    sd : array_like
        Sample standard deviation (ddof = 1) of the differences, >= 0.
    n : array_like
        Number of paired items, a whole number >= 2.
    margin : array_like
        The boundary of H0, any finite number (score units).
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        "larger": H0 mean <= margin, p = P(T >= t); "smaller": H0 mean >= margin; "two-sided": H0 mean = margin.

    Returns
    -------
    t, p : float or numpy.ndarray
        t = (mean - margin) / (sd / sqrt(n)) on n - 1 degrees of freedom, and the one-sided p-value.

    Notes
    -----
    The two one-sided tests of ``statsmodels.stats.weightstats.ttost_paired`` at margins (-m, m) are
    ``paired_t_margin(mean, sd, n, -m, "larger")`` and ``paired_t_margin(mean, sd, n, m, "smaller")``.
    sd = 0 gives t = +-inf, or 0 (p = 1/2) where mean = margin.  No closed form is generated.

    References
    ----------
    Schuirmann, D. J. (1987). J. Pharmacokinet. Biopharm. 15, 657-680.

    Examples
    --------
    >>> t, p = paired_t_margin(0.01, 0.2, 400, -0.02, "larger")
    >>> round(t, 6), round(p, 6)
    (3.0, 0.001435)
    """
    alternative = check_alternative(alternative)
    mean = as_array("mean", mean)
    sd = check_positive("sd", sd, allow_zero=True)
    n = check_count("n", n, minimum=2)
    margin = as_array("margin", margin)
    bad = ~np.isnan(margin) & ~np.isfinite(margin)
    if bad.any():
        raise ArgumentError(f"margin must be finite; got {margin[bad].flat[0]:g}{describe_index(bad)}")
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - margin) / (sd / np.sqrt(n))
    t = np.where(np.isnan(t) & ~np.isnan(mean + sd + n + margin), 0.0, t)
    with np.errstate(invalid="ignore"):
        if alternative == "two-sided":
            p = np.minimum(2.0 * stdtr(n - 1, -np.abs(t)), 1.0)
        else:
            p = stdtr(n - 1, -t) if alternative == "larger" else stdtr(n - 1, t)
    return finish(t), finish(p)


def paired_t_interval(mean: Any, sd: Any, n: Any, confidence: Any = 0.95) -> tuple[Any, Any]:
    """The paired t confidence interval of the mean difference, mean +- t_{(1+confidence)/2, n-1} sd / sqrt(n).

    Parameters
    ----------
    mean : array_like
        Mean of the per-item differences A - B.
    sd : array_like
        Sample standard deviation (ddof = 1) of the differences, >= 0.
    n : array_like
        Number of paired items, a whole number >= 2.
    confidence : array_like, default 0.95
        Confidence level, in (0, 1).

    Returns
    -------
    low, high : float or numpy.ndarray
        The interval's ends.

    Notes
    -----
    Dual to :func:`paired_t_margin`: a margin outside the interval is rejected by the one-sided test on its side at
    (1 - confidence) / 2.

    References
    ----------
    Student (1908); Schuirmann (1987).

    Examples
    --------
    >>> low, high = paired_t_interval(0.01, 0.2, 400, 0.9)
    >>> round(low, 6), round(high, 6)
    (-0.006487, 0.026487)
    """
    mean = as_array("mean", mean)
    sd = check_positive("sd", sd, allow_zero=True)
    n = check_count("n", n, minimum=2)
    confidence = check_confidence(confidence)
    half_width = -stdtrit(n - 1, (1.0 - confidence) / 2.0) * sd / np.sqrt(n)
    return finish(mean - half_width), finish(mean + half_width)


def equivalence_outcome(different: Any, low: Any, high: Any, margin: Any) -> Any:
    """The four outcomes of an equivalence analysis (Lakens 2017) from a difference test and an interval.

    Parameters
    ----------
    different : array_like of bool
        Whether the difference test (H0: d = 0) rejects at alpha, per pair (the caller decides the test and level).
    low, high : array_like
        The (1 - 2 alpha) interval of d.
    margin : array_like
        The equivalence margin m > 0.

    Returns
    -------
    str or numpy.ndarray
        One of ``EQUIVALENCE_OUTCOMES`` per element (an object array for array input; None where low or high is
        NaN).

    Notes
    -----
    Equivalent means -m < low and high < m (both one-sided tests reject at alpha; TOST).  Then: different and
    not equivalent; equivalent and not different; different but within the margin (both); inconclusive (neither).

    References
    ----------
    Lakens, D. (2017). Equivalence tests: a practical primer for t tests, correlations, and meta-analyses.
    Social Psychological and Personality Science 8(4), 355-362.

    Examples
    --------
    >>> equivalence_outcome(True, 0.001, 0.015, 0.02)
    'different, within the margin'
    >>> equivalence_outcome([False, True], [-0.03, 0.03], [0.01, 0.05], 0.02).tolist()
    ['inconclusive', 'different, not equivalent']
    """
    different = np.asarray(different)
    if different.dtype != np.bool_:
        raise ArgumentError(f"different must be booleans (the difference test rejected); got dtype {different.dtype}")
    low = as_array("low", low)
    high = as_array("high", high)
    margin = check_positive("margin", margin)
    with np.errstate(invalid="ignore"):
        equivalent = (-margin < low) & (high < margin)
    different, equivalent, missing = np.broadcast_arrays(different, equivalent, np.isnan(low + high + margin))
    index = np.where(different, np.where(equivalent, 2, 0), np.where(equivalent, 1, 3))
    chosen = np.where(missing, 4, index)
    outcomes = np.array((*EQUIVALENCE_OUTCOMES, None), dtype=object)[chosen]
    return outcomes if chosen.ndim else EQUIVALENCE_OUTCOMES[int(chosen)] if not missing else None
