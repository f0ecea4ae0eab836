"""One-call design report for a paired binary comparison (the CLI's ``design``).

:func:`design_paired_binary` starts from planned or observed accuracies and a
correlation; :func:`design_from_counts` starts from an observed 2x2 table.
Both return a :class:`PairedBinaryDesign` whose fields are documented below
and whose ``to_dict()`` gives the JSON keys.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from llm_power_verified._docstrings import docfill
from llm_power_verified._validation import ceil_sample_size, check_scalar
from llm_power_verified.contract import MAX_COUNT
from llm_power_verified.errors import ArgumentError
from llm_power_verified.io.output import json_ready
from llm_power_verified.power.connor import required_n_connor, required_n_connor_from_counts
from llm_power_verified.power.correlation import admissible_rho_interval, correlation_from_counts
from llm_power_verified.power.sample_size import (
    minimum_detectable_effect,
    paired_difference_variance,
    paired_difference_variance_from_counts,
    required_n_from_counts,
    required_n_wald,
)
from llm_power_verified.power.shortcut import required_n_shortcut, shortcut_constant, shortcut_ratio
from llm_power_verified.power.wald_power import power_wald
from llm_power_verified.results import Result

__all__ = ["PairedBinaryDesign", "design_from_counts", "design_paired_binary"]


@dataclass(frozen=True, repr=False)
class PairedBinaryDesign(Result):
    """Resolution figures for one paired binary comparison.

    Attributes
    ----------
    p_a, p_b, rho : float or None
        Accuracies and score correlation (None when a table gives only b, c, n).
    delta : float
        p_a - p_b.
    alpha, power, alternative
        The operating point.
    variance : float
        sigma_D^2, the variance of the per-item difference (Eq. 5).
    required_n : float
        Unrounded N* (Eq. 6); inf when delta = 0.
    required_n_integer : float
        ceil(N*), the whole number of paired items needed.
    required_n_connor : float
        Connor's (1987) McNemar requirement, for comparison.
    rho_min, rho_max : float or None
        Admissible correlation interval for the marginals (Eqs. 7-8).
    shortcut_n : float or None
        The (1 - rho) K/h^2 shortcut of Eq. 9; shortcut_ratio is n_h / N*.
    shortcut_constant : float or None
        Lemma 1's C at the midpoint (p_a + p_b) / 2 and this rho.
    n : int or None
        Benchmark size; when given, mde, resolution_ratio (q = n / N*) and
        power_at_n (exact two-sided Wald power) are filled in (mde stays None at a plug-in variance of 0).
    counts : dict or None
        The table (a, b, c, n) when the report came from counts.
    """

    p_a: float | None
    p_b: float | None
    rho: float | None
    delta: float
    alpha: float
    power: float
    alternative: str
    variance: float
    required_n: float
    required_n_integer: float
    required_n_connor: float
    rho_min: float | None
    rho_max: float | None
    shortcut_n: float | None
    shortcut_ratio: float | None
    shortcut_constant: float | None
    n: int | None
    mde: float | None
    resolution_ratio: float | None
    power_at_n: float | None
    counts: dict | None = None

    def to_dict(self) -> dict:
        """Plain dict with JSON-safe values.

        The values follow the one rule of :func:`llm_power_verified.io.json_ready`: inf is "inf", NaN null.
        """
        return json_ready(asdict(self))


def _at_n(n, variance, delta, required, alpha, power, alternative):
    if n is None:
        return None, None, None
    # A plug-in variance of 0 (the per-item difference is constant: no discordant item, or all of one sign) states no
    # detectable gap: Eq. 4 would give 0, read as 'any gap is detectable'.  None (n/a, JSON null), as the audit does.
    mde = float(minimum_detectable_effect(n, variance, alpha, power, alternative)) if variance > 0 else None
    # N* = 0 happens when the plug-in variance is zero (every discordant item favours one model, b = N or c = N):
    # any N resolves the gap, q = inf.  N* = inf (a zero gap) gives q = 0.
    q = 0.0 if math.isinf(required) else math.inf if required == 0 else float(n / required)
    achieved = float(power_wald(n, variance, delta, alpha, alternative)) if variance > 0 else (1.0 if delta else alpha)
    return mde, q, achieved


@docfill("alpha_float", "power_float", "alternative", derivation="paired_variance")
def design_paired_binary(
    p_a: float,
    p_b: float,
    rho: float,
    alpha: float = 0.05,
    power: float = 0.8,
    n: int | None = None,
    alternative: str = "two-sided",
) -> PairedBinaryDesign:
    """Design figures from accuracies and correlation.

    Parameters
    ----------
    p_a, p_b : float
        Accuracies of models A and B, each in (0, 1).
    rho : float
        Correlation of the two models' per-item 0/1 scores, in [-1, 1] and inside the admissible interval of the
        marginals.
    %(alpha_float)s
    %(power_float)s
    n : int, optional
        Benchmark size (a whole number >= 1); when given, the MDE, q and the power at n are filled in.
    %(alternative)s

    Returns
    -------
    PairedBinaryDesign
        Every figure of the design report.

    Notes
    -----
    sigma_D^2 = p_A(1 - p_A) + p_B(1 - p_B) - 2 rho sqrt(p_A(1 - p_A) p_B(1 - p_B))
    (Equation 5) and N* = (z_{1-alpha/2} + z_{1-beta})^2 sigma_D^2 / delta^2 (Equation
    6); with n also q = n / N*, the MDE and the power at n.  The Wald formulas are derived in
    ``derivations/wald.py``, Connor's N in ``derivations/connor.py``, the shortcut and C in
    ``derivations/shortcut_series.py``.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equations 3-6,
    Lemma 1 and Definition 1.

    Examples
    --------
    >>> report = design_paired_binary(0.65, 0.60, 0.30, n=12032)
    >>> round(report.variance, 7), round(report.required_n, 3), report.required_n_integer
    (0.3273001, 1027.576, 1028.0)
    """
    # A report is about one design: NaN or infinity is an error here, not the vectorised functions' "missing".
    for name, value, low, high in (
        ("p_a", p_a, 0, 1),
        ("p_b", p_b, 0, 1),
        ("alpha", alpha, 0, 1),
        ("power", power, 0, 1),
    ):
        check_scalar(name, value, low=low, high=high, low_open=True, high_open=True)
    check_scalar("rho", rho, low=-1, high=1)
    variance = float(paired_difference_variance(p_a, p_b, rho))
    delta = float(p_a) - float(p_b)
    required = float(required_n_wald(variance, delta, alpha, power, alternative))
    interval = admissible_rho_interval(p_a, p_b)
    shortcut = float(required_n_shortcut(p_a, p_b, rho, alpha, power, alternative)) if rho < 1 else None
    ratio = float(shortcut_ratio(p_a, p_b, rho)) if rho < 1 else None
    midpoint = 0.5 * (float(p_a) + float(p_b))
    constant = _constant_or_none(midpoint, rho)
    if n is not None:
        _check_n(n)
    mde, q, achieved = _at_n(n, variance, delta, required, alpha, power, alternative)
    return PairedBinaryDesign(
        p_a=float(p_a),
        p_b=float(p_b),
        rho=float(rho),
        delta=delta,
        alpha=float(alpha),
        power=float(power),
        alternative=alternative,
        variance=variance,
        required_n=required,
        required_n_integer=float(ceil_sample_size(required)),
        required_n_connor=float(required_n_connor(p_a, p_b, rho, alpha, power, alternative)),
        rho_min=float(interval.low),
        rho_max=float(interval.high),
        shortcut_n=shortcut,
        shortcut_ratio=ratio,
        shortcut_constant=constant,
        n=None if n is None else int(n),
        mde=mde,
        resolution_ratio=q,
        power_at_n=achieved,
    )


def _constant_or_none(midpoint: float, rho: float) -> float | None:
    try:
        return float(shortcut_constant(midpoint, rho))
    except ValueError:
        return None


def _check_n(n) -> None:
    if isinstance(n, bool) or not float(n).is_integer() or n < 1:
        raise ArgumentError(f"n must be a whole number >= 1; got {n!r}")


@docfill("counts_int", "n_int", "alpha_float", "power_float", "alternative", derivation="paired_variance")
def design_from_counts(
    b: int,
    c: int,
    n: int,
    a: int | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: str = "two-sided",
) -> PairedBinaryDesign:
    """Design figures from an observed paired table.

    N*, the variance, q and the MDE need only (b, c, n).  The marginals, rho-hat and
    everything that depends on them (admissible interval, shortcut, C) need
    ``a``, the number of items both models solve.

    Parameters
    ----------
    %(counts_int)s
    %(n_int)s
    a : int, optional
        Items both models solve, 0 <= a <= n - b - c.
    %(alpha_float)s
    %(power_float)s
    %(alternative)s

    Returns
    -------
    PairedBinaryDesign
        Every figure of the design report; ``counts`` holds the table.

    Notes
    -----
    sigma_D^2 = (b + c)/n - ((b - c)/n)^2, delta = (b - c)/n, N* = (z_{1-alpha/2} +
    z_{1-beta})^2 sigma_D^2 / delta^2, q = n / N*, MDE = (z_{1-alpha/2} + z_{1-beta})
    sigma_D / sqrt(n); with ``a``: p_A = (a + b)/n, p_B = (a + c)/n and rho-hat the phi
    coefficient.  The Wald formulas are derived in ``derivations/wald.py``, Connor's N in ``derivations/connor.py``.

    References
    ----------
    Resolution Diagnostics for Paired LLM Evaluation (arXiv 2605.30315), Equations 3-6
    and Definition 1; Connor, R. J. (1987). Sample size for testing differences in
    proportions for the paired-sample design. Biometrics 43, 207-211.

    Examples
    --------
    >>> report = design_from_counts(b=295, c=249, n=10042)
    >>> round(report.required_n), round(report.resolution_ratio, 3)
    (20255, 0.496)
    """
    for name, value, low in (("b", b, 0), ("c", c, 0), ("n", n, 1)):
        check_scalar(name, value, low=low, high=MAX_COUNT, integer=True)
    for name, value in (("alpha", alpha), ("power", power)):
        check_scalar(name, value, low=0, high=1, low_open=True, high_open=True)
    variance = float(paired_difference_variance_from_counts(b, c, n))
    delta = (b - c) / n
    required = float(required_n_from_counts(b, c, n, alpha, power, alternative))
    connor = float(required_n_connor_from_counts(b, c, n, alpha, power, alternative))
    mde, q, achieved = _at_n(n, variance, delta, required, alpha, power, alternative)
    p_a = p_b = rho = rho_min = rho_max = shortcut = ratio = constant = None
    if a is not None:
        if isinstance(a, bool) or not float(a).is_integer() or a < 0 or a + b + c > n:
            raise ArgumentError(f"a must be a whole number with 0 <= a <= n - b - c = {n - b - c}; got {a!r}")
        d = n - a - b - c
        p_a, p_b = (a + b) / n, (a + c) / n
        rho = float(correlation_from_counts(a, b, c, d))
        if not (0 < p_a < 1 and 0 < p_b < 1) or math.isnan(rho):
            raise ArgumentError("the table has a model that is always right or always wrong; rho is undefined")
        interval = admissible_rho_interval(p_a, p_b)
        rho_min, rho_max = float(interval.low), float(interval.high)
        if rho < 1:
            shortcut = float(required_n_shortcut(p_a, p_b, rho, alpha, power, alternative))
            ratio = float(shortcut_ratio(p_a, p_b, rho))
        constant = _constant_or_none(0.5 * (p_a + p_b), rho)
    return PairedBinaryDesign(
        p_a=p_a,
        p_b=p_b,
        rho=rho,
        delta=delta,
        alpha=float(alpha),
        power=float(power),
        alternative=alternative,
        variance=variance,
        required_n=required,
        required_n_integer=float(ceil_sample_size(required)),
        required_n_connor=connor,
        rho_min=rho_min,
        rho_max=rho_max,
        shortcut_n=shortcut,
        shortcut_ratio=ratio,
        shortcut_constant=constant,
        n=int(n),
        mde=mde,
        resolution_ratio=q,
        power_at_n=achieved,
        counts={"a": a, "b": int(b), "c": int(c), "n": int(n)},
    )
