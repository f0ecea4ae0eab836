"""How Many Test Pairs Do You Need? Statistical Power Analysis for Embedding Model Comparisons: the printed tables.

The paired t-test's power is computed analytically (noncentral t at the score
model's exact difference moments); the Wilcoxon test's by this package's own
simulation at R = 4,000, judged against the paper's R = 1,000 within 3 combined
Monte Carlo standard errors.  The sentence-level claims are in :mod:`.pairs_needed_claims`.
"""

from __future__ import annotations

import functools
import math

from scipy.optimize import brentq

from llm_power_verified.power.paired_t import power_paired_t
from llm_power_verified.reproduce.records import EMBEDDING, Printed
from llm_power_verified.simulation.embedding import embedding_difference_moments, embedding_power_grid
from llm_power_verified.simulation.grids import monte_carlo_se

__all__ = ["EMBEDDING_REPLICATES", "R_PUBLISHED", "analytic_power", "embedding_rows"]

R_PUBLISHED = 1000  # the paper's n_simulations per cell
EMBEDDING_REPLICATES = 4000  # this package's own simulation where no analytic value exists


@functools.lru_cache(maxsize=1)
def _embedding_simulation() -> dict:

    rows = embedding_power_grid(n_simulations=EMBEDDING_REPLICATES, seed=2026, effects=(0.0, 0.01, 0.02))
    return {(row["model"], row["n"], row["effect"], row["correlation"]): row for row in rows}


def analytic_power(model: str, n: int, effect: float, rho: float) -> float:
    """Noncentral-t power of the paired t-test at the score model's exact difference moments (alpha = 0.05).

    Parameters
    ----------
    model : str
        The paper's score model (as :func:`llm_power_verified.simulation.embedding.embedding_difference_moments` takes
        it).
    n : int
        Number of test pairs.
    effect : float
        The true effect delta.
    rho : float
        Correlation of the two models' scores.

    Returns
    -------
    float
        The power of the two-sided paired t-test at alpha = 0.05.
    """
    mean, spread = embedding_difference_moments(effect, rho, model)
    return float(power_paired_t(n, mean, spread, 0.05))


def _monte_carlo(
    where: str, quantity: str, printed: str, model: str, n: int, effect: float, rho: float, test: str
) -> Printed:
    inputs = f"{model} model, N = {n}, delta = {effect}, rho = {rho}, alpha = 0.05"
    if test == "t":
        analytic = analytic_power(model, n, effect, rho)
        return Printed(
            EMBEDDING,
            where,
            quantity,
            printed,
            lambda: analytic,
            f"{inputs}; analytic noncentral-t power at the model's exact moments",
            "monte-carlo",
            tolerance=3 * monte_carlo_se(analytic, R_PUBLISHED),
        )

    def simulated() -> float:
        return _embedding_simulation()[(model, n, effect, rho)]["wilcoxon_power"]

    def tolerance() -> float:
        value = simulated()
        return 3 * math.sqrt(monte_carlo_se(value, R_PUBLISHED) ** 2 + monte_carlo_se(value, EMBEDDING_REPLICATES) ** 2)

    return Printed(
        EMBEDDING,
        where,
        quantity,
        printed,
        simulated,
        f"{inputs}; this package's simulation, R = {EMBEDDING_REPLICATES:,}",
        "monte-carlo",
        tolerance=tolerance,
    )


def _minimum_n(effect: float, rho: float) -> float:
    """Smallest n (continuous) with analytic t power 0.80 under the normal model."""
    if analytic_power("normal", 1e6, effect, rho) < 0.8:
        return math.inf
    return brentq(lambda n: analytic_power("normal", n, effect, rho) - 0.8, 2.5, 1e6)


def _mde(n: int, rho: float) -> float:

    return brentq(lambda effect: analytic_power("normal", n, effect, rho) - 0.8, 1e-4, 0.3, xtol=1e-7)


_SIZES, _CORRELATIONS = (50, 100, 200, 500, 1000), (0.5, 0.8, 0.95)


def _power_table_rows() -> list[Printed]:
    """Sections 4.2 and 4.3 tables: the t-test's power over N and rho at delta = 0.01 and 0.02."""
    rows: list[Printed] = []
    tables = {
        0.01: ("0.081 0.152 0.432", "0.134 0.262 0.732", "0.223 0.463 0.964", "0.440 0.842 1.000", "0.735 0.989 1.000"),
        0.02: ("0.217 0.437 0.955", "0.369 0.763 0.999", "0.653 0.957 1.000", "0.960 1.000 1.000", "1.000 1.000 1.000"),
    }
    for effect, lines in tables.items():
        for n, line in zip(_SIZES, lines, strict=True):
            for rho, text in zip(_CORRELATIONS, line.split(), strict=True):
                rows.append(
                    _monte_carlo(
                        f"Section 4.{2 if effect == 0.01 else 3} table",
                        f"t-test power, N = {n}, rho = {rho}",
                        text,
                        "normal",
                        n,
                        effect,
                        rho,
                        "t",
                    )
                )
    return rows


def _model_comparison_rows() -> list[Printed]:
    """Section 4.5 table: t-test and Wilcoxon power under the normal and Beta score models at delta = 0.02."""
    rows: list[Printed] = []
    comparison = (
        (50, 0.5, "0.217 0.217 0.223 0.204"),
        (100, 0.8, "0.763 0.732 0.738 0.719"),
        (200, 0.95, "1.000 1.000 1.000 1.000"),
        (500, 0.5, "0.960 0.958 0.955 0.952"),
        (1000, 0.8, "1.000 1.000 1.000 1.000"),
    )
    for n, rho, line in comparison:
        for (model, test), text in zip(
            (("normal", "t"), ("beta", "t"), ("normal", "W"), ("beta", "W")), line.split(), strict=True
        ):
            if (model, test) == ("normal", "t"):
                continue  # the same cell as the Section 4.3 table
            rows.append(
                _monte_carlo(
                    "Section 4.5 table",
                    f"{model} {'t-test' if test == 't' else 'Wilcoxon'} power, N = {n}, rho = {rho}, delta = 0.02",
                    text,
                    model,
                    n,
                    0.02,
                    rho,
                    test,
                )
            )
    return rows


def _wilcoxon_rows() -> list[Printed]:
    """Section 4.6 table: the Wilcoxon test's power beside the t-test's (the t column repeats earlier cells)."""
    rows: list[Printed] = []
    for n, effect, _t_text, w_text in (
        (50, 0.01, "0.152", "0.147"),
        (100, 0.02, "0.763", "0.738"),
        (200, 0.01, "0.463", "0.433"),
        (500, 0.01, "0.842", "0.815"),
        (1000, 0.01, "0.989", "0.982"),
    ):
        rows.append(
            _monte_carlo(
                "Section 4.6 table",
                f"Wilcoxon power, normal, N = {n}, delta = {effect}, rho = 0.8",
                w_text,
                "normal",
                n,
                effect,
                0.8,
                "W",
            )
        )
    return rows


def _type_i_rows() -> list[Printed]:
    """Section 5.1 table: the type-I error of both tests under both score models at delta = 0."""
    rows: list[Printed] = []
    type_i = (
        "0.056 0.055 0.057 0.060",
        "0.053 0.052 0.048 0.051",
        "0.056 0.052 0.050 0.044",
        "0.052 0.046 0.061 0.060",
        "0.050 0.052 0.060 0.055",
        "0.042 0.043 0.056 0.059",
        "0.047 0.049 0.056 0.059",
        "0.040 0.040 0.051 0.059",
        "0.048 0.047 0.047 0.049",
        "0.048 0.049 0.039 0.039",
        "0.037 0.040 0.058 0.058",
        "0.057 0.056 0.045 0.049",
        "0.048 0.046 0.042 0.041",
        "0.046 0.043 0.057 0.056",
        "0.058 0.056 0.056 0.060",
    )
    cells = [(n, rho) for n in _SIZES for rho in _CORRELATIONS]
    for (n, rho), line in zip(cells, type_i, strict=True):
        for (model, test), text in zip(
            (("normal", "t"), ("normal", "W"), ("beta", "t"), ("beta", "W")), line.split(), strict=True
        ):
            rows.append(
                _monte_carlo(
                    "Section 5.1 table",
                    f"Type-I, {model} {'t' if test == 't' else 'Wilcoxon'}, N = {n}, rho = {rho}",
                    text,
                    model,
                    n,
                    0.0,
                    rho,
                    test,
                )
            )
    return rows


def _minimum_n_rows() -> list[Printed]:
    """Section 6.1 table: the printed ranges of the minimum N for 80% power."""
    rows: list[Printed] = []
    ranges = {
        0.01: (">1000", "500-1000", "100-200"),
        0.02: ("200-500", "100-200", "<50"),
        0.05: ("50", "<50", "<50"),
        0.10: ("<50", "<50", "<50"),
    }
    bounds = {
        ">1000": (1000, math.inf),
        "500-1000": (500, 1000),
        "100-200": (100, 200),
        "200-500": (200, 500),
        "<50": (0, 50),
        "50": (0, 50),
    }
    for effect, texts in ranges.items():
        for rho, text in zip(_CORRELATIONS, texts, strict=True):
            rows.append(
                Printed(
                    EMBEDDING,
                    "Section 6.1 table",
                    f"minimum N for 80% power, delta = {effect}, rho = {rho}",
                    text,
                    lambda e=effect, r=rho: _minimum_n(e, r),
                    "normal model, analytic noncentral-t power ('50' read as: N = 50 suffices)",
                    "range",
                    bounds=bounds[text],
                )
            )
    return rows


def _mde_rows() -> list[Printed]:
    """Section 9 table: the minimum detectable effect at 80% power over N and rho."""
    rows: list[Printed] = []
    mde = {
        50: ("0.048", "0.030", "0.015"),
        100: ("0.034", "0.021", "0.011"),
        200: ("0.024", "0.015", "0.008"),
        500: ("0.015", "0.010", "0.005"),
        1000: ("0.011", "0.007", "0.003"),
    }
    for n, texts in mde.items():
        for rho, text in zip(_CORRELATIONS, texts, strict=True):
            rows.append(
                Printed(
                    EMBEDDING,
                    "Section 9 table",
                    f"MDE at 80% power, N = {n}, rho = {rho}",
                    "~" + text,
                    lambda n=n, r=rho: _mde(n, r),
                    "normal model, analytic noncentral-t power (printed as approximate)",
                )
            )
    return rows


def _in_text_rows() -> list[Printed]:
    """Numbers printed in the text of Sections 4.5, 5.2, 7.1 and 8 (standard deviations, ratios, intervals, powers)."""
    rows: list[Printed] = []
    for rho, text in zip(_CORRELATIONS, ("0.120", "0.076", "0.038"), strict=True):
        rows.append(
            Printed(
                EMBEDDING,
                "Section 7.1",
                f"SD(d) at rho = {rho}",
                text,
                lambda r=rho: 0.12 * math.sqrt(2 * (1 - r)),
                "sigma = 0.12, unclipped formula",
            )
        )
    rows += [
        Printed(
            EMBEDDING,
            "Section 7.1",
            "SD(d) ratio rho = 0.50 vs 0.95",
            "3.2",
            lambda: math.sqrt(0.5 / 0.05),
            "sigma sqrt(2 (1 - rho))",
        ),
        Printed(
            EMBEDDING,
            "Section 7.1",
            "power ratio 73.2% / 13.4% (more than five-fold)",
            "5",
            lambda: 0.732 / 0.134,
            "the paper's own two table entries",
            "lower-bound",
        ),
        Printed(
            EMBEDDING,
            "Section 5.2",
            "95% binomial interval for 0.05 at R = 1,000, low end",
            "0.036",
            lambda: 0.05 - 1.959964 * monte_carlo_se(0.05, 1000),
            "normal approximation",
        ),
        Printed(
            EMBEDDING,
            "Section 5.2",
            "95% binomial interval for 0.05 at R = 1,000, high end",
            "0.064",
            lambda: 0.05 + 1.959964 * monte_carlo_se(0.05, 1000),
            "normal approximation",
        ),
        Printed(
            EMBEDDING,
            "Section 4.5",
            "max normal-vs-Beta discrepancy, quoted cell (Wilcoxon N = 200, delta = 0.01, rho = 0.8)",
            "0.031",
            lambda: abs(0.435 - 0.433),
            "the two values the sentence itself quotes (0.433 vs 0.435)",
        ),
        Printed(
            EMBEDDING,
            "Section 8",
            "power at delta = 0.015, N = 150, rho = 0.75 (printed ~0.45-0.55)",
            "0.45-0.55",
            lambda: analytic_power("normal", 150, 0.015, 0.75),
            "normal model, analytic noncentral-t power",
            "range",
            bounds=(0.45, 0.55),
        ),
        Printed(
            EMBEDDING,
            "Section 8",
            "power at delta = 0.015, N = 500, rho = 0.75 (exceeds 85%)",
            "0.85",
            lambda: analytic_power("normal", 500, 0.015, 0.75),
            "normal model, analytic noncentral-t power",
            "lower-bound",
        ),
    ]
    return rows


def embedding_rows() -> list[Printed]:
    """The paper's printed powers, minimum N and minimum detectable effects, each recomputed.

    Returns
    -------
    list of Printed
        One record per printed value, in the paper's order.
    """
    return (
        _power_table_rows()
        + _model_comparison_rows()
        + _wilcoxon_rows()
        + _type_i_rows()
        + _minimum_n_rows()
        + _mde_rows()
        + _in_text_rows()
    )
