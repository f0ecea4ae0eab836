"""Ranking uncertainty that does not chain: rank intervals and letters from all-pairs tests.

Every pair of the K models is tested with the arbiter (exact McNemar for
binary scores, paired t for graded), and the K (K - 1) / 2 p-values are
adjusted together with Holm's procedure at ``alpha``.  From those decisions:

* the rank interval of model k is [1 + #(models significantly better than k),
  K - #(models significantly worse than k)];
* the compact letter display: two models share a letter exactly when their
  difference is not significant (a clique cover built by a sweep, see
  :func:`letter_columns`).

Both use the same adjusted decisions, so they agree with each other and with
the family-wise error rate alpha over all pairs.  The adjacent-break tiers of
:mod:`.tiers` (resolution q >= 1 of adjacent pairs) are a secondary view: they
chain, and they answer a power question, not a significance question.

Memory grows as K^2 (the K x K tables behind the decisions): :func:`audit_memory`
estimates an audit's peak from its shape (``RANKING_BYTES_PER_CELL`` per
cell plus the pair rows kept) and :func:`memory_budget` says what a run may
use, so that an audit too large for the machine is refused before it
allocates.  An audit whose mode and family are linear (adjacent, reference)
computes these all-pairs quantities only up to ``LINEAR_MODELS`` models
(:func:`all_pairs_computed`); above, :func:`model_table` leaves the rank
interval and the letters empty and its memory is linear in K.

References
----------
Holm, S. (1979). A simple sequentially rejective multiple test procedure.
Scand. J. Stat. 6, 65-70.  Piepho, H.-P. (2004). An algorithm for a
letter-based representation of all-pairwise comparisons. J. Comput. Graph.
Stat. 13(2), 456-466.  Gramm, J., Guo, J., Huffner, F., Niedermeier, R.,
Piepho, H.-P. and Schmid, R. (2007). Algorithms for compact letter displays:
comparison and evaluation. Comput. Stat. Data Anal. 52(2), 725-736.
"""

from __future__ import annotations

import string

import numpy as np
import pandas as pd
from scipy.special import ndtri

from llm_power_verified.inference.multiplicity import adjust_pvalues
from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.blocks import PairInputs
from llm_power_verified.leaderboard.memory import (
    LINEAR_MODELS,
    all_pairs_computed,
    audit_memory,
    check_audit_memory,
    memory_budget,
    ranking_memory,
)
from llm_power_verified.power.sample_size import required_n_from_counts, required_n_wald
from llm_power_verified.repeats.means import model_means

__all__ = [
    "LINEAR_MODELS",
    "RANKING_PROCEDURE",
    "all_pairs_computed",
    "audit_memory",
    "bootstrap_rank_intervals",
    "check_audit_memory",
    "holm_all_pairs",
    "letter_columns",
    "letters_from_significance",
    "memory_budget",
    "model_table",
    "ranking_memory",
    "resolved_count",
    "significance_matrix",
]

RANKING_PROCEDURE = "Holm over all pairs of models"


def significance_matrix(order: np.ndarray, holm_all: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The K x K significance decisions and adjusted p-values in rank order.

    Both come from the Holm-adjusted p-values of all pairs.

    Parameters
    ----------
    order : numpy.ndarray
        Model indices in rank order (:func:`~llm_power_verified.leaderboard.pairs.rank_models`).
    holm_all : numpy.ndarray
        The K (K - 1) / 2 adjusted p-values in :func:`~llm_power_verified.leaderboard.pairs.pair_indices` order (the
        rank-order upper triangle), as :func:`holm_all_pairs` gives them.
    alpha : float
        The family-wise level.

    Returns
    -------
    significant : numpy.ndarray
        K x K booleans (False on the diagonal).
    adjusted : numpy.ndarray
        K x K adjusted p-values (1 on the diagonal).

    Examples
    --------
    >>> significant, _ = significance_matrix(np.arange(3), np.array([0.01, 0.2, 0.04]), 0.05)
    >>> significant.astype(int).tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    size = order.size
    table = np.ones((size, size))
    upper = np.triu_indices(size, k=1)
    table[upper] = holm_all
    table[upper[1], upper[0]] = holm_all
    significant = table <= alpha
    np.fill_diagonal(significant, False)
    return significant, table


def holm_all_pairs(all_pvalues: np.ndarray) -> np.ndarray:
    """Holm's adjustment of the arbiter's p-values of all pairs.

    Parameters
    ----------
    all_pvalues : numpy.ndarray
        The p-values (:func:`~llm_power_verified.leaderboard.blocks.all_pairs_pvalues`).

    Returns
    -------
    numpy.ndarray
        The Holm-adjusted p-values, in the same order.

    Notes
    -----
    The k-th smallest p-value is multiplied by m - k + 1, made monotone and capped at 1 (Holm 1979, Scand. J. Statist.
    6, 65-70).

    Examples
    --------
    >>> holm_all_pairs(np.array([0.01, 0.04, 0.03])).round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    return adjust_pvalues(np.asarray(all_pvalues, dtype=np.float64), "holm") if all_pvalues.size else np.empty(0)


def resolved_count(inputs: PairInputs, alpha: float, power: float) -> int:
    """How many of all K (K - 1) / 2 pairs have q = N / N* >= 1 (from the exact counts or covariances, no pair loop).

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs.
    alpha : float
        Two-sided level.
    power : float
        Target power.

    Returns
    -------
    int
        The resolved pairs.
    """
    n, size = inputs.n_items, len(inputs.models)
    if inputs.binary:
        both, correct = inputs.a, inputs.correct
    else:
        means, covariance = inputs.means, inputs.covariance
        variances = np.diag(covariance)
    resolved = 0
    # In bands of rows, so that the temporaries of the formulas stay at 256 x K (5,000 models: 10 MB, not 200 MB each).
    for start in range(0, size, 256):
        rows = slice(start, min(start + 256, size))
        if inputs.binary:
            band = both[rows].astype(np.int64)
            required = np.asarray(
                required_n_from_counts(correct[rows, None] - band, correct[None, :] - band, n, alpha, power)
            )
        else:
            variance = np.maximum(variances[rows, None] + variances[None, :] - 2 * covariance[rows], 0.0)
            required = np.asarray(required_n_wald(variance, means[rows, None] - means[None, :], alpha, power))
        upper = np.arange(size)[None, :] > np.arange(rows.start, rows.stop)[:, None]
        resolved += int(np.sum((n >= required) & upper))
    return resolved


def letter_columns(significant: np.ndarray) -> np.ndarray:
    """The letters as a boolean (letters x models) matrix: a clique cover of the "not significantly different" graph.

    Sweeping the pairs in rank order, each not-yet-covered non-significant pair (i, j) seeds a letter that grows to a
    maximal set of mutually non-significant models, adding candidates nearest in rank first; a model significantly
    different from every other gets a letter of its own.  Two models share a letter exactly when their difference is
    not significant.

    Parameters
    ----------
    significant : numpy.ndarray
        K x K significance decisions, models in rank order.

    Returns
    -------
    numpy.ndarray
        Letters x models booleans.

    Notes
    -----
    This is the sweep idea of Gramm et al. (2007) rather than Piepho's insert-absorb, whose column count explodes when
    the decisions are not ordered like the ranks (measured: 1,212+ columns and 292 s at 500 models with slightly
    irregular decisions); for decisions that follow the ranking both give the same maximal runs.  Each step is
    vectorised over models.
    """
    size = significant.shape[0]
    together = ~significant
    np.fill_diagonal(together, True)
    packed = np.packbits(together, axis=1)  # rows as bits: the ANDs and ORs below touch 1/8 of the bytes
    letters = np.zeros((16, packed.shape[1]), dtype=np.uint8)  # the letters found, as bits
    holders = np.zeros((size, 16), dtype=bool)  # model x letter; the pairs (i, .) covered: the union of i's letters
    count = 0
    for i in range(size):
        holding = np.flatnonzero(holders[i, :count])
        covered = np.unpackbits(np.bitwise_or.reduce(letters[holding], axis=0), count=size).view(bool)  # 0 if none
        nearest: list[np.ndarray] = []
        while True:
            open_pairs = np.flatnonzero(together[i] & ~covered)
            if open_pairs.size == 0:
                break
            column = np.zeros(size, dtype=bool)
            column[_grow_letter(together, packed, i, int(open_pairs[0]), nearest)] = True
            if count == letters.shape[0]:
                letters = np.concatenate([letters, np.zeros_like(letters)])
                holders = np.concatenate([holders, np.zeros_like(holders)], axis=1)
            letters[count], holders[column, count] = np.packbits(column), True
            covered |= column
            count += 1
    return np.unpackbits(letters[:count], axis=1, count=size).view(bool)


_LETTER_CHUNK = 64  # candidates tried at once by _grow_letter


def _grow_letter(together: np.ndarray, packed: np.ndarray, i: int, j: int, nearest: list) -> list[int]:
    """The letter seeded by (i, j): each candidate, nearest in rank first, joins if together with every member.

    Taken ``_LETTER_CHUNK`` candidates at a time: the longest run of them together with one another joins at once,
    the first that is not leaves (the members one candidate at a time would give; ``nearest`` caches i's order).
    """
    members = [i] if i == j else [i, j]
    alive = together[i] & together[j]
    alive[members] = False
    inside = np.flatnonzero(alive)
    low, high = (int(inside[0]), int(inside[-1]) + 1) if inside.size else (0, 0)
    if high - low == inside.size and together[low:high, low:high].all():
        return members + inside.tolist()  # consecutive ranks, none different from another: every one joins
    if not nearest:
        nearest.append(np.argsort(np.abs(np.arange(together.shape[0]) - i), kind="stable"))
    order = nearest[0][alive[nearest[0]]]
    alive_bits = np.packbits(alive)
    earlier = np.triu(np.ones((_LETTER_CHUNK, _LETTER_CHUNK), dtype=bool), 1)
    start = 0
    while start < order.size:
        window = order[start : start + _LETTER_CHUNK]
        live = np.flatnonzero(alive[window])
        chunk = window[live]
        # Candidate t of the chunk leaves when it differs from a candidate s < t of the chunk (all before it joined).
        clash = (~together[np.ix_(chunk, chunk)] & earlier[: chunk.size, : chunk.size]).any(axis=0)
        stop = int(np.argmax(clash)) if clash.any() else chunk.size
        members.extend(chunk[:stop].tolist())
        if stop:
            alive_bits &= np.bitwise_and.reduce(packed[chunk[:stop]], axis=0)
            alive = np.unpackbits(alive_bits, count=together.shape[0]).view(bool)
        start += int(live[stop]) + 1 if stop < chunk.size else _LETTER_CHUNK
    return members


def letters_from_significance(significant: np.ndarray) -> list[str]:
    """Each model's letters: two models share a letter exactly when they are not significantly different.

    Letters are a-z, then A-Z, then a1..z1, A1..Z1, a2, ...: a digit always belongs to the letter before it.

    Parameters
    ----------
    significant : numpy.ndarray
        K x K significance decisions, models in rank order.

    Returns
    -------
    list of str
        The letters of each model, in rank order.

    Examples
    --------
    >>> significant = np.array([[False, False, True], [False, False, True], [True, True, False]])
    >>> letters_from_significance(significant)
    ['a', 'a', 'b']
    """
    columns = letter_columns(significant)
    keys = [tuple(np.flatnonzero(column)) for column in columns]
    columns = columns[sorted(range(len(keys)), key=lambda index: keys[index])] if len(keys) else columns
    labels = [""] * significant.shape[0]
    for index, column in enumerate(columns):
        letter = _letter(index)
        for member in np.flatnonzero(column):
            labels[member] += letter
    return labels


def _letter(index: int) -> str:
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    cycle, position = divmod(index, len(alphabet))
    return alphabet[position] + (str(cycle) if cycle else "")


def wilson_interval(successes: np.ndarray, n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a binomial proportion at 1 - alpha (Wilson 1927).

    (p + z^2 / 2n -/+ z sqrt(p (1 - p) / n + z^2 / 4n^2)) / (1 + z^2 / n), z = z_{1-alpha/2}.
    Hand-written (statsmodels' ``proportion_confint(method="wilson")`` gives the
    same to 1e-15, tested) because importing statsmodels.stats.proportion
    costs 1.1 s, more than a whole 50-model audit from the command line.
    """
    z = -float(ndtri(alpha / 2))
    p = np.asarray(successes, dtype=np.float64) / n
    centre = p + z * z / (2 * n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    # The interval lies in [0, 1]; at 0 or N successes rounding can leave it by an ulp (1 + 2^-52 at N of N).
    return np.clip((centre - half) / scale, 0.0, 1.0), np.clip((centre + half) / scale, 0.0, 1.0)


def model_table(
    matrix: ScoreMatrix, order: np.ndarray, alpha: float, holm_all: np.ndarray | None
) -> tuple[pd.DataFrame, int | None]:
    """One row per model in rank order, and the number of significant pairs among all K (K - 1) / 2.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores.
    order : numpy.ndarray
        Model indices in rank order (:func:`~llm_power_verified.leaderboard.pairs.rank_models`).
    alpha : float
        Level of the intervals and of the all-pairs decisions.
    holm_all : numpy.ndarray or None
        The Holm-adjusted arbiter p-values of all pairs (:func:`holm_all_pairs`), computed once by the audit; None
        when the audit computes nothing over all pairs (:func:`all_pairs_computed`).

    Returns
    -------
    ranking : pandas.DataFrame
        rank, model, mean score and its interval, the Holm rank interval and the letters (without ``holm_all``: the
        rank interval missing, nullable Int64, and the letters empty).
    significant_pairs : int or None
        Pairs significant under Holm over all pairs (None without ``holm_all``).

    Notes
    -----
    Score interval: the Wilson score interval at 1 - alpha for binary scores (statsmodels), the Student t interval of
    the mean for graded scores.
    """
    size = order.size
    n = matrix.n_items
    # Per-column reductions then reordered (a column copy of the matrix in rank order would be K x N more memory).
    means = model_means(matrix)[order]
    if matrix.binary:
        low, high = wilson_interval(np.rint(means * n).astype(np.int64), n, alpha)
    else:
        # Lazy: scipy.stats costs 0.7 s at import; only graded scores need the t quantile.
        from scipy import stats

        half = stats.t.ppf(1 - alpha / 2, n - 1) * matrix.scores.std(axis=0, ddof=1)[order] / np.sqrt(n)
        low, high = means - half, means + half
    position = np.arange(size)
    table = pd.DataFrame(
        {
            "rank": position + 1,
            "model": np.asarray(matrix.models, dtype=object)[order],
            "mean_score": means,
            "ci_low": np.asarray(low, dtype=np.float64),
            "ci_high": np.asarray(high, dtype=np.float64),
        }
    )
    if holm_all is None:
        table["rank_low"] = table["rank_high"] = pd.array([pd.NA] * size, dtype="Int64")
        table["letters"] = ""
        return table, None
    significant, _ = significance_matrix(order, holm_all, alpha) if size > 1 else (np.zeros((1, 1), bool), None)
    # Equal means never count as "better": a significant pair always has distinct means, so rank order is safe.
    table["rank_low"] = 1 + (significant & (position[None, :] < position[:, None])).sum(axis=1)
    table["rank_high"] = size - (significant & (position[None, :] > position[:, None])).sum(axis=1)
    table["letters"] = letters_from_significance(significant)
    return table, int(np.triu(significant, k=1).sum())


_RANKS = 0x72616E6B  # "rank": the rank bootstrap's stream tag


def bootstrap_rank_intervals(
    matrix: ScoreMatrix, order: np.ndarray, n_resamples: int, seed: int, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each model's rank over item resamples (models in rank order).

    Items are resampled with replacement (the same items for every model); in each resample a model's rank is 1 + the
    number of models with a strictly higher mean.  Unlike the Holm rank interval it has no family-wise guarantee; it
    shows how the ranking moves under resampling of the benchmark's items.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores.
    order : numpy.ndarray
        Model indices in rank order (:func:`~llm_power_verified.leaderboard.pairs.rank_models`).
    n_resamples : int
        Item resamples.
    seed : int
        Seed of the item stream.
    alpha : float
        The interval is the (alpha/2, 1 - alpha/2) quantiles of the ranks (inverted CDF, so its ends are ranks that
        occurred).

    Returns
    -------
    low, high : numpy.ndarray
        Each model's rank interval.

    Examples
    --------
    >>> from llm_power_verified.io import from_array
    >>> rng = np.random.default_rng(0)
    >>> matrix = from_array((rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float), models=["x", "y", "z"])
    >>> low, high = bootstrap_rank_intervals(matrix, np.arange(3), 200, 0, 0.05)
    >>> low.tolist(), high.tolist()
    ([1, 2, 3], [1, 2, 3])
    """
    scores = matrix.scores[:, order]
    n = matrix.n_items
    stream = np.random.default_rng([int(seed), _RANKS])
    chunk = max(1, min(n_resamples, 4_000_000 // max(n, order.size * order.size)))
    ranks = []
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        means = stream.multinomial(n, np.full(n, 1.0 / n), size=size).astype(np.float64) @ scores / n
        # 1 + the models with a strictly higher mean, by a sorted search (no resamples x K x K comparison).
        ordered = np.sort(means, axis=1)
        ranks.append(
            np.stack(
                [
                    1 + order.size - np.searchsorted(row, values, side="right")
                    for row, values in zip(ordered, means, strict=True)
                ]
            )
        )
    ranks = np.concatenate(ranks)
    low, high = np.quantile(ranks, [alpha / 2, 1 - alpha / 2], axis=0, method="inverted_cdf")
    return low.astype(np.int64), high.astype(np.int64)
