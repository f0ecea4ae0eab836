"""A rho refused as inadmissible is printed beside its bound in full, so the two never read the same."""

from __future__ import annotations

import pytest

import llm_power_verified as lpv
from llm_power_verified.errors import ArgumentError
from llm_power_verified.power.correlation import admissible_rho_interval


@pytest.mark.parametrize("step", [1e-9, 1e-11])
def test_a_rho_just_above_the_bound_prints_apart_from_it(step):
    # Within the 1e-12 tolerance a rho is clipped; beyond it, rounded to 6 digits rho and bound printed the same.
    high = float(admissible_rho_interval(0.65, 0.6).high)
    rho = high + step
    with pytest.raises(ArgumentError) as error:
        lpv.required_n_paired_binary(0.65, 0.6, rho)
    message = str(error.value)
    assert f", {high!r}] for these marginals" in message
    assert message.endswith(f"got {rho!r} (--rho on the command line)")
    assert repr(rho) != repr(high)
