"""Generate crosscheck/data/r_reference.py by running R's pwr and stats for real.

Run: python -m crosscheck.generate_r_reference [--output PATH]

Cases: Cohen's h and the required n of pwr.2p.test, pwr.p.test and
power.prop.test over a grid of (p_A, p_B, alpha, power) including the paper's
Table 1 case; the power of pwr.2p.test and pwr.p.test at fixed n; the paired
t-test's n and power from power.t.test(type = "paired", strict = TRUE); McNemar's
test with and without correction and the exact binomial test on several
discordant tables, including the two textbook examples of tests/inference/test_mcnemar.py
and a tie (b = c, where R leaves the continuity correction out).
"""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path

from crosscheck.r_tools import run_calls
from crosscheck.records import DATA_DIR, ReferenceRecord, render, write_atomically

OUTPUT = DATA_DIR / "r_reference.py"

PROPORTIONS = [(0.65, 0.60), (0.50, 0.45), (0.80, 0.70), (0.30, 0.25), (0.90, 0.88)]
LEVELS = [(0.05, 0.80), (0.01, 0.90)]
FIXED_N = [200, 2000]
#: (delta in SD units, alpha, power) for power.t.test(type = "paired", strict = TRUE)
PAIRED_T = [(0.5, 0.05, 0.8), (0.3, 0.05, 0.9), (0.5, 0.01, 0.8)]
# (n11, n10 = b, n01 = c, n00): a 2x2 paired table
TABLES = {
    "agresti_approval": (794, 150, 86, 570),
    "fagerland_small": (10, 1, 7, 3),
    "hellaswag": (8000, 295, 249, 1498),
    "mmlu_pro_1v2": (8500, 253, 111, 3168),
    "near_tie": (100, 20, 21, 59),
    "qwen_pair": (6000, 1227, 1200, 3605),
    "one_sided": (40, 0, 5, 10),
    # b = c: R leaves the continuity correction out (X^2 = 0, p = 1), as this package does; statsmodels does not.
    "tie": (50, 7, 7, 36),
}

SOLVE = (1.2e-6, "uniroot stops at tol = .Machine$double.eps^0.25 ~ 1.2e-4 in n, below 1.2e-6 relative for n > 100")
CLOSED = (1e-12, "closed form evaluated in double precision")


def _calls():
    calls, records = {}, []
    for p_a, p_b in PROPORTIONS:
        h = f"ES.h({p_a!r}, {p_b!r})"
        key = f"es_h_{p_a}_{p_b}"
        calls[key] = {"h": h}
        records.append(("R pwr", "ES.h", key, h, {"p_a": p_a, "p_b": p_b}, ("h",), CLOSED))
        for alpha, power in LEVELS:
            suffix = f"{p_a}_{p_b}_{alpha}_{power}"
            for function, tool in (("pwr.2p.test", "R pwr"), ("pwr.p.test", "R pwr")):
                call = f"{function}(h = {h}, sig.level = {alpha!r}, power = {power!r})"
                key = f"{function.replace('.', '_')}_{suffix}"
                calls[key] = {"n": f"{call}$n"}
                records.append(
                    (tool, function, key, call, {"p_a": p_a, "p_b": p_b, "alpha": alpha, "power": power}, ("n",), SOLVE)
                )
            call = f"power.prop.test(p1 = {p_a!r}, p2 = {p_b!r}, sig.level = {alpha!r}, power = {power!r})"
            key = f"power_prop_test_{suffix}"
            calls[key] = {"n": f"{call}$n"}
            records.append(
                (
                    "R stats",
                    "power.prop.test",
                    key,
                    call,
                    {"p_a": p_a, "p_b": p_b, "alpha": alpha, "power": power},
                    ("n",),
                    SOLVE,
                )
            )
        for n in FIXED_N:
            for function in ("pwr.2p.test", "pwr.p.test"):
                call = f"{function}(h = {h}, n = {n}, sig.level = 0.05)"
                key = f"{function.replace('.', '_')}_power_{p_a}_{p_b}_{n}"
                calls[key] = {"power": f"{call}$power"}
                records.append(
                    ("R pwr", function, key, call, {"p_a": p_a, "p_b": p_b, "alpha": 0.05, "n": n}, ("power",), CLOSED)
                )
    for delta, alpha, power in PAIRED_T:
        # strict = TRUE sums both tails, as power_paired_t does; R's default strict = FALSE counts only the upper one.
        call = (
            f"power.t.test(delta = {delta!r}, sd = 1, sig.level = {alpha!r}, power = {power!r}, "
            "type = 'paired', strict = TRUE)"
        )
        key = f"power_t_test_n_{delta}_{alpha}_{power}"
        calls[key] = {"n": f"{call}$n"}
        records.append(
            (
                "R stats",
                "power.t.test",
                key,
                call,
                {"effect": delta, "alpha": alpha, "power": power},
                ("n",),
                (5e-6, "R solves with uniroot at tol = eps^0.25, about 1.2e-4 in n (n >= 30 here)"),
            )
        )
        call = f"power.t.test(n = 50, delta = {delta!r}, sd = 1, sig.level = {alpha!r}, type = 'paired', strict = TRUE)"
        key = f"power_t_test_power_{delta}_{alpha}"
        calls[key] = {"power": f"{call}$power"}
        records.append(
            (
                "R stats",
                "power.t.test",
                key,
                call,
                {"effect": delta, "alpha": alpha, "n": 50},
                ("power",),
                (1e-9, "noncentral pt (AS 243) is accurate to about 1e-12"),
            )
        )
    for name, (n11, n10, n01, n00) in TABLES.items():
        matrix = f"matrix(c({n11}, {n01}, {n10}, {n00}), nrow = 2)"
        for correct in ("TRUE", "FALSE"):
            call = f"mcnemar.test({matrix}, correct = {correct})"
            key = f"mcnemar_{name}_{correct.lower()}"
            calls[key] = {"statistic": f"unname({call}$statistic)", "pvalue": f"{call}$p.value"}
            records.append(
                (
                    "R stats",
                    "mcnemar.test",
                    key,
                    call,
                    {"n11": n11, "b": n10, "c": n01, "n00": n00, "correct": correct == "TRUE"},
                    ("statistic", "pvalue"),
                    (1e-12, "closed form; pchisq is accurate to about 1e-14 relative"),
                )
            )
        call = f"binom.test({min(n10, n01)}, {n10 + n01}, 0.5)"
        key = f"binom_{name}"
        calls[key] = {"pvalue": f"{call}$p.value"}
        records.append(
            (
                "R stats",
                "binom.test",
                key,
                call,
                {"b": n10, "c": n01},
                ("pvalue",),
                (1e-10, "R sums outcomes with probability <= (1 + 1e-7) times the observed one"),
            )
        )
    return calls, records


def generate() -> tuple[list[ReferenceRecord], dict[str, str]]:
    """Run every R call in one Rscript session; return the records and the R environment's versions."""
    calls, specs = _calls()
    values, environment = run_calls(calls)
    versions = {"R pwr": environment.get("pwr", "?"), "R stats": environment.get("R", "?")}
    records = [
        ReferenceRecord(
            key=key,
            tool=tool,
            version=versions[tool],
            function=function,
            call=call,
            inputs=inputs,
            outputs={name: values[key][name] for name in outputs},
            tolerance=tolerance[0],
            reason=tolerance[1],
        )
        for tool, function, key, call, inputs, outputs, tolerance in specs
    ]
    return records, environment


def main(argv=None) -> int:
    """Regenerate the R reference records into --output."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    arguments = parser.parse_args(argv)
    records, environment = generate()
    text = render(
        records,
        generator="crosscheck.generate_r_reference",
        description="Reference values from R's pwr and stats packages, run through Rscript.",
        environment=f"{environment.get('R')}; pwr {environment.get('pwr')}",
        date=datetime.date.today().isoformat(),
    )
    write_atomically(arguments.output, text)
    print(f"wrote {len(records)} records to {arguments.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
