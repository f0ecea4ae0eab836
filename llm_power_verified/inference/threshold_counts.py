r"""Exact Holm, Benjamini-Hochberg and e-BH decisions from counts of values below thresholds, pass by pass.

A family of m p-values (for example the K (K - 1) / 2 pairs of a large leaderboard, computed in tiles on Dask) is
decided here without any process holding all of them: each pass sends a few thousand candidate thresholds to every
chunk, each chunk returns how many of its values fall between consecutive thresholds (:func:`chunk_counts`, a summary
whose size is the number of thresholds, never the chunk's size), and the client adds the summaries
(:func:`absorb`) and chooses the next pass's thresholds (:func:`next_plan`).
:func:`~llm_power_verified.inference.threshold_decisions.family_decisions` and
:func:`~llm_power_verified.inference.threshold_decisions.e_bh_decision` drive the passes over a chunk factory.

What counts decide
------------------
With F(t) = #{p <= t}, p_(i) <= t exactly when F(t) >= i, so each step of a step-down or step-up procedure is
decided by F at that step's threshold:

* Holm rejects the steps before the first i with p_(i) above t_i; t_i is the largest double p with
  ``(m - i + 1) * p <= alpha`` in floating point, the test :func:`~.multiplicity.adjust_pvalues` applies through
  its adjusted p-values (``adjusted <= alpha``).
* Benjamini-Hochberg rejects the R smallest p-values, R = max{i : F(u_i) >= i}, u_i the largest double p with
  ``m * p / i <= alpha`` as :func:`~.multiplicity.adjust_pvalues` computes it.
* e-BH rejects the R largest e-values, R = max{k : #{log e >= l_k} >= k}, l_k = ``np.log(m / (alpha * k))`` as
  ``e_bh`` (sequential/e_process.py) computes it (counted as -log e <= -l_k).

The thresholds are computed with the same floating-point operations as the in-memory code, so the decisions are
equal, including for a p-value that equals a threshold.  Pass 1 counts at up to ``bins`` evenly spaced steps; a
stretch of steps between two counted ones is settled when the counts at its ends decide every step inside
(all pass, or all fail); the unsettled stretches nearest the answer get the next pass's thresholds.  A family whose
sorted p-values hug the thresholds over a long stretch may need more passes (each pass settles ``bins`` steps at
least); typical families need two.

What counts cannot give
-----------------------
The decisions are rank-free: a chunk marks each pair rejected by ``p <= cut``
(:class:`~llm_power_verified.inference.threshold_decisions.FamilyDecisions`).  Holm's
per-pair step level alpha / (m - k + 1) and the adjusted p-values need each pair's rank k (ties in input order);
counts bound a rank between the counts at the known thresholds either side of its p-value
(:func:`~llm_power_verified.inference.threshold_decisions.rank_bounds`),
exact only where those two counts meet.  Exact per-pair ranks, levels and adjusted p-values across chunks need a
distributed sort by (p, position), which is out of scope here.  The e-BH cut assumes ``np.log`` is non-decreasing
(the thresholds of each pass are checked to be sorted).

References
----------
Holm, S. (1979). Scand. J. Stat. 6, 65-70.  Benjamini, Y. and Hochberg, Y. (1995). J. R. Stat. Soc. B 57, 289-300.
Wang, R. and Ramdas, A. (2022). False discovery rate control with e-values. J. R. Stat. Soc. B 84, 822-852.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from llm_power_verified.errors import ArgumentError
from llm_power_verified.results import Result

__all__ = [
    "PROCEDURES",
    "CountPlan",
    "StepState",
    "absorb",
    "chunk_counts",
    "decided_rejections",
    "next_plan",
    "start",
    "step_thresholds",
]

#: Step-down (first failing step ends the rejections) or step-up (the last passing step), by procedure.
PROCEDURES = {"holm": "down", "bh": "up", "e-bh": "up"}
DEFAULT_BINS = 65_536


@dataclass(frozen=True, repr=False)
class CountPlan(Result):
    """The thresholds one pass counts at: sent to every chunk.

    Attributes
    ----------
    procedure : {"holm", "bh", "e-bh"}
        The procedure whose steps the thresholds belong to.
    steps : numpy.ndarray
        The step indices (1 .. m, increasing) whose thresholds are counted.
    edges : numpy.ndarray
        Their thresholds on the counting scale (p for Holm and BH, -log e for e-BH), non-decreasing.
    """

    procedure: str
    steps: np.ndarray
    edges: np.ndarray


@dataclass(frozen=True, repr=False)
class StepState(Result):
    """What the client knows of one procedure: F at some steps' thresholds.

    Attributes
    ----------
    procedure : {"holm", "bh", "e-bh"}
        The procedure.
    family_size : int
        m, the number of values in the family.
    alpha : float
        The level.
    steps : numpy.ndarray
        Known step indices, increasing, with the sentinels 0 and m + 1.
    edges : numpy.ndarray
        Their thresholds on the counting scale (-inf and +inf at the sentinels).
    below : numpy.ndarray
        F at those thresholds: how many values of the family are at or below each.
    passes : int
        Passes absorbed so far.
    largest_plan : int
        The most thresholds one pass of this procedure counted at.
    """

    procedure: str
    family_size: int
    alpha: float
    steps: np.ndarray
    edges: np.ndarray
    below: np.ndarray
    passes: int
    largest_plan: int


def check_alpha(alpha: Any) -> float:
    value = float(alpha)
    if not 0 < value < 1:
        raise ArgumentError(f"alpha must be in (0, 1); got {alpha!r}")
    return value


def _largest_passing(rule: Callable[[np.ndarray], np.ndarray], estimate: np.ndarray) -> np.ndarray:
    """The largest double x in [0, 1] with rule(x), rule non-increasing in truth as x grows and rule(0) true."""
    x = np.clip(estimate, 0.0, 1.0)
    for _ in range(4096):
        down = ~rule(x)
        up_value = np.nextafter(x, np.inf)
        up = ~down & (x < 1.0) & rule(up_value)
        if not (down.any() or up.any()):
            return x
        x = np.where(down, np.nextafter(x, -np.inf), np.where(up, up_value, x))
    raise RuntimeError("threshold search did not settle within 4096 ulps")  # pragma: no cover


def step_thresholds(procedure: str, steps: Any, family_size: int, alpha: float = 0.05) -> np.ndarray:
    """The thresholds of the given steps on the counting scale, by the in-memory code's floating-point formula.

    Parameters
    ----------
    procedure : {"holm", "bh", "e-bh"}
        The procedure.
    steps : array_like of int
        Step indices i in 1 .. m.
    family_size : int
        m.
    alpha : float, default 0.05
        The level, in (0, 1).

    Returns
    -------
    numpy.ndarray
        Holm: the largest double p with ``(m - i + 1) * p <= alpha``; BH: the largest double p with
        ``m * p / i <= alpha``; e-BH: ``-np.log(m / (alpha * i))`` (a value v counts when -log e <= v).

    Notes
    -----
    A p-value is at or below Holm's threshold of step i exactly when
    :func:`~llm_power_verified.inference.multiplicity.adjust_pvalues` would find min(1, (m - i + 1) p) <= alpha at
    that step, and likewise for BH's min(1, m p / i); both products are monotone in p, so the largest passing
    double is found from alpha / (m - i + 1) (or alpha i / m) by stepping a few ulps.

    References
    ----------
    Holm (1979) Scand. J. Stat. 6, 65-70; Benjamini and Hochberg (1995) JRSS B 57, 289-300; Wang and Ramdas (2022)
    JRSS B 84, 822-852.

    Examples
    --------
    >>> step_thresholds("holm", [1, 2, 3], 3, 0.05).round(6).tolist()
    [0.016667, 0.025, 0.05]
    >>> step_thresholds("bh", [1, 3], 3, 0.05).round(6).tolist()
    [0.016667, 0.05]
    """
    if procedure not in PROCEDURES:
        raise ArgumentError(f"procedure must be one of {tuple(PROCEDURES)}; got {procedure!r}")
    alpha = check_alpha(alpha)
    if isinstance(family_size, bool) or not isinstance(family_size, (int, np.integer)) or family_size < 1:
        raise ArgumentError(f"family_size must be a whole number >= 1; got {family_size!r}")
    given = np.asarray(steps)
    if given.dtype.kind not in "iu" or (given.size and not (given.min() >= 1 and given.max() <= family_size)):
        raise ArgumentError(f"steps must be whole numbers from 1 to family_size ({family_size}); got {given!r}"[:300])
    steps = given.astype(np.int64)
    m = int(family_size)
    if procedure == "e-bh":
        return -np.log(m / (alpha * steps))
    if procedure == "holm":
        factor = (m - steps + 1).astype(np.float64)
        return _largest_passing(lambda p: factor * p <= alpha, alpha / factor)
    size, rank = np.float64(m), steps.astype(np.float64)
    return _largest_passing(lambda p: size * p / rank <= alpha, alpha * rank / size)


def start(procedure: str, family_size: int, alpha: float = 0.05) -> StepState:
    """What the client knows before any pass: F(-inf) = 0 and F(+inf) = m.

    Parameters
    ----------
    procedure : {"holm", "bh", "e-bh"}
        The procedure.
    family_size : int
        m, the number of values the chunks hold together (whole number >= 0).
    alpha : float, default 0.05
        The level, in (0, 1).

    Returns
    -------
    StepState
        The state with only the two sentinel steps 0 and m + 1.

    Examples
    --------
    >>> start("bh", 10).steps.tolist()
    [0, 11]
    """
    if procedure not in PROCEDURES:
        raise ArgumentError(f"procedure must be one of {tuple(PROCEDURES)}; got {procedure!r}")
    if isinstance(family_size, bool) or int(family_size) != family_size or family_size < 0:
        raise ArgumentError(f"family_size must be a whole number >= 0; got {family_size!r}")
    m = int(family_size)
    return StepState(
        procedure=procedure,
        family_size=m,
        alpha=check_alpha(alpha),
        steps=np.array([0, m + 1], dtype=np.int64),
        edges=np.array([-np.inf, np.inf]),
        below=np.array([0, m], dtype=np.int64),
        passes=0,
        largest_plan=0,
    )


def _settle(state: StepState) -> tuple[int | None, list[tuple[int, int]]]:
    """The rejections if the known counts decide them, else the unsettled stretches of steps, nearest first."""
    steps, below = state.steps, state.below
    passing = below >= steps
    low, high = steps[:-1], steps[1:]
    low_below, high_below = below[:-1], below[1:]
    all_pass = low_below >= high - 1  # every step strictly inside passes
    all_fail = high_below <= low  # every step strictly inside fails
    open_stretch = (high - low > 1) & ~all_pass & ~all_fail
    if PROCEDURES[state.procedure] == "up":
        # The last passing step: a known one, or the last step inside a stretch where all pass.
        best = max(int(steps[passing].max()), int((high[all_pass & (high - low > 1)] - 1).max(initial=0)))
        wanted = np.flatnonzero(open_stretch & (high - 1 > best))[::-1]
        return (best, []) if wanted.size == 0 else (None, [(int(low[k]), int(high[k])) for k in wanted])
    first_fail = min(int(steps[~passing].min()), int((low[all_fail & (high - low > 1)] + 1).min(initial=2**62)))
    wanted = np.flatnonzero(open_stretch & (low + 1 < first_fail))
    return (first_fail - 1, []) if wanted.size == 0 else (None, [(int(low[k]), int(high[k])) for k in wanted])


def decided_rejections(state: StepState) -> int | None:
    """The number of rejections once the known counts decide it, else None.

    Parameters
    ----------
    state : StepState
        What the client knows.

    Returns
    -------
    int or None
        R, or None while a pass is still needed.

    Examples
    --------
    >>> decided_rejections(start("holm", 0))
    0
    """
    return _settle(state)[0]


def next_plan(state: StepState, bins: int = DEFAULT_BINS) -> CountPlan | None:
    """The thresholds of the next pass, or None when the rejections are decided.

    Parameters
    ----------
    state : StepState
        What the client knows.
    bins : int, default 65536
        The most thresholds to count at (each chunk returns bins + 1 counts).

    Returns
    -------
    CountPlan or None
        Every step of the unsettled stretches nearest the answer, until ``bins`` is reached; a stretch longer than
        what is left gets that many evenly spaced steps.

    Examples
    --------
    >>> next_plan(start("bh", 10), bins=4).steps.tolist()
    [2, 4, 7, 9]
    """
    if isinstance(bins, bool) or int(bins) != bins or bins < 1:
        raise ArgumentError(f"bins must be a whole number >= 1; got {bins!r}")
    rejections, stretches = _settle(state)
    if rejections is not None:
        return None
    chosen, left = [], int(bins)
    for low, high in stretches:
        inside = high - low - 1
        if inside <= left:
            chosen.append(np.arange(low + 1, high, dtype=np.int64))
            left -= inside
        else:
            chosen.append(np.unique(np.linspace(low, high, left + 2)[1:-1].round().astype(np.int64)))
            left = 0
        if left == 0:
            break
    steps = np.sort(np.concatenate(chosen))
    edges = step_thresholds(state.procedure, steps, state.family_size, state.alpha)
    if np.any(np.diff(edges) < 0):
        raise RuntimeError(f"{state.procedure} thresholds are not sorted in their steps")  # pragma: no cover
    return CountPlan(procedure=state.procedure, steps=steps, edges=edges)


def checked_values(values: Any, procedure: str, chunk: Any) -> np.ndarray:
    """A chunk on the counting scale (p, or -log e for e-BH); NaN or a p-value outside [0, 1] is refused."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ArgumentError(f"chunk {chunk}: values must be numbers; {error}") from None
    if array.ndim != 1:
        raise ArgumentError(f"chunk {chunk}: values must be one-dimensional; got shape {array.shape}")
    bad = np.isnan(array) if procedure == "e-bh" else ~((array >= 0) & (array <= 1))
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        allowed = "log e-values that are not NaN" if procedure == "e-bh" else "p-values in [0, 1]"
        raise ArgumentError(f"chunk {chunk}, value {at}: {float(array[at])!r}; allowed: {allowed}")
    return -array if procedure == "e-bh" else array


def chunk_counts(values: Any, plans: Sequence[CountPlan], chunk: Any = 0) -> list[np.ndarray]:
    """One chunk's summary for each plan: how many of its values fall between consecutive thresholds.

    Parameters
    ----------
    values : array_like
        The chunk's p-values (Holm, BH) or log e-values (e-BH), one-dimensional.
    plans : sequence of CountPlan
        This pass's plans (Holm's and BH's may share one pass over the same p-values).
    chunk : object, default 0
        The chunk's name in error messages.

    Returns
    -------
    list of numpy.ndarray
        For each plan, int64 counts of length len(edges) + 1: values <= edges[0], then in (edges[j - 1], edges[j]],
        then above the last edge.

    Raises
    ------
    ArgumentError
        A NaN, or a p-value outside [0, 1], naming the chunk and the position.

    Examples
    --------
    >>> plan = next_plan(start("holm", 3, 0.05))
    >>> chunk_counts([0.01, 0.02, 0.5], [plan])[0].tolist()
    [1, 1, 0, 1]
    """
    procedures = {"e-bh" if plan.procedure == "e-bh" else "p" for plan in plans}
    if len(procedures) > 1:
        raise ArgumentError("plans of one call must all count p-values or all count log e-values")
    array = checked_values(values, plans[0].procedure if plans else "holm", chunk)
    out = []
    for plan in plans:
        edges = plan.edges
        counts = np.zeros(edges.size + 1, dtype=np.int64)
        if edges.size:
            inside = array[(array > edges[0]) & (array <= edges[-1])]
            counts[: edges.size] = np.bincount(np.searchsorted(edges, inside, side="left"), minlength=edges.size)
            counts[0] = int(np.count_nonzero(array <= edges[0]))
            counts[-1] = array.size - int(counts[:-1].sum())
        else:
            counts[0] = array.size
        out.append(counts)
    return out


def absorb(state: StepState, plan: CountPlan, counts: Any) -> StepState:
    """Add a pass's counts (summed over every chunk) to what the client knows.

    Parameters
    ----------
    state : StepState
        What the client knew before the pass.
    plan : CountPlan
        The pass's plan for this procedure.
    counts : array_like
        The sum of every chunk's counts for this plan.

    Returns
    -------
    StepState
        The state with F known at the plan's thresholds too.

    Raises
    ------
    ArgumentError
        The counts do not add up to m (the chunks do not hold the family, or a factory gave other chunks).

    Examples
    --------
    >>> state = start("holm", 3, 0.05)
    >>> plan = next_plan(state)
    >>> decided_rejections(absorb(state, plan, chunk_counts([0.01, 0.02, 0.5], [plan])[0]))
    2
    """
    counts = np.asarray(counts, dtype=np.int64)
    if counts.shape != (plan.edges.size + 1,) or int(counts.sum()) != state.family_size:
        raise ArgumentError(
            f"the chunks hold {int(counts.sum())} values in this pass ({counts.size} counts for "
            f"{plan.edges.size} thresholds); the family has {state.family_size}: give chunks that hold the family "
            "each time the factory is called"
        )
    steps = np.concatenate([state.steps, plan.steps])
    order = np.argsort(steps, kind="stable")
    kept = np.ones(steps.size, dtype=bool)
    kept[1:] = np.diff(steps[order]) != 0
    return replace(
        state,
        steps=steps[order][kept],
        edges=np.concatenate([state.edges, plan.edges])[order][kept],
        below=np.concatenate([state.below, np.cumsum(counts)[:-1]])[order][kept],
        passes=state.passes + 1,
        largest_plan=max(state.largest_plan, int(plan.steps.size)),
    )
