"""One named comparison, a candidate against a baseline: a verdict from the (1 - 2 alpha) interval of the gap.

d = candidate - baseline, the mean per-item difference.  The interval and the one-sided p-values dual to it:

* 0/1 scores, method "score" (default): Tango's (1998) score interval for a difference of paired proportions and
  the score test against each boundary (:mod:`llm_power_verified.inference.margin`);
* graded scores, method "t" (default): the paired t interval and tests (statsmodels' ``ttost_paired`` is their
  reference); method "bootstrap" (either kind of scores): the paired bootstrap percentile interval, with the
  percentile p-values of the boundaries; method "cluster" (either kind, items with clusters): the cluster-robust
  interval and t tests on G - 1 degrees of freedom (:mod:`llm_power_verified.comparison.clustered`);
* ``anytime=True``: the anytime-valid variant (:mod:`llm_power_verified.comparison.anytime`).

The verdict rules are in :mod:`llm_power_verified.comparison.verdict_rules`; the power and N of an inconclusive
comparison in :mod:`llm_power_verified.comparison.planning`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_power_verified.comparison.anytime import anytime_interval
from llm_power_verified.comparison.clustered import cluster_note, cluster_robust
from llm_power_verified.comparison.generations import flat_item_means, generation_fields, generation_notes
from llm_power_verified.comparison.planning import power_and_n_binary, power_and_n_graded
from llm_power_verified.comparison.verdict_rules import check_margin, margins, verdict
from llm_power_verified.contract.documents import COMPARE_RECORD
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.bootstrap import paired_bootstrap
from llm_power_verified.inference.cells import binary_counts
from llm_power_verified.inference.margin import (
    margin_score_interval,
    margin_score_pvalue,
    paired_t_interval,
    paired_t_margin,
)
from llm_power_verified.io import read_scores
from llm_power_verified.repeats.means import mean_difference, model_means
from llm_power_verified.results import Result

__all__ = ["METHODS", "Comparison", "compare", "pair_scores"]

#: The methods each kind of scores takes, the default first (``betting`` is the anytime variant's).
METHODS = {"binary": ("score", "bootstrap", "cluster"), "graded": ("t", "bootstrap", "cluster")}
_LARGEST_ALPHA = 0.5


@dataclass(frozen=True, repr=False)
class Comparison(Result):
    """The verdict of one named comparison and everything it was read from (d = candidate - baseline).

    The fields are the ``compare --format json`` record's (``contract.documents.COMPARE_RECORD``; the record adds
    ``schema``, ``inputs``, ``inconclusive_as`` and ``exit_code``); the Attributes below are generated from it.
    """

    baseline: str
    candidate: str
    test: str
    margin: float
    alpha: float
    confidence: float
    method: str
    anytime: bool
    scores: str
    n_items: int
    both_correct: int | None
    candidate_only: int | None
    baseline_only: int | None
    both_wrong: int | None
    candidate_mean: float
    baseline_mean: float
    difference: float
    sd_difference: float
    margin_low: float
    margin_high: float
    p_low: float | None
    p_high: float | None
    interval_low: float
    interval_high: float
    verdict: str
    target_power: float
    power_at_observed_gap: float | None
    n_to_decide: float | None
    generations_per_item: float | None
    gap_within_part: float | None
    gap_between_variance: float | None
    generation_share: float | None
    q_generations_1: float | None
    q_generations_2: float | None
    q_generations_5: float | None
    q_generations_10: float | None
    q_generations_20: float | None
    q_generations_inf: float | None
    n_resamples: int | None
    seed: int | None
    decided_at: int | None
    notes: tuple[str, ...]


def _attributes(cls) -> str:
    """The numpydoc Attributes section of ``cls``: each field, its type and its meaning in the record's declaration."""
    meanings = {item.name: item.meaning for item in COMPARE_RECORD}
    rows = [f"    {item.name} : {item.type}\n        {meanings[item.name]}.\n" for item in dataclasses.fields(cls)]
    return "\n\n    Attributes\n    ----------\n" + "".join(rows)


Comparison.__doc__ = Comparison.__doc__.rstrip() + _attributes(Comparison)


def pair_scores(matrix, baseline: str, candidate: str) -> tuple[np.ndarray, np.ndarray]:
    """The candidate's and the baseline's aligned scores, the two named models of the matrix.

    Parameters
    ----------
    matrix : ScoreMatrix
        The input.
    baseline, candidate : str
        Two different model names of the matrix.

    Returns
    -------
    tuple of numpy.ndarray
        (candidate scores, baseline scores), item by item.

    Raises
    ------
    ArgumentError
        A name the input does not hold (the message lists the models it holds), or the same name twice.
    """
    models = matrix.models
    for flag, name in (("--baseline", baseline), ("--candidate", candidate)):
        if name not in models:
            shown = ", ".join(repr(model) for model in models[:20]) + (", ..." if len(models) > 20 else "")
            raise ArgumentError(f"{flag} {name!r} is no model of the input; it holds {len(models)}: {shown}")
    if baseline == candidate:
        raise ArgumentError(
            f"--baseline and --candidate both name {baseline!r}: a comparison needs two different models"
        )
    return matrix.scores[:, models.index(candidate)], matrix.scores[:, models.index(baseline)]


def _check(test: str, margin: float, alpha: float, power: float, method: str | None, kind: str, anytime: bool) -> str:
    """The method, after refusing a margin, alpha, power or method outside what is allowed."""
    check_margin(test, margin)
    for name, value, high in (("alpha", alpha, _LARGEST_ALPHA), ("power", power, 1.0)):
        if not 0 < value < high:
            reason = ": the verdict reads the (1 - 2 alpha) interval" if name == "alpha" else ""
            raise ArgumentError(f"--{name} {value!r} must lie in (0, {high:g}){reason}")
    if not 1 - 2 * alpha < 1:
        raise ArgumentError(
            f"--alpha {alpha!r}: 1 - 2 alpha, the interval's level, rounds to 1 in floating point; give --alpha of at "
            "least 1e-15"
        )
    if anytime:
        if method not in (None, "betting"):
            raise ArgumentError(
                f"--method {method}: the anytime variant is a betting confidence sequence; leave --method out"
            )
        return "betting"
    method = METHODS[kind][0] if method is None else method
    if method not in METHODS[kind]:
        extra = " (betting is --anytime's)" if method == "betting" else ""
        raise ArgumentError(
            f"--method {method!r} does not apply to {kind} scores; choose from {', '.join(METHODS[kind])}{extra}"
        )
    return method


def _bootstrap(candidate, baseline, bounds, confidence, n_resamples, seed):
    """Percentile interval and the boundaries' one-sided percentile p-values (the same resamples for each run).

    The run on candidate - bound has the resamples of d shifted by the bound; its two-sided p of "no difference" is
    twice the smaller tail's (k + 1) / (B + 1), so the one-sided p on the side of the estimate is half of it, and on
    the other side 1 minus that, up to one resample.
    """
    runs = {}
    for bound in dict.fromkeys(bounds):
        runs[bound] = paired_bootstrap(candidate - bound, baseline, n_resamples, confidence, seed=seed)

    def above(bound: float) -> float:  # p of H0: d <= bound
        run = runs[bound]
        return run.pvalue / 2 if run.estimate > 0 else 1 - run.pvalue / 2

    first = runs[bounds[0]]
    low, high = first.ci_low + bounds[0], first.ci_high + bounds[0]
    return (low, high), above(bounds[0]), 1 - above(bounds[1])


def _fixed_n(kind, method, candidate, baseline, test, margin, alpha, n_resamples, seed):
    """(interval, p_low, p_high) of the fixed-N methods."""
    bounds = margins(test, margin)
    confidence = 1 - 2 * alpha
    if method == "bootstrap":
        return _bootstrap(candidate, baseline, bounds, confidence, n_resamples, seed)
    n = candidate.size
    if kind == "binary":
        _, b, c, _ = binary_counts(candidate, baseline)
        low, high = margin_score_interval(b, c, n, confidence)
        p_low = margin_score_pvalue(b, c, n, bounds[0], "larger")
        p_high = margin_score_pvalue(b, c, n, bounds[1], "smaller")
        return (float(low), float(high)), float(p_low), float(p_high)
    differences = candidate - baseline
    mean, sd = float(differences.mean()), float(differences.std(ddof=1))
    low, high = paired_t_interval(mean, sd, n, confidence)
    p_low = paired_t_margin(mean, sd, n, bounds[0], "larger")[1]
    p_high = paired_t_margin(mean, sd, n, bounds[1], "smaller")[1]
    return (float(low), float(high)), float(p_low), float(p_high)


def compare(
    scores: Any,
    baseline: str,
    candidate: str,
    test: str = "superiority",
    margin: float = 0.0,
    alpha: float = 0.05,
    method: str | None = None,
    *,
    power: float = 0.8,
    n_resamples: int = 2000,
    seed: int = 0,
    anytime: bool = False,
) -> Comparison:
    """Compare a candidate with a baseline: pass, fail or inconclusive, from the (1 - 2 alpha) interval of the gap.

    Parameters
    ----------
    scores : ScoreMatrix or anything :func:`~llm_power_verified.io.detect.read_scores` reads
        The per-item scores of (at least) the two models.
    baseline, candidate : str
        The two models, by name; d = candidate - baseline.
    test : {"superiority", "non-inferiority", "equivalence"}, default "superiority"
        The alternative shown by a pass: d > m, d > -m, or -m < d < m.
    margin : float, default 0
        m in score units (0.02 = 2 points): >= 0 for superiority, > 0 for the other two.
    alpha : float, default 0.05
        The level of each one-sided test, in (0, 0.5): the interval is at 1 - 2 alpha.
    method : {"score", "t", "bootstrap", "cluster"}, optional
        The interval and tests (default: score for 0/1 scores, t for graded ones; "cluster", the cluster-robust
        interval, needs the input's clusters).
    power : float, default 0.8
        The target power of ``n_to_decide`` (an inconclusive verdict's N).
    n_resamples : int, default 2000
        Bootstrap resamples (method "bootstrap").
    seed : int, default 0
        The bootstrap's seed.
    anytime : bool, default False
        The anytime-valid variant: the items in input order, a betting confidence sequence
        (:mod:`llm_power_verified.comparison.anytime`).

    Returns
    -------
    Comparison
        The verdict, the interval, the p-values; for an inconclusive fixed-N verdict also the observed power and the
        N that would decide (null otherwise).

    Raises
    ------
    ArgumentError
        A model the input does not hold, the same model twice, a margin, alpha, power or method outside what is
        allowed.

    Notes
    -----
    Pass: [L, U] inside the alternative; fail: [L, U] outside it; inconclusive otherwise
    (:mod:`llm_power_verified.comparison.verdict_rules`).  Each end
    of the (1 - 2 alpha) interval is a one-sided test at alpha (Schuirmann 1987), so a superiority pass is a
    one-sided test at alpha.

    References
    ----------
    Tango, T. (1998). Equivalence test and confidence interval for the difference in proportions for the paired-
    sample design. Statistics in Medicine 17, 891-908.  Schuirmann, D. J. (1987). A comparison of the two one-sided
    tests procedure. J. Pharmacokinet. Biopharm. 15, 657-680.  Lakens, D. (2017). Equivalence tests. Social
    Psychological and Personality Science 8, 355-362.

    Examples
    --------
    >>> from llm_power_verified.io import from_array
    >>> rng = np.random.default_rng(0)
    >>> base = rng.integers(0, 2, 2000)
    >>> cand = np.where(rng.random(2000) < 0.95, base, 1 - base)  # 5% of the items flipped either way
    >>> matrix = from_array(np.column_stack([base, cand]), models=["base", "cand"])
    >>> result = compare(matrix, "base", "cand", "equivalence", 0.03)
    >>> result.verdict, result.method, round(result.interval_low, 4), round(result.interval_high, 4)
    ('pass', 'score', -0.0127, 0.0036)
    """
    matrix = read_scores(scores)
    kind = matrix.score_kind
    method = _check(test, margin, alpha, power, method, kind, anytime)
    candidate_scores, baseline_scores = pair_scores(matrix, baseline, candidate)
    n = candidate_scores.size
    if n < 2:
        raise ArgumentError(f"the input holds {n} item; a comparison needs at least 2")
    differences = candidate_scores - baseline_scores
    columns = matrix.models.index(baseline), matrix.models.index(candidate)
    # Exact for 0/1 generations, where summing rounded k/K item means would turn a tie into a gap of 1e-17; sd 0 when
    # one difference holds on every item, not the rounding residue of the mean.
    mean, sd = mean_difference(matrix, *columns), float(differences.std(ddof=1)) if np.ptp(differences) else 0.0
    cells = binary_counts(candidate_scores, baseline_scores) if kind == "binary" else (None,) * 4
    notes = list(matrix.notes)
    if method == "cluster" and matrix.clusters is None:
        raise ArgumentError("--method cluster needs the items' clusters: give --cluster-column (or leave it out)")
    if matrix.clusters is not None:
        notes.append(cluster_note(differences, matrix.clusters, method))
    bounds = margins(test, margin)
    decided_at = None
    p_low = p_high = None
    if anytime:
        (low, high), decided_at, more = anytime_interval(differences, test, margin, alpha)
        notes.extend(more)
    elif method == "cluster":
        (low, high), p_low, p_high, se, _ = cluster_robust(differences, matrix.clusters, bounds, 1 - 2 * alpha)
    else:
        (low, high), p_low, p_high = _fixed_n(
            kind, method, candidate_scores, baseline_scores, test, margin, alpha, n_resamples, seed
        )
    outcome = verdict(test, margin, low, high)
    split = generation_fields(matrix, candidate, baseline, test, margin, alpha, power)
    if flat_item_means(split, sd, anytime):  # a zero-width interval from item means that agree by chance
        outcome = "inconclusive"
    notes.extend(generation_notes(split, matrix.clusters is not None, sd, anytime))
    power_at = decisive = None
    if outcome == "inconclusive" and not anytime:  # reported for an inconclusive verdict only (observed power)
        spread = se * math.sqrt(n) if method == "cluster" else sd  # cluster: the effective sd of the differences
        power_at, decisive = _observed_power(kind, method, test, margin, cells, (mean, spread, n), alpha, power)
        notes.extend(_PLANNED.get((method, kind), ()))
    bootstrap = method == "bootstrap"
    return Comparison(
        baseline=baseline,
        candidate=candidate,
        test=test,
        margin=float(margin),
        alpha=float(alpha),
        confidence=1 - float(alpha) if anytime else 1 - 2 * float(alpha),
        method=method,
        anytime=bool(anytime),
        scores=kind,
        n_items=int(n),
        both_correct=cells[0],
        candidate_only=cells[1],
        baseline_only=cells[2],
        both_wrong=cells[3],
        candidate_mean=float(model_means(matrix)[columns[1]]),
        baseline_mean=float(model_means(matrix)[columns[0]]),
        difference=mean,
        sd_difference=sd,
        margin_low=bounds[0],
        margin_high=bounds[1],
        p_low=p_low,
        p_high=p_high,
        interval_low=float(low),
        interval_high=float(high),
        verdict=outcome,
        target_power=float(power),
        power_at_observed_gap=_defined(power_at),
        n_to_decide=_defined(decisive),
        **split,
        n_resamples=int(n_resamples) if bootstrap else None,
        seed=int(seed) if bootstrap else None,
        decided_at=decided_at,
        notes=tuple(notes),
    )


_PLANNED = {
    ("cluster", "binary"): (
        "power and N that would decide: planned for a t test at the cluster-robust sd, se * sqrt(N)",
    ),
    ("cluster", "graded"): (
        "power and N that would decide: planned for a t test at the cluster-robust sd, se * sqrt(N)",
    ),
    ("bootstrap", "binary"): ("power and N that would decide: planned for the score test at the observed values",),
    ("bootstrap", "graded"): ("power and N that would decide: planned for the paired t test at the observed values",),
}


def _observed_power(kind, method, test, margin, cells, moments, alpha, power) -> tuple[float, float]:
    """(observed power, N to decide) of an inconclusive comparison: score test on the cells, or t at (mean, sd, n)."""
    mean, spread, n = moments
    if kind == "binary" and method != "cluster":
        return power_and_n_binary(test, margin, cells[1], cells[2], n, alpha, power)
    return power_and_n_graded(test, margin, mean, spread, n, alpha, power)


def _defined(value: float | None) -> float | None:
    """None for an undefined or infinite value (the record's null), the value otherwise."""
    return None if value is None or not math.isfinite(value) else float(value)
