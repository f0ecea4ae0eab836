"""The three verdicts of one named comparison, read from the (1 - 2 alpha) interval of the gap.

The gap is d = candidate - baseline.  Each test has an alternative, a region of d:

* superiority at margin m >= 0: d > m (the candidate is better by more than m);
* non-inferiority at margin m > 0: d > -m (the candidate is worse by less than m);
* equivalence at margin m > 0: -m < d < m (the two differ by less than m).

With [L, U] the (1 - 2 alpha) interval (each end a one-sided test at alpha, Schuirmann's two one-sided tests):

* **pass**: the whole interval lies inside the alternative (superiority L > m; non-inferiority L > -m;
  equivalence -m < L and U < m);
* **fail**: no point of the interval lies in the alternative, so its opposite is shown (superiority U <= m;
  non-inferiority U <= -m, the whole interval at or below -m; equivalence L >= m or U <= -m);
* **inconclusive**: neither.

The alternative is an open region and the interval closed, so an end exactly at the margin neither passes (the margin
is still in the interval) nor keeps a superiority or non-inferiority test from failing.
"""

from __future__ import annotations

from llm_power_verified.contract.documents import COMPARE_EXIT_CODES as EXIT_CODES
from llm_power_verified.contract.documents import COMPARE_TESTS as TESTS
from llm_power_verified.contract.documents import COMPARE_VERDICTS as VERDICTS
from llm_power_verified.errors import ArgumentError

__all__ = ["EXIT_CODES", "TESTS", "VERDICTS", "check_margin", "exit_code", "margins", "verdict"]


def check_margin(test: str, margin: float) -> float:
    """The margin as a float, refused with one line when the test does not allow it.

    Parameters
    ----------
    test : {"superiority", "non-inferiority", "equivalence"}
        The test.
    margin : float
        m, in score units: >= 0 for superiority, > 0 for the other two, below 1.

    Returns
    -------
    float
        The margin.

    Raises
    ------
    ArgumentError
        An unknown test, or a margin outside what the test allows (the message names ``--margin``).
    """
    if test not in TESTS:
        raise ArgumentError(f"test must be one of {', '.join(TESTS)}; got {test!r}")
    margin = float(margin)
    low = 0.0 if test == "superiority" else None
    if not (margin >= 0 if low == 0.0 else margin > 0) or not margin < 1:
        allowed = "in [0, 1)" if test == "superiority" else "in (0, 1) (a gap in score units, 0.02 = 2 points)"
        raise ArgumentError(f"--margin {margin!r}: the {test} test takes a margin {allowed}")
    return margin


def margins(test: str, margin: float) -> tuple[float, float]:
    """The two null boundaries (low, high) of the test's one-sided p-values.

    ``p_low`` is the p of H0: d <= low (small when d is shown above it); ``p_high`` the p of H0: d >= high.

    Parameters
    ----------
    test : {"superiority", "non-inferiority", "equivalence"}
        The test.
    margin : float
        m >= 0.

    Returns
    -------
    tuple of float
        Superiority (m, m); non-inferiority (-m, -m); equivalence (-m, m).

    Examples
    --------
    >>> margins("equivalence", 0.02)
    (-0.02, 0.02)
    """
    margin = check_margin(test, margin)
    return {"superiority": (margin, margin), "non-inferiority": (-margin, -margin)}.get(test, (-margin, margin))


def verdict(test: str, margin: float, low: float, high: float) -> str:
    """Pass, fail or inconclusive, from the (1 - 2 alpha) interval [low, high] of d = candidate - baseline.

    Parameters
    ----------
    test : {"superiority", "non-inferiority", "equivalence"}
        The test.
    margin : float
        m in score units (>= 0 for superiority, > 0 otherwise).
    low, high : float
        The interval's ends, low <= high.

    Returns
    -------
    str
        "pass", "fail" or "inconclusive".

    Raises
    ------
    ArgumentError
        A margin the test does not take, or an interval that is not one (NaN, low > high).

    Notes
    -----
    Pass: [L, U] inside the open alternative; fail: [L, U] disjoint from it (module notes).

    Examples
    --------
    >>> verdict("non-inferiority", 0.02, -0.015, 0.01), verdict("non-inferiority", 0.02, -0.05, -0.02)
    ('pass', 'fail')
    >>> verdict("equivalence", 0.02, -0.03, 0.01)
    'inconclusive'
    """
    bound_low, bound_high = margins(test, margin)
    low, high = float(low), float(high)
    if not low <= high:
        raise ArgumentError(f"the interval must have low <= high and no NaN; got [{low!r}, {high!r}]")
    if test == "equivalence":
        if bound_low < low and high < bound_high:
            return "pass"
        return "fail" if low >= bound_high or high <= bound_low else "inconclusive"
    if low > bound_low:
        return "pass"
    return "fail" if high <= bound_low else "inconclusive"


def exit_code(outcome: str, inconclusive: str | None = None) -> int:
    """The exit status of a verdict: 0 pass, 1 fail, 3 inconclusive (or what ``inconclusive`` maps it to).

    Parameters
    ----------
    outcome : {"pass", "fail", "inconclusive"}
        The verdict.
    inconclusive : {"pass", "fail"}, optional
        Map an inconclusive verdict to this one's status (``--inconclusive``).

    Returns
    -------
    int
        The status.

    Examples
    --------
    >>> exit_code("inconclusive"), exit_code("inconclusive", "fail"), exit_code("pass", "fail")
    (3, 1, 0)
    """
    if outcome not in VERDICTS:
        raise ArgumentError(f"verdict must be one of {', '.join(VERDICTS)}; got {outcome!r}")
    if inconclusive is not None and inconclusive not in VERDICTS[:2]:
        raise ArgumentError(f"inconclusive must be pass or fail; got {inconclusive!r}")
    return EXIT_CODES[inconclusive if outcome == "inconclusive" and inconclusive else outcome]
