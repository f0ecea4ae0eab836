"""The Python API refuses a bare array, a DataFrame where an array is meant, duplicate model names and a NaN count."""

from __future__ import annotations

import numpy as np
import pytest

from llm_power_verified.io import InputError, from_array
from llm_power_verified.leaderboard.audit import audit_leaderboard


def test_api_refuses_arrays_and_duplicate_names():
    with pytest.raises(TypeError, match="matrix must be a ScoreMatrix; got ndarray"):
        audit_leaderboard(np.zeros((4, 2)))
    with pytest.raises(InputError, match="model 'a' appears twice"):
        from_array(np.eye(3), models=["a", "b", "a"])
    from llm_power_verified.io import from_wide

    with pytest.raises(InputError, match="expected a pandas DataFrame, got ndarray; for an array use from_array"):
        from_wide(np.eye(3))
    with pytest.raises(ValueError, match="n_resamples must be a whole number"):
        audit_leaderboard(from_array(np.eye(3)), n_resamples=float("nan"))
