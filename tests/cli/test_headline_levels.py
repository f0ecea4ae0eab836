"""The audit headline's "N that would resolve every adjacent gap" states its level, and its family figure is plan's.

The defect this guards: the headline gave N* with each pair at alpha while ``plan report`` on the same report
answered at the family level (alpha / m for Holm: the only level guaranteed before the p-values are seen), with
nothing saying which level either used.  Both commands run here on the same saved report; item counts are integers,
compared exactly.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from llm_power_verified.cli import main


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "sidak", "bh"])
def test_the_headline_family_figure_is_what_plan_report_prints(tmp_path, correction):
    report = tmp_path / "audit.json"
    common = ["--n-resamples", "0", "--n-cluster-resamples", "0", "--correction", correction]
    status, _, _ = _cli(["audit", *common, "--format", "json", "--out", str(report)])
    assert status == 0
    status, text, _ = _cli(["audit", *common])
    assert status == 0
    line = re.search(
        r"N that would resolve every adjacent gap: ([\d,]+) items with each pair at alpha 0\.05; ([\d,]+) at "
        r"(.+?) \((Bonferroni|Sidak) over the 9 adjacent pairs",
        _flat(text),
    )
    assert line is not None, _flat(text)
    status, plan, _ = _cli(["plan", "report", str(report)])
    assert status == 0
    planned = re.search(r"at the observed rho-hat: N = ([\d,]+) items resolve every one", plan)
    assert planned is not None, plan
    assert line.group(2) == planned.group(1)
    # Every correction's guaranteed level is below alpha for m = 9, so the family needs more items than each pair alone.
    assert int(line.group(2).replace(",", "")) > int(line.group(1).replace(",", ""))


def test_the_headline_says_what_each_count_counts():
    status, text, _ = _cli(["audit", "--n-resamples", "0", "--n-cluster-resamples", "0"])
    assert status == 0
    flat = _flat(text)
    assert "resolved (q >= 1, each pair at alpha) " in flat
    assert "significant anytime-valid (e-BH) " in flat
    assert "'resolved' is |z_Wald| >= 2.802 at alpha 0.05" in flat


@pytest.mark.parametrize(
    "inputs", [[], ["--task", "arith_mc", "--metric", "acc"]], ids=["clusters-in-memory", "streamed"]
)
def test_parquet_prints_the_same_headline_streamed_or_in_memory(tmp_path, inputs):
    pytest.importorskip("pyarrow")
    folders = sorted(
        str(path) for path in (Path(__file__).resolve().parents[1] / "fixtures" / "lm_eval" / "hashlm").glob("model-*")
    )
    argv = ["audit", *(folders if inputs else []), *inputs, "--n-resamples", "0", "--n-cluster-resamples", "0"]
    status, text, _ = _cli([*argv, "--format", "parquet", "--out", str(tmp_path / "audit.parquet")])
    assert status == 0
    pairs = 9 if not inputs else 2
    assert f"over the {pairs} adjacent pairs" in _flat(text) and re.search(r"wrote .*audit\.parquet: \d+ pairs", text)
    every = re.compile(r"N that would resolve every adjacent gap: .*?\(now [\d,]+\)\.")
    assert every.search(_flat(text)).group() == every.search(_flat(_cli(argv)[1])).group()
