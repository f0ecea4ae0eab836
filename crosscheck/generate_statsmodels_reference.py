"""Generate crosscheck/data/statsmodels_reference.py by calling statsmodels for real.

Run: python -m crosscheck.generate_statsmodels_reference [--output PATH]

Cases: proportion_effectsize and NormalIndPower.solve_power (per-arm n,
ratio 1) over the same grid as the R generator; TTestPower.solve_power and
.power for paired-t designs; contingency_tables.mcnemar, exact and asymptotic.
"""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path

import statsmodels
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.power import NormalIndPower, TTestPower
from statsmodels.stats.proportion import proportion_effectsize

from crosscheck.generate_r_reference import LEVELS, PROPORTIONS, TABLES
from crosscheck.records import DATA_DIR, ReferenceRecord, render, write_atomically

OUTPUT = DATA_DIR / "statsmodels_reference.py"
EFFECTS = [0.1, 0.25, 0.5, 0.8]
TOOL = "statsmodels"


def generate() -> list[ReferenceRecord]:
    """Call statsmodels on every reference input; return the records."""
    version = statsmodels.__version__
    records = []

    def add(key, function, call, inputs, outputs, tolerance, reason):
        records.append(ReferenceRecord(key, TOOL, version, function, call, inputs, outputs, tolerance, reason))

    for p_a, p_b in PROPORTIONS:
        h = float(proportion_effectsize(p_a, p_b))
        add(
            f"proportion_effectsize_{p_a}_{p_b}",
            "proportion_effectsize",
            f"proportion_effectsize({p_a!r}, {p_b!r})",
            {"p_a": p_a, "p_b": p_b},
            {"h": h},
            1e-12,
            "closed form",
        )
        for alpha, power in LEVELS:
            call = (
                f"NormalIndPower().solve_power(effect_size=proportion_effectsize({p_a!r}, {p_b!r}), "
                f"alpha={alpha!r}, power={power!r}, ratio=1.0)"
            )
            n = float(NormalIndPower().solve_power(effect_size=h, alpha=alpha, power=power, ratio=1.0))
            add(
                f"normal_ind_power_{p_a}_{p_b}_{alpha}_{power}",
                "NormalIndPower.solve_power",
                call,
                {"p_a": p_a, "p_b": p_b, "alpha": alpha, "power": power},
                {"n": n},
                1e-7,
                "root found by brentq",
            )
    for effect in EFFECTS:
        for alpha, power in LEVELS:
            call = f"TTestPower().solve_power(effect_size={effect!r}, alpha={alpha!r}, power={power!r})"
            n = float(TTestPower().solve_power(effect_size=effect, alpha=alpha, power=power))
            add(
                f"ttest_power_n_{effect}_{alpha}_{power}",
                "TTestPower.solve_power",
                call,
                {"effect": effect, "alpha": alpha, "power": power},
                {"n": n},
                1e-7,
                "root found by brentq",
            )
        call = f"TTestPower().power(effect_size={effect!r}, nobs=50, alpha=0.05)"
        add(
            f"ttest_power_power_{effect}",
            "TTestPower.power",
            call,
            {"effect": effect, "n": 50, "alpha": 0.05},
            {"power": float(TTestPower().power(effect_size=effect, nobs=50, alpha=0.05))},
            1e-12,
            "closed form (noncentral t)",
        )
    for name, (n11, n10, n01, n00) in TABLES.items():
        table = [[n11, n10], [n01, n00]]
        for exact, correction in ((True, False), (False, True), (False, False)):
            if correction and n10 == n01:
                # A known, documented difference: statsmodels does not clip |b - c| - 1 at b = c (X^2 = 1/(b + c));
                # this package and R give X^2 = 0.  tests/inference/test_mcnemar.py pins both.
                continue
            call = f"mcnemar([[{n11}, {n10}], [{n01}, {n00}]], exact={exact}, correction={correction})"
            result = mcnemar(table, exact=exact, correction=correction)
            add(
                f"mcnemar_{name}_{'exact' if exact else 'cc' if correction else 'plain'}",
                "mcnemar",
                call,
                {"n11": n11, "b": n10, "c": n01, "n00": n00, "exact": exact, "correction": correction},
                {"statistic": float(result.statistic), "pvalue": float(result.pvalue)},
                1e-12,
                "closed form",
            )
    return records


def main(argv=None) -> int:
    """Regenerate the statsmodels reference records into --output."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    arguments = parser.parse_args(argv)
    records = generate()
    import scipy

    text = render(
        records,
        generator="crosscheck.generate_statsmodels_reference",
        description="Reference values from statsmodels, called in-process.",
        environment=f"statsmodels {statsmodels.__version__}; scipy {scipy.__version__}",
        date=datetime.date.today().isoformat(),
    )
    write_atomically(arguments.output, text)
    print(f"wrote {len(records)} records to {arguments.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
