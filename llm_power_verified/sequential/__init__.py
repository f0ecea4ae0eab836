"""Anytime-valid monitoring: mixture e-processes, their threshold and N, confidence sequences (one dual to it), e-BH."""

from llm_power_verified.sequential.anytime import optional_stopping_calibration, required_n_anytime_simulated
from llm_power_verified.sequential.confidence import ConfidenceSequence, confidence_sequence
from llm_power_verified.sequential.crossing import required_n_anytime
from llm_power_verified.sequential.dual import WinShareSequence, win_share_sequence
from llm_power_verified.sequential.e_process import MIXTURES, anytime_pvalue, e_bh, e_process, log_e_value
from llm_power_verified.sequential.thresholds import threshold

__all__ = [
    "MIXTURES",
    "ConfidenceSequence",
    "WinShareSequence",
    "anytime_pvalue",
    "confidence_sequence",
    "e_bh",
    "e_process",
    "log_e_value",
    "optional_stopping_calibration",
    "required_n_anytime",
    "required_n_anytime_simulated",
    "threshold",
    "win_share_sequence",
]
