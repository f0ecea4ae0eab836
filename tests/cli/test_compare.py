"""``llm-power-verified compare`` on real pairs: pass, fail and inconclusive with exit codes 0, 1 and 3.

The pairs (each found by running the command; d = candidate - baseline, N items, the 90% interval):

* genuine MMLU-Pro results (tests/fixtures/mmlu_pro_tiger, TIGER-AI-Lab's published outputs, N = 12,032),
  non-inferiority at m = 0.01: Meta-Llama-3_1-70B vs Meta-Llama-3-70B, d = +0.0046, [-0.0017, +0.0108]: pass;
  Meta-Llama-3-8B vs Meta-Llama-3_1-8B, d = -0.0232, [-0.0298, -0.0166]: fail; Mistral-7B-v0.2-hf vs
  Mistral-7B-v0.1, d = -0.0060, [-0.0122, +0.0002]: inconclusive;
* the shipped example (no INPUT), superiority: calme-3.1-78b vs calme-3.2-78b, [-0.0145, -0.0092]: fail;
  QwentileSwap vs Qwen2.5-72B, [-0.0090, +0.0045]: inconclusive; the same at non-inferiority 0.01: pass;
* lm-eval folders and Inspect logs (tests/fixtures, N = 200), superiority: model-c vs model-a,
  [+0.061, +0.198]: pass; model-a vs model-c: fail; model-b vs model-a, [-0.002, +0.141]: inconclusive.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from llm_power_verified.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TIGER = [str(FIXTURES / "mmlu_pro_tiger" / "scores.csv.gz"), "--cluster-column", "category"]
HASHLM = [str(FIXTURES / "lm_eval" / "hashlm" / name) for name in ("model-a", "model-b", "model-c")]
LM_EVAL = [*HASHLM, "--task", "arith_mc", "--metric", "acc"]
INSPECT = sorted(str(path) for path in (FIXTURES / "inspect" / "eval").glob("*.eval"))
SCHEMA = json.loads((resources.files("llm_power_verified") / "report" / "compare.schema.json").read_text())


def _compare(capsys, *arguments: str) -> tuple[int, str, str]:
    status = main(["compare", *arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    ("baseline", "candidate", "verdict", "status"),
    [
        ("Meta-Llama-3-70B", "Meta-Llama-3_1-70B", "pass", 0),
        ("Meta-Llama-3_1-8B", "Meta-Llama-3-8B", "fail", 1),
        ("Mistral-7B-v0.1", "Mistral-7B-v0.2-hf", "inconclusive", 3),
    ],
)
def test_genuine_mmlu_pro_pairs_give_each_verdict(capsys, baseline, candidate, verdict, status):
    options = ["--baseline", baseline, "--candidate", candidate, "--test", "non-inferiority", "--margin", "0.01"]
    code, out, err = _compare(capsys, *TIGER, *options, "--json")
    document = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(document)
    assert (code, document["verdict"], document["exit_code"]) == (status, verdict, status)
    assert document["n_items"] == 12032 and document["inputs"] == TIGER[:1] and err == ""
    assert document["confidence"] == pytest.approx(0.9, abs=1e-15)  # 1 - 2 alpha
    code, out, _ = _compare(capsys, *TIGER, *options)
    assert (
        code == status and f"verdict     {verdict.upper()}: " in out and out.rstrip().endswith(f"exit status {status}")
    )


def test_the_inconclusive_report_gives_the_power_and_the_n_that_would_decide(capsys):
    options = ["--baseline", "Mistral-7B-v0.1", "--candidate", "Mistral-7B-v0.2-hf", "--test", "non-inferiority"]
    code, out, _ = _compare(capsys, *TIGER, *options, "--margin", "0.01")
    assert code == 3
    line = next(line for line in out.splitlines() if line.startswith("to decide"))
    assert "the observed gap points to pass" in line and "power 0.8 needs N = " in line


@pytest.mark.parametrize(
    ("arguments", "status"),
    [
        (["--baseline", "calme-3.2-78b", "--candidate", "calme-3.1-78b"], 1),
        (["--baseline", "Qwen2.5-72B", "--candidate", "QwentileSwap"], 3),
        (
            [
                "--baseline",
                "Qwen2.5-72B",
                "--candidate",
                "QwentileSwap",
                "--test",
                "non-inferiority",
                "--margin",
                "0.01",
            ],
            0,
        ),
    ],
)
def test_the_shipped_example_gives_each_exit_code(capsys, arguments, status):
    code, out, err = _compare(capsys, *arguments)
    assert code == status and "no INPUT given" in err
    assert "clusters: " in out and "design effect" in out and "treats the items as independent" in out


@pytest.mark.parametrize("inputs", [LM_EVAL, INSPECT], ids=["lm-eval", "inspect"])
def test_harness_outputs_give_each_exit_code(capsys, inputs):
    prefix = "mockllm/" if inputs is INSPECT else ""
    for baseline, candidate, status in (
        ("model-a", "model-c", 0),
        ("model-c", "model-a", 1),
        ("model-a", "model-b", 3),
    ):
        code, out, _ = _compare(capsys, *inputs, "--baseline", prefix + baseline, "--candidate", prefix + candidate)
        assert code == status, out


def test_two_score_files_one_model_each(capsys, tmp_path):
    rows = [line.split(",") for line in _tiger_lines()]
    header = rows[0]
    for name in ("Meta-Llama-3_1-8B", "Meta-Llama-3-8B"):
        column = header.index(name)
        (tmp_path / f"{name}.txt").write_text("\n".join(row[column] for row in rows[1:]) + "\n")
    base, cand = (str(tmp_path / f"{name}.txt") for name in ("Meta-Llama-3_1-8B", "Meta-Llama-3-8B"))
    code, out, _ = _compare(capsys, base, cand, "--baseline", base, "--candidate", cand, "--json")
    document = json.loads(out)
    assert code == 1 and document["verdict"] == "fail" and document["inputs"] == [base, cand]
    assert (document["candidate_only"], document["n_items"]) != (None, 0)
    # The same items as in the table: the same counts as the table's pair.
    code, out, _ = _compare(
        capsys, *TIGER, "--baseline", "Meta-Llama-3_1-8B", "--candidate", "Meta-Llama-3-8B", "--json"
    )
    table = json.loads(out)
    assert [table[key] for key in ("both_correct", "candidate_only", "baseline_only", "both_wrong")] == [
        document[key] for key in ("both_correct", "candidate_only", "baseline_only", "both_wrong")
    ]


def _tiger_lines() -> list[str]:
    import gzip

    with gzip.open(TIGER[0], "rt", encoding="utf-8") as stream:
        return stream.read().splitlines()


@pytest.mark.parametrize(("mapped", "status"), [("pass", 0), ("fail", 1)])
def test_inconclusive_maps_to_pass_or_fail(capsys, mapped, status):
    options = ["--baseline", "model-a", "--candidate", "model-b", "--inconclusive", mapped]
    code, out, _ = _compare(capsys, *LM_EVAL, *options)
    assert code == status and out.rstrip().endswith(f"exit status {status} (inconclusive mapped to {mapped})")
    code, out, _ = _compare(capsys, *LM_EVAL, *options, "--json")
    document = json.loads(out)
    assert (code, document["verdict"], document["inconclusive_as"], document["exit_code"]) == (
        status,
        "inconclusive",
        mapped,
        status,
    )
    # A decided verdict is never mapped.
    code, _, _ = _compare(capsys, *LM_EVAL, "--baseline", "model-c", "--candidate", "model-a", "--inconclusive", "pass")
    assert code == 1


def test_markdown_and_out(capsys, tmp_path):
    options = ["--baseline", "model-c", "--candidate", "model-a"]
    code, out, _ = _compare(capsys, *LM_EVAL, *options, "--format", "markdown")
    assert code == 1 and out.startswith("## compare: fail\n") and "| verdict | FAIL: shown that" in out
    target = tmp_path / "verdict.json"
    code, out, _ = _compare(capsys, *LM_EVAL, *options, "--json", "--out", str(target))
    assert code == 1 and out.splitlines()[0] == f"wrote {target}" and "FAIL" in out
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(target.read_text()))


def test_anytime_reports_the_item_that_decided(capsys):
    code, out, _ = _compare(
        capsys,
        *TIGER,
        "--baseline",
        "Meta-Llama-3_1-70B-Instruct",
        "--candidate",
        "Meta-Llama-3_1-70B",
        "--anytime",
        "--json",
    )
    document = json.loads(out)
    assert code == 1 and document["method"] == "betting" and document["confidence"] == 0.95
    assert 1 <= document["decided_at"] < 12032 and document["p_low"] is None


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        (
            ["--baseline", "model-x", "--candidate", "model-a"],
            "--baseline 'model-x' is no model of the input; it holds 3",
        ),
        (["--baseline", "model-a", "--candidate", "model-a"], "both name 'model-a'"),
        (["--baseline", "model-a", "--candidate", "model-b", "--test", "equivalence"], "needs --margin m > 0"),
        (["--baseline", "model-a", "--candidate", "model-b", "--test", "equivalence", "--margin", "0"], "--margin 0.0"),
        (["--baseline", "model-a", "--candidate", "model-b", "--seed", "3"], "--seed applies to --method bootstrap"),
        (["--baseline", "model-a", "--candidate", "model-b", "--method", "t"], "does not apply to binary scores"),
        (["--baseline", "model-a", "--candidate", "model-b", "--anytime", "--method", "score"], "leave --method out"),
        (["--baseline", "model-a", "--candidate", "model-b", "--alpha", "0.5"], "--alpha 0.5 must lie in (0, 0.5)"),
        (["--baseline", "model-a", "--candidate", "model-b", "--margin", "1"], "--margin"),
        (["--baseline", "model-a", "--candidate", "model-b", "--out", "v.json"], "--format json"),
        (["--baseline", "model-a"], "--candidate"),
        (["--baseline", "model-a", "--candidate", "model-b", "--method", "cluster"], "needs the items' clusters"),
    ],
)
def test_errors_exit_2_with_one_line(capsys, arguments, fragment):
    code, out, err = _compare(capsys, *LM_EVAL, *arguments)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("llm-power-verified: error: ") and fragment in lines[0], err


def test_a_missing_input_exits_2(capsys, tmp_path):
    code, _, err = _compare(capsys, str(tmp_path / "none.csv"), "--baseline", "a", "--candidate", "b")
    assert code == 2 and "no such file" in err and len(err.strip().splitlines()) == 1


def test_the_guide_quotes_what_the_command_prints(capsys):
    """Every line of the ``text`` excerpts of docs/source/guide/compare.rst is a line one of its three pairs prints."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "source" / "guide" / "compare.rst").read_text()
    excerpts = [
        [line.strip() for line in block.splitlines() if line.strip()]
        for block in page.split(".. code-block:: text")[1:]
        for block in [block.split("\n\n", 2)[1]]
    ]
    assert len(excerpts) == 3
    printed = set()
    for baseline, candidate in (
        ("Meta-Llama-3-70B", "Meta-Llama-3_1-70B"),
        ("Meta-Llama-3_1-8B", "Meta-Llama-3-8B"),
        ("Mistral-7B-v0.1", "Mistral-7B-v0.2-hf"),
    ):
        options = ["--baseline", baseline, "--candidate", candidate, "--test", "non-inferiority", "--margin", "0.01"]
        printed |= {line.strip() for line in _compare(capsys, *TIGER, *options)[1].splitlines()}
    missing = [line for excerpt in excerpts for line in excerpt if line not in printed]
    assert missing == []


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "source" / "guide" / "compare.rst"


def test_compare_anytime_and_monitor_decide_where_the_guide_says_and_the_guide_names_the_procedure(capsys):
    """The guide's figures: monitor's discordant-pair e-process crosses 1/alpha before compare --anytime decides."""
    from llm_power_verified.comparison import pair_scores
    from llm_power_verified.io import read_scores
    from llm_power_verified.sequential.e_process import e_process

    matrix = read_scores(TIGER[0], cluster_column="category")
    candidate, baseline = pair_scores(matrix, "Meta-Llama-3_1-8B", "Meta-Llama-3-8B")
    crossing = int(np.argmax(np.asarray(e_process(candidate, baseline).log_e) >= np.log(20))) + 1
    options = ["--baseline", "Meta-Llama-3_1-8B", "--candidate", "Meta-Llama-3-8B", "--anytime", "--json"]
    code, out, _ = _compare(capsys, *TIGER, *options)
    decided = json.loads(out)["decided_at"]
    assert (code, crossing, decided) == (1, 4915, 8764) and crossing < decided
    page = " ".join(GUIDE.read_text().split())
    assert f"crosses 1/alpha = 20 at item {crossing:,}" in page and f"fails at item {decided:,}" in page
    assert "hedged betting capital of :doc:`monitoring`" not in page  # monitor bets on graded scores only
    assert "mixture e-process on the discordant pairs" in page
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "hedged betting confidence sequence" in help_text and "can decide earlier" in help_text


@pytest.mark.parametrize(
    ("baseline", "candidate", "effect", "verdict", "interval"),
    [
        ("Meta-Llama-3-70B", "Meta-Llama-3_1-70B", "4.38", "inconclusive", "[-0.0102, +0.0193]"),
        ("Meta-Llama-3_1-8B", "Meta-Llama-3-8B", "2.38", "fail", "[-0.0345, -0.0119]"),
    ],
)
def test_the_guide_quotes_the_design_effects_and_the_cluster_robust_intervals(
    capsys, baseline, candidate, effect, verdict, interval
):
    options = ["--baseline", baseline, "--candidate", candidate, "--test", "non-inferiority", "--margin", "0.01"]
    _, out, _ = _compare(capsys, *TIGER, *options)
    assert f"design effect {effect} " in out and "treats the items as independent" in out
    code, out, _ = _compare(capsys, *TIGER, *options, "--method", "cluster")
    assert f"interval    {interval} at 90% (cluster-robust t interval)" in out
    assert f"verdict     {verdict.upper()}" in out and code == {"fail": 1, "inconclusive": 3}[verdict]
    page = " ".join(GUIDE.read_text().split())
    assert "design effects are 4.38" in page and interval in page


def test_out_that_is_an_input_is_refused_before_any_work(capsys, tmp_path):
    """--out naming an input is refused and the input is left as it was (it was overwritten by the report)."""
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("1\n0\n1\n1\n" * 25)
    second.write_text("0\n0\n1\n1\n" * 25)
    before = first.read_bytes()
    arguments = [str(first), str(second), "--baseline", str(first), "--candidate", str(second), "--out", str(first)]
    code, out, err = _compare(capsys, *arguments)
    assert code == 2 and out == "" and "would overwrite an input" in err and len(err.strip().splitlines()) == 1
    assert first.read_bytes() == before


def test_anytime_refuses_a_sequence_that_contradicts_itself(capsys, tmp_path):
    """Items sorted so that the running intersection empties: one line naming --anytime and the item, not a check."""
    rows = ["item,A,B"] + [f"{index},1,{0 if index < 50 else 1}" for index in range(200)]
    (tmp_path / "sorted.csv").write_text("\n".join(rows) + "\n")
    code, out, err = _compare(
        capsys,
        str(tmp_path / "sorted.csv"),
        "--item-column",
        "item",
        "--baseline",
        "A",
        "--candidate",
        "B",
        "--anytime",
    )
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--anytime: the confidence sequence contradicts itself at item" in err and "not random" in err
    # Without --anytime the same items give a verdict (the fixed-N interval does not depend on their order).
    arguments = [str(tmp_path / "sorted.csv"), "--item-column", "item", "--baseline", "A", "--candidate", "B"]
    code, out, err = _compare(capsys, *arguments)
    assert code in (0, 1, 3) and err == ""
