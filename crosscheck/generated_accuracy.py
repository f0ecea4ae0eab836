"""Survey of the generated code's accuracy against its SymPy source at 50 digits.

Run: python -m crosscheck.generated_accuracy [--points N] [--seed S]

For every generated function, draws N points from its declared domain with a
seeded numpy Generator (uniform, or log-uniform where the derivation says so),
keeps the points inside its conditions, and reports the worst relative error
of the float64 code against mpmath at 50 digits, separately for the
well-conditioned region (where the tests require <= 1e-12) and for the
excluded ill-conditioned region.
"""

from __future__ import annotations

import argparse
import importlib
import math

import mpmath
import numpy as np
import sympy as sp

from derivations import all_functions
from derivations._functions import MPMATH_IMPLEMENTATIONS


def _draw(function, rng: np.random.Generator) -> list[float]:
    values = []
    for name in function.arg_names:
        low, high = function.domain[name]
        if name in function.integer_args and high - low <= 4:
            values.append(float(rng.integers(int(low), int(high) + 1)))
            continue
        if name in function.log_scale:
            value = math.exp(rng.uniform(math.log(max(low, 1.0) if low == 0 else low), math.log(high)))
        else:
            value = rng.uniform(low, high)
        if name in function.integer_args:
            value = float(round(value))
        values.append(value)
    return values


def survey(points: int, seed: int) -> list[tuple[str, int, float, int, float]]:
    """Per generated function: points and worst relative error, in the well- and the ill-conditioned region."""
    rng = np.random.default_rng(seed)
    rows = []
    for module_name, function in all_functions():
        generated = getattr(importlib.import_module(f"llm_power_verified._generated.{module_name}"), function.name)
        modules = [MPMATH_IMPLEMENTATIONS, "mpmath"]
        reference = sp.lambdify(function.args, function.expr, modules=modules)
        conditions = [sp.lambdify(function.args, c, modules=modules) for c in function.conditions]
        good = [sp.lambdify(function.args, c, modules=modules) for c in function.well_conditioned]
        worst_good = worst_bad = 0.0
        count_good = count_bad = 0
        with mpmath.workdps(50):
            for _ in range(points):
                values = _draw(function, rng)
                exact_args = [mpmath.mpf(v) for v in values]
                if any(c(*exact_args) <= 0 for c in conditions):
                    continue
                exact = reference(*exact_args)
                if not mpmath.isfinite(exact) or (
                    exact != 0 and not (mpmath.mpf("1e-300") < abs(exact) < mpmath.mpf("1e300"))
                ):
                    continue
                with np.errstate(all="ignore"):
                    approximate = float(generated(*values))
                error = float(abs((mpmath.mpf(approximate) - exact) / exact)) if exact != 0 else abs(approximate)
                if all(c(*exact_args) > 0 for c in good):
                    worst_good, count_good = max(worst_good, error), count_good + 1
                else:
                    worst_bad, count_bad = max(worst_bad, error), count_bad + 1
        rows.append((f"{module_name}.{function.name}", count_good, worst_good, count_bad, worst_bad))
    return rows


def main() -> None:
    """Run the survey with the command line's --points and --seed and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    arguments = parser.parse_args()
    print("| function | points (well conditioned) | worst rel. error | points (excluded) | worst rel. error there |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, count_good, worst_good, count_bad, worst_bad in survey(arguments.points, arguments.seed):
        bad = f"{worst_bad:.2e}" if count_bad else "-"
        print(f"| {name} | {count_good} | {worst_good:.2e} | {count_bad} | {bad} |")


if __name__ == "__main__":
    main()
