"""The generated Wald z (``_generated.wald.z_wald``, derived in ``derivations/wald.py``) and its relation to q.

The audit's ``z_wald`` column is T_N = delta / sqrt(variance / N) at the observed gap, and q at that gap is
T_N^2 / (z_{1-alpha/sides} + z_{1-beta})^2 (Definition 1).  The generic property test
(test_generated_vs_symbolic.py) holds ``z_wald`` to its SymPy source; the tests here add the routes that do not go
through SymPy: the definition computed directly in mpmath, and q from its own generated function.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from derivations import wald
from llm_power_verified._generated.wald import critical_value, resolution_ratio_wald, z_wald

VARIANCES = st.floats(1e-8, 4.0)
# No gap, or one of at least 1e-9 in size: a smaller one squares (in q) into subnormal numbers, where float64 has no
# relative precision left to test.
GAPS = st.just(0.0) | st.floats(1e-9, 2.0) | st.floats(-2.0, -1e-9)
SIZES = st.integers(1, 10**9)


def test_the_statistic_at_a_gap_is_the_noncentrality_the_power_functions_use():
    """T_N at (delta, sigma_D^2, N) is the same expression as mu, the mean of T_N under that alternative."""
    assert sp.simplify(wald.WALD_Z - wald.derive_noncentrality()) == 0


@given(VARIANCES, GAPS, SIZES)
def test_z_wald_is_its_definition_computed_in_mpmath(variance, delta, n):
    with mpmath.workdps(50):
        exact = mpmath.mpf(delta) / mpmath.sqrt(mpmath.mpf(variance) / n)
        # rel 1e-14: three float64 operations and two square roots (each within one ulp, 2.2e-16) from exact inputs.
        assert float(z_wald(variance, delta, float(n))) == pytest.approx(float(exact), rel=1e-14, abs=0)


@given(VARIANCES, GAPS, SIZES)
def test_z_wald_is_odd_in_the_gap(variance, delta, n):
    assert z_wald(variance, -delta, float(n)) == -z_wald(variance, delta, float(n))


@given(VARIANCES, GAPS, SIZES, st.floats(1e-12, 0.4), st.floats(0.6, 1 - 1e-9), st.sampled_from([1, 2]))
def test_q_is_the_squared_z_over_the_planning_constant(variance, delta, n, alpha, power, sides):
    """Definition 1 at an observed gap: q = z_wald^2 / (z_{1-alpha/sides} + z_{1-beta})^2.

    Checked between generated functions.
    """
    constant = (critical_value(alpha, sides) + critical_value(1 - power, 1)) ** 2
    q = resolution_ratio_wald(variance, delta, float(n), alpha, power, sides)
    # rel 1e-13: both sides round the same constant; z squared and q each take a handful of roundings (< 10 ulp).
    assert z_wald(variance, delta, float(n)) ** 2 / constant == pytest.approx(q, rel=1e-13, abs=0)
