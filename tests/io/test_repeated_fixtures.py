"""Genuine repeated outputs are read with every generation kept and decomposed as the raw records say.

Two fixtures (``tests/fixtures/PROVENANCE.md``): Inspect logs of three stand-in models with 5 epochs on 100
items (``inspect_epochs5/``), and tau-bench's published gpt-4o airline trajectories reduced to one row per
(task, trial) (``tau_bench/trials.csv.gz``, 50 tasks x 4 trials; one model only, so it is read as an A/A pair of
its trials 0-1 against 2-3).  Each is read twice: record by record with the standard library and pandas (the
truth), and through :func:`read_scores` with ``epochs="all"`` or ``repeat_column="trial"``; the per-cell counts,
item means and within-item variances, and the within/between split of :mod:`llm_power_verified.repeats.split`,
must equal a direct pandas computation on the raw records.
"""

from __future__ import annotations

import gzip
import io
import json
import shlex
import subprocess
import sys
import zipfile
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from crosscheck.build_tau_bench_repeats import build, reduce_runs
from llm_power_verified import audit_leaderboard
from llm_power_verified.cli import main
from llm_power_verified.io import read_scores
from llm_power_verified.io.errors import AlignmentError
from llm_power_verified.io.zip_members import read_zip_member
from llm_power_verified.repeats.split import model_split, pair_split
from tests.cli.test_readme import Block, _quoted_in_order, _rst_blocks

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EPOCH_LOGS = sorted((FIXTURES / "inspect_epochs5").glob("*.eval"))
TRIALS = FIXTURES / "tau_bench" / "trials.csv.gz"

# The split is a handful of means and variances of at most a few hundred numbers of size <= 1, and q(K') a quotient
# of them with two normal quantiles, computed by two routes in a different order; their rounding differs by a few
# ulps, far below 1e-12 relative.
RELATIVE = 1e-12


def _inspect_records() -> pd.DataFrame:
    """One row per (model, item, epoch) of the 5-epoch logs, read member by member (not through the reader)."""
    rows = []
    for path in EPOCH_LOGS:
        with zipfile.ZipFile(path) as archive:
            model = json.loads(read_zip_member(archive, path, "header.json"))["eval"]["model"]
            for name in archive.namelist():
                if name.startswith("samples/"):
                    record = json.loads(read_zip_member(archive, path, name))
                    value = {"C": 1.0, "I": 0.0}[record["scores"]["choice"]["value"]]
                    rows.append((str(record["id"]), model, record["epoch"], value))
    return pd.DataFrame(rows, columns=["item", "model", "repeat", "score"])


def _trial_records() -> pd.DataFrame:
    with gzip.open(TRIALS, "rt") as handle:
        frame = pd.read_csv(handle, dtype={"item_id": str, "model": str})
    return frame.rename(columns={"item_id": "item", "trial": "repeat", "reward": "score"})


def _direct_split(records: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (model, item) count, mean and sample variance, and per model the method-of-moments split."""
    grouped = records.groupby(["model", "item"])["score"]
    cells = pd.DataFrame({"count": grouped.size(), "mean": grouped.mean(), "variance": grouped.var(ddof=1)})
    per_model = {}
    for model, cell in cells.groupby(level="model"):
        within_part = (cell["variance"] / cell["count"]).mean()
        item_mean_variance = cell["mean"].var(ddof=1)
        per_model[model] = {
            "within_variance": cell["variance"].mean(),
            "within_part": within_part,
            "item_mean_variance": item_mean_variance,
            "between_variance": item_mean_variance - within_part,
            "generation_share": within_part / item_mean_variance,
        }
    return cells, pd.DataFrame(per_model).T


def _check_matrix(matrix, cells: pd.DataFrame) -> None:
    """The matrix's item means, counts and within variances are the raw cells' (exact for the counts)."""
    generations = matrix.generations
    assert generations is not None and generations.binary and not matrix.binary
    for column, model in enumerate(matrix.models):
        cell = cells.loc[model].loc[list(matrix.item_ids)]
        assert np.array_equal(generations.counts[:, column], cell["count"].to_numpy())
        np.testing.assert_allclose(matrix.scores[:, column], cell["mean"].to_numpy(), rtol=RELATIVE, atol=0)
        np.testing.assert_allclose(generations.within[:, column], cell["variance"].to_numpy(), rtol=RELATIVE, atol=0)


def _check_split(matrix, expected: pd.DataFrame) -> None:
    split = model_split(matrix)
    for name in ("within_variance", "within_part", "item_mean_variance", "between_variance", "generation_share"):
        got = getattr(split, name)
        want = expected.loc[list(matrix.models), name].to_numpy(dtype=float)
        np.testing.assert_allclose(got, want, rtol=RELATIVE, atol=0, err_msg=name)


# --------------------------------------------------------------------------- Inspect: 3 models x 100 items x 5 epochs
def test_inspect_epochs_fixture_holds_what_its_provenance_says():
    records = _inspect_records()
    assert len(EPOCH_LOGS) == 3 and len(records) == 3 * 100 * 5
    assert not records.duplicated(["model", "item", "repeat"]).any()
    counts = records.groupby(["model", "item"]).size()
    assert set(counts) == {5} and len(counts) == 300
    assert set(records["repeat"]) == {1, 2, 3, 4, 5}
    correct = records.groupby("model")["score"].sum().to_dict()
    assert correct == {"mockllm/model-a": 262, "mockllm/model-b": 264, "mockllm/model-c": 295}
    # the epochs of one item really disagree, and the items really differ (both parts of the noise are there)
    cells, split = _direct_split(records)
    assert (cells["variance"] > 0).mean() > 0.5 and (cells["mean"].isin([0.0, 1.0])).any()
    assert (split["between_variance"] > 0).all() and (split["within_variance"] > 0).all()


def test_inspect_epochs_all_reads_every_epoch_and_splits_as_the_raw_records():
    records = _inspect_records()
    cells, expected = _direct_split(records)
    matrix = read_scores([str(path) for path in EPOCH_LOGS], epochs="all")
    assert sorted(matrix.models) == sorted(expected.index) and len(matrix.item_ids) == 100
    assert matrix.generations.label == "epoch" and matrix.generations.count_range == (5, 5)
    _check_matrix(matrix, cells)
    _check_split(matrix, expected)
    # per pair: the variance of the item-level differences and the sum of the two within parts
    means = cells["mean"].unstack("model").loc[list(matrix.item_ids)]
    first, second = zip(*combinations(range(len(matrix.models)), 2), strict=True)
    pairs = pair_split(matrix, np.array(first), np.array(second))
    for index, (a, b) in enumerate(zip(first, second, strict=True)):
        model_a, model_b = matrix.models[a], matrix.models[b]
        gap_variance = (means[model_a] - means[model_b]).var(ddof=1)
        within_part = expected.loc[model_a, "within_part"] + expected.loc[model_b, "within_part"]
        within = expected.loc[model_a, "within_variance"] + expected.loc[model_b, "within_variance"]
        np.testing.assert_allclose(pairs.gap_variance[index], gap_variance, rtol=RELATIVE, atol=0)
        np.testing.assert_allclose(pairs.within_part[index], within_part, rtol=RELATIVE, atol=0)
        np.testing.assert_allclose(pairs.within_variance[index], within, rtol=RELATIVE, atol=0)
        np.testing.assert_allclose(pairs.between_variance[index], gap_variance - within_part, rtol=RELATIVE, atol=1e-15)
        np.testing.assert_allclose(pairs.generation_share[index], within_part / gap_variance, rtol=RELATIVE, atol=0)


def test_inspect_epochs_first_and_mean_agree_with_the_kept_epochs():
    """The old readings are the first epoch and the item means of the new one."""
    paths = [str(path) for path in EPOCH_LOGS]
    every = read_scores(paths, epochs="all")
    mean = read_scores(paths, epochs="mean")
    assert mean.generations is None and list(mean.item_ids) == list(every.item_ids)
    # 0.2-steps averaged over 5 epochs: both readers sum five 0/1 values and divide by 5, so equal up to rounding.
    np.testing.assert_allclose(mean.scores, every.scores, rtol=0, atol=1e-15)


def test_the_audit_of_the_epochs_fixture_reports_the_split_of_the_raw_records():
    """The audit's ranking and pair columns on the genuine run: the direct split, and q(K') from its formula."""
    records = _inspect_records()
    cells, expected = _direct_split(records)
    result = audit_leaderboard(read_scores([str(path) for path in EPOCH_LOGS], epochs="all"), mode="all", seed=0)
    ranking = result.ranking.set_index("model")
    assert set(ranking["generations"]) == {5}
    for name in ("within_variance", "between_variance", "generation_share"):
        got = ranking.loc[expected.index, name].to_numpy(dtype=float)
        np.testing.assert_allclose(got, expected[name].to_numpy(dtype=float), rtol=RELATIVE, atol=0, err_msg=name)
    means = cells["mean"].unstack("model")
    z_sum = norm.ppf(1 - 0.05 / 2) + norm.ppf(0.8)
    for pair in result.pairs.itertuples():
        a, b = pair.model_a, pair.model_b
        differences = means[a] - means[b]
        gap_variance = differences.var(ddof=1)
        within_part = expected.loc[a, "within_part"] + expected.loc[b, "within_part"]
        within = expected.loc[a, "within_variance"] + expected.loc[b, "within_variance"]
        item_part = gap_variance - within_part
        np.testing.assert_allclose(pair.gap_within_part, within_part, rtol=RELATIVE, atol=0)
        np.testing.assert_allclose(pair.gap_within_variance, within, rtol=RELATIVE, atol=0)
        # a difference of two numbers near 0.09 and 0.07: its rounding is relative to them, not to the difference
        np.testing.assert_allclose(pair.gap_between_variance, item_part, rtol=0, atol=1e-15)
        np.testing.assert_allclose(pair.gap_generation_share, within_part / gap_variance, rtol=RELATIVE, atol=0)
        scale = len(differences) * differences.mean() ** 2 / z_sum**2
        for generations in (1, 2, 5, 10, 20):
            q = scale / (max(item_part, 0.0) + within / generations)
            np.testing.assert_allclose(getattr(pair, f"q_generations_{generations}"), q, rtol=RELATIVE, atol=0)
        np.testing.assert_allclose(pair.q_generations_inf, scale / item_part, rtol=RELATIVE, atol=0)
        # with 5 epochs everywhere, q at K' = 5 is today's q (the paired t's own variance): equal to rounding
        np.testing.assert_allclose(pair.q_generations_5, pair.q, rtol=RELATIVE, atol=0)


# --------------------------------------------------------------------------- tau-bench: gpt-4o, 50 tasks x 4 trials
def test_tau_bench_fixture_holds_what_its_provenance_says():
    records = _trial_records()
    assert list(records.columns) == ["item", "model", "repeat", "score"] and len(records) == 200
    assert set(records["model"]) == {"gpt-4o"} and records["item"].nunique() == 50
    assert set(records.groupby("item").size()) == {4} and set(records["repeat"]) == {0, 1, 2, 3}
    assert set(records["score"]) == {0.0, 1.0} and records["score"].sum() == 84


def test_tau_bench_one_model_is_refused_as_a_comparison():
    """The snapshot has one model: read as it is, the table is refused with the reason in one line."""
    with pytest.raises(AlignmentError, match=r"only 1 model \('gpt-4o'\); a paired comparison needs at least two"):
        read_scores(TRIALS, score_column="reward", repeat_column="trial")


def test_tau_bench_trials_as_an_a_a_pair_split_as_the_raw_records():
    """Trials 0-1 and 2-3 of gpt-4o as two "models": an A/A pair of genuine repeated agent runs on 50 tasks."""
    records = _trial_records()
    halves = records.assign(model=np.where(records["repeat"] < 2, "gpt-4o trials 0-1", "gpt-4o trials 2-3"))
    cells, expected = _direct_split(halves)
    table = halves.rename(columns={"item": "item_id", "score": "reward", "repeat": "trial"})
    matrix = read_scores(table, score_column="reward", repeat_column="trial")
    assert list(matrix.models) == ["gpt-4o trials 0-1", "gpt-4o trials 2-3"] and len(matrix.item_ids) == 50
    assert matrix.generations.label == "trial" and matrix.generations.count_range == (2, 2)
    _check_matrix(matrix, cells)
    _check_split(matrix, expected)
    means = cells["mean"].unstack("model").loc[list(matrix.item_ids)]
    pair = pair_split(matrix, np.array([0]), np.array([1]))
    gap_variance = (means.iloc[:, 0] - means.iloc[:, 1]).var(ddof=1)
    np.testing.assert_allclose(pair.gap_variance[0], gap_variance, rtol=RELATIVE, atol=0)
    np.testing.assert_allclose(pair.within_part[0], expected["within_part"].sum(), rtol=RELATIVE, atol=0)


# --------------------------------------------------------------------------- the builder of the tau-bench table
def _write_trajectories(folder: Path, records: pd.DataFrame) -> None:
    """The stored table written back as trajectory files (one per model and domain, trajectories left empty)."""
    folder.mkdir()
    for (model, domain), group in records.groupby(
        [records["model"], records["item"].str.rpartition("-")[0]], sort=True
    ):
        runs = [
            {"task_id": int(item.rpartition("-")[2]), "reward": score, "info": {}, "traj": [], "trial": int(trial)}
            for item, trial, score in zip(group["item"], group["repeat"], group["score"], strict=True)
        ]
        (folder / f"{model}-{domain}.json").write_text(json.dumps(runs))


def test_builder_gives_back_the_stored_table_from_its_records(tmp_path):
    records = _trial_records()
    _write_trajectories(tmp_path / "trajectories", records.sample(frac=1.0, random_state=np.random.default_rng(5)))
    table = build(tmp_path / "trajectories")
    written = io.BytesIO(gzip.compress(table.to_csv(index=False).encode(), mtime=0))
    assert written.getvalue() == TRIALS.read_bytes()


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        ([{"task_id": 1, "trial": 0, "reward": 1.0}, {"task_id": 1, "trial": 0, "reward": 0.0}], "trial 0 given twice"),
        ([{"task_id": 1, "trial": 0, "reward": None}], "numbers expected"),
        ([{"task_id": 1, "trial": True, "reward": 1.0}], "numbers expected"),
    ],
)
def test_builder_refuses_a_repeated_or_unreadable_run(runs, message):
    with pytest.raises(SystemExit, match=message):
        reduce_runs(runs, "m", "airline", "m-airline.json")


def test_builder_keys_tasks_by_domain():
    runs = [{"task_id": 3, "trial": trial, "reward": float(trial % 2)} for trial in range(2)]
    frame = reduce_runs(runs, "m", "retail", "m-retail.json")
    assert frame.to_dict("list") == {
        "item_id": ["retail-3", "retail-3"],
        "model": ["m", "m"],
        "trial": [0, 1],
        "reward": [0.0, 1.0],
    }


# --------------------------------------------------------------------------- the guide page that quotes these runs
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "source" / "guide" / "generations.rst"
CHECKOUT = Path(__file__).resolve().parents[2]


def _guide_runs() -> list[tuple[Block, list[Block]]]:
    """Each block of the page that reads the fixtures (its skip-test names this file), with the excerpts after it."""
    runs: list[tuple[Block, list[Block]]] = []
    for block in _rst_blocks(GUIDE):
        if block.skip and "test_repeated_fixtures" in block.skip:
            runs.append((block, []))
        elif block.language == "text" and runs:
            runs[-1][1].append(block)
    return runs


def _printed(block: Block, capsys, monkeypatch) -> list[str]:
    """What the block prints when run from the checkout: its commands through main(), its Python as a script."""
    monkeypatch.chdir(CHECKOUT)
    if block.language == "python":
        result = subprocess.run(
            [sys.executable, "-c", block.code], capture_output=True, text=True, timeout=300, check=False
        )
        assert result.returncode == 0 and result.stderr == "", result.stderr[-3000:]
        return [line.rstrip() for line in result.stdout.splitlines()]
    lines = []
    for command in block.code.splitlines():
        words = shlex.split(command)
        assert words[0] == "llm-power-verified", command
        assert main(words[1:]) == 0, command
        captured = capsys.readouterr()
        assert captured.err == "", captured.err
        lines += [line.rstrip() for line in captured.out.splitlines()]
    return lines


def test_the_guide_runs_its_fixture_commands_and_quotes_what_they_print(capsys, monkeypatch):
    """Every excerpt of the guide page is printed, line by line and in order, by the block before it."""
    runs = _guide_runs()
    assert [block.language for block, _ in runs] == ["bash", "bash", "python"]
    assert [len(excerpts) for _, excerpts in runs] == [2, 1, 1]
    for block, excerpts in runs:
        printed = _printed(block, capsys, monkeypatch)
        for excerpt in excerpts:
            missing = _quoted_in_order(excerpt.code.splitlines(), printed)
            assert missing is None, f"{excerpt.where} quotes {missing!r}, which {block.where} no longer prints"


def test_the_guide_states_the_a_a_halvings_means_as_computed():
    """The prose's means over the three halvings of the tau-bench trials (0.150 and 0.147) are these data's."""
    records = _trial_records()
    gap_variances, within_parts = [], []
    for first in ((0, 1), (0, 2), (0, 3)):
        halves = records.assign(model=np.where(records["repeat"].isin(first), "A", "B"))
        table = halves.rename(columns={"item": "item_id", "score": "reward", "repeat": "trial"})
        pair = pair_split(
            read_scores(table, score_column="reward", repeat_column="trial"), np.array([0]), np.array([1])
        )
        gap_variances.append(pair.gap_variance[0])
        within_parts.append(pair.within_part[0])
    page = " ".join(GUIDE.read_text().split())
    stated = (
        f"mean gap variance is {np.mean(gap_variances):.3f}, their mean generation part {np.mean(within_parts):.3f}"
    )
    assert stated in page, stated


def test_readme_quotes_the_headline_of_the_guide_run(capsys, monkeypatch):
    """README's section quotes the 5-epoch audit's headline; the audit of the guide's first command prints it."""
    readme = " ".join((CHECKOUT / "README.md").read_text().split())
    quoted = "generation noise is 77% of the variance of the adjacent gaps"
    assert f'"{quoted}"' in readme
    block, _ = _guide_runs()[0]
    assert quoted in " ".join(" ".join(_printed(block, capsys, monkeypatch)).split())


def test_the_guide_states_the_equal_cost_plan_as_computed(capsys, monkeypatch):
    """The page's "K = 3 on 297 items" is what plan repeats gives at its default (equal) costs."""
    block = _guide_runs()[1][0]
    monkeypatch.chdir(CHECKOUT)
    words = shlex.split(block.code.strip())
    default_costs = words[1 : words.index("--cost-item")]
    assert main(default_costs) == 0
    assert "cheapest N = 297 items x K = 3," in capsys.readouterr().out
    assert "K = 3 on 297 items" in " ".join(GUIDE.read_text().split())
