"""The cluster design effect and the cluster-adjusted N* (power/clustering.py)."""

from __future__ import annotations

import pytest

import llm_power_verified as lpv


def test_design_effect_and_truncation():
    assert lpv.design_effect(859, 0.036) == pytest.approx(1 + 858 * 0.036)
    assert lpv.design_effect(859, -0.0003) == 1.0
    assert lpv.design_effect(10, -0.05, truncate_negative_icc=False) == pytest.approx(0.55)
    assert lpv.cluster_adjusted_required_n(433, 859, 0.036) == pytest.approx(433 * (1 + 858 * 0.036))
    with pytest.raises(ValueError, match="no exchangeable correlation"):
        lpv.design_effect(10, -0.2, truncate_negative_icc=False)
