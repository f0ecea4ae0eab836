"""Testing tools for other people's test suites: calculator conformance, oracles and strategies.

:func:`~llm_power_verified.testing.conformance.check_calculator` points the package's convention table at *your*
power calculator: it calls the function on a deterministic grid, on seeded
random points and in a hypothesis property search, says which convention it
implements (the paired N* of Eq. 6, Connor, the arcsine one- and two-sample
sizes, the unpooled Wald and pooled two-proportion per-arm sizes, the
(1 - rho) shortcut, each two- or one-sided; the exact, mid-p, chi-square and
continuity-corrected McNemar p; the noncentral-t power with both tails, the
upper tail only, or the normal approximation; exact McNemar's n, tried at
the grid's wide gaps only when nothing else fits), measures its largest relative
error against what it claims and, separately, against the correct quantity,
and lists its failures (exceptions, NaN, infinities, values out of range,
overflow thresholds, non-monotonicity, asymmetry, wrong tails, deviations),
each with a minimal counterexample.  :func:`~llm_power_verified.testing.conformance.assert_conforms` raises an
AssertionError with a readable summary, for pytest.

Quantities (``QUANTITIES``) and the keyword arguments the function is called with:

=======================  ===================================  ====================================
quantity                 called as                            correct quantity (default reference)
=======================  ===================================  ====================================
``required_n``           ``fn(p_a, p_b, rho, alpha, power)``  paired N* (Eq. 6), two-sided
``pvalue``               ``fn(b, c)``                         exact McNemar p, two-sided
``power_paired_t``       ``fn(n, effect_size, alpha)``        noncentral-t power, both tails
``required_n_paired_t``  ``fn(effect_size, alpha, power)``    noncentral-t n, both tails
=======================  ===================================  ====================================

``arguments`` adapts other signatures: ``{"p_a": "p1", "rho": None,
"constants": {"ratio": 1}}`` passes p_a as ``p1``, leaves rho out and passes
``ratio=1`` at every call.

Cost: a default run calls the function at every grid point (52 for
required_n, 77 for pvalue, 70 for power_paired_t, 12 for
required_n_paired_t), at 20 seeded random points, and in four to eight
hypothesis searches of ``max_examples`` examples (one or two calls each, plus
shrinking); answers are cached, so each distinct point is called once.
Measured on in-process functions: 320 to 670 calls, 0.4 to 1.5 s.  For a
slow tool (a subprocess per call) pass ``grid="small"``, a small
``max_examples`` and a ``timeout``.

The modules :mod:`~llm_power_verified.testing.oracles` (the quantities in
mpmath at 50 digits, each with its error bound) and
:mod:`~llm_power_verified.testing.strategies` (hypothesis strategies over the
admissible domain) are attributes of this module.

Examples
--------
>>> from scipy.stats import binomtest
>>> from llm_power_verified.testing import assert_conforms, check_calculator
>>> def exact_p(b, c):
...     return binomtest(b, b + c).pvalue if b + c else 1.0
>>> assert_conforms(exact_p, "pvalue", max_examples=20).convention
'exact'
>>> import math
>>> from scipy.stats import norm
>>> def shortcut(p_a, p_b, rho, alpha, power):
...     h = 2 * math.asin(math.sqrt(p_a)) - 2 * math.asin(math.sqrt(p_b))
...     return (1 - rho) * (norm.ppf(1 - alpha / 2) + norm.ppf(power)) ** 2 / h**2
>>> result = check_calculator(shortcut, max_examples=20)
>>> result.conforms, result.convention, [failure.kind for failure in result.failures]
(False, 'shortcut', ['deviation'])
"""

from llm_power_verified.testing import oracles, strategies
from llm_power_verified.testing.conformance import assert_conforms, check_calculator
from llm_power_verified.testing.conformance_results import CalculatorConformance, CalculatorFailure, Deviation
from llm_power_verified.testing.quantities import QUANTITIES, Quantity

__all__ = [
    "QUANTITIES",
    "CalculatorConformance",
    "CalculatorFailure",
    "Deviation",
    "Quantity",
    "assert_conforms",
    "check_calculator",
    "oracles",
    "strategies",
]
