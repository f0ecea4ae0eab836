"""Hypothesis strategies over the admissible domain of a paired comparison, for anyone's test suite.

Every strategy draws readable values, so that a failing example shrinks to something a person can retype:
accuracies in whole thousandths (shrinking toward 0.5), correlations in whole hundredths inside the admissible
interval (shrinking toward 0), levels and powers from the usual values first (0.05, 0.8), counts as whole numbers
(shrinking toward small ones).  Use them with ``@given`` or ``hypothesis.find``::

    from hypothesis import given
    from llm_power_verified.testing import strategies

    @given(strategies.designs())
    def test_my_calculator(design):
        assert my_required_n(**design) > 0
"""

from __future__ import annotations

import math

import hypothesis.strategies as st
import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.power.correlation import admissible_rho_interval

__all__ = ["alphas", "designs", "discordant_counts", "effect_sizes", "graded_differences", "powers", "sample_sizes"]

#: Significance levels tried first (a failing example shrinks to the first, 0.05).
COMMON_ALPHAS = (0.05, 0.01, 0.1, 0.005, 0.001, 0.025)
#: Target powers tried first (shrinking to 0.8).
COMMON_POWERS = (0.8, 0.9, 0.95, 0.5, 0.99)
#: Effect sizes d = mean / sd tried first (Cohen's small, medium, large; shrinking to 0.5).
COMMON_EFFECTS = (0.5, 0.2, 0.8, 1.0)


def alphas() -> st.SearchStrategy[float]:
    """Significance levels: a common value, or a whole number of thousandths in [0.001, 0.2].

    Returns
    -------
    hypothesis.strategies.SearchStrategy of float
        Draws 0.05, 0.01, 0.1, 0.005, 0.001, 0.025 or k/1000 for k in 1..200; shrinks to 0.05.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(alphas(), lambda alpha: True)  # the shrink target
    0.05
    """
    return st.one_of(st.sampled_from(COMMON_ALPHAS), st.integers(1, 200).map(lambda k: k / 1000))


def powers() -> st.SearchStrategy[float]:
    """Target powers: a common value, or a whole number of hundredths in [0.5, 0.99].

    Returns
    -------
    hypothesis.strategies.SearchStrategy of float
        Draws 0.8, 0.9, 0.95, 0.5, 0.99 or k/100 for k in 50..99 (always above every level :func:`alphas` draws);
        shrinks to 0.8.

    Examples
    --------
    >>> from hypothesis import find
    >>> 0.9 < find(powers(), lambda power: power > 0.9) < 1
    True
    """
    return st.one_of(st.sampled_from(COMMON_POWERS), st.integers(50, 99).map(lambda k: k / 100))


def _rho_hundredths(p_a: float, p_b: float) -> tuple[int, int]:
    """The whole hundredths j with j/100 inside the admissible interval of (p_a, p_b)."""
    low, high = (float(bound) for bound in admissible_rho_interval(p_a, p_b))
    first, last = math.ceil(low * 100), math.floor(high * 100)
    while first / 100 < low:
        first += 1
    while last / 100 > high:
        last -= 1
    return first, last


@st.composite
def _designs(draw, min_gap: int, max_gap: int, with_rho: bool, alpha, power) -> dict[str, float]:
    gap = draw(st.integers(min_gap, max_gap))  # in thousandths, shrinking to min_gap
    upward = draw(st.booleans())  # False (the shrink target): p_b below p_a
    low, high = (1, 999 - gap) if upward else (1 + gap, 999)
    k_a = 500 + draw(st.integers(low - 500, high - 500))  # shrinking toward p_a = 0.5 (or the nearest allowed)
    k_b = k_a + gap if upward else k_a - gap
    p_a, p_b = k_a / 1000, k_b / 1000
    rho = 0.0
    if with_rho:
        first, last = _rho_hundredths(p_a, p_b)
        rho = draw(st.integers(first, last)) / 100
    return {"p_a": p_a, "p_b": p_b, "rho": rho, "alpha": draw(alpha), "power": draw(power)}


def designs(min_gap: float = 0.0, max_gap: float = 0.5, rho: bool = True) -> st.SearchStrategy[dict[str, float]]:
    """Paired designs (p_a, p_b, rho, alpha, power) inside the admissible domain.

    Parameters
    ----------
    min_gap : float, default 0.0
        Smallest abs(p_a - p_b) (at least one thousandth is always kept: p_a != p_b).
    max_gap : float, default 0.5
        Largest abs(p_a - p_b), at most 0.998.
    rho : bool, default True
        Draw rho inside the admissible interval; False fixes rho = 0 (independent scores).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of dict of str to float
        Dicts with keys p_a, p_b, rho, alpha, power: p_a and p_b whole thousandths in [0.001, 0.999] with their gap in
        [min_gap, max_gap] (rounded to thousandths); rho whole hundredths inside
        :func:`~llm_power_verified.power.correlation.admissible_rho_interval`; alpha from :func:`alphas`, power from
        :func:`powers`.  Every dict is a valid keyword set for a required-N function.

    Notes
    -----
    Shrinks toward p_a = 0.5, the smallest allowed gap, p_b below p_a, rho = 0, alpha = 0.05 and power = 0.8.

    Examples
    --------
    >>> from hypothesis import find
    >>> design = find(designs(), lambda design: design["p_a"] - design["p_b"] > 0.1)
    >>> sorted(design), [round(design[key] * 1000) == design[key] * 1000 for key in ("p_a", "p_b")]
    (['alpha', 'p_a', 'p_b', 'power', 'rho'], [True, True])
    """
    if not 0 <= min_gap <= max_gap <= 0.998:
        raise ArgumentError(f"need 0 <= min_gap <= max_gap <= 0.998; got min_gap {min_gap!r}, max_gap {max_gap!r}")
    low, high = max(1, math.ceil(min_gap * 1000 - 1e-9)), math.floor(max_gap * 1000 + 1e-9)
    if high < low:
        raise ArgumentError(f"max_gap must allow a gap of at least 0.001 above min_gap; got {max_gap!r}")
    return _designs(low, high, rho, alphas(), powers())


def discordant_counts(max_total: int = 10**7, min_total: int = 0) -> st.SearchStrategy[tuple[int, int]]:
    """Discordant counts (b, c) of a McNemar test, up to ``max_total`` pairs.

    Parameters
    ----------
    max_total : int, default 10**7
        Largest b + c.
    min_total : int, default 0
        Smallest b + c.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of tuple of int
        Pairs of whole numbers.  One third of the draws are small (b, c <= 50), one third moderate (total up to
        10^4, any split), one third large (total up to ``max_total``, split near the middle, where exact tails are
        longest and overflow thresholds sit), so that totals above 10^6 are drawn in every run of a few dozen
        examples.

    Notes
    -----
    Shrinks toward small counts: (0, 0) when min_total is 0, and within the large branch toward its smallest total
    split in half.

    Examples
    --------
    >>> from hypothesis import find
    >>> b, c = find(discordant_counts(), lambda bc: sum(bc) > 1000)
    >>> 1000 < b + c <= 10**7
    True
    """
    if not 0 <= min_total <= max_total:
        raise ArgumentError(f"need 0 <= min_total <= max_total; got min_total {min_total!r}, max_total {max_total!r}")

    def split(total: int) -> st.SearchStrategy[tuple[int, int]]:
        return st.integers(0, total).map(lambda b: (b, total - b))

    def middle(total: int) -> st.SearchStrategy[tuple[int, int]]:
        half = total // 2
        return st.integers(-min(half, 1000), min(half, 1000)).map(lambda shift: (half + shift, total - half - shift))

    branches = []
    small = min(50, max_total)
    if min_total <= 20:  # above that, too many small pairs would be filtered out
        branches.append(
            st.tuples(st.integers(0, small), st.integers(0, small)).filter(lambda bc: min_total <= sum(bc) <= max_total)
        )
    moderate = min(10**4, max_total)
    if moderate >= min_total:
        branches.append(st.integers(max(min_total, 0), moderate).flatmap(split))
    if max_total > 10**4:
        branches.append(st.integers(max(min_total, 10**4 + 1), max_total).flatmap(middle))
    return st.one_of(branches)


def sample_sizes(max_n: int = 10**6, min_n: int = 2) -> st.SearchStrategy[int]:
    """Numbers of items (or pairs): whole numbers in [min_n, max_n].

    Parameters
    ----------
    max_n : int, default 10**6
        Largest n.
    min_n : int, default 2
        Smallest n (2: the fewest pairs a paired t test can use).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of int
        Half the draws up to 1,000 (or max_n), half over the whole range; shrinks to min_n.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(sample_sizes(), lambda n: n > 100)  # the smallest n that passes
    101
    """
    if not 1 <= min_n <= max_n:
        raise ArgumentError(f"need 1 <= min_n <= max_n; got min_n {min_n!r}, max_n {max_n!r}")
    return st.one_of(st.integers(min_n, max(min_n, min(1000, max_n))), st.integers(min_n, max_n))


def effect_sizes(max_effect: float = 3.0, negative: bool = True) -> st.SearchStrategy[float]:
    """Nonzero effect sizes d = mean / sd of a paired difference, for the paired t test.

    Parameters
    ----------
    max_effect : float, default 3.0
        Largest abs(d).
    negative : bool, default True
        Also draw negative effects.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of float
        0.5, 0.2, 0.8, 1.0 or a whole number of hundredths in [0.01, max_effect], with either sign when
        ``negative``; shrinks to 0.5.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(effect_sizes(), lambda d: d < 0) < 0
    True
    """
    top = math.floor(max_effect * 100 + 1e-9)
    if top < 1:
        raise ArgumentError(f"max_effect must be at least 0.01; got {max_effect!r}")
    common = [d for d in COMMON_EFFECTS if d <= max_effect]
    magnitude = (
        st.one_of(st.sampled_from(common), st.integers(1, top).map(lambda k: k / 100))
        if common
        else (st.integers(1, top).map(lambda k: k / 100))
    )
    if not negative:
        return magnitude
    return st.tuples(magnitude, st.booleans()).map(lambda pair: -pair[0] if pair[1] else pair[0])


@st.composite
def _differences(draw, min_size: int, max_size: int, grid: int) -> np.ndarray:
    steps = draw(st.lists(st.integers(-grid, grid), min_size=min_size, max_size=max_size))
    if len(set(steps)) == 1:  # degenerate (zero variance): move the last item one step
        steps[-1] += 1 if steps[-1] < grid else -1
    return np.asarray(steps, dtype=np.float64) / grid


def graded_differences(min_size: int = 2, max_size: int = 200, grid: int = 100) -> st.SearchStrategy[np.ndarray]:
    """Per-item differences of graded scores (model A's score minus model B's), each in [-1, 1].

    Parameters
    ----------
    min_size : int, default 2
        Fewest items, >= 2.
    max_size : int, default 200
        Most items.
    grid : int, default 100
        Values are whole multiples of 1/grid (hundredths by default; 4 gives quarter-point grades).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of numpy.ndarray
        float64 arrays of length in [min_size, max_size], values j/grid in [-1, 1], never NaN, never all equal (the
        sample standard deviation is positive).

    Notes
    -----
    Shrinks toward the shortest array of zeros with one item one step off (e.g. [0, 0.01]).

    Examples
    --------
    >>> from hypothesis import find
    >>> differences = find(graded_differences(), lambda x: x.mean() > 0.2)
    >>> len(differences), bool(differences.std() > 0), bool(abs(differences).max() <= 1)
    (2, True, True)
    """
    if not 2 <= min_size <= max_size:
        raise ArgumentError(f"need 2 <= min_size <= max_size; got min_size {min_size!r}, max_size {max_size!r}")
    if isinstance(grid, bool) or not isinstance(grid, int) or grid < 1:
        raise ArgumentError(f"grid must be a whole number >= 1; got {grid!r}")
    return _differences(min_size, max_size, grid)
