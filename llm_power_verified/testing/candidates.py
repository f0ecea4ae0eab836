"""The candidate conventions of each quantity, evaluated in double precision on a batch of points.

Every candidate is computed with the package's own vectorised functions (each
property-tested against its SymPy derivation at 50 digits), so a whole grid
costs milliseconds; the sizes that put one variance in place of sigma_D^2
(K V / delta^2 with V = 2 p (1 - p) (1 - rho), 2 p (1 - p) with p the lower
accuracy, or the discordant rate psi) are one-line closed forms written here.
One-sided variants use z_{1-alpha} with the gap taken in the direction it points (p_a and p_b swapped where p_a < p_b).
"""

from __future__ import annotations

import numpy as np

from llm_power_verified.inference.mcnemar import mcnemar_chi2, mcnemar_exact, mcnemar_midp
from llm_power_verified.power.connor import required_n_connor
from llm_power_verified.power.conventions import required_n_unpaired
from llm_power_verified.power.mcnemar_power import required_n_mcnemar_exact
from llm_power_verified.power.paired_t import power_paired_t, required_n_paired_t
from llm_power_verified.power.sample_size import required_n_paired_binary
from llm_power_verified.power.shortcut import required_n_arcsine, required_n_shortcut

__all__ = ["CANDIDATES", "COSTLY", "ONE_SIDED", "costly_points", "evaluate", "evaluate_costly"]

ONE_SIDED = "-one-sided"

_REQUIRED_N_BASE = (
    "paired",
    "connor",
    "one-sample-arcsine",
    "two-sample-arcsine",
    "unpaired-wald",
    "two-proportion-z",
    "shortcut",
    "two-sample-arcsine-x(1-rho)",
    "unpaired-wald-x(1-rho)",
    "paired-one-p-lower",
    "unpaired-wald-one-p-lower",
    "paired-null-variance",
)
_PER_ARM = ("two-sample-arcsine", "unpaired-wald", "two-proportion-z")
_T_BASE = ("noncentral-t", "normal")

#: Per quantity, its candidate conventions; the first is the correct one.
CANDIDATES: dict[str, tuple[str, ...]] = {
    "required_n": (
        *_REQUIRED_N_BASE,
        *(name + ONE_SIDED for name in _REQUIRED_N_BASE),
        *(name + "-total" for name in _PER_ARM),
    ),
    "pvalue": ("exact", "mid-p", "chi2", "chi2-corrected", "exact-one-sided"),
    "power_paired_t": (
        "noncentral-t",
        "noncentral-t-upper-tail",
        "normal",
        "normal-upper-tail",
        *(name + ONE_SIDED for name in _T_BASE),
    ),
    "required_n_paired_t": (
        "noncentral-t",
        "noncentral-t-upper-tail",
        "normal",
        *(name + ONE_SIDED for name in _T_BASE),
    ),
}


def _required_n(points: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    p_a, p_b, rho, alpha, power = (points[name] for name in ("p_a", "p_b", "rho", "alpha", "power"))
    larger, smaller = np.maximum(p_a, p_b), np.minimum(p_a, p_b)
    values: dict[str, np.ndarray] = {}
    for suffix, (first, second, alternative) in {
        "": (p_a, p_b, "two-sided"),
        ONE_SIDED: (larger, smaller, "larger"),
    }.items():
        one = required_n_arcsine(first, second, alpha, power, alternative, convention="one-sample")
        two = required_n_arcsine(first, second, alpha, power, alternative, convention="two-sample")
        wald = required_n_unpaired(first, second, alpha, power, alternative)
        keep = 1 - rho
        values |= {
            "paired" + suffix: required_n_paired_binary(first, second, rho, alpha, power, alternative),
            "connor" + suffix: required_n_connor(first, second, rho, alpha, power, alternative),
            "one-sample-arcsine" + suffix: one,
            "two-sample-arcsine" + suffix: two,
            "unpaired-wald" + suffix: wald,
            "two-proportion-z" + suffix: required_n_unpaired(first, second, alpha, power, alternative, "pooled-null"),
            "shortcut" + suffix: required_n_shortcut(first, second, rho, alpha, power, alternative),
            "two-sample-arcsine-x(1-rho)" + suffix: keep * two,
            "unpaired-wald-x(1-rho)" + suffix: keep * wald,
            **_one_p_sizes(first, second, rho, alpha, power, suffix),
        }
    for name in _PER_ARM:
        values[name + "-total"] = 2 * np.asarray(values[name])
    return values


def _one_p_sizes(
    first: np.ndarray, second: np.ndarray, rho: np.ndarray, alpha: np.ndarray, power: np.ndarray, suffix: str
) -> dict[str, np.ndarray]:
    """Sizes with one variance in place of sigma_D^2: K V / delta^2 (K = (z_{1-alpha/sides} + z_{1-beta})^2)."""
    # Lazy: scipy.special is loaded by the package's functions on first use; keep `import` of this module light.
    from scipy import special

    sides = 1 if suffix else 2
    k = (special.ndtri(1 - alpha / sides) + special.ndtri(power)) ** 2 / (first - second) ** 2
    lower = np.minimum(first, second)
    # The discordant rate psi = p_01 + p_10 = p_a + p_b - 2 p_11, with p_11 = p_a p_b + rho sd_a sd_b.
    psi = first + second - 2 * (first * second + rho * np.sqrt(first * (1 - first) * second * (1 - second)))
    return {
        "paired-one-p-lower" + suffix: k * 2 * lower * (1 - lower) * (1 - rho),
        "unpaired-wald-one-p-lower" + suffix: k * 2 * lower * (1 - lower),
        "paired-null-variance" + suffix: k * psi,
    }


def _pvalue(points: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    b, c = points["b"].astype(np.int64), points["c"].astype(np.int64)
    return {
        "exact": mcnemar_exact(b, c).pvalue,
        "mid-p": mcnemar_midp(b, c).pvalue,
        "chi2": mcnemar_chi2(b, c).pvalue,
        "chi2-corrected": mcnemar_chi2(b, c, continuity=True).pvalue,
        # P(X <= b) for X ~ Binomial(b + c, 1/2): mcnemar_exact's "smaller" tail P(X >= c) by symmetry.
        "exact-one-sided": mcnemar_exact(b, c, alternative="smaller").pvalue,
    }


def _normal_power(n: np.ndarray, effect: np.ndarray, alpha: np.ndarray, sides: int) -> np.ndarray:
    # Lazy: scipy.special is loaded by the package's t functions on first use; keep `import` of this module light.
    from scipy import special

    shift = np.abs(effect) * np.sqrt(n)
    critical = -special.ndtri(alpha / sides)
    power = special.ndtr(shift - critical)
    return power + special.ndtr(-shift - critical) if sides == 2 else power


def _power_paired_t(points: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    n, effect, alpha = points["n"], np.abs(points["effect_size"]), points["alpha"]
    return {
        "noncentral-t": power_paired_t(n, effect, 1.0, alpha, "two-sided"),
        # R's power.t.test(strict = FALSE): the tail the effect points to, at alpha / 2.
        "noncentral-t-upper-tail": power_paired_t(n, effect, 1.0, alpha / 2, "larger"),
        "normal": _normal_power(n, effect, alpha, 2),
        # Phi(|d| sqrt(n) - z_{1-alpha/2}): the normal power of the tail the effect points to only.
        "normal-upper-tail": _normal_power(n, effect, alpha / 2, 1),
        "noncentral-t" + ONE_SIDED: power_paired_t(n, effect, 1.0, alpha, "larger"),
        "normal" + ONE_SIDED: _normal_power(n, effect, alpha, 1),
    }


def _required_n_paired_t(points: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    effect, alpha, power = np.abs(points["effect_size"]), points["alpha"], points["power"]

    def solve(level: np.ndarray, alternative: str, method: str) -> np.ndarray:
        return np.asarray(
            [
                float(required_n_paired_t(d, 1.0, a, p, alternative, method))
                for d, a, p in zip(effect.tolist(), level.tolist(), power.tolist(), strict=True)
            ]
        )

    return {
        "noncentral-t": solve(alpha, "two-sided", "exact"),
        "noncentral-t-upper-tail": solve(alpha / 2, "larger", "exact"),
        "normal": solve(alpha, "two-sided", "normal"),
        "noncentral-t" + ONE_SIDED: solve(alpha, "larger", "exact"),
        "normal" + ONE_SIDED: solve(alpha, "larger", "normal"),
    }


_EVALUATORS = {
    "required_n": _required_n,
    "pvalue": _pvalue,
    "power_paired_t": _power_paired_t,
    "required_n_paired_t": _required_n_paired_t,
}


#: Costly candidates, tried only when no candidate of ``CANDIDATES`` fits, and only at the points ``costly_points``
#: selects: the smallest n whose exact McNemar power reaches the target (10 to 120 ms a point at the grid's gap 0.3).
COSTLY: dict[str, tuple[str, ...]] = {"required_n": ("mcnemar-exact",)}


def costly_points(quantity: str, point: dict[str, float]) -> bool:
    """Whether a costly candidate is evaluated at ``point``: for required_n, gaps of 0.25 or more (n below 120).

    Parameters
    ----------
    quantity : str
        A key of ``CANDIDATES``.
    point : dict of str to float
        Our argument names and values.

    Returns
    -------
    bool
        True where the costly candidates are computed.
    """
    return quantity == "required_n" and abs(point["p_a"] - point["p_b"]) >= 0.25


def evaluate_costly(quantity: str, name: str, points: list[dict[str, float]]) -> np.ndarray:
    """A costly candidate at each point, as a float array.

    Parameters
    ----------
    quantity : str
        A key of ``COSTLY``.
    name : str
        One of its costly candidates.
    points : list of dict
        Our argument names and values.

    Returns
    -------
    numpy.ndarray
        The candidate's value at each point.
    """
    if (quantity, name) != ("required_n", "mcnemar-exact"):
        raise KeyError(name)
    keys = ("p_a", "p_b", "rho", "alpha", "power")
    return np.asarray([float(required_n_mcnemar_exact(*(point[key] for key in keys))) for point in points])


def evaluate(quantity: str, points: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every candidate convention of ``quantity`` at ``points`` (arrays of our argument names), as float arrays.

    Parameters
    ----------
    quantity : str
        A key of ``CANDIDATES``.
    points : dict of str to numpy.ndarray
        Our argument names and their values, one entry per point.

    Returns
    -------
    dict of str to numpy.ndarray
        Each candidate's value at each point.
    """
    values = _EVALUATORS[quantity]({name: np.asarray(value, dtype=np.float64) for name, value in points.items()})
    return {name: np.asarray(values[name], dtype=np.float64).reshape(-1) for name in CANDIDATES[quantity]}
