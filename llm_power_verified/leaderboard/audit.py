"""Leaderboard resolution audit: per-pair resolution report for K models.

:func:`audit_leaderboard` ranks the models by mean score and, for each pair
of the chosen mode (adjacent ranks, all pairs, or every model against a
reference), computes the paired diagnostics of the paper's Section 6 from
the score matrix without a Python loop over items or pairs: the 2x2 counts
of all pairs are one matrix product.

Per pair (binary scores): gap, accuracies, discordant counts b and c,
rho-hat, the four arbiters (McNemar chi-square, exact, mid-p and the paired
bootstrap interval), N*, q = N/N*, the MDE, the verdict (resolved when q >= 1),
a bootstrap 5-95% interval on N* (multinomial resampling of the four cells),
the rho-hat +/- 0.10 sensitivity (clamped to the admissible interval), the
(1 - rho) shortcut and its ratio to N*, Connor's N and the efficiency gain
over the unpaired formula.  Graded scores: paired t-test, paired bootstrap
(shared item resampling across models), and the normal-theory paired N*.

The family (``family``) is declared explicitly: "adjacent" (K - 1
comparisons), "all" (K (K - 1) / 2) or "reference" (K - 1); adjusted
p-values and N* inflations use it.  Cluster diagnostics are in
:mod:`llm_power_verified.leaderboard.clusters`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd

from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._validation import MAX_RESAMPLES, check_scalar
from llm_power_verified.leaderboard.contingency import both_correct_counts, correct_counts
from llm_power_verified.planning.conventions import required_n_unpaired
from llm_power_verified.planning.correlation import admissible_rho_interval, correlation_from_counts
from llm_power_verified.io import ScoreMatrix
from llm_power_verified.inference.mcnemar import mcnemar_chi2, mcnemar_exact, mcnemar_midp
from llm_power_verified.inference.multiplicity import adjust_pvalues, inflation_at_level, required_n_inflation
from llm_power_verified.numeric import quantiles
from llm_power_verified.planning.sample_size import (
    minimum_detectable_effect,
    required_n_connor_from_counts,
    required_n_from_counts,
    required_n_paired_binary,
    required_n_wald,
)
from llm_power_verified.sequential.e_process import e_bh, log_e_value
from llm_power_verified.planning.shortcut import required_n_shortcut

__all__ = ["AuditResult", "MODES", "FAMILIES", "audit_leaderboard", "rank_models", "pair_indices"]

MODES = ("adjacent", "all", "reference")
FAMILIES = ("adjacent", "all", "reference")
_PAIR_CHUNK = 20_000


@dataclass(frozen=True)
class AuditResult:
    """Everything the audit computed; :mod:`llm_power_verified.report.render` renders it."""

    matrix: ScoreMatrix
    ranking: pd.DataFrame
    pairs: pd.DataFrame
    mode: str
    family: str
    family_size: int
    alpha: float
    power: float
    seed: int
    n_bootstrap: int
    multiplicity: dict
    clusters: dict | None = None
    tiers: dict = field(default_factory=dict)
    verdicts: dict = field(default_factory=dict)
    by_gap: list = field(default_factory=list)
    notes: tuple[str, ...] = ()


def rank_models(matrix: ScoreMatrix) -> np.ndarray:
    """Model indices from the highest mean score down (ties keep input order)."""
    return np.argsort(-matrix.scores.mean(axis=0), kind="stable")


def pair_indices(order: np.ndarray, mode: str, reference: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(first, second) model indices: first is the higher-ranked (or the reference) model."""
    if mode == "adjacent":
        return order[:-1], order[1:]
    if mode == "all":
        upper_i, upper_j = np.triu_indices(order.size, k=1)
        return order[upper_i], order[upper_j]
    if mode == "reference":
        if reference is None:
            raise ValueError("mode 'reference' needs a reference model")
        others = order[order != reference]
        return np.full(others.size, reference), others
    raise ValueError(f"mode must be one of {MODES}; got {mode!r}")


def _binary_counts(scores: np.ndarray, first: np.ndarray, second: np.ndarray):
    """Both-correct, only-first and only-second counts for every pair (one matrix product)."""
    both_matrix = both_correct_counts(scores)
    correct = correct_counts(scores)
    both = both_matrix[first, second]
    return both, correct[first] - both, correct[second] - both


def bootstrap_pair_cells(both, only_a, only_b, n, draws: int, confidence: float, rng: np.random.Generator, required: bool = True):
    """Percentile interval of D-bar and 5-95% interval of N* from multinomial cell resampling.

    The four cells are drawn as a chain of binomials, vectorised over pairs
    and replicates: n11* ~ Bin(n, p11), b* ~ Bin(n - n11*, p10 / (1 - p11)), ...
    """
    pairs = both.size
    low = np.empty(pairs)
    high = np.empty(pairs)
    pvalue = np.empty(pairs)
    n_star_low = np.empty(pairs)
    n_star_high = np.empty(pairs)
    tails = [(1 - confidence) / 2, (1 + confidence) / 2]
    chunk = max(1, 2_000_000 // max(draws, 1))
    for start in range(0, pairs, chunk):
        sl = slice(start, min(start + chunk, pairs))
        p11, p10, p01 = both[sl] / n, only_a[sl] / n, only_b[sl] / n
        with np.errstate(divide="ignore", invalid="ignore"):
            d11 = rng.binomial(n, np.broadcast_to(p11, (draws, p11.size)))
            rest = n - d11
            d10 = rng.binomial(rest, np.clip(np.nan_to_num(p10 / (1 - p11)), 0, 1))
            d01 = rng.binomial(rest - d10, np.clip(np.nan_to_num(p01 / (1 - p11 - p10)), 0, 1))
        gap = (d10 - d01) / n
        low[sl], high[sl] = np.quantile(gap, tails, axis=0)
        below = np.mean(gap <= 0, axis=0)
        above = np.mean(gap >= 0, axis=0)
        pvalue[sl] = np.minimum(1.0, 2 * np.minimum(below, above))
        if required:
            resampled = np.asarray(required_n_from_counts(d10, d01, n))
            n_star_low[sl], n_star_high[sl] = quantiles(resampled, [0.05, 0.95])
    return low, high, pvalue, n_star_low, n_star_high


def _binary_pairs(matrix, first, second, alpha, power, draws, rng, progress):
    n = matrix.n_items
    both, only_a, only_b = _binary_counts(matrix.scores, first, second)
    neither = n - both - only_a - only_b
    p_a, p_b = (both + only_a) / n, (both + only_b) / n
    rho = np.asarray(correlation_from_counts(both, only_a, only_b, neither), dtype=np.float64).reshape(-1)
    gap = (only_a - only_b) / n
    frame = {"delta": gap, "p_a": p_a, "p_b": p_b, "n11": both, "b": only_a, "c": only_b, "n00": neither, "rho": rho}
    chi2, exact, midp = mcnemar_chi2(only_a, only_b), mcnemar_exact(only_a, only_b), mcnemar_midp(only_a, only_b)
    frame.update(p_chi2=chi2.pvalue, p_exact=exact.pvalue, log_p_exact=exact.log_pvalue, p_midp=midp.pvalue)
    required = np.asarray(required_n_from_counts(only_a, only_b, n, alpha, power), dtype=np.float64).reshape(-1)
    variance = _variance.paired_difference_variance_from_cells(only_a / n, only_b / n)
    frame.update(variance=variance, required_n=required)
    frame["connor_n"] = np.asarray(required_n_connor_from_counts(only_a, only_b, n, alpha, power)).reshape(-1)
    frame["mde"] = np.asarray(minimum_detectable_effect(n, variance, alpha, power)).reshape(-1)
    if draws:
        if progress:
            progress("bootstrap")
        low, high, pboot, n_low, n_high = bootstrap_pair_cells(both, only_a, only_b, n, draws, 1 - alpha, rng)
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


def _graded_pairs(matrix, first, second, alpha, power, draws, rng, progress):
    from scipy import stats

    n = matrix.n_items
    scores = matrix.scores
    means = scores.mean(axis=0)
    centred = scores - means
    covariance = centred.T @ centred / (n - 1)
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
    log_p = np.log(2.0) + stats.t.logsf(np.abs(t), n - 1)
    frame = {"delta": gap, "p_a": means[first], "p_b": means[second], "rho": rho, "variance_a": var_a, "variance_b": var_b,
             "t": t, "p_t": np.exp(np.minimum(log_p, 0.0)), "log_p_t": np.minimum(log_p, 0.0), "variance": variance}
    required = np.asarray(required_n_wald(variance, gap, alpha, power)).reshape(-1)
    frame["required_n"] = required
    frame["mde"] = np.asarray(minimum_detectable_effect(n, variance, alpha, power)).reshape(-1)
    if draws:
        if progress:
            progress("bootstrap")
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=draws).astype(np.float64)
        resampled = weights @ scores / n
        differences = resampled[:, first] - resampled[:, second]
        tails = [alpha / 2, 1 - alpha / 2]
        frame["boot_ci_low"], frame["boot_ci_high"] = np.quantile(differences, tails, axis=0)
        frame["p_bootstrap"] = np.minimum(1.0, 2 * np.minimum(np.mean(differences <= 0, axis=0), np.mean(differences >= 0, axis=0)))
    _sensitivity(frame, alpha, power)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["unpaired_n"] = np.asarray(required_n_wald(var_a + var_b, gap, alpha, power)).reshape(-1)
        frame["efficiency_gain"] = frame["unpaired_n"] / required
    return frame


def _anytime(pairs: pd.DataFrame, matrix: ScoreMatrix, alpha: float, power: float) -> None:
    """Anytime-valid columns: the grid-mixture e-value at the observed counts and the boundary-based N_av.

    p_anytime = min(1, 1/e) at the final counts; the trajectory's supremum can
    only be larger, so this is conservative when the arrival order is unknown.
    """
    from llm_power_verified.sequential.e_process import required_n_anytime

    log_e = np.asarray(log_e_value(pairs["b"].to_numpy(), pairs["c"].to_numpy()), dtype=np.float64).reshape(-1)
    pairs["log_e"] = log_e
    pairs["p_anytime"] = np.exp(-np.maximum(log_e, 0.0))
    pairs["required_n_anytime"] = np.asarray(required_n_anytime(pairs["b"].to_numpy(), pairs["c"].to_numpy(), matrix.n_items, alpha, power)).reshape(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs["q_anytime"] = np.where(np.isinf(pairs["required_n_anytime"]), 0.0, matrix.n_items / pairs["required_n_anytime"])
        pairs["anytime_inflation"] = pairs["required_n_anytime"] / pairs["required_n"]
    pairs["resolved_anytime"] = pairs["q_anytime"] >= 1


def _family_pvalues(matrix, order, family, reference, alpha, power):
    """The arbiter p-values (exact McNemar, or paired t) of every pair in the declared family."""
    first, second = pair_indices(order, family if family != "reference" else "reference", reference)
    if matrix.binary:
        _, only_a, only_b = _binary_counts(matrix.scores, first, second)
        return first, second, np.atleast_1d(mcnemar_exact(only_a, only_b).pvalue)
    frame = _graded_pairs(matrix, first, second, alpha, power, 0, None, None)
    return first, second, frame["p_t"]


def audit_leaderboard(
    matrix: ScoreMatrix,
    mode: str = "adjacent",
    *,
    reference: str | None = None,
    family: str | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    n_bootstrap: int = 500,
    seed: int = 0,
    cluster_bootstrap: int = 1000,
    progress: Callable[[str], None] | None = None,
) -> AuditResult:
    """Resolution audit of a leaderboard (see the module notes).

    Parameters
    ----------
    matrix : ScoreMatrix
        Aligned per-item scores (see :mod:`llm_power_verified.io`).
    mode : {"adjacent", "all", "reference"}
        Which pairs to report.
    reference : str, optional
        The reference model for mode "reference".
    family : {"adjacent", "all", "reference"}, optional
        The declared multiplicity family; defaults to the mode.
    n_bootstrap : int
        Resamples for the paired-bootstrap arbiter and the N* interval (0 to skip).
    seed : int
        Seed of the ``numpy.random.Generator`` behind every resample.
    cluster_bootstrap : int
        Resamples of the cluster bootstrap (when the matrix has clusters).
    """
    from llm_power_verified.leaderboard.clusters import cluster_diagnostics
    from llm_power_verified.leaderboard.tiers import adjacent_tiers, compact_letter_display

    if not isinstance(matrix, ScoreMatrix):
        raise TypeError(f"matrix must be a ScoreMatrix; got {type(matrix).__name__}: build one with "
                        "llm_power_verified.io.read_scores(...) (files, DataFrames) or from_array(...) (arrays)")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}; got {mode!r}")
    family = family or mode
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}; got {family!r}")
    if (mode == "reference") != (family == "reference"):
        raise ValueError("mode 'reference' goes with family 'reference' (and only with it)")
    if not 0 < alpha < 1 or not alpha < power < 1:
        raise ValueError(f"need 0 < alpha < power < 1; got alpha = {alpha!r}, power = {power!r}")
    check_scalar("n_bootstrap", n_bootstrap, low=0, high=MAX_RESAMPLES, integer=True)
    check_scalar("cluster_bootstrap", cluster_bootstrap, low=0, high=MAX_RESAMPLES, integer=True)
    check_scalar("seed", seed, low=0, high=2**63 - 1, integer=True)
    order = rank_models(matrix)
    reference_index = None
    if mode == "reference":
        if reference not in matrix.models:
            raise ValueError(f"reference must be one of the models {list(matrix.models)}; got {reference!r}")
        reference_index = matrix.models.index(reference)
    rng = np.random.default_rng(seed)
    first, second = pair_indices(order, mode, reference_index)
    compute = _binary_pairs if matrix.binary else _graded_pairs
    parts = []
    for start in range(0, first.size, _PAIR_CHUNK):
        sl = slice(start, start + _PAIR_CHUNK)
        if progress and first.size > _PAIR_CHUNK:
            progress(f"pairs {start:,}-{min(start + _PAIR_CHUNK, first.size):,} of {first.size:,}")
        parts.append(pd.DataFrame(compute(matrix, first[sl], second[sl], alpha, power, n_bootstrap, rng, progress)))
    pairs = pd.concat(parts, ignore_index=True)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(1, order.size + 1)
    names = np.asarray(matrix.models, dtype=object)
    pairs.insert(0, "model_a", names[first])
    pairs.insert(1, "model_b", names[second])
    pairs.insert(2, "rank_a", rank[first])
    pairs.insert(3, "rank_b", rank[second])
    pairs["n"] = matrix.n_items
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs["q"] = np.where(np.isinf(pairs["required_n"]), 0.0, matrix.n_items / pairs["required_n"])
    pairs["resolved"] = pairs["q"] >= 1
    for label in ("rho_minus", "rho_plus"):
        pairs[f"resolved_{label}"] = matrix.n_items >= pairs[f"required_n_{label}"]

    notes = list(matrix.notes)
    if matrix.binary:
        _anytime(pairs, matrix, alpha, power)
    else:
        notes.append("anytime-valid column: defined here for binary scores only (discordant-sign e-process)")
    family_size = {"adjacent": order.size - 1, "all": order.size * (order.size - 1) // 2, "reference": order.size - 1}[family]
    multiplicity = _multiplicity(matrix, pairs, order, family, reference_index, family_size, alpha, power, first, second)
    ranking = pd.DataFrame({"rank": np.arange(1, order.size + 1), "model": names[order],
                            "mean_score": matrix.scores.mean(axis=0)[order]})
    clusters = None
    if matrix.clusters is not None:
        clusters = cluster_diagnostics(matrix, pairs, first, second, alpha, power, cluster_bootstrap, seed)
        pairs = clusters.pop("pairs")
    tiers = {"adjacent": adjacent_tiers(ranking["model"].tolist(), pairs, mode)}
    if order.size <= 60:
        tiers["letters"] = compact_letter_display(matrix, order, alpha, power)
    else:
        tiers["letters"] = None
        notes.append("compact letter display skipped for more than 60 models")
    verdicts = _verdict_table(pairs, multiplicity, clusters)
    return AuditResult(
        matrix=matrix, ranking=ranking, pairs=pairs, mode=mode, family=family, family_size=family_size, alpha=alpha,
        power=power, seed=seed, n_bootstrap=int(n_bootstrap), multiplicity=multiplicity, clusters=clusters, tiers=tiers,
        verdicts=verdicts, by_gap=resolution_by_gap(pairs), notes=tuple(note for note in notes if note),
    )


def _multiplicity(matrix, pairs, order, family, reference_index, family_size, alpha, power, first, second):
    """Adjusted p-values over the declared family and the N* inflations, mapped onto the reported pairs."""
    family_first, family_second, family_p = _family_pvalues(matrix, order, family, reference_index, alpha, power)
    adjusted = {method: adjust_pvalues(family_p, method) for method in ("bonferroni", "sidak", "holm", "bh")}
    # K x K table: position of each family pair (either orientation), -1 outside the family.
    position = np.full((matrix.n_models, matrix.n_models), -1, dtype=np.int64)
    position[family_first, family_second] = np.arange(family_first.size)
    position[family_second, family_first] = np.arange(family_first.size)
    mapped = position[first, second]
    inside = mapped >= 0
    for method, values in adjusted.items():
        column = np.full(len(pairs), np.nan)
        column[inside] = values[mapped[inside]]
        pairs[f"p_{method}"] = column
    # Holm: the pair at step k (ascending p) is tested at alpha / (m - k + 1).
    ranks = np.empty(family_p.size, dtype=np.int64)
    ranks[np.argsort(family_p, kind="stable")] = np.arange(family_p.size)
    holm_level = alpha / (family_size - ranks)
    rejections = int(np.sum(adjusted["bh"] <= alpha))
    e_bh_rejections = None
    if matrix.binary:
        _, family_b, family_c = _binary_counts(matrix.scores, family_first, family_second)
        family_rejected = e_bh(np.atleast_1d(log_e_value(family_b, family_c)), alpha)
        e_bh_rejections = int(family_rejected.sum())
        column = np.zeros(len(pairs), dtype=bool)
        column[inside] = family_rejected[mapped[inside]]
        pairs["rejected_e_bh"] = column
        pairs["rejected_bh"] = pairs["p_bh"] <= alpha
    bh_level = alpha * max(rejections, 1) / family_size
    bonferroni = float(required_n_inflation(family_size, alpha, power))
    sidak = float(required_n_inflation(family_size, alpha, power, method="sidak"))
    holm_inflation = np.full(len(pairs), np.nan)
    holm_inflation[inside] = np.asarray(inflation_at_level(holm_level, alpha, power)).reshape(-1)[mapped[inside]]
    bh_inflation = float(inflation_at_level(bh_level, alpha, power))
    pairs["required_n_bonferroni"] = pairs["required_n"] * bonferroni
    pairs["required_n_holm"] = pairs["required_n"] * holm_inflation
    pairs["resolved_bonferroni"] = pairs["q"] >= bonferroni
    pairs["resolved_holm"] = pairs["q"] >= holm_inflation
    pairs["resolved_bh"] = pairs["q"] >= bh_inflation
    return {"family": family, "family_size": family_size, "arbiter": "exact McNemar" if matrix.binary else "paired t",
            "inflation": {"bonferroni": bonferroni, "sidak": sidak, "bh": bh_inflation,
                          "holm": "per pair, alpha / (m - k + 1) at step k; at most the Bonferroni factor"},
            "bh_rejections": rejections, "bh_level": bh_level, "e_bh_rejections": e_bh_rejections}


GAP_BUCKETS = ((0.0, 0.01), (0.01, 0.02), (0.02, 0.05), (0.05, 0.15), (0.15, math.inf))


def resolution_by_gap(pairs: pd.DataFrame) -> list[dict]:
    """Unresolved pairs and r = N*/N = 1/q by |delta| bucket (the paper's Table 3)."""
    rows = []
    gap = pairs["delta"].abs().to_numpy()
    ratio = np.where(pairs["q"] > 0, 1 / pairs["q"].where(pairs["q"] > 0, np.nan), np.inf)
    for low, high in GAP_BUCKETS + ((0.0, math.inf),):
        everything = (low, high) == (0.0, math.inf)
        inside = np.ones(gap.size, bool) if everything else (gap > low) & (gap <= high) if low > 0 else gap <= high
        if not inside.any():
            continue
        label = "all" if everything else (f"<= {high:.0%}" if low == 0 else f"> {low:.0%}" if math.isinf(high) else f"{low:.0%}-{high:.0%}")
        rows.append({"bucket": label, "pairs": int(inside.sum()), "unresolved": int((~pairs["resolved"].to_numpy()[inside]).sum()),
                     "r_median": float(np.median(ratio[inside])), "r_worst": float(np.max(ratio[inside]))})
    return rows


def _verdict_table(pairs: pd.DataFrame, multiplicity: dict, clusters: dict | None) -> dict:
    """Unresolved-pair counts across procedures (the paper's Table 5)."""
    total = len(pairs)
    table = {
        "fixed-n": int((~pairs["resolved"]).sum()),
        "bonferroni": int((~pairs["resolved_bonferroni"]).sum()),
        "holm": int((~pairs["resolved_holm"]).sum()),
        "benjamini-hochberg": int((~pairs["resolved_bh"]).sum()),
        "rho-0.10": int((~pairs["resolved_rho_minus"]).sum()),
        "rho+0.10": int((~pairs["resolved_rho_plus"]).sum()),
        "clustered": int((~pairs["resolved_cluster"]).sum()) if clusters is not None else None,
        "anytime-valid": int((~pairs["resolved_anytime"]).sum()) if "resolved_anytime" in pairs else None,
        "pairs": total,
    }
    return table



