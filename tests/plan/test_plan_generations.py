"""Plans from an audit whose items are means of several generations say at how many generations per item they hold.

What could go wrong, and is checked here: ``plan items`` on repeated data, or ``plan report`` on a saved report of
it, printing an N that holds only at the data's generations per item without saying so (or without pointing at
``plan repeats``, which trades items against generations); a damaged ``generations`` summary planned from in silence;
the note appearing on an audit with one score per item.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

import llm_power_verified as lpv
from llm_power_verified.cli import main
from llm_power_verified.examples import shipped_example
from llm_power_verified.io import read_scores
from llm_power_verified.leaderboard.audit import audit_leaderboard
from llm_power_verified.plan.figures import AuditFigures

EPOCHS = sorted(str(path) for path in (Path(__file__).parents[1] / "fixtures" / "inspect_epochs5").glob("*.eval"))
NOTE = "every N here holds at 5 epochs per item (each item scored by the mean of its epochs, as in the data)"


def _cli(arguments: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(part) for part in arguments])
    return status, out.getvalue(), err.getvalue()


def _planned(arguments: list[str]) -> str:
    status, out, err = _cli(arguments)
    assert (status, err) == (0, ""), err
    return out


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    """The audit JSON report of the five-epoch Inspect logs."""
    out = _planned(["audit", *EPOCHS, "--epochs", "all", "--format", "json", "--n-resamples", "0"])
    path = tmp_path_factory.mktemp("epochs") / "report.json"
    path.write_text(out)
    return path


def test_the_fixture_has_five_epochs_per_item():
    assert len(EPOCHS) >= 2
    assert read_scores(EPOCHS, epochs="all").generations.count_range == (5, 5)


def test_plan_items_says_its_n_holds_at_the_data_s_generations(saved):
    out = _planned(["plan", "items", *EPOCHS, "--epochs", "all"])
    assert "benchmark now: 100 items, 5 epochs per item" in out
    assert f"note: {NOTE}" in out and "llm-power-verified plan repeats" in out
    document = json.loads(_planned(["plan", "items", *EPOCHS, "--epochs", "all", "--json"]))
    assert any(note.startswith(NOTE) for note in document["plan"]["notes"])
    # The saved report of the same audit plans the same N and says the same.
    report = _planned(["plan", "report", saved])
    assert "benchmark now: 100 items, 5 epochs per item" in report and f"note: {NOTE}" in report
    same = [line for line in out.splitlines() if line.startswith("  at the observed rho-hat")]
    assert same and same == [line for line in report.splitlines() if line.startswith("  at the observed rho-hat")]


def test_audit_figures_carry_the_generations_read():
    audit = audit_leaderboard(read_scores(EPOCHS, epochs="all"), "adjacent", n_resamples=0, n_cluster_resamples=0)
    assert AuditFigures.of(audit).generations == ("epoch", 5, 5)
    plain = audit_leaderboard(shipped_example(), "adjacent", n_resamples=0, n_cluster_resamples=0)
    assert AuditFigures.of(plain).generations is None


def test_a_plan_of_one_score_per_item_has_no_generations_note():
    out = _planned(
        [
            "plan",
            "items",
            Path(lpv.__file__).parent / "data" / "mmlu_pro_top10.csv.gz",
            "--cluster-column",
            "random_category",
        ]
    )
    assert "per item" not in out.split("\n", 2)[1] and "plan repeats" not in out


@pytest.mark.parametrize(
    ("change", "shown"),
    [
        ({"count_low": 1}, "generations.count_low 1 is not a count of generations (>= 2)"),
        ({"count_high": "5"}, "generations.count_high '5' is not a count of generations"),
        ({"count_low": 6}, "generations.count_low 6 exceeds count_high 5"),
        ({"label": ""}, "generations.label '' is not what one generation is called"),
        (None, "generations must be an object"),
    ],
)
def test_a_damaged_generations_summary_is_refused_naming_the_key(saved, tmp_path, change, shown):
    document = json.loads(saved.read_text())
    document["generations"] = [] if change is None else {**document["generations"], **change}
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(document))
    status, out, err = _cli(["plan", "report", damaged])
    assert (status, out) == (2, "") and err.count("\n") == 1, err
    assert str(damaged) in err and shown in err and "write it again with llm-power-verified audit" in err
