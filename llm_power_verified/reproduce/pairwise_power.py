"""Power Analysis for Pairwise Model Comparisons on Reasoning Benchmarks: its required-n table and claims.

The paper's own formula (a Wald interval on the paired difference with
sigma_A^2 = sigma_B^2 = 0.21) is applied to its stated inputs.
"""

from __future__ import annotations

from llm_power_verified.power import required_n_wald
from llm_power_verified.reproduce.records import SAMPLE_SIZE, Printed, holds_claim, missing_claim

__all__ = ["sample_size_claims", "sample_size_rows"]


def sample_size_rows() -> list[Printed]:
    """The Section 3 table's required n and the abstract's range, by the paper's own Wald formula.

    Returns
    -------
    list of Printed
        One record per printed value, in the paper's order.
    """
    printed = {
        0.0: ("65,920", "16,480", "4,120"),
        0.4: ("39,552", "9,888", "2,472"),
        0.6: ("26,368", "6,592", "1,648"),
        0.8: ("13,184", "3,296", "824"),
    }
    rows = []
    for rho, values in printed.items():
        for delta, value in zip((0.005, 0.01, 0.02), values, strict=True):
            rows.append(
                Printed(
                    SAMPLE_SIZE,
                    "Section 3 table",
                    f"required n, rho = {rho}, Delta = {delta}",
                    value,
                    lambda rho=rho, delta=delta: float(required_n_wald(0.42 - 2 * rho * 0.21, delta)),
                    "sigma_A^2 = sigma_B^2 = 0.21 (p ~ 0.7), alpha = 0.05, power = 0.8, its own formula",
                    "required-n",
                )
            )
    rows.append(
        Printed(
            SAMPLE_SIZE,
            "Abstract",
            "required n at Delta = 0.01, rho = 0.7 (range low end)",
            "3,800",
            lambda: float(required_n_wald(0.42 * 0.3, 0.01)),
            "p ~ 0.7, rho = 0.7",
        )
    )
    rows.append(
        Printed(
            SAMPLE_SIZE,
            "Abstract",
            "required n at Delta = 0.01, rho = 0.4 (range high end)",
            "9,600",
            lambda: float(required_n_wald(0.42 * 0.6, 0.01)),
            "p ~ 0.7, rho = 0.4",
        )
    )
    return rows


def sample_size_claims() -> list[Printed]:
    """The paper's sentence-level claims (the variance at p ~ 0.7, the power ordering, the survey count).

    Returns
    -------
    list of Printed
        One record per claim.
    """
    return [
        holds_claim(
            SAMPLE_SIZE,
            "Section 3",
            "p ~ 0.7 gives sigma^2 = 0.21",
            "0.21",
            lambda: (round(0.7 * 0.3, 2) == 0.21, "0.7 x 0.3 = 0.21"),
            "p = 0.7",
        ),
        holds_claim(
            SAMPLE_SIZE,
            "Section 4",
            "math benchmarks have less power than knowledge ones at matched n (lower rho)",
            "less power",
            lambda: (
                float(required_n_wald(0.42 * (1 - 0.41), 0.01)) > float(required_n_wald(0.42 * (1 - 0.62), 0.01)),
                "required n at rho = 0.41 (MATH) exceeds that at 0.62 (MMLU)",
            ),
            "the paper's mean rho per benchmark",
        ),
        holds_claim(
            SAMPLE_SIZE,
            "Section 6",
            "7 + 3 + 2 of the 12 surveyed papers",
            "12",
            lambda: (7 + 3 + 2 == 12, "7 + 3 + 2 = 12"),
            "Section 6",
        ),
        missing_claim(
            SAMPLE_SIZE,
            "Section 4",
            "mean rho per benchmark (MMLU 0.62, MATH 0.41, GSM8K 0.58, ARC 0.69, BBH 0.49)",
            "0.62",
            "the 28 model pairs' per-example outputs are not given",
        ),
    ]
