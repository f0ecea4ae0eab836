"""Per-pair statistics of a leaderboard: which pairs, their exact 2x2 counts, tests, N*, bootstrap and sensitivity.

Every function works on a block of pairs at once (no loop over items or pairs in Python);
:func:`~llm_power_verified.leaderboard.pair_table.pair_block` calls them block by block.
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
from llm_power_verified.leaderboard.pair_bootstrap import bootstrap_pair_cells
from llm_power_verified.leaderboard.streams import item_stream, pair_streams, ranking_order
from llm_power_verified.power.connor import required_n_connor_from_counts
from llm_power_verified.power.conventions import required_n_unpaired
from llm_power_verified.power.correlation import admissible_rho_interval, correlation_from_counts
from llm_power_verified.power.sample_size import (
    minimum_detectable_effect,
    required_n_from_counts,
    required_n_paired_binary,
    required_n_wald,
)
from llm_power_verified.power.shortcut import required_n_shortcut
from llm_power_verified.repeats.means import model_means
from llm_power_verified.sequential import required_n_anytime
from llm_power_verified.sequential.betting_columns import betting_log_e_at_n
from llm_power_verified.sequential.e_process import log_e_value

__all__ = [
    "add_anytime_columns",
    "adjacent_ranks",
    "binary_pair_columns",
    "bootstrap_pair_cells",
    "graded_pair_columns",
    "pair_indices",
    "paired_t_columns",
    "rank_models",
]


def rank_models(matrix: ScoreMatrix) -> np.ndarray:
    """Model indices from the highest mean score down; equal means are ordered by model name.

    Parameters
    ----------
    matrix : ScoreMatrix
        The scores.

    Returns
    -------
    numpy.ndarray
        The column indices of the models in rank order.

    Examples
    --------
    >>> import numpy as np
    >>> from llm_power_verified.io import from_array
    >>> rng = np.random.default_rng(0)
    >>> matrix = from_array((rng.random((400, 3)) < [0.8, 0.7, 0.5]).astype(float), models=["x", "y", "z"])
    >>> rank_models(matrix).tolist()
    [0, 1, 2]
    """
    return ranking_order(model_means(matrix), matrix.models)


def pair_indices(order: np.ndarray, mode: str, reference: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of a mode, as (first, second) model indices: first is the higher-ranked (or the reference) model.

    Parameters
    ----------
    order : numpy.ndarray
        Model indices in rank order (:func:`~llm_power_verified.leaderboard.pairs.rank_models`).
    mode : {"adjacent", "all", "reference"}
        Neighbours in the ranking (K - 1 pairs), every pair (K (K - 1) / 2, the rank-order upper triangle), or the
        reference against every other model (K - 1).
    reference : int, optional
        The reference model's index (mode "reference").

    Returns
    -------
    first, second : numpy.ndarray
        Model indices of each pair.

    Examples
    --------
    >>> first, second = pair_indices(np.array([2, 0, 1]), "all")
    >>> list(zip(first.tolist(), second.tolist()))
    [(2, 0), (2, 1), (0, 1)]
    """
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
    """The pairs' ``adjacent`` column: the two models are next in the ranking, abs(rank_a - rank_b) = 1.

    The one rule of "adjacent pair" (either orientation): the headline, the tiers, the streamed audit, ``--fail-on``
    and ``plan`` read this column (or, for a saved report that lacks it, this function) rather than typing the rule
    again.

    Parameters
    ----------
    rank_a, rank_b : array_like
        The two models' ranks.

    Returns
    -------
    numpy.ndarray
        True where they are adjacent.

    Examples
    --------
    >>> adjacent_ranks([1, 3, 2], [2, 1, 4]).tolist()
    [True, False, False]
    """
    return np.abs(np.asarray(rank_b, dtype=np.int64) - np.asarray(rank_a, dtype=np.int64)) == 1


def binary_pair_columns(inputs, first, second, alpha, power, n_resamples, seed, log_tail=None) -> dict[str, np.ndarray]:
    """The per-pair columns of 0/1 scores: gap, cells, rho-hat, the tests, N*, q, MDE, bootstrap, sensitivity, shortcut.

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (:func:`~llm_power_verified.leaderboard.blocks.pair_inputs`).
    first, second : numpy.ndarray
        Model indices of each pair (``first`` the higher-ranked model, or the reference).
    alpha : float
        Two-sided level, in (0, 1).
    power : float
        Target power, in (alpha, 1).
    n_resamples : int
        Paired-bootstrap resamples (0: none).
    seed : int
        Seed of the per-pair streams.
    log_tail : numpy.ndarray, optional
        The pairs' exact tails log P(X <= min(b, c)) when the family computed them (not computed again).

    Returns
    -------
    dict of str to numpy.ndarray
        Column name -> one value per pair.

    Notes
    -----
    sigma_D^2 = p_A(1-p_A) + p_B(1-p_B) - 2 rho sqrt(p_A(1-p_A) p_B(1-p_B)) (``derivations/paired_variance.py``),
    N* = (z_{1-alpha/2} + z_power)^2 sigma_D^2 / delta^2 (Eq. 6, ``derivations/wald.py``), q = N / N*; Connor's N
    (``derivations/connor.py``), the (1 - rho) shortcut (``derivations/shortcut_series.py``) and the unpaired N
    (``derivations/unpaired.py``).
    """
    n = inputs.n_items
    both, only_a, only_b = inputs.counts(first, second)
    neither = n - both - only_a - only_b
    p_a, p_b = (both + only_a) / n, (both + only_b) / n
    rho = np.asarray(correlation_from_counts(both, only_a, only_b, neither), dtype=np.float64).reshape(-1)
    gap = (only_a - only_b) / n
    frame = {"delta": gap, "p_a": p_a, "p_b": p_b, "a": both, "b": only_a, "c": only_b, "d": neither, "rho": rho}
    chi2 = mcnemar_chi2(only_a, only_b)
    exact, midp = exact_and_midp(only_a, only_b, log_tail)
    frame.update(p_chi2=chi2.pvalue, p_exact=exact.pvalue, log_p_exact=exact.log_pvalue, p_midp=midp.pvalue)
    required = np.asarray(required_n_from_counts(only_a, only_b, n, alpha, power), dtype=np.float64).reshape(-1)
    variance = _variance.paired_difference_variance_from_cells(only_a / n, only_b / n)
    frame.update(variance=variance, required_n=required)
    frame["required_n_connor"] = np.asarray(required_n_connor_from_counts(only_a, only_b, n, alpha, power)).reshape(-1)
    frame["mde"] = _stated_mde(n, variance, alpha, power)
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
        shortcut[defined] = np.asarray(
            required_n_shortcut(p_a[defined], p_b[defined], rho[defined], alpha, power)
        ).reshape(-1)
        unpaired[defined] = np.asarray(required_n_unpaired(p_a[defined], p_b[defined], alpha, power)).reshape(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["shortcut_n"] = shortcut
        frame["shortcut_ratio"] = shortcut / required
        frame["unpaired_n"] = unpaired
        frame["efficiency_gain"] = unpaired / required
    return frame


def _stated_mde(n: int, variance: np.ndarray, alpha: float, power: float) -> np.ndarray:
    """Paper Eq. 4's MDE at N per pair, NaN (JSON null) where the plug-in variance is 0.

    With the same difference on every item (no discordant item, or all discordant one way) the plug-in variance is 0
    and Eq. 4 gives 0, which would read as "any gap is detectable"; an MDE needs a variance under the alternative, which
    such a pair does not estimate.
    """
    mde = np.asarray(minimum_detectable_effect(n, variance, alpha, power), dtype=np.float64).reshape(-1)
    return np.where(np.asarray(variance).reshape(-1) > 0, mde, np.nan)


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

    Also returns ``delta``, ``p_a``, ``p_b``, ``rho``, ``variance_a``, ``variance_b`` and ``variance``, so that
    :func:`graded_pair_columns` builds on it.  No alpha or power: the ranking's all-pairs p-values need the test only.

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (:func:`~llm_power_verified.leaderboard.blocks.pair_inputs`).
    first, second : numpy.ndarray
        Model indices of each pair (``first`` the higher-ranked model, or the reference).

    Returns
    -------
    dict of str to numpy.ndarray
        Column name -> one value per pair.
    """
    n = inputs.n_items
    # The covariance matrix's entries (all pairs), or per-pair dot products of the centred scores (a linear mode;
    # equal to rounding, bounded in PairInputs.covariances).
    means, variances = inputs.means, inputs.variances
    var_a, var_b = variances[first], variances[second]
    cov = inputs.covariances(first, second)
    gap = means[first] - means[second]
    variance = np.maximum(var_a + var_b - 2 * cov, 0.0)
    spread = np.sqrt(var_a * var_b)
    rho = np.full(gap.size, np.nan)
    np.divide(cov, spread, out=rho, where=spread > 0)  # undefined (NaN) for a constant model
    np.clip(rho, -1.0, 1.0, out=rho)  # |rho| <= 1 (Cauchy-Schwarz): beyond is rounding of cov / spread
    # t = gap / SE; a pair whose difference is the same on every item has SE = 0: t = +/-inf (p = 0) when
    # that difference is non-zero, and t = 0 (p = 1: no evidence of a difference) when the models agree on every item.
    standard_error = np.sqrt(variance / n)
    t = np.where(gap == 0, 0.0, np.copysign(np.inf, gap))
    np.divide(gap, standard_error, out=t, where=standard_error > 0)
    # Lazy: scipy.stats costs 0.7 s at import, more than a binary audit of 50 models; only graded scores need it.
    from scipy import stats

    log_p = np.log(2.0) + stats.t.logsf(np.abs(t), n - 1)
    return {
        "delta": gap,
        "p_a": means[first],
        "p_b": means[second],
        "rho": rho,
        "variance_a": var_a,
        "variance_b": var_b,
        "t": t,
        "p_t": np.exp(np.minimum(log_p, 0.0)),
        "log_p_t": np.minimum(log_p, 0.0),
        "variance": variance,
    }


def graded_pair_columns(inputs, first, second, alpha, power, n_resamples, seed) -> dict[str, np.ndarray]:
    """The per-pair columns of graded scores: the paired t-test, N*, q, MDE, the shared item bootstrap and sensitivity.

    Parameters
    ----------
    inputs : PairInputs
        The audit's pair inputs (:func:`~llm_power_verified.leaderboard.blocks.pair_inputs`).
    first, second : numpy.ndarray
        Model indices of each pair (``first`` the higher-ranked model, or the reference).
    alpha : float
        Two-sided level, in (0, 1).
    power : float
        Target power, in (alpha, 1).
    n_resamples : int
        Item-bootstrap resamples (0: none).
    seed : int
        Seed of the shared item stream.

    Returns
    -------
    dict of str to numpy.ndarray
        Column name -> one value per pair.
    """
    n = inputs.n_items
    frame = paired_t_columns(inputs, first, second)
    gap, variance, var_a, var_b = frame["delta"], frame["variance"], frame["variance_a"], frame["variance_b"]
    scores = inputs.scores
    required = np.asarray(required_n_wald(variance, gap, alpha, power)).reshape(-1)
    frame["required_n"] = required
    frame["mde"] = _stated_mde(n, variance, alpha, power)
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


def graded_log_e(inputs, first: np.ndarray, second: np.ndarray, alpha: float) -> np.ndarray:
    """Graded scores: log e_N of the hedged betting e-process (sequential/betting.py) over the items in id order.

    Unlike the binary mixture, whose e-value depends only on the discordant
    counts, a betting e-value depends on the order of the items; the audit
    declares the id order (the canonical order every audit uses).  The pair's
    orientation does not matter: the hedged capital at 'no difference' is
    symmetric in the sign of the differences.
    """
    # Many pairs per call, only e_N (sequential/betting_columns.py): equal bit for bit to betting_log_e(d)[:, -1].
    return betting_log_e_at_n(inputs.scores, first, second, alpha)


def add_anytime_columns(
    pairs: pd.DataFrame | dict[str, np.ndarray],
    n_items: int,
    alpha: float,
    power: float,
    log_e: np.ndarray | None = None,
) -> None:
    """Add the anytime-valid columns of 0/1 scores, in place: the e-value at the observed counts and N_av.

    p_anytime_at_n = min(1, 1/e_N) at the final counts; a monitored trajectory's min(1, 1/sup e_t) can only be
    smaller, so this is conservative when the arrival order is unknown.

    Parameters
    ----------
    pairs : pandas.DataFrame or dict of str to numpy.ndarray
        The block's pair table or its columns (``b``, ``c``, ``required_n``).
    n_items : int
        N.
    alpha : float
        Two-sided level, in (0, 1).
    power : float
        Target power, in (alpha, 1).
    log_e : numpy.ndarray, optional
        The log e-values already computed for these very counts.
    """
    b, c = np.asarray(pairs["b"]), np.asarray(pairs["c"])
    if log_e is None:
        log_e = np.asarray(log_e_value(b, c), dtype=np.float64).reshape(-1)
    pairs["log_e"] = log_e
    pairs["p_anytime_at_n"] = np.exp(-np.maximum(log_e, 0.0))
    required = np.asarray(required_n_anytime(b, c, n_items, alpha, power)).reshape(-1)
    pairs["required_n_anytime"] = required
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs["q_anytime"] = np.where(np.isinf(required), 0.0, n_items / required)
        pairs["anytime_inflation"] = required / np.asarray(pairs["required_n"])
    pairs["resolved_anytime"] = np.asarray(pairs["q_anytime"]) >= 1
