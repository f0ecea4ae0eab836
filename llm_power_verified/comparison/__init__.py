"""One named comparison: a candidate against a baseline, pass, fail or inconclusive (``llm-power-verified compare``).

* :mod:`llm_power_verified.comparison.verdict_rules`: the three verdicts from the (1 - 2 alpha) interval and the
  test, and their exit codes;
* :mod:`llm_power_verified.comparison.named_comparison`: ``compare``, the interval and the p-values of the fixed-N
  methods, the ``Comparison`` result;
* :mod:`llm_power_verified.comparison.anytime`: the anytime-valid variant (a betting confidence sequence over the
  items in input order);
* :mod:`llm_power_verified.comparison.planning`: the power and the N of the decision an observed gap points to;
* :mod:`llm_power_verified.comparison.record`: the ``compare --format json`` record and the text and Markdown
  reports.
"""

from llm_power_verified.comparison.named_comparison import METHODS, Comparison, compare, pair_scores
from llm_power_verified.comparison.verdict_rules import EXIT_CODES, TESTS, VERDICTS, exit_code, margins, verdict

__all__ = [
    "EXIT_CODES",
    "METHODS",
    "TESTS",
    "VERDICTS",
    "Comparison",
    "compare",
    "exit_code",
    "margins",
    "pair_scores",
    "verdict",
]
