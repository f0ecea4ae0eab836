"""Third-party reference records (R and statsmodels, run for real) against this package.

The records in crosscheck/data/ are written by generator scripts that run the
real tools.  Tests here (1) regenerate them and fail on a difference beyond
each record's stated tolerance, and (2) parametrize over the records and
compare each tool's output with the convention this package derives for it.
"""

from __future__ import annotations

import pytest
from scipy.optimize import brentq

import llm_power_verified as lpv
from crosscheck import generate_r_reference, generate_statsmodels_reference
from crosscheck.data import r_reference, statsmodels_reference
from crosscheck.r_tools import rscript_path
from crosscheck.records import compare

needs_r = pytest.mark.skipif(
    rscript_path() is None, reason="Rscript not found: install the Debian packages r-base-core r-cran-pwr"
)


def _both_tails_root(variance: float, effect: float, alpha: float, power: float) -> float:
    """n solving the two-tailed Wald power equation (what pwr and statsmodels solve)."""
    return brentq(lambda n: lpv.power_wald(n, variance, effect, alpha) - power, 0.5, 1e9, xtol=1e-12, rtol=1e-15)


def _ours(record) -> dict[str, float]:
    inputs = record.inputs
    function = record.function
    if function in ("ES.h", "proportion_effectsize"):
        return {"h": lpv.cohens_h(inputs["p_a"], inputs["p_b"])}
    if function in ("pwr.2p.test", "pwr.p.test", "NormalIndPower.solve_power"):
        variance = 1.0 if function == "pwr.p.test" else 2.0
        h = lpv.cohens_h(inputs["p_a"], inputs["p_b"])
        if "n" in record.outputs:
            return {"n": _both_tails_root(variance, h, inputs["alpha"], inputs["power"])}
        return {"power": lpv.power_wald(inputs["n"], variance, h, inputs["alpha"])}
    if function == "power.prop.test":
        return {
            "n": lpv.required_n_unpaired(
                inputs["p_a"], inputs["p_b"], inputs["alpha"], inputs["power"], variance="pooled-null"
            )
        }
    if function == "power.t.test":
        if "n" in record.outputs:
            return {"n": lpv.required_n_paired_t(inputs["effect"], 1.0, inputs["alpha"], inputs["power"])}
        return {"power": lpv.power_paired_t(inputs["n"], inputs["effect"], 1.0, inputs["alpha"])}
    if function == "TTestPower.solve_power":
        return {"n": lpv.required_n_paired_t(inputs["effect"], 1.0, inputs["alpha"], inputs["power"])}
    if function == "TTestPower.power":
        return {"power": lpv.power_paired_t(inputs["n"], inputs["effect"], 1.0, inputs["alpha"])}
    if function == "binom.test":
        return {"pvalue": lpv.mcnemar_exact(inputs["b"], inputs["c"]).pvalue}
    if function in ("mcnemar.test", "mcnemar"):
        if inputs.get("exact"):
            result = lpv.mcnemar_exact(inputs["b"], inputs["c"])
            return {"statistic": result.statistic, "pvalue": result.pvalue}
        result = lpv.mcnemar_chi2(
            inputs["b"], inputs["c"], continuity=inputs["correct" if "correct" in inputs else "correction"]
        )
        return {"statistic": result.statistic, "pvalue": result.pvalue}
    raise AssertionError(f"no comparison for {function}")


RECORDS = list(r_reference.RECORDS) + list(statsmodels_reference.RECORDS)


@pytest.mark.parametrize("record", RECORDS, ids=[f"{r.tool}:{r.key}" for r in RECORDS])
def test_record_agrees_with_this_package(record):
    ours = _ours(record)
    for name, value in record.outputs.items():
        assert ours[name] == pytest.approx(value, rel=record.tolerance, abs=1e-300), f"{record.call} -> {name}"


def test_every_record_has_a_call_version_and_reasoned_tolerance():
    for record in RECORDS:
        assert record.call and record.version and record.version != "?"
        assert 0 < record.tolerance < 1e-5 and record.reason


@needs_r
def test_r_reference_data_is_current(tmp_path):
    """CI regenerates the R records and fails on any difference beyond a record's tolerance."""
    fresh, _ = generate_r_reference.generate()
    assert compare(list(r_reference.RECORDS), fresh) == []


def test_statsmodels_reference_data_is_current():
    assert compare(list(statsmodels_reference.RECORDS), generate_statsmodels_reference.generate()) == []


def test_dominant_tail_formulas_sit_just_above_the_tools_both_tail_roots():
    """pwr/statsmodels include the far tail, so their n is a hair below K/h^2 and 2K/h^2."""
    for record in r_reference.RECORDS:
        if record.function in ("pwr.2p.test", "pwr.p.test") and "n" in record.outputs:
            convention = "two-sample" if record.function == "pwr.2p.test" else "one-sample"
            ours = lpv.required_n_arcsine(
                record.inputs["p_a"],
                record.inputs["p_b"],
                record.inputs["alpha"],
                record.inputs["power"],
                convention=convention,
            )
            # uniroot's tolerance (1.2e-4 in n) bounds how far R's root may sit above the exact one.
            assert -1.23e-4 <= ours - record.outputs["n"] < 0.05


def test_compare_reports_a_changed_value():
    records = list(statsmodels_reference.RECORDS)
    changed = [
        records[0].__class__(
            **{**records[0].__dict__, "outputs": {k: v * (1 + 1e-6) for k, v in records[0].outputs.items()}}
        )
    ]
    problems = compare(records[:1], changed)
    assert len(problems) == 1 and records[0].key in problems[0]
    assert compare(records[:1], []) == [f"{records[0].key}: no longer produced"]
