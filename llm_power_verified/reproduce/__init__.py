"""The reproduction report: printed values of the source papers beside values recomputed from their stated inputs.

:mod:`.core` holds the shared machinery (the printed-value record, the verdict rule) and the
main paper's closed-form tables; :mod:`.extra` the tables that need simulation or other modules;
:mod:`.run` runs them.
"""

from llm_power_verified.reproduce.core import PAPERS, Printed, ReproductionRow
from llm_power_verified.reproduce.run import PRINTED, printed_values, reproduce

__all__ = ["PAPERS", "PRINTED", "Printed", "ReproductionRow", "printed_values", "reproduce"]
