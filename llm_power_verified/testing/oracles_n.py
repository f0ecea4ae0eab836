"""High-precision oracle of the required sample size, under every calculator convention and Connor's.

Written from first principles in mpmath (normal quantiles through ``mpmath.erfinv``), independent of the
package's generated double-precision formulas, which the tests check against it.  Re-exported by
:mod:`llm_power_verified.testing.oracles`.
"""

from __future__ import annotations

import math

import mpmath

from llm_power_verified.errors import ArgumentError
from llm_power_verified.power.conventions import CONVENTIONS
from llm_power_verified.power.correlation import validate_marginals_and_rho

__all__ = ["NAMES", "normal_upper_quantile", "required_n"]

#: Every convention :func:`required_n` computes: the package's calculator conventions, then Connor (1987).
NAMES = (*CONVENTIONS, "connor")


def normal_upper_quantile(tail: mpmath.mpf) -> mpmath.mpf:
    """Upper quantile z with P(Z > z) = tail for a standard normal Z, at the working precision.

    Parameters
    ----------
    tail : mpmath.mpf
        The upper-tail probability, in (0, 1).

    Returns
    -------
    mpmath.mpf
        z = sqrt(2) erfinv(1 - 2 tail).

    Examples
    --------
    >>> mpmath.nstr(normal_upper_quantile(mpmath.mpf("0.025")), 12)
    '1.95996398454'
    """
    return mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(tail))


def _check_probability(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < float(value) < 1:
        raise ArgumentError(f"{name} must be a number in the open interval (0, 1); got {value!r}")
    return float(value)


def _check(p_a, p_b, rho, alpha, power, convention, sides) -> tuple[float, ...]:
    if convention not in NAMES:
        raise ArgumentError(f"convention must be one of {NAMES}; got {convention!r}")
    if sides not in (1, 2) or isinstance(sides, bool):
        raise ArgumentError(f"sides must be 1 or 2; got {sides!r}")
    p_a, p_b = _check_probability("p_a", p_a), _check_probability("p_b", p_b)
    alpha, power = _check_probability("alpha", alpha), _check_probability("power", power)
    if power <= alpha:
        raise ArgumentError(f"power must exceed alpha; got power {power!r} with alpha {alpha!r}")
    if isinstance(rho, bool) or not isinstance(rho, (int, float)) or math.isnan(rho):
        raise ArgumentError(f"rho must be a number; got {rho!r}")
    validate_marginals_and_rho(p_a, p_b, rho)
    return p_a, p_b, float(rho), alpha, power


def required_n(
    p_a: float,
    p_b: float,
    rho: float,
    alpha: float = 0.05,
    power: float = 0.8,
    convention: str = "paired",
    sides: int = 2,
    digits: int = 50,
) -> mpmath.mpf:
    """Unrounded required sample size under one convention, at ``digits`` significant digits.

    Parameters
    ----------
    p_a, p_b : float
        Accuracies of models A and B, each in (0, 1).
    rho : float
        Correlation of the per-item 0/1 scores, inside the admissible interval of
        :func:`llm_power_verified.power.correlation.admissible_rho_interval`.
    alpha : float, default 0.05
        Significance level, in (0, 1).
    power : float, default 0.8
        Target power 1 - beta, in (alpha, 1).
    convention : str, default "paired"
        One of ``NAMES``: the conventions of ``llm_power_verified.power.conventions.CONVENTIONS`` or
        "connor".
    sides : {1, 2}, default 2
        2 uses z_{1-alpha/2}, 1 uses z_{1-alpha}.
    digits : int, default 50
        Significant digits.

    Returns
    -------
    mpmath.mpf
        The sample size (per arm for the unpaired conventions); +inf when p_a = p_b.

    Notes
    -----
    With K = (z_{1-alpha/sides} + z_{1-beta})^2, h = 2 asin sqrt(p_a) - 2 asin sqrt(p_b), delta = p_a - p_b,
    q = 1 - p and sigma_D^2 = p_a q_a + p_b q_b - 2 rho sqrt(p_a q_a p_b q_b): one-sample-arcsine K/h^2;
    two-sample-arcsine 2K/h^2; unpaired-wald K (p_a q_a + p_b q_b)/delta^2; two-proportion-z
    (z_{1-alpha/sides} sqrt(p_a q_a + p_b q_b + delta^2/2) + z_{1-beta} sqrt(p_a q_a + p_b q_b))^2/delta^2;
    shortcut (1 - rho) K/h^2; the two "x(1-rho)" conventions (1 - rho) times their base; paired
    K sigma_D^2/delta^2 (Eq. 6); connor (z_{1-alpha/sides} sqrt(psi) + z_{1-beta} sqrt(psi - delta^2))^2/delta^2
    with psi = p10 + p01 the discordance probability, p10 = p_a - p11, p01 = p_b - p11,
    p11 = p_a p_b + rho sqrt(p_a q_a p_b q_b) (Connor 1987; each cell floored at 0 as the package does).
    The inputs are read as exact binary numbers; every operation runs at digits + 20 + 2 log10(1/abs(delta)) working
    digits, enough for the cancellation in sigma_D^2 (condition number at most 1/delta^2): relative error below
    10^-digits (``llm_power_verified.testing.oracles.ERROR_BOUNDS``).

    Examples
    --------
    >>> mpmath.nstr(required_n(0.65, 0.60, 0.30), 10)
    '1027.575783'
    >>> mpmath.nstr(required_n(0.65, 0.60, 0.30, convention="connor"), 8)
    '1033.0637'
    """
    p_a, p_b, rho, alpha, power = _check(p_a, p_b, rho, alpha, power, convention, sides)
    if p_a == p_b:
        return mpmath.inf
    guard = 20 + 2 * max(0, math.ceil(-math.log10(abs(p_a - p_b))))
    with mpmath.workdps(digits + guard):
        pa, pb, r = mpmath.mpf(p_a), mpmath.mpf(p_b), mpmath.mpf(rho)
        z_alpha = normal_upper_quantile(mpmath.mpf(alpha) / sides)
        z_beta = normal_upper_quantile(1 - mpmath.mpf(power))
        k = (z_alpha + z_beta) ** 2
        delta2 = (pa - pb) ** 2
        h2 = (2 * mpmath.asin(mpmath.sqrt(pa)) - 2 * mpmath.asin(mpmath.sqrt(pb))) ** 2
        va, vb = pa * (1 - pa), pb * (1 - pb)
        values = {
            "one-sample-arcsine": lambda: k / h2,
            "two-sample-arcsine": lambda: 2 * k / h2,
            "unpaired-wald": lambda: k * (va + vb) / delta2,
            "two-proportion-z": lambda: (
                (z_alpha * mpmath.sqrt(va + vb + delta2 / 2) + z_beta * mpmath.sqrt(va + vb)) ** 2 / delta2
            ),
            "shortcut": lambda: (1 - r) * k / h2,
            "two-sample-arcsine-x(1-rho)": lambda: (1 - r) * 2 * k / h2,
            "unpaired-wald-x(1-rho)": lambda: (1 - r) * k * (va + vb) / delta2,
            "paired": lambda: k * (va + vb - 2 * r * mpmath.sqrt(va * vb)) / delta2,
            "connor": lambda: _connor(pa, pb, r, z_alpha, z_beta),
        }
        return +values[convention]()


def _connor(pa, pb, r, z_alpha, z_beta) -> mpmath.mpf:
    joint = pa * pb + r * mpmath.sqrt(pa * (1 - pa) * pb * (1 - pb))
    only_a, only_b = max(pa - joint, mpmath.mpf(0)), max(pb - joint, mpmath.mpf(0))
    psi, delta2 = only_a + only_b, (only_a - only_b) ** 2
    return (z_alpha * mpmath.sqrt(psi) + z_beta * mpmath.sqrt(max(psi - delta2, mpmath.mpf(0)))) ** 2 / delta2
