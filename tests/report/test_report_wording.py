"""The text report says what each figure counts, at which level, and what it left out.

Defects this guards (a newcomer's walk-through): the Holm row of "Unresolved pairs across procedures" counted pairs at
a step level Holm never reached, unsaid; "anytime-valid" counted failures in that table and passes in the headline;
two different MDEs were both "delta_MDE"; ``--columns`` dropped columns silently and the checklist named a paired
bootstrap that ``--n-resamples 0`` had not run; an MDE of 0 from a plug-in variance of 0; "1 comparisons"; and
``--mode reference`` without ``--reference`` answered "got None".
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from llm_power_verified.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LM_EVAL = [str(path) for path in sorted((FIXTURES / "lm_eval" / "hashlm").glob("model-*"))]
ARITH_MC = [*LM_EVAL, "--task", "arith_mc", "--metric", "acc", "--n-resamples", "0"]


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, re.sub(r"\s+", " ", out.getvalue()), err.getvalue()


def test_the_holm_row_says_its_level_is_conditional_and_names_the_steps_holm_never_reached():
    status, text, _ = _cli(["audit", *ARITH_MC])
    assert status == 0
    # p_exact 0.1354 (model-b vs model-a) then 0.1686: Holm rejects nothing, so step 2 is never reached.
    assert "only if steps 1 to k-1 all reject (conditional" in text
    assert (
        "Holm stopped at step 1 of 2 here, so 1 pair past it (model-c vs model-b) is counted at a level Holm did not "
        "reach" in text
    )


def test_each_procedure_row_says_what_it_counts():
    status, text, _ = _cli(["audit", *ARITH_MC])
    assert status == 0
    assert "anytime-valid (N < N_av) 2" in text and "holm (N < N* at alpha/(m-k+1), step k) 2" in text


def test_the_checklist_names_its_mde_and_only_the_tests_it_ran():
    status, text, _ = _cli(["audit", *ARITH_MC])
    assert status == 0
    assert "delta_MDE: median of the pairs' own MDEs" in text
    assert "(no paired bootstrap: n_resamples = 0)" in text and "mid-p; paired bootstrap" not in text


def test_columns_that_do_not_apply_are_named_with_the_reason():
    status, text, _ = _cli(["audit", *ARITH_MC, "--columns", "boot_ci,p_exact,t,p_t"])
    assert status == 0
    assert (
        "(not shown: boot_ci: only with paired-bootstrap resamples (n_resamples > 0); t, p_t: for graded scores only "
        "(these scores are 0/1))"
    ) in text


def test_one_of_a_kind_is_singular():
    status, text, _ = _cli(["audit", *LM_EVAL[:2], "--task", "arith_mc", "--metric", "acc", "--n-resamples", "0"])
    assert status == 0
    assert "family 'adjacent' of 1 comparison," in text and "(0 BH rejections)" in text
    assert "delta-hat: 1 gap," in text and "The one pair: significant" in text and "0 of 1 pair have q >= 1" in text
    assert "over the 1 adjacent pair" not in text  # a family of one is planned at alpha


def test_an_mde_from_a_plug_in_variance_of_0_is_not_available(tmp_path):
    rng = np.random.default_rng(1)
    first, second = (rng.random(100) < 0.7).astype(int), (rng.random(100) < 0.6).astype(int)
    table = tmp_path / "twins.csv"
    pd.DataFrame({"item": range(100), "model-a": first, "model-a2": first, "model-b": second}).to_csv(
        table, index=False
    )
    status, text, _ = _cli(["audit", str(table), "--item-column", "item", "--mode", "all", "--columns", "delta,mde"])
    assert status == 0
    assert "(MDE n/a: the difference is the same on every item" in text
    assert re.search(r"model-a model-a2 yes 0 n/a ", text) is not None


def test_mode_reference_without_a_reference_names_the_flag():
    status, _, err = _cli(["audit", "--mode", "reference"])
    assert status == 2 and "--mode reference needs --reference NAME" in err and "None" not in err


def test_an_mde_from_a_plug_in_variance_of_0_is_null_in_the_machine_formats(tmp_path):
    # Eq. 4 at a variance of 0 gives 0, which a JSON reader would take as "any gap is detectable": null instead.
    rng = np.random.default_rng(1)
    first, second = (rng.random(100) < 0.7).astype(int), (rng.random(100) < 0.6).astype(int)
    table = tmp_path / "twins.csv"
    pd.DataFrame({"item": range(100), "model-a": first, "model-a2": first, "model-b": second}).to_csv(
        table, index=False
    )
    out = tmp_path / "report.json"
    status, _, _ = _cli(
        [
            "audit",
            str(table),
            "--item-column",
            "item",
            "--mode",
            "all",
            "--n-resamples",
            "0",
            "--format",
            "json",
            "--out",
            str(out),
        ]
    )
    assert status == 0
    rows = {frozenset((row["model_a"], row["model_b"])): row for row in json.loads(out.read_text())["pairs"]}
    assert rows[frozenset(("model-a", "model-a2"))]["mde"] is None
    assert rows[frozenset(("model-a", "model-b"))]["mde"] > 0


def test_an_mde_at_a_constant_difference_of_one_sign_is_not_available(tmp_path):
    # Every item discordant one way (b = N): the plug-in variance (b + c) / N - delta^2 is 0 too, not only when b = c =
    # 0.
    table = tmp_path / "one_way.csv"
    pd.DataFrame({"item": range(50), "model-a": 1, "model-b": 0}).to_csv(table, index=False)
    status, text, _ = _cli(["audit", str(table), "--item-column", "item", "--mode", "all", "--columns", "delta,mde"])
    assert status == 0
    assert "(MDE n/a: the difference is the same on every item" in text
    assert "all discordant one way" in text


def test_design_states_no_mde_at_a_plug_in_variance_of_0():
    for counts in (["--b", "0", "--c", "0"], ["--b", "100", "--c", "0"]):
        status, out, _ = _cli(["design", *counts, "--n", "100", "--json"])
        assert status == 0 and json.loads(out)["mde"] is None


def test_the_holm_note_escapes_the_names_it_lists(tmp_path):
    # Re-attack / hostile corpus: the note naming the pairs past Holm's stop printed names raw.
    rng = np.random.default_rng(0)
    rows = {f"m{k}": (rng.random(60) < 0.7 - 0.05 * k).astype(int) for k in range(2)}
    frame = pd.DataFrame({"item": range(60), "m0": rows["m0"], "a\nb": rows["m1"], "m2": (rng.random(60) < 0.5)})
    table = tmp_path / "names.csv"
    frame.astype({"m2": int}).to_csv(table, index=False)
    for extra in ([], ["--format", "markdown"]):
        status, text, _ = _cli(["audit", str(table), "--item-column", "item", "--n-resamples", "0", *extra])
        assert status == 0 and "a\nb" not in text
