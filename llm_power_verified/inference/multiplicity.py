"""How a family-wise correction of alpha inflates the required sample size.

A leaderboard that displays m comparisons at once controls the family-wise
error by testing each at a smaller alpha'.  Substituting alpha' in Eq. 3
multiplies N* by a factor that depends only on (m, alpha, power): printed from
``derivations/multiplicity.py``.  Holm's procedure is never stricter than
Bonferroni, so the Bonferroni factor is an upper bound for Holm.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llm_power_verified._generated import multiplicity as _multiplicity
from llm_power_verified._validation import check_alpha_power, check_count, finish, sides_for
from llm_power_verified.errors import ArgumentError

__all__ = ["required_n_inflation"]

_INFLATIONS = {"bonferroni": _multiplicity.bonferroni_inflation, "sidak": _multiplicity.sidak_inflation}


def required_n_inflation(
    family_size: Any,
    alpha: Any = 0.05,
    power: Any = 0.8,
    correction: str = "bonferroni",
    alternative: str = "two-sided",
) -> float | np.ndarray:
    r"""Factor by which N* grows when each of m comparisons is tested at a corrected level.

    Parameters
    ----------
    family_size : array_like
        Number m of comparisons in the declared family (whole number >= 1),
        e.g. K - 1 adjacent pairs or K (K - 1) / 2 pairs of a K-model table.
    alpha : array_like, default 0.05
        Family-wise significance level, in (0, 1).
    power : array_like, default 0.8
        Target power 1 - beta of each comparison, in (alpha, 1).
    correction : {"bonferroni", "sidak"}, default "bonferroni"
        alpha' = alpha / m, or alpha' = 1 - (1 - alpha)^(1/m).
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        The alternative hypothesis of each comparison (one-sided: z_{1-alpha'} in place of z_{1-alpha'/2}).

    Returns
    -------
    float or numpy.ndarray
        N*_family / N*, the same for every pair of the family.

    Notes
    -----
    .. math:: \frac{(z_{1-\alpha'/2} + z_{1-\beta})^2}{(z_{1-\alpha/2} + z_{1-\beta})^2}

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equation 3 with alpha
    replaced by the corrected alpha'; derived in ``derivations/multiplicity.py``.

    Examples
    --------
    >>> round(required_n_inflation(40), 3)
    2.109
    >>> round(required_n_inflation(45), 3)
    2.144
    """
    if correction not in _INFLATIONS:
        raise ArgumentError(f"correction must be one of 'bonferroni', 'sidak'; got {correction!r}")
    family_size = check_count("family_size", family_size, minimum=1)
    alpha, power = check_alpha_power(alpha, power)
    return finish(_INFLATIONS[correction](family_size, alpha, power, sides_for(alternative)))


ADJUSTMENTS = ("bonferroni", "sidak", "holm", "bh")


def adjust_pvalues(pvalues, correction: str = "holm", family_size: int | None = None) -> np.ndarray:
    """Multiplicity-adjusted p-values (Bonferroni, Sidak, Holm step-down, Benjamini-Hochberg).

    Parameters
    ----------
    pvalues : array_like
        The p-values of every comparison in the declared family.
    correction : {"bonferroni", "sidak", "holm", "bh"}, default "holm"
        The multiplicity correction (Holm's step-down, Benjamini-Hochberg's step-up for "bh").
    family_size : int, optional
        m; defaults to the number of p-values.  Bonferroni and Sidak accept a
        larger m than the p-values given (a displayed subset of a declared family).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the order given.

    Notes
    -----
    With p_(1) <= ... <= p_(m) the ordered p-values:
    Bonferroni min(1, m p); Sidak 1 - (1 - p)^m; Holm
    max_{j <= i} min(1, (m - j + 1) p_(j)); Benjamini-Hochberg
    min_{j >= i} min(1, m p_(j) / j).  A pair is rejected at level alpha when
    its adjusted p-value is at most alpha.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    Scand. J. Stat. 6, 65-70.  Benjamini, Y. and Hochberg, Y. (1995).
    Controlling the false discovery rate. J. R. Stat. Soc. B 57, 289-300.
    Sidak, Z. (1967). J. Am. Stat. Assoc. 62, 626-633.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    if correction not in ADJUSTMENTS:
        raise ArgumentError(f"correction must be one of {ADJUSTMENTS}; got {correction!r}")
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1 or np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ArgumentError("pvalues must be a one-dimensional array of numbers in [0, 1]")
    m = p.size if family_size is None else int(family_size)
    if m < p.size:
        raise ArgumentError(f"family_size ({m}) is smaller than the number of p-values ({p.size})")
    if correction in ("holm", "bh"):
        if m != p.size:
            raise ArgumentError(f"{correction} needs the p-values of the whole family (m = {m}); got {p.size}")
        return _step(p, correction)
    if correction == "bonferroni":
        return np.minimum(1.0, p * m)
    # Sidak: 1 - (1 - p)^m through log1p/expm1 (no cancellation for small p); p = 1 maps to 1 exactly.
    below_one = p < 1
    return np.where(below_one, -np.expm1(m * np.log1p(-np.where(below_one, p, 0.0))), 1.0)


def _step(p: np.ndarray, correction: str) -> np.ndarray:
    """Holm's step-down or Benjamini-Hochberg's step-up adjusted p-values of a whole family.

    Hand-written (statsmodels' ``multipletests`` gives the same values to
    1 ulp, tested on random families) because importing
    statsmodels.stats.multitest costs 0.6-1.5 s, more than a whole 50-model
    audit from the command line; the code is one sort and one running
    maximum (Holm) or minimum (BH).
    """
    return _step_sorted(p, correction, np.argsort(p, kind="stable")) if p.size else p.copy()


def _step_sorted(p: np.ndarray, correction: str, order: np.ndarray) -> np.ndarray:
    """:func:`_step` given the stable ascending order of ``p``."""
    m = p.size
    ordered = p[order]
    steps = np.arange(1, m + 1)
    if correction == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - steps + 1) * ordered))
    else:
        adjusted = np.minimum.accumulate(np.minimum(1.0, m * ordered / steps)[::-1])[::-1]
    out = np.empty(m)
    out[order] = adjusted
    return out


def inflation_at_level(
    corrected_alpha, alpha: float = 0.05, power: float = 0.8, alternative: str = "two-sided"
) -> float | np.ndarray:
    r"""N*(corrected_alpha) / N*(alpha): the factor for any per-comparison level.

    Used for Holm (alpha / (m - k + 1) at step k) and Benjamini-Hochberg
    (alpha R / m with R rejections), whose levels are not alpha / whole number.

    Parameters
    ----------
    corrected_alpha : array_like
        The per-comparison level alpha', in (0, alpha].
    alpha : float, default 0.05
        The uncorrected level, in (0, 1).
    power : float, default 0.8
        Target power 1 - beta, in (alpha, 1).
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        The alternative hypothesis.

    Returns
    -------
    float or numpy.ndarray
        N*(alpha') / N*(alpha).

    Notes
    -----
    .. math:: \frac{(z_{1-\alpha'/2} + z_{1-\beta})^2}{(z_{1-\alpha/2} + z_{1-\beta})^2}

    Bonferroni's factor with the real m = alpha / alpha'; derived in ``derivations/multiplicity.py``.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equation 3 with alpha replaced by alpha'.

    Examples
    --------
    >>> round(float(inflation_at_level(0.05 / 40)), 3)
    2.109
    """
    corrected = np.asarray(corrected_alpha, dtype=np.float64)
    # A per-comparison level alpha' is Bonferroni's with m = alpha / alpha' (not necessarily whole).
    return finish(_multiplicity.bonferroni_inflation(alpha / corrected, alpha, power, sides_for(alternative)))


def guaranteed_level(correction: str, family_size: int, alpha: float = 0.05) -> float:
    """The per-comparison level at which ``correction`` tests every pair of a family, whatever the p-values.

    The family has ``family_size`` comparisons.

    Bonferroni: alpha / m; Sidak: 1 - (1 - alpha)^(1/m) (through expm1/log1p);
    Holm and BH: alpha / m, their first step (they may test a pair at up to
    alpha, depending on the other pairs' p-values); "none": alpha.

    Parameters
    ----------
    correction : {"bonferroni", "sidak", "holm", "bh", "none"}
        The multiplicity correction; "none" tests each pair at alpha.
    family_size : int
        Number m of comparisons in the declared family (whole number >= 1).
    alpha : float, default 0.05
        Family-wise level (false discovery rate for "bh"), in (0, 1).

    Returns
    -------
    float
        The guaranteed per-comparison level.

    Notes
    -----
    Sidak's level is computed as -expm1(log1p(-alpha) / m), exact for small alpha / m; a level that
    underflows below the smallest double is refused.

    References
    ----------
    Holm, S. (1979). Scand. J. Stat. 6, 65-70; Benjamini, Y. and Hochberg, Y. (1995). J. R. Stat. Soc. B 57,
    289-300; Sidak, Z. (1967). J. Am. Stat. Assoc. 62, 626-633.

    Examples
    --------
    >>> guaranteed_level("holm", 9), round(guaranteed_level("sidak", 9), 6)
    (0.005555555555555556, 0.005683)
    """
    if correction not in (*ADJUSTMENTS, "none"):
        raise ArgumentError(f"correction must be one of {(*ADJUSTMENTS, 'none')}; got {correction!r}")
    family_size = int(check_count("family_size", family_size, minimum=1))
    if correction == "none":
        return float(alpha)
    level = float(-np.expm1(np.log1p(-alpha) / family_size)) if correction == "sidak" else alpha / family_size
    if level == 0 and alpha > 0:
        raise ArgumentError(
            f"alpha {alpha:.3g} shared among a family of {family_size:,} ({correction}) is a level below the "
            f"smallest double (4.9e-324), which double precision cannot hold; give alpha >= {family_size * 5e-324:.2g}"
        )
    return level


def holm_levels(pvalues: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Holm's level for each p-value: alpha / (m - k + 1) for the k-th smallest (ties in input order).

    Parameters
    ----------
    pvalues : numpy.ndarray
        The p-values of the whole family (one-dimensional).
    alpha : float, default 0.05
        Family-wise level, in (0, 1).

    Returns
    -------
    numpy.ndarray
        The level at which Holm's step-down procedure compares each p-value, in the order given.

    Notes
    -----
    With p_(1) <= ... <= p_(m), p_(k) is compared with alpha / (m - k + 1); the procedure stops at the first
    p-value above its level (:func:`adjust_pvalues` gives the equivalent adjusted p-values).

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J. Stat. 6, 65-70.

    Examples
    --------
    >>> holm_levels(np.array([0.04, 0.01, 0.03])).round(6).tolist()
    [0.05, 0.016667, 0.025]
    """
    pvalues = np.asarray(pvalues, dtype=np.float64)
    ranks = np.empty(pvalues.size, dtype=np.int64)
    ranks[np.argsort(pvalues, kind="stable")] = np.arange(pvalues.size)
    return alpha / (pvalues.size - ranks)


def family_adjustments(pvalues: np.ndarray, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Holm- and BH-adjusted p-values and Holm's levels of a whole family, from one sort.

    The same values as :func:`adjust_pvalues` (``"holm"``, ``"bh"``) and :func:`holm_levels`, bit for bit: each sorts
    the family the same stable way; an audit of 12.5 M pairs sorts once instead of three times.

    Parameters
    ----------
    pvalues : numpy.ndarray
        The p-values of the whole family (one-dimensional, in [0, 1]).
    alpha : float, default 0.05
        Family-wise level, in (0, 1).

    Returns
    -------
    holm, bh, levels : numpy.ndarray
        The adjusted p-values and Holm's level of each p-value, in the order given.

    Examples
    --------
    >>> [part.round(3).tolist() for part in family_adjustments(np.array([0.01, 0.04, 0.03]))]
    [[0.03, 0.06, 0.06], [0.03, 0.04, 0.04], [0.017, 0.05, 0.025]]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1 or np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ArgumentError("pvalues must be a one-dimensional array of numbers in [0, 1]")
    if not p.size:
        return p.copy(), p.copy(), p.copy()
    order = np.argsort(p, kind="stable")
    ranks = np.empty(p.size, dtype=np.int64)
    ranks[order] = np.arange(p.size)
    return _step_sorted(p, "holm", order), _step_sorted(p, "bh", order), alpha / (p.size - ranks)


__all__ += [
    "ADJUSTMENTS",
    "adjust_pvalues",
    "family_adjustments",
    "guaranteed_level",
    "holm_levels",
    "inflation_at_level",
]
