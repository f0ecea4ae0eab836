"""Several generations per item compose with the rest: the item is the unit; its generations stay inside it.

Each test reads one long table of generations (one row per item, model and epoch) with ``--repeat-column epoch``
and the wide table of its item means computed here with pandas, and asks that every item-level procedure gives the
same answer on both: the paired t and the paired bootstrap of ``compare`` (paired test on item means), the
anytime-valid betting sequence of ``compare --anytime`` and ``monitor`` (items in their arrival order: the order in
which each item first appears, however its generations are interleaved), the audit's cluster bootstrap and
cluster-robust figures (clusters resample items with their generations), and the audit of a shuffled table (rows and
columns in another order).

Scores lie on a grid of 1/8 with at most 5 generations per cell, so that each cell's sum is exact in float64 and
its mean is one correctly rounded division in the reader and in pandas alike: the two inputs hold the same floats
and the reports are compared exactly.  Where summation order can change a variance (shuffled rows, unequal counts)
the tolerance is stated beside the comparison.
"""

from __future__ import annotations

import contextlib
import io
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from llm_power_verified.cli import main
from llm_power_verified.comparison.generations import SPLIT_FIELDS
from llm_power_verified.io import read_scores
from llm_power_verified.repeats.split import model_split, pair_split

MODELS = ("alpha", "beta", "gamma")
RESAMPLES = ["--n-resamples", "200", "--n-cluster-resamples", "200", "--seed", "7", "--quiet"]


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _json(argv: list[str], statuses=(0,)) -> dict:
    status, out, err = _cli(argv)
    assert status in statuses and err == "", (status, err)
    return json.loads(out)


def _generations(*, items: int = 90, equal: bool = True, seed: int = 27) -> pd.DataFrame:
    """Graded generations on a 1/8 grid: item effects shared by the models, 2 to 5 (or 4) epochs per cell.

    Rows come epoch by epoch (every item's first epoch, then the second, ...), with items in a shuffled arrival
    order, so that an item's generations are far apart in the file.
    """
    rng = np.random.default_rng(seed)
    arrival = rng.permutation(items)
    effect = rng.normal(0.0, 1.5, items)
    rows = []
    for epoch in range(1, 6):
        for item in arrival:
            for model, skill in zip(MODELS, (0.6, 0.2, -0.2), strict=True):
                count = 4 if equal else 2 + (item + MODELS.index(model)) % 4
                if epoch > count:
                    continue
                chance = 1 / (1 + math.exp(-(effect[item] + skill)))
                score = rng.binomial(8, chance) / 8
                rows.append(
                    {
                        "item_id": f"q{item:03d}",
                        "cluster": f"c{item % 9}",
                        "model": model,
                        "epoch": epoch,
                        "score": score,
                    }
                )
    return pd.DataFrame(rows)


def _item_means(table: pd.DataFrame) -> pd.DataFrame:
    """The wide table of item means, items in the order they first appear, computed here with pandas."""
    means = table.groupby(["item_id", "model"], sort=False)["score"].mean().unstack("model")[list(MODELS)]
    clusters = table.groupby("item_id", sort=False)["cluster"].first()
    return means.reindex(table["item_id"].drop_duplicates()).assign(cluster=clusters).reset_index()


def _files(tmp_path, table: pd.DataFrame, name: str = "long") -> tuple[str, str]:
    long, wide = tmp_path / f"{name}.csv", tmp_path / f"{name}_means.csv"
    table.to_csv(long, index=False)
    _item_means(table).to_csv(wide, index=False, float_format="%.17g")
    return str(long), str(wide)


def _projected(report, like):
    """``report`` kept to the keys ``like`` has (a repeated input's report adds its generations' columns)."""
    if isinstance(like, dict):
        return {key: _projected(report[key], value) for key, value in like.items()}
    if isinstance(like, list) and len(like) == len(report):
        return [_projected(got, value) for got, value in zip(report, like, strict=True)]
    return report


def _same_but_the_split(repeated: dict, means: dict) -> None:
    """The compare records agree but for the split, which only the repeated record has (the item means carry none)."""
    assert _without(repeated, "inputs", "notes", *SPLIT_FIELDS) == _without(means, "inputs", "notes", *SPLIT_FIELDS)
    assert all(repeated[field] is not None for field in ("gap_within_part", "generation_share", "q_generations_1"))
    assert all(means[field] is None for field in SPLIT_FIELDS)


def _without(document: dict, *keys: str) -> dict:
    return {key: value for key, value in document.items() if key not in keys}


def _audit(path: str, *options: str) -> dict:
    """The audit's JSON report with the input's name replaced by INPUT (the checklist names the file)."""
    command = ["audit", path, *options, "--cluster-column", "cluster", "--format", "json", *RESAMPLES]
    status, out, err = _cli(command)
    assert (status, err) == (0, ""), err
    return _without(json.loads(out.replace(json.dumps(path)[1:-1], "INPUT")), "source")


@pytest.mark.parametrize("method", ["t", "bootstrap"])
def test_compare_on_repeated_generations_is_the_paired_test_on_item_means(tmp_path, method):
    table = _generations(equal=False)
    long, wide = _files(tmp_path, table)
    options = [
        "--baseline",
        "gamma",
        "--candidate",
        "alpha",
        "--method",
        method,
        "--cluster-column",
        "cluster",
        "--json",
    ]
    repeated = _json(["compare", long, "--repeat-column", "epoch", *options], statuses=(0, 1, 3))
    means = _json(["compare", wide, "--scores", "graded", *options], statuses=(0, 1, 3))
    _same_but_the_split(repeated, means)
    # And independently: scipy's paired t on the pandas item means (1e-12 relative: two routes to one statistic).
    pandas_means = _item_means(table)
    difference = pandas_means["alpha"] - pandas_means["gamma"]
    assert repeated["n_items"] == 90 and repeated["difference"] == pytest.approx(difference.mean(), rel=1e-12)
    assert repeated["sd_difference"] == pytest.approx(difference.std(ddof=1), rel=1e-12)
    if method == "t":
        low, high = stats.ttest_rel(pandas_means["alpha"], pandas_means["gamma"]).confidence_interval(0.90)
        assert (repeated["interval_low"], repeated["interval_high"]) == pytest.approx((low, high), rel=1e-12)


def test_monitoring_a_repeated_evaluation_follows_each_item_s_first_arrival(tmp_path):
    """compare --anytime and monitor see the item means in the order each item first arrives."""
    table = _generations()
    long, wide = _files(tmp_path, table)
    matrix = read_scores([long], repeat_column="epoch")
    assert list(matrix.item_ids) == list(table["item_id"].drop_duplicates())
    options = ["--baseline", "gamma", "--candidate", "alpha", "--anytime", "--cluster-column", "cluster", "--json"]
    repeated = _json(["compare", long, "--repeat-column", "epoch", *options], statuses=(0, 1, 3))
    means = _json(["compare", wide, "--scores", "graded", *options], statuses=(0, 1, 3))
    _same_but_the_split(repeated, means)
    assert repeated["decided_at"] is not None  # the sequence decides, at an item whose place in the order counts
    files = []
    for model in ("alpha", "gamma"):
        column = matrix.scores[:, matrix.models.index(model)]
        files.append(tmp_path / f"{model}.txt")
        files[-1].write_text("".join(f"{value!r}\n" for value in column.tolist()))
    monitored = _json(["monitor", *map(str, files), "--scores", "graded", "--json"])
    pandas_means = _item_means(table)
    for model, file in zip(("alpha", "gamma"), files, strict=True):
        file.write_text("".join(f"{value!r}\n" for value in pandas_means[model].tolist()))
    assert monitored == _json(["monitor", *map(str, files), "--scores", "graded", "--json"])


def test_clusters_resample_items_with_their_generations(tmp_path):
    """The audit's cluster bootstrap and cluster-robust figures on the generations equal those on the item means."""
    long, wide = _files(tmp_path, _generations(equal=False))
    repeated = _audit(long, "--repeat-column", "epoch")
    means = _audit(wide, "--scores", "graded")
    kept = _without(means, "notes", "headline", "legend")
    assert _projected(repeated, kept) == kept
    assert repeated["clusters"]["n_clusters"] == 9 and repeated["clusters"]["bootstrap"]
    cluster_columns = [key for key in means["pairs"][0] if "cluster" in key]
    assert cluster_columns, "the audit's pair table has cluster columns to compare"
    options = ["--baseline", "gamma", "--candidate", "beta", "--method", "cluster", "--cluster-column", "cluster"]
    compared = [
        _json(["compare", source, *extra, *options, "--json"], statuses=(0, 1, 3))
        for source, extra in ((long, ["--repeat-column", "epoch"]), (wide, ["--scores", "graded"]))
    ]
    _same_but_the_split(*compared)


def _shuffled(table: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return table.iloc[rng.permutation(len(table)), rng.permutation(table.shape[1])]


def test_a_shuffled_long_table_gives_the_same_audit(tmp_path):
    """Rows and columns in another order: the same audit, exactly (equal counts: every sum here is exact)."""
    table = _generations()
    reports = []
    for name, version in (("ordered", table), ("shuffled", _shuffled(table, 11))):
        path = tmp_path / f"{name}.csv"
        version.to_csv(path, index=False)
        reports.append(_audit(str(path), "--repeat-column", "epoch"))
    assert reports[0] == reports[1]


def test_the_split_does_not_depend_on_the_order_of_rows(tmp_path):
    """Unequal counts: the split of a shuffled table equals the ordered one's to 1e-13 relative.

    A cell's mean and variance are sums over its generations, and a model's split sums over items: another row
    order adds the same terms in another order, which may move the last bits (a handful of ulps on sums of at most
    90 terms, far below 1e-13).
    """
    table = _generations(equal=False)
    splits = []
    for name, version in (("ordered", table), ("shuffled", _shuffled(table, 12))):
        path = tmp_path / f"{name}.csv"
        version.to_csv(path, index=False)
        matrix = read_scores([path], repeat_column="epoch")
        order = np.argsort(np.asarray(matrix.item_ids))
        models = [matrix.models.index(name) for name in MODELS]
        assert matrix.generations.counts[order][:, models].tolist() == (
            _counts(table).loc[sorted(matrix.item_ids), list(MODELS)].to_numpy().tolist()
        )
        first, second = np.array([models[0], models[0], models[1]]), np.array([models[1], models[2], models[2]])
        model_values, pair_values = model_split(matrix), pair_split(matrix, first, second)
        splits.append(
            {
                **{f"model_{key}": np.asarray(value)[models] for key, value in model_values.to_dict().items()},
                **{f"pair_{key}": np.asarray(value) for key, value in pair_values.to_dict().items()},
            }
        )
    assert splits[0].keys() == splits[1].keys()
    for key in splits[0]:
        np.testing.assert_allclose(splits[1][key], splits[0][key], rtol=1e-13, atol=0, err_msg=key)


def _counts(table: pd.DataFrame) -> pd.DataFrame:
    return table.groupby(["item_id", "model"])["epoch"].count().unstack("model")
