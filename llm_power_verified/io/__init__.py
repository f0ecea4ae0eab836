"""Ingestion and output: every input becomes one validated :class:`ScoreMatrix`, every output goes through one writer.

Readers (one module each): wide/long tables (:mod:`.tables`), two plain score
files (:mod:`.plain`), lm-evaluation-harness folders (:mod:`.lm_eval`), Inspect
logs (:mod:`.inspect_logs`); :func:`read_scores` (:mod:`.detect`) picks one.
All of them end in :func:`.matrix.build_matrix`, which applies the rules
(finite scores in range, no silent switch of score kind, unique names, cluster
labels) and raises :class:`InputError` naming the file, line or cell, the value
and what is allowed.  :mod:`.output` writes every file the tool produces.
"""

from llm_power_verified.io.detect import input_kind, read_scores
from llm_power_verified.io.errors import AlignmentError, InputError, OutputError
from llm_power_verified.io.inspect_logs import read_inspect
from llm_power_verified.io.lm_eval import read_lm_eval
from llm_power_verified.io.matrix import SCORE_KINDS, ScoreMatrix, build_matrix, from_array
from llm_power_verified.io.output import check_outputs, json_ready, json_text, write_bytes, write_text
from llm_power_verified.io.plain import read_score_file, read_score_files
from llm_power_verified.io.tables import from_long, from_wide, read_table, write_table

__all__ = [
    "AlignmentError",
    "InputError",
    "OutputError",
    "SCORE_KINDS",
    "ScoreMatrix",
    "build_matrix",
    "check_outputs",
    "from_array",
    "from_long",
    "from_wide",
    "input_kind",
    "json_ready",
    "json_text",
    "read_inspect",
    "read_lm_eval",
    "read_score_file",
    "read_score_files",
    "read_scores",
    "read_table",
    "write_bytes",
    "write_table",
    "write_text",
]
