"""The reproduction report: printed values of the source papers beside values recomputed from their stated inputs.

:mod:`.records` holds the papers and the printed-value record, :mod:`.verdicts` the verdict rules;
one module per paper (and per part of the main paper) holds its printed values:
``resolution_diagnostics*`` (arXiv 2605.30315), :mod:`.pairs_needed` ("How Many Test Pairs Do You
Need?") and :mod:`.pairwise_power` ("Power Analysis for Pairwise Model Comparisons on Reasoning
Benchmarks"); :mod:`.run` runs them.
"""

from llm_power_verified.reproduce.records import PAPERS, Paper, Printed, ReproductionRow
from llm_power_verified.reproduce.run import printed_values, reproduce

__all__ = ["PAPERS", "Paper", "Printed", "ReproductionRow", "printed_values", "reproduce"]
