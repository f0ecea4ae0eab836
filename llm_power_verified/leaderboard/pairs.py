"""Per-pair statistics of a leaderboard: which pairs, their exact 2x2 counts, tests, N*, bootstrap and sensitivity.

Every function works on a block of pairs at once (no loop over items or pairs in Python);
:func:`~llm_power_verified.leaderboard.blocks.pair_block` calls them block by block.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified.contract import MODES
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.bootstrap import percentile_pvalue
from llm_power_verified.inference.mcnemar import exact_and_midp, mcnemar_chi2
from llm_power_verified.io import ScoreMatrix
from llm_power_verified.leaderboard.streams import (
    item_stream,
    pair_streams,
    ranking_order,
)
from llm_power_verified.numeric import quantiles
from llm_power_verified.power.connor import required_n_connor_from_counts
from llm_power_verified.power.conventions import required_n_unpaired
from llm_power_verified.power.correlation import (
    admissible_rho_interval,
    correlation_from_counts,
)
from llm_power_verified.power.sample_size import (
    minimum_detectable_effect,
    required_n_from_counts,
    required_n_paired_binary,
    required_n_wald,
)
from llm_power_verified.power.shortcut import required_n_shortcut
from llm_power_verified.sequential import required_n_anytime
from llm_power_verified.sequential.betting import betting_log_e
from llm_power_verified.sequential.e_process import log_e_value

__all__ = ["add_anytime_columns", "adjacent_ranks", "binary_pair_columns", "bootstrap_pair_cells", "graded_pair_columns",
           "pair_indices", "paired_t_columns", "rank_models"]



def rank_models(matrix: ScoreMatrix) -> np.ndarray:
    """Model indices from the highest mean score down; equal means are ordered by model name."""
    return ranking_order(matrix.scores.mean(axis=0), matrix.models)


def pair_indices(order: np.ndarray, mode: str, reference: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(first, second) model indices: first is the higher-ranked (or the reference) model."""
    if mode == "adjacent":
        return order[:-1], order[1:]
    if mode == "all":
        # int32 indices halve the pair grid's memory (12.5 M pairs of 5,000 models: 100 MB instead of 200 MB).
        index = order.astype(np.int32) if order.size < 2**31 else order
        upper_i, upper_j = np.triu_indices(order.size, k=1)
        return index[upper_i], index[upper_j]
    if mode == "reference":
        if reference is None:
            raise ArgumentError("mode 'reference' needs a reference model")
        others = order[order != reference]
        return np.full(others.size, reference), others
    raise ArgumentError(f"mode must be one of {MODES}; got {mode!r}")


def adjacent_ranks(rank_a, rank_b) -> np.ndarray:
    """The pairs' ``adjacent`` column: the two models are next in the ranking, abs(rank_a - rank_b) = 1 (either orientation).

    The one rule of "adjacent pair": the headline, the tiers, the streamed audit, ``--fail-on`` and ``plan`` read this
    column (or, for a saved report that lacks it, this function) rather than typing the rule again.

    >>> adjacent_ranks([1, 3, 2], [2, 1, 4]).tolist()
    [True, False, False]
    """
    return np.abs(np.asarray(rank_b, dtype=np.int64) - np.asarray(rank_a, dtype=np.int64)) == 1


def bootstrap_pair_cells(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, n: int, n_resamples: int, confidence: float,
    rng: np.random.Generator | tuple[list[np.random.Generator], np.ndarray], required: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval of D-bar, its percentile p-value and the 5-95% interval of N*, from multinomial cell resampling.

    ``a``, ``b``, ``c`` are the both-right, only-A and only-B counts of each pair
    (the glossary's cells) out of ``n`` items.  The four cells are drawn as a
    chain of binomials: a* ~ Bin(n, p11), b* ~ Bin(n - a*, p10 / (1 - p11)),
    c* ~ Bin(n - a* - b*, p01 / (1 - p11 - p10)).  ``rng`` is one generator for
    every pair (simulations: vectorised over pairs), or the per-pair streams of
    :func:`~llm_power_verified.leaderboard.streams.pair_streams` (the audit: a
    pair's draws then depend on its names only; each is drawn in sorted-name
    orientation and its discordant cells swapped back).
    Returns (low, high, p-value, N* 5%, N* 95%); the N* columns are NaN unless ``required``.
    """
    pairs = a.size
    low, high, pvalue = np.empty(pairs), np.empty(pairs), np.empty(pairs)
    n_star_low, n_star_high = np.full(pairs, np.nan), np.full(pairs, np.nan)
    tails = [(1 - confidence) / 2, (1 + confidence) / 2]
    chunk = max(1, 2_000_000 // max(n_resamples, 1))
    for start in range(0, pairs, chunk):
        sl = slice(start, min(start + chunk, pairs))
        if isinstance(rng, np.random.Generator):
            d10, d01 = _draw_cells(rng, n, a[sl], b[sl], c[sl], (n_resamples, a[sl].size))
        else:
            d10, d01 = _draw_cells_per_pair(rng, sl, n, a, b, c, n_resamples)
        gap = (d10 - d01) / n
        low[sl], high[sl] = np.quantile(gap, tails, axis=0)
        pvalue[sl] = percentile_pvalue(gap, axis=0)
        if required:
            resampled = np.asarray(required_n_from_counts(d10, d01, n))
            n_star_low[sl], n_star_high[sl] = quantiles(resampled, [0.05, 0.95])
    return low, high, pvalue, n_star_low, n_star_high


def _draw_cells(rng: np.random.Generator, n: int, a, b, c, shape) -> tuple[np.ndarray, np.ndarray]:
    """(b*, c*) resampled: the chain of binomials of :func:`bootstrap_pair_cells`."""
    p11, p10, p01 = a / n, b / n, c / n
    with np.errstate(divide="ignore", invalid="ignore"):
        d11 = rng.binomial(n, np.broadcast_to(p11, shape))
        rest = n - d11
        d10 = rng.binomial(rest, np.clip(np.nan_to_num(p10 / (1 - p11)), 0, 1))
        d01 = rng.binomial(rest - d10, np.clip(np.nan_to_num(p01 / (1 - p11 - p10)), 0, 1))
    return d10, d01


def _draw_cells_per_pair(streams, sl: slice, n: int, a, b, c, n_resamples: int) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's (b*, c*) from its own stream, in sorted-name orientation, swapped back where reversed.

    A loop over pairs (not items): one generator per pair is what makes a
    pair's interval independent of which other pairs are in the audit.  The
    chain's three probabilities are computed for the whole slice first (the
    same element-wise operations as :func:`_draw_cells`, so the same draws);
    the loop makes only the three binomial calls.
    """
    generators, reversed_order = streams
    flip = np.asarray(reversed_order[sl], dtype=bool)
    first = np.where(flip, c[sl], b[sl])
    second = np.where(flip, b[sl], c[sl])
    p11, p10, p01 = a[sl] / n, first / n, second / n
    with np.errstate(divide="ignore", invalid="ignore"):
        q10 = np.clip(np.nan_to_num(p10 / (1 - p11)), 0, 1)
        q01 = np.clip(np.nan_to_num(p01 / (1 - p11 - p10)), 0, 1)
    width = sl.stop - sl.start
    drawn_first = np.empty((n_resamples, width), dtype=np.int64)
    drawn_second = np.empty((n_resamples, width), dtype=np.int64)
    for column, index in enumerate(range(sl.start, sl.stop)):
        generator = generators[index]
        # A scalar p with size= draws exactly what the broadcast array did, three times faster (no per-element checks).
        d11 = generator.binomial(n, float(p11[column]), size=n_resamples)
        rest = n - d11
        d10 = generator.binomial(rest, q10[column])
        drawn_first[:, column] = d10
        drawn_second[:, column] = generator.binomial(rest - d10, q01[column])
    d10 = np.where(flip, drawn_second, drawn_first)
    d01 = np.where(flip, drawn_first, drawn_second)
    return d10, d01


def binary_pair_columns(inputs, first, second, alpha, power, n_resamples, seed) -> dict[str, np.ndarray]:
    """The per-pair columns of binary scores (``inputs`` a :class:`~llm_power_verified.leaderboard.blocks.PairInputs`)."""
    n = inputs.n_items
    both, only_a, only_b = inputs.counts(first, second)
    neither = n - both - only_a - only_b
    p_a, p_b = (both + only_a) / n, (both + only_b) / n
    rho = np.asarray(correlation_from_counts(both, only_a, only_b, neither), dtype=np.float64).reshape(-1)
    gap = (only_a - only_b) / n
    frame = {"delta": gap, "p_a": p_a, "p_b": p_b, "a": both, "b": only_a, "c": only_b, "d": neither, "rho": rho}
    chi2 = mcnemar_chi2(only_a, only_b)
    exact, midp = exact_and_midp(only_a, only_b)
    frame.update(p_chi2=chi2.pvalue, p_exact=exact.pvalue, log_p_exact=exact.log_pvalue, p_midp=midp.pvalue)
    required = np.asarray(required_n_from_counts(only_a, only_b, n, alpha, power), dtype=np.float64).reshape(-1)
    variance = _variance.paired_difference_variance_from_cells(only_a / n, only_b / n)
    frame.update(variance=variance, required_n=required)
    frame["required_n_connor"] = np.asarray(required_n_connor_from_counts(only_a, only_b, n, alpha, power)).reshape(-1)
    frame["mde"] = np.asarray(minimum_detectable_effect(n, variance, alpha, power)).reshape(-1)
    if n_resamples:
        names = np.asarray(inputs.models, dtype=object)
        streams = pair_streams(seed, names[first], names[second])
        low, high, pboot, n_low, n_high = bootstrap_pair_cells(both, only_a, only_b, n, n_resamples, 1 - alpha, streams)
        frame.update(boot_ci_low=low, boot_ci_high=high, p_bootstrap=pboot, required_n_p05=n_low, required_n_p95=n_high)
    _sensitivity(frame, alpha, power)
    defined = (p_a > 0) & (p_a < 1) & (p_b > 0) & (p_b < 1) & np.isfinite(rho) & (rho < 1)
    shortcut = np.full(gap.size, np.nan)
    unpaired = np.full(gap.size, np.nan)
    if defined.any():
        shortcut[defined] = np.asarray(required_n_shortcut(p_a[defined], p_b[defined], rho[defined], alpha, power)).reshape(-1)
        unpaired[defined] = np.asarray(required_n_unpaired(p_a[defined], p_b[defined], alpha, power)).reshape(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["shortcut_n"] = shortcut
        frame["shortcut_ratio"] = shortcut / required
        frame["unpaired_n"] = unpaired
        frame["efficiency_gain"] = unpaired / required
    return frame


def _sensitivity(frame: dict, alpha: float, power: float) -> None:
    """N* and verdict at rho-hat -/+ 0.10, clamped to the admissible interval."""
    p_a, p_b, rho = frame["p_a"], frame["p_b"], frame["rho"]
    ok = (p_a > 0) & (p_a < 1) & (p_b > 0) & (p_b < 1) & np.isfinite(rho)
    for label, shift in (("rho_minus", -0.10), ("rho_plus", 0.10)):
        values = np.full(p_a.size, np.nan)
        if ok.any():
            if "variance_a" in frame:
                var_a, var_b = frame["variance_a"][ok], frame["variance_b"][ok]
                shifted = np.clip(rho[ok] + shift, -1.0, 1.0)
                variance = np.maximum(var_a + var_b - 2 * shifted * np.sqrt(var_a * var_b), 0.0)
                values[ok] = np.asarray(required_n_wald(variance, frame["delta"][ok], alpha, power)).reshape(-1)
            else:
                interval = admissible_rho_interval(p_a[ok], p_b[ok])
                shifted = np.clip(rho[ok] + shift, interval.low, interval.high)
                values[ok] = np.asarray(required_n_paired_binary(p_a[ok], p_b[ok], shifted, alpha, power)).reshape(-1)
        frame[f"required_n_{label}"] = values


def paired_t_columns(inputs, first, second) -> dict[str, np.ndarray]:
    """The paired t-test of graded scores: ``t``, ``p_t`` and ``log_p_t`` of each pair, with the moments behind them.

    Also returns ``delta``, ``p_a``, ``p_b``, ``rho``, ``variance_a``, ``variance_b`` and ``variance`` (what the
    test is computed from), so that :func:`graded_pair_columns` builds on it.  No alpha or power: the ranking's
    all-pairs p-values need the test only.
    """
    n = inputs.n_items
    means, covariance = inputs.means, inputs.covariance
    var_a, var_b = np.diag(covariance)[first], np.diag(covariance)[second]
    cov = covariance[first, second]
    gap = means[first] - means[second]
    variance = np.maximum(var_a + var_b - 2 * cov, 0.0)
    spread = np.sqrt(var_a * var_b)
    rho = np.full(gap.size, np.nan)
    np.divide(cov, spread, out=rho, where=spread > 0)  # undefined (NaN) for a constant model
    # t = gap / SE; a pair whose difference is the same on every item has SE = 0: t = +/-inf (p = 0) when
    # that difference is non-zero, and t = 0 (p = 1: no evidence of a difference) when the models agree on every item.
    standard_error = np.sqrt(variance / n)
    t = np.where(gap == 0, 0.0, np.copysign(np.inf, gap))
    np.divide(gap, standard_error, out=t, where=standard_error > 0)
    # Lazy: scipy.stats costs 0.7 s at import, more than a binary audit of 50 models; only graded scores need it.
    from scipy import stats

    log_p = np.log(2.0) + stats.t.logsf(np.abs(t), n - 1)
    return {"delta": gap, "p_a": means[first], "p_b": means[second], "rho": rho, "variance_a": var_a, "variance_b": var_b,
            "t": t, "p_t": np.exp(np.minimum(log_p, 0.0)), "log_p_t": np.minimum(log_p, 0.0), "variance": variance}


def graded_pair_columns(inputs, first, second, alpha, power, n_resamples, seed) -> dict[str, np.ndarray]:
    """The per-pair columns of graded scores (``inputs`` a :class:`~llm_power_verified.leaderboard.blocks.PairInputs`)."""
    n = inputs.n_items
    frame = paired_t_columns(inputs, first, second)
    gap, variance, var_a, var_b = frame["delta"], frame["variance"], frame["variance_a"], frame["variance_b"]
    scores = inputs.scores
    required = np.asarray(required_n_wald(variance, gap, alpha, power)).reshape(-1)
    frame["required_n"] = required
    frame["mde"] = np.asarray(minimum_detectable_effect(n, variance, alpha, power)).reshape(-1)
    if n_resamples:
        # One item resampling shared by every pair (a fresh stream of the seed for each block of pairs).
        weights = item_stream(seed).multinomial(n, np.full(n, 1.0 / n), size=n_resamples).astype(np.float64)
        resampled = weights @ scores / n
        differences = resampled[:, first] - resampled[:, second]
        tails = [alpha / 2, 1 - alpha / 2]
        frame["boot_ci_low"], frame["boot_ci_high"] = np.quantile(differences, tails, axis=0)
        frame["p_bootstrap"] = percentile_pvalue(differences, axis=0)
    _sensitivity(frame, alpha, power)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["unpaired_n"] = np.asarray(required_n_wald(var_a + var_b, gap, alpha, power)).reshape(-1)
        frame["efficiency_gain"] = frame["unpaired_n"] / required
    return frame


#: Pairs per sub-block of the graded e-values: bounds the (pairs x items) arrays of the betting capital (about 8 MB per 100k items).
_GRADED_PAIRS = 8


def graded_log_e(inputs, first: np.ndarray, second: np.ndarray, alpha: float) -> np.ndarray:
    """Graded scores: log e_N of the hedged betting e-process (sequential/betting.py) over the items in id order.

    Unlike the binary mixture, whose e-value depends only on the discordant
    counts, a betting e-value depends on the order of the items; the audit
    declares the id order (the canonical order every audit uses).  The pair's
    orientation does not matter: the hedged capital at 'no difference' is
    symmetric in the sign of the differences.
    """
    out = np.empty(first.size)
    for start in range(0, first.size, _GRADED_PAIRS):
        chunk = slice(start, start + _GRADED_PAIRS)
        differences = (inputs.scores[:, first[chunk]] - inputs.scores[:, second[chunk]]).T
        out[chunk] = betting_log_e(differences, alpha)[:, -1] if differences.size else np.empty(0)
    return out


def add_anytime_columns(pairs: pd.DataFrame, n_items: int, alpha: float, power: float, log_e: np.ndarray | None = None) -> None:
    """Anytime-valid columns: the grid-mixture e-value at the observed counts and the boundary-based N_av.

    p_anytime_at_n = min(1, 1/e_N) at the final counts; a monitored trajectory's
    min(1, 1/sup e_t) can only be smaller, so this is conservative when the
    arrival order is unknown.  ``log_e``, when given, is the e-value already
    computed for these very counts.
    """
    if log_e is None:
        log_e = np.asarray(log_e_value(pairs["b"].to_numpy(), pairs["c"].to_numpy()), dtype=np.float64).reshape(-1)
    pairs["log_e"] = log_e
    pairs["p_anytime_at_n"] = np.exp(-np.maximum(log_e, 0.0))
    pairs["required_n_anytime"] = np.asarray(required_n_anytime(pairs["b"].to_numpy(), pairs["c"].to_numpy(), n_items, alpha, power)).reshape(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs["q_anytime"] = np.where(np.isinf(pairs["required_n_anytime"]), 0.0, n_items / pairs["required_n_anytime"])
        pairs["anytime_inflation"] = pairs["required_n_anytime"] / pairs["required_n"]
    pairs["resolved_anytime"] = pairs["q_anytime"] >= 1
