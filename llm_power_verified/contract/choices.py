"""Every closed list of choices the package offers, declared once.

The lists: corrections, modes, formats, verdicts, schema ids, limits.

The CLI's ``choices=``, the API's argument checks, the JSON schemas and the
legend read these tuples; nothing else types them.  Standard library only, so
that ``--help`` pays nothing for them.
"""

from __future__ import annotations

__all__ = [
    "ACCURACY_MODES",
    "ADJUSTMENTS",
    "CORRECTIONS",
    "FAMILIES",
    "FORMATS",
    "MACHINE_FORMATS",
    "MAX_COUNT",
    "MAX_RESAMPLES",
    "MODES",
    "PAIR_LISTS",
    "SCHEMA_IDS",
    "TEXT_FORMATS",
    "VERDICT_KINDS",
    "VERDICT_RULES",
]

#: The declared family's correction behind ``significant``, the default first; "none" tests each pair at alpha.
CORRECTIONS = ("holm", "bonferroni", "sidak", "bh", "none")
#: The corrections that adjust p-values (each has its ``p_<name>`` pair column).
ADJUSTMENTS = tuple(name for name in CORRECTIONS if name != "none")
#: Which pairs a per-item audit reports (and, by default, its declared family).
MODES = ("adjacent", "all", "reference")
#: The declared multiplicity family of a per-item audit.
FAMILIES = MODES
#: Which pairs an accuracies-only audit reports (it has no reference mode).
ACCURACY_MODES = ("adjacent", "all")
#: Every output format of an audit.
FORMATS = ("table", "markdown", "html", "json", "jsonl", "csv", "parquet")
#: The formats written for a reader (the rest are for machines).
TEXT_FORMATS = ("table", "markdown", "html")
#: The formats written for machines: every pair, every column.
MACHINE_FORMATS = tuple(name for name in FORMATS if name not in TEXT_FORMATS)
#: How many pairs the text formats list: the closest in rank, every pair, or none.
PAIR_LISTS = ("top", "all", "none")
#: The verdicts of an accuracies-only pair (``verdict``, ``verdict_family``, ``verdict_assumed*``).
VERDICT_KINDS = ("resolved", "unresolved", "depends on rho", "depends on p-value order", "not admissible")

#: The verdicts of a per-item pair, each a separate column; printed first in the legend.
VERDICT_RULES = {
    "significant": "the arbiter (exact McNemar for 0/1 scores, paired t for graded) after the declared family's "
    "correction: "
    "p_adjusted <= alpha (a significance test of the observed gap)",
    "resolved": "q = N / N* >= 1 (paper Definition 1): N is large enough to detect a gap of the observed size with "
    "the target "
    "power (a power statement, not a test; a pair can be significant and unresolved)",
    "significant_clustered": "the arbiter's z divided by sqrt(design effect) of the item clusters (paper Section "
    "6.4), then "
    "the declared family's correction, as for 'significant': p_cluster adjusted <= alpha (equals "
    "'significant' when the design effect is 1)",
    "significant_anytime": "e-BH over the declared family on the e-values at N (0/1 scores: the grid mixture of paper "
    "Appendix C; "
    "graded: the hedged betting e-process over the items in id order): valid however often the table was looked at",
    "resolved_cluster": "N >= N* x design effect (paper Section 6.4)",
    "resolved_anytime": "N >= N_av, the anytime-valid required N (boundary definition)",
}

#: The ``schema`` of each JSON report: the per-item audit (0/1 or graded scores) and the accuracies-only audit.
SCHEMA_IDS = {"binary+graded": "llm-power-verified/audit/2", "accuracies": "llm-power-verified/audit-accuracies/1"}

#: Largest number of resamples a public function accepts (memory grows with it).
MAX_RESAMPLES = 1_000_000
#: Largest count accepted anywhere (2^53: every whole number up to it is exact in float64).
MAX_COUNT = 2**53
#: Smallest gap of interest accepted (--min-effect): 1 / MAX_COUNT = 2^-53, the smallest gap two mean scores over at
#: most MAX_COUNT items can have and the spacing of float64 just below 1; a smaller gap cannot be told from rounding
#: (and its N* ~ 1/DELTA^2 would overflow float64 below about 1e-154).
MIN_GAP = 2.0**-53
