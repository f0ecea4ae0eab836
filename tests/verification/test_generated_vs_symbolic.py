"""Every generated function against its SymPy source evaluated in mpmath at 50 digits.

For each :class:`derivations._codegen.GeneratedFunction`, hypothesis draws
points from the function's declared domain (its box, restricted by its
``conditions``), the generated float64 code is evaluated at exactly those
points, and the SymPy expression is evaluated at the same points in mpmath
with 50 significant digits.  Where the function is well conditioned the
relative error must be at most 1e-12.  Points where it is not (each
function's ``well_conditioned`` expressions and ``conditioning_note`` say where
and why) are excluded: there the float result is limited by cancellation in
the inputs' own rounding, not by the implementation.  Results whose exact
value lies outside the normal float64 range (below 1e-300 or above 1e300,
e.g. a power of 1e-500 at a hopeless one-sided alternative) are excluded too.
"""

from __future__ import annotations

import importlib
import math

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from derivations import all_functions
from tests.support.reference import DIGITS, evaluate, mpmath_callable, relative_error

TOLERANCE = 1e-12
FUNCTIONS = all_functions()


def _argument_strategy(function, name):
    low, high = function.domain[name]
    if name in function.integer_args and high - low <= 4:
        return st.integers(int(low), int(high)).map(float)
    if name in function.log_scale:
        positive_low = max(low, 1.0) if low == 0 else low
        log_draw = st.floats(math.log(positive_low), math.log(high)).map(math.exp)
        if name in function.integer_args:
            log_draw = log_draw.map(lambda value: float(round(value)))
        return st.one_of(st.just(float(low)), log_draw) if low == 0 else log_draw
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("module_name, function", FUNCTIONS, ids=[f"{m}.{f.name}" for m, f in FUNCTIONS])
def test_generated_function_matches_symbolic_source(module_name, function):
    generated = getattr(importlib.import_module(f"llm_power_verified._generated.{module_name}"), function.name)
    reference = mpmath_callable(function.args, function.expr)
    conditions = [mpmath_callable(function.args, condition) for condition in function.conditions]
    well_conditioned = [mpmath_callable(function.args, condition) for condition in function.well_conditioned]
    strategy = st.tuples(*[_argument_strategy(function, name) for name in function.arg_names])

    # The domains' conditions (Connor's simplex p10 + p01 < 1, the well-conditioned regions) reject up to about half of
    # the box; older hypothesis releases (6.90, the oldest supported) count that as filtering too much and stop.  The
    # rejected points are outside the function's domain, so the check still runs on max_examples points inside it.
    @settings(suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
    @given(strategy)
    def check(values):
        for condition in conditions:
            assume(evaluate(function, condition, values) > 0)
        for condition in well_conditioned:
            assume(evaluate(function, condition, values) > 0)
        exact = evaluate(function, reference, values)
        # Results outside the normal float64 range cannot be represented at all.
        assume(mpmath.isfinite(exact) and (exact == 0 or mpmath.mpf("1e-300") < abs(exact) < mpmath.mpf("1e300")))
        with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
            approximate = float(generated(*values))
        error = relative_error(approximate, exact)
        assert error <= TOLERANCE, (
            f"{function.name}{values}: generated {approximate!r}, "
            f"{DIGITS}-digit reference {mpmath.nstr(exact, 20)}, relative error {error:.3g}"
        )

    check()


def test_every_generated_function_is_exported():
    """The property test above covers each generated function exactly once."""
    for module_name, function in FUNCTIONS:
        module = importlib.import_module(f"llm_power_verified._generated.{module_name}")
        assert function.name in module.__all__
    names = [f"{m}.{f.name}" for m, f in FUNCTIONS]
    assert len(names) == len(set(names))
    generated_names = set()
    for module_name in {m for m, _ in FUNCTIONS}:
        module = importlib.import_module(f"llm_power_verified._generated.{module_name}")
        generated_names |= {f"{module_name}.{name}" for name in module.__all__}
    assert generated_names == set(names)


@pytest.mark.parametrize("name, coefficient", [("shortcut_ratio_c2", "C2_U"), ("shortcut_ratio_c4", "C4_U")])
@pytest.mark.parametrize("point", [(0.7712575555375951, 0.7712575555375951), (0.5, 0.999), (0.3, -0.4)])
def test_shortcut_coefficients_err_within_their_cancellation_bound(name, coefficient, point):
    """Outside the well-conditioned region the error is bounded by the cancellation, not by a constant.

    The generated coefficient is a ratio whose numerator sums about ten terms; each term and the sum carry at most
    about 32 roundings of 2^-53, so the relative error is at most 32 * 2^-53 times the numerator's condition
    number (sum of the terms' magnitudes over the magnitude of the sum).  The first point is the one where the
    condition number is 14,425 and an absolute-size criterion had let a 1.2e-12 error through.
    """
    from derivations import shortcut_series
    from llm_power_verified._generated import shortcut_series as generated

    magnitude, numerator = shortcut_series.derive_numerator_magnitude(getattr(shortcut_series, coefficient))
    symbols = (shortcut_series.p, shortcut_series.rho)
    condition = float(abs(magnitude.subs(dict(zip(symbols, point, strict=True))))) / float(
        abs(numerator.subs(dict(zip(symbols, point, strict=True))))
    )
    expr = shortcut_series.derive_printed_form(getattr(shortcut_series, coefficient))
    with mpmath.workdps(DIGITS):
        exact = mpmath_callable(symbols, expr)(*[mpmath.mpf(value) for value in point])
    error = relative_error(float(getattr(generated, name)(*point)), exact)
    assert error <= 32 * 2.0**-53 * max(condition, 1.0)
