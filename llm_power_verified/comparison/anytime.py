"""The anytime-valid comparison: the same three verdicts from a time-uniform confidence sequence of the gap.

For a monitored comparison, whose items are looked at as they arrive (in input order) and which may stop as soon as it
decides.  The per-item differences D_i = candidate - baseline lie in [-1, 1] (scores in [0, 1]).  The hedged betting
capital K_t(mu) of the sequential room (:func:`~llm_power_verified.sequential.betting.betting_confidence_sequence`,
Waudby-Smith and Ramdas 2024) is an e-process for "the mean difference is mu"; the set {mu : K_t(mu) < 1/alpha}
is a confidence sequence: with probability at least 1 - alpha it covers the true gap at every t at once (Ville's
inequality).  So a pass or a fail read from it is wrong with probability at most alpha, for every test, at every
stopping time; each end is the dual of the e-processes K_t(boundary) against a boundary.

The sequence is at level alpha, not 2 alpha as the fixed-N interval is: the capital is the average of an upward and a
downward bet, and a sequence at 2 alpha bounds the chance of missing on either side together by 2 alpha, but not the
chance of missing on one side by alpha.  The anytime verdict is therefore a little more conservative than the
fixed-N one.

The verdict is read from the running intersection [max_{s<=t} L_s, min_{s<=t} U_s] at each t by the rules of
:mod:`llm_power_verified.comparison.verdict_rules`; the first t at which it passes or fails is the item at which
the comparison decided, and since the running intersection only narrows, a verdict once reached stays.  The ends
are those of the capital on a grid of 0.002 in d, widened outward to the next grid point (so they are
conservative by at most one step), and refined by bisection to 1e-9 at the last item.
"""

from __future__ import annotations

import numpy as np

from llm_power_verified.comparison.verdict_rules import margins
from llm_power_verified.errors import ArgumentError
from llm_power_verified.sequential.betting import betting_confidence_sequence

__all__ = ["anytime_interval", "running_verdicts"]


def running_verdicts(test: str, margin: float, lower, upper) -> np.ndarray:
    """The verdict codes of a running interval at every t: 0 pass, 1 fail, 3 inconclusive.

    Parameters
    ----------
    test : {"superiority", "non-inferiority", "equivalence"}
        The test.
    margin : float
        m.
    lower, upper : array_like
        The running interval's ends at t = 1, 2, ... (lower nondecreasing, upper nonincreasing).

    Returns
    -------
    numpy.ndarray
        int codes, the exit statuses of the verdicts (``EXIT_CODES``).

    Examples
    --------
    >>> running_verdicts("non-inferiority", 0.02, [-0.5, -0.01], [0.5, 0.3]).tolist()
    [3, 0]
    """
    bound_low, bound_high = margins(test, margin)
    lower, upper = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    if test == "equivalence":
        passed = (lower > bound_low) & (upper < bound_high)
        failed = (lower >= bound_high) | (upper <= bound_low)
    else:
        passed, failed = lower > bound_low, upper <= bound_low
    return np.where(passed, 0, np.where(failed, 1, 3))


def anytime_interval(
    differences, test: str, margin: float, alpha: float
) -> tuple[tuple[float, float], int | None, list]:
    """The running confidence sequence's last interval, the item that decided, and the notes.

    Parameters
    ----------
    differences : array_like
        The per-item differences candidate - baseline in input order, each in [-1, 1].
    test : {"superiority", "non-inferiority", "equivalence"}
        The test.
    margin : float
        m.
    alpha : float
        The level of each one-sided test, in (0, 0.5).

    Returns
    -------
    tuple
        ((L, U) of the running intersection after the last item, the first item at which the verdict was pass or
        fail (None: never), notes).

    Raises
    ------
    ArgumentError
        A difference outside [-1, 1] (scores outside [0, 1]), or a running intersection that becomes empty (the
        sequence contradicts itself: the items are probably not in a random order).
    """
    values = np.asarray(differences, dtype=np.float64)
    outside = np.flatnonzero(np.abs(values) > 1)
    if outside.size:
        index = int(outside[0])
        raise ArgumentError(
            f"--anytime needs scores in [0, 1]: item {index + 1} has the difference {float(values[index])!r} outside "
            "[-1, 1]; rescale the scores, or leave --anytime out"
        )
    sequence = betting_confidence_sequence(values, alpha)
    lower = np.maximum.accumulate(sequence.lower)
    upper = np.minimum.accumulate(sequence.upper)
    crossed = np.flatnonzero(lower > upper)
    if crossed.size:
        # Each interval covers the mean at every t with probability 1 - alpha when the items arrive in random
        # order; an empty running intersection means two of them exclude each other, which a verdict cannot use.
        at = int(crossed[0])
        raise ArgumentError(
            f"--anytime: the confidence sequence contradicts itself at item {at + 1:,} (its running intersection is "
            f"empty: an earlier lower end {float(lower[at])!r} exceeds the upper end {float(upper[at])!r}); that "
            "happens with probability at most alpha when the items arrive in random order, so this input's order "
            "is probably not random (sorted, or grouped by topic): put the items in their arrival order, or leave "
            "--anytime out (the fixed-N interval does not depend on the order)"
        )
    codes = running_verdicts(test, margin, lower, upper)
    decided = np.flatnonzero(codes != 3)
    decided_at = int(decided[0]) + 1 if decided.size else None
    notes = [
        "anytime-valid: the items in input order; the betting confidence sequence at level alpha (a verdict is "
        "wrong with probability at most alpha at any stopping time), running intersection"
        + (f"; decided at item {decided_at:,} of {values.size:,}" if decided_at else "; not decided")
    ]
    return (float(lower[-1]), float(upper[-1])), decided_at, notes
