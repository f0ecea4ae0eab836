"""Exact (non-asymptotic) power and sample size of McNemar's test.

With n paired items and discordant-cell probabilities p10 (A only) and p01
(B only), the discordant count M is Binomial(n, psi), psi = p10 + p01, and
given M = m, b is Binomial(m, theta), theta = p10 / psi.  A variant rejects
when its p-value is at most alpha; for fixed m every variant's p-value grows
with min(b, m - b), so it rejects exactly when min(b, m - b) <= k(m), the
critical count found by bisection on the variant's own p-value.  The exact
unconditional power is

    sum_m P(M = m) [P(b <= k(m) | m) + P(b >= m - k(m) | m)],

summed over every m with non-negligible probability (outside a central
range holding all but 1e-16 of M's mass).

The power of the exact and mid-p tests is not monotone in n (it saw-tooths
as the discrete rejection region jumps), so :func:`required_n_mcnemar_exact`
reports the smallest n that reaches the target, and says how it searched.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from llm_power_verified._generated import paired_variance as _variance
from llm_power_verified._validation import check_alpha_power
from llm_power_verified.errors import ArgumentError
from llm_power_verified.inference.mcnemar import VARIANTS, mcnemar_test
from llm_power_verified.power.connor import required_n_connor
from llm_power_verified.power.correlation import validate_marginals_and_rho
from llm_power_verified.power.sample_size import required_n_paired_binary

if TYPE_CHECKING:
    # Lazy: pandas adds about 0.5 s to `import llm_power_verified` (measured), which loads this room.
    import pandas as pd

__all__ = ["critical_counts", "power_mcnemar_exact", "required_n_mcnemar_exact", "sample_size_table"]

_MASS_CUTOFF = 1e-16


def critical_counts(m: Any, alpha: float = 0.05, method: str = "exact") -> np.ndarray:
    """Largest k such that the variant rejects at level alpha when min(b, c) = k, b + c = m.

    -1 where no outcome with m discordant pairs rejects.

    Parameters
    ----------
    m : array_like
        Numbers of discordant pairs b + c, whole numbers >= 0.
    alpha : float, default 0.05
        Significance level, in (0, 1).
    method : {"exact", "mid-p", "chi2", "chi2-corrected"}, default "exact"
        The McNemar variant; two-sided at level ``alpha``.

    Returns
    -------
    numpy.ndarray of int
        k(m) for each m: the variant rejects exactly when min(b, c) <= k(m); -1 where no outcome rejects.

    Notes
    -----
    k(m) is found by bisection on the variant's own p-value, which grows with min(b, m - b) for fixed m (module notes).
    No closed form: nothing here comes from ``derivations/``.

    Examples
    --------
    >>> critical_counts([5, 6, 8, 20], 0.05, "exact").tolist()
    [-1, 0, 0, 5]
    """
    if method not in VARIANTS:
        raise ArgumentError(f"method must be one of {VARIANTS}; got {method!r}")
    m = np.atleast_1d(np.asarray(m, dtype=np.float64))
    log_alpha = math.log(alpha)
    low = np.full(m.shape, -1.0)  # known to reject (or the sentinel -1)
    high = np.floor(m / 2) + 1  # known not to reject: b = c never rejects
    while True:
        open_ = high - low > 1
        if not open_.any():
            return low.astype(np.int64)
        middle = np.floor((low + high) / 2)
        index = np.flatnonzero(open_)
        mm, kk = m[index], middle[index]
        rejects = mcnemar_test(kk, mm - kk, method).log_pvalue <= log_alpha
        rejects = np.atleast_1d(rejects)
        low[index[rejects]] = kk[rejects]
        high[index[~rejects]] = kk[~rejects]


def power_exact_at_cells(n: int, p10: float, p01: float, alpha: float, method: str) -> float:
    # Lazy: scipy.stats adds about 1.2 s to `import llm_power_verified` (measured), which loads this room.
    from scipy import stats

    discordance = p10 + p01
    if n < 1 or discordance <= 0:
        return 0.0
    theta = p10 / discordance
    low = int(stats.binom.ppf(_MASS_CUTOFF, n, discordance))
    high = int(stats.binom.isf(_MASS_CUTOFF, n, discordance))
    m = np.arange(max(low - 1, 0), min(high + 1, n) + 1)
    weights = stats.binom.pmf(m, n, discordance)
    k = critical_counts(m, alpha, method)
    possible = k >= 0
    conditional = np.zeros(m.shape)
    mp, kp = m[possible], k[possible]
    conditional[possible] = stats.binom.cdf(kp, mp, theta) + stats.binom.sf(mp - kp - 1, mp, theta)
    return float(np.sum(weights * conditional))


def _cells(p_a, p_b, rho):
    p_a, p_b, rho = validate_marginals_and_rho(p_a, p_b, rho)
    both = _variance.joint_success_probability(p_a, p_b, rho)
    return float(np.maximum(p_a - both, 0.0)), float(np.maximum(p_b - both, 0.0))


def power_mcnemar_exact(
    n: int, p_a: float, p_b: float, rho: float, alpha: float = 0.05, method: str = "exact"
) -> float:
    """Exact unconditional power of a McNemar variant with n paired items.

    Parameters
    ----------
    n : int
        Number of paired items, >= 1.
    p_a, p_b : float
        Accuracies of models A and B, each in (0, 1).
    rho : float
        Correlation of the per-item 0/1 scores, inside the admissible interval.
    alpha : float, default 0.05
        Significance level, in (0, 1).
    method : {"exact", "mid-p", "chi2", "chi2-corrected"}, default "exact"
        The McNemar variant; two-sided at level ``alpha``.

    Returns
    -------
    float
        The exact unconditional power.

    Notes
    -----
    Sum over the multinomial law of the cells (a, b, c, d) with probabilities from (p_a,
    p_b, rho): power = sum_{b, c} P(b, c) 1[p_method(b, c) <= alpha], computed through
    the discordant total m = b + c ~ Binomial(n, p10 + p01) and b | m ~ Binomial(m, p10
    / (p10 + p01)).

    The cell probabilities p10 and p01 come from ``derivations/paired_variance.py``.

    References
    ----------
    Suissa, S. and Shuster, J. J. (1991). The 2 x 2 matched-pairs trial: exact
    unconditional design and analysis. Biometrics 47, 361-372; Fagerland, Lydersen and
    Laake (2013), BMC Med. Res. Methodol. 13, 91.

    Examples
    --------
    >>> round(power_mcnemar_exact(1028, 0.65, 0.60, 0.30, method="chi2"), 3)
    0.799
    """
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ArgumentError(f"n must be a whole number >= 1; got {n!r}")
    alpha_array, _ = check_alpha_power(alpha)
    if method not in VARIANTS:
        raise ArgumentError(f"method must be one of {VARIANTS}; got {method!r}")
    only_a, only_b = _cells(p_a, p_b, rho)
    return power_exact_at_cells(int(n), only_a, only_b, float(alpha_array), method)


def required_n_mcnemar_exact(
    p_a: float, p_b: float, rho: float, alpha: float = 0.05, power: float = 0.8, method: str = "exact"
) -> int:
    """Smallest n whose exact power reaches the target, for a McNemar variant.

    Search: from Connor's approximation, double n until the power reaches the
    target, bisect to a crossing n1 (power(n1) >= target > power(n1 - 1)),
    then scan the window [n1 - w, n1) with w = min(max(50, n1/20), 5000) for
    an earlier n that already reaches the target (the saw-tooth of the exact
    and mid-p tests can put one there).  The result is the smallest n found
    in that window.

    Parameters
    ----------
    p_a, p_b : float
        Accuracies of models A and B, each in (0, 1).
    rho : float
        Correlation of the per-item 0/1 scores, inside the admissible interval.
    alpha : float, default 0.05
        Significance level, in (0, 1).
    power : float, default 0.8
        Target power 1 - beta, in (alpha, 1).
    method : {"exact", "mid-p", "chi2", "chi2-corrected"}, default "exact"
        The McNemar variant; two-sided at level ``alpha``.

    Returns
    -------
    int
        The smallest n found whose exact power reaches ``power``.

    Notes
    -----
    n_exact = min{n : power_method(n) >= target}, with the power of
    :func:`power_mcnemar_exact`; the exact and mid-p powers are saw-toothed in n, hence
    the scan below the first crossing.

    References
    ----------
    Suissa and Shuster (1991), Biometrics 47, 361-372; Connor (1987), Biometrics 43,
    207-211.

    Examples
    --------
    >>> required_n_mcnemar_exact(0.65, 0.60, 0.30, method="chi2")
    1031
    """
    alpha_array, power_array = check_alpha_power(alpha, power)
    alpha, power = float(alpha_array), float(power_array)
    if method not in VARIANTS:
        raise ArgumentError(f"method must be one of {VARIANTS}; got {method!r}")
    only_a, only_b = _cells(p_a, p_b, rho)
    if only_a == only_b:
        return math.inf

    def reaches(n: int) -> bool:
        return power_exact_at_cells(n, only_a, only_b, alpha, method) >= power

    start = float(required_n_connor(p_a, p_b, rho, alpha, power))
    high = max(math.ceil(start), 2)
    low = 1
    while not reaches(high):
        low, high = high, high * 2
        if high > 10**10:
            raise ArithmeticError("exact power does not reach the target below n = 1e10")
    while high - low > 1:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    window = min(max(50, high // 20), 5000)
    for n in range(max(1, high - window), high):
        if reaches(n):
            return n
    return high


def sample_size_table(
    p_a_values, p_b_values, rho_values, alpha: float = 0.05, power: float = 0.8, methods=VARIANTS
) -> pd.DataFrame:
    """Exact required n of each variant beside Connor (1987) and Eq. 6, over a grid.

    Inadmissible (p_a, p_b, rho) combinations and p_a = p_b are skipped.
    Columns: p_a, p_b, rho, eq6 (unrounded N*), connor, and one per method.

    Parameters
    ----------
    p_a_values, p_b_values, rho_values : sequence of float
        The grid: every combination of the three is a row (inadmissible ones and p_a = p_b skipped).
    alpha : float, default 0.05
        Significance level, in (0, 1).
    power : float, default 0.8
        Target power 1 - beta, in (alpha, 1).
    methods : sequence of str, default every variant
        The McNemar variants to solve for, each of "exact", "mid-p", "chi2", "chi2-corrected".

    Returns
    -------
    pandas.DataFrame
        One row per admissible combination: p_a, p_b, rho, eq6 (unrounded N*), connor, and one column per
        method.

    Notes
    -----
    Per row: Equation 6's N*, Connor's N and :func:`required_n_mcnemar_exact` for each
    method.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Section 5;
    Connor (1987); Suissa and Shuster (1991).

    Examples
    --------
    >>> table = sample_size_table([0.65], [0.60], [0.30], methods=("chi2",))
    >>> table[["eq6", "connor", "chi2"]].round(1).values.tolist()
    [[1027.6, 1033.1, 1031.0]]
    """
    rows = []
    for pa in p_a_values:
        for pb in p_b_values:
            for rho in rho_values:
                if pa == pb:
                    continue
                try:
                    eq6 = float(required_n_paired_binary(pa, pb, rho, alpha, power))
                except ValueError:
                    continue
                row = {
                    "p_a": pa,
                    "p_b": pb,
                    "rho": rho,
                    "eq6": eq6,
                    "connor": float(required_n_connor(pa, pb, rho, alpha, power)),
                }
                for method in methods:
                    row[method] = required_n_mcnemar_exact(pa, pb, rho, alpha, power, method)
                rows.append(row)
    # pandas is imported here, not at the top: it costs ~0.2 s and only this table needs it (import time).
    # Lazy: pandas adds about 0.5 s to `import llm_power_verified` (measured), which loads this room.
    import pandas as pd

    return pd.DataFrame(rows)
