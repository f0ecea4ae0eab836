"""``plan repeats``: items N against generations per item K, from declared variances or a pilot with generations.

What could go wrong, and is checked here: the command planning something else than
:func:`~llm_power_verified.repeats.planning.plan_generations` at the pair's own split (between and within variances
of :func:`~llm_power_verified.repeats.split.pair_split`, the observed gap or the declared one); the costs swapped
(the cheapest K must grow with the cost of an item); pairs other than the adjacent ones of the ranking; a pilot
without generations planned as if it had some; options that would be ignored accepted in silence.  Integers (N, K)
are compared exactly; costs and variances are the same floats computed by the same functions, compared exactly.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json

import numpy as np
import pandas as pd
import pytest

from llm_power_verified.cli import main
from llm_power_verified.io import read_scores
from llm_power_verified.repeats.planning import plan_generations
from llm_power_verified.repeats.split import pair_split


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _refused(argv: list[str]) -> str:
    status, out, err = _cli(argv)
    assert (status, out) == (2, ""), (status, out, err)
    assert err.startswith("llm-power-verified: error: ") and err.count("\n") == 1, err
    return err


def _pilot(path, *, items: int = 120, generations: int = 4, seed: int = 20261124, tie: bool = False) -> str:
    """A long table of 0/1 generations of three models (accuracies apart), one row per (item, model, epoch)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 1.2, items)
    rows = []
    for model, skill in (("strong", 1.0), ("middle", 0.4), ("weak", -0.3)):
        chance = 1 / (1 + np.exp(-(difficulty + skill + rng.normal(0.0, 0.5, items))))
        scores = rng.random((items, generations)) < chance[:, None]
        rows += [
            {"item_id": f"q{item:03d}", "model": model, "epoch": epoch + 1, "score": int(scores[item, epoch])}
            for item in range(items)
            for epoch in range(generations)
        ]
    table = pd.DataFrame(rows)
    if tie:  # a model whose every generation equals the weak one's: its gap and differences are 0
        table = pd.concat([table, table[table["model"] == "weak"].assign(model="twin")], ignore_index=True)
    file = path / "pilot.csv"
    table.to_csv(file, index=False)
    return str(file)


def _json(argv: list[str]) -> dict:
    status, out, err = _cli([*argv, "--json"])
    assert (status, err) == (0, ""), err
    return json.loads(out)


def _same_plan(entry: dict, plan) -> None:
    """The command's pair equals ``plan``: N and K exactly, costs as the same floats."""
    assert entry["best_items"] == plan.best_items and entry["best_generations"] == plan.best_generations
    assert entry["best_cost"] == plan.best_cost
    assert entry["table"] == plan.table.to_dict(orient="records")
    assert entry["derivation"] == "derivations/repeats.py"


def test_declared_variances_plan_exactly_what_plan_generations_plans():
    argv = ["plan", "repeats", "--variances", "0.012", "0.09", "--gap", "0.04", "--k-max", "12"]
    document = _json([*argv, "--cost-item", "3", "--cost-generation", "0.5", "--power", "0.9"])
    plan = plan_generations(0.04, 0.012, 0.09, power=0.9, cost_item=3.0, cost_generation=0.5, k_max=12)
    (entry,) = document["plan"]["pairs"]
    _same_plan(entry, plan)
    assert (entry["gap"], entry["gap_source"], document["plan"]["source"]) == (0.04, "--gap", "declared")
    assert [row["generations"] for row in entry["table"]] == list(range(1, 13))


def test_the_text_names_the_cheapest_plan_the_derivation_and_the_cost_model():
    status, out, err = _cli(["plan", "repeats", "--variances", "0.01", "0.08", "--min-effect", "0.05"])
    assert (status, err) == (0, ""), err
    plan = plan_generations(0.05, 0.01, 0.08)
    assert f"cheapest N = {plan.best_items:,} items x K = {plan.best_generations}" in out
    assert "N(K) and K* derived in derivations/repeats.py" in out
    assert "cost = N x (cost_item + 2 x K x cost_generation)" in out
    table = out.split("N and cost by K:\n", 1)[1].splitlines()
    assert len(table) == 1 + 20 and sum("<- cheapest" in line for line in table) == 1
    assert table[plan.best_generations].split()[:2] == [str(plan.best_generations), f"{plan.best_items:,}"]


def test_dearer_items_buy_more_generations():
    """--cost-item and --cost-generation reach the plan each in its place: K grows with the cost of an item."""
    cheapest = []
    for cost_item in ("0.1", "1", "10", "100"):
        document = _json(["plan", "repeats", "--variances", "0.01", "0.08", "--gap", "0.05", "--cost-item", cost_item])
        cheapest.append(document["plan"]["pairs"][0]["best_generations"])
    assert cheapest == sorted(cheapest) and cheapest[0] < cheapest[-1], cheapest


def test_a_pilot_plans_each_adjacent_pair_at_its_own_split_and_observed_gap(tmp_path):
    pilot = _pilot(tmp_path)
    document = _json(["plan", "repeats", pilot, "--repeat-column", "epoch"])
    matrix = read_scores([pilot], repeat_column="epoch")
    means = dict(zip(matrix.models, matrix.scores.mean(axis=0), strict=True))
    ranked = sorted(means, key=means.get, reverse=True)
    pairs = document["plan"]["pairs"]
    assert [(entry["model_a"], entry["model_b"]) for entry in pairs] == list(itertools.pairwise(ranked))
    index = {name: position for position, name in enumerate(matrix.models)}
    split = pair_split(
        matrix,
        np.array([index[entry["model_a"]] for entry in pairs]),
        np.array([index[entry["model_b"]] for entry in pairs]),
    )
    for position, entry in enumerate(pairs):
        gap = float(means[entry["model_a"]] - means[entry["model_b"]])
        assert (entry["observed_gap"], entry["gap"], entry["gap_source"]) == (gap, gap, "observed")
        between, within = float(split.between_variance[position]), float(split.within_variance[position])
        assert (entry["between_variance"], entry["within_variance"]) == (between, within)
        _same_plan(entry, plan_generations(gap, between, within))
    assert document["plan"]["pilot"] == {"items": 120, "models": 3, "generations": [4, 4], "label": "epoch"}


def test_top_pair_and_min_effect_choose_the_pairs_and_the_gap(tmp_path):
    pilot = _pilot(tmp_path)
    top = _json(["plan", "repeats", pilot, "--repeat-column", "epoch", "--top", "2"])["plan"]["pairs"]
    assert [(entry["model_a"], entry["model_b"]) for entry in top] == [("strong", "middle")]
    (chosen,) = _json(["plan", "repeats", pilot, "--repeat-column", "epoch", "--pair", "weak", "strong"])["plan"][
        "pairs"
    ]
    assert (chosen["model_a"], chosen["model_b"]) == ("weak", "strong")
    assert chosen["observed_gap"] < 0 and chosen["gap"] == -chosen["observed_gap"]  # the size of the gap is planned
    planned = _json(["plan", "repeats", pilot, "--repeat-column", "epoch", "--min-effect", "0.03"])["plan"]["pairs"]
    assert {(entry["gap"], entry["gap_source"]) for entry in planned} == {(0.03, "--min-effect")}
    for entry in planned:
        _same_plan(entry, plan_generations(0.03, entry["between_variance"], entry["within_variance"]))


def test_a_tied_pilot_pair_says_no_n_resolves_it(tmp_path):
    pilot = _pilot(tmp_path, tie=True)
    status, out, err = _cli(["plan", "repeats", pilot, "--repeat-column", "epoch", "--pair", "weak", "twin"])
    assert (status, err) == (0, ""), err
    assert "weak vs twin: gap 0 (observed): tied in the pilot: a gap of 0 is never resolved" in out
    assert "N and cost by K" not in out
    # With a declared gap the twin is planned: its differences are 0, so the between part is minus the within part
    # (the split assumes independent generations), taken as 0 with a note.
    (entry,) = _json(["plan", "repeats", pilot, "--repeat-column", "epoch", "--pair", "weak", "twin", "--gap", "0.1"])[
        "plan"
    ]["pairs"]
    assert entry["gap_variance"] == 0 and entry["between_variance"] == -entry["within_part"] < 0
    assert any("estimated negative, not distinguishable from 0" in note for note in entry["notes"])
    # ... and the plan says that the pilot's item means agree by chance while its generations vary (not in silence).
    assert entry["notes"][0].startswith("the pilot's item-mean differences do not vary (variance 0) although its")


def test_a_pilot_pair_whose_differences_do_not_vary_is_not_planned(tmp_path):
    """Every generation of an item equal, and B equal to A: no variance at all, so nothing to plan."""
    rows = [
        {"item_id": f"q{item}", "model": model, "epoch": epoch, "score": item % 2}
        for item in range(6)
        for model in ("a", "b", "c")
        for epoch in (1, 2)
    ]
    rows += [{"item_id": f"q{item}", "model": "c", "epoch": 3, "score": 1} for item in range(6)]
    pd.DataFrame(rows).to_csv(tmp_path / "flat.csv", index=False)
    options = ["--repeat-column", "epoch", "--pair", "a", "b", "--gap", "0.1"]
    status, out, err = _cli(["plan", "repeats", str(tmp_path / "flat.csv"), *options])
    assert (status, err) == (0, ""), err
    assert "a vs b: gap 0.1 (--gap): the pilot's item differences do not vary: any N resolves any gap" in out


def test_a_pilot_pair_beyond_the_plan_says_why_and_the_others_are_planned(tmp_path):
    """A gap needing more than 10^7 items is not solved exactly (it would take minutes); the command says so."""
    pilot = _pilot(tmp_path)
    status, out, err = _cli(["plan", "repeats", pilot, "--repeat-column", "epoch", "--min-effect", "1e-4"])
    assert (status, err) == (0, ""), err
    assert out.count("items at K = 1 (normal approximation): beyond the 1e+07 items this plan solves") == 2
    assert "N and cost by K" not in out


def test_a_pilot_without_generations_is_refused_naming_the_options_that_read_them(tmp_path):
    one = pd.read_csv(_pilot(tmp_path)).query("epoch == 1").drop(columns="epoch")
    one.to_csv(tmp_path / "one.csv", index=False)
    err = _refused(["plan", "repeats", str(tmp_path / "one.csv")])
    for flag in ("--repeat-column NAME", "--repeat-pattern PATTERN", "--epochs all", "--variances BETWEEN WITHIN"):
        assert flag in err


@pytest.mark.parametrize(
    "options, shown",
    [
        ([], "needs a pilot INPUT... with several generations per item, or --variances BETWEEN WITHIN"),
        (["--variances", "0.01", "0.08"], "--variances needs the gap to resolve: add --gap D or --min-effect DELTA"),
        (["--variances", "0", "0", "--gap", "0.1"], "--variances 0 0: the differences would not vary"),
        (["--variances", "-0.1", "0.08", "--gap", "0.1"], "argument --variances: must be a finite number in [0, 1]"),
        (["--variances", "0.1", "nan", "--gap", "0.1"], "argument --variances: must be a finite number in [0, 1]"),
        (["--variances", "0.1", "0.1", "--gap", "0"], "argument --gap: must be a finite number in [1.11022e-16, 1]"),
        (["--variances", "0.1", "0.1", "--gap", "0.1", "--min-effect", "0.1"], "not allowed with argument --gap"),
        (["--variances", "0.1", "0.1", "--gap", "0.1", "--k-max", "0"], "argument --k-max: must be a whole number"),
        (["--variances", "0.1", "0.1", "--gap", "0.1", "--k-max", "1001"], "in [1, 1,000]; got 1001"),
        (["--variances", "0.1", "0.1", "--gap", "0.1", "--cost-item", "0"], "argument --cost-item: must be a finite"),
        (["--variances", "0.1", "0.1", "--gap", "0.1", "--cost-generation", "inf"], "--cost-generation: must be"),
        (["--variances", "0.1", "0.1", "--gap", "0.1", "--top", "3"], "--top chooses a pilot's pairs"),
        (["--variances", "0.1", "0.1", "--gap", "0.1", "--pair", "a", "b"], "--pair chooses a pilot's pairs"),
        (["--variances", "0.1", "0.1", "--gap", "0.1", "--scores", "graded"], "--scores reads a pilot INPUT"),
        (["--variances", "0.1", "0.1", "--gap", "0.1", "--repeat-column", "epoch"], "--repeat-column reads a pilot"),
        (["x.csv", "--variances", "0.1", "0.1", "--gap", "0.1"], "give a pilot INPUT or --variances, not both"),
        (["--variances", "1", "1", "--gap", "1e-6"], "--gap 1e-06 at --variances 1 1: about 1.57e+13 items at K = 1"),
        (["--variances", "0", "1e-300", "--gap", "1"], "10^8 standard deviations of an item's difference: two items"),
        (["x.csv", "--top", "2", "--pair", "a", "b"], "argument --pair: not allowed with argument --top"),
    ],
)
def test_refusals_are_one_line_naming_the_option(options, shown):
    assert shown in _refused(["plan", "repeats", *options])


@pytest.mark.parametrize(
    "options, shown",
    [
        (["--top", "4"], "--top 4: INPUT has 3 models; give --top 3 or fewer"),
        (["--pair", "strong", "nobody"], "--pair: model 'nobody' is not in INPUT (its models: "),
        (["--pair", "weak", "weak"], "--pair 'weak' 'weak': name two different models"),
    ],
)
def test_a_pilot_s_pairs_are_checked_against_its_models(tmp_path, options, shown):
    assert shown in _refused(["plan", "repeats", _pilot(tmp_path), "--repeat-column", "epoch", *options])


def test_a_pilot_is_planned_at_the_split_and_gap_the_audit_reports(tmp_path):
    """plan repeats and audit read the pilot alike: each adjacent pair's gap and variances are the audit's.

    Exactly: both put the matrix in canonical order and compute the same sums in the same order.
    """
    pilot = _pilot(tmp_path)
    status, out, err = _cli(["audit", pilot, "--repeat-column", "epoch", "--format", "json", "--n-resamples", "0"])
    assert (status, err) == (0, ""), err
    audited = {(pair["model_a"], pair["model_b"]): pair for pair in json.loads(out)["pairs"]}
    planned = _json(["plan", "repeats", pilot, "--repeat-column", "epoch"])["plan"]["pairs"]
    assert len(planned) == 2
    for entry in planned:
        pair = audited[(entry["model_a"], entry["model_b"])]
        assert entry["gap"] == pair["delta"]
        assert entry["between_variance"] == pair["gap_between_variance"]
        assert entry["within_variance"] == pair["gap_within_variance"]


def _tied_pilot(path) -> str:
    """Two models with 10 of 30 item means' worth of correct generations each, summed differently as floats.

    "zeta" gets 1 of 3 on every item (30 item means of 1/3, whose float mean is 1 ulp above 1/3), "alpha" 3 of 3 on
    10 items (a float mean of 1/3 to the last bit), "mid" 2 of 3 on 9 items: an exact tie is ordered by name.
    """
    rows = []
    for item in range(30):
        correct = {"zeta": 1, "alpha": 3 if item < 10 else 0, "mid": 2 if item < 9 else 0}
        rows += [
            {"item_id": f"q{item:02d}", "model": model, "epoch": epoch, "score": int(epoch < count)}
            for model, count in correct.items()
            for epoch in range(3)
        ]
    file = path / "tied.csv"
    pd.DataFrame(rows).to_csv(file, index=False)
    return str(file)


def test_an_exact_tie_is_a_gap_of_0_and_the_pairs_are_the_audit_s(tmp_path):
    pilot = _tied_pilot(tmp_path)
    status, out, err = _cli(["audit", pilot, "--repeat-column", "epoch", "--format", "json", "--n-resamples", "0"])
    assert (status, err) == (0, ""), err
    audited = [(pair["model_a"], pair["model_b"]) for pair in json.loads(out)["pairs"] if pair["adjacent"]]
    pairs = _json(["plan", "repeats", pilot, "--repeat-column", "epoch"])["plan"]["pairs"]
    assert [(entry["model_a"], entry["model_b"]) for entry in pairs] == audited == [("alpha", "zeta"), ("zeta", "mid")]
    assert pairs[0]["observed_gap"] == 0 and pairs[0]["skipped"].startswith("tied in the pilot")


def test_a_pilot_of_two_items_is_refused_and_one_under_ten_items_is_caveated(tmp_path):
    (tmp_path / "two").mkdir()
    refusal = _refused(["plan", "repeats", _pilot(tmp_path / "two", items=2), "--repeat-column", "epoch"])
    assert "the pilot has 2 items" in refusal and "1 degree of freedom" in refusal and "at least 3 items" in refusal
    (tmp_path / "one").mkdir()
    refusal = _refused(["plan", "repeats", _pilot(tmp_path / "one", items=1), "--repeat-column", "epoch"])
    assert "the pilot has 1 item, so no variance across items to plan on: a pilot needs at least 3 items" in refusal
    status, out, err = _cli(["plan", "repeats", _pilot(tmp_path, items=6), "--repeat-column", "epoch"])
    assert (status, err) == (0, ""), err
    # chi-square 95% interval on 5 degrees of freedom: 5 / qchisq(0.975, 5) = 0.3896, 5 / qchisq(0.025, 5) = 6.015
    assert "note: the pilot has only 6 items: its variances rest on 5 degrees of freedom" in out
    assert "0.39 to 6.02 times the estimates" in out
    status, out, err = _cli(["plan", "repeats", _pilot(tmp_path, items=10), "--repeat-column", "epoch"])
    assert (status, err) == (0, "") and "the pilot has only" not in out


def test_k_star_is_said_below_one_and_not_estimable_under_a_negative_between_part():
    status, out, err = _cli(["plan", "repeats", "--variances", "0.5", "0.01", "--gap", "0.1", "--k-max", "3"])
    assert (status, err) == (0, ""), err
    assert "K* = 0.1 < 1: one generation per item" in out and "K* = 0;" not in out
    # The table's lines end at their last cell (no padding after the power column of the rows without a mark).
    table = out.split("N and cost by K:\n", 1)[1].splitlines()[:4]
    assert table[0].split() == ["K", "items", "N", "cost", "power"] and not any(line.endswith(" ") for line in table)


def test_a_pilot_pair_with_a_negative_between_part_says_k_star_is_not_estimable(tmp_path):
    """A pilot whose model differences are pure generation noise: the between part is estimated below 0."""
    rng = np.random.default_rng(7)
    rows = [
        {"item_id": f"q{item}", "model": model, "epoch": epoch, "score": int(rng.random() < 0.5)}
        for item in range(40)
        for model in ("a", "b")
        for epoch in range(2)
    ]
    pilot = tmp_path / "noise.csv"
    pd.DataFrame(rows).to_csv(pilot, index=False)
    document = _json(["plan", "repeats", str(pilot), "--repeat-column", "epoch", "--gap", "0.1"])
    (entry,) = document["plan"]["pairs"]
    assert entry["between_variance"] < 0, entry  # seed 7 draws a negative estimate (checked here, not assumed)
    status, out, err = _cli(["plan", "repeats", str(pilot), "--repeat-column", "epoch", "--gap", "0.1"])
    assert (status, err) == (0, ""), err
    assert "K* not estimable (the between part is estimated negative, not distinguishable from 0" in out
    assert "K* = inf" not in out and "a pilot with more items tells" in out
