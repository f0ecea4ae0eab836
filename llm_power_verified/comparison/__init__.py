"""One named comparison: a candidate against a baseline, pass, fail or inconclusive (``llm-power-verified compare``).

* :mod:`llm_power_verified.comparison.verdict_rules`: the three verdicts from the (1 - 2 alpha) interval and the
  test, and their exit codes;
* :mod:`llm_power_verified.comparison.named_comparison`: ``compare``, the interval and the p-values of the fixed-N
  methods, the ``Comparison`` result;
* :mod:`llm_power_verified.comparison.anytime`: the anytime-valid variant (a betting confidence sequence over the
  items in input order);
* :mod:`llm_power_verified.comparison.clustered`: the pair's design effect and the cluster-robust interval
  (``--method cluster``);
* :mod:`llm_power_verified.comparison.planning`: for an inconclusive comparison, the observed (post-hoc) power of
  the decision the observed gap points to and the N that would decide;
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
